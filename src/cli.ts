/**
 * vigil serve | api | worker | migrate | devnet | pay | zcash | monero
 * The only place that reads process.env (through loadConfig), and the only
 * production module that starts the devnet: in devnet mode it runs the
 * simulated upstreams and lays their settings over the config before the
 * app is built, so the app itself never knows it runs on a devnet.
 */
import { applyConfigOverlay, loadConfig, ConfigError, type Config } from "./config.js";
import { createLogger } from "./core/logger.js";
import type { PayCliPayer } from "./x402/pay-cli.js";

const USAGE = `Usage: vigil <command> [options]

  serve                 API and background workers in one process (the default for npm start)
  api                   HTTP API only
  worker                background workers only (watch polling, webhook delivery)
  migrate               apply database migrations and exit
  doctor [--json]       check the configuration, database and every upstream before going live
  mcp [--url URL]       MCP server on stdin/stdout: in-process (with background workers),
                        or relaying to the running API at URL (its /mcp)
  devnet                run the simulated upstreams alone (api and worker in devnet mode join it)
                        and print their URLs and test wallets
  devnet wallets [--json]            list the devnet's ready-made wallets  [--devnet URL]
  devnet send monero <address> <XMR> send devnet coins to an address  [--devnet URL]
  devnet mine [blocks]               mine blocks on the devnet's monerod  [--devnet URL]
  devnet send zcash <address> <ZEC> [--memo text]   send devnet ZEC (real note ciphertexts)
  devnet mine zcash [blocks]         mine blocks on the devnet's Zcash chain
  devnet reorg zcash <depth> [--drop txid,…]        replace the last blocks of the Zcash chain
  devnet spend zcash <wallet> <txid> [--pool p]     spend a devnet wallet's note (its nullifier on chain)
  pay <METHOD> <URL> [json]          call a paid route, paying with a devnet key or VIGIL_PAYER_KEY
  payments pending [--json]          x402 payments that need attention (pending, or settled without their work)
  zcash derive-ufvk [--account N] [--network mainnet|testnet|regtest]   phrase on stdin
  zcash scan-tx                      {"hex","ufvk","height"?} on stdin
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

/**
 * The devnet's own log at the default level: warnings only, so no JSON line comes before the
 * banner (which shows the same URLs). LOG_LEVEL=debug or trace shows everything.
 */
function quietAtInfo<L extends { child(bindings: object, options: { level: string }): L }>(log: L, level: string): L {
  return level === "info" ? log.child({}, { level: "warn" }) : log;
}

/** VIGIL_PAYER_KEY pays on any network; without it, the first funded devnet account pays on the devnet's. */
async function payerKey(configured: string | undefined): Promise<PayCliPayer> {
  if (configured) return { privateKey: (configured.startsWith("0x") ? configured : `0x${configured}`) as `0x${string}` };
  const { devnetPayerKey } = await import("./devnet/index.js");
  const { DEVNET_NETWORK } = await import("./devnet/evm.js");
  return { privateKey: devnetPayerKey(0), networks: [DEVNET_NETWORK] };
}

async function run(role: "serve" | "api" | "worker"): Promise<void> {
  const parsed = config();
  const log = createLogger(parsed.LOG_LEVEL);
  // Devnet mode: `serve` runs its own simulated chains (and records them for the helpers when no other
  // devnet is running); `api` and `worker` join the running `vigil devnet`, as they would join real upstreams.
  const dn = parsed.devnet ? await import("./devnet/index.js") : undefined;
  const stateFile = dn?.devnetStateFile(parsed);
  const devnet =
    dn && role === "serve"
      ? await dn.startDevnet({ dataDir: parsed.dataDir, blockSeconds: parsed.DEVNET_BLOCK_SECONDS, log: quietAtInfo(log, parsed.LOG_LEVEL), ethRpcUrl: parsed.ETH_RPC_URL, zebradUrl: parsed.ZEBRAD_URL, lightwalletdUrl: parsed.LIGHTWALLETD_URL, zcashNetwork: parsed.ZCASH_NETWORK, relayUrls: parsed.RELAY_URLS, builderPubkeys: parsed.BUILDER_PUBKEYS, publishTo: stateFile })
      : undefined;
  const joined = dn && role !== "serve" ? dn.readPublishedDevnet(stateFile!) : undefined;
  if (dn && role !== "serve" && !joined) {
    process.stderr.write(
      `vigil ${role}: devnet mode, but no running devnet was found (${stateFile}).\n` +
        "Start one first in another terminal: npx vigil devnet\n" +
        "(or run the API and the workers in one process with its own devnet: npx vigil serve)\n",
    );
    process.exit(2);
  }
  const overlay = devnet?.configOverlay ?? joined?.configOverlay;
  const cfg = overlay ? applyConfigOverlay(parsed, overlay) : parsed;
  const { createApp } = await import("./app.js");
  const { startWorkers } = await import("./workers.js");
  const app = await createApp(cfg, { log });
  const url = role === "worker" ? undefined : await app.listen();
  if (role === "worker") await app.listenMetrics();
  // Graceful order: stop claiming leases, finish the tick in flight, then close HTTP and storage.
  const workers = role === "api" ? undefined : startWorkers(app);
  const { startupBanner } = await import("./banner.js");
  process.stdout.write(
    startupBanner({ role, url, app, devnetPayers: devnet?.payers.length ?? joined?.payers, ...(joined ? { devnetJoined: `the running devnet (pid ${joined.pid}, ${stateFile})` } : {}) }),
  );
  onShutdown(async () => {
    await workers?.stop();
    await app.close();
    await devnet?.close();
  });
}

/** `vigil mcp`: stdout carries MCP messages only, so every log line goes to stderr. */
async function runMcpStdio(args: string[]): Promise<void> {
  const urlAt = args.indexOf("--url");
  const url = urlAt >= 0 ? args[urlAt + 1] : undefined;
  if (urlAt >= 0 && !url) throw new Error("--url needs the API's URL");
  const parsed = url ? undefined : config();
  const pino = (await import("pino")).default;
  const log = createLogger(parsed?.LOG_LEVEL ?? process.env.LOG_LEVEL ?? "warn", pino.destination(2));
  const { proxyMcpStdio, serveMcpStdio } = await import("./mcp/stdio.js");
  if (url) {
    const relay = await proxyMcpStdio(url, log);
    await relay.closed;
    process.exit(0);
  }
  const cfg0 = parsed!;
  const { startDevnet } = cfg0.devnet ? await import("./devnet/index.js") : { startDevnet: undefined };
  const devnet = startDevnet ? await startDevnet({ dataDir: cfg0.dataDir, blockSeconds: cfg0.DEVNET_BLOCK_SECONDS, log }) : undefined;
  const cfg = devnet ? applyConfigOverlay(cfg0, devnet.configOverlay) : cfg0;
  const { createApp } = await import("./app.js");
  const { startWorkers } = await import("./workers.js");
  const app = await createApp(cfg, { log });
  const workers = startWorkers(app);
  const shutdown = async () => {
    await workers.stop();
    await app.close();
    await devnet?.close();
  };
  onShutdown(shutdown);
  const stdio = await serveMcpStdio(app.mcp, log);
  await stdio.closed;
  await shutdown();
  process.exit(0);
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case "serve":
    case "api":
    case "worker":
      await run(cmd);
      return -1; // keeps running
    case "mcp":
      await runMcpStdio(rest);
      return -1; // runs until stdin closes
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
    case "doctor": {
      const { runDoctorCli } = await import("./doctor/index.js");
      return runDoctorCli(rest, io, config);
    }
    case "payments": {
      if (rest[0] !== "pending") {
        io.stderr.write("usage: vigil payments pending [--json]\n");
        return 2;
      }
      const cfg = config();
      const { openDatabase } = await import("./db/connection.js");
      const { migrateToLatest } = await import("./db/migrate.js");
      const { openPayments } = await import("./x402/reconcile.js");
      const db = await openDatabase({ databaseUrl: cfg.DATABASE_URL, schema: cfg.DATABASE_SCHEMA, dataDir: cfg.dataDir });
      try {
        await migrateToLatest(db.db);
        const open = await openPayments(db.db);
        if (rest.includes("--json")) io.stdout.write(`${JSON.stringify(open)}\n`);
        else if (!open.length) io.stdout.write("no payment needs attention\n");
        else for (const p of open) io.stdout.write(`${p.state}\t${p.id}\t${p.created_at}\t${p.route}\t${p.payer}\t${p.amount_atomic}\t${p.tx_hash ?? "-"}\t${p.error ?? ""}\n`);
      } finally {
        await db.close();
      }
      return 0;
    }
    case "devnet": {
      const { runDevnetCli } = await import("./devnet/cli.js");
      return runDevnetCli(rest, io, () => config());
    }
    case "pay": {
      const { runPayCli } = await import("./x402/pay-cli.js");
      return runPayCli(rest, io, await payerKey(process.env.VIGIL_PAYER_KEY));
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
