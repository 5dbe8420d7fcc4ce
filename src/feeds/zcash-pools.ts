/**
 * Zcash value-pool snapshots and the Ironwood migration readout
 * (docs/zcash-pools.md).
 *
 * - The snapshot job stores one row per interval (ZCASH_SNAPSHOT_SECONDS,
 *   default 900 s): time, height and the six pools in zatoshi, read from
 *   zebrad. The row's key is the interval bucket (t rounded down to the
 *   interval), written with INSERT … ON CONFLICT DO NOTHING, so any number
 *   of worker processes store one row per interval. Rows older than
 *   SNAPSHOT_RETENTION_MS are deleted by the same job.
 * - GET /v1/zec/ironwood: every pool plus the migration readout, the very
 *   numbers of /v1/q/zec/pools (zecPoolsFacts / poolsReadout), cached 60 s.
 * - GET /v1/zec/ironwood/history: the stored snapshots of a window,
 *   downsampled (zcash-pools-downsample.ts).
 */
import { sql } from "kysely";
import { LRUCache } from "lru-cache";
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import { formatZec } from "../core/money.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import { ZCASH_POOLS, type ZcashPool, type ZcashValuePools, type Zebrad } from "../chains/zcash/zebrad.js";
import { poolsReadout, zecPoolsFacts, type ZecPoolsFacts } from "../chains/zcash/facts.js";
import { downsampleLast } from "./zcash-pools-downsample.js";

/** Snapshots are kept 91 days: one day more than the longest history window (90 d). */
export const SNAPSHOT_RETENTION_MS = 91 * 86_400_000;
/** How long /v1/zec/ironwood serves the same reading. */
export const IRONWOOD_CACHE_MS = 60_000;
/** A reading older than this is flagged stale (two cache lifetimes). */
export const IRONWOOD_STALE_AFTER_S = 120;
/** The job looks whether the current interval has its row at most this often. */
export const SNAPSHOT_CHECK_MS = 60_000;

export const HOUR_MS = 3_600_000;
export const HISTORY_MIN_WINDOW_MS = HOUR_MS;
export const HISTORY_MAX_WINDOW_MS = 90 * 24 * HOUR_MS;
export const HISTORY_MIN_POINTS = 10;
export const HISTORY_MAX_POINTS = 5000;
export const HISTORY_DEFAULT_POINTS = 2000;

export interface ZcashPoolsDeps {
  db: Queryable;
  zebrad: Zebrad;
  clock: Clock;
  /** Snapshot interval, seconds (ZCASH_SNAPSHOT_SECONDS). */
  intervalSeconds: number;
}

export interface ZcashPoolSnapshot {
  t_ms: number;
  height: number;
  pools: Record<ZcashPool, bigint>;
}

/** The start of the interval holding tMs. */
export function snapshotBucket(tMs: number, intervalSeconds: number): number {
  const step = intervalSeconds * 1000;
  return Math.floor(tMs / step) * step;
}

const column = (p: ZcashPool) => `${p}_zat` as const;

/**
 * Takes the current interval's snapshot unless a row for it exists: reads
 * zebrad, inserts (ON CONFLICT DO NOTHING) and deletes rows past the
 * retention. Answers whether this call stored the row.
 */
export async function takeZcashSnapshot({ ctx }: { ctx: ZcashPoolsDeps }, signal?: AbortSignal): Promise<{ stored: boolean; bucket_ms: number }> {
  const now = ctx.clock.now();
  const bucket = snapshotBucket(now, ctx.intervalSeconds);
  const have = await ctx.db
    .selectFrom("zcash_pool_snapshots")
    .select("bucket_ms")
    .where("bucket_ms", "=", String(bucket))
    .executeTakeFirst();
  if (have) return { stored: false, bucket_ms: bucket };
  const info = await ctx.zebrad.getBlockchainInfo(signal);
  const v = info.valuePools;
  const stored = await withTransaction(ctx.db, async (trx) => {
    const r = await trx
      .insertInto("zcash_pool_snapshots")
      .values({
        bucket_ms: String(bucket),
        t_ms: String(ctx.clock.now()),
        height: String(info.blocks),
        transparent_zat: v.transparent.zatoshi.toString(),
        sprout_zat: v.sprout.zatoshi.toString(),
        sapling_zat: v.sapling.zatoshi.toString(),
        orchard_zat: v.orchard.zatoshi.toString(),
        ironwood_zat: v.ironwood.zatoshi.toString(),
        lockbox_zat: v.lockbox.zatoshi.toString(),
      })
      .onConflict((oc) => oc.column("bucket_ms").doNothing())
      .executeTakeFirst();
    await trx.deleteFrom("zcash_pool_snapshots").where("t_ms", "<", String(now - SNAPSHOT_RETENTION_MS)).execute();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  });
  return { stored, bucket_ms: bucket };
}

/** The snapshot job: checks every minute (or every interval when shorter) that the current interval has its row. */
export function zcashSnapshotJob(deps: ZcashPoolsDeps): Job {
  return {
    name: "zcash pool snapshots",
    intervalMs: Math.min(SNAPSHOT_CHECK_MS, deps.intervalSeconds * 1000),
    run: async (signal) => {
      await takeZcashSnapshot({ ctx: deps }, signal);
      return { more: false };
    },
  };
}

