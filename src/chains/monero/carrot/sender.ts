/**
 * The sender side of Carrot, for round trips and the devnet: enotes to legacy
 * main addresses, subaddresses and integrated addresses, a wallet's change
 * ("special" self-send enote), whole output sets and coinbase enotes, built as
 * monero-project/monero PR #9559 @ c7b6ee45 builds them
 * (src/carrot_core/payment_proposal.cpp get_output_proposal_normal_v1,
 * get_output_proposal_special_v1, get_coinbase_enote_v1;
 * output_set_finalization.cpp get_output_enote_proposals, get_coinbase_output_enotes):
 *
 *   d_e = H_n(anchor ‖ input_context ‖ K_s^j ‖ pid)
 *   D_e = d_e·B (main address) or ConvertPointE(d_e·K_s^j) (subaddress)
 *   s_sr = d_e·ConvertPointE(K_v^j)           (a self-send: s_sr = k_v·D_e)
 *   s_sr_ctx = H_32[s_sr](D_e ‖ input_context)
 *   k_a = H_n[s_sr_ctx](a ‖ K_s^j ‖ type), C_a = k_a·G + a·H   (coinbase: k_a = 1)
 *   K_o = K_s^j + k_g·G + k_t·T
 *   a_enc = a ⊕ m_a, pid_enc = pid ⊕ m_pid, vt = H_3[s_sr](input_context ‖ K_o)
 *   anchor_enc = anchor ⊕ m_anchor    (a self-send: anchor = H_16[k_v](D_e ‖ input_context ‖ K_o))
 *
 * Output sets follow the reference's rules: at least two outputs, one of them
 * the sender's change; at most one integrated address; a 2-output set shares
 * one D_e (the change reuses the payment's), larger sets have one D_e per
 * output; outputs sorted by K_o; the transaction's pid_enc is the integrated
 * output's, else random bytes. Errors are thrown (RangeError): the caller
 * builds what it asked for or nothing.
 */
import { randomBytes as cryptoRandomBytes } from "@noble/hashes/utils.js";
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { decodeAddressOrThrow } from "../address.js";
import { L, decodePoint } from "../crypto.js";
import { bytesToHex } from "../encoding.js";
import { CARROT_MIN_TX_OUTPUTS, FCMP_PLUS_PLUS_MAX_OUTPUTS, JANUS_ANCHOR_BYTES, PAYMENT_ID_BYTES, type CarrotEnoteType } from "./constants.js";
import {
  amountBlindingFactor,
  anchorMask,
  commitAmount,
  encryptAmount,
  enoteEphemeralPrivkey,
  enoteEphemeralPubkey,
  inputContextCoinbase,
  inputContextRingct,
  janusAnchorSpecial,
  makeOnetimeAddress,
  makeSenderReceiverSecretCtx,
  makeViewTag,
  paymentIdMask,
  senderExtensions,
  senderExtensionsCoinbase,
  xorBytes,
} from "./enote.js";
import type { CarrotCoinbaseEnote, CarrotEnote } from "./scan.js";
import { edwardsToMontgomery, x25519Unclamped } from "./x25519.js";

export type RandomBytes = (n: number) => Uint8Array;

/** Where a payment goes: a legacy address's keys (CarrotDestinationV1). */
export interface CarrotDestination {
  /** K_s^j: the main spend key, or the subaddress's D. */
  spendPublicKey: Uint8Array;
  /** K_v^j: the main view key, or the subaddress's C. */
  viewPublicKey: Uint8Array;
  isSubaddress: boolean;
  /** 8 bytes; zero except for an integrated address. */
  paymentId: Uint8Array;
}

/** A built enote with what its sender knows (the tests check the intermediates). */
export interface BuiltCarrotEnote extends CarrotEnote {
  amount: bigint;
  enoteType: CarrotEnoteType;
  amountBlindingFactor: bigint;
  /** pid ⊕ m_pid for this output (the transaction carries the integrated output's). */
  encryptedPaymentId: Uint8Array;
  sharedSecret: Uint8Array;
  sharedSecretCtx: Uint8Array;
  /** True for the sender's own change (special enote). */
  selfSend: boolean;
}

