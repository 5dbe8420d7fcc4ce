/**
 * The external (view-key) Carrot scan with a legacy wallet's keys: the
 * watch's private view key k_v, its main spend key K_s and the same
 * subaddress table the legacy scanner uses (ViewAccount.spendKeys, built with
 * the watch's look-ahead by keys.ts makeViewAccount). Reference: Carrot spec
 * §8.1 (jeffro256/carrot carrot.md @ 8565b5f6) and its code, monero-project/
 * monero PR #9559 @ c7b6ee45 src/carrot_core/scan.cpp
 * try_scan_carrot_enote_external_receiver, try_scan_carrot_coinbase_enote_receiver
 * and scan_unsafe.cpp. For one enote:
 *
 *   1. s_sr = k_v · D_e (X25519, unclamped); an all-zero s_sr (D_e of low order) is refused
 *   2. view tag: H_3[s_sr](input_context ‖ K_o) must equal vt (1 in 2^24 passes by chance)
 *   3. s_sr_ctx = H_32[s_sr](D_e ‖ input_context)
 *   4. K_s^j = K_o − k_g·G − k_t·T, looked up in the subaddress table
 *      (coinbase: extensions over (a, K_s), and K_s^j must be the main K_s)
 *   5. amount a = a_enc ⊕ m_a; C_a must be k_a·G + a·H with enote type
 *      "payment", else with "change" (coinbase: the plaintext amount)
 *   6. K_s^j must be in the prime-order subgroup (spec §8.1 step 18)
 *   7. pid = pid_enc ⊕ m_pid (zero when the tx has no pid_enc); anchor = anchor_enc ⊕ m_anchor
 *   8. Janus: d_e' = H_n(anchor ‖ input_context ‖ K_s^j ‖ pid) must give back
 *      D_e (d_e'·B for the main address, d_e'·ConvertPointE(K_s^j) for a
 *      subaddress); else the same with pid = 0; else anchor must be the
 *      special anchor H_16[k_v](D_e ‖ input_context ‖ K_o) of a self-send.
 *      (Coinbase: only the normal check with pid = 0, as the reference does.)
 *
 * The table lookup comes right after step 4 instead of after the Janus check
 * as in the reference: the outcome is the same (an enote whose K_s^j is not
 * in the table is not ours either way), and a view-tag collision then costs
 * one point recovery instead of two commitments. Every failure, including
 * malformed input, is "not owned" with the step that refused it
 * (CarrotRefusal); nothing here throws.
 */
import { decodePoint } from "../crypto.js";
import { bytesToHex, equalBytes } from "../encoding.js";
import type { SubaddressIndex, ViewAccount } from "../types.js";
import { blake2bKeyedWord0, oneBlockMessage, type OneBlockMessage } from "./blake2b.js";
import {
  BLAKE2B_PERSONALIZATION,
  DOMAIN,
  ENCRYPTED_AMOUNT_BYTES,
  INPUT_CONTEXT_BYTES,
  JANUS_ANCHOR_BYTES,
  PAYMENT_ID_BYTES,
  VIEW_TAG_BYTES,
  type CarrotEnoteType,
} from "./constants.js";
import {
  amountBlindingFactor,
  anchorMask,
  commitAmount,
  decryptAmount,
  enoteEphemeralPrivkey,
  enoteEphemeralPubkey,
  inputContextCoinbase,
  janusAnchorSpecial,
  makeSenderReceiverSecretCtx,
  makeViewTag,
  paymentIdMask,
  recoverAddressSpendKey,
  senderExtensions,
  senderExtensionsCoinbase,
  xorBytes,
} from "./enote.js";
import { transcript } from "./hash.js";
import { x25519Unclamped, x25519UnclampedMany, type X25519ManyOptions } from "./x25519.js";

