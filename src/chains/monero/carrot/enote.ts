/**
 * The Carrot enote derivations shared by the sender and the view-key
 * receiver, one function per reference function of monero-project/monero
 * PR #9559 @ c7b6ee45 src/carrot_core/enote_utils.cpp (the name is given at
 * each). Notation: s_sr is the X25519 shared secret, s_sr_ctx its
 * contextualised form, K_s^j the address spend key, K_o the one-time address,
 * C_a the amount commitment, D_e the enote ephemeral public key (an X25519 u).
 *
 * Points are taken and returned as 32-byte encodings; scalars as bigints
 * below ℓ. Functions return null where the reference returns false (a point
 * that does not decode, a conversion of the identity).
 */
import { H_POINT, Point, decodePoint, mulBase, mulPoint, scalarToBytes, type EdPoint } from "../crypto.js";
import { commitFast } from "../edwards-fast.js";
import {
  DOMAIN,
  ENOTE_TYPE,
  GENERATOR_T,
  INPUT_CONTEXT_BYTES,
  INPUT_CONTEXT_COINBASE,
  INPUT_CONTEXT_RINGCT,
  type CarrotEnoteType,
} from "./constants.js";
import { deriveBytes, deriveScalar, transcript } from "./hash.js";
import { edwardsToMontgomery, x25519BaseUnclamped } from "./x25519.js";

/** The generator T as a point, with a lazily built multiplication table. */
export const T_POINT: EdPoint = Point.fromBytes(GENERATOR_T).precompute(8);

const U64_MAX = (1n << 64n) - 1n;

/** a ⊕ b for equal-length byte strings. */
export function xorBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== b.length) throw new RangeError("xor of unequal lengths");
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

// ---------------------------------------------------------------------------
// Input contexts

/** make_carrot_input_context: 'R' ‖ the transaction's first key image. */
export function inputContextRingct(firstKeyImage: Uint8Array): Uint8Array {
  if (firstKeyImage.length !== 32) throw new RangeError("a key image is 32 bytes");
  const out = new Uint8Array(INPUT_CONTEXT_BYTES);
  out[0] = INPUT_CONTEXT_RINGCT;
  out.set(firstKeyImage, 1);
  return out;
}

/** make_carrot_input_context_coinbase: 'C' ‖ block index as u64 little-endian ‖ 24 zero bytes. */
export function inputContextCoinbase(blockIndex: bigint): Uint8Array {
  if (blockIndex < 0n || blockIndex > U64_MAX) throw new RangeError("block index out of u64 range");
  const out = new Uint8Array(INPUT_CONTEXT_BYTES);
  out[0] = INPUT_CONTEXT_COINBASE;
  new DataView(out.buffer).setBigUint64(1, blockIndex, true);
  return out;
}

// ---------------------------------------------------------------------------
// Shared secrets and the view tag

/** make_carrot_view_tag: vt = H_3[s_sr](input_context ‖ K_o). */
export function makeViewTag(sSr: Uint8Array, inputContext: Uint8Array, onetimeAddress: Uint8Array): Uint8Array {
  return deriveBytes(3, transcript(DOMAIN.viewTag, inputContext, onetimeAddress), sSr);
}

/** make_carrot_contextualized_sender_receiver_secret: s_sr_ctx = H_32[s_sr](D_e ‖ input_context). */
export function makeSenderReceiverSecretCtx(sSr: Uint8Array, ephemeralPubkey: Uint8Array, inputContext: Uint8Array): Uint8Array {
  return deriveBytes(32, transcript(DOMAIN.senderReceiverSecret, ephemeralPubkey, inputContext), sSr);
}

// ---------------------------------------------------------------------------
// One-time address

/** make_carrot_sender_extension_{g,t}: k_g, k_t = H_n[s_sr_ctx](C_a). */
export function senderExtensions(sCtx: Uint8Array, amountCommitment: Uint8Array): { kg: bigint; kt: bigint } {
  return {
    kg: deriveScalar(transcript(DOMAIN.extensionG, amountCommitment), sCtx),
    kt: deriveScalar(transcript(DOMAIN.extensionT, amountCommitment), sCtx),
  };
}

/** make_carrot_sender_extension_{g,t}_coinbase: k_g, k_t = H_n[s_sr_ctx](a ‖ K_s^0). */
export function senderExtensionsCoinbase(sCtx: Uint8Array, amount: bigint, mainSpendKey: Uint8Array): { kg: bigint; kt: bigint } {
  return {
    kg: deriveScalar(transcript(DOMAIN.extensionGCoinbase, { u64: amount }, mainSpendKey), sCtx),
    kt: deriveScalar(transcript(DOMAIN.extensionTCoinbase, { u64: amount }, mainSpendKey), sCtx),
  };
}

/** K^o_ext = k_g·G + k_t·T. */
export function extensionPoint(kg: bigint, kt: bigint): EdPoint {
  return mulBase(kg).add(mulPoint(T_POINT, kt));
}

