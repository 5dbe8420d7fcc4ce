/**
 * Bech32 / Bech32m via @scure/base, without the BIP-173 90-character limit
 * (ZIP 316 unified encodings are longer). Decoding reports *why* it failed so
 * callers can answer with a precise 400.
 */
import { bech32, bech32m } from "@scure/base";

export type Bech32Variant = "bech32" | "bech32m";

export type Bech32DecodeResult =
  | { ok: true; hrp: string; data: Uint8Array; variant: Bech32Variant }
  | { ok: false; reason: "malformed" | "invalid_checksum" | "mixed_case" | "padding" };

/** Unified encodings are at most ~6.7M characters; refuse anything absurd before hashing it. */
export const BECH32_MAX_LENGTH = 7_000_000;

export function bech32mEncode(hrp: string, data: Uint8Array): string {
  return bech32m.encode(hrp, bech32m.toWords(data), false);
}

export function bech32Encode(hrp: string, data: Uint8Array): string {
  return bech32.encode(hrp, bech32.toWords(data), false);
}

const CHARSET = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]*$/;

/** Decodes either variant, telling which one's checksum matched. */
export function bech32Decode(str: string): Bech32DecodeResult {
  if (typeof str !== "string" || str.length < 8 || str.length > BECH32_MAX_LENGTH) return { ok: false, reason: "malformed" };
  if (str !== str.toLowerCase() && str !== str.toUpperCase()) return { ok: false, reason: "mixed_case" };
  const lower = str.toLowerCase();
  const sep = lower.lastIndexOf("1");
  if (sep < 1 || lower.length - sep - 1 < 6) return { ok: false, reason: "malformed" };
  const hrp = lower.slice(0, sep);
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) return { ok: false, reason: "malformed" };
  }
  if (!CHARSET.test(lower.slice(sep + 1))) return { ok: false, reason: "malformed" };
  for (const [variant, coder] of [
    ["bech32m", bech32m],
    ["bech32", bech32],
  ] as const) {
    let words: number[];
    try {
      words = coder.decode(lower as `${string}1${string}`, false).words;
    } catch {
      continue;
    }
    try {
      return { ok: true, hrp, data: coder.fromWords(words), variant };
    } catch {
      return { ok: false, reason: "padding" };
    }
  }
  return { ok: false, reason: "invalid_checksum" };
}
