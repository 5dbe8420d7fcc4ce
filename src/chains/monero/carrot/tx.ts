/**
 * The Carrot enotes of a parsed transaction (tx-binary.ts / txFromDaemonJson
 * ScanTx), read as monero-project/monero PR #10027 @ 5e2890bb reads them
 * (src/carrot_impl/format_utils.cpp try_load_carrot_from_transaction_v1,
 * try_load_carrot_extra_v1, parse_carrot_input_context):
 *
 *   K_o, vt, anchor_enc   the txout_to_carrot_v1 output
 *   a_enc, C_a            rct_signatures ecdhInfo[i].amount (8 B), outPk[i]  (coinbase: tx_out.amount in clear)
 *   D_e                   the first tx_extra 0x01 key (shared by every output), else the
 *                         first 0x04 list: one key (shared) or one per output
 *   pid_enc               the first tx_extra nonce, when it is an encrypted payment ID (sub-tag 0x01)
 *   input_context         'R' ‖ vin[0]'s key image; coinbase 'C' ‖ the gen height
 *
 * A transaction whose outputs are all legacy has no Carrot enotes ("none");
 * one that mixes both kinds, or lacks a field the enotes need, is refused
 * with the reason (consensus refuses it too). Never throws.
 */
import { bytesToHex, hexToBytesStrict } from "../encoding.js";
import { parseExtra, type ParsedExtra } from "../extra.js";
import type { OwnedOutput, ScanTx } from "../types.js";
import { ENCRYPTED_AMOUNT_BYTES, PAYMENT_ID_BYTES, RCT_TYPE_FCMP_PLUS_PLUS, TX_EXTRA_NONCE_ENCRYPTED_PAYMENT_ID, outputKindRule } from "./constants.js";
import { inputContextCoinbase, inputContextRingct } from "./enote.js";
import {
  knownSecretFor,
  ownedCarrotEnotes,
  scanCarrotCoinbaseEnote,
  scanCarrotEnotes,
  type KnownSharedSecrets,
  type OwnedCarrotEnote,
  type CarrotCoinbaseEnote,
  type CarrotEnote,
  type CarrotReceiver,
  type CarrotScanResult,
  type CarrotTxContext,
} from "./scan.js";

export type CarrotTxEnotes =
  | { kind: "none" }
  | { kind: "transfer"; context: CarrotTxContext; enotes: CarrotEnote[] }
  | { kind: "coinbase"; enotes: CarrotCoinbaseEnote[] }
  | { kind: "invalid"; error: string };

class Refused extends Error {}

/** D_e per output: the shared key repeated, or the per-output list. */
function ephemeralPubkeys(extra: ParsedExtra, nOutputs: number): Uint8Array[] {
  const shared = extra.txPublicKeys[0];
  if (shared) return new Array<Uint8Array>(nOutputs).fill(shared);
  const list = extra.additionalPublicKeys;
  if (list.length === 1) return new Array<Uint8Array>(nOutputs).fill(list[0]!);
  if (list.length === 0) throw new Refused("no enote ephemeral key (D_e) in tx_extra");
  if (list.length !== nOutputs) throw new Refused(`${list.length} enote ephemeral keys for ${nOutputs} outputs`);
  return list;
}

/** pid_enc: the first nonce only, as find_tx_extra_field_by_type does. */
function encryptedPaymentId(extra: ParsedExtra): Uint8Array | null {
  const n = extra.nonces[0];
  return n && n.length === PAYMENT_ID_BYTES + 1 && n[0] === TX_EXTRA_NONCE_ENCRYPTED_PAYMENT_ID ? n.slice(1) : null;
}

function coinbaseEnotes(tx: ScanTx, De: Uint8Array[]): CarrotTxEnotes {
  if (tx.coinbaseHeight === undefined) throw new Refused("coinbase without a height");
  const blockIndex = tx.coinbaseHeight;
  inputContextCoinbase(blockIndex); // a height out of u64 range throws here, not in the scan
  const enotes = tx.outputs.map((o, i) => {
    if (o.amount === undefined) throw new Refused(`coinbase output ${i} has no amount`);
    return { onetimeAddress: o.publicKey, amount: o.amount, viewTag: o.carrot!.viewTag, encryptedAnchor: o.carrot!.encryptedAnchor, ephemeralPubkey: De[i]!, blockIndex };
  });
  return { kind: "coinbase", enotes };
}