export interface BuiltCarrotOutputSet {
  inputContext: Uint8Array;
  /** Sorted by K_o, as the chain carries them. */
  enotes: BuiltCarrotEnote[];
  /** The transaction's pid_enc. */
  encryptedPaymentId: Uint8Array;
}

/** The destination of a Monero address (standard, subaddress or integrated). Throws 400 invalid_address. */
export function destinationFromAddress(address: string): CarrotDestination {
  const d = decodeAddressOrThrow(address);
  return {
    spendPublicKey: d.spendPublicKey,
    viewPublicKey: d.viewPublicKey,
    isSubaddress: d.kind === "subaddress",
    paymentId: d.paymentId ?? new Uint8Array(PAYMENT_ID_BYTES),
  };
}

/** try_make_carrot_shared_key_sender: d_e·ConvertPointE(K_v^j); K_v^j must be a prime-order point. */
export function senderSharedSecret(d: bigint, viewPublicKey: Uint8Array): Uint8Array {
  const K = decodePoint(viewPublicKey);
  if (!K || !K.isTorsionFree()) throw new RangeError("address view key is not a prime-order point");
  const u = edwardsToMontgomery(K);
  if (!u) throw new RangeError("address view key is the identity");
  return x25519Unclamped(d, u);
}

interface EnoteParts {
  sCtx: Uint8Array;
  ka: bigint;
  Ca: Uint8Array;
  Ko: Uint8Array;
  aEnc: Uint8Array;
  pidEnc: Uint8Array;
  vt: Uint8Array;
}

/** get_external_output_proposal_parts: everything after s_sr and D_e. */
function enoteParts(sSr: Uint8Array, De: Uint8Array, ic: Uint8Array, spendKey: Uint8Array, pid: Uint8Array, amount: bigint, type: CarrotEnoteType): EnoteParts {
  const sCtx = makeSenderReceiverSecretCtx(sSr, De, ic);
  const ka = amountBlindingFactor(sCtx, amount, spendKey, type);
  const Ca = commitAmount(amount, ka);
  const Ko = makeOnetimeAddress(spendKey, senderExtensions(sCtx, Ca));
  if (!Ko) throw new RangeError("destination spend key is not a point");
  const aEnc = encryptAmount(amount, sCtx, Ko);
  const pidEnc = xorBytes(pid, paymentIdMask(sCtx, Ko));
  return { sCtx, ka, Ca, Ko, aEnc, pidEnc, vt: makeViewTag(sSr, ic, Ko) };
}

function assembled(p: EnoteParts, De: Uint8Array, sSr: Uint8Array, anchor: Uint8Array, amount: bigint, type: CarrotEnoteType, selfSend: boolean): BuiltCarrotEnote {
  return {
    onetimeAddress: p.Ko,
    amountCommitment: p.Ca,
    encryptedAmount: p.aEnc,
    viewTag: p.vt,
    encryptedAnchor: xorBytes(anchor, anchorMask(p.sCtx, p.Ko)),
    ephemeralPubkey: De,
    amount,
    enoteType: type,
    amountBlindingFactor: p.ka,
    encryptedPaymentId: p.pidEnc,
    sharedSecret: sSr,
    sharedSecretCtx: p.sCtx,
    selfSend,
  };
}

function assertAnchor(anchor: Uint8Array): void {
  if (anchor.length !== JANUS_ANCHOR_BYTES || anchor.every((b) => b === 0)) throw new RangeError("anchor must be 16 bytes, not all zero");
}

/** d_e and D_e of a normal enote to `destination`. */
export function normalEphemeralKeys(destination: CarrotDestination, anchor: Uint8Array, inputContext: Uint8Array): { d: bigint; De: Uint8Array } {
  const d = enoteEphemeralPrivkey(anchor, inputContext, destination.spendPublicKey, destination.paymentId);
  const De = enoteEphemeralPubkey(d, destination.spendPublicKey, destination.isSubaddress);
  if (!De) throw new RangeError("destination spend key is not a usable point");
  return { d, De };
}

