/**
 * vigil serve | api | worker | migrate | devnet | pay | zcash | monero
 * The only place that reads process.env (through loadConfig), and the only
 * production module that starts the devnet: in devnet mode it runs the
 * simulated upstreams and lays their settings over the config before the
 * app is built, so the app itself never knows it runs on a devnet.
 */
import os from "node:os";
import path from "node:path";
import { loadConfig, ConfigError, type Config } from "./config.js";
import { prepareConfig, StartupError, type Prepared } from "./startup.js";
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
  payments channels [--json]         x402 payment channels: deposited, charged, claimed, settled, unclaimed, refunded
  zcash derive-ufvk [--account N] [--network mainnet|testnet|regtest]   phrase on stdin
  zcash scan-tx                      {"hex","ufvk","height"?} on stdin
  monero scan-tx                     {"hex","address","viewKey"} on stdin
  monero carrot-scan                 {"address","viewKey","input_context","pid_enc","outputs"} on stdin (one Carrot output set)

Settings come from environment variables: see docs/configuration.md.`;

type Io = { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
const io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/** The parsed settings; `overrides` win over the environment (the devnet helpers force DEVNET=on). */
function config(overrides: Record<string, string> = {}): Config {
  try {
    return loadConfig({ ...process.env, ...overrides });
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

/**
 * VIGIL_PAYER_KEY pays on any network; without it, the first funded devnet account pays on the devnet's.
 * Payment channels (batch-settlement) need an RPC of the payment network to read them: VIGIL_PAYER_RPC_URL, or the
 * running devnet's chain for the devnet payer. They are kept under VIGIL_PAYER_STATE_DIR (default: the user's state
 * folder, $XDG_STATE_HOME or ~/.local/state, /vigil/payer).
 */
async function payerKey(configured: string | undefined, env: NodeJS.ProcessEnv): Promise<PayCliPayer> {
  const stateDir = env.VIGIL_PAYER_STATE_DIR ?? path.join(env.XDG_STATE_HOME ?? path.join(os.homedir(), ".local", "state"), "vigil", "payer");
  if (configured) {
    const privateKey = (configured.startsWith("0x") ? configured : `0x${configured}`) as `0x${string}`;
    return { privateKey, ...(env.VIGIL_PAYER_RPC_URL ? { channels: { stateDir, rpcUrl: env.VIGIL_PAYER_RPC_URL } } : {}) };
  }
  const { devnetPayerKey } = await import("../devnet/index.js");
  const { DEVNET_NETWORK } = await import("../devnet/evm.js");
  const { runningEvmUrl } = await import("../devnet/cli.js");
  const rpcUrl = env.VIGIL_PAYER_RPC_URL ?? runningEvmUrl(config({ DEVNET: "on" }));
  return { privateKey: devnetPayerKey(0), networks: [DEVNET_NETWORK], ...(rpcUrl ? { channels: { stateDir, rpcUrl } } : {}) };
}

/** The config the app is built with (src/startup.ts); a refusal is printed and exits 2. */
async function prepare(parsed: Config, role: string, o: Parameters<typeof prepareConfig>[1]): Promise<Prepared> {
  try {
    return await prepareConfig(parsed, o);
  } catch (e) {
    if (!(e instanceof StartupError)) throw e;
    const joinHint =
      o.devnet === "join"
        ? "\nStart one first in another terminal: npx vigil devnet\n(or run the API and the workers in one process with its own devnet: npx vigil serve)"
        : "";
    process.stderr.write(`vigil ${role}: ${e.message}${joinHint}\n`);
    process.exit(2);
  }
}

async function run(role: "serve" | "api" | "worker"): Promise<void> {
  const parsed = config();
  const log = createLogger(parsed.LOG_LEVEL);
  // Devnet mode: `serve` runs its own simulated chains (and records them for the helpers when no other
  // devnet is running); `api` and `worker` join the running `vigil devnet`, as they would join real upstreams.
  const { config: cfg, devnet, joined, stateFile, notes } = await prepare(parsed, role, {
    devnet: role === "serve" ? "start" : "join",
    log: quietAtInfo(log, parsed.LOG_LEVEL),
    publish: true,
  });
  const { createApp } = await import("./app.js");
  const { startWorkers } = await import("./workers.js");
  const app = await createApp(cfg, { log });
  const url = role === "worker" ? undefined : await app.listen();
  if (role === "worker") await app.listenMetrics();
  // Graceful order: stop claiming leases, finish the tick in flight, then close HTTP and storage.
  const workers = role === "api" ? undefined : startWorkers(app);
  const { startupBanner } = await import("./banner.js");
  process.stdout.write(
    startupBanner({ role, url, app, notes, devnetPayers: devnet?.payers.length ?? joined?.payers, ...(joined ? { devnetJoined: `the running devnet (pid ${joined.pid}, ${stateFile})` } : {}) }),
  );
  onShutdown(async () => {
    await workers?.stop();
    await app.close();
    await devnet?.close();
  });
}

/**
 * The address of a Vigil service already running with these settings (its `/`
 * answers `"service": "vigil"` within a moment), or undefined.
 */
async function runningService(cfg: Config): Promise<string | undefined> {
  const base = (cfg.PUBLIC_URL ?? `http://${cfg.HOST.includes(":") ? `[${cfg.HOST}]` : cfg.HOST}:${cfg.PORT}`).replace(/\/$/, "");
  if (cfg.PORT === 0 && !cfg.PUBLIC_URL) return undefined;
  try {
    const r = await fetch(`${base}/`, { signal: AbortSignal.timeout(1_000) });
    const body = (await r.json()) as { service?: unknown };
    return body.service === "vigil" ? base : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `vigil mcp`: stdout carries MCP messages only, so every log line goes to stderr.
 * It relays to the service given by --url, else to the one running with these
 * settings (npm start), else serves in-process: joining the running devnet when
 * there is one, else starting its own. In-process, `initialize` is answered at
 * once and tool calls wait for the app.
 */
async function runMcpStdio(args: string[]): Promise<void> {
  const urlAt = args.indexOf("--url");
  const given = urlAt >= 0 ? args[urlAt + 1] : undefined;
  if (urlAt >= 0 && !given) throw new Error("--url needs the API's URL");
  const parsed = given ? undefined : config();
  const pino = (await import("pino")).default;
  const log = createLogger(parsed?.LOG_LEVEL ?? process.env.LOG_LEVEL ?? "warn", pino.destination(2));
  const { proxyMcpStdio, serveMcpStdio } = await import("./mcp/stdio.js");
  const url = given ?? (await runningService(parsed!));
  if (url) {
    if (!given) log.info({ url }, "MCP on stdio: relaying to the running service");
    const relay = await proxyMcpStdio(url, log);
    await relay.closed;
    process.exit(0);
  }
  const cfg0 = parsed!;
  const { VERSION } = await import("./version.js");
  const joinable = cfg0.devnet && (await import("../devnet/index.js")).readPublishedDevnet((await import("../devnet/index.js")).devnetStateFile(cfg0));
  if (joinable) log.info({ pid: joinable.pid }, "MCP on stdio: serving in-process on the running devnet");
  let stopping: (() => Promise<void>) | undefined;
  // The service starts once the client has its `initialize` answer: loading the app is seconds of
  // work on this one thread, and an agent waiting on the handshake must not wait for it. A client that
  // never initializes still gets the service started a second later.
  let begin!: () => void;
  const initialized = new Promise<void>((resolve) => (begin = resolve));
  const beginAnyway = setTimeout(() => begin(), 1_000);
  const started = (async () => {
    await initialized;
    clearTimeout(beginAnyway);
    const prepared = await prepare(cfg0, "mcp", { devnet: joinable ? "join" : "start", log });
    const { createApp } = await import("./app.js");
    const { startWorkers } = await import("./workers.js");
    const app = await createApp(prepared.config, { log });
    const workers = startWorkers(app);
    stopping = async () => {
      await workers.stop();
      await app.close();
      await prepared.devnet?.close();
    };
    return app.mcp;
  })();
  started.catch((e: unknown) => {
    log.error({ err: (e as Error).message }, "vigil mcp: the service could not start");
    process.exit(1);
  });
  const shutdown = async () => {
    await started.catch(() => undefined);
    await stopping?.();
  };
  onShutdown(shutdown);
  const stdio = await serveMcpStdio(started, VERSION, log, { onInitialized: begin });
  await stdio.closed;
  await shutdown();
  process.exit(0);
}

/** `vigil payments channels`: the x402 payment channels in the configured store (x402/channel-listing.ts). */
async function paymentChannels(cfg: Config, json: boolean, io: { stdout: NodeJS.WritableStream }): Promise<number> {
  const { openDatabase } = await import("./db/connection.js");
  const { migrateToLatest } = await import("./db/migrate.js");
  const { channelsReport } = await import("./x402/channel-listing.js");
  const db = await openDatabase({ databaseUrl: cfg.DATABASE_URL, schema: cfg.DATABASE_SCHEMA, dataDir: cfg.dataDir });
  try {
    await migrateToLatest(db.db);
    io.stdout.write(await channelsReport(db.db, Date.now(), json));
  } finally {
    await db.close();
  }
  return 0;
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
      if (rest[0] !== "pending" && rest[0] !== "channels") {
        io.stderr.write("usage: vigil payments pending [--json]\n       vigil payments channels [--json]\n");
        return 2;
      }
      if (rest[0] === "channels") return paymentChannels(config(), rest.includes("--json"), io);
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
      const { runDevnetCli } = await import("../devnet/cli.js");
      // The devnet's own commands need no payment settings: PAY_TO and friends in the
      // environment (for a production API beside it) must not stop `devnet wallets`.
      return runDevnetCli(rest, io, () => config({ DEVNET: "on" }));
    }
    case "pay": {
      const { runPayCli } = await import("./x402/pay-cli.js");
      return runPayCli(rest, io, await payerKey(process.env.VIGIL_PAYER_KEY, process.env));
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
