/**
 * Deliveries to different watches do not wait on each other's receivers:
 * the worker loop (startWorkers, as `vigil worker` runs it) hands each
 * tick's deliveries to its pool and goes on, so a receiver that hangs holds
 * up only its own watch. The other watch's next event arrives within a poll
 * interval, while the hanging delivery is still in flight.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkers, type Workers } from "../../src/workers.js";
import { DELIVERY_TIMEOUT_MS } from "../../src/webhooks/deliver.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
beforeAll(async () => {
  // Poll every second of the stack's clock; leases long enough that the accelerated clock below never runs them out.
  s = await startWatchStack({ https: false, env: { WATCH_POLL_SECONDS: "1", WATCH_LEASE_SECONDS: "600" }, deliveryTimeoutMs: DELIVERY_TIMEOUT_MS });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

type Wallet = WatchStack["wallets"][number];
const watchOn = async (wallet: Wallet, path: string) => (await s.openMoneroWatch(wallet, path, { birthdayHeight: 0 })).watchId;

describe("one hanging receiver in a worker", () => {
  it("does not delay another watch's deliveries", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const bob = s.wallets.find((w) => w.label === "bob")!;
    // Alice's receiver takes 30 s to answer: every attempt runs into the sender's 8 s timeout.
    s.receiver.delayPath("/hang", 30_000);
    const hanging = await watchOn(alice, "/hang");
    const fast = await watchOn(bob, "/fast");

    let workers: Workers | undefined;
    // The stack's clock runs ten times faster than the wall clock, so watches fall due every ~100 ms.
    const ticker = setInterval(() => s.advance(1_000), 100);
    try {
      workers = startWorkers(s.t.app, { idleSleepMs: 50 });
      await s.receiver.waitFor(() => s.receiver.deliveries(fast, "scan_complete").length === 1, 15_000, "the fast watch's scan_complete");
      await s.receiver.waitFor(() => s.receiver.attempts.some((a) => a.watchId === hanging), 15_000, "the hanging watch's first attempt");

      // A payment to the fast watch while the hanging delivery is in flight.
      const amount = 1_234_000_000_000n;
      s.devnet.monerod.send(bob.address, amount);
      s.devnet.monerod.mine(1);
      const sent = performance.now();
      await s.receiver.waitFor(
        () => s.receiver.deliveries(fast, "balance_change").some((d) => (d.body!.delta as { balance_atomic: string }).balance_atomic === amount.toString()),
        15_000,
        "the fast watch's balance_change",
      );
      const tookMs = performance.now() - sent;
      // Normal time: a poll interval (≈100 ms here) plus a scan and a delivery; the hang lasts 8 s per attempt.
      expect(tookMs).toBeLessThan(3_000);

      // The hanging receiver's delivery was still in flight: its event is not recorded as delivered or failed yet.
      const row = await s.t.db.db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", hanging).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "pending", attempts: 0 });
      const w = await s.t.db.db.selectFrom("watches").select(["lease_owner"]).where("id", "=", hanging).executeTakeFirstOrThrow();
      expect(w.lease_owner).not.toBeNull();
    } finally {
      clearInterval(ticker);
      s.receiver.delayPath("/hang", null);
      await workers?.stop();
    }
    // After the stop (which waits for the run in flight), the timed-out attempt is recorded as a failure.
    const row = await s.t.db.db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", hanging).executeTakeFirstOrThrow();
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.last_error).toMatch(/timeout|abort/i);
  }, 60_000);
});
