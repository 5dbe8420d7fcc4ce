/**
 * Scaffolding the database benchmarks share: a fresh PostgreSQL schema
 * (DATABASE_URL) dropped afterwards, also on failure or Ctrl-C — or
 * in-memory PGlite, labelled as such — plus a bounded-concurrency map and
 * this process's CPU time between two marks.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { Kysely, PostgresDialect, type LogEvent } from "kysely";
import pg from "pg";
import { openDatabase, type DatabaseHandle } from "../src/db/connection.js";
import { migrateToLatest } from "../src/db/migrate.js";
import type { DB } from "../src/db/schema.js";

export const ms = (x: number) => `${x.toFixed(0)} ms`;

/** Runs fn over items with at most `limit` calls in flight. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (t: T, i: number) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (i < items.length) {
        const k = i++;
        await fn(items[k]!, k);
      }
    }),
  );
}

let cpuMark = process.cpuUsage();
/** CPU time this process used since the last call (wall time on a shared machine includes waiting for a core). */
export function cpuSince(): number {
  const d = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  return (d.user + d.system) / 1000;
}

export const machineLine = (name: string): string =>
  `${name} — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.versions.node}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`;

export interface BenchDatabase {
  handle: DatabaseHandle;
  label: string;
  drop: () => Promise<void>;
}

/** A migrated database: a fresh schema `<prefix>_<hex>` on DATABASE_URL, or in-memory PGlite. */
export async function openBenchDatabase(prefix: string, log?: (e: LogEvent) => void): Promise<BenchDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const h = await openDatabase({ dataDir: "memory://" });
    await migrateToLatest(h.db);
    return { handle: h, label: "PGlite (in-memory; set DATABASE_URL for PostgreSQL)", drop: async () => {} };
  }
  const schema = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const version = (await admin.query("SHOW server_version")).rows[0].server_version as string;
  await admin.end();
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path="${schema}"` });
  pool.on("error", () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
  await migrateToLatest(db);
  return {
    handle: { db, kind: "postgres", poolSize: 10, pool, close: () => db.destroy() },
    label: `PostgreSQL ${version} (schema ${schema})`,
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
}

/**
 * Opens the database, runs the benchmark and drops the schema even when the run fails or is
 * interrupted (a leftover schema's tables confuse Kysely's migrator elsewhere).
 */
export async function withBenchDatabase(db: BenchDatabase, run: (handle: DatabaseHandle) => Promise<void>): Promise<void> {
  console.log(`database: ${db.label}`);
  const onSignal = () => void db.drop().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await run(db.handle);
  } finally {
    await db.handle.close().catch(() => {});
    await db.drop();
  }
}

/**
 * A production-shaped process's settings (devnet off, PostgreSQL) pointed at a
 * separate `vigil devnet`'s upstreams (its published configOverlay): the
 * payment chain and monerod, and with `all` every other upstream too.
 */
export function productionEnvFromDevnet(overlay: Record<string, string | undefined>, o: { databaseUrl: string; schema: string; dataDir: string; all: boolean }): Record<string, string> {
  return {
    DEVNET: "off",
    LOG_LEVEL: "info",
    DATABASE_URL: o.databaseUrl,
    DATABASE_SCHEMA: o.schema,
    DATA_DIR: o.dataDir,
    MASTER_KEY: overlay.MASTER_KEY!,
    PAY_TO: overlay.PAY_TO!,
    FACILITATOR_MODE: "local",
    EVM_RPC_URL: overlay.EVM_RPC_URL!,
    FACILITATOR_PRIVATE_KEY: overlay.FACILITATOR_PRIVATE_KEY!,
    X402_NETWORK: overlay.X402_NETWORK!,
    ...(overlay.BATCH_RECEIVER_AUTHORIZER_KEY ? { BATCH_RECEIVER_AUTHORIZER_KEY: overlay.BATCH_RECEIVER_AUTHORIZER_KEY } : {}),
    MONERO_DAEMON_URL: overlay.MONERO_DAEMON_URL!,
    MONERO_NETWORK: "testnet",
    ...(o.all
      ? {
          ZEBRAD_URL: overlay.ZEBRAD_URL!,
          LIGHTWALLETD_URL: overlay.LIGHTWALLETD_URL!,
          ZCASH_NETWORK: "testnet",
          ETH_RPC_URL: overlay.ETH_RPC_URL!,
          RELAY_URLS: overlay.RELAY_URLS!,
          PRICE_SOURCES: overlay.PRICE_SOURCES!,
        }
      : {}),
  };
}
