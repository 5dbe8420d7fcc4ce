/**
 * Regressions of the poll tick, on the real app with the real Monero scanner
 * and the devnet chain (one stack for the file; the cases run in order).
 *
 * 1. A worker that loses its lease during a tick (a stall longer than the
 *    lease: a slow daemon, a paused process) must not write anything for the
 *    watches another worker has leased since. Before the fix the late
 *    worker's transaction skipped the watch rows (guarded by lease_owner) but
 *    still inserted its ledger rows and outbox events: the idle drain was
 *    booked twice (ledger ≠ credit), the same payment produced a second
 *    balance_change under a new nonce, and that duplicate was delivered and
 *    billed. The stall is played by running worker B's tick from inside
 *    worker A's scan after A's lease has run out.
 * 2. A watch created with an old birthday catches up over several scanner
 *    calls (at most 200 blocks each). The catch-up must continue at the next
 *    tick, not one poll interval later: at Monero's 2-minute blocks and a
 *    3-minute poll, 200 blocks per poll gains barely on the chain, and a
 *    birthday a year back would take days to reach `scan_complete`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch, topupWatch } from "../../src/watch/service.js";
import { runWatchTick, type TickStats } from "../../src/watch/tick.js";
import type { ChainScanner } from "../../src/chains/scanner.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

type Wallet = WatchStack["wallets"][number];
/** A watch created through the service the paid route calls (its opening credit, no payment step). */
const watchOn = (wallet: Wallet, path: string, extra: { birthdayHeight?: number } = {}) =>
  createWatch({
    ctx: { deps: s.t.app.watch, db: s.t.db.db },
    input: { chain: "monero", address: wallet.address, viewKey: wallet.viewKey!, webhookUrl: s.receiver.hookUrl(path), ...extra },
    opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
  });

describe("a worker that lost its lease mid-tick", () => {
  it("writes no ledger rows and no events for the watch: one balance_change, billed once", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const app = s.t.app;
    const created = await watchOn(alice, "/lease");
    const watchId = created.watchId;
    s.receiver.registerSecret(watchId, created.webhookSecret);
    const amount = 4_200_000_000_000n;
    s.devnet.monerod.send(alice.address, amount);
    s.devnet.monerod.mine(1);
    s.advance(3_600_000);

    const real = app.watch.scanners.monero!;
    let stalled = false;
    let statsB: TickStats | undefined;
    const stalling: ChainScanner = {
      chain: real.chain,
      validateWatchKey: (a, k) => real.validateWatchKey(a, k),
      defaultStartHeight: () => real.defaultStartHeight(),
      scanWatches: async (inputs, signal) => {
        if (!stalled) {
          stalled = true;
          // Worker A stalls past its 2 s lease; worker B leases the watch and does the whole tick.
          s.advance(5_000);
          statsB = await runWatchTick(app.watch, { owner: "worker-B", batchSize: 10 });
        }
        return real.scanWatches(inputs, signal);
      },
    };
    app.watch.scanners.monero = stalling;
    try {
      const statsA = await runWatchTick(app.watch, { owner: "worker-A", batchSize: 10, leaseSeconds: 2 });
      expect(statsA.claimed).toBe(1);
    } finally {
      app.watch.scanners.monero = real;
    }
    expect(statsB).toMatchObject({ claimed: 1, scanned: 1, deliveries: 2 });

    const got = s.receiver.deliveries(watchId);
    expect(got.map((d) => d.event)).toEqual(["balance_change", "scan_complete"]);
    expect((got[0]!.body!.delta as { balance_atomic: string }).balance_atomic).toBe(amount.toString());
    expect(s.receiver.attempts.filter((a) => a.watchId === watchId)).toHaveLength(2);

    const db = s.t.db.db;
    const ledger = await db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).orderBy("id").execute();
    const w = await db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
    expect(ledger.map((l) => l.kind)).toEqual(["create", "idle_drain", "delivery", "delivery"]);
    expect(ledger.reduce((a, l) => a + BigInt(l.amount_atomic), 0n)).toBe(BigInt(w.credit_atomic));
    // B's drain: one hour and five seconds at 20000/day.
    expect(BigInt(w.credit_atomic)).toBe(100_000n - (3_605_000n * 20_000n) / 86_400_000n - 10_000n);
    const outbox = await db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", watchId).execute();
    expect(outbox).toHaveLength(2);
    expect(w.lease_owner).toBeNull();
  });
});

