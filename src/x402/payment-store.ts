/**
 * The `payments` table: every statement on it, and its one writer (DESIGN.md
 * "Ownership"; docs/architecture.md; held by
 * test/x402/payment-store-owner.test.ts, which scans src/ for writes).
 *
 * A row is the once-ever record of one authorisation (its nonce key is
 * unique): `pending` from the moment the paywall accepts it until its work
 * commits with the settlement, then `settled` (with `work_done` false when
 * money moved and the work did not commit) or `failed`. The pending row is
 * also the cross-process lock from verify until settle ends. A stored answer
 * (sealed by the paywall) rides on the row until it expires.
 *
 * The protocol (what a row's state means, when to write what) is the
 * paywall's (paywall.ts) and the reconciler's (reconcile.ts); this file
 * only names the statements. Every function runs on the handle it is given
 * (a transaction or the pool) and never opens a transaction: the
 * transactions stay where the flow needs them.
 */
import { sql, type Insertable, type Selectable } from "kysely";
import type { PaymentsTable } from "../db/schema.js";
import type { Queryable } from "../db/types.js";

export type PaymentRow = Selectable<PaymentsTable>;

/** A new row, as the paywall fills it in; it starts pending with no work done. */
export type NewPayment = Omit<Insertable<PaymentsTable>, "status" | "work_done">;

/** A paid answer sealed for retries: the status it went out with and when it is purged. */
export interface SealedAnswer {
  status: number;
  sealed: Buffer;
  expiresAt: Date;
}

/** The columns of a stored answer (none when nothing is stored). */
function answerColumns(answer: SealedAnswer | undefined) {
  return answer ? { response_status: answer.status, response_sealed: answer.sealed, response_expires_at: answer.expiresAt } : {};
}

// ---------------------------------------------------------------------------
// Reading.

export function findByNonceKey(db: Queryable, nonceKey: string): Promise<PaymentRow | undefined> {
  return db.selectFrom("payments").selectAll().where("nonce_key", "=", nonceKey).executeTakeFirst();
}

/** The row a payer's payment identifier names (the identifier is unique per payer). */
export function findByIdentifier(db: Queryable, payer: string, identifier: string): Promise<PaymentRow | undefined> {
  return db.selectFrom("payments").selectAll().where("payer", "=", payer).where("payment_identifier", "=", identifier).executeTakeFirst();
}

