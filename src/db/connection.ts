/**
 * One dialect everywhere: Kysely's PostgresDialect over a `pg` pool. The pool
 * talks to PostgreSQL when DATABASE_URL is set, otherwise to an embedded
 * PGlite under DATA_DIR through PGlite's node-postgres shim (one connection).
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import type { DB } from "./schema.js";

export interface DatabaseHandle {
  db: Kysely<DB>;
  kind: "postgres" | "pglite";
  /** Max concurrent connections (1 for PGlite). */
  poolSize: number;
  /** The raw pool, for libraries that want one (rate limiter). */
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** PostgreSQL schema to use (created if missing). */
  schema?: string;
  /** Directory for the embedded database; "memory://" keeps it in memory. */
  dataDir: string;
  poolSize?: number;
  /** A PGlite data-directory dump to start from (tests start from a migrated snapshot). */
  pgliteSnapshot?: Blob;
}

// int8 and numeric stay strings (pg's default); money code converts with BigInt().
export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10);
  return openPglite(opts.dataDir, opts.pgliteSnapshot);
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<DatabaseHandle> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
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
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  // A dropped idle connection must not crash the process.
  pool.on("error", () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  return { db, kind: "postgres", poolSize, pool, close: () => db.destroy() };
}

async function openPglite(dataDir: string, snapshot?: Blob): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { createPgConfig } = await import("@electric-sql/pglite/node-postgres");
  let target = dataDir;
  if (!dataDir.startsWith("memory://")) {
    target = path.join(dataDir, "pglite");
    fs.mkdirSync(target, { recursive: true });
  }
  const pglite = await PGlite.create(target, snapshot ? { loadDataDir: snapshot } : {});
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: "pglite",
    poolSize: 1,
    pool,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
