/**
 * The durable webhook outbox. Events are inserted in the same transaction as
 * the state change that caused them; delivery claims one row at a time with a
 * lease, signs the stored bytes, and records the outcome, charging the meter
 * in the same transaction that marks the row delivered (so never twice).
 */
import { randomUUID } from "node:crypto";
import { sql, type Transaction } from "kysely";
import { deliveryOutcome } from "../core/metrics.js";
import type { DB } from "../db/schema.js";
import type { Queryable } from "../db/types.js";
import { buildDeliveryHeaders, isWebhookBodyWithinLimit, MAX_CONSECUTIVE_FAILURES } from "../webhooks/deliver.js";
import { signBody } from "../webhooks/sign.js";
import { chargeDelivery, type MeterState } from "./meter.js";
import { eventBody, expiresAtFor, meterColumns, meterOf, snapshotOf, SQL_ROWS_PER_STATEMENT, type EventBody } from "./model.js";
import type { WatchDeps } from "./deps.js";

/** Seconds claimed outbox rows stay with one sender. */
const DELIVERY_LEASE_SECONDS = 30;
/**
 * Rows claimed at once: sent one after another with an 8 s timeout each, so
 * 3 × 8 s stays inside the lease and no other sender can take a row over
 * while it is still queued here. The rest go at the next tick.
 */
const EVENTS_PER_CLAIM = 3;

export interface PendingEvent {
  watchId: string;
  body: EventBody;
  billable: boolean;
}

/**
 * The exact bytes sent, at most 64 KB: if a snapshot's per-output lists would
 * push a body over, they are left out (totals stay) and `truncated` says so.
 */
export function serializeEvent(body: EventBody): string {
  const full = JSON.stringify(body);
  if (isWebhookBodyWithinLimit(full)) return full;
  const strip = (s: EventBody["current"]) => Object.fromEntries(Object.entries(s).filter(([, v]) => !Array.isArray(v)));
  const slim = JSON.stringify({ ...body, previous: strip(body.previous), current: strip(body.current), truncated: true });
  if (!isWebhookBodyWithinLimit(slim)) throw new Error(`webhook body for ${body.event} exceeds 64 KB even without output lists`);
  return slim;
}

export async function insertEvents(trx: Queryable, events: readonly PendingEvent[]): Promise<void> {
  // In chunks: one statement may carry at most 65535 bind parameters.
  for (let i = 0; i < events.length; i += SQL_ROWS_PER_STATEMENT) await insertEventRows(trx, events.slice(i, i + SQL_ROWS_PER_STATEMENT));
}

async function insertEventRows(trx: Queryable, events: readonly PendingEvent[]): Promise<void> {
  await trx
    .insertInto("webhook_outbox")
    .values(
      events.map((e) => ({
        id: randomUUID(),
        watch_id: e.watchId,
        event: e.body.event,
        nonce: e.body.nonce,
        body: serializeEvent(e.body),
        billable: e.billable,
        last_error: null,
        last_status: null,
        lease_owner: null,
        lease_until: null,
        delivered_at: null,
      })),
    )
    .execute();
}

export interface DeliveryOutcome {
  outboxId: string;
  event: string;
  nonce: string;
  ok: boolean;
  status?: number;
  error?: string;
}

/** A claimed outbox row together with what its delivery needs from the watch. */
interface ClaimedRow {
  id: string;
  seq: string;
  event: string;
  nonce: string;
  body: string;
  billable: boolean;
  w_status: string;
  w_url: string;
  w_secret: Buffer;
  credit_atomic: string;
  drained_through_ms: string;
  drain_remainder: string;
  low_credit_armed: boolean;
  drain_unbooked_atomic: string;
  drain_unbooked_from_ms: string;
}

