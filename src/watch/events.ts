/**
 * The webhook events a watch sends, and those a checkout invoice sends on it:
 * declared once in src/webhooks/events.ts (which delivery and the snippets
 * guide read too) and re-exported here for the watch and checkout modules.
 */
export { INVOICE_EVENTS, WATCH_EVENTS, type InvoiceEvent, type WatchEvent } from "../webhooks/events.js";
