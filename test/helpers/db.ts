/**
 * A database for one test file: a fresh schema on the PostgreSQL named by
 * DATABASE_URL (or by `postgresUrl`, for a test that needs PostgreSQL even
 * when the suite runs on PGlite), dropped afterwards; an in-memory PGlite
 * otherwise.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../src/db/connection.js";
import { migrateToLatest } from "../../src/db/migrate.js";

export const usingPostgres = Boolean(process.env.DATABASE_URL);

export interface TestDatabase extends DatabaseHandle {
  schema?: string;
  /** Config entries that point another process at the same database. */
  env: Record<string, string>;
}

/** The machine's PostgreSQL, for the tests that need one whatever DATABASE_URL says (CI and this machine run it). */
export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Drops a test's schema (and everything in it) from the PostgreSQL at `url`. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}

export async function openTestDatabase(opts: { postgresUrl?: string } = {}): Promise<TestDatabase> {
  const url = opts.postgresUrl ?? process.env.DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString("hex")}`;
    const h = await openDatabase({ databaseUrl: url, schema, dataDir: "", poolSize: 8 });
    await migrateToLatest(h.db);
    return {
      ...h,
      schema,
      env: { DATABASE_URL: url, DATABASE_SCHEMA: schema },
      close: async () => {
        await h.close();
        await dropSchema(url, schema);
      },
    };
  }
  // Start from the migrated snapshot made once by the global setup.
  const snapshotFile = inject("pgliteSnapshot");
  const pgliteSnapshot = snapshotFile ? new Blob([fs.readFileSync(snapshotFile)]) : undefined;
  const h = await openDatabase({ dataDir: "memory://", pgliteSnapshot });
  await migrateToLatest(h.db);
  return { ...h, env: {} };
}
