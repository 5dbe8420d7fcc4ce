/**
 * withTransaction: run a unit of writes atomically on whatever handle the
 * caller holds. When the handle already is a transaction (a paid route runs
 * its work inside the paywall's transaction, so the writes commit with the
 * settlement), the work joins it; otherwise a new transaction is opened and
 * committed when `fn` resolves (rolled back when it throws).
 *
 * Invariant: inside `fn` use only the handle it receives.
 */
import type { Transaction } from "kysely";
import type { DB } from "./schema.js";
import type { Queryable } from "./types.js";

export async function withTransaction<T>(db: Queryable, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  // Kysely cannot nest transactions; joining the outer one keeps "all or nothing" for the whole call.
  if (db.isTransaction) return fn(db as Transaction<DB>);
  return db.transaction().execute(fn);
}
