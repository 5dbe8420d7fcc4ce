/**
 * Which errors mean "the database is not reachable right now" rather than
 * "this query is wrong": a dropped or refused connection, a server shutting
 * down or starting up, a pool that could not connect in time, an embedded
 * database that stopped. The HTTP and MCP surfaces answer them with 503
 * `database_unavailable`; the job runner backs off on them and resumes when
 * the database is back. Nothing here retries: a dropped connection rolls its
 * transaction back, and the caller's next attempt (a client's retry, the
 * job's next run) does the work once.
 */
import { unavailable, type ServiceError } from "../core/errors.js";
import { outageWaitMs } from "../core/jobs.js";
import { sleep } from "../core/sleep.js";

/** What a 503 tells a client to wait: a dropped connection is replaced at once, a restart takes seconds. */
const RETRY_AFTER_SECONDS = 5;

/** SQLSTATEs of a server that is going away or not there yet (class 08 is matched as a class). */
const SERVER_CODES = new Set([
  "57P01", // admin_shutdown: pg_terminate_backend, a fast shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or in recovery
  "53300", // too_many_connections
]);

/** Socket errors of a connection that failed or was cut. */
const SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED"]);

/** What `pg`, `pg-pool` and PGlite say when the connection (not the query) failed; they carry no code. */
const MESSAGES = [
  /^Connection terminated/i, // "… unexpectedly", "… due to connection timeout"
  /timeout exceeded when trying to connect/i,
  /not queryable/i, // a client that already lost its connection, or was closed
  /^PGlite is closed/i,
];

export function isDatabaseUnavailable(e: unknown): boolean {
  if (!e || typeof e !== "object") return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SOCKET_CODES.has(code))) return true;
  if (typeof message === "string" && MESSAGES.some((re) => re.test(message))) return true;
  // Node reports the per-address failures of one connect as an AggregateError. No `cause` walk: an
  // upstream's "fetch failed" carries a socket error as its cause and is not the database.
  const inner = (e as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 && inner.every((x) => isDatabaseUnavailable(x));
}

/**
 * A database that is there but cannot store anything: its disk is full (SQLSTATE 53100, from
 * PostgreSQL, from PGlite, or from the embedded database's own guard in ./disk-guard.ts). The
 * statement failed and its transaction rolled back; reads still work. Only an operator freeing
 * space ends it, so clients are told to wait longer than for an outage.
 */
export function isDatabaseFull(e: unknown): boolean {
  if (!e || typeof e !== "object") return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  return code === "53100" || code === "ENOSPC" || (typeof message === "string" && /No space left on device/i.test(message));
}

/** What a client is told to wait when the database disk is full. */
const FULL_RETRY_AFTER_SECONDS = 60;

export function databaseFull(): ServiceError {
  return unavailable(
    "database_full",
    "The service cannot store anything right now (its database disk is full); nothing was written and nothing was charged. Retry later.",
    { retry_after_s: FULL_RETRY_AFTER_SECONDS },
    { "Retry-After": String(FULL_RETRY_AFTER_SECONDS) },
  );
}

/** Either way the database cannot do the work now: what the job runner waits out. */
export function isDatabaseOutage(e: unknown): boolean {
  return isDatabaseUnavailable(e) || isDatabaseFull(e);
}

/** The 503 a surface answers for a database outage or a full disk; undefined for any other error. */
export function databaseOutageAnswer(e: unknown): ServiceError | undefined {
  if (isDatabaseUnavailable(e)) return databaseUnavailable();
  if (isDatabaseFull(e)) return databaseFull();
  return undefined;
}

/** The 503 a surface answers for such an error (a client retries after `Retry-After` seconds). */
export function databaseUnavailable(): ServiceError {
  return unavailable(
    "database_unavailable",
    "The database is unreachable right now; retry shortly.",
    { retry_after_s: RETRY_AFTER_SECONDS },
    { "Retry-After": String(RETRY_AFTER_SECONDS) },
  );
}

/**
 * Runs `open` until the database answers: a process started while its
 * database is down (a restart during a failover) waits for it, logging each
 * attempt, instead of exiting. Any other error (bad credentials, a schema
 * error) is thrown at once.
 */
export async function whenDatabaseReachable<T>(open: () => Promise<T>, log: { warn(obj: object, msg: string): void }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (e) {
      if (!isDatabaseUnavailable(e)) throw e;
      const retryInMs = outageWaitMs(0, attempt);
      log.warn({ err: (e as Error).message, attempt, retryInMs }, "database unreachable at start; waiting for it");
      await sleep(retryInMs);
    }
  }
}