/**
 * Delivers the watch's pending events in order until one fails, none is
 * left, or credit runs out. `onlyOutboxId` restricts it to one row (the
 * test route). Returns what happened to each attempted row.
 *
 * Round trips: one statement claims up to `maxEvents` rows (with the watch's
 * URL, secret and meter); each successful delivery is recorded by one
 * statement that charges the meter only if the watch row is still as read
 * (otherwise the locked, transactional path below records it).
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
  const claimed = (
    await sql<ClaimedRow>`
      WITH c AS (
        SELECT id FROM webhook_outbox
        WHERE watch_id = ${watchId} AND status = 'pending'
          ${opts.onlyOutboxId ? sql`AND id = ${opts.onlyOutboxId}` : sql``}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY seq LIMIT ${Math.min(opts.maxEvents ?? EVENTS_PER_CLAIM, EVENTS_PER_CLAIM)}
        FOR UPDATE SKIP LOCKED)
      UPDATE webhook_outbox o SET lease_owner = ${owner}, lease_until = ${leaseUntil}
      FROM c, watches w
      WHERE o.id = c.id AND w.id = o.watch_id
      RETURNING o.id, o.seq, o.event, o.nonce, o.body, o.billable, w.status AS w_status, w.webhook_url AS w_url,
        w.webhook_secret_enc AS w_secret, w.credit_atomic, w.drained_through_ms, w.drain_remainder, w.low_credit_armed,
        w.drain_unbooked_atomic, w.drain_unbooked_from_ms`.execute(db)
  ).rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
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
          (await recordDeliveredFast(deps, watchId, row, owner, meter)) ??
          (await db.transaction().execute((trx) => recordDelivered(deps, trx, watchId, row, owner)));
        // null: the row is no longer ours (a stalled lease was taken over); that sender records it.
        if (next === null) break;
        meter = next;
        continue;
      }
      // One statement: count the failure on the row and the watch; 50 in a row retire the watch.
      await sql`
        WITH o AS (
          UPDATE webhook_outbox SET attempts = attempts + 1, last_error = ${result.error ?? `HTTP ${result.status ?? "?"}`},
            last_status = ${result.status ?? null}, lease_owner = NULL, lease_until = NULL
          WHERE id = ${row.id} AND lease_owner = ${owner} RETURNING id)
        UPDATE watches SET consecutive_failures = consecutive_failures + 1,
          status = CASE WHEN consecutive_failures + 1 >= ${MAX_CONSECUTIVE_FAILURES} THEN 'dead' ELSE status END
        WHERE id = ${watchId} AND EXISTS (SELECT 1 FROM o)`.execute(db);
      break;
    }
  } finally {
    // Hand back the rows claimed but not attempted.
    const unattempted = claimed.filter((r) => !attempted.has(r.id)).map((r) => r.id);
    if (unattempted.length) {
      await db
        .updateTable("webhook_outbox")
        .set({ lease_owner: null, lease_until: null })
        .where("id", "in", unattempted)
        .where("lease_owner", "=", owner)
        .execute();
    }
  }
  return outcomes;
}

/**
 * The common case in one statement: mark the row delivered, charge the
 * meter and write the ledger — only if the row is still ours and pending and
 * the watch's meter is exactly as read (the UPDATE locks the watch row, so a
 * concurrent top-up or tick either went before, failing the check, or waits).
 * Returns the new meter, or null when the caller must take the locked path.
 * A low-credit crossing also takes the locked path (it queues an event).
 */
