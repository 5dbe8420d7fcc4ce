import fs from "node:fs";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * VIGIL_STORELESS_TESTS=skip leaves out the tests that never open a store:
 * the chain tests (keys, scanning, codecs, vectors), the devnet's simulators,
 * the webhook signer and URL guard, the facilitator, and the tests that start
 * `vigil` processes on a PGlite DATA_DIR of their own. A file counts as
 * opening a store when it opens one, starts the app, names DATABASE_URL or
 * uses a helper that does, or runs the real nodes (whose suites run in the
 * PostgreSQL pass). `.ci/run` sets it for the PostgreSQL pass only: the PGlite
 * pass runs them, and running them a second time would test nothing new.
 */
function storelessTests(): string[] {
  if (process.env.VIGIL_STORELESS_TESTS !== "skip") return [];
  const opensAStore =
    /openTestDatabase|openDatabase|startTestApp|startWatchStack|startWatchHarness|createApp\(|DATABASE_URL|usingPostgres|helpers\/(db|lending-devnet|monero-regtest|real-nodes|worker-process|cutting-database)\.js/;
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? walk(p) : e.name.endsWith(".test.ts") ? [p] : [];
    });
  return walk("test").filter((f) => !opensAStore.test(fs.readFileSync(f, "utf8")));
}

/**
 * VIGIL_PASS names the pass of a CI run that runs both (`.ci/run`). Some tests
 * choose their store themselves: they would run twice, identically. Each runs
 * in the one pass of its store: the PostgreSQL outage and restart tests (a
 * PostgreSQL of their own or through a proxy, whatever DATABASE_URL says) in
 * the PostgreSQL pass, the embedded database's own tests in the PGlite pass.
 */
export const OWN_STORE_TESTS = {
  postgres: ["test/e2e/database-outage.test.ts", "test/e2e/database-restart.test.ts", "test/watch/lease-locks.test.ts", "test/core/rate-limit-claims.test.ts"],
  pglite: ["test/e2e/pglite-disk-full.test.ts", "test/db/pglite-open.test.ts"],
};

/**
 * The pay page's browser tests run in the PGlite pass only. They drive the
 * page in Chromium through the API; what the store does behind the API (the
 * invoice states, payments, expiry) is tested on both stores by
 * test/e2e/checkout-invoices.test.ts and the checkout tests. A second
 * Chromium run over PostgreSQL cost ~90 s of a CI run that is CPU-bound on
 * two cores.
 */
export const BROWSER_TESTS = ["test/e2e/checkout-pay-page.test.ts", "test/e2e/checkout-pay-page-states.test.ts"];

/**
 * End-to-end tests of a chain format rather than of the store run in one
 * pass, the PostgreSQL one (the production store; the PGlite pass is the
 * longer of the two): the Monero Carrot fork (watch, checkout, top-up and
 * historical scan across it) stores what the legacy path stores, through the
 * same code, which test/chains/monero/io/watch-e2e.test.ts,
 * test/e2e/checkout-invoices.test.ts and the top-up and historical tests run
 * on both stores.
 */
export const CHAIN_FORMAT_E2E_TESTS = ["test/e2e/monero-carrot-fork.test.ts"];

function otherPassTests(): string[] {
  if (process.env.VIGIL_PASS === "pglite") return [...OWN_STORE_TESTS.postgres, ...CHAIN_FORMAT_E2E_TESTS];
  if (process.env.VIGIL_PASS === "postgres") return [...OWN_STORE_TESTS.pglite, ...BROWSER_TESTS];
  return [];
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...storelessTests(), ...otherPassTests()],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One worker process runs the files one after another and keeps its module
    // cache: re-importing the app's module graph for each of ~150 files cost
    // about as much CPU as the tests themselves. Each file still opens its own
    // database, devnet and app, so no state is shared through modules.
    isolate: false,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/preload.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