/** try_make_carrot_onetime_address{,_coinbase}: K_o = K_s^j + k_g·G + k_t·T; null when K_s^j does not decode. */
export function makeOnetimeAddress(addressSpendKey: Uint8Array, ext: { kg: bigint; kt: bigint }): Uint8Array | null {
  const K = decodePoint(addressSpendKey);
  return K ? K.add(extensionPoint(ext.kg, ext.kt)).toBytes() : null;
}

/** try_recover_address_spend_pubkey: K_s^j = K_o − (k_g·G + k_t·T); null when K_o does not decode. */
export function recoverAddressSpendKey(onetimeAddress: Uint8Array, ext: { kg: bigint; kt: bigint }): Uint8Array | null {
  const Ko = decodePoint(onetimeAddress);
  return Ko ? Ko.subtract(extensionPoint(ext.kg, ext.kt)).toBytes() : null;
}

// ---------------------------------------------------------------------------
// Amount

/** make_carrot_amount_blinding_factor: k_a = H_n[s_sr_ctx](a ‖ K_s^j ‖ enote_type). */
export function amountBlindingFactor(sCtx: Uint8Array, amount: bigint, addressSpendKey: Uint8Array, enoteType: CarrotEnoteType): bigint {
  return deriveScalar(transcript(DOMAIN.amountBlindingFactor, { u64: amount }, addressSpendKey, { u8: ENOTE_TYPE[enoteType] }), sCtx);
}

/** commit_carrot_amount: C_a = k_a·G + a·H. */
export function commitAmount(amount: bigint, blindingFactor: bigint): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new RangeError("amount out of u64 range");
  return commitFast(blindingFactor, amount, H_POINT);
}

/** make_carrot_amount_encryption_mask: m_a = H_8[s_sr_ctx](K_o). */
export function amountMask(sCtx: Uint8Array, onetimeAddress: Uint8Array): Uint8Array {
  return deriveBytes(8, transcript(DOMAIN.encryptionMaskAmount, onetimeAddress), sCtx);
}

/** encrypt_carrot_amount: a_enc = LE64(a) ⊕ m_a. */
export function encryptAmount(amount: bigint, sCtx: Uint8Array, onetimeAddress: Uint8Array): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new RangeError("amount out of u64 range");
  const le = new Uint8Array(8);
  new DataView(le.buffer).setBigUint64(0, amount, true);
  return xorBytes(le, amountMask(sCtx, onetimeAddress));
}

/** decrypt_carrot_amount: a = LE64(a_enc ⊕ m_a). */
export function decryptAmount(encryptedAmount: Uint8Array, sCtx: Uint8Array, onetimeAddress: Uint8Array): bigint {
  const plain = xorBytes(encryptedAmount, amountMask(sCtx, onetimeAddress));
  return new DataView(plain.buffer).getBigUint64(0, true);
}

// ---------------------------------------------------------------------------
// Anchor and payment ID

/** make_carrot_anchor_encryption_mask: m_anchor = H_16[s_sr_ctx](K_o); anchor_enc = anchor ⊕ m_anchor. */
export function anchorMask(sCtx: Uint8Array, onetimeAddress: Uint8Array): Uint8Array {
  return deriveBytes(16, transcript(DOMAIN.encryptionMaskAnchor, onetimeAddress), sCtx);
}

/** make_carrot_payment_id_encryption_mask: m_pid = H_8[s_sr_ctx](K_o); pid_enc = pid ⊕ m_pid. */
export function paymentIdMask(sCtx: Uint8Array, onetimeAddress: Uint8Array): Uint8Array {
  return deriveBytes(8, transcript(DOMAIN.encryptionMaskPaymentId, onetimeAddress), sCtx);
}

/** make_carrot_janus_anchor_special: anchor_sp = H_16[k_v](D_e ‖ input_context ‖ K_o). */
export function janusAnchorSpecial(ephemeralPubkey: Uint8Array, inputContext: Uint8Array, onetimeAddress: Uint8Array, viewSecret: bigint): Uint8Array {
  return deriveBytes(16, transcript(DOMAIN.janusAnchorSpecial, ephemeralPubkey, inputContext, onetimeAddress), scalarToBytes(viewSecret));
}

// ---------------------------------------------------------------------------
// Enote ephemeral key (the normal Janus check recomputes it)

/** make_carrot_enote_ephemeral_privkey: d_e = H_n(anchor ‖ input_context ‖ K_s^j ‖ pid), unkeyed. */
export function enoteEphemeralPrivkey(anchor: Uint8Array, inputContext: Uint8Array, addressSpendKey: Uint8Array, paymentId: Uint8Array): bigint {
  return deriveScalar(transcript(DOMAIN.ephemeralPrivkey, anchor, inputContext, addressSpendKey, paymentId));
}

/**
 * try_make_carrot_enote_ephemeral_pubkey: D_e = d_e·B for a main address,
 * ConvertPointE(d_e·K_s^j) for a subaddress; null when K_s^j does not decode
 * or the product is the identity.
 */
export function enoteEphemeralPubkey(d: bigint, addressSpendKey: Uint8Array, isSubaddress: boolean): Uint8Array | null {
  if (!isSubaddress) return x25519BaseUnclamped(d);
  const K = decodePoint(addressSpendKey);
  return K ? edwardsToMontgomery(mulPoint(K, d)) : null;
}