export function findById(db: Queryable, id: string): Promise<PaymentRow> {
  return db.selectFrom("payments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** The row, locked for this transaction; undefined when another holds its lock (or it is gone). */
export function lockUnlessBusy(trx: Queryable, id: string): Promise<PaymentRow | undefined> {
  return trx.selectFrom("payments").selectAll().where("id", "=", id).forUpdate().skipLocked().executeTakeFirst();
}

/** Locks the row until the handle's transaction ends, waiting for another holder. */
export async function lockRow(handle: Queryable, id: string): Promise<void> {
  await sql`select id from payments where id = ${id} for update`.execute(handle);
}

/** Rows that need a person or a client retry: pending ones, and settled ones whose work never committed (oldest first, at most 1000). */
export function openRows(db: Queryable): Promise<PaymentRow[]> {
  return db
    .selectFrom("payments")
    .selectAll()
    .where((eb) => eb.or([eb("status", "=", "pending"), eb.and([eb("status", "=", "settled"), eb("work_done", "=", false)])]))
    .orderBy("created_at")
    .limit(1000)
    .execute();
}

/** Pending rows created before `cutoff`, oldest first. */
export function pendingBefore(db: Queryable, cutoff: Date, limit: number): Promise<PaymentRow[]> {
  return db.selectFrom("payments").selectAll().where("status", "=", "pending").where("created_at", "<", cutoff).orderBy("created_at").limit(limit).execute();
}

// ---------------------------------------------------------------------------
// The paywall's writes.

/**
 * Takes the once-ever row of an authorisation. "taken": a row with this
 * nonce key exists; "identifier_taken": another row holds this payer's
 * payment identifier (its unique index refused the insert).
 */
export async function insertPending(db: Queryable, row: NewPayment): Promise<"inserted" | "taken" | "identifier_taken"> {
  try {
    const inserted = await db
      .insertInto("payments")
      .values({ ...row, status: "pending", work_done: false })
      .onConflict((oc) => oc.column("nonce_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted ? "inserted" : "taken";
  } catch (e) {
    if (row.payment_identifier && /payments_identifier_idx|unique/i.test((e as Error).message)) return "identifier_taken";
    throw e;
  }
}

/** Frees a payment identifier held by a failed row, for a new attempt. */
export async function releaseIdentifier(db: Queryable, id: string): Promise<void> {
  await db.updateTable("payments").set({ payment_identifier: null }).where("id", "=", id).execute();
}

/** Removes a row whose authorisation moved nothing, so that it may be used again. */
export async function deleteRow(db: Queryable, id: string): Promise<void> {
  await db.deleteFrom("payments").where("id", "=", id).execute();
}

/** Settled with its work, in the work's transaction. */
export async function recordWorkDone(handle: Queryable, id: string, done: { txHash: string; settledAt: Date; answer: SealedAnswer | undefined }): Promise<void> {
  await handle
    .updateTable("payments")
    .set({ status: "settled", tx_hash: done.txHash, settled_at: done.settledAt, work_done: true, ...answerColumns(done.answer) })
    .where("id", "=", id)
    .execute();
}

/** Settled with its work, resumed on the chain's word: the settlement's time stays the first one known. */
export async function recordResumedWork(trx: Queryable, id: string, done: { txHash: string; settledAt: Date; checkedAt: Date; answer: SealedAnswer | undefined }): Promise<void> {
  await trx
    .updateTable("payments")
    .set({ status: "settled", tx_hash: done.txHash, error: null, work_done: true, settled_at: done.settledAt, checked_at: done.checkedAt, ...answerColumns(done.answer) })
    .where("id", "=", id)
    .execute();
}

/** Nothing moved and nothing will: the row is failed (with when the chain said so, if it did). */
export async function markFailed(db: Queryable, id: string, error: string, checkedAt?: Date): Promise<void> {
  await db
    .updateTable("payments")
    .set({ status: "failed", error, ...(checkedAt ? { checked_at: checkedAt } : {}) })
    .where("id", "=", id)
    .execute();
}

/** A settlement whose outcome is unknown: the row stays pending, with the reason, for the reconciler. */
export async function noteSettlementError(db: Queryable, id: string, error: string): Promise<void> {
  await db.updateTable("payments").set({ error }).where("id", "=", id).execute();
}

/**
 * Money moved, the work did not commit: settled without work
 * (`work_not_committed`), for the client's retry to resume. Only a row still
 * pending: a concurrent retry that resumed the work meanwhile wins.
 */
export async function markSettledWithoutWork(db: Queryable, id: string, found: { txHash: string; settledAt: Date; checkedAt?: Date }): Promise<void> {
  await db
    .updateTable("payments")
    .set({
      status: "settled",
      tx_hash: found.txHash,
      error: "work_not_committed",
      work_done: false,
      settled_at: found.settledAt,
      ...(found.checkedAt ? { checked_at: found.checkedAt } : {}),
    })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .execute();
}

// ---------------------------------------------------------------------------
// The reconciler's writes: each only on a row still pending, so a client's retry that resumed the work meanwhile wins.

/** The chain's verdict on a pending row: nothing reached us. */
export async function failPending(db: Queryable, id: string, error: string, checkedAt: Date): Promise<void> {
  await db.updateTable("payments").where("id", "=", id).where("status", "=", "pending").set({ status: "failed", error, checked_at: checkedAt }).execute();
}

/** The chain was asked about a pending row and gave no verdict. */
export async function notePendingChecked(db: Queryable, id: string, checkedAt: Date): Promise<void> {
  await db.updateTable("payments").where("id", "=", id).where("status", "=", "pending").set({ checked_at: checkedAt }).execute();
}

/** Drops stored answers (and the identifiers that fetch them) whose time is up; returns how many rows. */
export async function purgeExpiredAnswers(db: Queryable, now: Date): Promise<number> {
  const purged = await db
    .updateTable("payments")
    .set({ response_sealed: null, response_status: null, payment_identifier: null })
    .where("response_sealed", "is not", null)
    .where("response_expires_at", "<=", now)
    .executeTakeFirst();
  return Number(purged.numUpdatedRows ?? 0n);
}
