/** Zcash PRF^expand and the ToScalar/ToBase reductions (protocol spec §5.4.2, §4.2). */
import { blake2b, blake2s } from "@noble/hashes/blake2.js";
import { asciiBytes, leBytesToBigint } from "./bytes.js";

/** Jubjub scalar field order r_J. */
export const JUBJUB_R = 0x0e7db4ea6533afa906673b0101343b00a6682093ccc81082d0970e5ed6f72cb7n;
/** Pallas base field p_P. */
export const PALLAS_P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n;
/** Pallas scalar field q_P. */
export const PALLAS_Q = 0x40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001n;

const EXPAND_SEED = asciiBytes("Zcash_ExpandSeed");

/** PRF^expand(sk, t) = BLAKE2b-512("Zcash_ExpandSeed", sk ‖ t). */
export function prfExpand(sk: Uint8Array, ...t: Uint8Array[]): Uint8Array {
  const h = blake2b.create({ dkLen: 64, personalization: EXPAND_SEED });
  h.update(sk);
  for (const part of t) h.update(part);
  return h.digest();
}

export const toScalarSapling = (x: Uint8Array): bigint => leBytesToBigint(x) % JUBJUB_R;
export const toScalarOrchard = (x: Uint8Array): bigint => leBytesToBigint(x) % PALLAS_Q;
export const toBaseOrchard = (x: Uint8Array): bigint => leBytesToBigint(x) % PALLAS_P;

export function blake2bPers(personalization: string, dkLen: number, ...parts: Uint8Array[]): Uint8Array {
  const h = blake2b.create({ dkLen, personalization: asciiBytes(personalization) });
  for (const p of parts) h.update(p);
  return h.digest();
}

export function blake2sPers(personalization: string, dkLen: number, ...parts: Uint8Array[]): Uint8Array {
  const h = blake2s.create({ dkLen, personalization: asciiBytes(personalization) });
  for (const p of parts) h.update(p);
  return h.digest();
}
