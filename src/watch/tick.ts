/**
 * One poll tick, in order:
 *   1. delete expired watches;
 *   2. lease due ones (tick-leases: FOR UPDATE SKIP LOCKED, so any number of
 *      workers share one database);
 *   3. bill the idle drain up to now (tick-plan);
 *   4. scan each chain once for all of its due watches that still have
 *      credit (tick-scan);
 *   5. write ledger + outbox + watch rows in one transaction for the batch
 *      and hand the scan findings to the subscribers in it (tick-write);
 *   6. deliver the pending events (tick-deliver), then release the leases.
 * If a step fails (a subscriber threw, the database failed), the leases are
 * still handed back and the error propagates; a failed step 5 writes nothing
 * of the batch, so its watches, still due, are retried at the next tick.
 */
import { isPollable } from "./meter.js";
import type { WatchDeps } from "./deps.js";
import { deliverLeasedWatches } from "./tick-deliver.js";
import { claimDueWatches, deleteExpiredWatches, releaseLeases } from "./tick-leases.js";
import { drainTo, type DrainedMeter } from "./tick-plan.js";
import { scanWatchesByChain } from "./tick-scan.js";
import { writeTickBatch } from "./tick-write.js";

export interface TickOptions {
  owner: string;
  batchSize: number;
  /** Lease length; a tick must finish its batch within it. */
  leaseSeconds?: number;
  /** Parallel deliveries across watches. */
  deliveryConcurrency?: number;
}

export interface TickStats {
  expired: number;
  claimed: number;
  scanned: number;
  scanErrors: number;
  events: number;
  deliveries: number;
  deliveryFailures: number;
}

export async function runWatchTick(deps: WatchDeps, opts: TickOptions): Promise<TickStats> {
  const stats: TickStats = { expired: 0, claimed: 0, scanned: 0, scanErrors: 0, events: 0, deliveries: 0, deliveryFailures: 0 };
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);

  stats.expired = await deleteExpiredWatches(deps.db, now);
  const claimed = await claimDueWatches(deps.db, {
    owner: opts.owner,
    batchSize: opts.batchSize,
    now,
    until: new Date(nowMs + (opts.leaseSeconds ?? 120) * 1000),
  });
  stats.claimed = claimed.length;
  if (claimed.length === 0) return stats;
  const claimedIds = claimed.map((w) => w.id);

  try {
    // Recomputed in the transaction if a top-up intervenes.
    const drained = new Map<string, DrainedMeter>(claimed.map((w) => [w.id, drainTo(w, nowMs)]));
    const scans = await scanWatchesByChain(
      deps,
      claimed.filter((w) => isPollable(drained.get(w.id)!.state)),
    );
    stats.scanned = scans.scanned;
    stats.scanErrors = scans.scanErrors;
    ({ events: stats.events } = await writeTickBatch(deps, { owner: opts.owner, nowMs, claimed, drained, results: scans.results }));
    Object.assign(stats, await deliverLeasedWatches(deps, claimedIds, opts.owner, opts.deliveryConcurrency ?? 16));
  } finally {
    // Also after a failure: the watches are still due, so the next tick (here or elsewhere) retries them.
    await releaseLeases(deps.db, claimedIds, opts.owner);
  }
  return stats;
}
