/**
 * A watch created with an old birthday catches up over several scanner calls
 * (the Monero scanner fetches at most 200 blocks per call). The catch-up
 * must continue at the next tick, not one poll interval later: at Monero's
 * 2-minute blocks and a 3-minute poll, 200 blocks per poll gains barely on
 * the chain, and a birthday a year back would take days to reach
 * `scan_complete`. Real app, real scanner, devnet chain of 450 blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch } from "../../src/watch/service.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

describe("catch-up from an old birthday", () => {
  let s: WatchStack;
  beforeAll(async () => {
    s = await startWatchStack({ https: false });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("keeps scanning at every tick until it reaches the tip, then announces scan_complete once and returns to the poll interval", async () => {
    const bob = s.wallets.find((w) => w.label === "bob")!;
    const amount = 123_456_789n;
    s.devnet.monerod.mine(5);
    s.devnet.monerod.send(bob.address, amount);
    s.devnet.monerod.mine(445);
    const tip = s.devnet.monerod.height();
    const w = await createWatch(
      s.t.app.watch,
      s.t.db.db,
      { chain: "monero", address: bob.address, viewKey: bob.viewKey!, webhookUrl: s.receiver.hookUrl("/catchup"), birthdayHeight: 0 },
      { openingCredit: CREATE_CREDIT, funding: "usdc", paymentRef: null },
    );
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
