/**
 * Sender-side Zcash for the devnet and tests: note encryption written from the
 * protocol spec (§4.7.2, §4.7.3, §4.19, ZIP 212, ZIP 2005) and a v5/v6
 * transaction serializer (ZIP 225, ZIP 229) whose txid the service's own
 * ZIP 244 code recomputes.
 *
 * What is real: every note plaintext (lead byte 0x02 Sapling, 0x02 Orchard,
 * 0x03 Ironwood), its 580-byte ciphertext with the memo, the ephemeral key
 * derived from rseed, the note commitment (cmu / cmx), ρ = the action's
 * nullifier field, transparent P2PKH outputs and the value balances.
 * What is filler: value commitments (cv), rk, proofs, signatures, anchors,
 * outCiphertexts and the scriptSigs of transparent inputs — random bytes of
 * the right length, since no devnet consumer verifies a proof or a signature
 * and the trial decryptor never looks at them.
 */
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { bigintToLeBytes, concatBytes, leBytesToBigint, u32le, writeCompactSize } from "../src/chains/zcash/bytes.js";
import { jubjubExtract, jubjubFromBytes, jubjubMul, saplingDiversifyHash } from "../src/chains/zcash/jubjub.js";
import { orchardNoteCommit, orchardRcm, saplingNoteCommit } from "../src/chains/zcash/note-decrypt.js";
import { orchardPkD } from "../src/chains/zcash/orchard-keys.js";
import { orchardDiversifyHash, pallasExtract, pallasFromBytes, pallasMul, pallasToBytes } from "../src/chains/zcash/pallas.js";
import { blake2bPers, JUBJUB_R, PALLAS_P, prfExpand, toBaseOrchard, toScalarOrchard, toScalarSapling } from "../src/chains/zcash/prf.js";
import { saplingPkD } from "../src/chains/zcash/sapling-keys.js";
import { V5_VERSION_GROUP_ID, V6_VERSION_GROUP_ID } from "../src/chains/zcash/tx-parse.js";

/** Consensus branch ids the devnet builds with (research zcash.md §5.4). */
export const BRANCH_ID_NU6_2 = 0x5437f330;
export const BRANCH_ID_NU6_3 = 0x37a5165b;

export interface EncryptedOutput {
  /** cmu (Sapling) or cmx (Orchard/Ironwood), 32 bytes. */
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  /** 580 bytes: the 564-byte plaintext (with the memo) and the Poly1305 tag. */
  encCiphertext: Uint8Array;
  /** Orchard/Ironwood only: ρ, carried as the action's nullifier field. */
  rho?: Uint8Array;
}

const zeroNonce = () => new Uint8Array(12);

function plaintext(lead: number, d: Uint8Array, value: bigint, rseed: Uint8Array, memo: Uint8Array): Uint8Array {
  if (memo.length !== 512) throw new RangeError("a memo field is 512 bytes");
  return concatBytes(Uint8Array.of(lead), d, bigintToLeBytes(value, 8), rseed, memo);
}

/** Sapling output (lead 0x02, ZIP 212) to the raw 43-byte address d ‖ pk_d. */
export function encryptSapling(addr: Uint8Array, value: bigint, memo: Uint8Array, rseed = randomBytes(32)): EncryptedOutput {
  const d = addr.slice(0, 11);
  const gd = saplingDiversifyHash(d);
  const pkd = jubjubFromBytes(addr.slice(11));
  if (!gd || !pkd) throw new Error("invalid Sapling address");
  const esk = toScalarSapling(prfExpand(rseed, Uint8Array.of(0x05)));
  const rcm = toScalarSapling(prfExpand(rseed, Uint8Array.of(0x04)));
  const epk = jubjubMul(gd, esk).toBytes();
  const shared = jubjubMul(pkd, esk).clearCofactor();
  const key = blake2bPers("Zcash_SaplingKDF", 32, shared.toBytes(), epk);
  const enc = chacha20poly1305(key, zeroNonce()).encrypt(plaintext(0x02, d, value, rseed, memo));
  return { cmu: jubjubExtract(saplingNoteCommit(gd, pkd, value, rcm)), ephemeralKey: epk, encCiphertext: enc };
}

