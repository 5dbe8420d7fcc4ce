/**
 * Issue 23, item 3: the spec says the credit block is "present in every
 * webhook body", but the four invoice events (`invoice_seen`, `invoice_paid`,
 * `invoice_underpaid`, `invoice_expired`) carried none. Each now carries the
 * watch's credit block as of the moment it was queued, from the same
 * transaction (for `invoice_paid`, after the settlement fee).
 *
 * Real app, devnet monerod, real scanner, signed deliveries to a loopback
 * receiver. What the credit was when an event was queued is read back from
 * the books: the watch's credit now plus what the deliveries made after the
 * queueing took (each one a `delivery` ledger row); for `invoice_paid` also
 * the `settlement_fee` row's balance_after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditBlock, type CreditBlock } from "../../src/watch/meter.js";
import { meterOf } from "../../src/watch/model.js";
import { expireInvoices, SETTLEMENT_FEE } from "../../src/checkout/invoices.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 2;
const CREDIT = 1_000_000n;
const CREDIT_FIELDS = ["days_remaining", "low_credit", "low_credit_threshold_atomic", "rate_per_call_atomic", "rate_per_day_atomic", "remaining_atomic", "remaining_usd"];

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS) } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const db = () => s.t.db.db;
const invoice = (body: Record<string, unknown>) => s.call("POST", "/v1/checkout/invoices", { body });
const invoiceHooks = (watchId: string) => s.receiver.deliveries(watchId).filter((d) => d.event?.startsWith("invoice_"));
const watchRow = (id: string) => db().selectFrom("watches").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const lastLedgerId = async (watchId: string) =>
  Number((await db().selectFrom("watch_ledger").select("id").where("watch_id", "=", watchId).orderBy("id", "desc").limit(1).executeTakeFirst())?.id ?? 0);
const ledgerSince = (watchId: string, id: number) => db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).where("id", ">", String(id)).orderBy("id").execute();

/** The block of a watch holding `atomic` at the clock's now (drained up to now: nothing more accrues). */
const blockOf = (atomic: bigint): CreditBlock =>
  creditBlock({ creditAtomic: atomic, drainedThroughMs: s.clock.now(), drainRemainder: 0n, lowCreditArmed: true, unbookedDrain: 0n, unbookedFromMs: 0 }, s.clock);

/**
 * The watch's credit when the tick just run queued its events: the credit now
 * plus the delivery charges booked since `mark` (deliveries run after the
 * tick's transaction commits; nothing else moved the credit).
 */
async function creditAtQueueing(watchId: string, mark: number): Promise<bigint> {
  const charged = (await ledgerSince(watchId, mark)).filter((l) => l.kind === "delivery").reduce((sum, l) => sum - BigInt(l.amount_atomic), 0n);
  return BigInt((await watchRow(watchId)).credit_atomic) + charged;
}