async function recordDeliveredFast(
  deps: WatchDeps,
  watchId: string,
  row: { id: string; event: string; billable: boolean },
  owner: string,
  meter: MeterState,
): Promise<MeterState | null> {
  const charged = row.billable ? chargeDelivery(meter, `webhook ${row.event} delivered`) : null;
  if (charged?.emitLowCredit) return null;
  const next = charged?.state ?? meter;
  const cols = meterColumns(next);
  const old = meterColumns(meter);
  const entries = charged?.entries ?? [];
  // The carried idle drain is booked just before the delivery row (meter.ts): ledger rows in order.
  const rows = entries.map(
    (e) => sql`(${e.kind}, ${e.amountAtomic.toString()}::bigint, ${e.balanceAfter.toString()}::bigint, ${e.reason}, ${e.kind === "delivery" ? row.id : null}::text, ${String(entries.indexOf(e))}::int)`,
  );
  const r = await sql<{ w: string }>`
    WITH w AS (
      UPDATE watches SET
        credit_atomic = ${cols.credit_atomic}::bigint, drain_remainder = ${cols.drain_remainder}::bigint,
        drain_unbooked_atomic = ${cols.drain_unbooked_atomic}::bigint, drain_unbooked_from_ms = ${cols.drain_unbooked_from_ms}::bigint,
        expires_at = ${expiresAtFor(next, deps.clock.now())}, consecutive_failures = 0,
        delivery_count = delivery_count + 1, last_event_type = ${row.event}
      WHERE id = ${watchId} AND credit_atomic = ${old.credit_atomic}::bigint
        AND drained_through_ms = ${old.drained_through_ms}::bigint AND drain_remainder = ${old.drain_remainder}::bigint
        AND low_credit_armed = ${old.low_credit_armed}
        AND drain_unbooked_atomic = ${old.drain_unbooked_atomic}::bigint AND drain_unbooked_from_ms = ${old.drain_unbooked_from_ms}::bigint
        AND EXISTS (SELECT 1 FROM webhook_outbox WHERE id = ${row.id} AND status = 'pending' AND lease_owner = ${owner})
      RETURNING id),
    o AS (
      UPDATE webhook_outbox SET status = 'delivered', delivered_at = ${new Date(deps.clock.now())},
        attempts = attempts + 1, lease_owner = NULL, lease_until = NULL
      WHERE id = ${row.id} AND EXISTS (SELECT 1 FROM w) RETURNING id)
    ${
      rows.length
        ? sql`, l AS (
      INSERT INTO watch_ledger (watch_id, kind, amount_atomic, balance_after, reason, ref)
      SELECT ${watchId}::uuid, v.kind, v.amount, v.balance_after, v.reason, v.ref
      FROM (VALUES ${sql.join(rows)}) AS v(kind, amount, balance_after, reason, ref, ord)
      WHERE EXISTS (SELECT 1 FROM o) ORDER BY v.ord RETURNING id)`
        : sql``
    }
    SELECT (SELECT count(*) FROM w)::text AS w`.execute(deps.db);
  return r.rows[0]?.w === "1" ? next : null;
}

/** The locked path: reads the watch FOR UPDATE and applies the pure meter. Returns the meter after. */
async function recordDelivered(
  deps: WatchDeps,
  trx: Transaction<DB>,
  watchId: string,
  row: { id: string; event: string; billable: boolean },
  owner: string,
): Promise<MeterState | null> {
  const marked = await trx
    .updateTable("webhook_outbox")
    .set({ status: "delivered", delivered_at: new Date(deps.clock.now()), attempts: sql`attempts + 1`, lease_owner: null, lease_until: null })
    .where("id", "=", row.id)
    .where("status", "=", "pending")
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  // Lost the lease (another sender took over after a stall): it records its own outcome; never bill twice.
  if (Number(marked.numUpdatedRows) !== 1) return null;
  const w = await trx.selectFrom("watches").selectAll().where("id", "=", watchId).forUpdate().executeTakeFirst();
  if (!w) return null;
  let meter = meterOf(w);
  const update: Record<string, unknown> = {
    consecutive_failures: 0,
    delivery_count: sql`delivery_count + 1`,
    last_event_type: row.event,
  };
  if (row.billable) {
    const charged = chargeDelivery(meter, `webhook ${row.event} delivered`);
    meter = charged.state;
    if (charged.entries.length) {
      await trx
        .insertInto("watch_ledger")
        .values(
          charged.entries.map((e) => ({
            watch_id: watchId,
            kind: e.kind,
            amount_atomic: e.amountAtomic.toString(),
            balance_after: e.balanceAfter.toString(),
            reason: e.reason,
            ref: e.kind === "delivery" ? row.id : null,
          })),
        )
        .execute();
    }
    Object.assign(update, meterColumns(meter), { expires_at: expiresAtFor(meter, deps.clock.now()) });
    if (charged.emitLowCredit) {
      const snap = snapshotOf(w.snapshot, w.start_height);
      await insertEvents(trx, [
        { watchId, billable: true, body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "low_credit", snap, snap, meter, deps.clock) },
      ]);
    }
  }
  await trx.updateTable("watches").set(update).where("id", "=", watchId).execute();
  return meter;
}
