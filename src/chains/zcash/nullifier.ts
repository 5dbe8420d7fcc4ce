/**
 * Nullifiers of received notes, for spend detection (protocol spec §4.16,
 * §5.4.2). Sapling: nk and the note's leaf position in the Sapling tree.
 * Orchard and Ironwood: nk, ρ, ψ and the note commitment (no position); the
 * two pools keep separate nullifier sets, so a nullifier is only looked for in
 * the pool of its note.
 */
import { grainGenConstants, poseidon } from "@noble/curves/abstract/poseidon.js";
import { bigintToLeBytes } from "./bytes.js";
import { JubjubPoint, jubjubMul, saplingBases } from "./jubjub.js";
import { Fp, orchardBasesGK, pallasExtract, pallasMul, type PallasPoint } from "./pallas.js";
import { blake2sPers, PALLAS_P } from "./prf.js";

/** Sapling: ρ = cm + [pos]·J; nf = BLAKE2s-256("Zcash_nf", repr_J(nk) ‖ repr_J(ρ)). */
export function saplingNullifier(nk: JubjubPoint, cm: JubjubPoint, position: bigint): Uint8Array {
  const rho = cm.add(jubjubMul(saplingBases().J, position));
  return blake2sPers("Zcash_nf", 32, nk.toBytes(), rho.toBytes());
}

const POSEIDON = { Fp, t: 3, roundsFull: 8, roundsPartial: 56 } as const;
let permutation: ((s: bigint[]) => bigint[]) | undefined;

/** Poseidon P128Pow5T3, ConstantLength<2>: state [a, b, 2^65], permute, first element. */
export function poseidonHash2(a: bigint, b: bigint): bigint {
  permutation ??= poseidon({ ...POSEIDON, ...grainGenConstants(POSEIDON), sboxPower: 5 });
  return permutation([a, b, 1n << 65n])[0];
}

/** Orchard/Ironwood: nf = Extract_P([(Poseidon(nk, ρ) + ψ) mod p]·K + cm). */
export function orchardNullifier(nk: bigint, rho: bigint, psi: bigint, cm: PallasPoint): Uint8Array {
  const k = (poseidonHash2(nk, rho) + psi) % PALLAS_P;
  return bigintToLeBytes(pallasExtract(pallasMul(orchardBasesGK().K, k).add(cm)), 32);
}
