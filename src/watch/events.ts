/**
 * The webhook events a watch sends: one list, from which the event union, the
 * info guide's `events` and the table in docs/webhooks.md follow (a test
 * checks the doc lists exactly these). A new event is added here first.
 */
export const WATCH_EVENTS = ["balance_change", "scan_complete", "status_change", "low_credit", "synthetic_test"] as const;

export type WatchEvent = (typeof WATCH_EVENTS)[number];
