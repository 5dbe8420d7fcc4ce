/**
 * Monero's elementary primitives on @noble/curves + @noble/hashes.
 * Keys and scalars are 32-byte little-endian arrays exactly as Monero
 * serializes them. Names follow Monero's crypto.cpp so the vector table maps
 * one-to-one.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { mul8Single } from "./edwards-fast.js";
import { keccak256, viewTagByte } from "./keccak.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { concatBytes, encodeVarintNumber, hexToBytes } from "./encoding.js";

export const Point = ed25519.Point;
export type EdPoint = InstanceType<typeof ed25519.Point>;

/** Group order l. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** Original Keccak-256 (cn_fast_hash), not SHA3-256. */
export function keccak(data: Uint8Array): Uint8Array {
  return keccak256(data);
}

export function scalarFromBytes(bytes: Uint8Array): bigint {
  return bytesToNumberLE(bytes);
}

export function scalarToBytes(s: bigint): Uint8Array {
  return numberToBytesLE(s, 32);
}

/** check_scalar: 32 bytes whose little-endian value is below l. */
export function isCanonicalScalar(bytes: Uint8Array): boolean {
  return bytes.length === 32 && bytesToNumberLE(bytes) < L;
}

/** hash_to_scalar (Hs): Keccak, little-endian, reduced mod l. */
export function hashToScalar(data: Uint8Array): bigint {
  return bytesToNumberLE(keccak256(data)) % L;
}

/**
 * check_key / ge_frombytes_vartime: y < p, not (x = 0 with sign bit), on the
 * curve. Torsion components are accepted, as Monero does. Returns null on failure.
 */
export function decodePoint(bytes: Uint8Array): EdPoint | null {
  if (bytes.length !== 32) return null;
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return null;
  }
}

export function checkKey(bytes: Uint8Array): boolean {
  return decodePoint(bytes) !== null;
}

/** k·P for 0 ≤ k (variable time: fine for a server-side scanner, see research §2.14). */
export function mulPoint(P: EdPoint, k: bigint): EdPoint {
  return k === 0n ? Point.ZERO : P.multiplyUnsafe(k);
}

/** k·G for 0 ≤ k < l. */
export function mulBase(k: bigint): EdPoint {
  return k === 0n ? Point.ZERO : Point.BASE.multiply(k);
}

/** secret_key_to_public_key: null when the secret is not a reduced scalar. */
export function secretKeyToPublicKey(secret: Uint8Array): Uint8Array | null {
  if (!isCanonicalScalar(secret)) return null;
  return mulBase(scalarFromBytes(secret)).toBytes();
}

/**
 * generate_key_derivation: D = 8·(a·R). Multiply by a first, then by the
 * cofactor; (8a mod l)·R is wrong when R has a torsion component.
 * Null when R does not decode.
 */
export function generateKeyDerivation(txPublicKey: Uint8Array, viewSecret: bigint): Uint8Array | null {
  const R = decodePoint(txPublicKey);
  if (!R) return null;
  if (viewSecret <= 0n || viewSecret >= L) return mulPoint(R, viewSecret).clearCofactor().toBytes();
  return mul8Single(R, viewSecret); // = 8·(a·R), same bytes as the noble expression above
}

/** derivation_to_scalar: Hs(D ‖ varint(i)). */
export function derivationToScalar(derivation: Uint8Array, outputIndex: number): bigint {
  return hashToScalar(concatBytes(derivation, encodeVarintNumber(outputIndex)));
}

/** derive_public_key: Hs(D ‖ varint(i))·G + B. Null when B does not decode. */
export function derivePublicKey(derivation: Uint8Array, outputIndex: number, spendPublic: Uint8Array): Uint8Array | null {
  const B = decodePoint(spendPublic);
  if (!B) return null;
  return mulBase(derivationToScalar(derivation, outputIndex)).add(B).toBytes();
}

/** derive_secret_key: Hs(D ‖ varint(i)) + b mod l. */
export function deriveSecretKey(derivation: Uint8Array, outputIndex: number, spendSecret: Uint8Array): Uint8Array {
  return scalarToBytes((derivationToScalar(derivation, outputIndex) + bytesToNumberLE(spendSecret)) % L);
}

/** derive_view_tag: Keccak("view_tag" ‖ D ‖ varint(i))[0]; the salt is 8 bytes, no terminating zero. */
export function deriveViewTag(derivation: Uint8Array, outputIndex: number): number {
  if (derivation.length !== 32 || !Number.isSafeInteger(outputIndex) || outputIndex < 0) throw new RangeError("bad view tag input");
  return viewTagByte(derivation, outputIndex);
}

/** RingCT amount generator H (rctTypes.h). */
export const H_BYTES = hexToBytes("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94");
export const H_POINT: EdPoint = Point.fromBytes(H_BYTES);
