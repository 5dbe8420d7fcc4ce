/**
 * Transaction identifiers. v4: double SHA-256 of the raw bytes. v5: the ZIP 244
 * digest tree (txid and authorizing-data digest). Identifiers are returned in
 * the byte order shown by explorers and node RPCs (reversed hash bytes).
 *
 * v6 (ZIP 229): the same tree with an Ironwood component digest as last child,
 * the Sapling/Orchard/Ironwood anchors moved from the txid digest to the
 * authorizing-data digest, and `_v6` personalisations on the nodes that change.
 * No published vector covers v6 yet; it is written from the ZIP text.
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
  // v5 commits to the anchor in every spend; v6 moves it to the auth digest.
  const noncompact =
    tx.version === 6 ? h("ZTxIdSSpendNH_v6", ...s.spends.map((x) => concatBytes(x.cv, x.rk))) : h("ZTxIdSSpendNHash", ...s.spends.map((x) => concatBytes(x.cv, anchor, x.rk)));
  const spends = s.spends.length === 0 ? h("ZTxIdSSpendsHash") : h("ZTxIdSSpendsHash", h("ZTxIdSSpendCHash", ...s.spends.map((x) => x.nullifier)), noncompact);
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

/** Personalisations of an action-bundle digest: Orchard v5, Orchard v6, Ironwood v6 (ZIP 244, ZIP 229). */
const ACTION_PERS = {
  orchard5: { top: "ZTxIdOrchardHash", c: "ZTxIdOrcActCHash", m: "ZTxIdOrcActMHash", n: "ZTxIdOrcActNHash", auth: "ZTxAuthOrchaHash", anchorInTxid: true },
  orchard6: { top: "ZTxIdOrchardH_v6", c: "ZTxIdOrcActCHash", m: "ZTxIdOrcActMHash", n: "ZTxIdOrcActNHash", auth: "ZTxAuthOrchaH_v6", anchorInTxid: false },
  ironwood6: { top: "ZTxIdIronwd_H_v6", c: "ZTxIdIrnActCH_v6", m: "ZTxIdIrnActMH_v6", n: "ZTxIdIrnActNH_v6", auth: "ZTxAuthIrnwdH_v6", anchorInTxid: false },
} as const;
type ActionPers = (typeof ACTION_PERS)[keyof typeof ACTION_PERS];

function actionDigest(b: ActionBundle | undefined, p: ActionPers): Uint8Array {
  if (!b) return h(p.top);
  return h(
    p.top,
    h(p.c, ...b.actions.map((a) => concatBytes(a.nullifier, a.cmx, a.ephemeralKey, a.encCiphertext.subarray(0, 52)))),
    h(p.m, ...b.actions.map((a) => a.encCiphertext.subarray(52, 564))),
    h(p.n, ...b.actions.map((a) => concatBytes(a.cv, a.rk, a.encCiphertext.subarray(564), a.outCiphertext))),
    Uint8Array.of(b.flags),
    i64le(b.valueBalance),
    ...(p.anchorInTxid ? [b.anchor] : []),
  );
}

function actionAuthDigest(b: ActionBundle | undefined, p: ActionPers): Uint8Array {
  if (!b) return h(p.auth);
  return h(p.auth, b.proofs, ...b.spendAuthSigs, b.bindingSig, ...(p.anchorInTxid ? [] : [b.anchor]));
}

const reversedHex = (b: Uint8Array): string => bytesToHex(Uint8Array.from(b).reverse());

/** ZIP 244 (v5) or ZIP 229 (v6) txid digest (internal byte order). */
export function zip244TxidDigest(tx: ParsedTx): Uint8Array {
  if (tx.version === 4) throw new Error("ZIP 244 txid applies to v5 and v6 transactions");
  const pers = concatBytes(new TextEncoder().encode("ZcashTxHash_"), u32le(tx.consensusBranchId ?? 0));
  const shielded =
    tx.version === 5
      ? [saplingDigest(tx), actionDigest(tx.orchard, ACTION_PERS.orchard5)]
      : [saplingDigest(tx), actionDigest(tx.orchard, ACTION_PERS.orchard6), actionDigest(tx.ironwood, ACTION_PERS.ironwood6)];
  return blake2bPersBytes(pers, concatBytes(headerDigest(tx), transparentDigest(tx), ...shielded));
}

/** ZIP 244 (v5) or ZIP 229 (v6) authorizing-data digest (internal byte order). */
export function zip244AuthDigest(tx: ParsedTx): Uint8Array {
  if (tx.version === 4) throw new Error("ZIP 244 auth digest applies to v5 and v6 transactions");
  const transparent = h("ZTxAuthTransHash", ...tx.vin.map((i) => withLen(i.scriptSig)));
  const s = tx.sapling;
  const saplingPers = tx.version === 5 ? "ZTxAuthSapliHash" : "ZTxAuthSapliH_v6";
  const sapling = s.bindingSig
    ? h(saplingPers, ...s.spendProofs, ...s.spendAuthSigs, ...s.outputProofs, s.bindingSig, ...(tx.version === 6 && s.anchor ? [s.anchor] : []))
    : h(saplingPers);
  const actions =
    tx.version === 5
      ? [actionAuthDigest(tx.orchard, ACTION_PERS.orchard5)]
      : [actionAuthDigest(tx.orchard, ACTION_PERS.orchard6), actionAuthDigest(tx.ironwood, ACTION_PERS.ironwood6)];
  const pers = concatBytes(new TextEncoder().encode("ZTxAuthHash_"), u32le(tx.consensusBranchId ?? 0));
  return blake2bPersBytes(pers, concatBytes(transparent, sapling, ...actions));
}

const blake2bPersBytes = (personalization: Uint8Array, data: Uint8Array): Uint8Array => blake2b(data, { dkLen: 32, personalization });

/** The transaction id as explorers and node RPCs show it (hex of the reversed hash). */
export function transactionId(tx: ParsedTx): string {
  return tx.version === 4 ? reversedHex(sha256(sha256(tx.raw))) : reversedHex(zip244TxidDigest(tx));
}

/** v5/v6 authorizing-data digest in display order, or null for v4 (which has none). */
export function authDigestHex(tx: ParsedTx): string | null {
  return tx.version === 4 ? null : reversedHex(zip244AuthDigest(tx));
}
