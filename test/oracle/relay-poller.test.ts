/**
 * The relay poller against the devnet's simulated relays over real loopback
 * sockets: delivered payloads and bids ingested, a slot delivered by two
 * relays counted once, a second poll storing nothing new, retention; one
 * relay that fails (503), times out or answers garbage while the others keep
 * working, with data-freshness and the answers saying which.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { RelayClient, parseRelayUrls, slotTime } from "../../src/chains/ethereum/relays.js";
import { builderKeyNames, builderName, parseBuilderPubkeys } from "../../src/chains/ethereum/builders.js";
import { startDevnetRelays, auctionAt, DEVNET_BUILDERS, type DevnetRelays } from "../../devnet/relays.js";
import { pollRelaysOnce, type RelayPollerDeps } from "../../src/ingest/relay-poller.js";
import { builderQuestions, relayFreshnessSources, type BuilderQuestionDeps } from "../../src/oracle/questions/builders.js";
import { createOracleRegistry } from "../../src/oracle/registry.js";
import { ServiceError } from "../../src/core/errors.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

let db: TestDatabase;
let sim: DevnetRelays;
let deps: RelayPollerDeps;
let qdeps: BuilderQuestionDeps;
const clock = { now: () => Date.now() };
const ANSWERING_TIMEOUT_MS = 30_000;
/** The deadline of the client that meets the relay that never answers (it holds requests 60 s): short, yet it can only fire. */
const SILENT_TIMEOUT_MS = 200;

beforeAll(async () => {
  db = await openTestDatabase();
  sim = await startDevnetRelays({ historySlots: 150 });
  const endpoints = parseRelayUrls(sim.relayUrls);
  // Answering relays get a deadline no loaded machine reaches (a tight one made them time out under load, as if down);
  // the timeout case swaps in its own short-deadline client for the relay that never answers.
  deps = { db: db.db, clock, relays: endpoints.map((e) => new RelayClient(e, { timeoutMs: ANSWERING_TIMEOUT_MS, attempts: 1 })), retentionSeconds: 3600, maxPages: 1, bidSlots: 4 };
  qdeps = { db: db.db, clock, relays: endpoints, names: parseBuilderPubkeys(sim.builderPubkeys), maxAgeSeconds: 600 };
});

afterAll(async () => {
  await Promise.all(deps.relays.map((r) => r.close()));
  await sim.close();
  await db.close();
});

