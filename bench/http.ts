/**
 * npm run bench:http — requests per second and latency of the HTTP API under
 * concurrent load from a second process on loopback.
 *
 *  1. The service runs as the real CLI (`vigil api`, devnet on, PGlite in a
 *     temp DATA_DIR, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE high enough never
 *     to refuse: the limiter still runs on every request).
 *  2. bench/load.ts, in its own process, drives it with an undici Pool
 *     (N connections, pipelining 1):
 *       - a bare node:http server with a fixed JSON body (the ceiling of this
 *         machine and this load generator), then the bytes of the service's
 *         own free answers from bare node:http and from Hono on
 *         @hono/node-server with one middleware (the framework alone),
 *       - free routes: GET /v1/paywall and GET /v1/q (answers built from
 *         in-memory state; on the production shape the service answers them
 *         in front of Hono, src/http/standing-answers.ts, as its limiter
 *         then holds points), GET /v1/q/ ("framework": the same answer
 *         through Hono, which a trailing slash is left to), GET /v1/health
 *         (not cached: a DB round trip and a monerod call each time),
 *       - GET /v1/q/xmr/height without payment (the 402 answer),
 *       - the same route paid ($0.001): a fresh pre-signed EIP-3009
 *         authorisation per request; verify, handler in a transaction and
 *         settlement on the devnet chain (in the `vigil devnet` process).
 *         FACILITATOR=local (default): the local facilitator verifies and
 *         signs in the service process; FACILITATOR=http: the service calls
 *         the devnet's facilitator over loopback HTTP, as it calls a hosted
 *         facilitator in production, so the service CPU per paid call leaves
 *         the facilitator's work out.
 *  3. In this process: the pure signature check (viem recoverTypedDataAddress
 *     / verifyTypedData per second), per-request pieces of the router
 *     (limiter, logger child, request id), and a paid-call breakdown: the
 *     same app built in-process with the facilitator client wrapped in timers
 *     (verify / handler / settle / the rest = paywall DB statements), RPC
 *     calls counted by method.
 *
 * Env: SECONDS (10 per scenario), WARMUP (2, discarded), CONNECTIONS (32),
 * PAID_CONNECTIONS (16), PAID_REQUESTS (3000, upper bound; the paid run also
 * stops at SECONDS), VOUCHER_REQUESTS (30000, upper bound: the voucher
 * scenario's pre-signed vouchers, spread over PAID_CONNECTIONS channels),
 * ONLY (comma list of scenario names: baseline, paywall, catalogue,
 * framework, health, 402, paid, voucher, gas, inproc), PROFILE=1 (service
 * runs under --cpu-prof; top self-time functions are printed), SKIP_INPROC=1,
 * FACILITATOR (local | http, the service's facilitator; the in-process
 * breakdown always times the local one), SHAPE (devnet | production:
 * `node bin/vigil.mjs api` from the bundle with DEVNET=off, PostgreSQL at
 * DATABASE_URL in a schema of its own, dropped at the end, every upstream
 * given as the devnet's URLs, and `vigil devnet` from the bundle too, as the
 * binary runs it; the devnet shape runs both from the sources under tsx),
 * PROFILE_DEVNET=<dir> (the devnet under --cpu-prof), PERF_MAP_DEVNET=1 (the
 * devnet writes /tmp/perf-<pid>.map for `perf record`), IDLE_SECONDS (3: the service's CPU while no
 * request runs, measured before each of its scenarios and taken off that
 * scenario's CPU per request, so the background jobs are not counted as the
 * requests' work), LOAD_CLIENT (raw | undici: how the load process sends
 * unpaid GETs; raw, the default, costs it about 40 % less CPU than undici, so
 * the load less often limits the server), CHAIN (devnet | anvil: with
 * SHAPE=production, paid calls settle on Foundry's anvil with Circle's real
 * USDC bytecode instead of the devnet's simulated chain; with
 * FACILITATOR=http the facilitator runs in a process of its own,
 * bench/facilitator.ts; RPC_RTT_MS adds a round trip to every call to the
 * node through a loopback proxy, as a hosted node's), GAS_KEYS (1: how many
 * gas keys the local facilitator settles with, FACILITATOR_PRIVATE_KEY as a
 * comma list; production shape), ROUNDS (1: the same-bytes ceilings
 * and the unpaid scenarios run that many times in turn, the paid one once
 * after them; a summary gives each one's median and range, and the service's
 * share of bare node's requests per second), PAID_FIRST=1 (the paid scenario
 * runs first, so the free ones are measured on a service that has settled
 * payments, as one in production has).
 * Each row also prints "other CPU": the cores the machine spent on anything
 * but the server, the load, the devnet and this process during the run
 * (PostgreSQL, and whatever else ran); a run with much of it was not quiet.
 * Nothing here is a test: figures are printed, nothing is asserted.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { bytesToHex, recoverTypedDataAddress, verifyTypedData, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { LoadResult, LoadSpec } from "./load.js";
import { authorizationTypes } from "@x402/evm";
import pg from "pg";
import { productionEnvFromDevnet } from "./support.js";
import { DEVNET_MNEMONIC } from "../devnet/evm-network.js";

const root = path.resolve(import.meta.dirname, "..");
const VIGIL = path.join(root, "bin", "vigil.mjs");
const SECONDS = Number(process.env.SECONDS ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 2);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
/** How the load process sends unpaid GETs: "raw" sockets (default) or an undici Pool (the client of runs before 2026-11-29). */
const LOAD_CLIENT = (process.env.LOAD_CLIENT ?? "raw") as "raw" | "undici";
if (!["raw", "undici"].includes(LOAD_CLIENT)) {
  process.stderr.write(`bench:http: LOAD_CLIENT must be raw or undici, not ${LOAD_CLIENT}\n`);
  process.exit(2);
}
const PAID_CONNECTIONS = Number(process.env.PAID_CONNECTIONS ?? 16);
const PAID_REQUESTS = Number(process.env.PAID_REQUESTS ?? 3000);
/** Vouchers pre-signed for the voucher scenario (upper bound; it also stops at SECONDS). */
const VOUCHER_REQUESTS = Number(process.env.VOUCHER_REQUESTS ?? 30_000);
const ONLY = process.env.ONLY ? new Set(process.env.ONLY.split(",")) : undefined;
const PROFILE = process.env.PROFILE === "1";
/** Where paid calls are verified and settled: "local" in the service process, "http" at the devnet's facilitator. */
const FACILITATOR = process.env.FACILITATOR ?? "local";
if (FACILITATOR !== "local" && FACILITATOR !== "http") {
  process.stderr.write(`bench:http: FACILITATOR must be local or http, not ${FACILITATOR}\n`);
  process.exit(2);
}
/** devnet: `vigil api` joins the devnet on PGlite (tsx); production: the bundle on PostgreSQL with every upstream by URL. */
const SHAPE = process.env.SHAPE ?? "devnet";
if (SHAPE !== "devnet" && SHAPE !== "production") {
  process.stderr.write(`bench:http: SHAPE must be devnet or production, not ${SHAPE}\n`);
  process.exit(2);
}
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 3);
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 1));
const PAID_FIRST = process.env.PAID_FIRST === "1";
/** Where paid calls settle: "devnet" (its simulated Base Sepolia) or "anvil" (Foundry's anvil with Circle's USDC; production shape only). */
const CHAIN = process.env.CHAIN ?? "devnet";
/** CHAIN=anvil: a round trip (ms) added to every call to the node, as a hosted node's. */
const RPC_RTT_MS = Number(process.env.RPC_RTT_MS ?? 0);
/** How many gas keys the local facilitator settles with (FACILITATOR_PRIVATE_KEY as a comma list); production shape only. */
const GAS_KEYS = Number(process.env.GAS_KEYS ?? 1);
if (!Number.isInteger(GAS_KEYS) || GAS_KEYS < 1 || GAS_KEYS > 16) {
  process.stderr.write(`bench:http: GAS_KEYS must be an integer from 1 to 16, not ${process.env.GAS_KEYS}\n`);
  process.exit(2);
}
/** Devnet keys at mnemonic indices 20 onwards (no payer, no devnet role), as extra gas keys. */
const devnetGasKeys = (n: number): Hex[] =>
  Array.from({ length: n }, (_, i) => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 20 + i }).getHdKey().privateKey!));
