/**
 * Webhook delivery from the durable outbox. Events are queued in the same
 * transaction as the state change that caused them (account.ts,
 * `insertEvents`); delivery claims a few rows at a time with a lease, signs
 * the stored bytes, and records the outcome through the account, which
 * charges the meter in the same transaction that marks the row delivered
 * (so never twice).
 */
import { deliveryOutcome } from "../core/metrics.js";
import { buildDeliveryHeaders } from "../webhooks/deliver.js";
import { signBody } from "../webhooks/sign.js";
import { claimPendingEvents, recordDelivered, recordDeliveredFast, recordDeliveryFailure, releaseEvents } from "./account.js";
import { meterOf } from "./model.js";
import type { WatchDeps } from "./deps.js";

/** Seconds claimed outbox rows stay with one sender. */
const DELIVERY_LEASE_SECONDS = 30;
/**
 * Rows claimed at once: sent one after another with an 8 s timeout each, so
 * 3 × 8 s stays inside the lease and no other sender can take a row over
 * while it is still queued here. The rest go at the next tick.
 */
const EVENTS_PER_CLAIM = 3;

export interface DeliveryOutcome {
  outboxId: string;
  event: string;
  nonce: string;
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * Delivers the watch's pending events in order until one fails, none is
 * left, or credit runs out. `onlyOutboxId` restricts it to one row (the
 * test route). Returns what happened to each attempted row.
 *
 * Round trips: one statement claims up to `maxEvents` rows (with the watch's
 * URL, secret and meter); each successful delivery is recorded by one
 * statement that charges the meter only if the watch row is still as read
 * (otherwise the locked path records it, in a transaction opened here).
 */
export async function deliverPending(
  deps: WatchDeps,
  watchId: string,
  owner: string,
  opts: { onlyOutboxId?: string; maxEvents?: number; leaseSeconds?: number } = {},
): Promise<DeliveryOutcome[]> {
  const { db, clock } = deps;
  const outcomes: DeliveryOutcome[] = [];
  const now = new Date(clock.now());
  // A shorter lease is only safe when a lease keeper renews it while the rows are sent (the tick's pool).
  const leaseUntil = new Date(clock.now() + (opts.leaseSeconds ?? DELIVERY_LEASE_SECONDS) * 1000);
  const claimed = await claimPendingEvents(db, {
    watchId,
    owner,
    now,
    leaseUntil,
    limit: Math.min(opts.maxEvents ?? EVENTS_PER_CLAIM, EVENTS_PER_CLAIM),
    onlyOutboxId: opts.onlyOutboxId,
  });
  if (claimed.length === 0) return outcomes;

  const attempted = new Set<string>();
  try {
    const first = claimed[0]!;
    if (first.w_status !== "active" || !deps.secretBox) return outcomes;
    let secret: string;
    try {
      secret = deps.secretBox.open(first.w_secret, `webhook:${watchId}`);
    } catch (e) {
      deps.log.error({ watchId, err: (e as Error).message }, "webhook secret does not decrypt; deliveries held");
      return outcomes;
    }
    let meter = meterOf(first);
    for (const row of claimed) {
      // At zero credit nothing billable is delivered until a top-up (synthetic_test still goes).
      if (row.billable && meter.creditAtomic === 0n) break;
      attempted.add(row.id);
      const result = await deps.sender.send({
        url: first.w_url,
        body: row.body,
        headers: buildDeliveryHeaders(watchId, row.event, signBody(secret, row.body)),
      });
      if (deps.metrics) {
        const outcome = deliveryOutcome(result);
        deps.metrics.deliveries.inc({ outcome });
        deps.metrics.deliveryDuration.observe({ outcome }, result.durationMs / 1000);
      }
      outcomes.push({ outboxId: row.id, event: row.event, nonce: row.nonce, ok: result.ok, status: result.status, error: result.error });
      if (result.ok) {
        const next =
          (await recordDeliveredFast(db, { watchId, row, owner, meter, clock })) ??
          (await db.transaction().execute((trx) => recordDelivered(trx, { watchId, row, owner, clock })));
        // null: the row is no longer ours (a stalled lease was taken over); that sender records it.
        if (next === null) break;
        meter = next;
        continue;
      }
      await recordDeliveryFailure(db, { watchId, outboxId: row.id, owner, error: result.error ?? `HTTP ${result.status ?? "?"}`, status: result.status ?? null });
      break;
    }
  } finally {
    // Hand back the rows claimed but not attempted.
    const unattempted = claimed.filter((r) => !attempted.has(r.id)).map((r) => r.id);
    await releaseEvents(db, unattempted, owner);
  }
  return outcomes;
}
