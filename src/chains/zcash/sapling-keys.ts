/**
 * Sapling key components (protocol spec §4.2.2) and ZIP-32 Sapling derivation.
 * Only what a viewing service needs plus what the vectors check: expanded
 * spending keys are handled to *derive* viewing keys, never stored.
 */
import { bigintToLeBytes, concatBytes, leBytesToBigint, u32le } from "./bytes.js";
import { DiversifierKey, DIVERSIFIER_INDEX_LIMIT } from "./ff1.js";
import { JubjubPoint, jubjubFromBytes, jubjubMul, jubjubToBytes, saplingBases, saplingDiversifyHash } from "./jubjub.js";
import { blake2bPers, blake2sPers, JUBJUB_R, prfExpand, toScalarSapling } from "./prf.js";

export interface SaplingExpandedSpendingKey {
  ask: bigint;
  nsk: bigint;
  ovk: Uint8Array;
}

/** Sapling full viewing key with its diversifier key (ZIP-32 "diversifiable FVK", 128 bytes). */
export interface SaplingDfvk {
  ak: JubjubPoint;
  nk: JubjubPoint;
  ovk: Uint8Array;
  dk: Uint8Array;
}

export interface SaplingExtendedSpendingKey extends SaplingExpandedSpendingKey {
  dk: Uint8Array;
  chainCode: Uint8Array;
  depth: number;
  parentFvkTag: Uint8Array;
  childIndex: number;
}

export interface SaplingExtendedFvk extends SaplingDfvk {
  chainCode: Uint8Array;
  depth: number;
  parentFvkTag: Uint8Array;
  childIndex: number;
}

const le32 = (x: bigint): Uint8Array => bigintToLeBytes(x, 32);

/** Legacy (pre-ZIP-32) expansion of a 32-byte spending key. */
export function saplingExpandSpendingKey(sk: Uint8Array): SaplingExpandedSpendingKey {
  return {
    ask: toScalarSapling(prfExpand(sk, Uint8Array.of(0))),
    nsk: toScalarSapling(prfExpand(sk, Uint8Array.of(1))),
    ovk: prfExpand(sk, Uint8Array.of(2)).slice(0, 32),
  };
}

export function saplingAk(ask: bigint): JubjubPoint {
  return jubjubMul(saplingBases().G, ask);
}

export function saplingNk(nsk: bigint): JubjubPoint {
  return jubjubMul(saplingBases().H, nsk);
}

/** CRH^ivk: BLAKE2s-256("Zcashivk", repr(ak) ‖ repr(nk)) truncated to 251 bits. */
export function saplingIvk(ak: JubjubPoint, nk: JubjubPoint): bigint {
  const h = blake2sPers("Zcashivk", 32, jubjubToBytes(ak), jubjubToBytes(nk));
  h[31] &= 0x07;
  return leBytesToBigint(h);
}

/** Legacy default diversifier: first valid PRF^expand(sk, [3, i])[0..11). */
export function saplingLegacyDefaultDiversifier(sk: Uint8Array): Uint8Array {
  for (let i = 0; i < 256; i++) {
    const d = prfExpand(sk, Uint8Array.of(3, i)).slice(0, 11);
    if (saplingDiversifyHash(d)) return d;
  }
  throw new Error("no valid legacy diversifier");
}

/** pk_d for diversifier d, or null when d is not valid. */
export function saplingPkD(ivk: bigint, d: Uint8Array): JubjubPoint | null {
  const gd = saplingDiversifyHash(d);
  return gd ? jubjubMul(gd, ivk) : null;
}

/** The 43-byte raw payment address d ‖ repr(pk_d) at diversifier index j, or null if j is invalid. */
export function saplingAddressAt(dfvk: SaplingDfvk, j: bigint, ivk = saplingIvk(dfvk.ak, dfvk.nk)): Uint8Array | null {
  const d = new DiversifierKey(dfvk.dk).diversifier(j);
  const pkd = saplingPkD(ivk, d);
  return pkd ? concatBytes(d, jubjubToBytes(pkd)) : null;
}

/** Smallest j ≥ start with a valid diversifier (about half of all indices are). */
export function saplingFirstValidIndex(dk: Uint8Array, start = 0n): { index: bigint; d: Uint8Array } {
  const key = new DiversifierKey(dk);
  for (let j = start; j < DIVERSIFIER_INDEX_LIMIT; j++) {
    const d = key.diversifier(j);
    if (saplingDiversifyHash(d)) return { index: j, d };
  }
  throw new Error("no valid Sapling diversifier");
}

