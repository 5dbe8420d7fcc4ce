/** Orchard key components (protocol spec §4.2.3) and ZIP-32 Orchard hardened derivation. */
import { bigintToLeBytes, concatBytes, intToBitsLE, leBytesToBigint, u32le } from "./bytes.js";
import { DiversifierKey } from "./ff1.js";
import { orchardBasesGK, orchardDiversifyHash, pallasFromBytes, pallasMul, pallasToBytes } from "./pallas.js";
import { blake2bPers, PALLAS_P, PALLAS_Q, prfExpand, toBaseOrchard, toScalarOrchard } from "./prf.js";
import { sinsemillaShortCommit } from "./sinsemilla.js";

/** Orchard full viewing key: ak, nk ∈ F_p and rivk ∈ F_q (all 32-byte LE in encodings). */
export interface OrchardFvk {
  ak: bigint;
  nk: bigint;
  rivk: bigint;
}

/** Incoming viewing key material derived from an FVK for one scope. */
export interface OrchardIvkParts {
  dk: Uint8Array;
  ivk: bigint;
  ovk: Uint8Array;
}

const le32 = (x: bigint): Uint8Array => bigintToLeBytes(x, 32);

export function orchardFvkFromSk(sk: Uint8Array): OrchardFvk & { ask: bigint } {
  let ask = toScalarOrchard(prfExpand(sk, Uint8Array.of(0x06)));
  if (ask === 0n) throw new Error("invalid Orchard spending key (ask = 0)");
  const nk = toBaseOrchard(prfExpand(sk, Uint8Array.of(0x07)));
  const rivk = toScalarOrchard(prfExpand(sk, Uint8Array.of(0x08)));
  const akP = pallasMul(orchardBasesGK().G, ask);
  // Sign normalisation: only ask changes (matters for signing); ak = x(akP) either way.
  if (pallasToBytes(akP)[31] & 0x80) ask = PALLAS_Q - ask;
  return { ask, ak: akP.toAffine().x, nk, rivk };
}

/** CommitIvk_rivk(ak, nk); null when the result is ⊥ or 0 (the key is then unusable). */
export function orchardCommitIvk(ak: bigint, nk: bigint, rivk: bigint): bigint | null {
  const bits = [...intToBitsLE(ak, 255), ...intToBitsLE(nk, 255)];
  const ivk = sinsemillaShortCommit("z.cash:Orchard-CommitIvk", bits, rivk);
  return ivk === null || ivk === 0n ? null : ivk;
}

/** rivk for the internal (change) scope. */
export function orchardInternalRivk(fvk: OrchardFvk): bigint {
  return toScalarOrchard(prfExpand(le32(fvk.rivk), Uint8Array.of(0x83), le32(fvk.ak), le32(fvk.nk)));
}

/** dk, ivk and ovk for the external (default) or internal scope; null if ivk is invalid. */
export function orchardIvkParts(fvk: OrchardFvk, scope: "external" | "internal" = "external"): OrchardIvkParts | null {
  const rivk = scope === "external" ? fvk.rivk : orchardInternalRivk(fvk);
  const ivk = orchardCommitIvk(fvk.ak, fvk.nk, rivk);
  if (ivk === null) return null;
  const R = prfExpand(le32(rivk), Uint8Array.of(0x82), le32(fvk.ak), le32(fvk.nk));
  return { dk: R.slice(0, 32), ovk: R.slice(32), ivk };
}

/** pk_d = [ivk]·DiversifyHash(d), as repr_P. */
export function orchardPkD(ivk: bigint, d: Uint8Array): Uint8Array {
  return pallasToBytes(pallasMul(orchardDiversifyHash(d), ivk));
}

/** 43-byte raw Orchard address d ‖ repr(pk_d) at diversifier index j (every j is valid). */
export function orchardAddressAt(parts: OrchardIvkParts, j: bigint): Uint8Array {
  const d = new DiversifierKey(parts.dk).diversifier(j);
  return concatBytes(d, orchardPkD(parts.ivk, d));
}

