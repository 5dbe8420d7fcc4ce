/**
 * The builder-stats feed end to end on the devnet: the relay poller ingests
 * the simulated relays, then GET /v1/premium/builder-stats is bought with a
 * devnet x402 payment. Its numbers are checked against the stored rows
 * (nearest-rank percentiles recomputed here with bigints, shares, hourly
 * counts); a bad window is a 400 listing the allowed values before payment;
 * the free sample equals the redaction of the paid 6 h answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { SAMPLE_CACHE_MS } from "../../src/feeds/routes.js";
import { redactBuilderStats, FEED_PERCENTILES } from "../../src/feeds/builder-stats.js";
import { auctionAt } from "../../devnet/relays.js";

let s: WatchStack;

/** Nearest rank: the value at rank ceil(p·n/100) of the sorted values. */
function nearestRank(values: bigint[]): Record<string, string | null> {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = sorted.length;
  return Object.fromEntries(FEED_PERCENTILES.map((p) => [`p${p}`, n === 0 ? null : sorted[Math.max(0, Math.ceil((p * n) / 100) - 1)]!.toString()]));
}

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  await s.pollRelays();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("GET /v1/premium/builder-stats", () => {
  it("costs $0.05 and refuses a bad window before payment, listing the allowed values", async () => {
    const r = await s.call("GET", "/v1/premium/builder-stats");
    expect(r.status).toBe(402);
    const w = await s.call("GET", "/v1/premium/builder-stats?window=1y");
    expect(w.status).toBe(400);
    expect(JSON.stringify(w.json)).toContain("1h, 6h, 24h, 7d, 30d");
    // Unknown query parameters are ignored and named in Vigil-Ignored-Input (docs/api.md): still the 402.
    const bogus = await s.call("GET", "/v1/premium/builder-stats?bogus=1");
    expect(bogus.status).toBe(402);
    expect(bogus.headers.get("vigil-ignored-input")).toBe("bogus");
    const info = await s.call("GET", "/v1/paywall");
    expect(JSON.stringify(info.json)).toContain("/v1/premium/builder-stats");
  });

  it("the paid answer matches the stored slots and bids", async () => {
    const r = await s.paidGet("/v1/premium/builder-stats?window=24h");
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const a = r.json;
    expect(a).toMatchObject({ window: "24h", window_s: 86_400, present: true, stale: false, relays_down: [] });
    expect(a.total_slots).toBeGreaterThan(100);
    expect(a.source_age_s).toBeLessThan(60);
    expect(Math.abs(a.as_of_ms - s.clock.now())).toBeLessThan(60_000);
    expect(a.builders.length).toBeGreaterThanOrEqual(3);
    // Sorted by slots won; shares and hourly counts add up.
    const won = a.builders.map((b: any) => b.slots_won);
    expect(won).toEqual([...won].sort((x: number, y: number) => y - x));
    expect(won.reduce((x: number, y: number) => x + y, 0)).toBe(a.total_slots);
    expect(a.global.delivered_blocks).toBe(a.total_slots);
    expect(a.global.hourly_slots.reduce((x: number, y: number) => x + y, 0)).toBe(a.total_slots);
    for (const b of a.builders) {
      expect(b.hourly_wins.reduce((x: number, y: number) => x + y, 0), b.builder).toBe(b.slots_won);
      // Two decimals, rounded: 40.625 % is answered 40.63, half a hundredth away (toBeCloseTo(…, 2) wants strictly less).
      expect(Math.abs(b.share_pct - (b.slots_won * 100) / a.total_slots)).toBeLessThanOrEqual(0.005 + 1e-9);
    }
    // The leader is whoever the devnet's auctions made win most of the stored slots (they are seeded by slot:
    // Titan wins 40 % of slots, BuilderNet 28 %, so over some windows BuilderNet leads). Every builder's
    // count is the devnet's own count over the slots the service stored.
    const slots = await sql<{ slot: string }>`SELECT DISTINCT slot::text AS slot FROM relay_payloads WHERE slot_time_s >= ${String(a.from_s)}`.execute(s.t.db.db);
    const wins = new Map<string, number>();
    for (const row of slots.rows) {
      const winner = auctionAt(Number(row.slot))!.winner.name;
      wins.set(winner, (wins.get(winner) ?? 0) + 1);
    }
    // Builders that only bid (Flashbots, weight 0 in the devnet's auctions) are listed with no slots won.
    const winners = a.builders.filter((b: any) => b.slots_won > 0);
    expect(Object.fromEntries(winners.map((b: any) => [b.builder, b.slots_won]))).toEqual(Object.fromEntries(wins));
    expect(a.builders[0].slots_won).toBe(Math.max(...wins.values()));
    // Every winner is named: BuilderNet and Quasar, which the devnet publishes no key for, from their blocks' extra-data.
    expect(a.builders.map((b: any) => b.builder)).toEqual(expect.arrayContaining(["BuilderNet", "Quasar"]));
    expect(a.builders.filter((b: any) => b.builder.startsWith("0x"))).toEqual([]);

    // Percentiles against the rows themselves.
    const db = s.t.db.db;
    const bids = await sql<{ k: string; v: string }>`SELECT builder_pubkey AS k, value_wei::text AS v FROM relay_bids WHERE slot_time_s >= ${String(a.from_s)}`.execute(db);
    expect(a.global.bids).toBe(bids.rows.length);
    expect(a.global.bid_percentiles_wei).toEqual(nearestRank(bids.rows.map((x) => BigInt(x.v))));
    for (const b of a.builders) {
      const mine = bids.rows.filter((x) => b.pubkeys.includes(x.k)).map((x) => BigInt(x.v));
      expect(b.bids, b.builder).toBe(mine.length);
      expect(b.bid_percentiles_wei, b.builder).toEqual(nearestRank(mine));
    }
    const delivered = await sql<{ v: string }>`
      SELECT DISTINCT ON (slot) value_wei::text AS v FROM relay_payloads WHERE slot_time_s >= ${String(a.from_s)} ORDER BY slot, relay`.execute(db);
    expect(a.global.delivered_value_percentiles_wei).toEqual(nearestRank(delivered.rows.map((x) => BigInt(x.v))));
    expect(BigInt(a.global.bid_percentiles_wei.p10)).toBeLessThanOrEqual(BigInt(a.global.bid_percentiles_wei.p99));
  });

  it("a shorter window holds fewer slots", async () => {
    const day = await s.paidGet("/v1/premium/builder-stats?window=24h");
    const hour = await s.paidGet("/v1/premium/builder-stats?window=1h");
    expect(hour.status).toBe(200);
    expect(hour.json.window_s).toBe(3600);
    expect(hour.json.total_slots).toBeLessThanOrEqual(300);
    expect(hour.json.total_slots).toBeLessThanOrEqual(day.json.total_slots);
  });
});

