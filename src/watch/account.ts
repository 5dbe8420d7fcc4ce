/**
 * The watch account: the one writer of a watch's money and of its webhooks.
 *
 * The rule (DESIGN.md "Ownership"; docs/architecture.md; held by
 * test/watch/account-owner.test.ts, which scans src/ for writes): only this
 * file writes
 *   - the credit and meter columns of `watches` (CREDIT_COLUMNS: the six
 *     columns of the pure meter's state, `meterColumns` in model.ts, plus
 *     `expires_at`, which `expiresAtFor` derives from the meter and which
 *     changes with every credit change), and inserts and deletes `watches`
 *     rows (a row carries its credit; a delete cascades to its outbox);
 *   - `watch_ledger` (append-only: one row per meter entry, in the same
 *     transaction as the change it books);
 *   - `webhook_outbox` (queueing, delivery leases, delivered / failed marks).
 * Other columns of `watches` (status, leases, scan state, snapshot, webhook
 * URL, delivery counters…) may be written elsewhere; where this file's
 * statements write some of them too, it is to keep one statement per change
 * (the tick's batch UPDATE, the delivery marks, cancellation).
 *
 * The arithmetic is the pure meter's (meter.ts): each function here reads
 * the meter, asks meter.ts for the next state and the ledger rows, and
 * writes both. Every function runs on the handle the caller gives (its
 * transaction, or for single-statement writes the pool) and never opens a
 * transaction of its own. Other products (checkout) call these functions
 * directly: the watch module has no `index.ts` face yet.
 */
import { randomUUID } from "node:crypto";
import { sql, type Insertable, type Selectable } from "kysely";
import type { Clock } from "../core/clock.js";
import type { WatchesTable } from "../db/schema.js";
import type { Queryable } from "../db/types.js";
import { MAX_CONSECUTIVE_FAILURES } from "../webhooks/deliver.js";
import { applyIdleDrain, applyTopup, chargeDelivery, chargeSettlementFee, forfeitCredit, type LedgerEntry, type MeterResult, type MeterState } from "./meter.js";
import { eventBody, expiresAtFor, meterColumns, meterOf, serializeEvent, snapshotOf, SQL_ROWS_PER_STATEMENT, type EventBody } from "./model.js";
import type { BalanceSnapshot, ScanState } from "../chains/scanner.js";

/** A watch row as the tick writes it back (the tick's plan, tick-plan.ts, makes it). */
export interface WatchUpdate {
  id: string;
  meter: ReturnType<typeof meterColumns>;
  scanState: ScanState | null;
  snapshot: BalanceSnapshot | null;
  initialDone: boolean;
  expiresAt: Date;
  polled: boolean;
  /** Still catching up from the start height, or resumed by a top-up during the tick: due again at once. */
  dueNow: boolean;
}

/** A ledger row as the tick books it. */
export interface LedgerRow {
  watch_id: string;
  kind: string;
  amount_atomic: string;
  balance_after: string;
  reason: string;
  ref: null;
}

/** The columns of `watches` only this file writes. */
export const CREDIT_COLUMNS = [
  "credit_atomic",
  "drained_through_ms",
  "drain_remainder",
  "low_credit_armed",
  "drain_unbooked_atomic",
  "drain_unbooked_from_ms",
  "expires_at",
] as const;
export type CreditColumn = (typeof CREDIT_COLUMNS)[number];

/** The tables of the account: `watches` (its credit columns, its rows), the ledger and the outbox. */
export const ACCOUNT_TABLES = ["watches", "watch_ledger", "webhook_outbox"] as const;

// ---------------------------------------------------------------------------
// The ledger.

/** Ledger rows for meter entries; `ref` names what paid for or caused them (per entry when a function). */
function ledgerRows(watchId: string, entries: readonly LedgerEntry[], ref: string | null | ((e: LedgerEntry) => string | null)) {
  return entries.map((e) => ({
    watch_id: watchId,
    kind: e.kind,
    amount_atomic: e.amountAtomic.toString(),
    balance_after: e.balanceAfter.toString(),
    reason: e.reason,
    ref: typeof ref === "function" ? ref(e) : ref,
  }));
}