/** A non-coinbase Carrot enote as the chain carries it (tx output, rctSigBase and tx_extra). */
export interface CarrotEnote {
  /** K_o, txout_to_carrot_v1.key (32 bytes). */
  onetimeAddress: Uint8Array;
  /** C_a, rct_signatures.outPk[i] (32 bytes). */
  amountCommitment: Uint8Array;
  /** a_enc, the first 8 bytes of rct_signatures.ecdhInfo[i].amount. */
  encryptedAmount: Uint8Array;
  /** vt, txout_to_carrot_v1.view_tag (3 bytes). */
  viewTag: Uint8Array;
  /** anchor_enc, txout_to_carrot_v1.encrypted_janus_anchor (16 bytes). */
  encryptedAnchor: Uint8Array;
  /** D_e, an X25519 u-coordinate from tx_extra (the shared key, or this output's additional key). */
  ephemeralPubkey: Uint8Array;
}

/** What a non-coinbase enote shares with the rest of its transaction. */
export interface CarrotTxContext {
  /** 'R' ‖ first key image (33 bytes): enote.ts inputContextRingct. */
  inputContext: Uint8Array;
  /** pid_enc from the tx_extra nonce (8 bytes), or null when the transaction carries none. */
  encryptedPaymentId: Uint8Array | null;
}

/** A coinbase Carrot enote: no commitment, the amount in clear. */
export interface CarrotCoinbaseEnote {
  onetimeAddress: Uint8Array;
  /** tx_out.amount, piconero. */
  amount: bigint;
  viewTag: Uint8Array;
  encryptedAnchor: Uint8Array;
  ephemeralPubkey: Uint8Array;
  /** The height in the coinbase's gen input. */
  blockIndex: bigint;
}

/** The parts of a watch the scan reads (a ViewAccount has them all). */
export type CarrotReceiver = Pick<ViewAccount, "kind" | "viewSecret" | "spendPublicKey" | "spendKeys" | "subaddressIndex">;

/**
 * The step at which an enote was found not to be ours, for operators ("why
 * was this payment not seen?") and for the tests that pin each step:
 *   malformed               a field has the wrong length or type, or a point does not decode
 *   low-order-ephemeral-key k_v·D_e is the point at infinity
 *   view-tag                step 2
 *   spend-key-not-ours      step 4: K_s^j is not in the watch's table (coinbase: not its main K_s)
 *   amount-commitment       step 5: neither enote type opens C_a
 *   not-prime-order         step 6
 *   janus                   step 8: neither the normal nor the special check holds
 */
export type CarrotRefusal =
  | "malformed"
  | "low-order-ephemeral-key"
  | "view-tag"
  | "spend-key-not-ours"
  | "amount-commitment"
  | "not-prime-order"
  | "janus";

export type CarrotScanResult =
  | { owned: false; refusal: CarrotRefusal }
  | {
      owned: true;
      /** Piconero: opened against C_a (coinbase: the clear amount). */
      amount: bigint;
      /** As the legacy scanner reports it: the table's index, or a subaddress watch's own index (null if unknown). */
      subaddress: SubaddressIndex | null;
      /** 16 lowercase hex when the Janus check confirmed a non-zero payment ID, else null. */
      paymentId: string | null;
      enoteType: CarrotEnoteType;
      /** Accepted by the special anchor: a self-send made by a holder of this view key. */
      selfSend: boolean;
      coinbase: boolean;
      /** K_s^j, 64 lowercase hex. */
      addressSpendKey: string;
    };

const refuse = (refusal: CarrotRefusal): CarrotScanResult => ({ owned: false, refusal });
const ZERO_PID = new Uint8Array(PAYMENT_ID_BYTES);

const is32 = (b: unknown): b is Uint8Array => b instanceof Uint8Array && b.length === 32;
const isLen = (b: unknown, n: number): b is Uint8Array => b instanceof Uint8Array && b.length === n;

/**
 * s_sr = k_v · D_e, or null when D_e is not 32 bytes or the product is the
 * point at infinity. One per distinct D_e and watch: a transaction's outputs
 * often share D_e, so callers may compute it once and pass it to the scans.
 */
