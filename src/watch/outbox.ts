/**
 * The durable webhook outbox. Events are inserted in the same transaction as
 * the state change that caused them; delivery claims one row at a time with a
 * lease, signs the stored bytes, and records the outcome, charging the meter
 * in the same transaction that marks the row delivered (so never twice).
 */
import { randomUUID } from "node:crypto";
import { sql, type Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import type { Queryable } from "../db/types.js";
import { buildDeliveryHeaders, isWebhookBodyWithinLimit, MAX_CONSECUTIVE_FAILURES } from "../webhooks/deliver.js";
import { signBody } from "../webhooks/sign.js";
import { chargeDelivery } from "./meter.js";
import { eventBody, expiresAtFor, meterColumns, meterOf, snapshotOf, type EventBody } from "./model.js";
import type { WatchDeps } from "./deps.js";

/** Seconds a claimed outbox row stays with one sender (covers the 8 s timeout with margin). */
const DELIVERY_LEASE_SECONDS = 30;

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
  // In chunks of 1000 rows: one statement may carry at most 65535 bind parameters (11 per row here).
  for (let i = 0; i < events.length; i += 1000) await insertEventRows(trx, events.slice(i, i + 1000));
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

/**
 * Delivers the watch's pending events in order until one fails, none is
 * left, or credit runs out. `onlyOutboxId` restricts it to one row (the
 * test route). Returns what happened to each attempted row.
 */
export async function deliverPending(
  deps: WatchDeps,
  watchId: string,
  owner: string,
  opts: { onlyOutboxId?: string; maxEvents?: number } = {},
): Promise<DeliveryOutcome[]> {
  const { db, clock } = deps;
  const outcomes: DeliveryOutcome[] = [];
  const max = opts.maxEvents ?? 20;
  while (outcomes.length < max) {
    const now = new Date(clock.now());
    const leaseUntil = new Date(clock.now() + DELIVERY_LEASE_SECONDS * 1000);
    // Claim the oldest pending row of this watch that nobody else holds.
    const claimed = await sql<{ id: string; event: string; nonce: string; body: string; billable: boolean }>`
      UPDATE webhook_outbox SET lease_owner = ${owner}, lease_until = ${leaseUntil}
      WHERE id = (
        SELECT id FROM webhook_outbox
        WHERE watch_id = ${watchId} AND status = 'pending'
          ${opts.onlyOutboxId ? sql`AND id = ${opts.onlyOutboxId}` : sql``}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, event, nonce, body, billable`.execute(db);
    const row = claimed.rows[0];
    if (!row) break;

    const watch = await db
      .selectFrom("watches")
      .select(["id", "status", "webhook_url", "webhook_secret_enc", "credit_atomic"])
      .where("id", "=", watchId)
      .executeTakeFirst();
    const release = () =>
      db.updateTable("webhook_outbox").set({ lease_owner: null, lease_until: null }).where("id", "=", row.id).where("lease_owner", "=", owner).execute();
    if (!watch || watch.status !== "active" || !deps.secretBox) {
      await release();
      break;
    }
    // At zero credit nothing is delivered until a top-up (free events such as synthetic_test still go).
    if (row.billable && BigInt(watch.credit_atomic) === 0n) {
      await release();
      break;
    }
    const secret = deps.secretBox.open(watch.webhook_secret_enc, `webhook:${watchId}`);
    const result = await deps.sender.send({
      url: watch.webhook_url,
      body: row.body,
      headers: buildDeliveryHeaders(watchId, row.event, signBody(secret, row.body)),
    });
    outcomes.push({ outboxId: row.id, event: row.event, nonce: row.nonce, ok: result.ok, status: result.status, error: result.error });

    if (result.ok) {
      await db.transaction().execute((trx) => recordDelivered(deps, trx, watchId, row, owner));
      continue;
    }
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable("webhook_outbox")
        .set({
          attempts: sql`attempts + 1`,
          last_error: result.error ?? `HTTP ${result.status ?? "?"}`,
          last_status: result.status ?? null,
          lease_owner: null,
          lease_until: null,
        })
        .where("id", "=", row.id)
        .where("lease_owner", "=", owner)
        .execute();
      // 50 consecutive failures retire the watch.
      await trx
        .updateTable("watches")
        .set({
          consecutive_failures: sql`consecutive_failures + 1`,
          status: sql`CASE WHEN consecutive_failures + 1 >= ${MAX_CONSECUTIVE_FAILURES} THEN 'dead' ELSE status END`,
        })
        .where("id", "=", watchId)
        .execute();
    });
    break;
  }
  return outcomes;
}

async function recordDelivered(
  deps: WatchDeps,
  trx: Transaction<DB>,
  watchId: string,
  row: { id: string; event: string; billable: boolean },
  owner: string,
): Promise<void> {
  const marked = await trx
    .updateTable("webhook_outbox")
    .set({ status: "delivered", delivered_at: new Date(deps.clock.now()), attempts: sql`attempts + 1`, lease_owner: null, lease_until: null })
    .where("id", "=", row.id)
    .where("status", "=", "pending")
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  // Lost the lease (another sender took over after a stall): it records its own outcome; never bill twice.
  if (Number(marked.numUpdatedRows) !== 1) return;
  const w = await trx.selectFrom("watches").selectAll().where("id", "=", watchId).forUpdate().executeTakeFirst();
  if (!w) return;
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
            ref: row.id,
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
}