const count = async (table: "relay_payloads" | "relay_bids", where = sql`true`) =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${where}`.execute(db.db)).rows[0]!.n);

describe("relay poller", () => {
  it("ingests delivered payloads page by page and each builder's top bid per slot", async () => {
    const first = await pollRelaysOnce(deps);
    expect(first.every((r) => r.ok)).toBe(true);
    // 150 slots of history, a page of 100 rows per relay: the first run leaves more.
    expect(first.some((r) => r.more)).toBe(true);
    while ((await pollRelaysOnce(deps)).some((r) => r.more));
    const slots = Number((await sql<{ n: string }>`SELECT count(DISTINCT slot) AS n FROM relay_payloads`.execute(db.db)).rows[0]!.n);
    let want = 0;
    const top = sim.currentSlot();
    for (let s = top; s > top - 150; s--) if (auctionAt(s)) want++;
    expect(slots).toBeGreaterThanOrEqual(want - 1);
    expect(slots).toBeLessThanOrEqual(want + 1);
    // Bids: one row per (slot, builder), the highest bid.
    const bidSlot = Number((await sql<{ s: string }>`SELECT max(slot) AS s FROM relay_bids`.execute(db.db)).rows[0]!.s);
    const a = auctionAt(bidSlot)!;
    expect(await count("relay_bids", sql`slot = ${String(bidSlot)}`)).toBe(DEVNET_BUILDERS.length);
    const winnerBid = await sql<{ v: string }>`SELECT value_wei::text AS v FROM relay_bids WHERE slot = ${String(bidSlot)} AND builder_pubkey = ${a.winner.pubkey}`.execute(db.db);
    expect(BigInt(winnerBid.rows[0]!.v)).toBe(a.value);
  });

  it("stores a slot delivered by two relays once per relay and counts it once", async () => {
    const dup = await sql<{ slot: string; n: string }>`SELECT slot, count(*) AS n FROM relay_payloads GROUP BY slot HAVING count(*) > 1 LIMIT 1`.execute(db.db);
    expect(dup.rows.length).toBe(1);
    const registry = createOracleRegistry(builderQuestions(qdeps), clock);
    const r = await registry.ask("top-builder", { window: "1h" });
    const distinct = Number((await sql<{ n: string }>`SELECT count(DISTINCT slot) AS n FROM relay_payloads`.execute(db.db)).rows[0]!.n);
    expect(r.total_slots).toBe(distinct);
    // The winner of each stored slot is the simulator's own draw; the top builder is the one with the most
    // slots (Titan's weight makes it so in most windows, BuilderNet's in about 3 % of 150-slot windows).
    const won = new Map<string, number>();
    const stored = await sql<{ slot: string }>`SELECT DISTINCT slot FROM relay_payloads`.execute(db.db);
    for (const { slot } of stored.rows) {
      const a = auctionAt(Number(slot));
      if (a) won.set(a.winner.pubkey, (won.get(a.winner.pubkey) ?? 0) + 1);
    }
    const most = Math.max(...won.values());
    const tops = [...won].filter(([, n]) => n === most).map(([k]) => builderName(qdeps.names, k));
    expect(tops).toContain(r.builder);
    expect(r.slots_won).toBe(most);
    expect(r.relays_down).toEqual([]);
  });

  it("a bid from a key of the reviewed default table is named with no BUILDER_PUBKEYS set", async () => {
    const registry = createOracleRegistry(builderQuestions({ ...qdeps, names: builderKeyNames(undefined) }), clock);
    const r = await registry.ask("builder-bid", { builder: "Flashbots", window: "1h" });
    expect(r).toMatchObject({ builder: "Flashbots", matched: true });
    expect(r.samples).toBeGreaterThan(0);
    // The devnet's own setting names only its made-up keys.
    expect(Object.values(JSON.parse(sim.builderPubkeys))).not.toContain("Flashbots");
  });

  it("a second poll at the same head stores nothing new", async () => {
    const before = await count("relay_payloads");
    const again = await pollRelaysOnce(deps);
    const after = await count("relay_payloads");
    // Only slots that started since the last poll may arrive.
    expect(after - before).toBe(again.reduce((a, r) => a + r.delivered, 0));
    expect(after - before).toBeLessThanOrEqual(3);
  });

  for (const mode of ["fail", "timeout", "garbage"] as const) {
    it(`a relay that answers "${mode}" is marked down while the others keep working`, async () => {
      sim.setMode("sim-aestus", mode);
      const silent = mode === "timeout" ? new RelayClient(parseRelayUrls(sim.relayUrls).find((e) => e.id === "relay:sim-aestus")!, { timeoutMs: SILENT_TIMEOUT_MS, attempts: 1 }) : undefined;
      try {
        const started = Date.now();
        const res = await pollRelaysOnce(silent ? { ...deps, relays: deps.relays.map((r) => (r.id === "relay:sim-aestus" ? silent : r)) } : deps);
        // The silent relay cost its deadline, not the simulator's 60 s hold.
        if (silent) expect(Date.now() - started).toBeLessThan(ANSWERING_TIMEOUT_MS);
        const byId = new Map(res.map((r) => [r.relay, r]));
        expect(byId.get("relay:sim-aestus")).toMatchObject({ ok: false });
        expect(byId.get("relay:sim-aestus")!.error).toMatch(mode === "garbage" ? /garbage/ : /relay sim-aestus|timeout|503|abort/i);
        expect(byId.get("relay:sim-flashbots")!.ok).toBe(true);
        expect(byId.get("relay:sim-ultrasound")!.ok).toBe(true);
        const fresh = relayFreshnessSources(qdeps);
        expect(await fresh.freshness("relay:sim-aestus")).toMatchObject({ fresh: false, node_reachable: false, last_error: expect.any(String) });
        expect(await fresh.freshness("relay:sim-flashbots")).toMatchObject({ fresh: true, node_reachable: true, last_error: null });
        // The answers still come, naming the relay that is down.
        const registry = createOracleRegistry(builderQuestions(qdeps), clock);
        const r = await registry.ask("block-value", { pct: "90", window: "1h" });
        expect(r.relays_down).toEqual(["relay:sim-aestus"]);
        expect(r.samples).toBeGreaterThan(0);
      } finally {
        sim.setMode("sim-aestus", "ok");
        await silent?.close();
      }
      const back = await pollRelaysOnce(deps);
      expect(back.every((r) => r.ok)).toBe(true);
    });
  }

  it("every relay down: the answers are 503 naming them, never stale data", async () => {
    for (const r of ["sim-flashbots", "sim-ultrasound", "sim-aestus"] as const) sim.setMode(r, "fail");
    try {
      await pollRelaysOnce(deps);
      const registry = createOracleRegistry(builderQuestions(qdeps), clock);
      const e = await registry.ask("proposer-payment", {}).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ServiceError);
      expect(e).toMatchObject({ status: 503, code: "source_stale" });
      expect((e as ServiceError).details?.source).toContain("relay:sim-flashbots");
    } finally {
      for (const r of ["sim-flashbots", "sim-ultrasound", "sim-aestus"] as const) sim.setMode(r, "ok");
    }
    await pollRelaysOnce(deps);
  });

  it("old data past the limit is 503 source_stale; retention prunes slots past it", async () => {
    const later = { now: () => Date.now() + 3_600_000 };
    const registry = createOracleRegistry(builderQuestions({ ...qdeps, clock: later }), later);
    await expect(registry.ask("top-builder", {})).rejects.toMatchObject({ status: 503, code: "source_stale" });
    const oldest = Number((await sql<{ s: string }>`SELECT min(slot) AS s FROM relay_payloads`.execute(db.db)).rows[0]!.s);
    // A poll an hour and a half later with an hour's retention keeps nothing older than an hour before it.
    const far = { now: () => slotTime(oldest) * 1000 + 3_600_000 + 120_000 };
    await pollRelaysOnce({ ...deps, clock: far });
    const left = Number((await sql<{ s: string | null }>`SELECT min(slot) AS s FROM relay_payloads`.execute(db.db)).rows[0]!.s);
    expect(slotTime(left)).toBeGreaterThanOrEqual(far.now() / 1000 - 3600);
  });

  it("no relay configured: 503 relays_not_configured", async () => {
    const registry = createOracleRegistry(builderQuestions({ ...qdeps, relays: [] }), clock);
    expect(registry.catalogue().questions.every((q) => q.available === false)).toBe(true);
    await expect(registry.ask("top-builder", {})).rejects.toMatchObject({ status: 503, code: "relays_not_configured" });
  });
});