export function carrotSharedSecret(viewSecret: bigint, ephemeralPubkey: Uint8Array): Uint8Array | null {
  if (!is32(ephemeralPubkey)) return null;
  return nonZero(x25519Unclamped(viewSecret, ephemeralPubkey));
}

function nonZero(s: Uint8Array): Uint8Array | null {
  for (let i = 0; i < s.length; i++) if (s[i] !== 0) return s;
  return null;
}

/**
 * carrotSharedSecret(k, D_e) for many watches' k_v and one D_e, equal to it
 * for every k, with the work for D_e shared (x25519.ts x25519UnclampedMany):
 * what the batch scanner passes to the scans of a transaction's enotes.
 */
export function carrotSharedSecrets(viewSecrets: readonly bigint[], ephemeralPubkey: Uint8Array, opts?: X25519ManyOptions): (Uint8Array | null)[] {
  if (!is32(ephemeralPubkey)) return viewSecrets.map(() => null);
  return x25519UnclampedMany(ephemeralPubkey, viewSecrets, opts).map(nonZero);
}

/**
 * One Carrot transaction's scan work shared by many watches (the batch
 * scanner builds it once per transaction with shareCarrotTx): per enote, the
 * index of its D_e among the transaction's distinct ones (−1: not 32 bytes)
 * and, for a well-formed transfer enote, its view tag transcript
 * input_context ‖ K_o (with the domain separator) read into one BLAKE2b block
 * and its view tag as a little-endian number; per distinct D_e, every watch's
 * k_v·D_e (null: the point at infinity; undefined: not computed ahead).
 */
export interface CarrotTxShared {
  readonly keyIndex: Int32Array;
  readonly viewTagMessages: readonly (OneBlockMessage | null)[];
  readonly viewTags: Int32Array;
  /** [distinct D_e][watch]. */
  readonly secrets: readonly (readonly (Uint8Array | null | undefined)[])[];
}

/** Shared secrets computed ahead for one watch: its index in a transaction's CarrotTxShared. */
export interface KnownSharedSecrets {
  readonly shared: CarrotTxShared;
  readonly watch: number;
}

/**
 * Builds a transaction's CarrotTxShared: `secretsFor(D_e)` gives every
 * watch's k_v·D_e (as carrotSharedSecret gives it) and is called once per
 * distinct 32-byte D_e. `ctx` is null for a coinbase (no view-tag prefilter).
 */
export function shareCarrotTx(
  ctx: CarrotTxContext | null,
  enotes: readonly (CarrotEnote | CarrotCoinbaseEnote)[],
  secretsFor: (ephemeralPubkey: Uint8Array) => readonly (Uint8Array | null | undefined)[],
): CarrotTxShared {
  const keyIndex = new Int32Array(enotes.length).fill(-1);
  const byHex = new Map<string, number>();
  const secrets: (readonly (Uint8Array | null | undefined)[])[] = [];
  const viewTagMessages: (OneBlockMessage | null)[] = [];
  const viewTags = new Int32Array(enotes.length);
  enotes.forEach((e, i) => {
    viewTagMessages.push(null);
    if (!is32(e.ephemeralPubkey)) return;
    const hex = bytesToHex(e.ephemeralPubkey);
    let k = byHex.get(hex);
    if (k === undefined) {
      byHex.set(hex, (k = secrets.length));
      secrets.push(secretsFor(e.ephemeralPubkey));
    }
    keyIndex[i] = k;
    if (ctx === null || !("amountCommitment" in e) || !wellFormed(ctx, e)) return;
    const message = transcript(DOMAIN.viewTag, ctx.inputContext, e.onetimeAddress);
    if (message.length > 128) return;
    viewTagMessages[i] = oneBlockMessage(message);
    viewTags[i] = e.viewTag[0]! | (e.viewTag[1]! << 8) | (e.viewTag[2]! << 16);
  });
  return { keyIndex, viewTagMessages, viewTags, secrets };
}