/** get_output_proposal_normal_v1: a payment of `amount` to `destination`. */
export function makeNormalEnote(p: { destination: CarrotDestination; amount: bigint; anchor: Uint8Array; inputContext: Uint8Array }): BuiltCarrotEnote {
  assertAnchor(p.anchor);
  const { d, De } = normalEphemeralKeys(p.destination, p.anchor, p.inputContext);
  const sSr = senderSharedSecret(d, p.destination.viewPublicKey);
  const parts = enoteParts(sSr, De, p.inputContext, p.destination.spendPublicKey, p.destination.paymentId, p.amount, "payment");
  return assembled(parts, De, sSr, p.anchor, p.amount, "payment", false);
}

/** What a legacy wallet needs to send its change to itself. */
export interface SelfSendKeys {
  /** k_v, the wallet's private view key. */
  viewSecret: bigint;
  /** The main spend key, or the subaddress D the change goes to. */
  spendPublicKey: Uint8Array;
  isSubaddress: boolean;
}

/** get_output_proposal_special_v1: a self-send with an explicit D_e (s_sr = k_v·D_e, the anchor a MAC under k_v). */
export function makeSpecialEnote(p: { self: SelfSendKeys; amount: bigint; enoteType: CarrotEnoteType; ephemeralPubkey: Uint8Array; inputContext: Uint8Array }): BuiltCarrotEnote {
  const sSr = x25519Unclamped(p.self.viewSecret, p.ephemeralPubkey);
  const parts = enoteParts(sSr, p.ephemeralPubkey, p.inputContext, p.self.spendPublicKey, new Uint8Array(PAYMENT_ID_BYTES), p.amount, p.enoteType);
  const anchor = janusAnchorSpecial(p.ephemeralPubkey, p.inputContext, parts.Ko, p.self.viewSecret);
  return assembled(parts, p.ephemeralPubkey, sSr, anchor, p.amount, p.enoteType, true);
}

/** A random scalar below ℓ (64 random bytes reduced, as the reference's random d_e for a self-send in a >2-output set). */
function randomScalar(rng: RandomBytes): bigint {
  return bytesToNumberLE(rng(64)) % L;
}

