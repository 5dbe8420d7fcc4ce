/**
 * After the batch commits, the tick delivers the pending events of the
 * watches it leased (several watches at once, each watch's events in order,
 * under the watch lease) before handing the leases back.
 */
import pMap from "p-map";
import { deliverPending } from "./outbox.js";
import type { WatchDeps } from "./deps.js";

export async function deliverLeasedWatches(
  deps: WatchDeps,
  watchIds: readonly string[],
  owner: string,
  concurrency: number,
): Promise<{ deliveries: number; deliveryFailures: number }> {
  const counts = { deliveries: 0, deliveryFailures: 0 };
  if (watchIds.length === 0) return counts;
  const withEvents = (
    await deps.db
      .selectFrom("webhook_outbox")
      .select("watch_id")
      .distinct()
      .where("watch_id", "in", watchIds)
      .where("status", "=", "pending")
      .execute()
  ).map((r) => r.watch_id);
  await pMap(
    withEvents,
    async (id) => {
      for (const o of await deliverPending(deps, id, owner)) {
        if (o.ok) counts.deliveries++;
        else counts.deliveryFailures++;
      }
    },
    { concurrency },
  );
  return counts;
}
