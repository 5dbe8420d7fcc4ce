/**
 * The service's own logger (core/logger.ts: its redaction paths) at trace
 * level, writing into memory: what the secrets-in-logs tests read back.
 */
import { Writable } from "node:stream";
import type { Logger } from "pino";
import { createLogger } from "../../src/core/logger.js";

export function captureLogs(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { log: createLogger("trace", sink), lines };
}
