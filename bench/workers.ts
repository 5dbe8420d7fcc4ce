/**
 * npm run bench:workers — do watch passes add up with `vigil worker`
 * processes? On PostgreSQL (DATABASE_URL, default the machine's
 * postgres://postgres@127.0.0.1:5432/test; a schema of its own, dropped at
 * the end, also on failure or Ctrl-C).
 *
 * Production shape: a separate `vigil devnet` provides the upstreams (its
 * monerod on loopback, like a real node); the workers are the compiled CLI
 * (`node bin/vigil.mjs worker`, DEVNET=off, the devnet's URLs given as
 * settings), each in its own process. The benchmark itself never scans.
 *
 *  1. Watches: SEEDS real Monero watches created through the watch service
 *     (`createWatch`: 8 wallets' address + view key), scanned once in this
 *     process to the chain tip; then their rows are cloned with SQL, every
 *     clone with its own id, its view key sealed again for that id (the id is
 *     the AES-GCM associated data), its own webhook secret and token hash, and
 *     a copy of its seed's ledger rows — each a valid watch the real tick scans.
 *  2. Passes: for each worker count (WORKERS, default 1, 2, 4), fresh worker
 *     processes, then twice: a new block to scan (5 transfers to an unwatched
 *     wallet + coinbase, as bench:watch prepares it), every watch due at one
 *     instant, the table vacuumed before that instant. Timed from the first
 *     lease (the earliest last_polled_at of the pass) until no watch due at
 *     that instant is left (the due index, polled every 250 ms); afterwards
 *     every watch's last_polled_at is counted. The first pass of fresh
 *     processes starts their scan threads and builds their view accounts on
 *     first need; the second, same processes, is the steady state that the
 *     ratios and the limits use. CPU from /proc over the pass: the worker
 *     processes (all threads, and their main threads alone), every
 *     PostgreSQL process (live ones plus the backends the postmaster reaped),
 *     the devnet, this process, and the whole machine (/proc/stat: the CPU of
 *     processes that are not this run's shows as "others").
 *     Done at WATCHES_SMALL watches and, after cloning up to WATCHES, at
 *     WATCHES: the ratio of the two passes is printed (issue 25: ≤ 10×).
 *  3. Lateness: after the passes of LATENESS_WORKERS workers at WATCHES,
 *     the same processes; due instants spread uniformly over WINDOW seconds,
 *     one new block, WINDOW + MARGIN seconds of running;
 *     lateness = last_polled_at − due instant (the tick's instant, when the
 *     watch was leased; its row is written when that tick's batch ends).
 *
 * The workers run with WATCH_POLL_SECONDS=3600: the benchmark sets every
 * phase's schedule itself, and a polled watch must not come due again within
 * a phase (its last_polled_at would be overwritten). The load of the lateness
 * phase — each watch once in WINDOW seconds — is the steady state of a poll
 * interval of WINDOW (default 180 s, the production default); the share
 * polled within POLL_SECONDS (180) is printed.
 *
 * Env: WATCHES (100000), WATCHES_SMALL (10000), WORKERS (1,2,4),
 * SCAN_THREADS (default: 2 cores / workers, 0 when that is below 1 — then
 * each process scans on its main thread), LATENESS_WORKERS (1), WINDOW
 * (180), MARGIN (60), POLL_SECONDS (180), LEAD (seconds from setting the
 * due instant to it; default twice the last preparation of that size, which
 * is mostly the vacuum), SEEDS (64),
 * ALL_UPSTREAMS=1 (also give the workers the devnet's Zcash, Ethereum, relay
 * and price upstreams, as bench:startup does; by default only the Monero
 * daemon and the payment settings, so the workers' other jobs stay off),
 * SKIP_LATENESS=1, PASS_TIMEOUT (1800 s). Nothing is asserted.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql, type RawBuilder } from "kysely";
import pino from "pino";
import { loadConfig } from "../src/config.js";
import { createApp } from "../src/app.js";
import { SecretBox } from "../src/core/secretbox.js";
import { hashToken, newToken } from "../src/core/tokens.js";
import type { DatabaseHandle } from "../src/db/connection.js";
import type { Database } from "../src/db/types.js";
import { tableCounts } from "../src/db/upkeep.js";
import { generateWebhookSecret } from "../src/webhooks/sign.js";
import { CREATE_CREDIT } from "../src/watch/meter.js";
import { createWatch } from "../src/watch/service.js";
import { runWatchTick } from "../src/watch/tick.js";
import { deriveDevnetWallets } from "../devnet/monerod-wallets.js";
import { devnetMoneroMine, devnetMoneroSend, devnetMoneroWallets, formatXmr } from "../devnet/monerod-client.js";
import { machineLine, mapLimit, openBenchDatabase, productionEnvFromDevnet, type BenchDatabase } from "./support.js";

const root = path.resolve(import.meta.dirname, "..");
const VIGIL = path.join(root, "bin", "vigil.mjs");
process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/test";
const PG_URL = process.env.DATABASE_URL;
const num = (name: string, dflt: number) => Number(process.env[name] ?? dflt);
const WATCHES = num("WATCHES", 100_000);
const WATCHES_SMALL = Math.min(num("WATCHES_SMALL", 10_000), WATCHES);
const WORKER_COUNTS = (process.env.WORKERS ?? "1,2,4").split(",").map((s) => Number(s.trim())).filter((n) => n > 0);
const LATENESS_WORKERS = num("LATENESS_WORKERS", 1);
const WINDOW = num("WINDOW", 180);
const MARGIN = num("MARGIN", 60);
const POLL_SECONDS = num("POLL_SECONDS", 180);
const LEAD = num("LEAD", 0);
const SEEDS = num("SEEDS", 64);
const PASS_TIMEOUT = num("PASS_TIMEOUT", 1800);
const CORES = os.cpus().length;
const TICK_HZ = 100; // getconf CLK_TCK on Linux
const log = pino({ level: "silent" });

const scanThreadsFor = (workers: number): number =>
  process.env.SCAN_THREADS !== undefined ? Number(process.env.SCAN_THREADS) : Math.floor(CORES / workers) >= 1 ? Math.floor(CORES / workers) : 0;

// --- processes ------------------------------------------------------------------

interface Running {
  name: string;
  proc: ChildProcess;
  /** The last lines of its output (for errors) and counts of what it logged. */
  tail: string[];
  /** The first few warning and error lines. */
  notes: string[];
  seen: { vacuums: number; warnings: number; errors: number; ready: boolean };
}

