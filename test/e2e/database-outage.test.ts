/**
 * Issue 22, item 4: processes that outlive their database. With the API and
 * two `vigil worker` processes on PostgreSQL, terminating the database's
 * connections (pg_terminate_backend, as a failover, a pooler restart or an
 * idle-session timeout does) made three of four worker processes exit with
 * "Unhandled 'error' event … on Client instance" (57P01 / ECONNRESET): pg's
 * Client emits 'error' when its connection dies, and the pool listens only on
 * idle clients, so a client checked out by a transaction had no listener.
 * Scanning, deliveries and the payment reconciler stopped until a restart.
 *
 * Here a real `vigil api` and a real `vigil worker` (child processes) reach
 * PostgreSQL through a TCP proxy of the test's own (the machine's shared
 * server is never stopped):
 *   1. their connections are terminated over and over while watches are
 *      ticked, webhooks delivered and requests served: both processes live,
 *      and every event is accepted once and billed once;
 *   2. the proxy is cut for 30 s: both processes live, /v1/health says the
 *      database is down, requests get 503 database_unavailable in the error
 *      shape (a paid call too, and its retry with the same payment is
 *      charged once), and the work queued meanwhile is done once after.
 * PostgreSQL always: DATABASE_URL, or the machine's server on 127.0.0.1:5432.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_POSTGRES_URL } from "../helpers/db.js";
import { tempDir } from "../helpers/app.js";
import { readAnswer } from "../helpers/http.js";
import { haveOpenssl } from "../helpers/receiver.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startWorker, stopWorkers, workerEnv, workerLogs, type WorkerProc } from "../helpers/worker-process.js";

const PG_URL = process.env.DATABASE_URL ?? LOCAL_POSTGRES_URL;
const OUTAGE_MS = 30_000;
/** Tags the children's connections, so only theirs are terminated. */
const APP_NAME = `vigil_outage_${randomBytes(4).toString("hex")}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  c.on("error", () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}
const havePostgres = await reachable(PG_URL);

type Json = { status: number; json: any; headers: Headers };
async function call(url: string, init: RequestInit = {}): Promise<Json> {
  return readAnswer(await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) }));
}

/** The one error shape, a 503 database_unavailable with Retry-After, and nothing of a stack. */
function expectDatabaseUnavailable(r: Json): void {
  expect(r.status, JSON.stringify(r.json)).toBe(503);
  expect(Object.keys(r.json)).toEqual(["error"]);
  expect(r.json.error.code).toBe("database_unavailable");
  expect(typeof r.json.error.message).toBe("string");
  expect(typeof r.json.error.details).toBe("object");
  expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(JSON.stringify(r.json)).not.toMatch(/\bat \S+:\d+|node_modules|Error:/);
}

describe.skipIf(!havePostgres || !haveOpenssl)("processes that outlive their database (PostgreSQL through a proxy)", () => {
  let s: WatchStack;
  let proxy: TcpProxy;
  let admin: pg.Client;
  let api: ChildService;
  const workers: WorkerProc[] = [];
  const dirs: string[] = [];
  const watches: { watchId: string; token: string }[] = [];
  const payments: { watchId: string; nonce: string }[] = [];

  const db = () => s.t.db.db;
  const logs = () => `worker:\n${workerLogs(workers)}\n----\napi:\n${api?.output().slice(-3000) ?? ""}`;
  const alive = () => {
    expect(workers[0]!.proc.exitCode, logs()).toBeNull();
    expect(api.proc.exitCode, logs()).toBeNull();
  };

  beforeAll(async () => {
    s = await startWatchStack({ postgresUrl: PG_URL });
    const target = new URL(PG_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    admin = new pg.Client({ connectionString: PG_URL });
    admin.on("error", () => {});
    await admin.connect();
    const via = new URL(PG_URL);
    via.hostname = "127.0.0.1";
    via.port = String(proxy.port);
    via.searchParams.set("application_name", APP_NAME);
    const dbEnv = { DATABASE_URL: via.toString(), DATABASE_SCHEMA: s.t.db.schema!, DATABASE_POOL_SIZE: "4" };

    // The API child joins the stack's devnet (its facilitator and chain) through a devnet state file.
    const stateDir = tempDir("vigil-outage-state-");
    dirs.push(stateDir);
    const stateFile = path.join(stateDir, "devnet.json");
    const d = s.devnet;
    fs.writeFileSync(stateFile, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), dataDir: stateDir, evmUrl: d.evm.url, moneroUrl: d.monerod.url, payers: d.payers.length, configOverlay: d.configOverlay }), { mode: 0o600 });
    const apiDir = tempDir("vigil-outage-api-");
    const workerDir = tempDir("vigil-outage-worker-");
    dirs.push(apiDir, workerDir);
    api = await startCli(["api"], { ...dbEnv, DEVNET: "on", DEVNET_STATE_FILE: stateFile, PORT: "0", HOST: "127.0.0.1", DATA_DIR: apiDir, LOG_LEVEL: "info", WEBHOOK_ALLOW_PRIVATE: "1", RATE_LIMIT_PER_MINUTE: "100000" });
    const worker = startWorker(workerEnv(s, workerDir, { ...dbEnv, WATCH_LEASE_SECONDS: "3", LOG_LEVEL: "info" }));
    workers.push(worker);
    for (const until = Date.now() + 60_000; !/Vigil worker/.test(worker.out); await sleep(100)) {
      if (Date.now() > until || worker.proc.exitCode !== null) throw new Error(`the worker did not start:\n${worker.out}`);
    }
  }, 120_000);

  afterAll(async () => {
    await stopWorkers(workers);
    await api?.stop();
    await proxy?.close();
    await admin?.end().catch(() => {});
    await s?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A paid watch through the API child; a 503 is retried with the same signed payment, as a client would. */
  async function paidWatch(label: string, hookPath: string): Promise<Json & { attempts: Json[] }> {
    const wallet = s.wallet(label);
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chain: "monero", address: wallet.address, viewKey: wallet.viewKey, birthdayHeight: 0, webhookUrl: s.receiver.hookUrl(hookPath) }),
    };
    const url = `${api.url}/v1/private/watch`;
    let first = await call(url, init);
    for (let i = 0; first.status === 503 && i < 40; i++) {
      await sleep(250);
      first = await call(url, init);
    }
    expect(first.status, JSON.stringify(first.json)).toBe(402);
    const attempts: Json[] = [];
    // A 409 payment_in_progress (the first attempt's row could not be handed back while the connection was
    // down; nothing was settled) is answered the way a client does: a new authorisation.
    for (let signatures = 0; signatures < 3; signatures++) {
      const signed = await s.payer.signFor(decodePaymentRequiredHeader(first.headers.get("payment-required")!));
      for (let i = 0; i < 40; i++) {
        const r = await call(url, { ...init, headers: { ...init.headers, "PAYMENT-SIGNATURE": signed.header } });
        attempts.push(r);
        if (r.status === 409 && r.json.error?.code === "payment_in_progress") break;
        if (r.status !== 503) {
          if (r.status === 200) {
            s.receiver.registerSecret(r.json.watchId, r.json.webhookSecret);
            watches.push({ watchId: r.json.watchId, token: r.json.watchToken });
            payments.push({ watchId: r.json.watchId, nonce: (signed.payload.payload as { authorization: { nonce: string } }).authorization.nonce.toLowerCase() });
          }
          return { ...r, attempts };
        }
        expectDatabaseUnavailable(r);
        await sleep(250);
      }
    }
    throw new Error(`no answer but 503 or 409\n${logs()}`);
  }

  /** Waits until no outbox row is pending, then checks every event was accepted once and billed once. */
  async function expectEverythingOnce(timeoutMs: number): Promise<{ redeliveries: number }> {
    const until = Date.now() + timeoutMs;
    const pending = async () => Number((await db().selectFrom("webhook_outbox").select((e) => e.fn.countAll<string>().as("n")).where("status", "=", "pending").executeTakeFirstOrThrow()).n);
    const scanned = async () => (await db().selectFrom("watches").select("id").where("last_polled_at", "is", null).execute()).length === 0;
    while ((!(await scanned()) || (await pending()) > 0) && Date.now() < until) await sleep(250);
    expect(await scanned(), `every watch scanned\n${logs()}`).toBe(true);
    expect(await pending(), `pending outbox rows\n${logs()}`).toBe(0);

    const outbox = await db().selectFrom("webhook_outbox").selectAll().execute();
    expect(outbox.every((o) => o.status === "delivered")).toBe(true);
    // Every event reached the receiver under its own nonce, with a valid signature; nothing else did.
    expect(new Set(s.receiver.accepted.keys())).toEqual(new Set(outbox.map((o) => o.nonce)));
    expect(s.receiver.attempts.every((a) => a.signatureValid === true)).toBe(true);
    // An event sent again with the same nonce (a connection cut after the receiver's 200, before the
    // delivery was recorded) is the receiver's dedupe's to drop; counted, never billed again.
    const redeliveries = s.receiver.attempts.filter((a) => a.duplicate).length;

    const ledger = await db().selectFrom("watch_ledger").selectAll().execute();
    const billed = ledger.filter((l) => l.kind === "delivery").map((l) => l.ref);
    expect(billed.sort()).toEqual(outbox.filter((o) => o.billable).map((o) => o.id).sort());
    for (const w of await db().selectFrom("watches").selectAll().execute()) {
      const mine = ledger.filter((l) => l.watch_id === w.id);
      expect(mine.reduce((a, l) => a + BigInt(l.amount_atomic), 0n), w.id).toBe(BigInt(w.credit_atomic) + BigInt(w.drain_unbooked_atomic));
      expect(w.delivery_count, w.id).toBe(outbox.filter((o) => o.watch_id === w.id).length);
    }
    // Every paid watch: one settled payment with its work done, one opening credit row.
    const rows = await db().selectFrom("payments").selectAll().execute();
    const settled = rows.filter((p) => p.status === "settled");
    // Any other row moved no money (an orphaned pending row is the reconciler's, once its authorisation expires).
    expect(rows.filter((p) => p.status !== "settled").every((p) => p.tx_hash === null && !p.work_done), JSON.stringify(rows)).toBe(true);
    expect(settled.every((p) => p.work_done)).toBe(true);
    expect(settled.map((p) => p.nonce).sort()).toEqual(payments.map((p) => p.nonce).sort());
    for (const p of payments) {
      const opening = ledger.filter((l) => l.watch_id === p.watchId && BigInt(l.amount_atomic) > 0n);
      expect(opening, p.watchId).toHaveLength(1);
    }
    return { redeliveries };
  }

  it("connections terminated mid-tick and mid-request: both processes live, and the work is done once", async () => {
    for (const [label, amount] of [["alice", 1_000_000_000_001n], ["bob", 2_000_000_000_002n]] as const) s.devnet.monerod.send(s.wallet(label).address, amount);
    s.devnet.monerod.mine(1);
    for (const label of ["alice", "bob", "carol"]) {
      for (let i = 0; i < 3; i++) {
        const w = await s.openMoneroWatch(label, `/t/${label}/${i}`, { birthdayHeight: 0 });
        watches.push({ watchId: w.watchId, token: w.watchToken });
      }
    }

    // Terminate the children's backends every 25 ms (those in a query or a transaction), and all of
    // them every 20th round (an idle-session timeout), while the worker ticks and the API answers.
    const hits = new Map<string, number>();
    let terminating = true;
    const terminator = (async () => {
      for (let round = 0; terminating; round++) {
        const r = await admin.query<{ state: string | null }>(
          `SELECT state, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ($2 OR state <> 'idle')`,
          [APP_NAME, round % 20 === 0],
        );
        for (const row of r.rows) hits.set(row.state ?? "?", (hits.get(row.state ?? "?") ?? 0) + 1);
        await sleep(25);
      }
    })();
    const started = Date.now();
    const requests: Json[] = [];
    try {
      while (Date.now() - started < 12_000) {
        for (const w of watches) requests.push(await call(`${api.url}/v1/private/watch/${w.watchId}`, { headers: { "x-watch-token": w.token } }));
        alive();
        await sleep(50);
      }
    } finally {
      terminating = false;
      await terminator;
    }
    alive();
    // The terminations hit queries and open transactions, not only idle connections.
    expect([...hits.entries()].filter(([state]) => state !== "idle").reduce((a, [, n]) => a + n, 0), JSON.stringify([...hits])).toBeGreaterThan(5);
    // A request whose connection was cut answered 503 in the error shape; the rest answered.
    for (const r of requests) {
      if (r.status === 503) expectDatabaseUnavailable(r);
      else expect(r.status, JSON.stringify(r.json)).toBe(200);
    }
    const health = await call(`${api.url}/v1/health`);
    expect(health.json.database).toMatchObject({ available: true });

    const { redeliveries } = await expectEverythingOnce(45_000);
    if (process.env.OUTAGE_E2E_VERBOSE) console.log({ hits: [...hits], requests: requests.length, refused: requests.filter((r) => r.status === 503).length, redeliveries });
    alive();
    // The worker said what happened and went on (no crash, no stack of an unhandled 'error').
    expect(workers[0]!.out).not.toMatch(/Unhandled 'error' event|uncaught/i);
    expect(api.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
  }, 120_000);

  it("a database unreachable for 30 s: processes live, health says so, requests get 503, the queued work is done once after", async () => {
    const before = new Set(s.receiver.accepted.keys());
    await proxy.cut();
    const cutAt = Date.now();

    // Work that arrives during the outage (written straight to PostgreSQL, which the children cannot reach).
    s.devnet.monerod.send(s.wallet("carol").address, 3_000_000_000_003n);
    s.devnet.monerod.mine(1);
    const fresh = await s.openMoneroWatch("carol", "/outage/carol", { birthdayHeight: 0 });
    watches.push({ watchId: fresh.watchId, token: fresh.watchToken });
    // An already-scanned watch is due again at once: its next scan finds carol's new money.
    await db().updateTable("watches").set({ next_poll_at: new Date(0) }).execute();

    const health = await call(`${api.url}/v1/health`);
    expect(health.status).toBe(200);
    expect(health.json.status).toBe("degraded");
    expect(health.json.database).toMatchObject({ kind: "postgres", available: false });
    expect(typeof health.json.database.error).toBe("string");

    expectDatabaseUnavailable(await call(`${api.url}/v1/private/watch/${fresh.watchId}`, { headers: { "x-watch-token": fresh.watchToken } }));
    // A paid call during the outage: refused before anything is charged; the same payment works after.
    const paid = paidWatch("alice", "/outage/paid");

    while (Date.now() - cutAt < OUTAGE_MS) {
      alive();
      await sleep(1_000);
    }
    const stillDown = await call(`${api.url}/v1/health`);
    expect(stillDown.json.database.available).toBe(false);
    expect(s.receiver.accepted.size).toBe(before.size);

    await proxy.reopen();
    const reopenedAt = Date.now();
    const r = await paid;
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.attempts.length).toBeGreaterThan(1);
    for (const a of r.attempts.slice(0, -1)) expectDatabaseUnavailable(a);

    let up = await call(`${api.url}/v1/health`);
    for (let i = 0; !up.json.database?.available && i < 20; i++) {
      await sleep(500);
      up = await call(`${api.url}/v1/health`);
    }
    expect(up.json.database).toMatchObject({ available: true });

    await expectEverythingOnce(45_000);
    // carol's money on every carol watch, the one opened during the outage included.
    const carolWatches = await db().selectFrom("watches").select("id").where("address", "=", s.wallet("carol").address).execute();
    for (const w of carolWatches) {
      const deltas = s.receiver.deliveries(w.id, "balance_change").map((d) => (d.body!.delta as { balance_atomic: string }).balance_atomic);
      expect(deltas, w.id).toContain("3000000000003");
    }
    const resumedInMs = Date.now() - reopenedAt;
    if (process.env.OUTAGE_E2E_VERBOSE) console.log({ resumedInMs });
    alive();
    // The worker waited with growing pauses and said when it resumed.
    expect(workers[0]!.out).toMatch(/waits for the database/);
    expect(workers[0]!.out).toMatch(/resumed/);

    // Both still stop cleanly.
    workers[0]!.proc.kill("SIGTERM");
    expect(await workers[0]!.exited, logs()).toBe(0);
  }, 150_000);
});

if (!havePostgres) it.skip(`database outage — skipped: no PostgreSQL at ${PG_URL.replace(/\/\/[^@]*@/, "//")} (set DATABASE_URL)`, () => {});
else if (!haveOpenssl) it.skip("database outage — skipped: openssl is needed for the HTTPS receiver", () => {});