describe("catch-up from an old birthday", () => {
  it("keeps scanning at every tick until it reaches the tip, then announces scan_complete once and returns to the poll interval", async () => {
    const bob = s.wallets.find((w) => w.label === "bob")!;
    const amount = 123_456_789n;
    s.devnet.monerod.mine(5);
    s.devnet.monerod.send(bob.address, amount);
    s.devnet.monerod.mine(445);
    const tip = s.devnet.monerod.height();
    const w = await watchOn(bob, "/catchup", { birthdayHeight: 0 });
    s.receiver.registerSecret(w.watchId, w.webhookSecret);
    const row = () => s.t.db.db.selectFrom("watches").selectAll().where("id", "=", w.watchId).executeTakeFirstOrThrow();

    // First call: 200 blocks; the payment (height 6) is found; not caught up yet.
    s.advance(1000);
    expect((await s.tick()).claimed).toBe(1);
    expect(((await row()).scan_state as { scannedHeight: number }).scannedHeight).toBe(199);
    expect(s.receiver.deliveries(w.watchId, "balance_change")).toHaveLength(1);
    expect(s.receiver.deliveries(w.watchId, "scan_complete")).toHaveLength(0);

    // Next ticks, a second apart (the worker loop's idle sleep): the catch-up goes on.
    s.advance(1000);
    expect((await s.tick()).claimed).toBe(1);
    s.advance(1000);
    expect((await s.tick()).claimed).toBe(1);
    expect(((await row()).scan_state as { scannedHeight: number }).scannedHeight).toBe(tip);
    const done = s.receiver.deliveries(w.watchId, "scan_complete");
    expect(done).toHaveLength(1);
    expect(done[0]!.body).toMatchObject({ scan: { fromHeight: 0, toHeight: tip } });

    // Caught up: back to the normal cadence.
    const next = (await row()).next_poll_at.getTime() - s.clock.now();
    expect(next).toBeGreaterThanOrEqual(54_000);
    s.advance(1000);
    expect((await s.tick()).claimed).toBe(0);
  }, 120_000);
});

describe("a top-up that commits while a tick is scanning", () => {
  it("is kept: the tick bills from the meter as it is at commit, and the ledger still sums to the credit", async () => {
    const carol = s.wallets.find((w) => w.label === "carol")!;
    const app = s.t.app;
    const created = await watchOn(carol, "/topup-race");
    s.receiver.registerSecret(created.watchId, created.webhookSecret);
    s.advance(1000);
    await s.tick(); // first scan (scan_complete), so later ticks are steady-state
    const real = app.watch.scanners.monero!;
    let toppedUp = false;
    app.watch.scanners.monero = {
      chain: real.chain,
      validateWatchKey: (a, k) => real.validateWatchKey(a, k),
      defaultStartHeight: () => real.defaultStartHeight(),
      scanWatches: async (inputs, signal) => {
        if (!toppedUp && inputs.some((i) => i.watchId === created.watchId)) {
          toppedUp = true;
          // The customer pays for a top-up while the worker is scanning (outside its transaction).
          await topupWatch({ ctx: { deps: app.watch, db: s.t.db.db, paymentRef: "race" }, input: { watchId: created.watchId, watchToken: created.watchToken, amountAtomic: 1_000_000n } });
        }
        return real.scanWatches(inputs, signal);
      },
    };
    try {
      s.advance(86_400_000); // one idle day: 20000 atomic of drain
      await s.tick();
    } finally {
      app.watch.scanners.monero = real;
    }
    expect(toppedUp).toBe(true);
    const w = await s.t.db.db.selectFrom("watches").selectAll().where("id", "=", created.watchId).executeTakeFirstOrThrow();
    const ledger = await s.t.db.db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", created.watchId).execute();
    const sum = ledger.reduce((a, r) => a + BigInt(r.amount_atomic), 0n);
    expect(BigInt(w.credit_atomic)).toBe(sum);
    const delivered = ledger.filter((r) => r.kind === "delivery").reduce((a, r) => a + BigInt(r.amount_atomic), 0n);
    // opening credit + top-up − one day of idle drain (booked once) − deliveries
    expect(BigInt(w.credit_atomic)).toBe(CREATE_CREDIT + 1_000_000n - 20_000n + delivered);
    expect(ledger.filter((r) => r.kind === "idle_drain").reduce((a, r) => a + BigInt(r.amount_atomic), 0n)).toBe(-20_000n);
  }, 120_000);
});

