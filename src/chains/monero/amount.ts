/**
 * RingCT amount encoding (rctOps.cpp ecdhEncode/ecdhDecode, genCommitmentMask)
 * and the commitment check: an amount only counts when mask·G + amount·H
 * equals the output's commitment.
 */
import { keccak256 as keccak_256 } from "./keccak.js";
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { concatBytes, equalBytes } from "./encoding.js";
import { commitFast } from "./edwards-fast.js";
import { H_POINT, L, Point, hashToScalar, mulBase, mulPoint, scalarToBytes, type EdPoint } from "./crypto.js";

const AMOUNT_SALT = new TextEncoder().encode("amount");
const MASK_SALT = new TextEncoder().encode("commitment_mask");
const U64_MAX = (1n << 64n) - 1n;

/** 8-byte XOR pad for types 4-6: Keccak("amount" ‖ k)[0..8], k = derivation scalar bytes. */
function amountPad(sharedScalar: Uint8Array): Uint8Array {
  return keccak_256(concatBytes(AMOUNT_SALT, sharedScalar)).subarray(0, 8);
}

/** genCommitmentMask: Hs("commitment_mask" ‖ k). */
export function commitmentMask(sharedScalar: Uint8Array): bigint {
  return hashToScalar(concatBytes(MASK_SALT, sharedScalar));
}

export function encryptAmountV2(amount: bigint, sharedScalar: Uint8Array): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new RangeError("amount out of u64 range");
  const pad = amountPad(sharedScalar);
  const out = new Uint8Array(8);
  let v = amount;
  for (let i = 0; i < 8; i++) {
    out[i] = Number(v & 0xffn) ^ pad[i]!;
    v >>= 8n;
  }
  return out;
}

export function decryptAmountV2(encrypted: Uint8Array, sharedScalar: Uint8Array): bigint {
  const pad = amountPad(sharedScalar);
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt((encrypted[i] ?? 0) ^ pad[i]!);
  return v;
}

/** Pedersen commitment mask·G + amount·H. */
export function commit(mask: bigint, amount: bigint): EdPoint {
  return mulBase(mask % L).add(amount === 0n ? Point.ZERO : mulPoint(H_POINT, amount));
}

export function commitmentMatches(commitment: Uint8Array, mask: bigint, amount: bigint): boolean {
  return equalBytes(commitFast(mask % L, amount, H_POINT), commitment);
}

export interface DecodedAmount {
  amount: bigint;
  mask: bigint;
}

/** Types 4, 5, 6: decode and check the commitment; null when it does not open. */
export function decodeAmountV2(encrypted: Uint8Array, commitment: Uint8Array, sharedScalar: Uint8Array): DecodedAmount | null {
  if (encrypted.length !== 8 || commitment.length !== 32) return null;
  const amount = decryptAmountV2(encrypted, sharedScalar);
  const mask = commitmentMask(sharedScalar);
  return commitmentMatches(commitment, mask, amount) ? { amount, mask } : null;
}

/**
 * Types 1, 2, 3 ("v1" 32-byte encoding): mask = ecdh.mask − Hs(k),
 * amount = ecdh.amount − Hs(Hs(k)) mod l; the amount must fit 64 bits.
 */
export function decodeAmountV1(
  encryptedMask: Uint8Array,
  encryptedAmount: Uint8Array,
  commitment: Uint8Array,
  sharedScalar: Uint8Array,
): DecodedAmount | null {
  if (encryptedMask.length !== 32 || encryptedAmount.length !== 32 || commitment.length !== 32) return null;
  const h1 = hashToScalar(sharedScalar);
  const h2 = hashToScalar(scalarToBytes(h1));
  const mask = (((bytesToNumberLE(encryptedMask) - h1) % L) + L) % L;
  const amount = (((bytesToNumberLE(encryptedAmount) - h2) % L) + L) % L;
  if (amount > U64_MAX) return null;
  return commitmentMatches(commitment, mask, amount) ? { amount, mask } : null;
}

export function encryptAmountV1(amount: bigint, mask: bigint, sharedScalar: Uint8Array): { mask: Uint8Array; amount: Uint8Array } {
  const h1 = hashToScalar(sharedScalar);
  const h2 = hashToScalar(scalarToBytes(h1));
  return { mask: scalarToBytes((mask + h1) % L), amount: scalarToBytes((amount + h2) % L) };
}