/** Appends ledger rows, in statements of at most SQL_ROWS_PER_STATEMENT rows (none for no rows). */
async function appendLedger(trx: Queryable, rows: readonly LedgerRow[] | ReturnType<typeof ledgerRows>): Promise<void> {
  for (let i = 0; i < rows.length; i += SQL_ROWS_PER_STATEMENT) await trx.insertInto("watch_ledger").values(rows.slice(i, i + SQL_ROWS_PER_STATEMENT)).execute();
}

// ---------------------------------------------------------------------------
// Opening and closing accounts.

/** A new watch row without its credit columns (this file adds them from the opened meter). */
export type NewWatch = Omit<Insertable<WatchesTable>, CreditColumn>;

/** Inserts a new watch with its opened meter and books the opening credit. Returns the row's expiry. */
export async function openAccount(trx: Queryable, watch: NewWatch, opened: MeterResult, opts: { nowMs: number; ref: string | null }): Promise<Date> {
  const expiresAt = expiresAtFor(opened.state, opts.nowMs);
  await trx
    .insertInto("watches")
    .values({ ...watch, ...meterColumns(opened.state), expires_at: expiresAt })
    .execute();
  await appendLedger(trx, ledgerRows(watch.id, opened.entries, opts.ref));
  return expiresAt;
}

/** Drops a watch created in this transaction and not wanted after all (its opening row stays in the ledger). */
export async function discardNewWatch(trx: Queryable, watchId: string): Promise<void> {
  await trx.deleteFrom("watches").where("id", "=", watchId).execute();
}

/**
 * Cancellation of a watch the caller has locked: the remaining credit is
 * forfeited (one ledger row), pending deliveries are dropped, and the row is
 * marked cancelled and due for deletion now. Returns the amount forfeited.
 */
export async function closeAccount(trx: Queryable, w: Selectable<WatchesTable>, opts: { reason: string; nowMs: number }): Promise<bigint> {
  const forfeited = forfeitCredit(meterOf(w), opts.reason);
  await appendLedger(trx, ledgerRows(w.id, forfeited.entries, null));
  await trx.deleteFrom("webhook_outbox").where("watch_id", "=", w.id).where("status", "=", "pending").execute();
  // The row goes at the next tick's expiry sweep; until then it answers like an unknown watch.
  await trx
    .updateTable("watches")
    .set({ status: "cancelled", ...meterColumns(forfeited.state), expires_at: new Date(opts.nowMs), lease_owner: null, lease_until: null })
    .where("id", "=", w.id)
    .execute();
  return -(forfeited.entries.find((e) => e.kind === "forfeit")?.amountAtomic ?? 0n);
}

/**
 * Hard delete of watches past their expiry (the outbox cascades; the ledger
 * is kept). Idle drain still carried on a deleted row (a watch retired
 * with credit left) is booked in the same statement, so its ledger stays
 * exact. Returns how many.
 */
