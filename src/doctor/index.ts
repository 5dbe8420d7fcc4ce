/**
 * `vigil doctor`: what an operator runs before going live. It reads the
 * configuration the service would read and checks, one line each:
 *
 *   devnet        not in devnet mode
 *   database      reachable, every migration applied (read only)
 *   master-key    MASTER_KEY set and opening a sealed value already stored
 *   monerod       network, sync, every RPC method Vigil calls served
 *   zebrad        network, sync, the RPC methods the facts read
 *   lightwalletd  network, Ironwood-capable, latest block
 *   ethereum [n]  each ETH_RPC_URL: chain 1, synced, fresh head
 *   relay:<name>  each RELAY_URLS data API answers
 *   private-builders  PRIVATE_RELAY_BUILDERS parses (not called)
 *   facilitator   /supported lists exact on X402_NETWORK (http, cdp); node and gas key (local)
 *   evm-rpc       EVM_RPC_URL beside an http/cdp facilitator: chain and sync
 *   batch-settlement  the receiver-authorizer key; the escrow and its deposit collector on the payment chain
 *   pay-to        PAY_TO set
 *   webhooks      development switches off outside the devnet
 *   metrics       /metrics not open to the world
 *
 * Every check runs at once, each under its own deadline, so one hung
 * upstream costs one line, not the run. Exit code 0 only when every check
 * passes (warnings pass). Every line is scrubbed of the configured secrets
 * and of URL credentials before it is printed.
 */
import type { Config } from "../config.js";
import { sleep } from "../core/sleep.js";
import { openDatabase, type DatabaseHandle } from "../db/connection.js";
import { notConfigured, runWithDeadline, type CheckContext, type CheckResult } from "./check.js";
import { checkDatabase, checkMasterKey } from "./database.js";
import { checkMonerod } from "./monerod.js";
import { checkLightwalletd, checkZebrad } from "./zcash.js";
import { checkEthereumNode, checkPrivateBuilders, checkRelay, ethereumCheckNames, relayEndpoints } from "./ethereum.js";
import { checkEvmNode, checkFacilitator, checkPayTo, evmRpcCheckNeeded } from "./payments.js";
import { checkBatchSettlement } from "./channels.js";
import { checkDevnet, checkMetrics, checkWebhookSwitches } from "./settings.js";

export type { CheckResult } from "./check.js";

export interface DoctorReport {
  ok: boolean;
  devnet: boolean;
  checks: CheckResult[];
}

