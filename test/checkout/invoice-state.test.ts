import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INVOICE_STATUSES, isTerminal, stepInvoice, type InvoiceInput, type InvoiceState } from "../../src/checkout/invoice-state.js";

const EXPIRES = 1_000_000;
const RESERVED = 2_000_000;
const fresh = (expected: bigint): InvoiceState => ({ status: "pending", expectedAtomic: expected, receivedAtomic: null, expiresAtMs: EXPIRES, reservedUntilMs: RESERVED });

const arbInput: fc.Arbitrary<InvoiceInput> = fc.oneof(
  fc.record({ type: fc.constant("payment_seen" as const), amountAtomic: fc.bigInt({ min: 0n, max: 10n ** 13n }), nowMs: fc.integer({ min: 0, max: 3_000_000 }) }),
  fc.constant({ type: "payment_confirmed" as const }),
  fc.record({ type: fc.constant("payment_reorged" as const), nowMs: fc.integer({ min: 0, max: 3_000_000 }) }),
  fc.record({ type: fc.constant("tick" as const), nowMs: fc.integer({ min: 0, max: 3_000_000 }) }),
  fc.constant({ type: "cancel" as const }),
);

/** The edges the machine allows, as (from, to). */
const ALLOWED = new Set([
  "pending>confirming",
  "pending>expired",
  "pending>cancelled",
  "confirming>paid",
  "confirming>underpaid",
  "confirming>pending",
  "confirming>expired",
  "expired>confirming",
]);

describe("invoice state machine", () => {
  it("the happy path: seen → paid with the fee once", () => {
    const s0 = fresh(500n);
    const a = stepInvoice(s0, { type: "payment_seen", amountAtomic: 500n, nowMs: 10 });
    expect(a).toMatchObject({ state: { status: "confirming", receivedAtomic: 500n }, event: "invoice_seen", chargeFee: false });
    const b = stepInvoice(a.state, { type: "payment_confirmed" });
    expect(b).toMatchObject({ state: { status: "paid" }, event: "invoice_paid", chargeFee: true });
    expect(stepInvoice(b.state, { type: "payment_confirmed" })).toMatchObject({ event: null, chargeFee: false, state: { status: "paid" } });
  });

  it("less than asked confirms as underpaid, with no fee; more than asked is paid", () => {
    const under = stepInvoice(stepInvoice(fresh(500n), { type: "payment_seen", amountAtomic: 499n, nowMs: 1 }).state, { type: "payment_confirmed" });
    expect(under).toMatchObject({ state: { status: "underpaid" }, event: "invoice_underpaid", chargeFee: false });
    const over = stepInvoice(stepInvoice(fresh(500n), { type: "payment_seen", amountAtomic: 501n, nowMs: 1 }).state, { type: "payment_confirmed" });
    expect(over).toMatchObject({ state: { status: "paid" }, event: "invoice_paid", chargeFee: true });
  });

  it("expiry only from pending and only once the TTL has passed; a late payment within the reservation is honoured", () => {
    expect(stepInvoice(fresh(5n), { type: "tick", nowMs: EXPIRES - 1 }).state.status).toBe("pending");
    const exp = stepInvoice(fresh(5n), { type: "tick", nowMs: EXPIRES });
    expect(exp).toMatchObject({ state: { status: "expired" }, event: "invoice_expired" });
    expect(stepInvoice(exp.state, { type: "payment_seen", amountAtomic: 5n, nowMs: RESERVED - 1 }).state.status).toBe("confirming");
    expect(stepInvoice(exp.state, { type: "payment_seen", amountAtomic: 5n, nowMs: RESERVED }).state.status).toBe("expired");
  });

  it("a pending invoice the expiry job has not marked yet: a late payment counts before the reservation ends, not after", () => {
    expect(stepInvoice(fresh(5n), { type: "payment_seen", amountAtomic: 5n, nowMs: RESERVED - 1 })).toMatchObject({ state: { status: "confirming" }, event: "invoice_seen" });
    const after = stepInvoice(fresh(5n), { type: "payment_seen", amountAtomic: 5n, nowMs: RESERVED });
    expect(after).toMatchObject({ state: { status: "pending", receivedAtomic: null }, event: null });
  });

  it("a reorg while confirming goes back to waiting (expired, silently, when past the TTL)", () => {
    const seen = stepInvoice(fresh(5n), { type: "payment_seen", amountAtomic: 5n, nowMs: 1 }).state;
    expect(stepInvoice(seen, { type: "payment_reorged", nowMs: 2 })).toMatchObject({ state: { status: "pending", receivedAtomic: null }, event: null });
    expect(stepInvoice(seen, { type: "payment_reorged", nowMs: EXPIRES })).toMatchObject({ state: { status: "expired" }, event: null });
  });

  it("property: every step follows an allowed edge, terminal states never move, the fee is charged at most once and only on paid", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 13n }), fc.array(arbInput, { maxLength: 30 }), (expected, inputs) => {
        let s = fresh(expected);
        let fees = 0;
        const events: string[] = [];
        for (const input of inputs) {
          const r = stepInvoice(s, input);
          expect(INVOICE_STATUSES).toContain(r.state.status);
          if (r.state.status !== s.status) expect(ALLOWED.has(`${s.status}>${r.state.status}`), `${s.status}>${r.state.status}`).toBe(true);
          else expect(r.event).toBeNull();
          if (isTerminal(s.status)) expect(r.state).toBe(s);
          if (r.chargeFee) {
            fees++;
            expect(r.state.status).toBe("paid");
            expect(r.state.receivedAtomic! >= expected).toBe(true);
          }
          if (r.event) events.push(r.event);
          expect(r.state.expectedAtomic).toBe(expected);
          s = r.state;
        }
        expect(fees).toBeLessThanOrEqual(1);
        // At most one final webhook, and it comes last among final ones.
        expect(events.filter((e) => e === "invoice_paid" || e === "invoice_underpaid").length).toBeLessThanOrEqual(1);
        if (s.status === "paid") expect(events.at(-1)).toBe("invoice_paid");
        if (s.status === "paid" || s.status === "underpaid") expect(events).toContain("invoice_seen");
      }),
      { numRuns: 500 },
    );
  });
});
