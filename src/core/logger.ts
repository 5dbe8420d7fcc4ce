import pino, { type Logger } from "pino";

/** Paths whose values are secrets: never written to logs. */
export const REDACT_PATHS = [
  "viewKey",
  "*.viewKey",
  "seed",
  "*.seed",
  "phrase",
  "*.phrase",
  "watchToken",
  "*.watchToken",
  "webhookSecret",
  "*.webhookSecret",
  "checkoutKey",
  "*.checkoutKey",
  "privateKey",
  "*.privateKey",
  'headers["payment-signature"]',
  'headers["x-payment"]',
  'headers["x-watch-token"]',
  'headers["authorization"]',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: { service: "vigil" } }, destination);
}
