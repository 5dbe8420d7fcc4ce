/**
 * The builder-stats feed (docs/feeds.md): per builder its slots won and block
 * share, the nearest-rank percentiles p10…p99 of its bids (its highest bid per
 * slot, over every relay), its wins per UTC hour of day; and the global
 * distribution of delivered block values and of every bid. One computation,
 * `computeBuilderStats`, answers the paid feed; the free sample is
 * `redactBuilderStats` of its answer for the fixed 6 h window.
 *
 * Percentiles are exact integers: the value at rank ceil(p·n/100) of the n
 * values sorted ascending, computed in SQL with integer arithmetic (no float
 * percentile). Amounts are wei as decimal strings.
 */
import { sql } from "kysely";
import { z } from "zod";
import { sampleEnvelopeFields } from "./sample-fields.js";
import type { Clock } from "../core/clock.js";
import { formatAtomic, type MoneyUnit } from "../core/money.js";
import type { Queryable } from "../db/types.js";
import { builderName } from "../chains/ethereum/builders.js";
import { slotTime, type RelayEndpoint } from "../chains/ethereum/relays.js";
import { namesWithLearned, newestSlot, relayUp, seenBuilderKeys, slotsByBuilder, sourceStates } from "../ingest/index.js";

const ETH: MoneyUnit = { symbol: "ETH", decimals: 18, scale: 10n ** 18n };

/** The windows of the feed (seconds); the sample always uses 6h. */
export const FEED_WINDOWS = { "1h": 3_600, "6h": 21_600, "24h": 86_400, "7d": 604_800, "30d": 2_592_000 } as const;
export type FeedWindow = keyof typeof FEED_WINDOWS;
export const FEED_WINDOW_NAMES = Object.keys(FEED_WINDOWS) as FeedWindow[];
export const SAMPLE_WINDOW: FeedWindow = "6h";
export const SAMPLE_TOP = 3;
/** Percentiles of the feed (nearest rank). */
export const FEED_PERCENTILES = [10, 25, 50, 75, 90, 99] as const;

const wei = z.string().regex(/^\d+$/).describe("wei, decimal integer string");
const percentiles = z
  .object({ p10: wei.nullable(), p25: wei.nullable(), p50: wei.nullable(), p75: wei.nullable(), p90: wei.nullable(), p99: wei.nullable() })
  .describe("nearest-rank percentiles in wei; null when there is no value");
type Percentiles = z.infer<typeof percentiles>;
const hours = z.array(z.number().int()).length(24).describe("count per UTC hour of day of the slot start (index 0 = 00:00–00:59 UTC)");

export const BuilderStatsInput = z
  .object({
    window: z.enum(FEED_WINDOW_NAMES, { message: `window must be one of: ${FEED_WINDOW_NAMES.join(", ")}` }).default("24h"),
  })
  .strict();

export const BuilderStatsOutput = z.object({
  window: z.enum(FEED_WINDOW_NAMES),
  window_s: z.number().int(),
  from_s: z.number().int().describe("oldest slot start included (Unix s)"),
  as_of_ms: z.number().int().nullable().describe("start of the newest delivered slot stored (Unix ms); null when none"),
  generated_at_ms: z.number().int(),
  source_age_s: z.number().int().nullable().describe("seconds since the start of the newest delivered slot; null when none"),
  stale_after_s: z.number().int(),
  stale: z.boolean(),
  present: z.boolean().describe("whether the window holds any delivered slot"),
  relays_ok: z.array(z.string()),
  relays_down: z.array(z.string()),
  total_slots: z.number().int().describe("MEV-Boost slots in the window, each counted once"),
  builders: z.array(
    z.object({
      builder: z.string().describe("builder name, or its key prefix when the key has no name"),
      pubkeys: z.array(z.string()).describe("the builder's BLS keys seen in the window"),
      slots_won: z.number().int(),
      share_pct: z.number().describe("slots_won / total_slots in percent, 2 decimals"),
      bids: z.number().int().describe("slots with a bid of the builder (its highest bid per slot)"),
      bid_percentiles_wei: percentiles,
      hourly_wins: hours,
    }),
  ),
  global: z.object({
    delivered_blocks: z.number().int(),
    delivered_value_percentiles_wei: percentiles.describe("the relay-claimed payment to the proposer, one per slot"),
    bids: z.number().int(),
    bid_percentiles_wei: percentiles.describe("every builder's highest bid per slot"),
    hourly_slots: hours,
  }),
});
export type BuilderStats = z.infer<typeof BuilderStatsOutput>;

