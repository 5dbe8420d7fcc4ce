/** Test helpers: raw ZIP 316 encodings that bypass the encoder's checks, and error capture. */
import { ServiceError } from "../../../src/core/errors.js";
import { bech32, bech32m } from "@scure/base";
import { asciiBytes, concatBytes, writeCompactSize } from "../../../src/chains/zcash/bytes.js";
import { f4jumble } from "../../../src/chains/zcash/f4jumble.js";

/**
 * Encodes items exactly in the given order with the given padding HRP and checksum variant;
 * `trailing` is appended verbatim after the items (to fake truncated item headers).
 */
export function rawUnified(
  hrp: string,
  items: { typecode: number; data: Uint8Array }[],
  opts: { paddingHrp?: string; variant?: "bech32" | "bech32m"; trailing?: Uint8Array } = {},
): string {
  const pad = new Uint8Array(16);
  pad.set(asciiBytes(opts.paddingHrp ?? hrp));
  const parts: Uint8Array[] = [];
  for (const it of items) parts.push(writeCompactSize(it.typecode), writeCompactSize(it.data.length), it.data);
  if (opts.trailing) parts.push(opts.trailing);
  const raw = f4jumble(concatBytes(...parts, pad));
  const coder = opts.variant === "bech32" ? bech32 : bech32m;
  return coder.encode(hrp, coder.toWords(raw), false);
}

/** Runs fn and returns the ServiceError it throws (fails the test otherwise). */
export function serviceError(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw new Error(`expected a ServiceError, got ${String(e)}`);
  }
  throw new Error("expected a ServiceError, nothing was thrown");
}

/** Changes one data character of a Bech32 string (keeps the HRP and the charset). */
export function corruptBech32(s: string, at = 10): string {
  const i = s.lastIndexOf("1") + at;
  const c = s[i] === "q" ? "p" : "q";
  return s.slice(0, i) + c + s.slice(i + 1);
}

/** Awaits p and returns the ServiceError it rejects with (fails the test otherwise). */
export async function rejectedServiceError(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}