if (CHAIN !== "devnet" && CHAIN !== "anvil") {
  process.stderr.write(`bench:http: CHAIN must be devnet or anvil, not ${CHAIN}\n`);
  process.exit(2);
}
const HONO_ROW = "Hono + @hono/node-server, one middleware (request id, CORS), the bytes of GET /v1/q";
const PAYWALL_ROW = "GET /v1/paywall (free, in-memory)";
const CATALOGUE_ROW = "GET /v1/q (free, in-memory)";
const FRAMEWORK_ROW = "GET /v1/q/ (the same answer through Hono: a trailing slash is no standing answer)";
const PG_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MNEMONIC = "test test test test test test test test test test test junk";
const CLK_TCK = 100;

const want = (name: string) => !ONLY || ONLY.has(name);

/**
 * bench:channel-gas in a process of its own (it runs its own anvil and service): its table of gas per call, exact
 * against vouchers. Its markdown table is taken from what it prints.
 */
function channelGasTable(): string {
  const out = execFileSync(process.execPath, ["--import", "tsx", path.join(root, "bench", "channel-gas.ts")], { cwd: root, env: { ...process.env, DATABASE_URL: "" }, encoding: "utf8", maxBuffer: 16 << 20 });
  return out.split("\n").filter((l) => l.startsWith("|")).join("\n");
}
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const int = (x: number) => Math.round(x).toLocaleString("en-US");

// ---------------------------------------------------------------------------
// Child processes
// ---------------------------------------------------------------------------

interface Child {
  proc: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

function spawnAndWait(args: string[], env: Record<string, string>, waitFor: RegExp, timeoutMs = 90_000): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`child did not start in time:\n${out}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}:\n${out}`));
    };
    const check = () => {
      const m = waitFor.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.stdout!.off("data", check);
      proc.off("exit", onExit);
      resolve({
        proc,
        url: m[1]!,
        output: () => out,
        stop: () =>
          new Promise<void>((res) => {
            if (proc.exitCode !== null || proc.signalCode !== null) return res();
            const kill = setTimeout(() => proc.kill("SIGKILL"), 20_000);
            proc.once("exit", () => {
              clearTimeout(kill);
              res();
            });
            proc.kill("SIGTERM");
          }),
      });
    };
    proc.stdout!.on("data", check);
    proc.on("exit", onExit);
  });
}

/** CPU seconds the whole machine has been busy so far (every core; /proc/stat: all but idle and iowait). */
function machineBusySeconds(): number {
  const f = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / CLK_TCK;
}

