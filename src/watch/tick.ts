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
 *   6. hand the watches with pending events to the delivery pool
 *      (tick-deliver), which delivers them in the background and hands
 *      their leases back when done; release the other leases.
 * While the tick runs, the lease keeper (if given) renews the batch's leases,
 * so leases can be short and a killed worker's watches come free quickly.
 * If a step fails (a subscriber threw, the database failed), the leases are
 * still handed back and the error propagates; a failed step 5 writes nothing
 * of the batch, so its watches, still due, are retried at the next tick.
 */
import { isPollable } from "./meter.js";
import type { WatchDeps } from "./deps.js";
import { createDeliveryPool, watchesWithPendingEvents, type DeliveryPool } from "./tick-deliver.js";
import { deleteExpiredWatches } from "./account.js";
import { claimDueWatches, releaseLeases, type LeaseKeeper } from "./tick-leases.js";
import { drainTo, type DrainedMeter } from "./tick-plan.js";
import { scanWatchesByChain } from "./tick-scan.js";
import { writeTickBatch } from "./tick-write.js";

export interface TickOptions {
  owner: string;
  batchSize: number;
  /** Lease length (the keeper's when one is given); without a keeper a tick must finish its batch within it. */
  leaseSeconds?: number;
  /** Renews the leases of the batch (and of watches still delivering) while they are busy. */
  keeper?: LeaseKeeper;
  /** Delivers in the background; without one, the tick delivers and waits (concurrency `deliveryConcurrency`). */
  pool?: DeliveryPool;
  /** Wait for the pool to finish this batch's deliveries and count them in the stats (tests, `tickOnce`). */
  awaitDeliveries?: boolean;
  /** Parallel deliveries across watches when no pool is given. */
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
  const endTick = deps.metrics?.tickDuration.startTimer();
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);

  stats.expired = await deleteExpiredWatches(deps.db, now);
  const claimed = await claimDueWatches(deps.db, {
    owner: opts.owner,
    batchSize: opts.batchSize,
    now,
    until: new Date(nowMs + (opts.keeper?.leaseSeconds ?? opts.leaseSeconds ?? 120) * 1000),
  });
  stats.claimed = claimed.length;
  if (claimed.length === 0) return stats;
  if (deps.metrics) {
    const lag = new Map<string, number>();
    for (const w of claimed) lag.set(w.chain, Math.max(lag.get(w.chain) ?? 0, (nowMs - new Date(w.next_poll_at).getTime()) / 1000));
    for (const [chain, seconds] of lag) deps.metrics.scanLag.set({ chain }, Math.max(0, seconds));
  }
  const claimedIds = claimed.map((w) => w.id);
  opts.keeper?.hold(claimedIds);
  let handedOff = new Set<string>();
  // Leases the batch's write handed back with it (watches with nothing to deliver).
  let released = new Set<string>();
  let delivered: Promise<{ deliveries: number; deliveryFailures: number }> | null = null;

  try {
    // Recomputed in the transaction if a top-up intervenes.
    const drained = new Map<string, DrainedMeter>(claimed.map((w) => [w.id, drainTo(w, nowMs)]));
    const scans = await scanWatchesByChain(
      deps,
      claimed.filter((w) => isPollable(drained.get(w.id)!.state)),
    );
    stats.scanned = scans.scanned;
    stats.scanErrors = scans.scanErrors;
    const written = await writeTickBatch(deps, { owner: opts.owner, nowMs, claimed, drained, results: scans.results, keyMaterial: scans.keyMaterial });
    stats.events = written.events;
    released = new Set(written.released);
    // Only watches still leased here go to the delivery pool.
    const withEvents = await watchesWithPendingEvents(
      deps,
      claimedIds.filter((id) => !released.has(id)),
    );
    const pool = opts.pool ?? createDeliveryPool(deps, { owner: opts.owner, concurrency: opts.deliveryConcurrency ?? 16, keeper: opts.keeper });
    // From here the pool owns these leases and hands them back when each watch's run ends.
    handedOff = new Set(withEvents);
    delivered = pool.submit(withEvents);
  } finally {
    // Also after a failure: the watches are still due, so the next tick (here or elsewhere) retries them.
    const rest = claimedIds.filter((id) => !handedOff.has(id) && !released.has(id));
    try {
      await releaseLeases(deps.db, rest, opts.owner);
    } finally {
      opts.keeper?.drop(claimedIds);
      endTick?.();
    }
  }
  if (delivered && (!opts.pool || opts.awaitDeliveries)) Object.assign(stats, await delivered);
  return stats;
}
