/**
 * Two worker processes (`vigil worker`, the production CLI) on one
 * PostgreSQL schema share the watches through leases: every event reaches
 * the receiver's dedupe exactly once (a failed first attempt is retried with
 * the same bytes and nonce), and every delivered event is billed exactly
 * once. PGlite is single-process, so this runs only with DATABASE_URL.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usingPostgres } from "../helpers/db.js";
import { tempDir } from "../helpers/app.js";
import { haveOpenssl } from "../helpers/receiver.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { startWorker, stopWorkers, workerEnv, workerLogs, type WorkerProc } from "../helpers/worker-process.js";

const WATCHES_PER_WALLET = 5;

/** What a worker's JSON log says of its ticks and of the deliveries its pool ran. */
function ticksOf(w: WorkerProc): { deliveries: number; deliveryFailures: number; claimed: number }[] {
  return (
    w.out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return {};
        }
      })
      // The tick hands deliveries to the worker's pool, which logs their counts when they end.
      .filter((j) => j.msg === "watch tick" || j.msg === "webhook deliveries")
      .map((j) => ({ deliveries: Number(j.deliveries ?? 0), deliveryFailures: Number(j.deliveryFailures ?? 0), claimed: Number(j.claimed ?? 0) }))
  );
}

describe.skipIf(!usingPostgres || !haveOpenssl)("two worker processes on PostgreSQL", () => {
  let s: WatchStack;
  const workers: WorkerProc[] = [];
  const watches: { watchId: string; wallet: string }[] = [];

  const workerDir = tempDir("vigil-worker-");

  beforeAll(async () => {
    s = await startWatchStack({});
    const env = workerEnv(s, workerDir, { WORKER_BATCH_SIZE: "4" });
    workers.push(startWorker(env), startWorker(env));
  });

  afterAll(async () => {
    await stopWorkers(workers);
    await s?.close();
    fs.rmSync(workerDir, { recursive: true, force: true });
  });

  const db = () => s.t.db.db;

  it("delivers every event exactly once to the receiver's dedupe, retries with the same nonce, and never bills twice", async () => {
    // Every nonce fails once, so every event is delivered on a retry (by whichever worker leases it next).
    s.receiver.failFirstAttempts(true);
    s.receiver.setDelay(5);
    const amounts = new Map<string, bigint>([
      ["alice", 1_000_000_000_001n],
      ["bob", 2_000_000_000_002n],
    ]);
    for (const [label, amount] of amounts) s.devnet.monerod.send(s.wallets.find((w) => w.label === label)!.address, amount);
    s.devnet.monerod.mine(1);

    for (const label of ["alice", "bob", "carol"]) {
      const wallet = s.wallets.find((w) => w.label === label)!;
      for (let i = 0; i < WATCHES_PER_WALLET; i++) {
        const r = await s.paid("/v1/private/watch", {
          chain: "monero",
          address: wallet.address,
          viewKey: wallet.viewKey,
          birthdayHeight: 0,
          webhookUrl: s.receiver.hookUrl(`/w/${label}/${i}`),
        });
        expect(r.status).toBe(200);
        s.receiver.registerSecret(r.json.watchId, r.json.webhookSecret);
        watches.push({ watchId: r.json.watchId, wallet: label });
      }
    }
    const n = watches.length;

    // Round 1: balance_change for alice's and bob's watches, scan_complete for all.
    const round1 = 2 * WATCHES_PER_WALLET + n;
    const withLogs = async (p: Promise<void>) =>
      p.catch((e: Error) => {
        throw new Error(`${e.message}\nworker output:\n${workerLogs(workers)}`);
      });
    await withLogs(s.receiver.waitFor(() => s.receiver.accepted.size >= round1, 60_000, `${round1} deliveries`));

    // Round 2: money for carol after the first scans.
    const carolAmount = 3_000_000_000_003n;
    s.devnet.monerod.send(s.wallets.find((w) => w.label === "carol")!.address, carolAmount);
    s.devnet.monerod.mine(1);
    await withLogs(s.receiver.waitFor(
      () => watches.filter((w) => w.wallet === "carol").every((w) => s.receiver.deliveries(w.watchId, "balance_change").some((d) => (d.body!.delta as { balance_atomic: string }).balance_atomic === carolAmount.toString())),
      60_000,
      "carol's balance_change on every carol watch",
    ));
    // Let the workers drain anything still pending.
    const settled = async () =>
      (await db().selectFrom("webhook_outbox").select("id").where("status", "=", "pending").execute()).length === 0;
    const until = Date.now() + 30_000;
    while (!(await settled()) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(await settled()).toBe(true);

    for (const w of workers) w.proc.kill("SIGTERM");
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes, workerLogs(workers, 2000)).toEqual([0, 0]);

    // Exactly once at the receiver: every outbox row was accepted once, under its own nonce.
    const outbox = await db().selectFrom("webhook_outbox").selectAll().execute();
    expect(outbox.length).toBe(s.receiver.accepted.size);
    expect(outbox.every((o) => o.status === "delivered")).toBe(true);
    expect(new Set(outbox.map((o) => o.nonce))).toEqual(new Set(s.receiver.accepted.keys()));
    for (const [nonce, count] of s.receiver.acceptCount) expect(count, nonce).toBe(1);
    expect(s.receiver.attempts.filter((a) => a.duplicate)).toHaveLength(0);
    expect(s.receiver.attempts.every((a) => a.signatureValid === true)).toBe(true);
    // Same nonce on retry: the first attempt of each event failed, the accepted retry carried identical bytes.
    for (const o of outbox) {
      const tries = s.receiver.attempts.filter((a) => a.nonce === o.nonce);
      expect(tries.length).toBeGreaterThanOrEqual(2);
      expect(tries[0]!.status).toBe(500);
      expect(tries.every((t) => t.raw.equals(Buffer.from(o.body)))).toBe(true);
      expect(o.attempts).toBe(tries.length);
    }

    // Billed exactly once: one delivery ledger row per delivered billable outbox row.
    const ledger = await db().selectFrom("watch_ledger").selectAll().execute();
    const deliveryRows = ledger.filter((l) => l.kind === "delivery");
    const billable = outbox.filter((o) => o.billable);
    expect(deliveryRows.map((l) => l.ref).sort()).toEqual(billable.map((o) => o.id).sort());
    expect(deliveryRows.every((l) => l.amount_atomic === "-5000")).toBe(true);
    for (const { watchId } of watches) {
      const w = await db().selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
      const mine = ledger.filter((l) => l.watch_id === watchId);
      // The ledger holds the credit plus the idle drain not booked yet (booked once per UTC day or before the next row).
      expect(mine.reduce((a, l) => a + BigInt(l.amount_atomic), 0n)).toBe(BigInt(w.credit_atomic) + BigInt(w.drain_unbooked_atomic));
      expect(w.delivery_count).toBe(outbox.filter((o) => o.watch_id === watchId).length);
      expect(w.consecutive_failures).toBe(0);
      expect(w.lease_owner).toBeNull();
    }
    // The expected events, with exact amounts.
    for (const { watchId, wallet } of watches) {
      const got = s.receiver.deliveries(watchId);
      expect(got.filter((d) => d.event === "scan_complete")).toHaveLength(1);
      const deltas = got.filter((d) => d.event === "balance_change").map((d) => (d.body!.delta as { balance_atomic: string }).balance_atomic);
      const expected = wallet === "carol" ? carolAmount : amounts.get(wallet)!;
      expect(deltas).toContain(expected.toString());
    }

    // Both processes did part of the work, and their own counts add up to what the receiver saw.
    const perWorker = workers.map(ticksOf);
    const delivered = perWorker.map((ticks) => ticks.reduce((a, t) => a + t.deliveries, 0));
    const failed = perWorker.map((ticks) => ticks.reduce((a, t) => a + t.deliveryFailures, 0));
    expect(delivered[0]! + delivered[1]!).toBe(outbox.length);
    expect(failed[0]! + failed[1]!).toBe(s.receiver.attempts.filter((a) => a.status !== 200).length);
    if (process.env.WATCH_E2E_VERBOSE) console.log({ delivered, failed, outbox: outbox.length, attempts: s.receiver.attempts.length });
    expect(delivered[0]).toBeGreaterThan(0);
    expect(delivered[1]).toBeGreaterThan(0);
  });
});

if (!usingPostgres) it.skip("two worker processes — skipped: needs DATABASE_URL (PGlite is single-process)", () => {});
else if (!haveOpenssl) it.skip("two worker processes — skipped: openssl is needed for the HTTPS receiver", () => {});