export async function deleteExpiredWatches(db: Queryable, now: Date): Promise<number> {
  const r = await sql<{ n: string }>`
    WITH d AS (
      DELETE FROM watches WHERE expires_at <= ${now}
      RETURNING id, credit_atomic, drain_unbooked_atomic, drain_unbooked_from_ms, drained_through_ms),
    l AS (
      INSERT INTO watch_ledger (watch_id, kind, amount_atomic, balance_after, reason, ref)
      SELECT id, 'idle_drain', -drain_unbooked_atomic, credit_atomic,
        'idle drain ' || to_char(to_timestamp(drain_unbooked_from_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          || '..' || to_char(to_timestamp(drained_through_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        NULL
      FROM d WHERE drain_unbooked_atomic > 0)
    SELECT count(*)::text AS n FROM d`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

// ---------------------------------------------------------------------------
// Credits and debits of one watch.

/**
 * Adds `amountAtomic` to a watch the caller has locked: the idle drain up to
 * now first, then the top-up (meter.ts), booked under `ref` (the payment).
 * A watch that was paused at zero is due for a poll at once (`resumed`).
 */
export async function creditTopup(
  trx: Queryable,
  w: Selectable<WatchesTable>,
  input: { amountAtomic: bigint; reason: string; nowMs: number; ref: string | null },
): Promise<{ meter: MeterState; expiresAt: Date; resumed: boolean }> {
  const { nowMs } = input;
  const drained = applyIdleDrain(meterOf(w), nowMs);
  const resumed = drained.state.creditAtomic === 0n;
  const topped = applyTopup(drained.state, input.amountAtomic, nowMs, input.reason);
  const meter = topped.state;
  const expiresAt = expiresAtFor(meter, nowMs);
  await appendLedger(trx, ledgerRows(w.id, [...drained.entries, ...topped.entries], input.ref));
  await trx
    .updateTable("watches")
    .set({ ...meterColumns(meter), expires_at: expiresAt, ...(resumed ? { next_poll_at: new Date(nowMs) } : {}) })
    .where("id", "=", w.id)
    .execute();
  return { meter, expiresAt, resumed };
}

/**
 * Debits a flat fee (the checkout settlement fee) from a watch, capped at its
 * balance: a watch at zero pays what it has. Locks the row; the idle drain up
 * to now is billed first. Returns the amount taken (0 when the watch is gone).
 */
export async function debitSettlementFee(trx: Queryable, input: { watchId: string; amountAtomic: bigint; reason: string; ref: string; nowMs: number }): Promise<bigint> {
  const { nowMs } = input;
  const w = await trx.selectFrom("watches").selectAll().where("id", "=", input.watchId).forUpdate().executeTakeFirst();
  if (!w) return 0n;
  const drained = applyIdleDrain(meterOf(w), nowMs);
  const fee = chargeSettlementFee(drained.state, input.amountAtomic, input.reason);
  await appendLedger(trx, ledgerRows(w.id, [...drained.entries, ...fee.entries], input.ref));
  await trx.updateTable("watches").set({ ...meterColumns(fee.state), expires_at: expiresAtFor(fee.state, nowMs) }).where("id", "=", w.id).execute();
  // The meter disarmed the warning when this debit took the credit under the threshold: send it now,
  // as the tick and the delivery path do, or the merchant is never told (it re-arms only on a top-up).
  if (drained.emitLowCredit || fee.emitLowCredit) {
    const snap = snapshotOf(w.snapshot, w.start_height);
    const at: Clock = { now: () => nowMs };
    await insertEvents(trx, [{ watchId: w.id, billable: true, body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "low_credit", snap, snap, fee.state, at) }]);
  }
  return drained.state.creditAtomic - fee.state.creditAtomic;
}

// ---------------------------------------------------------------------------
// The tick's batch.

/** A watch row as the tick leaves it: the plan's update, its next poll, and its findings memory when that changed. */
export interface TickAccountUpdate extends WatchUpdate {
  nextPollAt: Date;
  knownOutputs?: unknown;
}

/**
 * The tick's writes of the account for one batch, in the caller's batch
 * transaction: the ledger rows, the events, then every watch row (meter,
 * scan state, schedule, findings memory) — each in multi-row statements of
 * at most SQL_ROWS_PER_STATEMENT rows (the 65535 bind-parameter limit). Only
 * rows still leased to `owner` are updated.
 *
 * The same statement hands back the lease of every watch with no event
 * waiting in the outbox (events queued above included): one row version per
 * watch for the write and the release, not two, and no release statement
 * after the batch (a pass over N watches left 3N dead versions and ~5 kB of
 * WAL per watch; bench/README.md, workers). A watch with events keeps its
 * lease for the delivery that follows. Returns the ids released.
 */
