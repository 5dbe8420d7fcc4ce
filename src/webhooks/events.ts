/**
 * The names of every webhook event, in one place: the events a watch sends and
 * the events a checkout invoice sends on its watch. They live with the webhooks
 * (the lowest module that sends them) so that delivery, the snippets guide and
 * the products all read the same lists; watch/ and checkout/ re-export them.
 * A new event is added here first.
 */

/**
 * The webhook events a watch sends: one list, from which the event union, the
 * info guide's `events` and the table in docs/webhooks.md follow (a test
 * checks the doc lists exactly these).
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

/** Every event a webhook body (and its `X-Service-Event` header) can name. */
export type WebhookEvent = WatchEvent | InvoiceEvent;