/** CPU seconds a process has used so far, from /proc: user + system, and system alone (in the kernel on its behalf). */
function procCpu(pid: number): { total: number; sys: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const user = Number(fields[11]) / CLK_TCK;
    const sys = Number(fields[12]) / CLK_TCK;
    return { total: user + sys, sys };
  } catch {
    return { total: NaN, sys: NaN };
  }
}
const procCpuSeconds = (pid: number) => procCpu(pid).total;

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench", "load.ts"), JSON.stringify(spec)], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout!.on("data", (d) => (out += d));
    proc.stderr!.on("data", (d) => {
      err += d;
      process.stderr.write(d);
    });
    proc.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`load exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()!) as LoadResult);
      } catch (e) {
        reject(new Error(`load output unreadable: ${out} ${err} ${(e as Error).message}`));
      }
    });
  });
}

interface Row {
  name: string;
  /** The scenario, the same in every round (the name carries the round when ROUNDS > 1). */
  scenario: string;
  server: "vigil" | "baseline";
  result: LoadResult;
  serverCpu: number;
  /** Service CPU time per request (µs), over the whole load run. */
  cpuPerRequestUs: number;
  /** The service's CPU share while idle just before the run (background jobs), and the per-request figure with it taken off. */
  idleCpu?: number;
  netCpuPerRequestUs?: number;
  load1: number;
  /**
   * Cores busy with anything but the server, the load process, the devnet and this process, over
   * the run: PostgreSQL, and whatever else the machine was doing. A run with much of it was not quiet.
   */
  otherCores: number;
}

/** The `vigil devnet` process (the simulated chains and facilitator): its CPU per request is printed beside the service's. */
let devnetPid: number | undefined;
/** CHAIN=anvil: the anvil node and, with FACILITATOR=http, the facilitator's process; their CPU per request is printed too. */
const anvilSide: { name: string; pid: number }[] = [];
const anvilSideCpu = () => anvilSide.map((p) => procCpuSeconds(p.pid));

/** The service's CPU share (cores) over `seconds` with no request sent: its background work. */
async function idleCpuShare(pid: number, seconds: number): Promise<number> {
  const cpu0 = procCpuSeconds(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return (procCpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000);
}

async function measure(name: string, server: Child, spec: LoadSpec, kind: Row["server"] = "vigil", round?: number): Promise<Row> {
  process.stderr.write(`> ${name}: ${spec.kind} ${spec.path}, ${spec.connections} connections\n`);
  const pid = server.proc.pid!;
  const idle = kind === "vigil" && IDLE_SECONDS > 0 ? await idleCpuShare(pid, IDLE_SECONDS) : undefined;
  const { total: cpu0, sys: sys0 } = procCpu(pid);
  const dev0 = devnetPid ? procCpuSeconds(devnetPid) : NaN;
  const side0 = anvilSideCpu();
  const machine0 = machineBusySeconds();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await runLoad(spec);
  const machine = machineBusySeconds() - machine0;
  const self = process.cpuUsage(self0);
  const dev = devnetPid ? procCpuSeconds(devnetPid) - dev0 : NaN;
  const sides = anvilSideCpu().map((c, i) => c - side0[i]!);
  const side = sides.reduce((a, b) => a + b, 0);
  // Server CPU over the whole load process lifetime (includes warm-up, signing and the load process's start).
  const end = procCpu(pid);
  const cpu = end.total - cpu0;
  const sys = end.sys - sys0;
  const wall = (performance.now() - t0) / 1000;
  const span = result.seconds + (spec.warmupSeconds ?? 0) + (result.signSeconds ?? 0);
  const n = Math.max(result.totalRequests, 1);
  const known = cpu + (Number.isNaN(dev) ? 0 : dev) + side + result.loadCpuTotalSeconds + (self.user + self.system) / 1e6;
  const otherCores = Math.max(0, machine - known) / Math.max(wall, 1e-9);
  const row: Row = { name: round ? `${name} (round ${round})` : name, scenario: name, server: kind, result, serverCpu: cpu / Math.max(span, 1e-9), cpuPerRequestUs: (cpu * 1e6) / n, load1: os.loadavg()[0]!, otherCores };
  if (idle !== undefined) {
    row.idleCpu = idle;
    row.netCpuPerRequestUs = (Math.max(0, cpu - idle * wall) * 1e6) / n;
  }
  const net =
    (row.netCpuPerRequestUs === undefined ? "" : ` (idle ${Math.round(100 * idle!)}% of a core: ${int(row.netCpuPerRequestUs)} µs/req above it)`) +
    `, of which in the kernel ${int((sys * 1e6) / n)} µs/req; devnet process ${int((dev * 1e6) / n)} µs/req;${anvilSide.map((p, i) => ` ${p.name} ${int((sides[i]! * 1e6) / n)} µs/req;`).join("")} other work on the machine ${Math.round(100 * otherCores)}% of a core`;
  process.stderr.write(
    `  ${int(result.rps)} req/s  p50 ${f2(result.p50)} ms  p99 ${f2(result.p99)} ms  service CPU ${int(row.cpuPerRequestUs)} µs/req${net}  statuses ${JSON.stringify(result.statuses)}${result.errors ? `  errors ${result.errors} (${result.firstError})` : ""}\n`,
  );
  return row;
}

// ---------------------------------------------------------------------------
// In-process measurements
// ---------------------------------------------------------------------------

function opsPerSecond(fn: () => unknown, minMs = 1000): number {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

async function asyncOpsPerSecond(fn: () => Promise<unknown>, minMs = 1000): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}


interface SignedAuth {
  header: string;
  typed: {
    domain: { name: string; version: string; chainId: number; verifyingContract: Hex };
    types: typeof authorizationTypes;
    primaryType: "TransferWithAuthorization";
    message: { from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
  };
  signature: Hex;
  from: Hex;
}

async function signAuth(key: Hex, req: PaymentRequirements): Promise<SignedAuth> {
  const account = privateKeyToAccount(key);
  const validBefore = Math.floor(Date.now() / 1000) + req.maxTimeoutSeconds;
  const nonce = bytesToHex(randomBytes(32));
  const typed = {
    domain: {
      name: String(req.extra.name),
      version: String(req.extra.version),
      chainId: Number(req.network.split(":")[1]),
      verifyingContract: req.asset as Hex,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization" as const,
    message: { from: account.address, to: req.payTo as Hex, value: BigInt(req.amount), validAfter: 0n, validBefore: BigInt(validBefore), nonce },
  };
  const signature = await account.signTypedData(typed);
  const authorization = { from: account.address, to: req.payTo, value: req.amount, validAfter: "0", validBefore: String(validBefore), nonce };
  const header = encodePaymentSignatureHeader({ x402Version: 2, accepted: req, payload: { authorization, signature } } as PaymentPayload);
  return { header, typed, signature, from: account.address };
}

interface Phase {
  n: number;
  ms: number[];
}
const phase = (): Phase => ({ n: 0, ms: [] });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

interface InProcess {
  lines: string[];
}

async function inProcess(): Promise<InProcess> {
  const lines: string[] = [];
  const out = (s: string) => {
    lines.push(s);
    process.stderr.write(`${s}\n`);
  };
  const { applyConfigOverlay, loadConfig } = await import("../src/config.js");
  const { startDevnet } = await import("../devnet/index.js");
  const { createApp } = await import("../src/app.js");
  const { createPaywall } = await import("../src/x402/paywall.js");
  const { createLocalFacilitator } = await import("../src/x402/local-facilitator.js");
  const { buildRouter } = await import("../src/http/router.js");
  const { createRateLimiter } = await import("../src/core/rate-limit.js");
  const { createLogger } = await import("../src/core/logger.js");
  const { systemClock } = await import("../src/core/clock.js");
  const { USDC } = await import("../src/x402/networks.js");

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-http-inproc-"));
  const log = pino({ level: "warn" });
  const devnet = await startDevnet({ dataDir: dir, blockSeconds: 20, log });
  try {
    const parsed = loadConfig({ DATA_DIR: dir, DEVNET: "on", LOG_LEVEL: "warn", PORT: "0", RATE_LIMIT_PER_MINUTE: "100000000" });
    const config = applyConfigOverlay(parsed, devnet.configOverlay);
    const app = await createApp(config, { log });

    // Count RPC calls by method (viem's http transport uses global fetch).
    const rpc = new Map<string, { n: number; ms: number }>();
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const t = performance.now();
      const res = await realFetch(input, init);
      let methods = ["?"];
      try {
        const body = JSON.parse(String(init?.body ?? "null"));
        methods = (Array.isArray(body) ? body : [body]).map((b: { method?: string }) => b?.method ?? "?");
      } catch {
        /* not JSON-RPC */
      }
      const key = methods.join("+");
      const e = rpc.get(key) ?? { n: 0, ms: 0 };
      e.n++;
      e.ms += performance.now() - t;
      rpc.set(key, e);
      return res;
    }) as typeof fetch;

    const inner = createLocalFacilitator({ rpcUrl: devnet.evmUrl, privateKey: devnet.facilitatorKey, network: "eip155:84532" });
    const phases = { verify: phase(), settle: phase(), work: phase(), run: phase(), request: phase() };
    const timed: FacilitatorClient = {
      verify: async (p, r) => {
        const t = performance.now();
        try {
          return await inner.verify(p, r);
        } finally {
          phases.verify.ms.push(performance.now() - t);
        }
      },
      settle: async (p, r) => {
        const t = performance.now();
        try {
          return await inner.settle(p, r);
        } finally {
          phases.settle.ms.push(performance.now() - t);
        }
      },
      getSupported: () => inner.getSupported(),
    };
    const terms = { usdc: USDC["eip155:84532"], payTo: devnet.payTo, maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS };
    const base = createPaywall({ db: app.database.db, facilitator: timed, terms, clock: systemClock, log });
    const paywall = {
      ...base,
      run: async <T>(call: Parameters<typeof base.run<T>>[0]) => {
        const t = performance.now();
        try {
          return await base.run({
            ...call,
            work: async (trx, payment) => {
              const tw = performance.now();
              try {
                return await call.work(trx, payment);
              } finally {
                phases.work.ms.push(performance.now() - tw);
              }
            },
          });
        } finally {
          phases.run.ms.push(performance.now() - t);
        }
      },
    };
    const store = { kind: "memory" as const };
    const hono = buildRouter({
      routes: app.routes,
      paywall,
      db: app.database.db,
      log,
      site: app.site,
      trustProxyHops: 0,
      rateLimits: { store, generalPerMinute: 100_000_000 },
    });

    const first = await hono.request("http://127.0.0.1/v1/q/xmr/height");
    const req = decodePaymentRequiredHeader(first.headers.get("payment-required")!).accepts[0]!;
    const keys = Array.from({ length: 10 }, (_, i) => bytesToHex(mnemonicToAccount(MNEMONIC, { addressIndex: i }).getHdKey().privateKey!));

    // --- signature cost -------------------------------------------------
    const sigs: SignedAuth[] = [];
    const tSign = performance.now();
    for (let i = 0; i < 400; i++) sigs.push(await signAuth(keys[i % 10]!, req));
    const signRate = (400 * 1000) / (performance.now() - tSign);
    let k = 0;
    const recoverRate = await asyncOpsPerSecond(async () => {
      const s = sigs[k++ % sigs.length]!;
      await recoverTypedDataAddress({ ...s.typed, signature: s.signature });
    });
    k = 0;
    const verifyRate = await asyncOpsPerSecond(async () => {
      const s = sigs[k++ % sigs.length]!;
      await verifyTypedData({ ...s.typed, address: s.from, signature: s.signature });
    });
    out("");
    out("In-process pieces (this process, one core):");
    out(`  sign EIP-3009 (viem signTypedData + header)      ${int(signRate)}/s   ${f1(1e6 / signRate)} µs`);
    out(`  recoverTypedDataAddress (the signature check)    ${int(recoverRate)}/s   ${f1(1e6 / recoverRate)} µs`);
    out(`  verifyTypedData (viem util, no RPC)              ${int(verifyRate)}/s   ${f1(1e6 / verifyRate)} µs`);

    // --- per-request router pieces --------------------------------------
    const limiter = createRateLimiter(store, "rl_bench", 100_000_000, 60);
    const limiterRate = await asyncOpsPerSecond(() => limiter.consume("127.0.0.1"));
    const plog = createLogger("warn");
    const childRate = opsPerSecond(() => plog.child({ requestId: "abc" }));
    const uuidRate = opsPerSecond(() => randomUUID());
    out(`  rate limiter consume (memory store)              ${int(limiterRate)}/s   ${f1(1e6 / limiterRate)} µs`);
    out(`  pino child({requestId}) (redact on)              ${int(childRate)}/s   ${f1(1e6 / childRate)} µs`);
    out(`  randomUUID                                       ${int(uuidRate)}/s   ${f2(1e6 / uuidRate)} µs`);
    for (const p of ["/v1/paywall", "/v1/q"]) {
      const r = await asyncOpsPerSecond(async () => {
        const res = await hono.request(`http://127.0.0.1${p}`);
        await res.arrayBuffer();
      });
      out(`  GET ${p.padEnd(12)} through hono.request, no socket   ${int(r)}/s   ${f1(1e6 / r)} µs`);
    }

    // --- paid breakdown, one call at a time ----------------------------
    const N = 200;
    const headers: string[] = [];
    for (let i = 0; i < N + 20; i++) headers.push((await signAuth(keys[i % 10]!, req)).header);
    const paidCall = async (h: string) => {
      const t = performance.now();
      const res = await hono.request("http://127.0.0.1/v1/q/xmr/height", { headers: { "payment-signature": h } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`paid call answered ${res.status}: ${res.headers.get("payment-required")?.slice(0, 80)}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i++) await paidCall(headers[N + i]!); // warm-up (JIT, caches, chain check)
    for (const p of Object.values(phases)) p.ms.length = 0;
    rpc.clear();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) phases.request.ms.push(await paidCall(headers[i]!));
    const seqRate = (N * 1000) / (performance.now() - t0);
    const rest = phases.run.ms.map((r, i) => r - phases.verify.ms[i]! - phases.settle.ms[i]! - phases.work.ms[i]!);
    const outside = phases.request.ms.map((r, i) => r - phases.run.ms[i]!);
    out("");
    out(`Paid call breakdown, in-process, one call at a time (${N} calls, ${f1(seqRate)} calls/s):`);
    out(`  phase                                   median ms   mean ms`);
    const ph = (label: string, xs: number[]) => out(`  ${label.padEnd(40)}${f2(median(xs)).padStart(9)}${f2(meanOf(xs)).padStart(10)}`);
    ph("whole request (hono.request)", phases.request.ms);
    ph("  router outside the paywall", outside);
    ph("  paywall.run", phases.run.ms);
    ph("    facilitator.verify", phases.verify.ms);
    ph("    handler (cached answer)", phases.work.ms);
    ph("    facilitator.settle", phases.settle.ms);
    ph("    rest: decode, zod, nonce row, BEGIN/UPDATE/COMMIT", rest);
    out(`  JSON-RPC calls per paid call (to the devnet chain, same process):`);
    for (const [m, e] of [...rpc.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
      out(`    ${m.padEnd(38)} ${f2(e.n / N).padStart(5)} per call, ${f2(e.ms / e.n)} ms each`);
    }

    // --- paid, concurrent in-process (shows serialisation) -------------
    const C = 16;
    const M = 400;
    const more: string[] = [];
    for (let i = 0; i < M; i++) more.push((await signAuth(keys[i % 10]!, req)).header);
    for (const p of Object.values(phases)) p.ms.length = 0;
    let next = 0;
    const tc = performance.now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < M) phases.request.ms.push(await paidCall(more[next++]!));
      }),
    );
    const concRate = (M * 1000) / (performance.now() - tc);
    out("");
    out(`Paid, in-process, ${C} concurrent (${M} calls): ${f1(concRate)} calls/s; per call median: request ${f2(median(phases.request.ms))} ms, verify ${f2(median(phases.verify.ms))} ms, settle ${f2(median(phases.settle.ms))} ms, handler ${f2(median(phases.work.ms))} ms`);

    globalThis.fetch = realFetch;
    await app.close();
  } finally {
    await devnet.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { lines };
}

// ---------------------------------------------------------------------------
// CPU profile summary
// ---------------------------------------------------------------------------

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Frames whose inclusive time is reported: [label, pattern on "functionName@url"]. */
const INCLUSIVE: [string, RegExp][] = [
  ["socket writes (writev)", /^writev@/],
  ["@hono/node-server: response to the socket (responseViaResponseObject)", /^responseViaResponseObject@/],
  ["@hono/node-server: full Request built (newRequestFromIncoming)", /^newRequestFromIncoming@/],
  ["undici Headers built from the incoming request (newHeadersFromIncoming)", /^newHeadersFromIncoming@/],
  ["hono bodyLimit middleware", /^bodyLimit@/],
  ["hono cors middleware", /^cors@/],
  ["rate limiter consume", /^consume@.*(rate-limit|rate-limiter-flexible)/],
  ["pino child logger", /^child@.*pino/],
  ["zod safeParse", /safeParse@/],
  ["c.json (JSON.stringify + Response)", /^json@.*hono\/dist\/context/],
  ["route handlers (meta-routes)", /meta-routes\.ts$/],
  ["paywall (src/x402/paywall.ts)", /paywall\.ts$/],
  ["@x402/core (header encode/decode)", /@x402\/core/],
  ["local facilitator", /local-facilitator\.ts$/],
  ["devnet EVM node (devnet/evm*.ts, jsonrpc-server.ts)", /devnet\/(evm(-[a-z]+)?|jsonrpc-server)\.ts$/],
  ["viem", /node_modules\/viem\//],
  ["PGlite", /@electric-sql\/pglite/],
  ["garbage collector", /^\(garbage collector\)/],
];

/** Self time by package and by function, over the samples that fall in `window` (µs, monotonic clock). */
function summariseProfile(prof: CpuProfile, title: string, window: [number, number]): string[] {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  let t = prof.startTime;
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i]!;
    if (t < window[0] || t > window[1]) continue;
    hits.set(prof.samples[i]!, (hits.get(prof.samples[i]!) ?? 0) + 1);
    total++;
  }
  if (total === 0) return [];
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  // Inclusive time of a few pieces of the request path (a sample counts when the frame is anywhere on its stack).
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of (n as ProfileNode & { children?: number[] }).children ?? []) parent.set(c, n.id);
  const inclusive = new Map(INCLUSIVE.map(([label]) => [label, 0]));
  let busy = 0;
  for (const [id, h] of hits) {
    const frames: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame;
      frames.push(`${cf.functionName}@${cf.url}`);
    }
    if (frames[0]!.startsWith("(idle)")) continue;
    busy += h;
    for (const [label, re] of INCLUSIVE) if (frames.some((f) => re.test(f))) inclusive.set(label, inclusive.get(label)! + h);
  }
  for (const [id, h] of hits) {
    const n = byId.get(id)!;
    const url = n.callFrame.url.replace(/^file:\/\//, "");
    const name = n.callFrame.functionName;
    const short = url.includes("node_modules/")
      ? url.slice(url.lastIndexOf("node_modules/") + 13)
      : url.startsWith(root)
        ? url.slice(root.length + 1)
        : url || "(native)";
    const fn = `${name || "(anonymous)"}  ${short}:${n.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + h);
    let pkg: string;
    if (url.includes("node_modules/")) {
      const rest = url.slice(url.lastIndexOf("node_modules/") + 13).split("/");
      pkg = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
    } else if (url.startsWith(root)) pkg = url.slice(root.length + 1);
    else if (url.startsWith("node:")) pkg = url;
    else if (name.startsWith("(")) pkg = name;
    else pkg = "(native)";
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + h);
  }
  const pct = (h: number) => `${((100 * h) / total).toFixed(1)}%`.padStart(6);
  const lines = [`Service CPU profile, ${title} (${total} samples in the measured window): self time by package / file`];
  for (const [k, v] of [...byPkg.entries()].sort((a, b) => b[1] - a[1]).slice(0, 18)) lines.push(`  ${pct(v)}  ${k}`);
  lines.push(`  inclusive, share of busy samples (${busy}):`);
  for (const [k, v] of [...inclusive.entries()].sort((a, b) => b[1] - a[1])) if (v > 0) lines.push(`  ${`${((100 * v) / busy).toFixed(1)}%`.padStart(6)}  ${k}`);
  lines.push("  top self-time functions:");
  for (const [k, v] of [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) lines.push(`  ${pct(v)}  ${k}`);
  lines.push("");
  return lines;
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

/** Every process the benchmark starts, stopped at the end whatever happens; and other things to close then (anvil). */
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];

async function main(): Promise<void> {
  const started = new Date();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-http-"));
  const profDir = path.join(dir, "prof");
  const schema = `bench_http_${randomBytes(4).toString("hex")}`;
  let dropSchema = async () => {};
  const cleanup = async () => {
    await Promise.allSettled(children.map((c) => c.stop()));
    await Promise.allSettled(cleanups.map((c) => c()));
    await dropSchema().catch((e: Error) => process.stderr.write(`could not drop schema ${schema}: ${e.message}\n`));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));
  const rows: Row[] = [];
  let profileLines: string[] = [];
  let inproc: InProcess | undefined;
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATA_DIR: path.join(dir, "data"),
      DEVNET: "on",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "100000000",
      DEVNET_STATE_FILE: path.join(dir, "devnet.json"),
    };
    const common = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP, client: LOAD_CLIENT };
    // `vigil api` joins a running devnet (it starts none of its own): `vigil devnet` runs beside it, as an operator runs them.
    const devnetProf = process.env.PROFILE_DEVNET ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROFILE_DEVNET}`] : process.env.PERF_MAP_DEVNET ? ["--perf-basic-prof"] : [];
    // The production shape runs it from the bundle, as the `vigil` binary does; the devnet shape from the sources (tsx).
    const devnetCli = SHAPE === "production" ? [path.join(root, "bin", "vigil.mjs")] : ["--import", "tsx", path.join(root, "src", "cli.ts")];
    const devnet = await spawnAndWait([...devnetProf, ...devnetCli, "devnet"], env, /Recorded in (\S+):/, 180_000);
    children.push(devnet);
    devnetPid = devnet.proc.pid;

    if (want("baseline")) {
      const baseline = await spawnAndWait(["--import", "tsx", path.join(root, "bench", "load.ts"), "baseline-server"], env, /baseline listening on (http:\/\/\S+)/);
      children.push(baseline);
      rows.push(await measure("bare node:http, fixed JSON (ceiling)", baseline, { ...common, origin: baseline.url, path: "/", kind: "get" }, "baseline"));
      await baseline.stop();
    }

    // PERF_MAP=1: the service writes /tmp/perf-<pid>.map, so `perf record -g -p <pid>` names its JIT frames.
    const profArgs = [
      ...(PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []),
      ...(process.env.PERF_MAP === "1" ? ["--perf-basic-prof"] : []),
      // SERVICE_NODE_FLAGS: node/V8 flags for the service process (e.g. GC settings), space-separated.
      ...(process.env.SERVICE_NODE_FLAGS ?? "").split(" ").filter(Boolean),
    ];
    let server: Child;
    if (SHAPE === "production") {
      // The production shape: the bundled CLI, DEVNET=off, PostgreSQL, every upstream given as the devnet's URLs.
      const overlay = (JSON.parse(fs.readFileSync(env.DEVNET_STATE_FILE, "utf8")) as { configOverlay: Record<string, string> }).configOverlay;
      const anvilEnv = CHAIN === "anvil" ? await startAnvilSide(env) : {};
      const prod = {
        PATH: env.PATH,
        HOME: env.HOME,
        ...productionEnvFromDevnet(overlay, { databaseUrl: PG_URL, schema, dataDir: path.join(dir, "prod"), all: true }),
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        RATE_LIMIT_PER_MINUTE: env.RATE_LIMIT_PER_MINUTE,
        ...(FACILITATOR === "http" ? { FACILITATOR_MODE: "http", FACILITATOR_URL: overlay.FACILITATOR_URL! } : {}),
        // GAS_KEYS > 1 (local facilitator on the devnet chain): devnet addresses 20 onwards pay gas beside the devnet's key; every devnet address holds ETH.
        ...(GAS_KEYS > 1 ? { FACILITATOR_PRIVATE_KEY: [overlay.FACILITATOR_PRIVATE_KEY!, ...devnetGasKeys(GAS_KEYS - 1)].join(",") } : {}),
        ...anvilEnv,
      };
      dropSchema = async () => {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await c.end();
      };
      // Production migrates once, before the processes start.
      execFileSync(process.execPath, [VIGIL, "migrate"], { cwd: root, env: prod, stdio: "ignore" });
      server = await spawnAndWait([...profArgs, VIGIL, "api"], prod, /listening on (http:\/\/\S+)/);
    } else {
      const cliArgs = [...profArgs, "--import", "tsx", path.join(root, "src", "cli.ts"), "api"];
      server = await spawnAndWait(cliArgs, { ...env, ...(FACILITATOR === "http" ? { FACILITATOR_MODE: "http" } : {}) }, /listening on (http:\/\/\S+)/);
    }
    children.push(server);
    const paywall = (await (await fetch(`${server.url}/v1/paywall`)).json()) as { facilitator: string; facilitator_mode: string };
    if (paywall.facilitator_mode !== FACILITATOR) throw new Error(`the service runs facilitator mode ${paywall.facilitator_mode}, not ${FACILITATOR}`);
    process.stderr.write(`service: ${server.url} (pid ${server.proc.pid}), facilitator ${paywall.facilitator}\n`);
    // The service warms its key tables up a second after it listens: let that pass before any idle figure is taken.
    await new Promise((r) => setTimeout(r, 4000));

    // The same bytes from bare node: the service's free answers (8–9 kB) cost the kernel far more to send
    // over loopback than the fixed ~90-byte body, so a second ceiling serves exactly them, headers included.
    const ceilings: [string, Child, LoadSpec][] = [];
    if (want("baseline")) {
      const recorded: Record<string, { headers: Record<string, string>; body: string }> = {};
      for (const p of ["/v1/paywall", "/v1/q"]) {
        const r = await fetch(`${server.url}${p}`);
        const headers: Record<string, string> = {};
        r.headers.forEach((v, k) => {
          if (!["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(k)) headers[k] = v;
        });
        recorded[p] = { headers, body: await r.text() };
      }
      const recordedFile = path.join(dir, "recorded-answers.json");
      fs.writeFileSync(recordedFile, JSON.stringify(recorded));
      const same = await spawnAndWait(["--import", "tsx", path.join(root, "bench", "load.ts"), "baseline-server", recordedFile], env, /baseline listening on (http:\/\/\S+)/);
      children.push(same);
      for (const p of ["/v1/paywall", "/v1/q"]) {
        const label = `bare node:http, the bytes of GET ${p} (${int(Buffer.byteLength(recorded[p]!.body))} B body, same headers)`;
        ceilings.push([label, same, { ...common, origin: same.url, path: p, kind: "get" }]);
      }
      // The framework alone: Hono on @hono/node-server, one middleware (request id, CORS), the same bytes.
      const hono = await spawnAndWait(["--import", "tsx", path.join(root, "bench", "load.ts"), "hono-server", recordedFile], env, /baseline listening on (http:\/\/\S+)/);
      children.push(hono);
      ceilings.push([HONO_ROW, hono, { ...common, origin: hono.url, path: "/v1/q", kind: "get" }]);
    }

    const scenarios: [string, string, LoadSpec][] = [
      ["paywall", PAYWALL_ROW, { ...common, origin: server.url, path: "/v1/paywall", kind: "get" }],
      ["catalogue", CATALOGUE_ROW, { ...common, origin: server.url, path: "/v1/q", kind: "get" }],
      ["framework", FRAMEWORK_ROW, { ...common, origin: server.url, path: "/v1/q/", kind: "get" }],
      ["health", "GET /v1/health (free, DB + monerod each call)", { ...common, origin: server.url, path: "/v1/health", kind: "get" }],
      ["402", "GET /v1/q/xmr/height unpaid (402)", { ...common, origin: server.url, path: "/v1/q/xmr/height", kind: "get" }],
    ];
    // ROUNDS > 1: the same-bytes ceilings and the unpaid scenarios again and again, in turn, so a
    // drift of the machine falls on all of them alike; the summary gives the median of each.
    const paid = async () => {
      const spec: LoadSpec = { origin: server.url, path: "/v1/q/xmr/height", kind: "paid", connections: PAID_CONNECTIONS, seconds: SECONDS, requests: PAID_REQUESTS, payers: 10 };
      rows.push(await measure("GET /v1/q/xmr/height paid $0.001", server, spec));
    };
    // PAID_FIRST=1: the free scenarios then run on a service that has settled payments, as one in production has.
    if (want("paid") && PAID_FIRST) await paid();
    for (let round = 1; round <= ROUNDS; round++) {
      const r = ROUNDS > 1 ? round : undefined;
      for (const [label, child, spec] of ceilings) rows.push(await measure(label, child, spec, "baseline", r));
      for (const [key, label, spec] of scenarios) if (want(key)) rows.push(await measure(label, server, spec, "vigil", r));
    }
    for (const [, child] of ceilings) await child.stop();
    if (want("paid") && !PAID_FIRST) await paid();
    // Vouchers (x402 batch-settlement) on the same route, in the same run: one channel per connection, opened first.
    if (want("voucher")) {
      const spec: LoadSpec = { origin: server.url, path: "/v1/q/xmr/height", kind: "voucher", connections: PAID_CONNECTIONS, seconds: SECONDS, requests: VOUCHER_REQUESTS, payers: 10 };
      rows.push(await measure("GET /v1/q/xmr/height voucher $0.001 (batch-settlement)", server, spec));
    }

    await server.stop();
    // SERVICE_LOG=<file>: what the service printed (with SERVICE_NODE_FLAGS=--trace-gc, its collections).
    if (process.env.SERVICE_LOG) fs.writeFileSync(process.env.SERVICE_LOG, server.output());
    if (PROFILE) {
      // The main thread's profile is the largest (the other is tsx's loader thread).
      const files = fs.existsSync(profDir) ? fs.readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile")) : [];
      const main = files.map((f) => path.join(profDir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
      if (main) {
        const prof = JSON.parse(fs.readFileSync(main, "utf8")) as CpuProfile;
        for (const r of rows) if (r.server === "vigil") profileLines = profileLines.concat(summariseProfile(prof, r.name, r.result.windowUs));
        if (process.env.KEEP_PROFILE) fs.copyFileSync(main, path.join(process.env.KEEP_PROFILE, path.basename(main)));
      }
    }

    if (process.env.SKIP_INPROC !== "1" && want("inproc")) inproc = await inProcess();
  } finally {
    await cleanup();
  }
  // Gas per call (exact against vouchers at 10, 100 and 1,000 calls a channel): deterministic, measured after the timed scenarios.
  const gasTable = want("gas") ? channelGasTable() : undefined;

  const cpus = os.cpus();
  console.log("");
  console.log(`## http — ${started.toISOString().slice(0, 16).replace("T", " ")} UTC`);
  console.log(
    `${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"}, Node ${process.version}, loopback, service = ${SHAPE === "production" ? "\`node bin/vigil.mjs api\` (production shape: DEVNET=off, PostgreSQL, every upstream a separate `vigil devnet`'s" : "\`vigil api\` (devnet on, PGlite"}, LOG_LEVEL=warn, limiter on at ${int(1e8)}/min, facilitator ${FACILITATOR === "http" ? "http: the devnet's, in the devnet process" : "local: in the service process"}), load = bench/load.ts (${LOAD_CLIENT === "raw" ? "unpaid GETs over plain sockets, paid calls through an undici Pool" : "undici Pool"}, pipelining 1), ${SECONDS} s per run after ${WARMUP} s warm-up (paid: no warm-up). Load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}.`,
  );
  console.log("");
  console.log("| scenario | conns | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | statuses | service CPU | service CPU µs/req | idle CPU | µs/req above idle | load CPU | other CPU | load1 |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const x = r.result;
    const st = Object.entries(x.statuses)
      .map(([k, v]) => `${k}×${v}`)
      .join(" ") + (x.errors ? ` err×${x.errors}` : "");
    console.log(
      `| ${r.name} | ${x.connections} | ${int(x.requests)} | ${int(x.rps)} | ${f2(x.p50)} | ${f2(x.p90)} | ${f2(x.p99)} | ${f1(x.max)} | ${st} | ${Math.round(100 * r.serverCpu)}% | ${int(r.cpuPerRequestUs)} | ${r.idleCpu === undefined ? "—" : `${(100 * r.idleCpu).toFixed(1)}%`} | ${r.netCpuPerRequestUs === undefined ? "—" : int(r.netCpuPerRequestUs)} | ${Math.round((100 * x.loadCpuSeconds) / x.seconds)}% | ${Math.round(100 * r.otherCores)}% | ${r.load1.toFixed(1)} |`,
    );
  }
  if (ROUNDS > 1) printRoundSummary(rows);
  const paid = rows.find((r) => r.result.kind === "paid");
  if (paid?.result.signSeconds) console.log(`\nPre-signing in the load process: ${int(paid.result.signedPerSecond!)} authorisations/s.`);
  const vouchers = rows.find((r) => r.result.kind === "voucher");
  if (vouchers?.result.signSeconds) console.log(`Opening the voucher scenario's ${vouchers.result.connections} channels (one deposit each) and pre-signing its vouchers: ${vouchers.result.signSeconds.toFixed(1)} s.`);
  if (gasTable) {
    console.log("\nGas per paid call, from receipts on anvil with the real escrow (`npm run bench:channel-gas`, run by this one):\n");
    console.log(gasTable);
  }
  if (inproc) {
    console.log("");
    console.log("```");
    for (const l of inproc.lines) console.log(l);
    console.log("```");
  }
  if (profileLines.length) {
    console.log("");
    console.log("```");
    for (const l of profileLines) console.log(l);
    console.log("```");
  }
}

