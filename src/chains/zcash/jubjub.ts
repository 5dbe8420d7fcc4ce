/**
 * Jubjub (Sapling's curve) on top of noble's twisted-Edwards implementation.
 * repr_J is noble's own 32-byte encoding (v little-endian, sign of u in bit 255);
 * noble's strict decoding rejects non-canonical encodings as ZIP 216 requires.
 */
import { jubjub } from "@noble/curves/misc.js";
import { blake2s } from "@noble/hashes/blake2.js";
import { asciiBytes, bigintToLeBytes, u32le } from "./bytes.js";

export const JubjubPoint = jubjub.Point;
export type JubjubPoint = InstanceType<typeof jubjub.Point>;

/** Sapling's uniform random string (the first BLAKE2s block of every GroupHash^J). */
const URS = asciiBytes("096b36a5804bfacef1691e173c366a47ff5ba84a44f26ddd7e8d9f79d5b42df0");

/** abst_J: decodes repr_J, or null when the bytes are not a canonical curve point. */
export function jubjubFromBytes(bytes: Uint8Array): JubjubPoint | null {
  if (bytes.length !== 32) return null;
  try {
    return JubjubPoint.fromBytes(bytes);
  } catch {
    return null;
  }
}

export const jubjubToBytes = (p: JubjubPoint): Uint8Array => p.toBytes();

/** Extract_J: the u-coordinate, 32 bytes little-endian. */
export const jubjubExtract = (p: JubjubPoint): Uint8Array => bigintToLeBytes(p.toAffine().x, 32);

/** GroupHash^J(D, M): null (⊥) when the hash is not a point or lands in the small-order subgroup. */
export function saplingGroupHash(personalization: string, msg: Uint8Array): JubjubPoint | null {
  const pers = asciiBytes(personalization);
  if (pers.length !== 8) throw new Error("GroupHash^J personalisation must be 8 bytes");
  const h = blake2s.create({ dkLen: 32, personalization: pers });
  h.update(URS);
  h.update(msg);
  const p = jubjubFromBytes(h.digest());
  if (!p) return null;
  const q = p.clearCofactor();
  return q.is0() ? null : q;
}

/** FindGroupHash^J(D, M): first non-⊥ GroupHash^J(D, M ‖ [i]) for i in 0..255. */
export function saplingFindGroupHash(personalization: string, msg: Uint8Array): JubjubPoint {
  const tagged = new Uint8Array(msg.length + 1);
  tagged.set(msg);
  for (let i = 0; i < 256; i++) {
    tagged[msg.length] = i;
    const p = saplingGroupHash(personalization, tagged);
    if (p) return p;
  }
  throw new Error("FindGroupHash^J exhausted");
}

let bases: { G: JubjubPoint; H: JubjubPoint; J: JubjubPoint; R: JubjubPoint } | undefined;

/** Sapling fixed bases: spend authorisation G, proof generation H, nullifier position J, Pedersen randomness R. */
export function saplingBases(): { G: JubjubPoint; H: JubjubPoint; J: JubjubPoint; R: JubjubPoint } {
  if (!bases) {
    const G = saplingFindGroupHash("Zcash_G_", new Uint8Array(0));
    const H = saplingFindGroupHash("Zcash_H_", new Uint8Array(0));
    const J = saplingFindGroupHash("Zcash_J_", new Uint8Array(0));
    const R = saplingFindGroupHash("Zcash_PH", asciiBytes("r"));
    // Small windows: the tables cost little to build and halve later multiplications.
    G.precompute(4, false);
    H.precompute(4, false);
    bases = { G, H, J, R };
  }
  return bases;
}

/** Pedersen hash segment base i (1-based). */
export const saplingPedersenBase = (i: number): JubjubPoint => saplingFindGroupHash("Zcash_PH", u32le(i - 1));

/** DiversifyHash^Sapling(d) = GroupHash^J("Zcash_gd", d); null when d is not a valid diversifier. */
export const saplingDiversifyHash = (d: Uint8Array): JubjubPoint | null => saplingGroupHash("Zcash_gd", d);

/** Scalar multiplication that accepts 0 (noble's multiply rejects it). */
export function jubjubMul(p: JubjubPoint, k: bigint): JubjubPoint {
  return k === 0n ? JubjubPoint.ZERO : p.multiply(k);
}
