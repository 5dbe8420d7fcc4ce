/** Builds the real app for tests: real config parsing, real router, a test database. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { inject } from "vitest";
import { applyConfigOverlay, loadConfig, type ConfigOverlay } from "../../src/config.js";
import { createApp, type App, type AppOptions } from "../../src/app.js";
import { openTestDatabase, type TestDatabase } from "./db.js";
import { closeSteps } from "./close-steps.js";

export const silentLog = pino({ level: "silent" });

export function tempDir(prefix = "vigil-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Gives `dataDir` an embedded database that has had its initdb (and nothing
 * else: no migration), as a first start of the service leaves it: a copy of
 * the template the global setup made with the service's own initdb
 * (test/global-setup.ts). For the tests that start `vigil` on a DATA_DIR of
 * their own; the first-run path itself (initdb in a new DATA_DIR) is tested by
 * test/db/pglite-open.test.ts and by `serve` in test/cli.test.ts.
 */
export function seedStore(dataDir: string): string {
  fs.cpSync(inject("pgliteTemplate"), path.join(dataDir, "pglite"), { recursive: true });
  return dataDir;
}

/** A new DATA_DIR with an initialised embedded database (seedStore). */
export const storeDataDir = (prefix = "vigil-data-"): string => seedStore(tempDir(prefix));

export interface TestApp {
  app: App;
  db: TestDatabase;
  url: string;
  close(): Promise<void>;
}

export interface TestAppOptions extends Omit<AppOptions, "database"> {
  /** A running devnet: its settings are laid over the parsed config, as the CLI does in devnet mode. */
  devnet?: { configOverlay: ConfigOverlay };
  /** A PostgreSQL to put the test's schema on even when DATABASE_URL is unset. */
  postgresUrl?: string;
  /** Wraps the Kysely handle the app is given (a test that cuts the connection at a chosen step); `TestApp.db` stays the real one. */
  wrapDatabase?: (db: TestDatabase["db"]) => TestDatabase["db"];
}

/** Starts the app on a loopback port with the given environment (defaults: devnet off). */
export async function startTestApp(env: Record<string, string>, opts: TestAppOptions = {}): Promise<TestApp> {
  const { devnet, postgresUrl, wrapDatabase, ...appOptions } = opts;
  const db = await openTestDatabase(postgresUrl ? { postgresUrl } : {});
  const dataDir = tempDir();
  const parsed = loadConfig({ DEVNET: "off", DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", ...env });
  const config = devnet ? applyConfigOverlay(parsed, devnet.configOverlay) : parsed;
  const app = await createApp(config, { log: silentLog, ...appOptions, database: wrapDatabase ? { ...db, db: wrapDatabase(db.db) } : db });
  const url = await app.listen();
  return {
    app,
    db,
    url,
    close: async () => {
      await closeSteps([
        ["app", () => app.close()],
        ["database", () => db.close()],
        ["data dir", () => fs.rmSync(dataDir, { recursive: true, force: true })],
      ]);
    },
  };
}
