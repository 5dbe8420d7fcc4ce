/**
 * The FCMP++/Carrot transaction and block format read back: blobs serialized
 * from sender-built output sets (tx-blob.ts) parse to exactly the enote
 * fields, input context and pid_enc that were built, and scan to the
 * payments that were made; the v17 block carries its FCMP++ tree into its
 * id; truncated, garbled or inconsistent blobs are refused and never throw.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { makeIntegratedAddress } from "../../../../src/chains/monero/address.js";
import { keccak } from "../../../../src/chains/monero/crypto.js";
import { bytesToHex, concatBytes, encodeVarint } from "../../../../src/chains/monero/encoding.js";
import { extraNonceField, extraPubkeyField } from "../../../../src/chains/monero/extra.js";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { scanCarrotCoinbaseEnote, scanCarrotEnotes, type CarrotEnote } from "../../../../src/chains/monero/carrot/scan.js";
import { buildCarrotCoinbaseEnotes, buildCarrotOutputSet, destinationFromAddress, type BuiltCarrotOutputSet } from "../../../../src/chains/monero/carrot/sender.js";
import { carrotEnotesOf, type CarrotTxEnotes } from "../../../../src/chains/monero/carrot/tx.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../../src/chains/monero/tx-binary.js";
import type { ScanTx } from "../../../../src/chains/monero/types.js";
import { seededRng } from "../../../../devnet/monero-sender.js";
import { makeWallet } from "../helpers.js";
import { carrotBlockBlob, carrotCoinbaseBlob, carrotTxBlob } from "./tx-blob.js";

const merchant = makeWallet("carrot-tx merchant");
const payer = makeWallet("carrot-tx payer");
const other = makeWallet("carrot-tx other");
const merchantWatch = makeViewAccount(merchant.address, merchant.viewSecretHex);
const PID = "feedfacecafebeef";

function outputSet(seed: string, payments: { address: string; amount: bigint }[]): { set: BuiltCarrotOutputSet; keyImages: Uint8Array[] } {
  const rng = seededRng(seed);
  const keyImages = [rng(32), rng(32)];
  const set = buildCarrotOutputSet({
    firstKeyImage: keyImages[0]!,
    payments: payments.map((p) => ({ destination: destinationFromAddress(p.address), amount: p.amount })),
    change: { viewSecret: bytesToNumberLE(payer.viewSecretBytes), spendPublicKey: payer.spendPublic, isSubaddress: false, amount: 9_000n },
    rng,
  });
  return { set, keyImages };
}

const enoteFields = (e: CarrotEnote) => [e.onetimeAddress, e.amountCommitment, e.encryptedAmount, e.viewTag, e.encryptedAnchor, e.ephemeralPubkey].map(bytesToHex);

function parsedTx(blob: Uint8Array): ScanTx {
  const r = parseTransactionBlob(blob);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function transfer(r: CarrotTxEnotes) {
  if (r.kind !== "transfer") throw new Error(`expected a transfer, got ${JSON.stringify(r)}`);
  return r;
}

const two = outputSet("carrot-tx two", [{ address: makeIntegratedAddress(merchant.address, PID), amount: 123_000_000n }]);
const four = outputSet("carrot-tx four", [
  { address: merchant.sub(1, 4), amount: 5_000_000n },
  { address: other.address, amount: 6n },
  { address: merchant.address, amount: 70_000n },
]);
const PROOF = Uint8Array.from({ length: 200 }, (_, i) => (i * 37) & 0xff);

describe("Carrot transactions parse back to what was built", () => {
  it("a 2-output set (shared D_e under tag 0x01, integrated pid) and a 4-output set (one D_e per output under 0x04)", () => {
    for (const { set, keyImages } of [two, four]) {
      const tx = parsedTx(carrotTxBlob({ set, keyImages, fee: 31_337n, prunable: PROOF }));
      expect([tx.version, tx.rctType, tx.fee, tx.isCoinbase, tx.keyImages]).toEqual([2, 7, 31_337n, false, keyImages.map(bytesToHex)]);
      expect(tx.outputs.every((o) => o.viewTag === undefined && o.carrot !== undefined)).toBe(true);
      const r = transfer(carrotEnotesOf(tx));
      expect(bytesToHex(r.context.inputContext)).toBe(bytesToHex(set.inputContext));
      expect(bytesToHex(r.context.encryptedPaymentId!)).toBe(bytesToHex(set.encryptedPaymentId));
      expect(r.enotes.map(enoteFields)).toEqual(set.enotes.map(enoteFields));
    }
    expect(new Set(two.set.enotes.map((e) => bytesToHex(e.ephemeralPubkey))).size).toBe(1);
    expect(new Set(four.set.enotes.map((e) => bytesToHex(e.ephemeralPubkey))).size).toBe(4);
  });

  it("the parsed enotes scan to the merchant's payments, amount, subaddress and payment ID", () => {
    const owned = (set: typeof two) => {
      const r = transfer(carrotEnotesOf(parsedTx(carrotTxBlob({ ...set, fee: 1n }))));
      return scanCarrotEnotes(merchantWatch, r.context, r.enotes).flatMap((s) => (s.owned ? [[s.amount, s.subaddress, s.paymentId]] : []));
    };
    expect(owned(two)).toEqual([[123_000_000n, { major: 0, minor: 0 }, PID]]);
    expect(owned(four).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)))).toEqual([
      [70_000n, { major: 0, minor: 0 }, null],
      [5_000_000n, { major: 1, minor: 4 }, null],
    ]);
  });

  it("txid: the three-hash construction over prefix, RingCT base and proof; unknown for a pruned blob", () => {
    const full = carrotTxBlob({ ...two, fee: 5n, prunable: PROOF });
    const pruned = carrotTxBlob({ ...two, fee: 5n });
    const baseLen = 1 + 1 + two.set.enotes.length * 40; // type, fee varint, 8 B a_enc + 32 B C_a per output
    const prefix = pruned.subarray(0, pruned.length - baseLen);
    const base = pruned.subarray(pruned.length - baseLen);
    expect(parsedTx(full).txid).toBe(bytesToHex(keccak(concatBytes(keccak(prefix), keccak(base), keccak(PROOF)))));
    expect(parsedTx(pruned).txid).toBe("");
  });

  it("decode_as_json's carrot_v1 targets give the same enotes as the blob", () => {
    const tx = parsedTx(carrotTxBlob({ ...four, fee: 77n }));
    const json = {
      version: 2,
      unlock_time: 0,
      vin: tx.keyImages.map((k) => ({ key: { amount: 0, key_offsets: [], k_image: k } })),
      vout: tx.outputs.map((o) => ({
        amount: 0,
        target: { carrot_v1: { key: bytesToHex(o.publicKey), view_tag: bytesToHex(o.carrot!.viewTag), encrypted_janus_anchor: bytesToHex(o.carrot!.encryptedAnchor) } },
      })),
      extra: [...tx.extra],
      rct_signatures: { type: 7, txnFee: 77, ecdhInfo: tx.outputs.map((o) => ({ amount: bytesToHex(o.encryptedAmount!) })), outPk: tx.outputs.map((o) => bytesToHex(o.commitment!)) },
    };
    const fromJson = txFromDaemonJson(json, "ab".repeat(32));
    expect(fromJson.ok).toBe(true);
    if (!fromJson.ok) return;
    expect(transfer(carrotEnotesOf(fromJson.value)).enotes.map(enoteFields)).toEqual(four.set.enotes.map(enoteFields));
  });
});

describe("Carrot coinbase and the v17 block", () => {
  const blockIndex = 4_100_000n;
  const enotes = buildCarrotCoinbaseEnotes({
    blockIndex,
    payments: [{ destination: destinationFromAddress(merchant.address), amount: 600_000_000_000n }, { destination: destinationFromAddress(other.address), amount: 1n }],
    rng: seededRng("carrot-tx coinbase"),
  });
  const minerTx = carrotCoinbaseBlob(enotes, Uint8Array.of(0xaa, 0xbb));
  const txHash = keccak(Uint8Array.of(1));
  const tree = { nTreeLayers: 6, treeRoot: keccak(Uint8Array.of(2)) };
  const prevId = keccak(Uint8Array.of(3));

  it("the coinbase parses to coinbase enotes with the block index, and the merchant owns its output", () => {
    const tx = parsedTx(minerTx);
    const r = carrotEnotesOf(tx);
    if (r.kind !== "coinbase") throw new Error(JSON.stringify(r));
    expect(r.enotes.map((e) => [bytesToHex(e.onetimeAddress), e.amount, e.blockIndex])).toEqual(enotes.map((e) => [bytesToHex(e.onetimeAddress), e.amount, blockIndex]));
    const owned = r.enotes.map((e) => scanCarrotCoinbaseEnote(merchantWatch, e)).filter((s) => s.owned);
    expect(owned.map((s) => s.owned && s.amount)).toEqual([600_000_000_000n]);
  });

  it("a v17 block hashes its FCMP++ layer count and tree root before the miner tx", () => {
    const blob = carrotBlockBlob({ major: 17, minerTx, txHashes: [txHash], prevId, tree });
    const r = parseBlockBlob(blob);
    if (!r.ok) throw new Error(r.error);
    expect(r.value.fcmpTree).toEqual({ nTreeLayers: 6, treeRoot: bytesToHex(tree.treeRoot) });
    expect(r.value.txHashes).toEqual([bytesToHex(txHash)]);
    // The miner tx (RingCT type 0): Keccak(Keccak(prefix) ‖ Keccak(base = 0x00) ‖ 32 zero bytes).
    const minerHash = keccak(concatBytes(keccak(minerTx.subarray(0, minerTx.length - 1)), keccak(Uint8Array.of(0)), new Uint8Array(32)));
    expect(r.value.minerTx.txid).toBe(bytesToHex(minerHash));
    // get_block_content_hash: tree_hash of [layers word, root, miner tx hash, tx hash] (4 leaves: two pairs).
    const layersWord = new Uint8Array(32);
    layersWord[0] = 6;
    const content = keccak(concatBytes(keccak(concatBytes(layersWord, tree.treeRoot)), keccak(concatBytes(minerHash, txHash))));
    const header = blob.subarray(0, 1 + 1 + 5 + 32 + 4);
    const hashing = concatBytes(header, content, encodeVarint(2));
    expect(r.value.hash).toBe(bytesToHex(keccak(concatBytes(encodeVarint(hashing.length), hashing))));
  });

  it("a block's tree fields are read from v17 on only, and bounded", () => {
    expect(parseBlockBlob(carrotBlockBlob({ major: 16, minerTx, txHashes: [], prevId, tree }))).toMatchObject({ ok: false, error: "trailing bytes after block" });
    const v16 = parseBlockBlob(carrotBlockBlob({ major: 16, minerTx, txHashes: [], prevId }));
    expect(v16.ok && v16.value.fcmpTree).toBe(undefined);
    expect(parseBlockBlob(carrotBlockBlob({ major: 17, minerTx, txHashes: [], prevId })).ok).toBe(false);
    expect(parseBlockBlob(carrotBlockBlob({ major: 17, minerTx, txHashes: [], prevId, tree: { ...tree, nTreeLayers: 13 } }))).toMatchObject({ ok: false, error: expect.stringMatching(/13 layers/) });
    expect(parseBlockBlob(carrotBlockBlob({ major: 18, minerTx, txHashes: [], prevId, tree: { ...tree, nTreeLayers: 12 } })).ok).toBe(true);
  });
});

describe("bad Carrot blobs are refused, never thrown", () => {
  const good = carrotTxBlob({ ...four, fee: 9n });

  it("every truncation of a pruned blob is refused", () => {
    for (let n = 0; n < good.length; n++) expect(parseTransactionBlob(good.subarray(0, n)).ok, `length ${n}`).toBe(false);
  });

  it("garbled bytes: the parser and the enote reader answer, and the scan never throws", () => {
    const rng = seededRng("carrot-tx garble");
    for (let k = 0; k < 100; k++) {
      const blob = Uint8Array.from(good);
      const at = rng(2);
      blob[((at[0]! << 8) | at[1]!) % blob.length] ^= 1 << (at[0]! & 7);
      const r = parseTransactionBlob(blob);
      if (!r.ok) continue;
      const e = carrotEnotesOf(r.value);
      if (e.kind === "transfer") expect(() => scanCarrotEnotes(merchantWatch, e.context, e.enotes)).not.toThrow();
    }
  });

  it("inconsistent transactions are refused with their reason", () => {
    const tx = parsedTx(good);
    const withExtra = (extra: Uint8Array) => carrotEnotesOf(parsedTx(carrotTxBlob({ ...four, fee: 9n, extra })));
    expect(withExtra(extraNonceField(Uint8Array.of(1, ...four.set.encryptedPaymentId)))).toEqual({ kind: "invalid", error: "no enote ephemeral key (D_e) in tx_extra" });
    const three = concatBytes(Uint8Array.of(0x04), encodeVarint(3), ...four.set.enotes.slice(0, 3).map((e) => e.ephemeralPubkey));
    expect(withExtra(three)).toEqual({ kind: "invalid", error: "3 enote ephemeral keys for 4 outputs" });
    // One shared key is read for every output; a nonce that is not an encrypted pid leaves pid_enc null.
    const shared = transfer(withExtra(concatBytes(extraPubkeyField(four.set.enotes[0]!.ephemeralPubkey), extraNonceField(Uint8Array.of(0, 1, 2)))));
    expect(shared.enotes.every((e) => bytesToHex(e.ephemeralPubkey) === bytesToHex(four.set.enotes[0]!.ephemeralPubkey))).toBe(true);
    expect(shared.context.encryptedPaymentId).toBe(null);
    const mixed: ScanTx = { ...tx, outputs: [{ ...tx.outputs[0]!, carrot: undefined, viewTag: 1 }, ...tx.outputs.slice(1)] };
    expect(carrotEnotesOf(mixed)).toEqual({ kind: "invalid", error: "legacy and Carrot outputs mixed in one transaction" });
    expect(carrotEnotesOf({ ...tx, rctType: 6 })).toEqual({ kind: "invalid", error: "Carrot outputs in a RingCT type 6 transaction" });
    expect(carrotEnotesOf({ ...tx, keyImages: [] })).toEqual({ kind: "invalid", error: "no key image in vin[0] for the input context" });
    expect(carrotEnotesOf({ ...tx, outputs: tx.outputs.map(({ carrot: _c, ...o }) => o) })).toEqual({ kind: "none" });
  });
});