export function saplingDefaultAddress(dfvk: SaplingDfvk): { index: bigint; raw: Uint8Array } {
  const { index, d } = saplingFirstValidIndex(dfvk.dk);
  const pkd = jubjubMul(saplingDiversifyHash(d)!, saplingIvk(dfvk.ak, dfvk.nk));
  return { index, raw: concatBytes(d, jubjubToBytes(pkd)) };
}

export function encodeSaplingDfvk(k: SaplingDfvk): Uint8Array {
  return concatBytes(jubjubToBytes(k.ak), jubjubToBytes(k.nk), k.ovk, k.dk);
}

export type SaplingKeyProblem = "length" | "ak_invalid" | "nk_invalid" | "ivk_zero";

/** Parses and validates ak ‖ nk ‖ ovk ‖ dk (128 bytes). */
export function decodeSaplingDfvk(bytes: Uint8Array): { ok: true; key: SaplingDfvk } | { ok: false; problem: SaplingKeyProblem } {
  if (bytes.length !== 128) return { ok: false, problem: "length" };
  const ak = jubjubFromBytes(bytes.subarray(0, 32));
  if (!ak || ak.is0() || !ak.isTorsionFree()) return { ok: false, problem: "ak_invalid" };
  const nk = jubjubFromBytes(bytes.subarray(32, 64));
  if (!nk || nk.is0() || !nk.isTorsionFree()) return { ok: false, problem: "nk_invalid" };
  const key = { ak, nk, ovk: bytes.slice(64, 96), dk: bytes.slice(96, 128) };
  if (saplingIvk(ak, nk) === 0n) return { ok: false, problem: "ivk_zero" };
  return { ok: true, key };
}

/** Sapling DFVK from an expanded spending key and dk. */
export function saplingDfvkFromExpanded(k: SaplingExpandedSpendingKey & { dk: Uint8Array }): SaplingDfvk {
  return { ak: saplingAk(k.ask), nk: saplingNk(k.nsk), ovk: k.ovk, dk: k.dk };
}

/** ZIP-32 FVK fingerprint: BLAKE2b-256("ZcashSaplingFVFP", ak ‖ nk ‖ ovk). */
export function saplingFvkFingerprint(k: Pick<SaplingDfvk, "ak" | "nk" | "ovk">): Uint8Array {
  return blake2bPers("ZcashSaplingFVFP", 32, jubjubToBytes(k.ak), jubjubToBytes(k.nk), k.ovk);
}

// ---- ZIP-32 Sapling ----

export function saplingMasterKey(seed: Uint8Array): SaplingExtendedSpendingKey {
  if (seed.length < 32 || seed.length > 252) throw new Error("ZIP-32 seed must be 32..252 bytes");
  const I = blake2bPers("ZcashIP32Sapling", 64, seed);
  const skm = I.subarray(0, 32);
  return {
    ...saplingExpandSpendingKey(skm),
    dk: prfExpand(skm, Uint8Array.of(0x10)).slice(0, 32),
    chainCode: I.slice(32),
    depth: 0,
    parentFvkTag: new Uint8Array(4),
    childIndex: 0,
  };
}

function tweakFromIL(IL: Uint8Array, ovk: Uint8Array, dk: Uint8Array) {
  return {
    ask: toScalarSapling(prfExpand(IL, Uint8Array.of(0x13))),
    nsk: toScalarSapling(prfExpand(IL, Uint8Array.of(0x14))),
    ovk: prfExpand(IL, Uint8Array.of(0x15), ovk).slice(0, 32),
    dk: prfExpand(IL, Uint8Array.of(0x16), dk).slice(0, 32),
  };
}