/** A uniformly random element of F_p as 32 bytes (a ρ / nullifier no note has). */
export function randomPallasBase(): Uint8Array {
  return bigintToLeBytes(leBytesToBigint(randomBytes(32)) % PALLAS_P, 32);
}

/**
 * Orchard (lead 0x02) or Ironwood (lead 0x03) action output to the raw 43-byte
 * Orchard address. `rho` is the action's nullifier field: the nullifier of the
 * note the action spends (random when the spend is a dummy).
 */
export function encryptAction(addr: Uint8Array, value: bigint, memo: Uint8Array, lead: 0x02 | 0x03, rseed = randomBytes(32), rho = randomPallasBase()): EncryptedOutput {
  const d = addr.slice(0, 11);
  const pkdBytes = addr.slice(11);
  const pkdP = pallasFromBytes(pkdBytes);
  if (!pkdP) throw new Error("invalid Orchard address");
  if (leBytesToBigint(rho) >= PALLAS_P) throw new RangeError("rho is not a canonical field element");
  const gdP = orchardDiversifyHash(d);
  const esk = toScalarOrchard(prfExpand(rseed, Uint8Array.of(0x04), rho));
  const epk = pallasToBytes(pallasMul(gdP, esk));
  const key = blake2bPers("Zcash_OrchardKDF", 32, pallasToBytes(pallasMul(pkdP, esk)), epk);
  const psi = toBaseOrchard(prfExpand(rseed, Uint8Array.of(0x09), rho));
  const gd = pallasToBytes(gdP);
  const rcm = orchardRcm(lead, rseed, rho, gd, pkdBytes, value, psi);
  const cm = orchardNoteCommit(gd, pkdBytes, value, leBytesToBigint(rho), psi, rcm);
  if (!cm) throw new Error("NoteCommit failed");
  const enc = chacha20poly1305(key, zeroNonce()).encrypt(plaintext(lead, d, value, rseed, memo));
  return { cmu: bigintToLeBytes(pallasExtract(cm), 32), ephemeralKey: epk, encCiphertext: enc, rho };
}

/** A raw Orchard address of a throwaway key (dummy outputs, background traffic). */
export function randomOrchardAddress(): Uint8Array {
  const d = randomBytes(11);
  const ivk = (leBytesToBigint(randomBytes(32)) % (PALLAS_P - 2n)) + 1n;
  return concatBytes(d, orchardPkD(ivk, d));
}

/** A raw Sapling address of a throwaway key. */
export function randomSaplingAddress(): Uint8Array {
  const ivk = (leBytesToBigint(randomBytes(32)) % (JUBJUB_R - 2n)) + 1n;
  for (;;) {
    const d = randomBytes(11);
    const pkd = saplingPkD(ivk, d);
    if (pkd) return concatBytes(d, pkd.toBytes());
  }
}

const i64 = (v: bigint): Uint8Array => bigintToLeBytes(BigInt.asUintN(64, v), 8);

export interface TxInSpec {
  prevoutHash: Uint8Array;
  prevoutIndex: number;
  scriptSig: Uint8Array;
  sequence?: number;
}

export interface TxOutSpec {
  value: bigint;
  script: Uint8Array;
}

/** An action bundle's contents: its outputs (each carrying ρ = the spent nullifier) and its value balance. */
export interface ActionBundleSpec {
  outputs: EncryptedOutput[];
  /** valueBalance: value leaving the pool (positive) or entering it (negative), zatoshi. */
  valueBalance?: bigint;
}

function actionBundle(spec: EncryptedOutput[] | ActionBundleSpec | undefined, version: 5 | 6): Uint8Array {
  const b: ActionBundleSpec = Array.isArray(spec) ? { outputs: spec } : (spec ?? { outputs: [] });
  const outs = b.outputs;
  if (outs.length === 0) return writeCompactSize(0);
  const n = outs.length;
  const parts: Uint8Array[] = [writeCompactSize(n)];
  for (const o of outs) parts.push(randomBytes(32), o.rho ?? randomPallasBase(), randomBytes(32), o.cmu, o.ephemeralKey, o.encCiphertext, randomBytes(80));
  const proofLen = version === 6 ? 2720 + 2272 * n : 100 + 50 * n;
  // flags: spends and outputs enabled (bits 0 and 1); bit 2 stays 0 from NU6.3 on.
  parts.push(Uint8Array.of(0x03), i64(b.valueBalance ?? 0n), randomBytes(32), writeCompactSize(proofLen), randomBytes(proofLen));
  for (let i = 0; i < n; i++) parts.push(randomBytes(64));
  parts.push(randomBytes(64));
  return concatBytes(...parts);
}

