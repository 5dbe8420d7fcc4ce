/**
 * npm run bench:watch — Private Watch at scale, on PostgreSQL (DATABASE_URL;
 * PGlite otherwise, labelled as such).
 *
 *  1. 10,000 active watches created through the watch service (real
 *     encrypted view keys of 8 devnet Monero wallets, real webhook secrets
 *     and token hashes), all caught up with the devnet chain.
 *  2. A prepared block (coinbase + transfers to an unwatched wallet) is
 *     mined; every watch must check it. One full tick is timed: expiry
 *     sweep, lease, idle drain, decrypt, scan with the real Monero scanner,
 *     ledger + watch rows, outbox. Once with one batch of 10,000, once as
 *     the worker loop runs it with the default batch size (back-to-back
 *     ticks until nothing is due). A breakdown per phase is printed.
 *  3. Webhook delivery to a loopback receiver: N billable events delivered
 *     through the outbox (claim, decrypt secret, sign, POST, mark delivered
 *     + charge in one transaction), at the tick's concurrency, over HTTP
 *     (development switch) and HTTPS (self-signed CA); plus the sender
 *     alone (sign + POST, no database) for attribution.
 *
 *  4. Ledger rows per 10,000 watches per day: one simulated UTC day of
 *     ticks at the default poll (180 s ± 10 % jitter, random phases), the
 *     idle-drain rows the meter writes (one per UTC day and watch) next to
 *     the previous rule (one row per tick that bills at least one atomic
 *     unit), both computed in this run over the same ticks; plus the rows
 *     the timed database ticks above actually wrote.
 *
 * Env: WATCHES (10000), DELIVERIES (3000), BATCH (default WORKER_BATCH_SIZE 500), SKIP_TICK=1 (deliveries only).
 */
