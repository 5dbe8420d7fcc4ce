/**
 * Transaction identifiers. v4: double SHA-256 of the raw bytes. v5: the ZIP 244
 * digest tree (txid and authorizing-data digest). Identifiers are returned in
 * the byte order shown by explorers and node RPCs (reversed hash bytes).
 *
 * v6 (ZIP 229) changes the digest tree (anchors move to the authorizing data,
 * new personalisations, an Ironwood bundle digest); without a published vector
 * to check it against, v6 txids are reported as unavailable rather than guessed.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, u32le, writeCompactSize } from "./bytes.js";
import { blake2bPers } from "./prf.js";
import type { ActionBundle, ParsedTx } from "./tx-parse.js";

const h = (pers: string, ...parts: Uint8Array[]): Uint8Array => blake2bPers(pers, 32, ...parts);

function i64le(x: bigint): Uint8Array {
  const out = new Uint8Array(8);
  let v = BigInt.asUintN(64, x);
  for (let i = 0; i < 8; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

const withLen = (b: Uint8Array): Uint8Array => concatBytes(writeCompactSize(b.length), b);

function headerDigest(tx: ParsedTx): Uint8Array {
  return h("ZTxIdHeadersHash", u32le(tx.header), u32le(tx.versionGroupId), u32le(tx.consensusBranchId ?? 0), u32le(tx.lockTime), u32le(tx.expiryHeight));
}

function transparentDigest(tx: ParsedTx): Uint8Array {
  if (tx.vin.length === 0 && tx.vout.length === 0) return h("ZTxIdTranspaHash");
  const prevouts = h("ZTxIdPrevoutHash", ...tx.vin.map((i) => concatBytes(i.prevoutHash, u32le(i.prevoutIndex))));
  const sequence = h("ZTxIdSequencHash", ...tx.vin.map((i) => u32le(i.sequence)));
  const outputs = h("ZTxIdOutputsHash", ...tx.vout.map((o) => concatBytes(i64le(o.value), withLen(o.scriptPubKey))));
  return h("ZTxIdTranspaHash", prevouts, sequence, outputs);
}

function saplingDigest(tx: ParsedTx): Uint8Array {
  const s = tx.sapling;
  if (s.spends.length === 0 && s.outputs.length === 0) return h("ZTxIdSaplingHash");
  const anchor = s.anchor ?? new Uint8Array(32);
  const spends =
    s.spends.length === 0
      ? h("ZTxIdSSpendsHash")
      : h("ZTxIdSSpendsHash", h("ZTxIdSSpendCHash", ...s.spends.map((x) => x.nullifier)), h("ZTxIdSSpendNHash", ...s.spends.map((x) => concatBytes(x.cv, anchor, x.rk))));
  const outputs =
    s.outputs.length === 0
      ? h("ZTxIdSOutputHash")
      : h(
          "ZTxIdSOutputHash",
          h("ZTxIdSOutC__Hash", ...s.outputs.map((o) => concatBytes(o.cmu, o.ephemeralKey, o.encCiphertext.subarray(0, 52)))),
          h("ZTxIdSOutM__Hash", ...s.outputs.map((o) => o.encCiphertext.subarray(52, 564))),
          h("ZTxIdSOutN__Hash", ...s.outputs.map((o) => concatBytes(o.cv, o.encCiphertext.subarray(564), o.outCiphertext))),
        );
  return h("ZTxIdSaplingHash", spends, outputs, i64le(s.valueBalance));
}

function orchardDigest(b: ActionBundle | undefined): Uint8Array {
  if (!b) return h("ZTxIdOrchardHash");
  return h(
    "ZTxIdOrchardHash",
    h("ZTxIdOrcActCHash", ...b.actions.map((a) => concatBytes(a.nullifier, a.cmx, a.ephemeralKey, a.encCiphertext.subarray(0, 52)))),
    h("ZTxIdOrcActMHash", ...b.actions.map((a) => a.encCiphertext.subarray(52, 564))),
    h("ZTxIdOrcActNHash", ...b.actions.map((a) => concatBytes(a.cv, a.rk, a.encCiphertext.subarray(564), a.outCiphertext))),
    Uint8Array.of(b.flags),
    i64le(b.valueBalance),
    b.anchor,
  );
}

const reversedHex = (b: Uint8Array): string => bytesToHex(Uint8Array.from(b).reverse());

/** ZIP 244 txid digest of a v5 transaction (internal byte order). */
export function zip244TxidDigest(tx: ParsedTx): Uint8Array {
  if (tx.version !== 5) throw new Error("ZIP 244 txid applies to v5 transactions");
  const pers = concatBytes(new TextEncoder().encode("ZcashTxHash_"), u32le(tx.consensusBranchId ?? 0));
  return blake2bPersBytes(pers, concatBytes(headerDigest(tx), transparentDigest(tx), saplingDigest(tx), orchardDigest(tx.orchard)));
}

/** ZIP 244 authorizing-data digest of a v5 transaction (internal byte order). */
export function zip244AuthDigest(tx: ParsedTx): Uint8Array {
  if (tx.version !== 5) throw new Error("ZIP 244 auth digest applies to v5 transactions");
  const transparent = h("ZTxAuthTransHash", ...tx.vin.map((i) => withLen(i.scriptSig)));
  const s = tx.sapling;
  const sapling = s.bindingSig ? h("ZTxAuthSapliHash", ...s.spendProofs, ...s.spendAuthSigs, ...s.outputProofs, s.bindingSig) : h("ZTxAuthSapliHash");
  const o = tx.orchard;
  const orchard = o ? h("ZTxAuthOrchaHash", o.proofs, ...o.spendAuthSigs, o.bindingSig) : h("ZTxAuthOrchaHash");
  const pers = concatBytes(new TextEncoder().encode("ZTxAuthHash_"), u32le(tx.consensusBranchId ?? 0));
  return blake2bPersBytes(pers, concatBytes(transparent, sapling, orchard));
}

const blake2bPersBytes = (personalization: Uint8Array, data: Uint8Array): Uint8Array => blake2b(data, { dkLen: 32, personalization });

/**
 * The transaction id as explorers and node RPCs show it (hex of the reversed
 * hash), or null for v6 transactions (see the module note).
 */
export function transactionId(tx: ParsedTx): string | null {
  if (tx.version === 4) return reversedHex(sha256(sha256(tx.raw)));
  if (tx.version === 5) return reversedHex(zip244TxidDigest(tx));
  return null;
}

/** v5 authorizing-data digest in display order, or null for other versions. */
export function authDigestHex(tx: ParsedTx): string | null {
  return tx.version === 5 ? reversedHex(zip244AuthDigest(tx)) : null;
}