export async function writeTickAccounts(
  trx: Queryable,
  batch: { owner: string; now: Date; ledger: readonly LedgerRow[]; events: readonly PendingEvent[]; updates: readonly TickAccountUpdate[] },
): Promise<string[]> {
  const { owner, now } = batch;
  await appendLedger(trx, batch.ledger);
  await insertEvents(trx, batch.events);
  const values = batch.updates.map(
    (u) =>
      sql`(${u.id}::uuid, ${u.meter.credit_atomic}::bigint, ${u.meter.drained_through_ms}::bigint, ${u.meter.drain_remainder}::bigint,
           ${u.meter.low_credit_armed}::boolean, ${u.meter.drain_unbooked_atomic}::bigint, ${u.meter.drain_unbooked_from_ms}::bigint,
           ${u.scanState === null ? null : JSON.stringify(u.scanState)}::jsonb,
           ${u.snapshot === null ? null : JSON.stringify(u.snapshot)}::jsonb, ${u.initialDone}::boolean,
           ${u.expiresAt}::timestamptz, ${u.nextPollAt}::timestamptz, ${u.polled}::boolean,
           ${u.knownOutputs === undefined ? null : JSON.stringify(u.knownOutputs)}::jsonb)`,
  );
  const released: string[] = [];
  for (let i = 0; i < values.length; i += SQL_ROWS_PER_STATEMENT) {
    const rows = await sql<{ id: string; lease_owner: string | null }>`
      UPDATE watches AS w SET
        credit_atomic = v.credit, drained_through_ms = v.drained, drain_remainder = v.remainder,
        low_credit_armed = v.armed, drain_unbooked_atomic = v.unbooked, drain_unbooked_from_ms = v.unbooked_from, scan_state = v.scan_state, snapshot = v.snapshot,
        initial_scan_done = v.initial_done, expires_at = v.expires_at, next_poll_at = v.next_poll,
        last_polled_at = CASE WHEN v.polled THEN ${now}::timestamptz ELSE w.last_polled_at END,
        known_outputs = COALESCE(v.known, w.known_outputs),
        lease_owner = CASE WHEN v.pending THEN w.lease_owner END,
        lease_until = CASE WHEN v.pending THEN w.lease_until END
      FROM (
        SELECT v.*, EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.watch_id = v.id AND o.status = 'pending') AS pending
        FROM (VALUES ${sql.join(values.slice(i, i + SQL_ROWS_PER_STATEMENT))}) AS v(id, credit, drained, remainder, armed, unbooked, unbooked_from, scan_state, snapshot, initial_done, expires_at, next_poll, polled, known)
      ) AS v
      WHERE w.id = v.id AND w.lease_owner = ${owner}
      RETURNING w.id, w.lease_owner`.execute(trx);
    for (const r of rows.rows) if (r.lease_owner === null) released.push(r.id);
  }
  return released;
}

// ---------------------------------------------------------------------------
// The outbox: queueing.

/** An event to queue: its body is serialised (serializeEvent) when queued. */
export interface PendingEvent {
  watchId: string;
  body: EventBody;
  billable: boolean;
}

/** An event whose bytes are already made (invoice events, which are not watch event bodies). */
export interface SerializedEvent {
  watchId: string;
  event: string;
  nonce: string;
  body: string;
  billable: boolean;
}

/** Queues watch events in the caller's transaction, in statements of at most SQL_ROWS_PER_STATEMENT rows. */
export async function insertEvents(trx: Queryable, events: readonly PendingEvent[]): Promise<void> {
  await insertSerializedEvents(
    trx,
    events.map((e) => ({ watchId: e.watchId, event: e.body.event, nonce: e.body.nonce, body: serializeEvent(e.body), billable: e.billable })),
  );
}