export const BuilderStatsSampleOutput = z.object({
  ...sampleEnvelopeFields,
  window: z.literal(SAMPLE_WINDOW),
  total_slots: z.number().int(),
  top: z.array(
    z.object({
      builder: z.string(),
      share_pct: z.number().int().describe("whole percent, rounded half up"),
      median_bid_wei: wei.nullable(),
      median_bid_eth: z.string().nullable(),
    }),
  ),
  note: z.string(),
  premium_endpoint: z.string(),
});
export type BuilderStatsSample = z.infer<typeof BuilderStatsSampleOutput>;

export interface FeedsDeps {
  db: Queryable;
  clock: Clock;
  relays: readonly RelayEndpoint[];
  /** The reviewed builder key → name table (builder-keys.ts plus BUILDER_PUBKEYS); each answer adds the learned names under it. */
  names: ReadonlyMap<string, string>;
  /** Newest-slot age (seconds) beyond which the data counts as stale. */
  maxAgeSeconds: number;
}

/** Integer nearest-rank percentiles of the values the `from` SQL fragment selects as `v`. */
async function rankPercentiles(db: Queryable, from: ReturnType<typeof sql>): Promise<{ n: number; p: Percentiles }> {
  const cols = FEED_PERCENTILES.map((p) => sql`max(v) FILTER (WHERE rn = greatest(1, (${sql.lit(p)} * n + 99) / 100))::text AS ${sql.ref(`p${p}`)}`);
  const r = await sql<Record<string, string | null> & { n: string | null }>`
    SELECT max(n)::text AS n, ${sql.join(cols)} FROM (
      SELECT v, row_number() OVER (ORDER BY v) AS rn, count(*) OVER () AS n FROM (${from}) s
    ) ranked`.execute(db);
  const row = r.rows[0];
  const n = Number(row?.n ?? 0);
  const pick = (k: string) => (n === 0 ? null : (row?.[k] ?? null));
  return { n, p: { p10: pick("p10"), p25: pick("p25"), p50: pick("p50"), p75: pick("p75"), p90: pick("p90"), p99: pick("p99") } };
}

const emptyHours = () => Array.from({ length: 24 }, () => 0);
const pctShare = (won: number, total: number) => (total === 0 ? 0 : Math.round((won * 10_000) / total) / 100);