/** The watch's k_v·D_e for enote i when computed ahead, else undefined. */
export function knownSecretFor(known: KnownSharedSecrets | undefined, enoteIndex: number): Uint8Array | null | undefined {
  if (!known) return undefined;
  const k = known.shared.keyIndex[enoteIndex];
  return k === undefined || k < 0 ? undefined : known.shared.secrets[k]![known.watch];
}

function wellFormed(ctx: CarrotTxContext, e: CarrotEnote): boolean {
  return (
    isLen(ctx.inputContext, INPUT_CONTEXT_BYTES) &&
    (ctx.encryptedPaymentId === null || isLen(ctx.encryptedPaymentId, PAYMENT_ID_BYTES)) &&
    is32(e.onetimeAddress) &&
    is32(e.amountCommitment) &&
    isLen(e.encryptedAmount, ENCRYPTED_AMOUNT_BYTES) &&
    isLen(e.viewTag, VIEW_TAG_BYTES) &&
    isLen(e.encryptedAnchor, JANUS_ANCHOR_BYTES) &&
    is32(e.ephemeralPubkey)
  );
}

/** The main spend key of a primary-address watch; a subaddress watch has none. */
function mainSpendKey(r: CarrotReceiver): Uint8Array | null {
  return r.kind === "subaddress" ? null : r.spendPublicKey;
}

function reportedIndex(r: CarrotReceiver, tableIndex: SubaddressIndex): SubaddressIndex | null {
  return r.kind === "subaddress" ? r.subaddressIndex : tableIndex;
}

/** Step 5: the amount and enote type that open C_a, or null. */
function openAmount(sCtx: Uint8Array, e: CarrotEnote, addressSpendKey: Uint8Array): { amount: bigint; enoteType: CarrotEnoteType } | null {
  const amount = decryptAmount(e.encryptedAmount, sCtx, e.onetimeAddress);
  for (const enoteType of ["payment", "change"] as const) {
    const ka = amountBlindingFactor(sCtx, amount, addressSpendKey, enoteType);
    if (equalBytes(commitAmount(amount, ka), e.amountCommitment)) return { amount, enoteType };
  }
  return null;
}

/** Step 6: K_s^j decodes and ℓ·K_s^j is the identity. */
function inPrimeOrderSubgroup(point: Uint8Array): boolean {
  const P = decodePoint(point);
  return P !== null && P.isTorsionFree();
}

/** The normal Janus check for one candidate payment ID (verify_carrot_normal_janus_protection). */
export function normalJanusHolds(
  anchor: Uint8Array,
  inputContext: Uint8Array,
  addressSpendKey: Uint8Array,
  isSubaddress: boolean,
  paymentId: Uint8Array,
  ephemeralPubkey: Uint8Array,
): boolean {
  const d = enoteEphemeralPrivkey(anchor, inputContext, addressSpendKey, paymentId);
  const De = enoteEphemeralPubkey(d, addressSpendKey, isSubaddress);
  return De !== null && equalBytes(De, ephemeralPubkey);
}

type JanusOutcome = { paymentId: Uint8Array; selfSend: boolean } | null;

/** Step 8 for a non-coinbase enote: pid as decrypted, then pid = 0, then the special anchor. */
function janus(r: CarrotReceiver, ctx: CarrotTxContext, e: CarrotEnote, sCtx: Uint8Array, addressSpendKey: Uint8Array): JanusOutcome {
  const main = mainSpendKey(r);
  const isSubaddress = !(main && equalBytes(main, addressSpendKey));
  const anchor = xorBytes(e.encryptedAnchor, anchorMask(sCtx, e.onetimeAddress));
  const pid = ctx.encryptedPaymentId ? xorBytes(ctx.encryptedPaymentId, paymentIdMask(sCtx, e.onetimeAddress)) : ZERO_PID;
  for (const candidate of equalBytes(pid, ZERO_PID) ? [ZERO_PID] : [pid, ZERO_PID]) {
    if (normalJanusHolds(anchor, ctx.inputContext, addressSpendKey, isSubaddress, candidate, e.ephemeralPubkey)) {
      return { paymentId: candidate, selfSend: false };
    }
  }
  const special = janusAnchorSpecial(e.ephemeralPubkey, ctx.inputContext, e.onetimeAddress, r.viewSecret);
  return equalBytes(special, anchor) ? { paymentId: ZERO_PID, selfSend: true } : null;
}

