/**
 * The settlement fee of a paid invoice can be the debit that takes a watch's
 * credit under the low-credit threshold (50000 atomic). The meter then
 * disarms the once-only warning, and the fee's path dropped the event it
 * asked for: the merchant was never sent `low_credit` (it re-arms only on a
 * top-up), so a watch could run dry unannounced. Now the fee queues it, as
 * the tick's drain and a billed delivery do. Real app, devnet monerod, real
 * scanner, signed deliveries to a loopback receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOW_CREDIT_THRESHOLD } from "../../src/watch/meter.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 2;
/** Above the threshold through the first scan's and the payment's deliveries (5000 each), under it after the 20000 fee. */
const CREDIT = 78_000n;

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS) } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe("a settlement fee that crosses the low-credit threshold", () => {
  it("sends low_credit once, with the credit after the fee", async () => {
    const w = await s.openMoneroWatch("alice", "/fee-low", { credit: CREDIT });
    await s.nextTick();
    const inv = (await s.call("POST", "/v1/checkout/invoices", { body: { watchId: w.watchId, watchToken: w.watchToken, amountUsdCents: 500, orderId: "low-1" } })).json;
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    await s.nextTick();
    s.devnet.monerod.mine(CONFIRMATIONS);
    for (let i = 0; i < 4 && !s.receiver.deliveries(w.watchId).some((d) => d.event === "invoice_paid"); i++) await s.nextTick();
    await s.nextTick(); // delivers what the paying tick queued

    // The precondition that makes this test mean something: the fee itself crossed the threshold.
    const ledger = await s.t.db.db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", w.watchId).orderBy("id").execute();
    const fee = ledger.find((l) => l.kind === "settlement_fee")!;
    expect(fee).toBeDefined();
    expect(BigInt(fee.balance_after) - BigInt(fee.amount_atomic)).toBeGreaterThanOrEqual(LOW_CREDIT_THRESHOLD);
    expect(BigInt(fee.balance_after)).toBeLessThan(LOW_CREDIT_THRESHOLD);

    const hooks = s.receiver.deliveries(w.watchId);
    const low = hooks.filter((d) => d.event === "low_credit");
    expect(low, JSON.stringify(hooks.map((d) => d.event))).toHaveLength(1);
    expect(low[0]!.signatureValid).toBe(true);
    const credit = (low[0]!.body as { credit: { low_credit: boolean; remaining_atomic: string } }).credit;
    expect(credit.low_credit).toBe(true);
    expect(BigInt(credit.remaining_atomic)).toBe(BigInt(fee.balance_after));
    // Once only: more ticks and deliveries send no second warning.
    await s.nextTick();
    await s.nextTick();
    expect(s.receiver.deliveries(w.watchId).filter((d) => d.event === "low_credit")).toHaveLength(1);
  }, 120_000);
});
