/**
 * vigil serve | api | worker | migrate | devnet | pay | zcash | monero
 * The only place that reads process.env (through loadConfig).
 */
import { loadConfig, ConfigError, type Config } from "./config.js";
import { createLogger } from "./core/logger.js";

const USAGE = `Usage: vigil <command> [options]

  serve                 API and background workers in one process (the default for npm start)
  api                   HTTP API only
  worker                background workers only (watch polling, webhook delivery)
  migrate               apply database migrations and exit
  devnet                run the simulated upstreams alone and print their URLs and test wallets
  devnet wallets [--json]            list the devnet's ready-made wallets
  devnet send monero <address> <XMR> send devnet coins to an address  [--devnet URL]
  pay <METHOD> <URL> [json]          call a paid route, paying with a devnet key or VIGIL_PAYER_KEY
  zcash derive-ufvk [--account N] [--network mainnet|testnet|regtest]   phrase on stdin
  monero scan-tx                     {"hex","address","viewKey"} on stdin

Settings come from environment variables: see docs/configuration.md.`;

type Io = { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
const io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

function config(): Config {
  try {
    return loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}

function onShutdown(fn: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal} received, shutting down…\n`);
    // Backstop: never hang on shutdown.
    setTimeout(() => process.exit(1), 15_000).unref();
    fn().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`shutdown error: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

async function run(role: "serve" | "api" | "worker"): Promise<void> {
  const cfg = config();
  const log = createLogger(cfg.LOG_LEVEL);
  const { startDevnet } = cfg.devnet ? await import("./devnet/index.js") : { startDevnet: undefined };
  const devnet = startDevnet ? await startDevnet({ dataDir: cfg.dataDir, blockSeconds: cfg.DEVNET_BLOCK_SECONDS, log }) : undefined;
  const { createApp } = await import("./app.js");
  const { startWorkers } = await import("./workers.js");
  const app = await createApp(cfg, { devnet, log });
  const url = role === "worker" ? undefined : await app.listen();
  // Graceful order: stop claiming leases, finish the tick in flight, then close HTTP and storage.
  const workers = role === "api" ? undefined : startWorkers(app);
  const { startupBanner } = await import("./banner.js");
  process.stdout.write(startupBanner({ role, url, app, devnet }));
  onShutdown(async () => {
    await workers?.stop();
    await app.close();
    await devnet?.close();
  });
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case "serve":
    case "api":
    case "worker":
      await run(cmd);
      return -1; // keeps running
    case "migrate": {
      const cfg = config();
      const { openDatabase } = await import("./db/connection.js");
      const { migrateToLatest } = await import("./db/migrate.js");
      const db = await openDatabase({ databaseUrl: cfg.DATABASE_URL, schema: cfg.DATABASE_SCHEMA, dataDir: cfg.dataDir });
      const applied = await migrateToLatest(db.db);
      await db.close();
      io.stdout.write(applied.length ? `applied: ${applied.join(", ")}\n` : "database is up to date\n");
      return 0;
    }
    case "devnet": {
      const { runDevnetCli } = await import("./devnet/cli.js");
      return runDevnetCli(rest, io, () => config());
    }
    case "pay": {
      const { runPayCli } = await import("./x402/pay-cli.js");
      return runPayCli(rest, io, process.env);
    }
    case "zcash": {
      const { runZcashCli } = await import("./chains/zcash/cli.js");
      return runZcashCli(rest, io);
    }
    case "monero": {
      const { runMoneroCli } = await import("./chains/monero/scan-tx-cli.js");
      return runMoneroCli(rest, io);
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(`${USAGE}\n`);
      return cmd === undefined ? 2 : 0;
    default:
      io.stderr.write(`unknown command "${cmd}"\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // One-shot commands exit once their output is flushed; servers keep running.
    if (code >= 0) process.stdout.write("", () => process.exit(code));
  },
  (e) => {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