/** The paid feed's computation for one window. */
export async function computeBuilderStats({ ctx, input }: { ctx: FeedsDeps; input: { window: FeedWindow } }): Promise<BuilderStats> {
  const { db, clock } = ctx;
  const nowMs = clock.now();
  const nowS = Math.floor(nowMs / 1000);
  const since = nowS - FEED_WINDOWS[input.window];
  const ids = ctx.relays.map((r) => r.id);
  const states = await sourceStates(db);
  const ok = ids.filter((id) => relayUp(states.get(id)));
  const down = ids.filter((id) => !relayUp(states.get(id)));
  const newest = ids.length === 0 ? null : await newestSlot(db, ids);
  const age = newest === null ? null : Math.max(0, nowS - slotTime(newest));
  const s = String(since);

  const [names, counts, seen, hourRows] = await Promise.all([
    namesWithLearned(db, ctx.names),
    slotsByBuilder(db, since),
    seenBuilderKeys(db, since),
    sql<{ builder_pubkey: string; h: string; n: string }>`
      SELECT builder_pubkey, (mod(slot_time_s, 86400) / 3600)::int AS h, count(*) AS n FROM (
        SELECT DISTINCT ON (slot) slot, builder_pubkey, slot_time_s FROM relay_payloads WHERE slot_time_s >= ${s} ORDER BY slot, relay
      ) d GROUP BY builder_pubkey, h`.execute(db),
  ]);
  const total = counts.reduce((a, c) => a + c.slots, 0);

  // One builder runs several keys: everything is summed per name.
  const keysByName = new Map<string, string[]>();
  for (const k of [...new Set(seen)].sort()) {
    const name = builderName(names, k);
    keysByName.set(name, [...(keysByName.get(name) ?? []), k]);
  }
  const wins = new Map<string, number>();
  for (const c of counts) wins.set(builderName(names, c.builder), (wins.get(builderName(names, c.builder)) ?? 0) + c.slots);
  const hourly = new Map<string, number[]>();
  const hourlySlots = emptyHours();
  for (const r of hourRows.rows) {
    const name = builderName(names, r.builder_pubkey);
    const hs = hourly.get(name) ?? emptyHours();
    hs[Number(r.h)]! += Number(r.n);
    hourly.set(name, hs);
    hourlySlots[Number(r.h)]! += Number(r.n);
  }

  const builders = await Promise.all(
    [...keysByName.entries()].map(async ([name, keys]) => {
      const bids = await rankPercentiles(
        db,
        sql`SELECT value_wei AS v FROM relay_bids WHERE slot_time_s >= ${s} AND builder_pubkey IN (${sql.join(keys)})`,
      );
      const won = wins.get(name) ?? 0;
      return { builder: name, pubkeys: keys, slots_won: won, share_pct: pctShare(won, total), bids: bids.n, bid_percentiles_wei: bids.p, hourly_wins: hourly.get(name) ?? emptyHours() };
    }),
  );
  builders.sort((a, b) => b.slots_won - a.slots_won || b.bids - a.bids || a.builder.localeCompare(b.builder));

  const [delivered, allBids] = await Promise.all([
    rankPercentiles(db, sql`SELECT DISTINCT ON (slot) value_wei AS v FROM relay_payloads WHERE slot_time_s >= ${s} ORDER BY slot, relay`),
    rankPercentiles(db, sql`SELECT value_wei AS v FROM relay_bids WHERE slot_time_s >= ${s}`),
  ]);

  return BuilderStatsOutput.parse({
    window: input.window,
    window_s: FEED_WINDOWS[input.window],
    from_s: since,
    as_of_ms: newest === null ? null : slotTime(newest) * 1000,
    generated_at_ms: nowMs,
    source_age_s: age,
    stale_after_s: ctx.maxAgeSeconds,
    stale: age === null || age > ctx.maxAgeSeconds || ok.length === 0,
    present: total > 0,
    relays_ok: ok,
    relays_down: down,
    total_slots: total,
    builders,
    global: {
      delivered_blocks: delivered.n,
      delivered_value_percentiles_wei: delivered.p,
      bids: allBids.n,
      bid_percentiles_wei: allBids.p,
      hourly_slots: hourlySlots,
    },
  });
}

export const BUILDER_STATS_PATH = "/v1/premium/builder-stats";

/**
 * The free sample: the paid answer for the 6 h window with everything but
 * the top 3 builders' whole-percent share and median bid removed.
 */
export function redactBuilderStats(paid: BuilderStats): BuilderStatsSample {
  const relaysNote = paid.relays_ok.length + paid.relays_down.length === 0 ? " No MEV-Boost relay is configured." : "";
  return BuilderStatsSampleOutput.parse({
    as_of_ms: paid.as_of_ms,
    generated_at_ms: paid.generated_at_ms,
    freshness: { age_s: paid.source_age_s, stale_after_s: paid.stale_after_s, stale: paid.stale },
    present: paid.present,
    source_freshness_s: paid.source_age_s,
    window: SAMPLE_WINDOW,
    total_slots: paid.total_slots,
    top: paid.builders.slice(0, SAMPLE_TOP).map((b) => ({
      builder: b.builder,
      share_pct: paid.total_slots === 0 ? 0 : Math.floor((b.slots_won * 100 * 2 + paid.total_slots) / (paid.total_slots * 2)),
      median_bid_wei: b.bid_percentiles_wei.p50,
      median_bid_eth: b.bid_percentiles_wei.p50 === null ? null : formatAtomic(BigInt(b.bid_percentiles_wei.p50), ETH),
    })),
    note: `Top ${SAMPLE_TOP} builders of the last 6 h by MEV-Boost slots won, whole-percent share and median bid only. Every builder, p10 to p99 bids, hourly histograms, the global distribution and windows up to 30 days: ${BUILDER_STATS_PATH} ($0.05).${relaysNote}`,
    premium_endpoint: BUILDER_STATS_PATH,
  });
}