/** Queues events whose bytes the caller made; sent byte for byte. */
export async function insertSerializedEvents(trx: Queryable, events: readonly SerializedEvent[]): Promise<void> {
  // In chunks: one statement may carry at most 65535 bind parameters.
  for (let i = 0; i < events.length; i += SQL_ROWS_PER_STATEMENT) {
    await trx
      .insertInto("webhook_outbox")
      .values(
        events.slice(i, i + SQL_ROWS_PER_STATEMENT).map((e) => ({
          id: randomUUID(),
          watch_id: e.watchId,
          event: e.event,
          nonce: e.nonce,
          body: e.body,
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
}

// ---------------------------------------------------------------------------
// The outbox: delivery leases and outcomes.

/** The meter's columns as stored (the claim reads them with the row, for the delivery's charge). */
type MeterColumns = ReturnType<typeof meterColumns>;

/** A claimed outbox row together with what its delivery needs from the watch. */
export interface ClaimedEvent extends MeterColumns {
  id: string;
  seq: string;
  event: string;
  nonce: string;
  body: string;
  billable: boolean;
  w_status: string;
  w_url: string;
  w_secret: Buffer;
}

/**
 * Leases up to `limit` of the watch's pending events (oldest first; one
 * statement, with the watch's URL, secret and meter), skipping rows another
 * sender holds. In `seq` order.
 */
export async function claimPendingEvents(
  db: Queryable,
  claim: { watchId: string; owner: string; now: Date; leaseUntil: Date; limit: number; onlyOutboxId?: string | undefined },
): Promise<ClaimedEvent[]> {
  const { watchId, owner, now, leaseUntil } = claim;
  return (
    await sql<ClaimedEvent>`
      WITH c AS (
        SELECT id FROM webhook_outbox
        WHERE watch_id = ${watchId} AND status = 'pending'
          ${claim.onlyOutboxId ? sql`AND id = ${claim.onlyOutboxId}` : sql``}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY seq LIMIT ${claim.limit}
        FOR UPDATE SKIP LOCKED)
      UPDATE webhook_outbox o SET lease_owner = ${owner}, lease_until = ${leaseUntil}
      FROM c, watches w
      WHERE o.id = c.id AND w.id = o.watch_id
      RETURNING o.id, o.seq, o.event, o.nonce, o.body, o.billable, w.status AS w_status, w.webhook_url AS w_url,
        w.webhook_secret_enc AS w_secret, w.credit_atomic, w.drained_through_ms, w.drain_remainder, w.low_credit_armed,
        w.drain_unbooked_atomic, w.drain_unbooked_from_ms`.execute(db)
  ).rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
}

/** Hands back claimed rows that were not attempted (those still ours). */
export async function releaseEvents(db: Queryable, outboxIds: readonly string[], owner: string): Promise<void> {
  if (outboxIds.length === 0) return;
  await db.updateTable("webhook_outbox").set({ lease_owner: null, lease_until: null }).where("id", "in", outboxIds).where("lease_owner", "=", owner).execute();
}

/** Pushes the lease of the pending rows `owner` holds for these watches to `until` (the lease keeper). */
export async function renewEventLeases(db: Queryable, watchIds: readonly string[], owner: string, until: Date): Promise<void> {
  await db
    .updateTable("webhook_outbox")
    .set({ lease_until: until })
    .where(
      "id",
      "in",
      // Never waits for a row lock (tick-leases.ts, the lease keeper): a locked row is being delivered.
      db
        .selectFrom("webhook_outbox")
        .select("id")
        .where("watch_id", "in", watchIds)
        .where("lease_owner", "=", owner)
        .where("status", "=", "pending")
        .orderBy("id")
        .forUpdate()
        .skipLocked(),
    )
    .where("lease_owner", "=", owner)
    .execute();
}

/** One statement: count the failure on the row and the watch; 50 in a row retire the watch. */
export async function recordDeliveryFailure(db: Queryable, f: { watchId: string; outboxId: string; owner: string; error: string; status: number | null }): Promise<void> {
  await sql`
    WITH o AS (
      UPDATE webhook_outbox SET attempts = attempts + 1, last_error = ${f.error},
        last_status = ${f.status}, lease_owner = NULL, lease_until = NULL
      WHERE id = ${f.outboxId} AND lease_owner = ${f.owner} RETURNING id)
    UPDATE watches SET consecutive_failures = consecutive_failures + 1,
      status = CASE WHEN consecutive_failures + 1 >= ${MAX_CONSECUTIVE_FAILURES} THEN 'dead' ELSE status END
    WHERE id = ${f.watchId} AND EXISTS (SELECT 1 FROM o)`.execute(db);
}

/** The delivered row, as `recordDelivered*` need it. */
export interface DeliveredEvent {
  id: string;
  event: string;
  billable: boolean;
}

/**
 * The common case in one statement: mark the row delivered, charge the
 * meter and write the ledger — only if the row is still ours and pending and
 * the watch's meter is exactly as read (the UPDATE locks the watch row, so a
 * concurrent top-up or tick either went before, failing the check, or waits).
 * Returns the new meter, or null when the caller must take the locked path
 * (`recordDelivered`). A low-credit crossing also takes the locked path (it
 * queues an event).
 */
export async function recordDeliveredFast(
  db: Queryable,
  d: { watchId: string; row: DeliveredEvent; owner: string; meter: MeterState; clock: Clock },
): Promise<MeterState | null> {
  const { watchId, row, owner, meter, clock } = d;
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
        expires_at = ${expiresAtFor(next, clock.now())}, consecutive_failures = 0,
        delivery_count = delivery_count + 1, last_event_type = ${row.event}
      WHERE id = ${watchId} AND credit_atomic = ${old.credit_atomic}::bigint
        AND drained_through_ms = ${old.drained_through_ms}::bigint AND drain_remainder = ${old.drain_remainder}::bigint
        AND low_credit_armed = ${old.low_credit_armed}
        AND drain_unbooked_atomic = ${old.drain_unbooked_atomic}::bigint AND drain_unbooked_from_ms = ${old.drain_unbooked_from_ms}::bigint
        AND EXISTS (SELECT 1 FROM webhook_outbox WHERE id = ${row.id} AND status = 'pending' AND lease_owner = ${owner})
      RETURNING id),
    o AS (
      UPDATE webhook_outbox SET status = 'delivered', delivered_at = ${new Date(clock.now())},
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
    SELECT (SELECT count(*) FROM w)::text AS w`.execute(db);
  return r.rows[0]?.w === "1" ? next : null;
}

/**
 * The locked path, in the caller's transaction: marks the row delivered,
 * reads the watch FOR UPDATE and applies the pure meter (queueing
 * `low_credit` when the charge crosses the threshold). Returns the meter
 * after, or null when the row is no longer ours (never bill twice).
 */
export async function recordDelivered(trx: Queryable, d: { watchId: string; row: DeliveredEvent; owner: string; clock: Clock }): Promise<MeterState | null> {
  const { watchId, row, owner, clock } = d;
  const marked = await trx
    .updateTable("webhook_outbox")
    .set({ status: "delivered", delivered_at: new Date(clock.now()), attempts: sql`attempts + 1`, lease_owner: null, lease_until: null })
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
    await appendLedger(trx, ledgerRows(watchId, charged.entries, (e) => (e.kind === "delivery" ? row.id : null)));
    Object.assign(update, meterColumns(meter), { expires_at: expiresAtFor(meter, clock.now()) });
    if (charged.emitLowCredit) {
      const snap = snapshotOf(w.snapshot, w.start_height);
      await insertEvents(trx, [{ watchId, billable: true, body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "low_credit", snap, snap, meter, clock) }]);
    }
  }
  await trx.updateTable("watches").set(update).where("id", "=", watchId).execute();
  return meter;
}