describe("a watch whose stored secrets no longer decrypt", () => {
  it("is skipped alone: the other watches of the batch are scanned, delivered and released", async () => {
    const [alice, bob] = [s.wallets.find((w) => w.label === "alice")!, s.wallets.find((w) => w.label === "bob")!];
    const broken = await watchOn(alice, "/broken");
    const healthy = await watchOn(bob, "/healthy");
    s.receiver.registerSecret(healthy.watchId, healthy.webhookSecret);
    // Corrupt the broken watch's sealed view key and webhook secret (as a wrong MASTER_KEY would look).
    const row = await s.t.db.db.selectFrom("watches").select(["view_key_enc", "webhook_secret_enc"]).where("id", "=", broken.watchId).executeTakeFirstOrThrow();
    const flip = (b: Buffer) => Buffer.from(b.map((x, i) => (i === b.length - 1 ? x ^ 1 : x)));
    await s.t.db.db
      .updateTable("watches")
      .set({ view_key_enc: flip(row.view_key_enc), webhook_secret_enc: flip(row.webhook_secret_enc) })
      .where("id", "=", broken.watchId)
      .execute();
    s.advance(1000);
    const stats = await s.tick();
    expect(stats.scanErrors).toBe(1);
    expect(s.receiver.deliveries(healthy.watchId, "scan_complete")).toHaveLength(1);
    const leases = await s.t.db.db.selectFrom("watches").select(["id", "lease_owner"]).where("id", "in", [broken.watchId, healthy.watchId]).execute();
    for (const l of leases) expect(l.lease_owner).toBeNull();
  }, 120_000);
});

describe("a tick's write hands back the leases of watches with nothing to deliver", () => {
  it("in the same statement as their rows (one row version, no release afterwards); a watch with an event keeps its lease for the delivery", async () => {
    const busy = await s.openMoneroWatch("alice", "/busy-release");
    const quiet = await s.openMoneroWatch("carol", "/quiet-release");
    s.advance(1000);
    await s.tick(); // first scans (scan_complete), so the next tick is steady-state
    s.devnet.monerod.send(s.wallet("alice").address, 7_000_000_000n);
    s.devnet.monerod.mine(1);
    s.advance(3_600_000);

    // The busy watch's balance_change is held at the receiver, so its delivery is still in flight below.
    s.receiver.delayPath("/busy-release", 3_000);
    const attemptsBefore = s.receiver.attempts.length;
    const running = runWatchTick(s.t.app.watch, { owner: "worker-D", batchSize: 50 });
    try {
      await s.receiver.waitFor(() => s.receiver.attempts.slice(attemptsBefore).some((a) => a.watchId === busy.watchId), 20_000, "the busy watch's delivery");
      const rows = (
        await sql<{ id: string; xmin: string; lease_owner: string | null }>`
          SELECT id, xmin::text AS xmin, lease_owner FROM watches WHERE id IN (${busy.watchId}, ${quiet.watchId})`.execute(s.t.db.db)
      ).rows;
      const b = rows.find((r) => r.id === busy.watchId)!;
      const q = rows.find((r) => r.id === quiet.watchId)!;
      expect(b.lease_owner).toBe("worker-D");
      expect(q.lease_owner).toBeNull();
      // Both rows were last written by the batch's transaction: the quiet watch's release was no later statement.
      expect(q.xmin).toBe(b.xmin);
    } finally {
      s.receiver.delayPath("/busy-release", null);
      await running;
    }
    expect(s.receiver.deliveries(busy.watchId, "balance_change")).toHaveLength(1);
    const after = await s.t.db.db.selectFrom("watches").select(["id", "lease_owner"]).where("id", "in", [busy.watchId, quiet.watchId]).execute();
    for (const l of after) expect(l.lease_owner).toBeNull();
  }, 120_000);
});