function transferEnotes(tx: ScanTx, extra: ParsedExtra, De: Uint8Array[]): CarrotTxEnotes {
  if (tx.rctType !== RCT_TYPE_FCMP_PLUS_PLUS) throw new Refused(`Carrot outputs in a RingCT type ${tx.rctType} transaction`);
  const keyImage = tx.keyImages[0] === undefined ? null : hexToBytesStrict(tx.keyImages[0]);
  if (!keyImage || keyImage.length !== 32) throw new Refused("no key image in vin[0] for the input context");
  const enotes = tx.outputs.map((o, i) => {
    if (!o.encryptedAmount || o.encryptedAmount.length !== ENCRYPTED_AMOUNT_BYTES || !o.commitment) throw new Refused(`output ${i} lacks ecdhInfo or outPk`);
    return {
      onetimeAddress: o.publicKey,
      amountCommitment: o.commitment,
      encryptedAmount: o.encryptedAmount,
      viewTag: o.carrot!.viewTag,
      encryptedAnchor: o.carrot!.encryptedAnchor,
      ephemeralPubkey: De[i]!,
    };
  });
  return { kind: "transfer", context: { inputContext: inputContextRingct(keyImage), encryptedPaymentId: encryptedPaymentId(extra) }, enotes };
}

/** The Carrot enotes of `tx` with what they share; `extra` when the caller has parsed it already. */
export function carrotEnotesOf(tx: ScanTx, extra?: ParsedExtra): CarrotTxEnotes {
  try {
    const carrot = tx.outputs.filter((o) => o.carrot !== undefined).length;
    if (carrot === 0) return { kind: "none" };
    if (carrot !== tx.outputs.length) throw new Refused("legacy and Carrot outputs mixed in one transaction");
    const parsed = extra ?? parseExtra(tx.extra);
    const De = ephemeralPubkeys(parsed, tx.outputs.length);
    return tx.isCoinbase ? coinbaseEnotes(tx, De) : transferEnotes(tx, parsed, De);
  } catch (e) {
    return { kind: "invalid", error: e instanceof Refused ? e.message : `malformed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * The watch's outputs among a transaction's Carrot enotes, reported as the
 * legacy scanner reports its own (OwnedOutput): K_o as the public key, the
 * amount that opened C_a (coinbase: the clear amount), the subaddress index,
 * and the payment ID when the Janus check confirmed a non-zero one. The
 * wallet's own change (a self-send, the special enote) is an owned output
 * like any other, as the legacy scanner reports a wallet's change. One K_o
 * counts once (the burning bug), keeping the larger amount as the legacy path does.
 * `known`: the watch's k_v·D_e per D_e when the batch scanner has computed
 * them (shareCarrotTx); a transfer is then scanned with the view-tag
 * prefilter (ownedCarrotEnotes), which reports the same enotes.
 */
export function carrotOwnedOutputs(carrot: CarrotTxEnotes, account: CarrotReceiver, known?: KnownSharedSecrets): OwnedOutput[] {
  let owned: OwnedCarrotEnote[] | null;
  if (carrot.kind === "coinbase") owned = ownedOf(carrot.enotes.map((e, i) => scanCarrotCoinbaseEnote(account, e, knownSecretFor(known, i))));
  else if (carrot.kind !== "transfer") return [];
  else if (known) owned = ownedCarrotEnotes(account, carrot.context, carrot.enotes, known);
  else owned = ownedOf(scanCarrotEnotes(account, carrot.context, carrot.enotes));
  if (owned === null) return [];
  const found = new Map<string, OwnedOutput>();
  for (const { index: outputIndex, result: r } of owned) {
    const publicKey = bytesToHex(carrot.enotes[outputIndex]!.onetimeAddress);
    const output: OwnedOutput = { outputIndex, publicKey, amount: r.amount, subaddress: r.subaddress };
    if (r.paymentId) output.paymentId = r.paymentId;
    const prev = found.get(publicKey);
    if (!prev || prev.amount < r.amount) found.set(publicKey, output);
  }
  return [...found.values()].sort((a, b) => a.outputIndex - b.outputIndex);
}

function ownedOf(results: CarrotScanResult[]): OwnedCarrotEnote[] | null {
  const owned = results.flatMap((result, index) => (result.owned ? [{ index, result }] : []));
  return owned.length > 0 ? owned : null;
}

/**
 * Why a transaction's outputs break the output-kind rule of the fork its
 * block was mined under (constants.ts outputKindRule: legacy only before
 * v17, either kind in v17, Carrot only from v18), or undefined when they
 * keep it. Consensus enforces this, so a block that breaks it comes from a
 * daemon that cannot be trusted. A block without a version (0) is not judged.
 */
export function outputKindViolation(tx: ScanTx, hfVersion: number): string | undefined {
  if (!Number.isInteger(hfVersion) || hfVersion <= 0 || tx.outputs.length === 0) return undefined;
  const rule = outputKindRule(hfVersion);
  const carrot = tx.outputs.filter((o) => o.carrot !== undefined).length;
  if (rule === "legacy-only" && carrot > 0) return `${carrot} Carrot output(s) in a v${hfVersion} block (legacy outputs only before v17)`;
  if (rule === "carrot-only" && carrot < tx.outputs.length) return `${tx.outputs.length - carrot} legacy output(s) in a v${hfVersion} block (Carrot outputs only from v18)`;
  return undefined;
}