describe("invoice webhooks carry the credit block", () => {
  it("invoice_seen, invoice_paid (after the fee) and invoice_underpaid carry the watch's credit as of their queueing", async () => {
    const alice = await s.openMoneroWatch("alice", "/credit-alice", { credit: CREDIT });
    const bob = await s.openMoneroWatch("bob", "/credit-bob", { credit: CREDIT });
    await s.nextTick(); // first scans: baseline and scan_complete
    const paid = (await invoice({ watchId: alice.watchId, watchToken: alice.watchToken, amountUsdCents: 900, orderId: "paid-1" })).json;
    const short = (await invoice({ watchId: bob.watchId, watchToken: bob.watchToken, amountUsdCents: 500, orderId: "short-1" })).json;
    s.devnet.monerod.send(paid.payTo, BigInt(paid.amount.atomic));
    s.devnet.monerod.send(short.payTo, BigInt(short.amount.atomic) - 1_000_000n);

    let marks = { alice: await lastLedgerId(alice.watchId), bob: await lastLedgerId(bob.watchId) };
    await s.nextTick();
    for (const [w, mark] of [[alice.watchId, marks.alice], [bob.watchId, marks.bob]] as const) {
      const seen = invoiceHooks(w);
      expect(seen.map((h) => h.event)).toEqual(["invoice_seen"]);
      expect(seen[0]!.signatureValid).toBe(true);
      const credit = (seen[0]!.body as { credit: CreditBlock }).credit;
      expect(Object.keys(credit).sort()).toEqual(CREDIT_FIELDS);
      expect(credit).toEqual(blockOf(await creditAtQueueing(w, mark)));
      expect(BigInt(credit.remaining_atomic)).toBeLessThan(CREDIT); // the idle drain and the first scan's delivery were taken
    }

    s.devnet.monerod.mine(CONFIRMATIONS);
    const checked = new Set<string>();
    for (let i = 0; i < 3 && checked.size < 2; i++) {
      marks = { alice: await lastLedgerId(alice.watchId), bob: await lastLedgerId(bob.watchId) };
      await s.nextTick();
      for (const [w, mark] of [[alice.watchId, marks.alice], [bob.watchId, marks.bob]] as const) {
        const final = invoiceHooks(w).find((h) => (h.event === "invoice_paid" || h.event === "invoice_underpaid") && !checked.has(h.nonce!));
        if (!final) continue;
        checked.add(final.nonce!);
        expect(final.signatureValid).toBe(true);
        const body = final.body as { credit: CreditBlock; feeAtomic: string | null };
        const atQueueing = await creditAtQueueing(w, mark);
        expect(body.credit).toEqual(blockOf(atQueueing));
        if (final.event === "invoice_paid") {
          expect(w).toBe(alice.watchId);
          expect(body.feeAtomic).toBe(SETTLEMENT_FEE.toString());
          // After the fee: exactly the balance the settlement_fee ledger row left.
          const fee = (await ledgerSince(w, mark)).find((l) => l.kind === "settlement_fee")!;
          expect(BigInt(body.credit.remaining_atomic)).toBe(BigInt(fee.balance_after));
        } else {
          expect(w).toBe(bob.watchId);
          expect((await ledgerSince(w, mark)).some((l) => l.kind === "settlement_fee")).toBe(false);
        }
      }
    }
    expect(checked.size).toBe(2);
    expect(invoiceHooks(alice.watchId).map((h) => h.event)).toEqual(["invoice_seen", "invoice_paid"]);
    expect(invoiceHooks(bob.watchId).map((h) => h.event)).toEqual(["invoice_seen", "invoice_underpaid"]);
  }, 120_000);

  it("invoice_expired carries the credit as of the expiry (idle drain since the last tick included)", async () => {
    const carol = await s.openMoneroWatch("carol", "/credit-carol", { credit: CREDIT });
    await s.nextTick();
    const inv = (await invoice({ watchId: carol.watchId, watchToken: carol.watchToken, amountUsdCents: 300, ttlMinutes: 5, orderId: "late-1" })).json;
    s.advance(5 * 60_000);
    const before = await watchRow(carol.watchId);
    expect((await expireInvoices(s.t.app.checkout, db())).expired).toBe(1);
    const expected = creditBlock(meterOf(before), s.clock);
    expect(BigInt(expected.remaining_atomic)).toBeLessThan(BigInt(before.credit_atomic)); // five minutes of drain since the tick
    await s.nextTick(); // delivers it (the clock moves on: the body keeps the block of its queueing)
    const hooks = invoiceHooks(carol.watchId);
    expect(hooks.map((h) => h.event)).toEqual(["invoice_expired"]);
    expect(hooks[0]!.body).toMatchObject({ invoiceId: inv.invoiceId, status: "expired", credit: expected });
  }, 120_000);

  it("an invoice whose watch was deleted still expires: no event (no URL left), and the expiry batch is not rolled back", async () => {
    const m = await s.openMoneroWatch("miner", "/credit-gone", { credit: CREDIT });
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 300, ttlMinutes: 5 })).json;
    await db().deleteFrom("watches").where("id", "=", m.watchId).execute(); // as the tick does after a watch's expiry
    s.advance(5 * 60_000);
    expect((await expireInvoices(s.t.app.checkout, db())).expired).toBe(1);
    const row = await db().selectFrom("checkout_invoices").select(["status"]).where("id", "=", inv.invoiceId).executeTakeFirstOrThrow();
    expect(row.status).toBe("expired");
    expect(await db().selectFrom("webhook_outbox").select("id").where("watch_id", "=", m.watchId).execute()).toEqual([]);
  }, 120_000);
});