export interface TxParts {
  vin?: TxInSpec[];
  vout?: TxOutSpec[];
  /** Sapling outputs. */
  sapling?: EncryptedOutput[];
  /** Sapling spends: the nullifiers they reveal. */
  saplingSpends?: Uint8Array[];
  saplingValueBalance?: bigint;
  orchard?: EncryptedOutput[] | ActionBundleSpec;
  /** v6 only. */
  ironwood?: EncryptedOutput[] | ActionBundleSpec;
  lockTime?: number;
  expiryHeight?: number;
}

/** Serializes a v5 (ZIP 225) or v6 (ZIP 229) transaction. */
export function buildTx(version: 5 | 6, parts: TxParts, branchId = version === 6 ? BRANCH_ID_NU6_3 : 0xc2d6d0b4): Uint8Array {
  const vin = parts.vin ?? [];
  const vout = parts.vout ?? [];
  const outputs = parts.sapling ?? [];
  const spends = parts.saplingSpends ?? [];
  if (version === 5 && parts.ironwood && (Array.isArray(parts.ironwood) ? parts.ironwood.length : parts.ironwood.outputs.length) > 0)
    throw new RangeError("a v5 transaction has no Ironwood bundle");
  const out: Uint8Array[] = [
    u32le((0x80000000 | version) >>> 0),
    u32le(version === 5 ? V5_VERSION_GROUP_ID : V6_VERSION_GROUP_ID),
    u32le(branchId),
    u32le(parts.lockTime ?? 0),
    u32le(parts.expiryHeight ?? 0),
    writeCompactSize(vin.length),
    ...vin.flatMap((i) => [i.prevoutHash, u32le(i.prevoutIndex), writeCompactSize(i.scriptSig.length), i.scriptSig, u32le(i.sequence ?? 0xffffffff)]),
    writeCompactSize(vout.length),
    ...vout.flatMap((o) => [i64(o.value), writeCompactSize(o.script.length), o.script]),
    writeCompactSize(spends.length),
  ];
  for (const nf of spends) out.push(randomBytes(32), nf, randomBytes(32));
  out.push(writeCompactSize(outputs.length));
  for (const o of outputs) out.push(randomBytes(32), o.cmu, o.ephemeralKey, o.encCiphertext, randomBytes(80));
  if (spends.length + outputs.length > 0) {
    out.push(i64(parts.saplingValueBalance ?? 0n));
    if (spends.length > 0) out.push(randomBytes(32));
    for (let i = 0; i < spends.length; i++) out.push(randomBytes(192));
    for (let i = 0; i < spends.length; i++) out.push(randomBytes(64));
    for (let i = 0; i < outputs.length; i++) out.push(randomBytes(192));
    out.push(randomBytes(64));
  }
  out.push(actionBundle(parts.orchard, version));
  if (version === 6) out.push(actionBundle(parts.ironwood, version));
  return concatBytes(...out);
}

/** P2PKH scriptPubKey for a 20-byte key hash. */
export const p2pkhScript = (hash: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac));

/** P2SH scriptPubKey for a 20-byte script hash. */
export const p2shScript = (hash: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(0xa9, 0x14), hash, Uint8Array.of(0x87));

/** A coinbase input: the null prevout and a scriptSig starting with the height (BIP 34). */
export function coinbaseInput(height: number): TxInSpec {
  const h = new Uint8Array(4);
  new DataView(h.buffer).setUint32(0, height, true);
  let len = 4;
  while (len > 1 && h[len - 1] === 0) len--;
  return { prevoutHash: new Uint8Array(32), prevoutIndex: 0xffffffff, scriptSig: concatBytes(Uint8Array.of(len), h.subarray(0, len), randomBytes(8)) };
}

/** A P2PKH spend of a (made-up) prevout: the signature and public key are filler of the usual size. */
export function fillerInput(): TxInSpec {
  return { prevoutHash: randomBytes(32), prevoutIndex: 0, scriptSig: concatBytes(Uint8Array.of(0x48), randomBytes(72), Uint8Array.of(0x21), randomBytes(33)) };
}
