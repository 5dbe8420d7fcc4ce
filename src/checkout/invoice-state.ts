/**
 * The invoice state machine, as one pure function: a state and an event in,
 * the next state and the webhook event to send (if any) out. The scan
 * subscriber and the expiry job only load a row, call `stepInvoice`, and
 * write what it says.
 *
 *   pending ──payment seen──▶ confirming ──confirmed, ≥ amount──▶ paid        (invoice_seen, invoice_paid)
 *                                      └──confirmed, < amount──▶ underpaid   (invoice_underpaid)
 *   pending ──TTL elapsed──▶ expired                                          (invoice_expired)
 *   pending ──cancel──▶ cancelled
 *   expired ──payment seen before reservedUntil──▶ confirming                 (late payment, honoured)
 *   (a payment seen at or after reservedUntil counts for no invoice, pending or expired)
 *   confirming ──reorged──▶ pending (or expired, without a new webhook, when past expiresAt)
 *
 * A second payment to an invoice that is already confirming, paid or
 * underpaid changes nothing (the first payment is the one that counts).
 */
export const INVOICE_STATUSES = ["pending", "confirming", "paid", "underpaid", "expired", "cancelled"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

import type { InvoiceEvent } from "../watch/index.js";

export { INVOICE_EVENTS, type InvoiceEvent } from "../watch/index.js";

export interface InvoiceState {
  status: InvoiceStatus;
  expectedAtomic: bigint;
  /** The amount of the payment that counts, once one is seen. */
  receivedAtomic: bigint | null;
  expiresAtMs: number;
  /** A late payment is still honoured until then (the amount stays reserved). */
  reservedUntilMs: number;
}

export type InvoiceInput =
  | { type: "payment_seen"; amountAtomic: bigint; nowMs: number }
  | { type: "payment_confirmed" }
  | { type: "payment_reorged"; nowMs: number }
  | { type: "tick"; nowMs: number }
  | { type: "cancel" };

export interface InvoiceStep {
  state: InvoiceState;
  event: InvoiceEvent | null;
  /** Whether the flat settlement fee is charged by this step (exactly once: on the step to paid). */
  chargeFee: boolean;
}

const TERMINAL: ReadonlySet<InvoiceStatus> = new Set(["paid", "underpaid", "cancelled"]);

export function isTerminal(s: InvoiceStatus): boolean {
  return TERMINAL.has(s);
}

export function stepInvoice(state: InvoiceState, input: InvoiceInput): InvoiceStep {
  const same: InvoiceStep = { state, event: null, chargeFee: false };
  switch (input.type) {
    case "payment_seen": {
      if (input.amountAtomic <= 0n) return same;
      // Pending or expired, until the late-payment limit: a pending row the expiry job has not yet marked is
      // expired all the same (the public view reads it so), and takes no payment after that limit either.
      const open = (state.status === "pending" || state.status === "expired") && input.nowMs < state.reservedUntilMs;
      if (!open) return same;
      return { state: { ...state, status: "confirming", receivedAtomic: input.amountAtomic }, event: "invoice_seen", chargeFee: false };
    }
    case "payment_confirmed": {
      if (state.status !== "confirming" || state.receivedAtomic === null) return same;
      const paid = state.receivedAtomic >= state.expectedAtomic;
      return {
        state: { ...state, status: paid ? "paid" : "underpaid" },
        event: paid ? "invoice_paid" : "invoice_underpaid",
        chargeFee: paid,
      };
    }
    case "payment_reorged": {
      if (state.status !== "confirming") return same;
      const back = input.nowMs >= state.expiresAtMs ? "expired" : "pending";
      return { state: { ...state, status: back, receivedAtomic: null }, event: null, chargeFee: false };
    }
    case "tick": {
      if (state.status !== "pending" || input.nowMs < state.expiresAtMs) return same;
      return { state: { ...state, status: "expired" }, event: "invoice_expired", chargeFee: false };
    }
    case "cancel": {
      if (state.status !== "pending") return same;
      return { state: { ...state, status: "cancelled" }, event: null, chargeFee: false };
    }
  }
}
