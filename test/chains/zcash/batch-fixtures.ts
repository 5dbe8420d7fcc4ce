/**
 * Watches and outputs for the batch trial-decryption tests and the
 * bench: random incoming viewing keys, the payment addresses they own and
 * outputs built with the sender-side crypto of sender.ts.
 */
import { randomBytes } from "@noble/hashes/utils.js";
import { concatBytes, leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { jubjubMul, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import type { ScanKey, ScanKeys } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardDiversifyHash, pallasMul, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { PALLAS_Q } from "../../../src/chains/zcash/prf.js";
import { encryptAction, encryptSapling, type EncryptedOutput } from "./sender.js";

/** Random Sapling ivk: 251 bits, as CRH^ivk truncates it. */
export const randomSaplingIvk = (): bigint => leBytesToBigint(randomBytes(32)) & ((1n << 251n) - 1n);
export const randomOrchardIvk = (): bigint => (leBytesToBigint(randomBytes(32)) % (PALLAS_Q - 1n)) + 1n;

function scanKey(scope: "external" | "internal", ivk: bigint): ScanKey {
  return { scope, ivk, dk: randomBytes(32), nk: leBytesToBigint(randomBytes(31)) };
}

/** A watch with both scopes of both protocols. */
export function randomWatch(network: ScanKeys["network"] = "mainnet"): ScanKeys {
  return {
    network,
    sapling: [scanKey("external", randomSaplingIvk()), scanKey("internal", randomSaplingIvk())],
    orchard: [scanKey("external", randomOrchardIvk()), scanKey("internal", randomOrchardIvk())],
  };
}

/** A raw Sapling address d ‖ pk_d owned by ivk (a random valid diversifier). */
export function saplingAddressFor(ivk: bigint): Uint8Array {
  for (;;) {
    const d = randomBytes(11);
    const gd = saplingDiversifyHash(d);
    if (gd) return concatBytes(d, jubjubMul(gd, ivk).toBytes());
  }
}

/** A raw Orchard address d ‖ pk_d owned by ivk. */
export function orchardAddressFor(ivk: bigint): Uint8Array {
  const d = randomBytes(11);
  return concatBytes(d, pallasToBytes(pallasMul(orchardDiversifyHash(d), ivk)));
}

export interface SaplingOut {
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  ciphertext: Uint8Array;
}
export interface ActionOut extends SaplingOut {
  nullifier: Uint8Array;
  cmx: Uint8Array;
}

export const compactSapling = (e: EncryptedOutput, full = false): SaplingOut => ({
  cmu: e.cmu,
  ephemeralKey: e.ephemeralKey,
  ciphertext: full ? e.encCiphertext : e.encCiphertext.slice(0, 52),
});
export const compactAction = (e: EncryptedOutput, full = false): ActionOut => ({
  nullifier: e.rho!,
  cmx: e.cmu,
  cmu: e.cmu,
  ephemeralKey: e.ephemeralKey,
  ciphertext: full ? e.encCiphertext : e.encCiphertext.slice(0, 52),
});

const memo = () => {
  const m = new Uint8Array(512);
  m[0] = 0xf6;
  return m;
};

/** A Sapling output paying ivk (lead 0x02). */
export const saplingOutputTo = (ivk: bigint, value: bigint, full = false): SaplingOut => compactSapling(encryptSapling(saplingAddressFor(ivk), value, memo()), full);
/** An Orchard (0x02) or Ironwood (0x03) action paying ivk. */
export const actionOutputTo = (ivk: bigint, value: bigint, lead: 0x02 | 0x03, full = false): ActionOut =>
  compactAction(encryptAction(orchardAddressFor(ivk), value, memo(), lead), full);

/** A fixed-base table's bases: q, 2^w·q, 2^(2w)·q, … (n of them), affine, for any curve point with double() and toAffine(). */
export function windowBases<T extends { double(): T; toAffine(): { x: bigint; y: bigint } }>(q: T, w: number, n: number): { x: bigint; y: bigint }[] {
  const out = [];
  let b = q;
  for (let i = 0; i < n; i++) {
    out.push(b.toAffine());
    for (let j = 0; j < w; j++) b = b.double();
  }
  return out;
}