export const encodeOrchardFvk = (k: OrchardFvk): Uint8Array => concatBytes(le32(k.ak), le32(k.nk), le32(k.rivk));

export type OrchardKeyProblem = "length" | "ak_invalid" | "nk_invalid" | "rivk_invalid" | "ivk_invalid";

/** Parses and validates ak ‖ nk ‖ rivk (96 bytes). */
export function decodeOrchardFvk(bytes: Uint8Array): { ok: true; key: OrchardFvk; external: OrchardIvkParts } | { ok: false; problem: OrchardKeyProblem } {
  if (bytes.length !== 96) return { ok: false, problem: "length" };
  const akBytes = bytes.subarray(0, 32);
  // ak must be the x-coordinate of a non-identity point, encoded with sign bit 0.
  const akP = (akBytes[31] & 0x80) === 0 ? pallasFromBytes(akBytes) : null;
  if (!akP || akP.is0()) return { ok: false, problem: "ak_invalid" };
  const nk = leBytesToBigint(bytes.subarray(32, 64));
  if (nk >= PALLAS_P) return { ok: false, problem: "nk_invalid" };
  const rivk = leBytesToBigint(bytes.subarray(64, 96));
  if (rivk >= PALLAS_Q) return { ok: false, problem: "rivk_invalid" };
  const key = { ak: leBytesToBigint(akBytes), nk, rivk };
  const external = orchardIvkParts(key, "external");
  if (!external) return { ok: false, problem: "ivk_invalid" };
  return { ok: true, key, external };
}

/** ZIP-32 FVK fingerprint: BLAKE2b-256("ZcashOrchardFVFP", ak ‖ nk ‖ rivk). */
export const orchardFvkFingerprint = (k: OrchardFvk): Uint8Array => blake2bPers("ZcashOrchardFVFP", 32, encodeOrchardFvk(k));

// ---- ZIP-32 Orchard (hardened only) ----

export interface OrchardExtendedSpendingKey {
  sk: Uint8Array;
  chainCode: Uint8Array;
  depth: number;
  parentFvkTag: Uint8Array;
  childIndex: number;
}

export function orchardMasterKey(seed: Uint8Array): OrchardExtendedSpendingKey {
  if (seed.length < 32 || seed.length > 252) throw new Error("ZIP-32 seed must be 32..252 bytes");
  const I = blake2bPers("ZcashIP32Orchard", 64, seed);
  return { sk: I.slice(0, 32), chainCode: I.slice(32), depth: 0, parentFvkTag: new Uint8Array(4), childIndex: 0 };
}

/** Hardened child i (the index must already include 2^31). */
export function orchardDeriveChild(parent: OrchardExtendedSpendingKey, i: number, withTag = true): OrchardExtendedSpendingKey {
  if (i < 0x80000000 || i > 0xffffffff) throw new RangeError("Orchard supports hardened derivation only");
  const I = prfExpand(parent.chainCode, Uint8Array.of(0x81), parent.sk, u32le(i));
  return {
    sk: I.slice(0, 32),
    chainCode: I.slice(32),
    depth: parent.depth + 1,
    parentFvkTag: withTag ? orchardFvkFingerprint(orchardFvkFromSk(parent.sk)).slice(0, 4) : new Uint8Array(4),
    childIndex: i,
  };
}

/** ZIP-32 73-byte extended spending key encoding (vectors only). */
export const encodeOrchardXsk = (k: OrchardExtendedSpendingKey): Uint8Array =>
  concatBytes(Uint8Array.of(k.depth), k.parentFvkTag, u32le(k.childIndex), k.chainCode, k.sk);

/** m/32'/coin'/account' spending key bytes (the parent tag is not needed for a UFVK). */
export function orchardAccountSk(seed: Uint8Array, coinType: number, account: number): Uint8Array {
  const H = 0x80000000;
  let k = orchardMasterKey(seed);
  for (const i of [32, coinType, account]) k = orchardDeriveChild(k, (i + H) >>> 0, false);
  return k.sk;
}
