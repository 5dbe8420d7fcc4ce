/**
 * After the batch commits, the tick hands the watches that have pending
 * events to deliver to the delivery pool and goes on: a receiver that hangs
 * holds up only its own watch. The pool delivers several watches at once
 * (at most `concurrency`), each watch's events in order, one run per watch
 * at a time, under the watch lease (kept alive by the lease keeper while
 * the run lasts); when the run ends the watch's lease is handed back and the
 * watch is due again on its own schedule. A watch busy delivering is not
 * leased by the next tick, so its order is never broken by a second sender.
 */
import { deliverPending } from "./outbox.js";
import type { WatchDeps } from "./deps.js";
import { releaseLeases, type LeaseKeeper } from "./tick-leases.js";

export interface DeliveryCounts {
  deliveries: number;
  deliveryFailures: number;
}

/** The leased watches among `watchIds` that have pending events. */
export async function watchesWithPendingEvents(deps: Pick<WatchDeps, "db">, watchIds: readonly string[]): Promise<string[]> {
  if (watchIds.length === 0) return [];
  return (
    await deps.db
      .selectFrom("webhook_outbox")
      .select("watch_id")
      .distinct()
      .where("watch_id", "in", watchIds)
      .where("status", "=", "pending")
      .execute()
  ).map((r) => r.watch_id);
}

export interface DeliveryPool {
  /**
   * Takes over the leases of `watchIds` (already leased to `owner`) and
   * delivers their pending events; resolves with the counts once all of
   * them are done. Never rejects: a failed run is logged and its lease released.
   */
  submit(watchIds: readonly string[]): Promise<DeliveryCounts>;
  /** Watches whose delivery run has not finished. */
  inFlight(): number;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
}

export function createDeliveryPool(
  deps: WatchDeps,
  opts: { owner: string; concurrency: number; keeper?: LeaseKeeper },
): DeliveryPool {
  const running = new Set<string>();
  const queue: (() => void)[] = [];
  let active = 0;
  let idleWaiters: (() => void)[] = [];

  const acquire = () =>
    new Promise<void>((resolve) => {
      if (active < opts.concurrency) {
        active++;
        resolve();
      } else queue.push(resolve);
    });
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  const settleIdle = () => {
    if (running.size > 0) return;
    const w = idleWaiters;
    idleWaiters = [];
    for (const f of w) f();
  };

  const runOne = async (id: string, counts: DeliveryCounts) => {
    await acquire();
    try {
      for (const o of await deliverPending(deps, id, opts.owner, { leaseSeconds: opts.keeper?.leaseSeconds })) {
        if (o.ok) counts.deliveries++;
        else counts.deliveryFailures++;
      }
    } catch (e) {
      deps.log.error({ watchId: id, err: (e as Error).message }, "webhook delivery run failed; retried at the watch's next tick");
    } finally {
      release();
      try {
        await releaseLeases(deps.db, [id], opts.owner);
      } catch (e) {
        deps.log.warn({ watchId: id, err: (e as Error).message }, "could not hand back a watch lease; it runs out on its own");
      }
      opts.keeper?.drop([id]);
      running.delete(id);
      settleIdle();
    }
  };

  return {
    submit: async (watchIds) => {
      const counts: DeliveryCounts = { deliveries: 0, deliveryFailures: 0 };
      const mine = watchIds.filter((id) => !running.has(id));
      for (const id of mine) running.add(id);
      opts.keeper?.hold(mine);
      await Promise.all(mine.map((id) => runOne(id, counts)));
      if (mine.length > 0) deps.log.debug({ watches: mine.length, ...counts }, "webhook deliveries");
      return counts;
    },
    inFlight: () => running.size,
    idle: () => (running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
  };
}