describe("GET /v1/premium/builder-stats/sample", () => {
  it("is free and equals the redaction of the paid 6 h answer", async () => {
    const sample = await s.call("GET", "/v1/premium/builder-stats/sample");
    expect(sample.status).toBe(200);
    const paid = await s.paidGet("/v1/premium/builder-stats?window=6h");
    expect(paid.status).toBe(200);
    expect(sample.json).toEqual(redactBuilderStats(paid.json));
    expect(sample.json.top).toHaveLength(3);
    expect(sample.json.top.map((t: any) => t.builder)).toEqual(paid.json.builders.slice(0, 3).map((b: any) => b.builder));
    for (const [i, t] of (sample.json.top as any[]).entries()) {
      expect(Number.isInteger(t.share_pct)).toBe(true);
      expect(Math.abs(t.share_pct - paid.json.builders[i].share_pct)).toBeLessThanOrEqual(0.5);
      expect(t.median_bid_wei).toBe(paid.json.builders[i].bid_percentiles_wei.p50);
      expect(Object.keys(t).sort()).toEqual(["builder", "median_bid_eth", "median_bid_wei", "share_pct"]);
    }
    expect(sample.json).toMatchObject({
      present: true,
      window: "6h",
      premium_endpoint: "/v1/premium/builder-stats",
      freshness: { stale: false, stale_after_s: paid.json.stale_after_s },
      source_freshness_s: paid.json.source_age_s,
    });
    // Nothing of the paid detail leaks into the sample.
    expect(Object.keys(sample.json).sort()).toEqual(
      ["as_of_ms", "freshness", "generated_at_ms", "note", "premium_endpoint", "present", "source_freshness_s", "top", "total_slots", "window"],
    );
  });

  it("is computed at most once per 30 s", async () => {
    s.advance(SAMPLE_CACHE_MS + 1);
    const first = (await s.call("GET", "/v1/premium/builder-stats/sample")).json;
    s.advance(10_000);
    expect((await s.call("GET", "/v1/premium/builder-stats/sample")).json.generated_at_ms).toBe(first.generated_at_ms);
    s.advance(SAMPLE_CACHE_MS);
    expect((await s.call("GET", "/v1/premium/builder-stats/sample")).json.generated_at_ms).toBeGreaterThan(first.generated_at_ms);
  });

  it("answers, not present and stale, once the data has aged out of the window", async () => {
    const at = s.clock.now();
    try {
      s.setTime(at + 3 * 86_400_000);
      const sample = await s.call("GET", "/v1/premium/builder-stats/sample");
      expect(sample.status).toBe(200);
      expect(sample.json).toMatchObject({ present: false, top: [], total_slots: 0, freshness: { stale: true } });
    } finally {
      s.setTime(at);
    }
  });
});
