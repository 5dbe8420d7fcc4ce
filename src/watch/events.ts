/**
 * The webhook events a watch sends: one list, from which the event union, the
 * info guide's `events` and the table in docs/webhooks.md follow (a test
 * checks the doc lists exactly these). A new event is added here first.
 */
export const WATCH_EVENTS = ["balance_change", "scan_complete", "status_change", "low_credit", "synthetic_test"] as const;

export type WatchEvent = (typeof WATCH_EVENTS)[number];

/**
 * The webhook events a checkout invoice sends on its watch (same secret,
 * outbox, retries and nonce as the watch's own events); docs/webhooks.md
 * lists them under "Invoice events" and a test holds the two equal.
 */
export const INVOICE_EVENTS = ["invoice_seen", "invoice_paid", "invoice_underpaid", "invoice_expired"] as const;

export type InvoiceEvent = (typeof INVOICE_EVENTS)[number];