function scanChecked(r: CarrotReceiver, ctx: CarrotTxContext, e: CarrotEnote, sSr: Uint8Array): CarrotScanResult {
  if (!equalBytes(makeViewTag(sSr, ctx.inputContext, e.onetimeAddress), e.viewTag)) return refuse("view-tag");
  const sCtx = makeSenderReceiverSecretCtx(sSr, e.ephemeralPubkey, ctx.inputContext);
  const Ksj = recoverAddressSpendKey(e.onetimeAddress, senderExtensions(sCtx, e.amountCommitment));
  if (!Ksj) return refuse("malformed");
  const tableIndex = r.spendKeys.get(bytesToHex(Ksj));
  if (!tableIndex) return refuse("spend-key-not-ours");
  const opened = openAmount(sCtx, e, Ksj);
  if (!opened) return refuse("amount-commitment");
  if (!inPrimeOrderSubgroup(Ksj)) return refuse("not-prime-order");
  const j = janus(r, ctx, e, sCtx, Ksj);
  if (!j) return refuse("janus");
  return {
    owned: true,
    amount: opened.amount,
    subaddress: reportedIndex(r, tableIndex),
    paymentId: equalBytes(j.paymentId, ZERO_PID) ? null : bytesToHex(j.paymentId),
    enoteType: opened.enoteType,
    selfSend: j.selfSend,
    coinbase: false,
    addressSpendKey: bytesToHex(Ksj),
  };
}

/**
 * Scans one non-coinbase enote for a watch. `sharedSecret` is k_v·D_e when
 * the caller already has it (carrotSharedSecret); it is computed otherwise.
 */
export function scanCarrotEnote(r: CarrotReceiver, ctx: CarrotTxContext, e: CarrotEnote, sharedSecret?: Uint8Array | null): CarrotScanResult {
  try {
    if (!wellFormed(ctx, e)) return refuse("malformed");
    const sSr = sharedSecret === undefined ? carrotSharedSecret(r.viewSecret, e.ephemeralPubkey) : sharedSecret;
    return sSr ? scanChecked(r, ctx, e, sSr) : refuse("low-order-ephemeral-key");
  } catch {
    return refuse("malformed");
  }
}

/**
 * Scans the enotes of one transaction, computing k_v·D_e once per distinct
 * D_e (the batch scanner, which has them already, uses ownedCarrotEnotes).
 */
export function scanCarrotEnotes(r: CarrotReceiver, ctx: CarrotTxContext, enotes: CarrotEnote[]): CarrotScanResult[] {
  const secrets = new Map<string, Uint8Array | null>();
  return enotes.map((e) => {
    if (!is32(e.ephemeralPubkey)) return refuse("malformed");
    const key = bytesToHex(e.ephemeralPubkey);
    if (!secrets.has(key)) secrets.set(key, carrotSharedSecret(r.viewSecret, e.ephemeralPubkey));
    return scanCarrotEnote(r, ctx, e, secrets.get(key)!);
  });
}

/** An owned enote of a transaction: its index and its scan result. */
export interface OwnedCarrotEnote {
  index: number;
  result: Extract<CarrotScanResult, { owned: true }>;
}

/**
 * The owned enotes of one transaction for a watch whose shared secrets were
 * computed ahead: exactly the enotes scanCarrotEnotes (with the same `known`)
 * reports owned, in order, or null when there is none. A well-formed enote is
 * refused here without allocating when its shared secret is the point at
 * infinity or its view tag differs (one keyed BLAKE2b of the transcript block
 * prepared per transaction); every other enote, a view-tag hit or anything
 * unusual, takes the full scanCarrotEnote.
 */