export interface DoctorOptions {
  /** Deadline of each check, ms (default 5000). */
  timeoutMs?: number;
  /** Opens the store (default openDatabase on the config's settings). */
  openDb?: (config: Config) => Promise<DatabaseHandle>;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

interface Probe {
  name: string;
  /** Said when the probe times out or throws. */
  fix: string;
  run: (ctx: CheckContext) => Promise<CheckResult> | CheckResult;
}

const defaultOpenDb = (c: Config) => openDatabase({ databaseUrl: c.DATABASE_URL, schema: c.DATABASE_SCHEMA, dataDir: c.dataDir, poolSize: 2 });

/** The probes this configuration calls for, in output order. */
function probes(config: Config, db: () => Promise<DatabaseHandle>): Probe[] {
  const reachable = "check that the upstream is up and reachable from this host";
  const list: Probe[] = [
    { name: "devnet", fix: "", run: checkDevnet },
    { name: "database", fix: "check DATABASE_URL and that the database server is up", run: (ctx) => checkDatabase(ctx, db()) },
    { name: "master-key", fix: "check the database and MASTER_KEY", run: (ctx) => checkMasterKey(ctx, db()) },
    { name: "monerod", fix: reachable, run: checkMonerod },
    { name: "zebrad", fix: reachable, run: checkZebrad },
    { name: "lightwalletd", fix: reachable, run: checkLightwalletd },
  ];
  const eth = ethereumCheckNames(config);
  if (eth.length === 0) list.push({ name: "ethereum", fix: "", run: () => notConfigured("ethereum", "ETH_RPC_URL", "the Ethereum fee, lending and counter-MEV questions answer 503 chain_not_configured") });
  for (const { name, url } of eth) list.push({ name, fix: reachable, run: (ctx) => checkEthereumNode(ctx, name, url) });
  let relays: ReturnType<typeof relayEndpoints> = [];
  try {
    relays = relayEndpoints(config);
  } catch (e) {
    list.push({ name: "relays", fix: "", run: () => ({ name: "relays", ok: false, detail: (e as Error).message, fix: "fix RELAY_URLS (url or name=url, comma-separated)" }) });
  }
  if (relays.length === 0 && !config.RELAY_URLS) list.push({ name: "relays", fix: "", run: () => notConfigured("relays", "RELAY_URLS", "the builder questions and feeds answer 503 relays_not_configured") });
  for (const r of relays) list.push({ name: r.id, fix: reachable, run: (ctx) => checkRelay(ctx, r) });
  list.push(
    { name: "private-builders", fix: "", run: checkPrivateBuilders },
    { name: "facilitator", fix: "check the facilitator's URL and that it is up", run: checkFacilitator },
  );
  if (evmRpcCheckNeeded(config)) list.push({ name: "evm-rpc", fix: reachable, run: (ctx) => checkEvmNode(ctx, "evm-rpc") });
  list.push({ name: "batch-settlement", fix: reachable, run: checkBatchSettlement });
  list.push({ name: "pay-to", fix: "", run: checkPayTo }, { name: "webhooks", fix: "", run: checkWebhookSwitches }, { name: "metrics", fix: "", run: checkMetrics });
  return list;
}

/** Runs every check concurrently and returns them in order. Never throws for a failing upstream. */
export async function runDoctor(config: Config, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const open = opts.openDb ?? defaultOpenDb;
  let opened: Promise<DatabaseHandle> | undefined;
  const db = () => (opened ??= open(config));
  try {
    const checks = await Promise.all(
      probes(config, db).map((p) => runWithDeadline(p.name, timeoutMs, p.fix || "see docs/operations.md", async (signal) => p.run({ config, signal, timeoutMs }))),
    );
    const scrub = secretScrubber(config);
    const clean = checks.map((c) => ({ ...c, detail: scrub(c.detail), ...(c.fix ? { fix: scrub(c.fix) } : {}) }));
    return { ok: clean.every((c) => c.ok), devnet: config.devnet, checks: clean };
  } finally {
    // An opened store is closed before returning (PGlite allows one opener); a hung open is abandoned.
    if (opened) {
      const closed = new AbortController();
      const giveUp = sleep(timeoutMs, closed.signal).catch(() => undefined);
      await Promise.race([opened.then((h) => h.close(), () => undefined), giveUp]).catch(() => undefined);
      closed.abort();
    }
  }
}

/**
 * Removes what must never be printed: the configured secrets, and the
 * credentials, paths and queries of configured URLs (API keys live there),
 * plus any user:pass@ left in a URL of an upstream's message.
 */
export function secretScrubber(config: Config): (text: string) => string {
  const secrets = new Set<string>();
  const add = (v: string | undefined) => {
    if (v && v.length >= 6) secrets.add(v);
  };
  for (const key of ["MASTER_KEY", "CDP_API_KEY_SECRET", "CDP_API_KEY_ID", "FACILITATOR_PRIVATE_KEY", "METRICS_TOKEN", "PRIVATE_RELAY_SIGNING_KEY", "BATCH_RECEIVER_AUTHORIZER_KEY", "COIN_XMR_VIEW_KEY", "COIN_ZEC_VIEW_KEY"] as const) {
    const v = config[key];
    add(v);
    if (v?.startsWith("0x")) add(v.slice(2));
  }
  for (const t of (config.RATE_LIMIT_ALLOW_TOKENS ?? "").split(",")) add(t.trim());
  const urls = [config.DATABASE_URL, config.MONERO_DAEMON_URL, config.ZEBRAD_URL, config.LIGHTWALLETD_URL, config.EVM_RPC_URL, config.FACILITATOR_URL, ...(config.ETH_RPC_URL ?? "").split(","), ...(config.RELAY_URLS ?? "").split(","), ...(config.PRIVATE_RELAY_BUILDERS ?? "").split(",")];
  for (const raw of urls) {
    const at = raw?.indexOf("http") ?? -1;
    if (!raw || at < 0) continue;
    try {
      const u = new URL(raw.slice(at).trim());
      add(decodeURIComponent(u.username));
      add(decodeURIComponent(u.password));
      add(u.username);
      add(u.password);
      if (u.pathname.length > 1) add(u.pathname);
      add(u.search);
    } catch {
      // not a URL: nothing of it to hide beyond the literal secrets
    }
  }
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1");
    for (const s of ordered) out = out.split(s).join("[redacted]");
    return out;
  };
}

/** One line per check: `PASS database  reachable, …`, then ` — fix: …` for failures and warnings. */
export function formatReport(report: DoctorReport): string {
  const head = report.devnet
    ? "vigil doctor: checking the devnet configuration (the devnet is not production; no running devnet is joined)\n"
    : "vigil doctor: checking the configuration\n";
  const lines = report.checks.map((c) => {
    const label = !c.ok ? "FAIL" : c.warn ? "WARN" : "PASS";
    return `${label} ${c.name}  ${c.detail}${c.fix && (!c.ok || c.warn) ? ` — fix: ${c.fix}` : ""}`;
  });
  const failed = report.checks.filter((c) => !c.ok).length;
  const warned = report.checks.filter((c) => c.ok && c.warn).length;
  const tail = failed === 0 ? `all ${report.checks.length} checks passed${warned ? ` (${warned} with a warning)` : ""}: ready to go live` : `${failed} of ${report.checks.length} checks failed${warned ? `, ${warned} warned` : ""}: not ready to go live`;
  return `${head}${lines.join("\n")}\n${tail}\n`;
}

const USAGE = "usage: vigil doctor [--json] [--timeout SECONDS]\n";

/** The CLI: exit 0 when every check passes, 1 when one fails, 2 on bad usage. */
export async function runDoctorCli(args: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }, loadConfig: () => Config): Promise<number> {
  let json = false;
  let timeoutMs = DEFAULT_CHECK_TIMEOUT_MS;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--json") json = true;
    else if (a === "--timeout" && /^\d+(\.\d+)?$/.test(args[i + 1] ?? "") && Number(args[i + 1]) > 0) timeoutMs = Number(args[++i]) * 1000;
    else {
      io.stderr.write(USAGE);
      return 2;
    }
  }
  const report = await runDoctor(loadConfig(), { timeoutMs });
  io.stdout.write(json ? `${JSON.stringify(report)}\n` : formatReport(report));
  return report.ok ? 0 : 1;
}