function randomAnchor(rng: RandomBytes): Uint8Array {
  for (;;) {
    const a = rng(JANUS_ANCHOR_BYTES);
    if (a.some((b) => b !== 0)) return a;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export interface CarrotPayment {
  destination: CarrotDestination;
  amount: bigint;
  /** anchor_norm; random when absent. */
  anchor?: Uint8Array;
}

export interface BuildCarrotOutputSetOptions {
  /** The transaction's first key image: input_context = 'R' ‖ it. */
  firstKeyImage: Uint8Array;
  payments: CarrotPayment[];
  /** The sending wallet's change back to itself. */
  change: SelfSendKeys & { amount: bigint };
  rng?: RandomBytes;
}

function checkSetShape(payments: CarrotPayment[]): void {
  const n = payments.length + 1;
  if (payments.length < 1 || n < CARROT_MIN_TX_OUTPUTS || n > FCMP_PLUS_PLUS_MAX_OUTPUTS) {
    throw new RangeError(`a Carrot output set has 1..${FCMP_PLUS_PLUS_MAX_OUTPUTS - 1} payments plus the change`);
  }
  if (payments.filter((p) => p.destination.paymentId.some((b) => b !== 0)).length > 1) throw new RangeError("at most one integrated address per transaction");
}

/** The change's D_e: the payment's in a 2-output set, else its own from a random d_e. */
function changeEphemeralPubkey(opts: BuildCarrotOutputSetOptions, normals: BuiltCarrotEnote[], rng: RandomBytes): Uint8Array {
  if (normals.length === 1) return normals[0]!.ephemeralPubkey;
  const De = enoteEphemeralPubkey(randomScalar(rng), opts.change.spendPublicKey, opts.change.isSubaddress);
  if (!De) throw new RangeError("change spend key is not a usable point");
  return De;
}

/** get_output_enote_proposals for a legacy (view-key) sender: the payments plus a special change enote. */
export function buildCarrotOutputSet(opts: BuildCarrotOutputSetOptions): BuiltCarrotOutputSet {
  checkSetShape(opts.payments);
  const rng = opts.rng ?? cryptoRandomBytes;
  const inputContext = inputContextRingct(opts.firstKeyImage);
  const normals = opts.payments.map((p) => makeNormalEnote({ destination: p.destination, amount: p.amount, anchor: p.anchor ?? randomAnchor(rng), inputContext }));
  const change = makeSpecialEnote({ self: opts.change, amount: opts.change.amount, enoteType: "change", ephemeralPubkey: changeEphemeralPubkey(opts, normals, rng), inputContext });
  const integrated = opts.payments.findIndex((p) => p.destination.paymentId.some((b) => b !== 0));
  const encryptedPaymentId = integrated >= 0 ? normals[integrated]!.encryptedPaymentId : rng(PAYMENT_ID_BYTES);
  const enotes = [...normals, change].sort((a, b) => compareBytes(a.onetimeAddress, b.onetimeAddress));
  const distinctDe = new Set(enotes.map((e) => bytesToHex(e.ephemeralPubkey))).size;
  if (enotes.length > 2 && distinctDe !== enotes.length) throw new RangeError("a >2-output set needs one D_e per output");
  return { inputContext, enotes, encryptedPaymentId };
}

/** A built coinbase enote with its sender-side intermediates. */
export interface BuiltCarrotCoinbaseEnote extends CarrotCoinbaseEnote {
  sharedSecret: Uint8Array;
  sharedSecretCtx: Uint8Array;
}

/** get_coinbase_enote_v1: a coinbase payment to a main address (no subaddress, no payment ID). */
export function makeCoinbaseEnote(p: { destination: CarrotDestination; amount: bigint; anchor: Uint8Array; blockIndex: bigint }): BuiltCarrotCoinbaseEnote {
  assertAnchor(p.anchor);
  if (p.destination.isSubaddress || p.destination.paymentId.some((b) => b !== 0)) throw new RangeError("coinbase outputs go to main addresses only");
  const inputContext = inputContextCoinbase(p.blockIndex);
  const { d, De } = normalEphemeralKeys(p.destination, p.anchor, inputContext);
  const sSr = senderSharedSecret(d, p.destination.viewPublicKey);
  const sCtx = makeSenderReceiverSecretCtx(sSr, De, inputContext);
  const Ko = makeOnetimeAddress(p.destination.spendPublicKey, senderExtensionsCoinbase(sCtx, p.amount, p.destination.spendPublicKey));
  if (!Ko) throw new RangeError("destination spend key is not a point");
  return {
    onetimeAddress: Ko,
    amount: p.amount,
    viewTag: makeViewTag(sSr, inputContext, Ko),
    encryptedAnchor: xorBytes(p.anchor, anchorMask(sCtx, Ko)),
    ephemeralPubkey: De,
    blockIndex: p.blockIndex,
    sharedSecret: sSr,
    sharedSecretCtx: sCtx,
  };
}

/** get_coinbase_output_enotes: one enote per payment, sorted by K_o. */
export function buildCarrotCoinbaseEnotes(p: { blockIndex: bigint; payments: CarrotPayment[]; rng?: RandomBytes }): BuiltCarrotCoinbaseEnote[] {
  const rng = p.rng ?? cryptoRandomBytes;
  const enotes = p.payments.map((q) => makeCoinbaseEnote({ destination: q.destination, amount: q.amount, anchor: q.anchor ?? randomAnchor(rng), blockIndex: p.blockIndex }));
  return enotes.sort((a, b) => compareBytes(a.onetimeAddress, b.onetimeAddress));
}