export function ownedCarrotEnotes(r: CarrotReceiver, ctx: CarrotTxContext, enotes: readonly CarrotEnote[], known: KnownSharedSecrets): OwnedCarrotEnote[] | null {
  const { shared, watch } = known;
  let owned: OwnedCarrotEnote[] | null = null;
  for (let i = 0; i < enotes.length; i++) {
    const k = shared.keyIndex[i]!;
    const sSr = k < 0 ? undefined : shared.secrets[k]![watch];
    const message = shared.viewTagMessages[i];
    if (message && sSr === null) continue; // refusal "low-order-ephemeral-key"
    if (message && sSr && sSr.length === 32 && (blake2bKeyedWord0(VIEW_TAG_BYTES, message, sSr, BLAKE2B_PERSONALIZATION) & 0xffffff) !== shared.viewTags[i]) {
      continue; // refusal "view-tag"
    }
    const result = k < 0 ? refuse("malformed") : scanCarrotEnote(r, ctx, enotes[i]!, sSr);
    if (result.owned) (owned ??= []).push({ index: i, result });
  }
  return owned;
}

function coinbaseWellFormed(e: CarrotCoinbaseEnote): boolean {
  return (
    is32(e.onetimeAddress) &&
    typeof e.amount === "bigint" &&
    e.amount >= 0n &&
    e.amount < 1n << 64n &&
    isLen(e.viewTag, VIEW_TAG_BYTES) &&
    isLen(e.encryptedAnchor, JANUS_ANCHOR_BYTES) &&
    is32(e.ephemeralPubkey) &&
    typeof e.blockIndex === "bigint" &&
    e.blockIndex >= 0n &&
    e.blockIndex < 1n << 64n
  );
}

/** Steps 2–8 for a coinbase enote; null when all hold. */
function coinbaseRefusal(main: Uint8Array, e: CarrotCoinbaseEnote, sSr: Uint8Array): CarrotRefusal | null {
  const inputContext = inputContextCoinbase(e.blockIndex);
  if (!equalBytes(makeViewTag(sSr, inputContext, e.onetimeAddress), e.viewTag)) return "view-tag";
  const sCtx = makeSenderReceiverSecretCtx(sSr, e.ephemeralPubkey, inputContext);
  const Ks = recoverAddressSpendKey(e.onetimeAddress, senderExtensionsCoinbase(sCtx, e.amount, main));
  if (!Ks) return "malformed";
  if (!equalBytes(Ks, main)) return "spend-key-not-ours";
  if (!inPrimeOrderSubgroup(Ks)) return "not-prime-order";
  const anchor = xorBytes(e.encryptedAnchor, anchorMask(sCtx, e.onetimeAddress));
  return normalJanusHolds(anchor, inputContext, main, false, ZERO_PID, e.ephemeralPubkey) ? null : "janus";
}

/**
 * Scans one coinbase enote for a watch: main address only (spec §7.9), so a
 * subaddress watch never owns one (refusal spend-key-not-ours).
 */
export function scanCarrotCoinbaseEnote(r: CarrotReceiver, e: CarrotCoinbaseEnote, sharedSecret?: Uint8Array | null): CarrotScanResult {
  try {
    if (!coinbaseWellFormed(e)) return refuse("malformed");
    const main = mainSpendKey(r);
    if (!main) return refuse("spend-key-not-ours");
    const sSr = sharedSecret === undefined ? carrotSharedSecret(r.viewSecret, e.ephemeralPubkey) : sharedSecret;
    if (!sSr) return refuse("low-order-ephemeral-key");
    const refusal = coinbaseRefusal(main, e, sSr);
    if (refusal) return refuse(refusal);
    const index = r.spendKeys.get(bytesToHex(main)) ?? { major: 0, minor: 0 };
    return { owned: true, amount: e.amount, subaddress: index, paymentId: null, enoteType: "payment", selfSend: false, coinbase: true, addressSpendKey: bytesToHex(main) };
  } catch {
    return refuse("malformed");
  }
}
