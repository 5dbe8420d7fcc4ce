/**
 * The Zcash pool snapshot job against the devnet zebrad over a loopback
 * socket and a real database: one row per interval whatever the number of
 * concurrent takers, a new row once the clock reaches the next interval,
 * the pools equal to the node's, retention past 91 days, and the history
 * rows computed with the same readout as /v1/q/zec/pools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { createZebrad, ZCASH_POOLS, type Zebrad } from "../../src/chains/zcash/zebrad.js";
import { poolsReadout } from "../../src/chains/zcash/facts.js";
import { formatZec } from "../../src/core/money.js";
import { startDevnetZebrad, type DevnetZebrad } from "../../devnet/zebrad.js";
import {
  readSnapshots,
  readZcashHistory,
  snapshotBucket,
  SNAPSHOT_RETENTION_MS,
  takeZcashSnapshot,
  zcashSnapshotJob,
  type ZcashPoolsDeps,
} from "../../src/feeds/zcash-pools.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

let node: DevnetZebrad;
let zebrad: Zebrad;
let db: TestDatabase;
const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 3, 0));
let deps: ZcashPoolsDeps;

beforeAll(async () => {
  node = await startDevnetZebrad({ blockSeconds: 0, initialBlocks: 20 });
  zebrad = createZebrad({ url: node.url, network: "testnet" });
  db = await openTestDatabase();
  deps = { db: db.db, zebrad, clock, intervalSeconds: 900 };
});

afterAll(async () => {
  await zebrad?.close();
  await node?.close();
  await db?.close();
});

describe("Zcash pool snapshots", () => {
  it("buckets are the interval's start", () => {
    expect(snapshotBucket(Date.UTC(2026, 5, 1, 12, 14, 59, 999), 900)).toBe(Date.UTC(2026, 5, 1, 12, 0));
    expect(snapshotBucket(Date.UTC(2026, 5, 1, 12, 15), 900)).toBe(Date.UTC(2026, 5, 1, 12, 15));
  });

  it("several concurrent takers store one row per interval, equal to the node's pools", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => takeZcashSnapshot({ ctx: deps })));
    expect(results.filter((r) => r.stored)).toHaveLength(1);
    const rows = await readSnapshots(db.db, 0, clock.now());
    expect(rows).toHaveLength(1);
    const tip = node.chain.tip();
    expect(rows[0]!.height).toBe(tip.height);
    expect(rows[0]!.t_ms).toBe(clock.now());
    for (const p of ZCASH_POOLS) expect(rows[0]!.pools[p], p).toBe(tip.pools[p]);
    // Within the same interval, later runs (the job checks every minute) add nothing and do not ask the node.
    const before = node.requestCounts().getblockchaininfo ?? 0;
    clock.advance(10 * 60_000);
    node.mine(3);
    expect((await takeZcashSnapshot({ ctx: deps })).stored).toBe(false);
    expect(node.requestCounts().getblockchaininfo ?? 0).toBe(before);
    expect(await readSnapshots(db.db, 0, clock.now())).toHaveLength(1);
  });

  it("the job stores a new row when the clock enters the next interval", async () => {
    const job = zcashSnapshotJob(deps);
    expect(job.intervalMs).toBe(60_000);
    clock.advance(5 * 60_000); // 12:18: the 12:15 interval
    expect(await job.run(new AbortController().signal)).toEqual({ more: false });
    const rows = await readSnapshots(db.db, 0, clock.now());
    expect(rows).toHaveLength(2);
    expect(rows[1]!.height).toBe(node.chain.tip().height);
    expect(rows[1]!.height).toBe(rows[0]!.height + 3);
  });

  it("a node failure stores nothing and throws; the next run stores the row", async () => {
    clock.advance(15 * 60_000);
    node.failNext(3);
    await expect(takeZcashSnapshot({ ctx: deps })).rejects.toThrow();
    expect(await readSnapshots(db.db, 0, clock.now())).toHaveLength(2);
    expect((await takeZcashSnapshot({ ctx: deps })).stored).toBe(true);
    expect(await readSnapshots(db.db, 0, clock.now())).toHaveLength(3);
  });

  it("history rows: ZEC strings and the same percentages as /v1/q/zec/pools", async () => {
    const h = await readZcashHistory({ ctx: deps, input: { window_ms: 3_600_000, max_points: 10 } });
    expect(h.snapshots_in_window).toBe(3);
    expect(h.rows).toHaveLength(3);
    const snaps = await readSnapshots(db.db, 0, clock.now());
    for (const [i, row] of h.rows.entries()) {
      const s = snaps[i]!;
      const r = poolsReadout(Object.fromEntries(ZCASH_POOLS.map((p) => [p, { zatoshi: s.pools[p], monitored: true }])) as never);
      expect(row.t_ms).toBe(s.t_ms);
      for (const p of ZCASH_POOLS) expect(row.pools_zec[p]).toBe(formatZec(s.pools[p]));
      expect(row.shielded_percent).toBe(r.shielded_percent);
      expect(row.migration_percent).toBe(r.migration.migration_percent);
    }
    expect(h.as_of_ms).toBe(snaps[2]!.t_ms);
    // The window is respected: a window of one hour from two hours later holds none of them.
    clock.advance(2 * 3_600_000);
    const later = await readZcashHistory({ ctx: deps, input: { window_ms: 3_600_000, max_points: 10 } });
    expect(later).toMatchObject({ snapshots_in_window: 0, rows: [], as_of_ms: null });
  });

  it("rows older than the retention are deleted when a snapshot is taken", async () => {
    const first = (await readSnapshots(db.db, 0, clock.now()))[0]!;
    clock.set(first.t_ms + SNAPSHOT_RETENTION_MS + 1);
    expect((await takeZcashSnapshot({ ctx: deps })).stored).toBe(true);
    const rows = await readSnapshots(db.db, 0, clock.now());
    expect(rows.map((r) => r.t_ms)).not.toContain(first.t_ms);
    expect(rows).toHaveLength(3);
  });
});
