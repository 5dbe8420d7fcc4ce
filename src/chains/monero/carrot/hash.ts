/**
 * Carrot's hash functions, built exactly as the reference code builds them
 * (monero-project/monero PR #9559 @ c7b6ee45, src/carrot_core/
 * transcript_fixed.h and hash_functions.cpp):
 *
 *   transcript(dsep, f1, f2, …) = len(dsep) as one byte ‖ dsep ‖ f1 ‖ f2 ‖ …
 *   H_b[key](x)  = Blake2b(x; digest length b, personalisation "Monero", key)
 *   H_n[key](x)  = H_64[key](x) read little-endian, mod ℓ (a scalar)
 *
 * The digest length b (3, 8, 16, 32 or 64) is a Blake2b parameter, so H_3 is
 * not a prefix of H_32. The key is the secret (s_sr, s_sr_ctx, k_v) or
 * absent; it is never part of the message. BLAKE2b itself is blake2b.ts
 * (one call per (watch, output) view tag on the scanner's hot path).
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { L } from "../crypto.js";
import { blake2bKeyed } from "./blake2b.js";
import { BLAKE2B_PERSONALIZATION } from "./constants.js";

export type DigestLength = 3 | 8 | 16 | 32 | 64;

/** One transcript field: raw bytes (points, secrets, contexts) or a u64 written little-endian in 8 bytes. */
export type TranscriptField = Uint8Array | { u64: bigint } | { u8: number };

function fieldBytes(f: TranscriptField): Uint8Array {
  if (f instanceof Uint8Array) return f;
  if ("u8" in f) return Uint8Array.of(f.u8 & 0xff);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt.asUintN(64, f.u64), true);
  return out;
}

/** The fixed transcript: length-prefixed domain separator, then the fields in order. */
export function transcript(domainSep: Uint8Array, ...fields: TranscriptField[]): Uint8Array {
  if (domainSep.length > 255) throw new RangeError("domain separator longer than 255 bytes");
  const parts = fields.map(fieldBytes);
  const out = new Uint8Array(1 + domainSep.length + parts.reduce((n, p) => n + p.length, 0));
  out[0] = domainSep.length;
  out.set(domainSep, 1);
  let off = 1 + domainSep.length;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** H_b[key](data): Blake2b with digest length b, the "Monero" personalisation, keyed when a 32-byte key is given. */
export function deriveBytes(b: DigestLength, data: Uint8Array, key?: Uint8Array): Uint8Array {
  if (key !== undefined && key.length !== 32) throw new RangeError("a Carrot hash key is 32 bytes");
  return blake2bKeyed(b, data, key, BLAKE2B_PERSONALIZATION);
}

/** H_n[key](data): the 64-byte digest, little-endian, reduced mod ℓ (derive_scalar). */
export function deriveScalar(data: Uint8Array, key?: Uint8Array): bigint {
  return bytesToNumberLE(deriveBytes(64, data, key)) % L;
}