/** Snapshots with t_ms in [fromMs, toMs], oldest first. */
export async function readSnapshots(db: Queryable, fromMs: number, toMs: number): Promise<ZcashPoolSnapshot[]> {
  const rows = await db
    .selectFrom("zcash_pool_snapshots")
    .selectAll()
    .where("t_ms", ">=", String(fromMs))
    .where("t_ms", "<=", String(toMs))
    .orderBy("t_ms", "asc")
    .execute();
  return rows.map((r) => {
    const pools = {} as Record<ZcashPool, bigint>;
    for (const p of ZCASH_POOLS) pools[p] = BigInt(String(r[column(p)]));
    return { t_ms: Number(r.t_ms), height: Number(r.height), pools };
  });
}

export interface HistoryRow {
  t_ms: number;
  height: number;
  pools_zec: Record<ZcashPool, string>;
  total_zec: string;
  shielded_percent: number;
  migration_percent: number | null;
}

/** One history row: ZEC strings and the same percentages as /v1/q/zec/pools (poolsReadout). */
export function historyRow(s: ZcashPoolSnapshot): HistoryRow {
  const pools = {} as ZcashValuePools;
  const zec = {} as Record<ZcashPool, string>;
  for (const p of ZCASH_POOLS) {
    pools[p] = { zatoshi: s.pools[p], monitored: true };
    zec[p] = formatZec(s.pools[p]);
  }
  const r = poolsReadout(pools);
  return { t_ms: s.t_ms, height: s.height, pools_zec: zec, total_zec: r.total_zec, shielded_percent: r.shielded_percent, migration_percent: r.migration.migration_percent };
}

export interface ZcashHistory {
  window_ms: number;
  max_points: number;
  from_ms: number;
  to_ms: number;
  interval_s: number;
  snapshots_in_window: number;
  downsampling: string;
  generated_at_ms: number;
  as_of_ms: number | null;
  rows: HistoryRow[];
}

export const DOWNSAMPLING_METHOD =
  "when the window holds more snapshots than max_points: first and last kept, the ones between split into max_points - 2 equal runs, the last snapshot of each run kept";

export async function readZcashHistory({ ctx, input }: { ctx: ZcashPoolsDeps; input: { window_ms: number; max_points: number } }): Promise<ZcashHistory> {
  const now = ctx.clock.now();
  const from = now - input.window_ms;
  const all = await readSnapshots(ctx.db, from, now);
  const kept = downsampleLast(all, input.max_points);
  return {
    window_ms: input.window_ms,
    max_points: input.max_points,
    from_ms: from,
    to_ms: now,
    interval_s: ctx.intervalSeconds,
    snapshots_in_window: all.length,
    downsampling: DOWNSAMPLING_METHOD,
    generated_at_ms: now,
    as_of_ms: all.length > 0 ? all[all.length - 1]!.t_ms : null,
    rows: kept.map(historyRow),
  };
}

export interface IronwoodReading {
  facts: ZecPoolsFacts;
  read_at_ms: number;
}

/** The 60 s cache of /v1/zec/ironwood on the injected clock (one key; a failed read is not kept). */
export function createIronwoodCache(deps: { zebrad: Zebrad; clock: Clock }) {
  const cache = new LRUCache<"pools", IronwoodReading>({
    max: 1,
    ttl: IRONWOOD_CACHE_MS - 1,
    perf: deps.clock,
    ttlResolution: 0,
    fetchMethod: async (_k, _stale, { signal }) => ({ facts: await zecPoolsFacts(deps.zebrad, signal), read_at_ms: deps.clock.now() }),
  });
  return {
    get: async (): Promise<IronwoodReading> => {
      const r = await cache.fetch("pools");
      if (!r) throw new Error("ironwood reading missing");
      return r;
    },
  };
}

export type IronwoodCache = ReturnType<typeof createIronwoodCache>;

export interface IronwoodSummary extends ZecPoolsFacts {
  as_of_ms: number;
  generated_at_ms: number;
  freshness: { age_s: number; stale_after_s: number; stale: boolean };
  present: boolean;
  source_freshness_s: number;
  note: string;
  premium_endpoint: string;
}

export async function readIronwood({ ctx }: { ctx: { clock: Clock; cache: IronwoodCache } }): Promise<IronwoodSummary> {
  const r = await ctx.cache.get();
  const now = ctx.clock.now();
  const age = Math.max(0, Math.floor((now - r.read_at_ms) / 1000));
  return {
    ...r.facts,
    as_of_ms: r.read_at_ms,
    generated_at_ms: now,
    freshness: { age_s: age, stale_after_s: IRONWOOD_STALE_AFTER_S, stale: age > IRONWOOD_STALE_AFTER_S },
    present: true,
    source_freshness_s: age,
    note: "Read from zebrad's value pools and kept about 60 s. Migration percent = ironwood / (orchard + ironwood) × 100, shielded percent = (sprout + sapling + orchard + ironwood) / total × 100, both rounded down to 0.01.",
    premium_endpoint: "/v1/q/zec/pools",
  };
}

