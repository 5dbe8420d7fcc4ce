/**
 * One dialect everywhere: Kysely's PostgresDialect over a `pg` pool. The pool
 * talks to PostgreSQL when DATABASE_URL is set, otherwise to an embedded
 * PGlite under DATA_DIR through PGlite's node-postgres shim (one connection).
 *
 * Connections die (a failover, a pooler restart, an idle-session timeout,
 * pg_terminate_backend): the pool then fails the queries on them, drops them,
 * and opens new ones for the next queries; nothing here ends the process.
 * How callers see it: src/db/unavailable.ts.
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import type { DB } from "./schema.js";
import { createDiskGuard, type DiskGuard, type DiskSpace } from "./disk-guard.js";

export interface DatabaseHandle {
  db: Kysely<DB>;
  kind: "postgres" | "pglite";
  /** Max concurrent connections (1 for PGlite). */
  poolSize: number;
  /** The raw pool, for libraries that want one (rate limiter). */
  pool: pg.Pool;
  /** The embedded database's disk space and whether it takes writes (absent on PostgreSQL and in memory). */
  storage?: () => DiskSpace;
  close(): Promise<void>;
}

/** The little of a logger the connection needs (a pino Logger fits). */
export interface ConnectionLog {
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

/** How long a new PostgreSQL connection may take before the query waiting for it fails (database_unavailable). */
const CONNECT_TIMEOUT_MS = 5_000;
/** TCP keepalive, so a connection to a host that vanished is found dead instead of waiting forever. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface DatabaseOptions {
  databaseUrl?: string;
  /** PostgreSQL schema to use (created if missing). */
  schema?: string;
  /** Directory for the embedded database; "memory://" keeps it in memory. */
  dataDir: string;
  poolSize?: number;
  /** A PGlite data-directory dump to start from (tests start from a migrated snapshot). */
  pgliteSnapshot?: Blob;
  /** Where a dropped connection is reported (default: nowhere). */
  log?: ConnectionLog;
  /** Embedded database: free space (bytes) under which writes are refused; 0 = no guard. Default 64 MiB. */
  pgliteMinFreeBytes?: number;
}

const DEFAULT_PGLITE_MIN_FREE_BYTES = 64 * 1048576;

/**
 * PGlite's server settings, written to its postgresql.conf at every start.
 * PostgreSQL's default shared_buffers (128MB) lives in PGlite's WebAssembly
 * memory, which only grows and is never handed back to the OS. Measured with a
 * bare script (open, 20,000 rows written and read): 165 MiB RSS with 16MB,
 * 313 MiB with 128MB; the data files stay in the OS's page cache either way.
 * bench:startup prints the service's RSS.
 */
export const PGLITE_CONF = ["shared_buffers = 16MB"];

const execFileAsync = promisify(execFile);

/**
 * A new data directory is initialised (initdb) in a short-lived child process:
 * initdb grows the WebAssembly memory of the process that runs it by about
 * 450 MiB (the same script: 642 MiB with initdb in process, 165 without),
 * which a long-lived service would hold for ever.
 */
export async function initPgliteDataDir(target: string): Promise<void> {
  if (fs.existsSync(path.join(target, "PG_VERSION"))) return;
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const script =
    "const { PGlite } = require(process.argv[1]);" +
    "PGlite.create(process.argv[2], { postgresqlconf: JSON.parse(process.argv[3]) })" +
    ".then((p) => p.close()).catch((e) => { process.stderr.write(String(e && e.message || e)); process.exit(1); });";
  try {
    await execFileAsync(process.execPath, ["-e", script, entry, target, JSON.stringify(PGLITE_CONF)], { env: { PATH: process.env.PATH ?? "" }, timeout: 300_000 });
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr?.trim();
    throw new Error(`could not initialise the embedded database in ${target}: ${stderr || (e as Error).message}`);
  }
}

// int8 and numeric stay strings (pg's default); money code converts with BigInt().
export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10, opts.log);
  return openPglite(opts.dataDir, opts.pgliteSnapshot, opts.pgliteMinFreeBytes ?? DEFAULT_PGLITE_MIN_FREE_BYTES, opts.log);
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number, log?: ConnectionLog): Promise<DatabaseHandle> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // Its query fails with the same error; without a listener the 'error' event would end the process.
    admin.on("error", () => {});
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  const lost = (e: Error) => log?.warn({ err: e.message, code: (e as { code?: string }).code }, "database connection lost; the pool opens a new one");
  // A client whose connection dies emits 'error'. The pool listens only while the client is idle: one
  // checked out (a Kysely query or transaction, the rate limiter's query) had no listener, so the event
  // ended the process. Every client gets its own listener from the start; its query (and so its
  // transaction) fails with the same error, and the pool drops it on release as no longer queryable.
  pool.on("connect", (client) => client.on("error", lost));
  // The pool's own report for idle clients (the client's listener above has already logged it).
  pool.on("error", () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (e) {
    await db.destroy().catch(() => {});
    throw e;
  }
  return { db, kind: "postgres", poolSize, pool, close: () => db.destroy() };
}

async function openPglite(dataDir: string, snapshot: Blob | undefined, minFreeBytes: number, log?: ConnectionLog): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { createPgConfig } = await import("@electric-sql/pglite/node-postgres");
  let target = dataDir;
  if (!dataDir.startsWith("memory://")) {
    target = path.join(dataDir, "pglite");
    fs.mkdirSync(target, { recursive: true });
    if (!snapshot) await initPgliteDataDir(target);
  }
  const pglite = await PGlite.create(target, { postgresqlconf: PGLITE_CONF, ...(snapshot ? { loadDataDir: snapshot } : {}) });
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  let guard: DiskGuard | undefined;
  if (target !== dataDir && minFreeBytes > 0) {
    guard = createDiskGuard({
      dir: target,
      reserveBytes: minFreeBytes,
      onChange: (space) =>
        space.writable
          ? log?.info?.({ freeBytes: space.freeBytes }, "database disk has room again; writes resume")
          : log?.warn({ freeBytes: space.freeBytes, reserveBytes: space.reserveBytes }, "database disk nearly full: writes are refused until space is freed"),
    });
    const g = guard;
    pool.on("connect", (client) => guardQueries(client, g));
  }
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: "pglite",
    poolSize: 1,
    pool,
    ...(guard ? { storage: guard.space } : {}),
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}

/**
 * Every statement on this client passes the disk guard first. The one choke point: Kysely's queries,
 * raw SQL and the rate limiter's own queries all go through a pool client's `query`. A refused
 * statement fails the way the engine would (a rejected promise, or the callback's error).
 */
function guardQueries(client: pg.PoolClient, guard: DiskGuard): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const config = args[0] as string | { text?: unknown } | undefined;
    const text = typeof config === "string" ? config : typeof config?.text === "string" ? config.text : undefined;
    if (text !== undefined) {
      try {
        guard.check(text);
      } catch (e) {
        const callback = args.find((a): a is (err: unknown) => void => typeof a === "function");
        if (callback) {
          process.nextTick(callback, e);
          return undefined;
        }
        return Promise.reject(e);
      }
    }
    return query(...args);
  };
}
