/**
 * Byte and bit helpers with Zcash's conventions: integers are little-endian,
 * bit strings are LSB-first within each byte (LEOS2BSP). Hex and byte-array
 * helpers are noble's, re-exported so the Zcash modules keep one import.
 */
import { concatBytes } from "@noble/hashes/utils.js";

export { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";
export { equalBytes } from "@noble/curves/utils.js";
/** Personalisation strings and HRPs as bytes; throws on a non-ASCII character. */
export { asciiToBytes as asciiBytes } from "@noble/curves/utils.js";

/** LEOS2IP: little-endian bytes to a non-negative integer. */
export function leBytesToBigint(bytes: Uint8Array): bigint {
  let x = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[i]);
  return x;
}

/** I2LEOSP_{8·len}: integer to little-endian bytes; throws when it does not fit. */
export function bigintToLeBytes(x: bigint, len: number): Uint8Array {
  if (x < 0n) throw new Error("negative integer");
  const out = new Uint8Array(len);
  let v = x;
  for (let i = 0; i < len; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== 0n) throw new Error("integer does not fit");
  return out;
}

export function u32le(x: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, x >>> 0, true);
  return out;
}

export function u32be(x: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, x >>> 0, false);
  return out;
}

/** I2LEBSP_l(x): the low l bits of x, least significant first. */
export function intToBitsLE(x: bigint, l: number): number[] {
  const bits: number[] = new Array(l);
  let v = x;
  for (let i = 0; i < l; i++) {
    bits[i] = Number(v & 1n);
    v >>= 1n;
  }
  return bits;
}

/** LEOS2BSP: bytes to bits, LSB of each byte first. */
export function bytesToBitsLE(bytes: Uint8Array): number[] {
  const bits: number[] = new Array(bytes.length * 8);
  for (let i = 0; i < bytes.length; i++) for (let j = 0; j < 8; j++) bits[8 * i + j] = (bytes[i] >> j) & 1;
  return bits;
}

/** Bitcoin-style CompactSize, as used by ZIP 316 item headers. */
export function writeCompactSize(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error("invalid CompactSize");
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  if (n <= 0xffffffff) return concatBytes(Uint8Array.of(0xfe), u32le(n));
  throw new Error("CompactSize too large for this encoder");
}

/**
 * Reads a canonical CompactSize at `off`. Returns null on truncation or a
 * non-minimal encoding (ZIP 316 requires canonical encodings).
 */
export function readCompactSize(buf: Uint8Array, off: number): { value: number; next: number } | null {
  if (off >= buf.length) return null;
  const first = buf[off];
  if (first < 0xfd) return { value: first, next: off + 1 };
  if (first === 0xfd) {
    if (off + 3 > buf.length) return null;
    const v = buf[off + 1] | (buf[off + 2] << 8);
    return v < 0xfd ? null : { value: v, next: off + 3 };
  }
  if (first === 0xfe) {
    if (off + 5 > buf.length) return null;
    const v = new DataView(buf.buffer, buf.byteOffset + off + 1, 4).getUint32(0, true);
    return v <= 0xffff ? null : { value: v, next: off + 5 };
  }
  // 0xff: 8-byte sizes exceed anything a valid encoding can hold.
  return null;
}