import { startJobs } from "../src/core/jobs.js";
import { tableCounts, tableUpkeepJob } from "../src/db/upkeep.js";
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import pino from "pino";
import { ManualClock } from "../src/core/clock.js";
import { applyConfigOverlay, loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import type { DatabaseHandle } from "../src/db/connection.js";
import { startDevnet } from "../devnet/index.js";
import { deriveDevnetWallets } from "../devnet/monerod.js";
import { createWebhookSender, buildDeliveryHeaders, type WebhookSender } from "../src/webhooks/deliver.js";
import { signBody } from "../src/webhooks/sign.js";
import { applyIdleDrain, CREATE_CREDIT, DAY_MS, IDLE_RATE_PER_DAY, openMeter } from "../src/watch/meter.js";
import { eventBody, meterOf, snapshotOf } from "../src/watch/model.js";
import { insertEvents } from "../src/watch/account.js";
import { deliverPending } from "../src/watch/outbox.js";
import { createWatch } from "../src/watch/service.js";
import { runWatchTick, type TickStats } from "../src/watch/tick.js";
import type { ChainScanner } from "../src/chains/scanner.js";
import { startReceiver } from "../test/helpers/receiver.js";
import { cpuSince, machineLine, mapLimit, ms, openBenchDatabase, withBenchDatabase } from "./support.js";

const WATCHES = Number(process.env.WATCHES ?? 10_000);
const DELIVERIES = Math.min(Number(process.env.DELIVERIES ?? 3_000), WATCHES);
const log = pino({ level: "silent" });

/** Per-statement timing: the first words of each SQL statement → total ms and count. */
const queryTimes = new Map<string, { ms: number; n: number }>();
function statementKind(sqlText: string): string {
  const t = sqlText.replace(/\s+/g, " ").trim();
  if (/^update "?watches"? set "?lease_owner"? = \$1, "?lease_until"? = \$2 where id in/i.test(t)) return "lease (UPDATE … FOR UPDATE SKIP LOCKED)";
  if (/^update watches as w set/i.test(t)) return "watch rows (UPDATE … FROM VALUES)";
  if (/^delete from "watches"/i.test(t)) return "expiry sweep (DELETE)";
  if (/^insert into "watch_ledger"/i.test(t)) return "ledger (INSERT)";
  if (/^insert into "webhook_outbox"/i.test(t)) return "outbox (INSERT)";
  if (/^select distinct "watch_id" from "webhook_outbox"/i.test(t)) return "outbox pending (SELECT)";
  if (/^update "watches" set "lease_owner" = \$1, "lease_until" = \$2 where/i.test(t)) return "lease release (UPDATE)";
  if (/^(begin|commit|rollback)/i.test(t)) return "transaction control";
  return t.slice(0, 40);
}

/** The bench database, with Kysely's per-query log feeding the per-statement timing. */
const openTimedDatabase = () =>
  openBenchDatabase("bench_watch", (e) => {
    const k = statementKind(e.query.sql);
    const cur = queryTimes.get(k) ?? { ms: 0, n: 0 };
    cur.ms += e.queryDurationMillis;
    cur.n++;
    queryTimes.set(k, cur);
  });

/** Wraps the app's Monero scanner and secret box so a tick's time can be split by phase. */
function instrument(app: App) {
  const phases = { scanMs: 0, scanCalls: 0, decryptMs: 0, decrypts: 0 };
  const scanner = app.watch.scanners.monero!;
  const timed: ChainScanner = {
    chain: scanner.chain,
    validateWatchKey: (a, k) => scanner.validateWatchKey(a, k),
    defaultStartHeight: () => scanner.defaultStartHeight(),
    scanWatches: async (inputs, signal) => {
      const t = performance.now();
      try {
        return await scanner.scanWatches(inputs, signal);
      } finally {
        phases.scanMs += performance.now() - t;
        phases.scanCalls++;
      }
    },
  };
  app.watch.scanners.monero = timed;
  const box = app.watch.secretBox!;
  const open = box.open.bind(box);
  box.open = (sealed, ad) => {
    const t = performance.now();
    try {
      return open(sealed, ad);
    } finally {
      phases.decryptMs += performance.now() - t;
      phases.decrypts++;
    }
  };
  return {
    phases,
    reset() {
      phases.scanMs = phases.scanCalls = phases.decryptMs = phases.decrypts = 0;
      queryTimes.clear();
    },
  };
}

function printBreakdown(title: string, totalMs: number, stats: TickStats[], phases: { scanMs: number; decryptMs: number; decrypts: number; scanCalls: number }) {
  const cpu = cpuSince();
  const sum = (k: keyof TickStats) => stats.reduce((a, s) => a + s[k], 0);
  console.log(`\n${title}`);
  console.log(`  total                         ${ms(totalMs)}  (${stats.length} tick(s); claimed ${sum("claimed")}, scanned ${sum("scanned")}, scan errors ${sum("scanErrors")}, events ${sum("events")})`);
  console.log(`  CPU used by this process      ${ms(cpu)}  (load average now ${os.loadavg()[0]!.toFixed(1)})`);
  console.log(`  Monero scan (scanWatches)     ${ms(phases.scanMs)}  (${phases.scanCalls} call(s))`);
  console.log(`  view-key decrypt (AES-GCM)    ${ms(phases.decryptMs)}  (${phases.decrypts} keys)`);
  let dbMs = 0;
  for (const [k, v] of [...queryTimes.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
    dbMs += v.ms;
    console.log(`  SQL ${k.padEnd(42)} ${ms(v.ms)}  (${v.n}×)`);
  }
  console.log(`  other (JS: meter, bodies, JSON, driver) ${ms(totalMs - phases.scanMs - phases.decryptMs - dbMs)}`);
}

/** A minimal receiver in its own process (plain JS via node -e), so its CPU is not the sender's. */
const REMOTE_RECEIVER_JS = `
const http = require("node:http"), https = require("node:https"), fs = require("node:fs"), path = require("node:path");
const useTls = process.argv[1] === "https";
let n = 0; const nonces = new Set();
const handler = (req, res) => {
  if (req.method === "GET") { res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ requests: n, nonces: nonces.size })); return; }
  const chunks = []; req.on("data", (c) => chunks.push(c));
  req.on("end", () => { n++; try { nonces.add(JSON.parse(Buffer.concat(chunks)).nonce); } catch {} res.writeHead(200).end("ok"); });
};
const server = useTls
  ? https.createServer({ key: fs.readFileSync(path.join(path.dirname(process.argv[2]), "key.pem")), cert: fs.readFileSync(process.argv[2]) }, handler)
  : http.createServer(handler);
server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify({ port: server.address().port }) + "\\n"));
`;

async function startRemoteReceiver(useTls: boolean, certFile?: string) {
  const child = spawn(process.execPath, ["-e", REMOTE_RECEIVER_JS, useTls ? "https" : "http", certFile ?? ""], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      const line = buf.split("\n")[0];
      if (buf.includes("\n")) resolve(JSON.parse(line!).port as number);
    });
    child.once("exit", (code) => reject(new Error(`receiver exited with ${code}`)));
  });
  const base = `${useTls ? "https" : "http"}://127.0.0.1:${port}`;
  // The benchmark may end on an error: the receiver goes with it.
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  return {
    url: `${base}/deliver`,
    count: async () => {
      const r = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
      return useTls ? "(see in-process check)" : r ? await r.json() : null;
    },
    close: async () => {
      process.off("exit", killOnExit);
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/**
 * Ledger rows per 10,000 watches per day: every watch ticks through two UTC
 * days at the default poll with jitter; the rows of the second day count.
 * "before" applies the previous rule to the same ticks: a row whenever a
 * tick bills at least one atomic unit (floor((elapsed × rate + carried) / day) > 0).
 */
function ledgerRowsPerDay(watches: number, pollSeconds: number): { before: number; after: number; ticks: number } {
  const day1 = Date.UTC(2026, 0, 2);
  let before = 0;
  let after = 0;
  let ticks = 0;
  for (let i = 0; i < watches; i++) {
    let now = day1 - DAY_MS + Math.floor(Math.random() * pollSeconds * 1000);
    let state = openMeter(CREATE_CREDIT * 10n, now).state;
    let carried = 0n;
    while (now < day1 + DAY_MS) {
      const next = now + Math.round(pollSeconds * 1000 * (0.9 + Math.random() * 0.2));
      const r = applyIdleDrain(state, next);
      const numerator = BigInt(next - now) * IDLE_RATE_PER_DAY + carried;
      carried = numerator % BigInt(DAY_MS);
      if (next >= day1 && next < day1 + DAY_MS) {
        ticks++;
        if (numerator / BigInt(DAY_MS) > 0n) before++;
        after += r.entries.filter((e) => e.kind === "idle_drain").length;
      }
      state = r.state;
      now = next;
    }
  }
  const scale = 10_000 / watches;
  return { before: Math.round(before * scale), after: Math.round(after * scale), ticks: Math.round(ticks * scale) };
}

async function main() {
  console.log(machineLine("bench:watch"));
  await withBenchDatabase(await openTimedDatabase(), run);
}

async function run(handle: DatabaseHandle) {
  const devnet = await startDevnet({ dataDir: (await import("node:fs")).mkdtempSync(`${os.tmpdir()}/vigil-bench-`), blockSeconds: 0 });
  const receiverHttp = await startReceiver({ https: false });
  const receiverHttps = await startReceiver({ https: true });
  const clock = new ManualClock(Date.now());
  const parsed = loadConfig({
    DEVNET: "off",
    DATA_DIR: os.tmpdir(),
    PORT: "0",
    LOG_LEVEL: "silent",
    MONERO_CONFIRMATIONS: "1",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_ALLOW_PRIVATE: "1",
    WORKER_BATCH_SIZE: process.env.BATCH ?? "500",
    ...(process.env.MONERO_SCAN_THREADS ? { MONERO_SCAN_THREADS: process.env.MONERO_SCAN_THREADS } : {}),
  });
  const config = applyConfigOverlay(parsed, devnet.configOverlay);
  const app = await createApp(config, { clock, log, database: handle });
  const inst = instrument(app);

  // 8 wallets: the devnet's alice/bob/carol plus 5 more derived the same way (all testnet).
  const extra = deriveDevnetWallets(randomBytes(32).toString("hex")).concat(deriveDevnetWallets(randomBytes(32).toString("hex")));
  const wallets = [...devnet.wallets.filter((w) => w.label !== "miner").map((w) => ({ address: w.address, viewKey: w.viewKey! })), ...extra.slice(0, 5)];
  const outsider = extra[5]!; // receives the prepared block's transfers; watched by nobody

  // --- 1. 10,000 watches through the service ---------------------------------
  devnet.monerod.mine(2);
  const start = devnet.monerod.height() + 1;
  let t = performance.now();
  const ids: string[] = [];
  await mapLimit(
    Array.from({ length: WATCHES }, (_, i) => i),
    8,
    async (i) => {
      const w = wallets[i % wallets.length]!;
      const r = await createWatch({
        ctx: { deps: app.watch, db: app.database.db },
        input: { chain: "monero", address: w.address, viewKey: w.viewKey, webhookUrl: receiverHttp.hookUrl(`/w/${i % 100}`), birthdayHeight: start },
        opening: { creditAtomic: CREATE_CREDIT * 10n, funding: "usdc" },
      });
      ids[i] = r.watchId;
    },
  );
  // Already announced: the measured ticks are the steady state, not the first scan_complete.
  await sql`UPDATE watches SET initial_scan_done = true`.execute(app.database.db);
  console.log(`\ncreated ${WATCHES} watches through createWatch in ${ms(performance.now() - t)} (8 wallets' keys, each watch its own encrypted copy)`);

  const results: Record<string, number> = {};
  const skipTick = process.env.SKIP_TICK === "1";
  // Warm-up: one block, scanned by every watch (cold view-account cache), repeated until all are caught up.
  devnet.monerod.mine(1);
  const big = (batch: number) => runWatchTick(app.watch, { owner: "bench", batchSize: batch, leaseSeconds: 600 });
  const passUntilIdle = async (batch: number) => {
    const stats: TickStats[] = [];
    for (;;) {
      const s = await big(batch);
      if (s.claimed === 0) break;
      stats.push(s);
    }
    return stats;
  };
  const pollGap = config.WATCH_POLL_SECONDS * 1000 * 1.2;
  const ledgerCount = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM watch_ledger`.execute(app.database.db)).rows[0]!.n);
  inst.reset();
  cpuSince();
  t = performance.now();
  const warm = skipTick ? [] : await passUntilIdle(Math.min(WATCHES, 10_000));
  printBreakdown("warm-up pass (cold caches, first block for every watch)", performance.now() - t, warm, inst.phases);
  const behind = await sql<{ n: string }>`SELECT count(*)::text AS n FROM watches WHERE (scan_state->>'scannedHeight')::int < ${devnet.monerod.height()}`.execute(app.database.db);
  console.log(`  watches not yet at the tip after warm-up: ${behind.rows[0]!.n}`);

  // --- 2. The prepared block, and one full tick -------------------------------
  const prepareBlock = () => {
    for (let i = 0; i < 5; i++) devnet.monerod.send(outsider.address, 1_000_000_000n + BigInt(i));
    devnet.monerod.mine(1);
  };

  // The last pass runs the worker's table upkeep job beside the ticks, as `vigil worker` does (src/db/upkeep.ts);
  // the passes before it are its baseline: nothing vacuums the watch table while they run, as on a server
  // with autovacuum off, or on PGlite.
  for (const [name, batch, upkeep] of skipTick ? [] : [
    ["one tick, batch = 10,000", Math.min(WATCHES, 10_000), false],
    [`worker loop, batch = ${config.WORKER_BATCH_SIZE} (back-to-back ticks)`, config.WORKER_BATCH_SIZE, false],
    [`worker loop, batch = ${config.WORKER_BATCH_SIZE}, with the worker's table upkeep job`, config.WORKER_BATCH_SIZE, true],
  ] as const) {
    // Catch up on any block left over, then prepare a fresh block.
    clock.advance(pollGap);
    await passUntilIdle(10_000);
    prepareBlock();
    clock.advance(pollGap);
    inst.reset();
    cpuSince();
    const ledgerBefore = await ledgerCount();
    t = performance.now();
    let stats: TickStats[];
    const upkeepRunner = upkeep ? startJobs([tableUpkeepJob(app.database, { info: (o, m) => console.log(`  ${m}: ${JSON.stringify(o)}`) })], app.log) : null;
    try {
      stats = await passUntilIdle(batch);
      await upkeepRunner?.stop();
      const written = (await ledgerCount()) - ledgerBefore;
      console.log(`  ledger rows written by this pass of ${WATCHES} watches: ${written} (the previous rule: one idle-drain row per watch per tick, ${WATCHES})`);
    } catch (e) {
      await upkeepRunner?.stop();
      console.log(`\n${name}: FAILED — ${(e as Error).message.split("\n")[0]}`);
      results[name] = Number.NaN;
      continue;
    }
    const total = performance.now() - t;
    results[name] = total;
    printBreakdown(`${name}: prepared block (coinbase + 5 transfers) against ${WATCHES} idle watches`, total, stats, inst.phases);
    const stale = await sql<{ n: string }>`SELECT count(*)::text AS n FROM watches WHERE (scan_state->>'scannedHeight')::int < ${devnet.monerod.height()}`.execute(app.database.db);
    console.log(`  watches that did not reach the prepared block: ${stale.rows[0]!.n}`);
    if (app.database.kind === "postgres") {
      const c = await tableCounts(app.database, "watches");
      const size = await sql<{ s: string }>`SELECT pg_size_pretty(pg_relation_size('watches')) AS s`.execute(app.database.db);
      console.log(`  watch table after the pass: ${c.live} live, ${c.dead} dead row versions, ${size.rows[0]!.s} (autovacuum on this server: ${(await sql<{ autovacuum: string }>`SHOW autovacuum`.execute(app.database.db)).rows[0]!.autovacuum})`);
    }
  }

  // --- 3. Deliveries ----------------------------------------------------------
  const queueEvents = async (url: string) => {
    // Point the first DELIVERIES watches at the receiver and give each one real billable event.
    const chosen = ids.slice(0, DELIVERIES);
    await app.database.db.updateTable("watches").set({ webhook_url: url }).where("id", "in", chosen.slice(0, 5000)).execute();
    if (chosen.length > 5000) await app.database.db.updateTable("watches").set({ webhook_url: url }).where("id", "in", chosen.slice(5000)).execute();
    const rows = await app.database.db.selectFrom("watches").selectAll().where("id", "in", chosen.slice(0, 5000)).execute();
    const rows2 = chosen.length > 5000 ? await app.database.db.selectFrom("watches").selectAll().where("id", "in", chosen.slice(5000)).execute() : [];
    const events = [...rows, ...rows2].map((w) => {
      const snap = snapshotOf(w.snapshot, w.start_height);
      const current = { ...snap, balanceAtomic: (BigInt(snap.balanceAtomic) + 1_000_000_000n).toString() };
      return { watchId: w.id, billable: true, body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "balance_change", snap, current, meterOf(w), clock) };
    });
    for (let i = 0; i < events.length; i += 500) await insertEvents(app.database.db, events.slice(i, i + 500));
    return chosen;
  };
  const deliverAll = async (chosen: string[], concurrency: number) => {
    inst.reset();
    const realSend = app.watch.sender.send;
    let sendMs = 0;
    app.watch.sender = {
      ...app.watch.sender,
      send: async (req) => {
        const t0 = performance.now();
        try {
          return await realSend(req);
        } finally {
          sendMs += performance.now() - t0;
        }
      },
    };
    const before = performance.now();
    let ok = 0;
    let failed = 0;
    await mapLimit(chosen, concurrency, async (id) => {
      for (const o of await deliverPending(app.watch, id, "bench")) {
        if (o.ok) ok++;
        else failed++;
      }
    });
    const elapsed = performance.now() - before;
    app.watch.sender = { ...app.watch.sender, send: realSend };
    console.log(`    time summed over ${concurrency} concurrent deliverers: HTTP send ${ms(sendMs)}, secret decrypt ${ms(inst.phases.decryptMs)}, SQL:`);
    for (const [k, v] of [...queryTimes.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8)) console.log(`      ${k.padEnd(42)} ${ms(v.ms)} (${v.n}×, ${(v.ms / v.n).toFixed(2)} ms each)`);
    return { ok, failed, elapsed, rate: (ok / elapsed) * 1000 };
  };

  const sendOnly = async (url: string, tlsCa: Buffer | undefined, n: number, concurrency: number, reuseConnections = true) => {
    const sender = createWebhookSender({ policy: { allowHttp: true, allowPrivate: true }, clock, reuseConnections, ...(tlsCa ? { tlsCa } : {}) });
    const secret = "whsec_" + "ab".repeat(32);
    const body = JSON.stringify({ event: "balance_change", nonce: "evt_x", pad: "x".repeat(900) });
    const before = performance.now();
    let ok = 0;
    await mapLimit(Array.from({ length: n }, (_, i) => i), concurrency, async () => {
      const r = await sender.send({ url, body, headers: buildDeliveryHeaders(randomUUID(), "balance_change", signBody(secret, body)) });
      if (r.ok) ok++;
    });
    const elapsed = performance.now() - before;
    await sender.close();
    return { ok, elapsed, rate: (ok / elapsed) * 1000 };
  };

  if (DELIVERIES === 0) console.log("\nwebhook delivery: skipped (DELIVERIES=0)");
  else {
    console.log(`\nwebhook delivery (${DELIVERIES} billable events, one per watch; tick concurrency 16)`);
    const concurrency = 16; // the tick's deliveryConcurrency default
    const remoteHttp = await startRemoteReceiver(false);
    const remoteHttps = await startRemoteReceiver(true, receiverHttps.caFile!);
    const outboxRun = async (label: string, url: string, sender?: WebhookSender) => {
      const saved = app.watch.sender;
      if (sender) app.watch.sender = sender;
      const chosen = await queueEvents(url);
      const cpu0 = process.cpuUsage();
      const r = await deliverAll(chosen, concurrency);
      const cpu = process.cpuUsage(cpu0);
      const cpuPer = (cpu.user + cpu.system) / 1000 / Math.max(1, r.ok);
      if (sender) {
        await sender.close();
        app.watch.sender = saved;
      }
      console.log(`  outbox → ${label}: ${r.ok} delivered, ${r.failed} failed in ${ms(r.elapsed)} → ${r.rate.toFixed(0)} deliveries/s; this process used ${cpuPer.toFixed(2)} ms CPU per delivery`);
      return r.rate;
    };
    results["outbox HTTP, receiver in this process"] = await outboxRun("HTTP (dev switch), receiver in this process (verifies signatures)", receiverHttp.hookUrl("/deliver"));
    results["outbox HTTP"] = await outboxRun("HTTP (dev switch), receiver in its own process", remoteHttp.url);
    results["outbox HTTPS, per attempt"] = await outboxRun(
      "HTTPS (self-signed CA), receiver in its own process, baseline: a new TLS connection per attempt",
      remoteHttps.url,
      createWebhookSender({ policy: app.watch.urlPolicy, clock, tlsCa: receiverHttps.ca, reuseConnections: false }),
    );
    results["outbox HTTPS"] = await outboxRun(
      "HTTPS (self-signed CA), receiver in its own process, connections kept alive per vetted address",
      remoteHttps.url,
      createWebhookSender({ policy: app.watch.urlPolicy, clock, tlsCa: receiverHttps.ca }),
    );
    const instant: WebhookSender = { send: async () => ({ ok: true, status: 200, durationMs: 0 }), close: async () => {} };
    results["outbox bookkeeping only"] = await outboxRun("no HTTP at all (sender answers ok at once: the database bookkeeping ceiling)", remoteHttp.url, instant);
    for (const [name, url, ca] of [
      ["HTTP ", remoteHttp.url, undefined],
      ["HTTPS", remoteHttps.url, receiverHttps.ca],
    ] as const) {
      const base = await sendOnly(url, ca, DELIVERIES, concurrency, false);
      const r = await sendOnly(url, ca, DELIVERIES, concurrency);
      console.log(`  sender only (sign + POST, no database) ${name} → receiver in its own process: ${r.rate.toFixed(0)}/s kept alive, ${base.rate.toFixed(0)}/s one connection per attempt`);
    }
    const inProc = receiverHttp.attempts.filter((a) => a.path === "/deliver");
    console.log(`  in-process receiver: ${inProc.length} deliveries, ${new Set(inProc.map((a) => a.nonce)).size} distinct nonces, signatures valid: ${inProc.every((a) => a.signatureValid !== false)}`);
    console.log(`  own-process receivers: ${JSON.stringify(await remoteHttp.count())} HTTP, ${JSON.stringify(await remoteHttps.count())} HTTPS`);
    await remoteHttp.close();
    await remoteHttps.close();
  }

  const pollSeconds = Number(process.env.LEDGER_POLL_SECONDS ?? 180);
  const lt = performance.now();
  const rows = ledgerRowsPerDay(Math.min(WATCHES, 10_000), pollSeconds);
  console.log(`\nledger rows per 10,000 watches per UTC day (idle, poll ${pollSeconds} s ± 10 %, ${rows.ticks} ticks; simulated in ${ms(performance.now() - lt)})`);
  console.log(`  before (a row per tick that bills): ${rows.before.toLocaleString("en")}   after (a row per UTC day): ${rows.after.toLocaleString("en")}`);
  console.log(`  (credit events — deliveries, top-ups, fees — add at most one drain row each before their own row, in both rules one row of their own)`);

  console.log("\nsummary");
  const tickMs = results["one tick, batch = 10,000"] ?? Number.NaN;
  const loopMs = [...Object.entries(results)].find(([k]) => k.startsWith("worker loop"))?.[1] ?? Number.NaN;
  if (!skipTick) console.log(`  one tick of ${WATCHES} idle watches (batch 10,000): ${Number.isNaN(tickMs) ? "FAILED" : ms(tickMs)}   target < 10000 ms: ${tickMs < 10_000 ? "met" : "MISSED"}`);
  if (!skipTick) console.log(`  full pass as the worker loop runs it (batch ${config.WORKER_BATCH_SIZE}): ${ms(loopMs)}   target < 10000 ms: ${loopMs < 10_000 ? "met" : "MISSED"}`);
  const upkeepMs = [...Object.entries(results)].find(([k]) => k.includes("table upkeep"))?.[1] ?? Number.NaN;
  if (!skipTick) console.log(`  the same pass with the worker's table upkeep job beside it: ${ms(upkeepMs)} (baseline, the pass before it: ${ms(loopMs)})`);
  const rate = results["outbox HTTP"]!;
  const https = results["outbox HTTPS"]!;
  if (DELIVERIES > 0) console.log(`  signed deliveries through the outbox: ${rate.toFixed(0)}/s HTTP, ${https.toFixed(0)}/s HTTPS kept alive (baseline, a connection per attempt: ${results["outbox HTTPS, per attempt"]!.toFixed(0)}/s; bookkeeping ceiling ${results["outbox bookkeeping only"]!.toFixed(0)}/s)   target ≥ 500/s: HTTP ${rate >= 500 ? "met" : "MISSED"}, HTTPS ${https >= 500 ? "met" : "MISSED"}`);

  await app.close();
  await receiverHttp.close();
  await receiverHttps.close();
  await devnet.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
