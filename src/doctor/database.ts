/**
 * The store: reachable and migrated (read only: the doctor never migrates),
 * and MASTER_KEY able to open what is sealed in it. Both checks share one
 * connection, opened by the runner and handed in as a promise.
 */
import { sql } from "kysely";
import type { DatabaseHandle } from "../db/connection.js";
import { migrationStatus } from "../db/migrate.js";
import { SecretBox } from "../core/secretbox.js";
import { fail, pass, reason, shownUrl, warn, type CheckContext, type CheckResult } from "./check.js";

/** Where the configuration points the store, as shown (no credentials). */
export function databaseLabel(ctx: Pick<CheckContext, "config">): string {
  const c = ctx.config;
  if (!c.DATABASE_URL) return `PGlite under ${c.dataDir}`;
  return `PostgreSQL ${shownUrl(c.DATABASE_URL)}${c.DATABASE_SCHEMA ? ` schema ${c.DATABASE_SCHEMA}` : ""}`;
}

export async function checkDatabase(ctx: CheckContext, opened: Promise<DatabaseHandle>): Promise<CheckResult> {
  const where = databaseLabel(ctx);
  let db: DatabaseHandle;
  try {
    db = await opened;
  } catch (e) {
    return fail("database", `${where} unreachable: ${reason(e)}`, "check DATABASE_URL (host, port, credentials, database name) and that the server accepts connections from this host");
  }
  const { applied, pending } = await migrationStatus(db.db);
  if (pending.length > 0) {
    const shown = pending.length > 3 ? `${pending.slice(0, 3).join(", ")}, …` : pending.join(", ");
    return fail("database", `${where} reachable, ${applied.length} migrations applied, ${pending.length} pending (${shown})`, "run `vigil migrate` (or start the service once: it migrates on start)");
  }
  return pass("database", `${where} reachable, ${applied.length} migrations applied`);
}

/**
 * Sealed values the master key must open, newest first, one of each kind:
 * a watch's view key, else a stored paid answer. Their associated data is
 * the row id, as the code that sealed them bound it (watch/, x402/paywall.ts).
 */
const SEALED_SAMPLES = [
  { what: "a watch's view key", table: "watches", column: "view_key_enc", aad: (id: string) => `viewkey:${id}` },
  { what: "a stored paid answer", table: "payments", column: "response_sealed", aad: (id: string) => `payment-response:${id}` },
] as const;

async function newestSealed(db: DatabaseHandle): Promise<{ what: string; id: string; sealed: Uint8Array; aad: string } | null> {
  for (const s of SEALED_SAMPLES) {
    const { rows } = await sql<{ id: string; sealed: Uint8Array }>`select id::text as id, ${sql.ref(s.column)} as sealed from ${sql.table(s.table)} where ${sql.ref(s.column)} is not null order by created_at desc limit 1`.execute(db.db);
    const row = rows[0];
    if (row) return { what: s.what, id: row.id, sealed: row.sealed, aad: s.aad(row.id) };
  }
  return null;
}

export async function checkMasterKey(ctx: CheckContext, opened: Promise<DatabaseHandle>): Promise<CheckResult> {
  const key = ctx.config.MASTER_KEY;
  const generate = "generate one with `openssl rand -hex 32`, set MASTER_KEY, and keep it with your backups: without it stored view keys cannot be read";
  let db: DatabaseHandle | undefined;
  try {
    db = await opened;
  } catch {
    db = undefined;
  }
  if (!db) {
    if (!key) return fail("master-key", "MASTER_KEY not set (and the database is unreachable, so stored keys were not looked at)", generate);
    return warn("master-key", "MASTER_KEY set; not tried against stored keys (the database is unreachable)");
  }
  let sample: Awaited<ReturnType<typeof newestSealed>>;
  try {
    sample = await newestSealed(db);
  } catch (e) {
    // A database without the tables yet (unmigrated) holds nothing sealed.
    if (/does not exist/.test(reason(e))) sample = null;
    else throw e;
  }
  if (!key) {
    if (sample) return fail("master-key", `MASTER_KEY not set, but the database holds sealed secrets (${sample.what})`, "set MASTER_KEY to the key these were sealed with");
    return fail("master-key", "MASTER_KEY not set: watches, checkout and paid-answer storage need it", generate);
  }
  if (!sample) return pass("master-key", "MASTER_KEY set; no sealed value stored yet, so there is nothing to open");
  try {
    new SecretBox(key).open(sample.sealed, sample.aad);
  } catch {
    return fail(
      "master-key",
      `MASTER_KEY does not open ${sample.what} stored in the database (row ${sample.id})`,
      "set MASTER_KEY to the key the stored secrets were sealed with (the previous deployment's); a new key cannot read them",
    );
  }
  return pass("master-key", `MASTER_KEY opens ${sample.what} stored in the database`);
}
