/**
 * A worker process killed with SIGKILL in the middle of a tick's work (its
 * delivery to a slow receiver in flight) frees its watches within one lease
 * length: another worker process polls the watch and delivers the event soon
 * after, and the event is billed once. While the first worker was alive its
 * lease was renewed past its nominal length, so no other worker could take
 * the watch from a slow but live worker. PostgreSQL only (two processes).
 */
import fs from "node:fs";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usingPostgres } from "../helpers/db.js";
import { tempDir } from "../helpers/app.js";
import { haveOpenssl } from "../helpers/receiver.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { startWorker, stopWorkers, workerEnv, workerLogs, type WorkerProc } from "../helpers/worker-process.js";

const LEASE_SECONDS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!usingPostgres || !haveOpenssl)("a worker killed mid-tick", () => {
  let s: WatchStack;
  const workers: WorkerProc[] = [];
  const workerDir = tempDir("vigil-worker-kill-");
  let env: Record<string, string>;

  beforeAll(async () => {
    s = await startWatchStack({});
    env = workerEnv(s, workerDir, { WATCH_LEASE_SECONDS: String(LEASE_SECONDS) });
  }, 120_000);

  afterAll(async () => {
    await stopWorkers(workers);
    await s?.close();
    fs.rmSync(workerDir, { recursive: true, force: true });
  });

  it("frees its watches within a lease length, renews them while alive, and the event is billed once", async () => {
    const db = s.t.db.db;
    const created = await s.openMoneroWatch("alice", "/slow", { birthdayHeight: 0 });
    const watchId = created.watchId;
    // The receiver takes 7 s per answer (below the sender's 8 s timeout): worker A is busy delivering.
    s.receiver.delayPath("/slow", 7_000);
    const logs = () => workerLogs(workers);

    const a = startWorker(env);
    workers.push(a);
    await s.receiver.waitFor(() => s.receiver.attempts.some((x) => x.watchId === watchId), 30_000, "worker A's first attempt").catch((e: Error) => {
      throw new Error(`${e.message}\n${logs()}`);
    });
    const leasedA = await db.selectFrom("watches").select(["lease_owner", "last_polled_at"]).where("id", "=", watchId).executeTakeFirstOrThrow();
    const ownerA = leasedA.lease_owner;
    expect(ownerA).not.toBeNull();

    // Past the nominal lease length, the live worker still holds the watch: its lease was renewed.
    await sleep((LEASE_SECONDS + 1.5) * 1000);
    const held = await sql<{ lease_owner: string | null; live: boolean }>`
      SELECT lease_owner, lease_until > now() AS live FROM watches WHERE id = ${watchId}`.execute(db);
    expect(held.rows[0]).toEqual({ lease_owner: ownerA, live: true });
    // Held by renewal, not leased afresh: no tick polled the watch again while its delivery ran.
    const polledAgain = await db.selectFrom("watches").select("last_polled_at").where("id", "=", watchId).executeTakeFirstOrThrow();
    expect(polledAgain.last_polled_at).toEqual(leasedA.last_polled_at);
    expect(s.receiver.attempts.filter((x) => x.watchId === watchId)).toHaveLength(1);

    // SIGKILL while the delivery is in flight: nothing is recorded for it.
    a.proc.kill("SIGKILL");
    await a.exited;
    const killedAt = performance.now();
    const seenBefore = s.receiver.attempts.length;
    s.receiver.delayPath("/slow", null);
    const pending = await db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", watchId).execute();
    expect(pending.map((o) => [o.event, o.status, o.attempts])).toEqual([["scan_complete", "pending", 0]]);

    const b = startWorker(env);
    workers.push(b);
    // Worker B delivers the same event (same nonce) once the lease has run out.
    await s.receiver
      .waitFor(() => s.receiver.attempts.slice(seenBefore).some((x) => x.watchId === watchId && x.status === 200), 30_000, "worker B's delivery")
      .catch((e: Error) => {
        throw new Error(`${e.message}\n${logs()}`);
      });
    const tookMs = performance.now() - killedAt;
    // A lease length, a poll and a worker start-up; with the earlier 120 s lease this took two minutes.
    expect(tookMs).toBeLessThan(LEASE_SECONDS * 1000 + 15_000);
    const retry = s.receiver.attempts.slice(seenBefore).find((x) => x.watchId === watchId)!;
    expect(retry.nonce).toBe(pending[0]!.nonce);
    expect(retry.signatureValid).toBe(true);

    let outbox = await db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", watchId).execute();
    const until = Date.now() + 15_000;
    while (outbox.some((o) => o.status !== "delivered") && Date.now() < until) {
      await sleep(100);
      outbox = await db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", watchId).execute();
    }
    expect(outbox.map((o) => o.status)).toEqual(["delivered"]);

    b.proc.kill("SIGTERM");
    expect(await b.exited, logs()).toBe(0);

    // Billed once: one delivery row for the one event; the ledger adds up to the credit.
    const ledger = await db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).execute();
    const deliveries = ledger.filter((l) => l.kind === "delivery");
    expect(deliveries.map((l) => [l.ref, l.amount_atomic])).toEqual([[outbox[0]!.id, "-5000"]]);
    const w = await db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
    const unbooked = BigInt(w.drain_unbooked_atomic);
    expect(ledger.reduce((acc, l) => acc + BigInt(l.amount_atomic), 0n)).toBe(BigInt(w.credit_atomic) + unbooked);
    expect(w.delivery_count).toBe(1);
    expect(w.lease_owner).toBeNull();
  }, 120_000);
});

if (!usingPostgres) it.skip("worker killed mid-tick — skipped: needs DATABASE_URL (PGlite is single-process)", () => {});
else if (!haveOpenssl) it.skip("worker killed mid-tick — skipped: openssl is needed for the HTTPS receiver", () => {});