/**
 * CHAIN=anvil: Foundry's anvil as Base Sepolia with Circle's real USDC at its
 * address and Multicall3 (test/helpers/anvil-usdc.ts, as the real-EVM suite
 * sets them up), the load's ten payers given USDC; with FACILITATOR=http the
 * devnet's facilitator code in a process of its own settles there. Returns
 * the service's settings for it.
 */
async function startAnvilSide(env: Record<string, string>): Promise<Record<string, string>> {
  if (SHAPE !== "production") throw new Error("CHAIN=anvil needs SHAPE=production");
  const { startAnvil } = await import("../test/helpers/anvil.js");
  const { installCircleUsdc, installMulticall3 } = await import("../test/helpers/anvil-usdc.js");
  const { USDC } = await import("../src/x402/networks.js");
  // Accounts 0..9 pay (bench/load.ts signs with them), 11 pays the settlements' gas, 12 and 13 own the token.
  const node = await startAnvil({ chainId: 84532, accounts: 13 + GAS_KEYS });
  cleanups.push(() => node.close());
  anvilSide.push({ name: "anvil", pid: node.pid });
  const token = USDC["eip155:84532"];
  const usdc = await installCircleUsdc(node, { at: token.asset, name: token.name, symbol: "USDC", admin: node.accounts[13]!, owner: node.accounts[12]! });
  await installMulticall3(node, node.accounts[12]!);
  for (let i = 0; i < 10; i++) await usdc.mint(node.accounts[i]!.address, 1_000_000_000n);
  process.stderr.write(`anvil: ${node.url} (pid ${node.pid}), Circle's USDC at ${token.asset}\n`);
  // RPC_RTT_MS: the node is reached through a loopback proxy that adds this round trip, as a hosted node's.
  const rpcUrl = RPC_RTT_MS > 0 ? await startDelayProxy(node.url, RPC_RTT_MS) : node.url;
  // GAS_KEYS > 1: accounts 14 onwards pay gas beside 11.
  const gasKeys = [node.keys[11]!, ...node.keys.slice(14, 14 + GAS_KEYS - 1)].join(",");
  if (FACILITATOR !== "http") return { EVM_RPC_URL: rpcUrl, FACILITATOR_PRIVATE_KEY: gasKeys };
  const f = await spawnAndWait([...(process.env.PROFILE_FACILITATOR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROFILE_FACILITATOR}`] : []), "--import", "tsx", path.join(root, "bench", "facilitator.ts"), rpcUrl, gasKeys], env, /facilitator listening on (http:\/\/\S+)/);
  children.push(f);
  anvilSide.push({ name: "facilitator process", pid: f.proc.pid! });
  return { EVM_RPC_URL: rpcUrl, FACILITATOR_MODE: "http", FACILITATOR_URL: f.url };
}

/** A loopback HTTP proxy to `target` that answers each request `rttMs` later than the target does (half before, half after). */
async function startDelayProxy(target: string, rttMs: number): Promise<string> {
  const http = await import("node:http");
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        await sleep(rttMs / 2);
        const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) });
        const text = await upstream.text();
        await sleep(rttMs / 2);
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
      })().catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Each scenario's median over the rounds, with its range, and the service's share of bare node's requests per second. */
function printRoundSummary(rows: Row[]): void {
  const byScenario = new Map<string, Row[]>();
  for (const r of rows) if (r.result.kind === "get") byScenario.set(r.scenario, [...(byScenario.get(r.scenario) ?? []), r]);
  const cpuOf = (r: Row) => r.netCpuPerRequestUs ?? r.cpuPerRequestUs;
  const medians = new Map<string, { rps: number; cpu: number }>();
  console.log("");
  console.log(`Over ${ROUNDS} rounds, in turn (median, and the range):`);
  console.log("");
  console.log("| scenario | rounds | req/s | req/s range | CPU µs/req | CPU range |");
  console.log("|---|---:|---:|---|---:|---|");
  for (const [scenario, rs] of byScenario) {
    if (rs.length < 2) continue;
    const rps = rs.map((r) => r.result.rps);
    const cpu = rs.map(cpuOf);
    medians.set(scenario, { rps: median(rps), cpu: median(cpu) });
    console.log(`| ${scenario} | ${rs.length} | ${int(median(rps))} | ${int(Math.min(...rps))}–${int(Math.max(...rps))} | ${int(median(cpu))} | ${int(Math.min(...cpu))}–${int(Math.max(...cpu))} |`);
  }
  const bare = (p: string) => [...medians].find(([k]) => k.startsWith(`bare node:http, the bytes of GET ${p} `))?.[1];
  const lines: string[] = [];
  for (const [p, row] of [["/v1/paywall", PAYWALL_ROW], ["/v1/q", CATALOGUE_ROW]] as const) {
    const b = bare(p), v = medians.get(row);
    if (b && v) lines.push(`GET ${p}: the service serves ${Math.round((100 * v.rps) / b.rps)} % of bare node's req/s with the same bytes, at ${f1(v.cpu / b.cpu)}× its CPU per request`);
  }
  const fw = medians.get(FRAMEWORK_ROW), q = medians.get(CATALOGUE_ROW);
  if (fw && q) lines.push(`GET /v1/q/ through Hono: ${int(fw.cpu)} µs a request against ${int(q.cpu)} µs as a standing answer`);
  const h = medians.get(HONO_ROW), b = bare("/v1/q");
  if (h && b) lines.push(`Hono + node-server: ${Math.round((100 * h.rps) / b.rps)} % of bare node's req/s, ${f1(h.cpu / b.cpu)}× its CPU per request`);
  if (lines.length) console.log(`\n${lines.join(".\n")}.`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:http failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
