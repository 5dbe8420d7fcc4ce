/**
 * Sender-side note encryption written from the protocol spec (§4.7.2, §4.7.3,
 * §4.19, ZIP 212, ZIP 2005) and a minimal v5/v6 transaction serializer, so tests
 * can build transactions paying a UFVK-derived address. Proofs, signatures and
 * value commitments are random filler: the decryptor never looks at them.
 */
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { bigintToLeBytes, concatBytes, leBytesToBigint, u32le, writeCompactSize } from "../../../src/chains/zcash/bytes.js";
import { jubjubExtract, jubjubFromBytes, jubjubMul, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import { orchardNoteCommit, orchardRcm, saplingNoteCommit } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardDiversifyHash, pallasExtract, pallasFromBytes, pallasMul, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { blake2bPers, PALLAS_P, prfExpand, toBaseOrchard, toScalarOrchard, toScalarSapling } from "../../../src/chains/zcash/prf.js";
import { V5_VERSION_GROUP_ID, V6_VERSION_GROUP_ID } from "../../../src/chains/zcash/tx-parse.js";

export interface EncryptedOutput {
  cmu: Uint8Array; // cmu (Sapling) or cmx (Orchard/Ironwood)
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  /** Orchard/Ironwood only: ρ, carried as the action's nullifier field. */
  rho?: Uint8Array;
}

const zeroNonce = () => new Uint8Array(12);

function plaintext(lead: number, d: Uint8Array, value: bigint, rseed: Uint8Array, memo: Uint8Array): Uint8Array {
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

/** Orchard (lead 0x02) or Ironwood (lead 0x03) action output to the raw 43-byte Orchard address. */
export function encryptAction(addr: Uint8Array, value: bigint, memo: Uint8Array, lead: 0x02 | 0x03, rseed = randomBytes(32)): EncryptedOutput {
  const d = addr.slice(0, 11);
  const pkdBytes = addr.slice(11);
  const pkdP = pallasFromBytes(pkdBytes);
  if (!pkdP) throw new Error("invalid Orchard address");
  const rho = bigintToLeBytes(leBytesToBigint(randomBytes(32)) % PALLAS_P, 32);
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

const i64 = (v: bigint): Uint8Array => bigintToLeBytes(BigInt.asUintN(64, v), 8);

function actionBundle(outs: EncryptedOutput[], version: 5 | 6): Uint8Array {
  if (outs.length === 0) return writeCompactSize(0);
  const n = outs.length;
  const parts: Uint8Array[] = [writeCompactSize(n)];
  for (const o of outs) parts.push(randomBytes(32), o.rho ?? randomBytes(32), randomBytes(32), o.cmu, o.ephemeralKey, o.encCiphertext, randomBytes(80));
  const proofLen = version === 6 ? 2720 + 2272 * n : 100;
  parts.push(Uint8Array.of(0x03), i64(0n), randomBytes(32), writeCompactSize(proofLen), randomBytes(proofLen));
  for (let i = 0; i < n; i++) parts.push(randomBytes(64));
  parts.push(randomBytes(64));
  return concatBytes(...parts);
}

/** Serializes a v5 or v6 transaction with the given shielded outputs and no transparent part. */
export function buildTx(
  version: 5 | 6,
  parts: { sapling?: EncryptedOutput[]; orchard?: EncryptedOutput[]; ironwood?: EncryptedOutput[]; vout?: { value: bigint; script: Uint8Array }[] },
  branchId = 0xc2d6d0b4,
): Uint8Array {
  const vout = parts.vout ?? [];
  const sapling = parts.sapling ?? [];
  const out: Uint8Array[] = [
    u32le((0x80000000 | version) >>> 0),
    u32le(version === 5 ? V5_VERSION_GROUP_ID : V6_VERSION_GROUP_ID),
    u32le(branchId),
    u32le(0),
    u32le(0),
    writeCompactSize(0),
    writeCompactSize(vout.length),
    ...vout.flatMap((o) => [i64(o.value), writeCompactSize(o.script.length), o.script]),
    writeCompactSize(0),
    writeCompactSize(sapling.length),
  ];
  for (const o of sapling) out.push(randomBytes(32), o.cmu, o.ephemeralKey, o.encCiphertext, randomBytes(80));
  if (sapling.length > 0) {
    out.push(i64(0n));
    for (let i = 0; i < sapling.length; i++) out.push(randomBytes(192));
    out.push(randomBytes(64));
  }
  out.push(actionBundle(parts.orchard ?? [], version));
  if (version === 6) out.push(actionBundle(parts.ironwood ?? [], version));
  return concatBytes(...out);
}

/** P2PKH scriptPubKey for a 20-byte key hash. */
export const p2pkhScript = (hash: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac));