/** CKDsk: child i (hardened when i ≥ 2^31). `parentTag` saves recomputing the parent's FVK. */
export function saplingDeriveChild(parent: SaplingExtendedSpendingKey, i: number, parentTag?: Uint8Array): SaplingExtendedSpendingKey {
  const hardened = i >= 0x80000000;
  const I = hardened
    ? prfExpand(parent.chainCode, Uint8Array.of(0x11), le32(parent.ask), le32(parent.nsk), parent.ovk, parent.dk, u32le(i))
    : prfExpand(parent.chainCode, Uint8Array.of(0x12), encodeSaplingDfvk(saplingDfvkFromExpanded(parent)), u32le(i));
  const t = tweakFromIL(I.subarray(0, 32), parent.ovk, parent.dk);
  return {
    ask: (t.ask + parent.ask) % JUBJUB_R,
    nsk: (t.nsk + parent.nsk) % JUBJUB_R,
    ovk: t.ovk,
    dk: t.dk,
    chainCode: I.slice(32),
    depth: parent.depth + 1,
    parentFvkTag: parentTag ?? saplingFvkFingerprint(saplingDfvkFromExpanded(parent)).slice(0, 4),
    childIndex: i >>> 0,
  };
}

/** CKDfvk: non-hardened child of an extended FVK. */
export function saplingDeriveFvkChild(parent: SaplingExtendedFvk, i: number): SaplingExtendedFvk {
  if (i >= 0x80000000 || i < 0) throw new RangeError("CKDfvk needs a non-hardened index");
  const I = prfExpand(parent.chainCode, Uint8Array.of(0x12), encodeSaplingDfvk(parent), u32le(i));
  const t = tweakFromIL(I.subarray(0, 32), parent.ovk, parent.dk);
  const { G, H } = saplingBases();
  return {
    ak: jubjubMul(G, t.ask).add(parent.ak),
    nk: jubjubMul(H, t.nsk).add(parent.nk),
    ovk: t.ovk,
    dk: t.dk,
    chainCode: I.slice(32),
    depth: parent.depth + 1,
    parentFvkTag: saplingFvkFingerprint(parent).slice(0, 4),
    childIndex: i,
  };
}

export function saplingExtendedFvk(xsk: SaplingExtendedSpendingKey): SaplingExtendedFvk {
  return { ...saplingDfvkFromExpanded(xsk), chainCode: xsk.chainCode, depth: xsk.depth, parentFvkTag: xsk.parentFvkTag, childIndex: xsk.childIndex };
}

const header = (k: { depth: number; parentFvkTag: Uint8Array; childIndex: number; chainCode: Uint8Array }): Uint8Array =>
  concatBytes(Uint8Array.of(k.depth), k.parentFvkTag, u32le(k.childIndex), k.chainCode);

/** ZIP-32 169-byte extended spending key encoding (for vectors only; never returned by the API). */
export const encodeSaplingXsk = (k: SaplingExtendedSpendingKey): Uint8Array =>
  concatBytes(header(k), le32(k.ask), le32(k.nsk), k.ovk, k.dk);

/** ZIP-32 169-byte extended full viewing key encoding (the payload of `zxviews…`). */
export const encodeSaplingXfvk = (k: SaplingExtendedFvk): Uint8Array => concatBytes(header(k), encodeSaplingDfvk(k));

/** Internal (change) keys from an FVK (ZIP-32 §"Sapling internal key derivation"). */
export function saplingInternalDfvk(k: SaplingDfvk): SaplingDfvk & { nskTweak: bigint } {
  const I = blake2bPers("Zcash_SaplingInt", 32, encodeSaplingDfvk(k));
  const nskTweak = toScalarSapling(prfExpand(I, Uint8Array.of(0x17)));
  const R = prfExpand(I, Uint8Array.of(0x18));
  return { ak: k.ak, nk: saplingNk(nskTweak).add(k.nk), ovk: R.slice(32), dk: R.slice(0, 32), nskTweak };
}

/** m/32'/coin'/account' */
export function saplingAccountKey(seed: Uint8Array, coinType: number, account: number): { xsk: SaplingExtendedSpendingKey; parentTag: Uint8Array } {
  const H = 0x80000000;
  const m = saplingMasterKey(seed);
  // Intermediate nodes never get encoded, so their parent tags are left unset (zero) to save
  // four Jubjub multiplications; the account node's tag is computed properly below.
  const unset = new Uint8Array(4);
  const purpose = saplingDeriveChild(m, 32 + H, unset);
  const coin = saplingDeriveChild(purpose, coinType + H, unset);
  const parentTag = saplingFvkFingerprint(saplingDfvkFromExpanded(coin)).slice(0, 4);
  return { xsk: saplingDeriveChild(coin, account + H, parentTag), parentTag };
}