const running = new Set<Running>();

function spawnGroup(name: string, args: string[], env: Record<string, string>): Running {
  const proc = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const r: Running = { name, proc, tail: [], notes: [], seen: { vacuums: 0, warnings: 0, errors: 0, ready: false } };
  let partial = "";
  const onData = (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.includes("first watch tick done")) r.seen.ready = true;
      if (line.includes("vacuumed tables")) r.seen.vacuums++;
      const warning = line.includes('"level":40');
      const error = line.includes('"level":50') || line.includes('"level":60');
      if (warning) r.seen.warnings++;
      if (error) r.seen.errors++;
      if ((warning || error) && r.notes.length < 3) r.notes.push(line.slice(0, 400));
      r.tail.push(line);
      if (r.tail.length > 40) r.tail.shift();
    }
  };
  proc.stdout!.on("data", onData);
  proc.stderr!.on("data", onData);
  running.add(r);
  proc.once("exit", () => running.delete(r));
  return r;
}

/** SIGTERM to the process group (the worker finishes its tick and closes), SIGKILL after 15 s. */
async function stopGroup(r: Running): Promise<void> {
  const { proc } = r;
  if (proc.exitCode !== null || proc.signalCode !== null) return void running.delete(r);
  const exited = new Promise<void>((res) => proc.once("exit", () => res()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid!, s);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const t = setTimeout(() => signal("SIGKILL"), 15_000);
  await exited;
  clearTimeout(t);
  running.delete(r);
}

// Backstop: whatever way this process ends, no child outlives it.
process.on("exit", () => {
  for (const r of running) {
    try {
      process.kill(-r.proc.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- CPU from /proc -------------------------------------------------------------------

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, and cutime + cstime (reaped children), in seconds. */
  own: number;
  reaped: number;
}

function readStat(pid: number | string): ProcStat | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = s.lastIndexOf(")");
    const f = s.slice(close + 2).split(" ");
    // f[0] = state (field 3); utime is field 14 → f[11].
    return {
      pid: Number(pid),
      ppid: Number(f[1]),
      comm: s.slice(s.indexOf("(") + 1, close),
      own: (Number(f[11]) + Number(f[12])) / TICK_HZ,
      reaped: (Number(f[13]) + Number(f[14])) / TICK_HZ,
    };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(readStat)
    .filter((s): s is ProcStat => s !== null);
}

/** CPU seconds of a process and its live descendants. */
function treeCpu(stats: ProcStat[], pid: number): number {
  let total = 0;
  const visit = (p: number) => {
    for (const s of stats) {
      if (s.pid === p) total += s.own;
      else if (s.ppid === p) visit(s.pid);
    }
  };
  visit(pid);
  return total;
}

/** CPU seconds of every postgres process, plus what the postmaster reaped (exited backends). */
function postgresCpu(stats: ProcStat[]): number {
  const pg = stats.filter((s) => s.comm === "postgres");
  const pgPids = new Set(pg.map((s) => s.pid));
  return pg.reduce((a, s) => a + s.own + (pgPids.has(s.ppid) ? 0 : s.reaped), 0);
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = v[3]! + v[4]!;
  return { busy: (total - idle) / TICK_HZ, total: total / TICK_HZ };
}

interface CpuMark {
  at: number;
  workers: number;
  /** The workers' main threads (the event loop: SQL driver, JSON, meter; the scan when it has no threads). */
  workersMain: number;
  postgres: number;
  devnet: number;
  bench: number;
  machine: { busy: number; total: number };
}

function cpuMark(workers: readonly Running[], devnet: Running): CpuMark {
  const stats = allStats();
  const u = process.cpuUsage();
  return {
    at: Date.now(),
    workers: workers.reduce((a, w) => a + treeCpu(stats, w.proc.pid!), 0),
    workersMain: workers.reduce((a, w) => a + (readStat(`${w.proc.pid}/task/${w.proc.pid}`)?.own ?? 0), 0),
    postgres: postgresCpu(stats),
    devnet: treeCpu(stats, devnet.proc.pid!),
    bench: (u.user + u.system) / 1e6,
    machine: machineCpu(),
  };
}

type CpuSpent = Omit<CpuMark, "at" | "machine"> & { wall: number; machineBusy: number };

function cpuBetween(a: CpuMark, b: CpuMark): CpuSpent {
  return {
    wall: (b.at - a.at) / 1000,
    workers: b.workers - a.workers,
    workersMain: b.workersMain - a.workersMain,
    postgres: b.postgres - a.postgres,
    devnet: b.devnet - a.devnet,
    bench: b.bench - a.bench,
    machineBusy: b.machine.busy - a.machine.busy,
  };
}

// --- the devnet and the workers' settings ------------------------------------------

type Overlay = Record<string, string>;

async function startDevnetProcess(work: string): Promise<{ devnet: Running; overlay: Overlay }> {
  const stateFile = path.join(work, "devnet-state.json");
  // No block on a timer: the benchmark mines each block it wants scanned.
  const devnet = spawnGroup("devnet", [VIGIL, "devnet"], {
    DATA_DIR: path.join(work, "devnet"),
    DEVNET_STATE_FILE: stateFile,
    DEVNET_BLOCK_SECONDS: "3600",
    LOG_LEVEL: "warn",
  });
  for (let i = 0; i < 1800 && !fs.existsSync(stateFile); i++) {
    if (devnet.proc.exitCode !== null) throw new Error(`vigil devnet exited ${devnet.proc.exitCode}:\n${devnet.tail.join("\n")}`);
    await sleep(100);
  }
  const overlay = (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { configOverlay: Overlay }).configOverlay;
  return { devnet, overlay };
}

/** What every worker gets: production settings, pointed at the devnet's upstreams. */
function productionEnv(overlay: Overlay, schema: string, work: string): Record<string, string> {
  return {
    ...productionEnvFromDevnet(overlay, { databaseUrl: PG_URL, schema, dataDir: path.join(work, "prod"), all: process.env.ALL_UPSTREAMS === "1" }),
    // The benchmark sets each phase's schedule; a polled watch is not due again within a phase.
    WATCH_POLL_SECONDS: "3600",
  };
}

/** A block every watch must check and in which none finds anything: 5 transfers to an unwatched wallet + coinbase. */
async function prepareBlock(moneroUrl: string, outsider: string): Promise<number> {
  for (let i = 0; i < 5; i++) await devnetMoneroSend(moneroUrl, outsider, formatXmr(1_000_000_000n + BigInt(i)));
  return (await devnetMoneroMine(moneroUrl, 1)).height;
}

// --- the watches ------------------------------------------------------------------

interface Seed {
  id: string;
  viewKey: string;
}

/**
 * SEEDS watches through the watch service, marked as announced (the passes
 * measure the steady state), then scanned in this process (no scan threads)
 * until every one is at the chain tip.
 */
async function createSeeds(handle: DatabaseHandle, env: Record<string, string>, moneroUrl: string, count: number): Promise<{ seeds: Seed[]; outsider: string }> {
  const config = loadConfig({ ...env, LOG_LEVEL: "silent", WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1", MONERO_SCAN_THREADS: "0" });
  const { db } = handle;
  // The app does not own the handle: closing it leaves the database open.
  const app = await createApp(config, { log, database: handle });
  try {
    const extra = deriveDevnetWallets(randomBytes(32).toString("hex")).concat(deriveDevnetWallets(randomBytes(32).toString("hex")));
    const own = (await devnetMoneroWallets(moneroUrl)).filter((w) => w.label !== "miner");
    const wallets = [...own, ...extra].slice(0, 8);
    const outsider = extra[extra.length - 1]!.address; // receives the prepared blocks' transfers; watched by nobody
    const start = (await devnetMoneroMine(moneroUrl, 2)).height;
    const seeds: Seed[] = [];
    await mapLimit(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
      const w = wallets[i % wallets.length]!;
      const r = await createWatch({
        ctx: { deps: app.watch, db },
        // Port 9 (discard) on loopback: idle watches never deliver.
        input: { chain: "monero", address: w.address, viewKey: w.viewKey, webhookUrl: `http://127.0.0.1:9/hook/${i}`, birthdayHeight: start },
        opening: { creditAtomic: CREATE_CREDIT * 10n, funding: "usdc" },
      });
      seeds[i] = { id: r.watchId, viewKey: w.viewKey };
    });
    await sql`UPDATE watches SET initial_scan_done = true`.execute(db);
    await prepareBlock(moneroUrl, outsider);
    for (let i = 0; i < 20; i++) {
      const s = await runWatchTick(app.watch, { owner: "bench-seed", batchSize: count, leaseSeconds: 120 });
      if (s.claimed === 0) break;
      if (s.scanErrors > 0) throw new Error(`seed scan failed for ${s.scanErrors} watches`);
    }
    const outbox = Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM webhook_outbox`.execute(db)).rows[0]!.n);
    if (outbox > 0) throw new Error(`the seed watches queued ${outbox} events: they are not idle`);
    return { seeds, outsider };
  } finally {
    await app.close();
  }
}

/** Clones seed rows (round robin) into `count` new watches with their own ids, sealed keys, secrets, tokens and ledger rows. */
async function cloneWatches(db: Database, box: SecretBox, seeds: readonly Seed[], count: number, offset: number): Promise<void> {
  const cols = (
    await sql<{ c: string }>`SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'watches' ORDER BY ordinal_position`.execute(db)
  ).rows.map((r) => r.c);
  const own: Record<string, string> = { id: "n.id", view_key_enc: "n.vk", webhook_secret_enc: "n.ws", token_hash: "n.th" };
  const select = cols.map((c) => own[c] ?? `s.${c}`).join(", ");
  const CHUNK = 2000;
  for (let at = 0; at < count; at += CHUNK) {
    const n = Math.min(CHUNK, count - at);
    const ids: string[] = [];
    const src: string[] = [];
    const vk: Buffer[] = [];
    const ws: Buffer[] = [];
    const th: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      const seed = seeds[(offset + at + i) % seeds.length]!;
      ids.push(id);
      src.push(seed.id);
      vk.push(box.seal(seed.viewKey, `viewkey:${id}`));
      ws.push(box.seal(generateWebhookSecret(), `webhook:${id}`));
      th.push(hashToken(newToken("wt_")));
    }
    await db.transaction().execute(async (trx) => {
      await sql`
        INSERT INTO watches (${sql.raw(cols.join(", "))})
        SELECT ${sql.raw(select)}
        FROM unnest(${ids}::uuid[], ${src}::uuid[], ${vk}::bytea[], ${ws}::bytea[], ${th}::bytea[]) AS n(id, src, vk, ws, th)
        JOIN watches s ON s.id = n.src`.execute(trx);
      await sql`
        INSERT INTO watch_ledger (watch_id, kind, amount_atomic, balance_after, reason, ref, created_at)
        SELECT n.id, l.kind, l.amount_atomic, l.balance_after, l.reason, l.ref, l.created_at
        FROM unnest(${ids}::uuid[], ${src}::uuid[]) AS n(id, src) JOIN watch_ledger l ON l.watch_id = n.src
        ORDER BY n.id, l.id`.execute(trx);
    });
  }
}

const countOf = async (db: Database, q: RawBuilder<{ n: string }>) => Number((await q.execute(db)).rows[0]!.n);

// --- phases -----------------------------------------------------------------------

interface Ctx {
  handle: DatabaseHandle;
  db: Database;
  env: Record<string, string>;
  devnet: Running;
  moneroUrl: string;
  outsider: string;
  /** Seconds the last preparation (block, schedule, vacuum) took, per table size. */
  prepSeconds: Map<number, number>;
}

/** Starts `count` workers and waits for each one's first tick (nothing is due then). */
async function startWorkerProcesses(ctx: Ctx, count: number, threads: number): Promise<Running[]> {
  const workers = Array.from({ length: count }, (_, i) =>
    spawnGroup(`worker ${i + 1}`, [VIGIL, "worker"], { ...ctx.env, MONERO_SCAN_THREADS: String(threads) }),
  );
  const deadline = Date.now() + 120_000;
  while (!workers.every((w) => w.seen.ready)) {
    assertAlive(workers);
    if (Date.now() > deadline) throw new Error(`workers not ready in 120 s:\n${workers.map((w) => `${w.name}: ${w.tail.slice(-5).join("\n")}`).join("\n")}`);
    await sleep(100);
  }
  return workers;
}

function assertAlive(workers: readonly Running[]): void {
  const dead = workers.find((w) => w.proc.exitCode !== null || w.proc.signalCode !== null);
  if (dead) throw new Error(`${dead.name} exited (${dead.proc.exitCode ?? dead.proc.signalCode}):\n${dead.tail.join("\n")}`);
}

const logCounts = (workers: readonly Running[]) => ({
  vacuums: workers.reduce((a, w) => a + w.seen.vacuums, 0),
  warnings: workers.reduce((a, w) => a + w.seen.warnings, 0),
  errors: workers.reduce((a, w) => a + w.seen.errors, 0),
});

/** PostgreSQL's WAL insert position, in bytes. */
const walPosition = async (db: Database) =>
  Number((await sql<{ b: string }>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS b`.execute(db)).rows[0]!.b);

/**
 * Mines the block, sets the schedule (an SQL expression of next_poll_at from
 * the instant t0) and vacuums, while the workers idle; returns at t0 with the
 * CPU marks taken. t0 leaves twice the previous preparation's time (LEAD
 * overrides it).
 */
async function schedulePhase(ctx: Ctx, workers: readonly Running[], watches: number, schedule: (t0: Date) => RawBuilder<unknown>, afterSchedule?: () => Promise<void>) {
  const started = Date.now();
  const height = await prepareBlock(ctx.moneroUrl, ctx.outsider);
  const lead = process.env.LEAD ? LEAD : Math.max(3, 2 * (ctx.prepSeconds.get(watches) ?? 2 + watches / 10_000) + 2);
  const t0 = new Date(Date.now() + lead * 1000);
  await sql`UPDATE watches SET next_poll_at = ${schedule(t0)}`.execute(ctx.db);
  await afterSchedule?.();
  await sql`VACUUM (ANALYZE) watches`.execute(ctx.db);
  ctx.prepSeconds.set(watches, (Date.now() - started) / 1000);
  if (Date.now() > t0.getTime() - 100) console.log(`  (the preparation ran past the due instant: set LEAD above ${lead.toFixed(0)} s)`);
  await sleep(t0.getTime() - Date.now());
  assertAlive(workers);
  return { height, t0, before: cpuMark(workers, ctx.devnet), logs: logCounts(workers), wal: await walPosition(ctx.db) };
}

interface PassResult {
  watches: number;
  workers: number;
  threads: number;
  /** The first pass of fresh worker processes (scan threads started, view accounts built on first need). */
  cold: boolean;
  passSeconds: number;
  startDelay: number;
  polled: number;
  atNewBlock: number;
  cpu: CpuSpent;
  vacuums: number;
  warnings: number;
  errors: number;
  deadAfter: number;
  /** WAL written during the pass (the whole server's). */
  walBytes: number;
}

/** Every watch due at one instant, one new block: timed from the first lease until none due at that instant is left. */
async function runPass(ctx: Ctx, workers: readonly Running[], threads: number, watches: number, cold: boolean): Promise<PassResult> {
  const p = await schedulePhase(ctx, workers, watches, (t0) => sql`${t0}::timestamptz`);
  const dueLeft = sql`FROM watches WHERE status = 'active' AND credit_atomic > 0 AND next_poll_at <= ${p.t0}`;
  let end: number | null = null;
  let lastReport = Date.now();
  // CPU marks all along (every 50 ms in the first 2 s): the pass's CPU is counted from the last one before its first lease.
  const marks: CpuMark[] = [p.before];
  while (end === null && Date.now() - p.t0.getTime() < PASS_TIMEOUT * 1000) {
    const left = await sql<{ left: boolean }>`SELECT EXISTS (SELECT 1 ${dueLeft}) AS left`.execute(ctx.db);
    if (!left.rows[0]!.left) end = Date.now();
    else {
      marks.push(cpuMark(workers, ctx.devnet));
      assertAlive(workers);
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        const due = await countOf(ctx.db, sql`SELECT count(*)::text AS n ${dueLeft}`);
        process.stderr.write(`    ${((Date.now() - p.t0.getTime()) / 1000).toFixed(0)} s: ${due} watches still due\n`);
      }
      await sleep(Date.now() - p.t0.getTime() < 2_000 ? 50 : 250);
    }
  }
  if (end === null) throw new Error(`the pass of ${watches} watches with ${workers.length} worker(s) did not end within ${PASS_TIMEOUT} s`);
  const after = cpuMark(workers, ctx.devnet);
  const walBytes = (await walPosition(ctx.db)) - p.wal;
  const logs = logCounts(workers);
  const first = await sql<{ t: Date | null }>`SELECT min(last_polled_at) AS t FROM watches WHERE last_polled_at >= ${p.t0}`.execute(ctx.db);
  const firstMs = first.rows[0]!.t ? new Date(first.rows[0]!.t).getTime() : p.t0.getTime();
  return {
    watches,
    workers: workers.length,
    threads,
    cold,
    passSeconds: (end - firstMs) / 1000,
    startDelay: (firstMs - p.t0.getTime()) / 1000,
    polled: await countOf(ctx.db, sql`SELECT count(*)::text AS n FROM watches WHERE last_polled_at >= ${p.t0}`),
    atNewBlock: await countOf(ctx.db, sql`SELECT count(*)::text AS n FROM watches WHERE (scan_state->>'scannedHeight')::int >= ${p.height - 1}`),
    cpu: cpuBetween(marks.filter((m) => m.at <= firstMs).pop() ?? p.before, after),
    vacuums: logs.vacuums - p.logs.vacuums,
    warnings: logs.warnings - p.logs.warnings,
    errors: logs.errors - p.logs.errors,
    deadAfter: (await tableCounts(ctx.handle, "watches")).dead,
    walBytes,
  };
}

interface LatenessResult {
  watches: number;
  workers: number;
  threads: number;
  /** Seconds, sorted; watches not polled by the end are left out (counted in `missed`). */
  lateness: number[];
  missed: number;
  maxBacklog: number;
  backlogAtEnd: number;
  cpu: CpuSpent;
}

/** Due instants spread uniformly over WINDOW seconds; the workers run on for WINDOW + MARGIN seconds. */
async function runLateness(ctx: Ctx, workers: readonly Running[], threads: number, watches: number): Promise<LatenessResult> {
  await sql`DROP TABLE IF EXISTS bench_due`.execute(ctx.db);
  const p = await schedulePhase(
    ctx,
    workers,
    watches,
    (t0) => sql`${t0}::timestamptz + random() * ${WINDOW} * interval '1 second'`,
    // Each watch's due instant, kept aside: the tick overwrites next_poll_at.
    async () => void (await sql`CREATE TABLE bench_due AS SELECT id, next_poll_at AS due FROM watches`.execute(ctx.db)),
  );
  let maxBacklog = 0;
  let backlog = 0;
  const endAt = p.t0.getTime() + (WINDOW + MARGIN) * 1000;
  while (Date.now() < endAt) {
    await sleep(Math.min(5_000, endAt - Date.now()));
    assertAlive(workers);
    // Due and not yet polled (a polled watch is next due an hour later).
    backlog = await countOf(ctx.db, sql`SELECT count(*)::text AS n FROM watches WHERE status = 'active' AND credit_atomic > 0 AND next_poll_at <= now()`);
    maxBacklog = Math.max(maxBacklog, backlog);
    process.stderr.write(`    ${((Date.now() - p.t0.getTime()) / 1000).toFixed(0)} s: backlog ${backlog}\n`);
  }
  const after = cpuMark(workers, ctx.devnet);
  const rows = await sql<{ l: number }>`
    SELECT extract(epoch FROM w.last_polled_at - d.due)::float8 AS l
    FROM watches w JOIN bench_due d USING (id) WHERE w.last_polled_at >= d.due`.execute(ctx.db);
  const lateness = rows.rows.map((r) => Number(r.l)).sort((a, b) => a - b);
  await sql`DROP TABLE bench_due`.execute(ctx.db);
  return { watches, workers: workers.length, threads, lateness, missed: watches - lateness.length, maxBacklog, backlogAtEnd: backlog, cpu: cpuBetween(p.before, after) };
}

// --- report -----------------------------------------------------------------------

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

function shares(c: CpuSpent, workers: number) {
  const ours = c.workers + c.postgres + c.devnet + c.bench;
  return {
    busy: c.machineBusy / (c.wall * CORES),
    mainBusy: c.workersMain / (c.wall * workers),
    pgShare: c.postgres / Math.max(1e-9, c.workers + c.postgres),
    others: Math.max(0, c.machineBusy - ours) / (c.wall * CORES),
  };
}

/** Where the limit of one pass is, from its own figures. */
function limitOf(r: PassResult, one: PassResult | undefined): string {
  const s = shares(r.cpu, r.workers);
  const parts = [
    s.busy >= 0.9
      ? `the ${CORES} cores are saturated (${pct(s.busy)} busy)`
      : s.mainBusy >= 0.8
        ? `each worker's main thread is busy ${pct(s.mainBusy)} of the pass (the cores ${pct(s.busy)}): the worker's serial part is the limit`
        : `the cores are ${pct(s.busy)} busy and the workers' main threads ${pct(s.mainBusy)}: not CPU-bound, the workers wait`,
    s.pgShare > 0.5 ? `PostgreSQL's share dominates (${pct(s.pgShare)} of worker + database CPU)` : `PostgreSQL ${pct(s.pgShare)} of worker + database CPU`,
  ];
  if (s.others >= 0.1) parts.push(`other processes of the machine took ${pct(s.others)} of the cores`);
  if (one && one !== r) {
    const cpuPer = (x: PassResult) => (x.cpu.workers + x.cpu.postgres) / x.watches;
    parts.push(`${f2(one.passSeconds / r.passSeconds)}× the speed of 1 worker (ideal ${r.workers}×), CPU per watch ${f2(cpuPer(r) / cpuPer(one))}× that of 1 worker`);
  }
  return parts.join("; ");
}

function printPasses(results: readonly PassResult[]): void {
  console.log("\npasses: every watch due at once, one new block (coinbase + 5 transfers to an unwatched wallet)");
  console.log(
    "  watches  workers×threads  pass    pass s  start s  watches/s  worker CPU s/1k  PG CPU s/1k  devnet+bench CPU s  cores busy  main thr  PG share  others  polled      dead after  vacuums  WAL kB/watch",
  );
  for (const r of results) {
    const c = r.cpu;
    const s = shares(c, r.workers);
    console.log(
      `  ${String(r.watches).padStart(7)}  ${`${r.workers}×${r.threads}`.padStart(15)}  ${r.cold ? "first " : "second"}  ${f1(r.passSeconds).padStart(6)}  ${f1(r.startDelay).padStart(7)}  ${(r.watches / r.passSeconds).toFixed(0).padStart(9)}  ${f2((c.workers / r.watches) * 1000).padStart(15)}  ${f2((c.postgres / r.watches) * 1000).padStart(11)}  ${f1(c.devnet + c.bench).padStart(18)}  ${pct(s.busy).padStart(10)}  ${pct(s.mainBusy).padStart(8)}  ${pct(s.pgShare).padStart(8)}  ${pct(s.others).padStart(6)}  ${`${r.polled}/${r.watches}`.padStart(11)}  ${String(r.deadAfter).padStart(10)}  ${String(r.vacuums).padStart(7)}  ${(r.walBytes / 1000 / r.watches).toFixed(1).padStart(12)}`,
    );
    if (r.atNewBlock !== r.watches) console.log(`    (${r.watches - r.atNewBlock} watches did not reach the new block)`);
    if (r.errors || r.warnings) console.log(`    (the workers logged ${r.errors} errors and ${r.warnings} warnings)`);
  }
  console.log("  pass: first lease → no watch due at the instant left (polled every 250 ms); start: due instant → first lease (the idle worker's 1 s sleep)");
  console.log("  first: the first pass of fresh worker processes (scan threads and view accounts built on first need); second: the next pass, same processes — the figures below use it");
  console.log("  CPU from /proc during the pass: worker processes (all threads), every postgres process (+ reaped backends); cores busy: /proc/stat, whole machine;");
  console.log("  main thr: CPU of each worker's main thread (event loop) over the pass; PG share: PostgreSQL's part of worker + PostgreSQL CPU;");
  console.log("  others: CPU of the machine's processes that are not this run's, as a share of the cores; WAL: the server's, during the pass");

  const big = results.filter((r) => r.watches === WATCHES && !r.cold);
  const small = results.filter((r) => r.watches === WATCHES_SMALL && !r.cold);
  if (WATCHES !== WATCHES_SMALL) {
    console.log(`\n${WATCHES} watches against ${WATCHES_SMALL} in the same run (${f1(WATCHES / WATCHES_SMALL)}× the watches; issue 25's target: ≤ 10× the 10,000-watch pass)`);
    for (const b of big) {
      const s = small.find((x) => x.workers === b.workers);
      if (s) console.log(`  ${b.workers} worker(s): ${f1(b.passSeconds)} s / ${f1(s.passSeconds)} s = ${f1(b.passSeconds / s.passSeconds)}×`);
    }
  }
  console.log("\nwhere the limit is");
  for (const group of WATCHES > WATCHES_SMALL ? [small, big] : [big]) {
    const one = group.find((r) => r.workers === 1);
    for (const r of group) console.log(`  ${r.watches} watches, ${r.workers} worker(s): ${limitOf(r, one)}`);
  }
}

function printLateness(r: LatenessResult): void {
  const n = r.watches;
  const at = (q: number) => {
    const i = Math.ceil(q * n) - 1;
    return i < r.lateness.length ? `${f2(r.lateness[Math.max(0, i)]!)} s` : `not polled by the end (> ${MARGIN} s)`;
  };
  const within = r.lateness.filter((l) => l <= POLL_SECONDS).length;
  console.log(`\nlateness: ${n} watches due uniformly over ${WINDOW} s, ${r.workers} worker(s)×${r.threads} scan threads, run ${WINDOW + MARGIN} s`);
  console.log(`  lateness = last_polled_at − due instant (the instant of the tick that leased the watch)`);
  console.log(`  p50 ${at(0.5)}   p90 ${at(0.9)}   p99 ${at(0.99)}   max ${r.missed > 0 ? `not polled by the end: ${r.missed} watches` : at(1)}`);
  console.log(`  polled within one poll interval (${POLL_SECONDS} s): ${pct(within / n)} (${within} of ${n}); not polled by the end: ${r.missed}`);
  console.log(`  backlog (due, not yet polled), sampled every 5 s: max ${r.maxBacklog}, at the end ${r.backlogAtEnd}`);
  const c = r.cpu;
  const s = shares(c, r.workers);
  console.log(`  CPU per 1,000 watches: workers ${f2((c.workers / n) * 1000)} s, PostgreSQL ${f2((c.postgres / n) * 1000)} s; cores busy ${pct(s.busy)} over the run (others ${pct(s.others)})`);
}

// --- main -------------------------------------------------------------------------

async function run(bench: BenchDatabase, work: string): Promise<void> {
  const db = bench.handle.db;
  const schema = (await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]!.s;
  const { devnet, overlay } = await startDevnetProcess(work);
  const env = productionEnv(overlay, schema, work);
  const moneroUrl = overlay.MONERO_DAEMON_URL!;
  console.log(
    `upstreams: a separate vigil devnet on loopback (${process.env.ALL_UPSTREAMS === "1" ? "every upstream given to the workers" : "the workers get its monerod only"}); ` +
      `workers: node bin/vigil.mjs worker, DEVNET=off, MONERO_SCAN_THREADS ${WORKER_COUNTS.map((k) => `${k} worker(s) → ${scanThreadsFor(k)}`).join(", ")}`,
  );

  let t = performance.now();
  const seedCount = Math.min(SEEDS, WATCHES_SMALL);
  const { seeds, outsider } = await createSeeds(bench.handle, env, moneroUrl, seedCount);
  const box = new SecretBox(overlay.MASTER_KEY!);
  await cloneWatches(db, box, seeds, WATCHES_SMALL - seedCount, seedCount);
  console.log(`${WATCHES_SMALL} watches: ${seedCount} through createWatch, scanned to the tip, the rest cloned with SQL (${(performance.now() - t).toFixed(0)} ms)`);
  const ctx: Ctx = { handle: bench.handle, db, env, devnet, moneroUrl, outsider, prepSeconds: new Map() };

  const results: PassResult[] = [];
  let lateness: LatenessResult | null = null;
  const wantLateness = process.env.SKIP_LATENESS !== "1";
  // Each worker count: fresh processes, a first (cold) pass, then the measured pass; the lateness run follows
  // the measured pass of its worker count at the full size.
  const session = async (watches: number, k: number, passes: boolean) => {
    const threads = scanThreadsFor(k);
    const workers = await startWorkerProcesses(ctx, k, threads);
    try {
      for (const cold of passes ? [true, false] : [true]) {
        const r = await runPass(ctx, workers, threads, watches, cold);
        if (passes) results.push(r);
        console.log(`  ${cold ? "first pass " : "second pass"}: ${watches} watches, ${k} worker(s)×${threads} threads: ${f1(r.passSeconds)} s (${r.polled} polled)`);
      }
      if (watches === WATCHES && k === LATENESS_WORKERS && wantLateness) lateness = await runLateness(ctx, workers, threads, watches);
    } finally {
      await Promise.all(workers.map(stopGroup));
      for (const w of workers) if (w.notes.length > 0) notes.push(...w.notes.map((n) => `${w.name} (${watches} watches, ${k} workers): ${n}`));
    }
  };
  const notes: string[] = [];
  const sizes = WATCHES > WATCHES_SMALL ? [WATCHES_SMALL, WATCHES] : [WATCHES];
  for (const watches of sizes) {
    if (watches === WATCHES && WATCHES > WATCHES_SMALL) {
      t = performance.now();
      await cloneWatches(db, box, seeds, WATCHES - WATCHES_SMALL, WATCHES_SMALL);
      await sql`VACUUM (ANALYZE) watch_ledger`.execute(db);
      console.log(`grown to ${WATCHES} watches (cloned in ${(performance.now() - t).toFixed(0)} ms)`);
    }
    for (const k of WORKER_COUNTS) await session(watches, k, true);
  }
  if (wantLateness && !WORKER_COUNTS.includes(LATENESS_WORKERS)) await session(WATCHES, LATENESS_WORKERS, false);

  console.log(`\n${machineLine("results")}`);
  printPasses(results);
  if (lateness) printLateness(lateness);
  if (notes.length > 0) console.log(`\nwarnings and errors the workers logged (first of each process):\n${notes.map((n) => `  ${n}`).join("\n")}`);
}

async function main(): Promise<void> {
  console.log(machineLine("bench:workers"));
  execFileSync(process.execPath, [path.join(root, "bin", "build.mjs")], { stdio: "inherit" });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-workers-"));
  const bench = await openBenchDatabase("bench_workers");
  console.log(`database: ${bench.label}; ${WATCHES} and ${WATCHES_SMALL} watches; workers ${WORKER_COUNTS.join(", ")}`);
  let cleaning: Promise<void> | undefined;
  // Workers first (they hold connections to the schema), then the devnet, then the schema.
  const cleanup = () =>
    (cleaning ??= (async () => {
      await Promise.all([...running].filter((r) => r.name !== "devnet").map(stopGroup));
      await Promise.all([...running].map(stopGroup));
      await bench.handle.close().catch(() => {});
      await bench.drop().catch((e: Error) => console.error(`could not drop the benchmark schema: ${e.message}`));
      fs.rmSync(work, { recursive: true, force: true });
    })());
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and a
  // second signal without a handler would end it before the cleanup.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await run(bench, work);
  } finally {
    await cleanup();
  }
  console.log(`\n${machineLine("end")}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`bench:workers failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
