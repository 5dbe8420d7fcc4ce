/**
 * Upstream's fixed Carrot vectors, reproduced step by step.
 *
 * Source: monero-project/monero PR #9559 (carrot_core), head
 * c7b6ee459f09ec00b444b565c122560bfc0bfda8, file
 * tests/unit_tests/carrot_convergence.cpp (values regenerated for the new
 * generator T in commit a70d97c73e956445d98bf230cf7bf94c60810c60). The hex
 * strings below are transcribed from that file's constants; the variable names
 * are the file's.
 *
 * Every intermediate that a view-key receiver computes is checked: the
 * receiver ECDH (unclamped X25519), s_sr_ctx, k_a (payment and change), C_a,
 * K_o and the coinbase K_o (both through T), the view tag, the three masks,
 * d_e and D_e (the normal Janus check recomputes them) and the special anchor.
 * Not reproduced: the file's new-hierarchy account derivations (s_m → k_ps,
 * s_vb, k_gi, k_vi, s_ga, address index preimages, subaddress scalar), which a
 * legacy view key never computes; the enote derivations use k_vi exactly as
 * they use a legacy k_v.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { Point, decodePoint, mulPoint } from "../../../../src/chains/monero/crypto.js";
import { bytesToHex, hexToBytes } from "../../../../src/chains/monero/encoding.js";
import { GENERATOR_T_OLD_HEX } from "../../../../src/chains/monero/carrot/constants.js";
import {
  amountBlindingFactor,
  amountMask,
  anchorMask,
  commitAmount,
  decryptAmount,
  encryptAmount,
  enoteEphemeralPrivkey,
  enoteEphemeralPubkey,
  janusAnchorSpecial,
  makeOnetimeAddress,
  makeSenderReceiverSecretCtx,
  makeViewTag,
  paymentIdMask,
  recoverAddressSpendKey,
  senderExtensions,
  senderExtensionsCoinbase,
  xorBytes,
} from "../../../../src/chains/monero/carrot/enote.js";
import { scanCarrotEnote, type CarrotReceiver } from "../../../../src/chains/monero/carrot/scan.js";
import { senderSharedSecret } from "../../../../src/chains/monero/carrot/sender.js";
import { x25519BaseUnclamped, x25519Unclamped } from "../../../../src/chains/monero/carrot/x25519.js";

// --- transcribed from carrot_convergence.cpp @ c7b6ee45 ---
const V = {
  k_view_incoming: "12624c702b4c1a22fd710a836894ed0705955502e6498e5c6e3ad6f5920bb00f",
  account_spend_pubkey: "905f67e69c39948e03dacbcfaeb2e766bfb407cdae53f1b11a813df99d9444e5",
  account_view_pubkey: "34e4a36c249e3e0d22a4ee4d6a4da5ee89b12dc42223a12195af8dd727eb35fc",
  address_index_major: 5,
  address_index_minor: 16,
  subaddress_spend_pubkey: "97d227d0ff67e521b805d05d3a51390fd889181e334bf68156cb1e2d5aee6dd4",
  subaddress_view_pubkey: "99a684cd429d88815cb1f90b794522b32812388a9f35120cfc08c7435f7bd51f",
  anchor_norm: "caee1381775487a0982557f0d2680b55",
  anchor_special: "dea14ab8268ba491238f1c554ab60d83",
  input_context: "9423f74f3e869dc8427d8b35bb24c917480409c3f4750bff3c742f8e4d5af7bef7",
  payment_id: "4321734f56621440",
  enote_ephemeral_privkey: "6bd72042c79d9532a3b90b3689ee53c22725a11169ac2d251337bc4a69b2340d",
  enote_ephemeral_pubkey_cryptonote: "65b42ef1ed3bd2ab3e6e86d17a52d832bcb6c820a8987306bedd9f6453693869",
  enote_ephemeral_pubkey_subaddress: "d8e787047bb21d7dd348524741c78f311f549554b6dffd71c86ecc4a98a15720",
  s_sender_receiver: "513ee79c0c8d76fdd95665a36d607b618e2f76a4806cfdba340fafe64b7f805f",
  s_sender_receiver_ctx: "6d4288869ce44ed5c38d4016b33083a1a0200daa2d8afc16625702d2108b62ae",
  amount: 67000000000000n,
  amount_blinding_factor_payment: "2943f1f7cdabfcfef4803fe6a36df414065e912089ebcee5dbdad32a9685060a",
  amount_blinding_factor_change: "b9787d10298d13e34cf21513bce84dd1b13ae8aad6ab79794ac06a4c936e2b09",
  amount_commitment: "95f818f40a41665950d90db8f790cd8a135403624bac284d1059aeb29652fafe",
  onetime_address_coinbase: "eb6d42a2cabe4e71a0d61172ed8b528b62c0ab398cde9373dab35cc774ba7c05",
  onetime_address: "5e8f18d1dd3aba72d6ea2c7cfb217573ff4baa878300bbf97b4e32c5c566050d",
  view_tag: "98ad1e",
  anchor_encryption_mask: "8d769d8417759007792f824e83115408",
  amount_encryption_mask: "ee875c495435d1c3",
  payment_id_encryption_mask: "736350182e1e0840",
} as const;
// --- end of transcription ---

const b = (h: string) => hexToBytes(h);
const scalar = (h: string) => bytesToNumberLE(hexToBytes(h));
const kv = scalar(V.k_view_incoming);
const ic = b(V.input_context);
const Ksj = b(V.subaddress_spend_pubkey);
const sSr = b(V.s_sender_receiver);
const sCtx = b(V.s_sender_receiver_ctx);
const Ko = b(V.onetime_address);
const le64 = (v: bigint) => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, true);
  return out;
};

describe("carrot_convergence.cpp (PR #9559 @ c7b6ee45)", () => {
  it("make_view_pubkey: K_v = k_vi·K_s (the file's account view key; also k_vi·K_s^j = K_v^j)", () => {
    expect(mulPoint(decodePoint(b(V.account_spend_pubkey))!, kv).toHex()).toBe(V.account_view_pubkey);
    expect(mulPoint(decodePoint(Ksj)!, kv).toHex()).toBe(V.subaddress_view_pubkey);
  });

  it("make_carrot_enote_ephemeral_privkey: d_e = H_n(anchor_norm, input_context, K_s^j, pid)", () => {
    const d = enoteEphemeralPrivkey(b(V.anchor_norm), ic, Ksj, b(V.payment_id));
    expect(d).toBe(scalar(V.enote_ephemeral_privkey));
  });

  it("make_carrot_enote_ephemeral_pubkey_cryptonote: D_e = d_e·B (also by the unclamped ladder on u = 9)", () => {
    const d = scalar(V.enote_ephemeral_privkey);
    expect(bytesToHex(x25519BaseUnclamped(d))).toBe(V.enote_ephemeral_pubkey_cryptonote);
    expect(bytesToHex(enoteEphemeralPubkey(d, Ksj, false)!)).toBe(V.enote_ephemeral_pubkey_cryptonote);
    const nine = new Uint8Array(32);
    nine[0] = 9;
    expect(bytesToHex(x25519Unclamped(d, nine))).toBe(V.enote_ephemeral_pubkey_cryptonote);
  });

  it("try_make_carrot_enote_ephemeral_pubkey_subaddress: D_e = ConvertPointE(d_e·K_s^j)", () => {
    expect(bytesToHex(enoteEphemeralPubkey(scalar(V.enote_ephemeral_privkey), Ksj, true)!)).toBe(V.enote_ephemeral_pubkey_subaddress);
  });

  it("try_make_carrot_shared_key_receiver: s_sr = k_v·D_e, unclamped (k_vi ends in 0x0f: clamping would change it)", () => {
    expect(bytesToHex(x25519Unclamped(kv, b(V.enote_ephemeral_pubkey_subaddress)))).toBe(V.s_sender_receiver);
  });

  it("try_make_carrot_shared_key_sender: s_sr = d_e·ConvertPointE(K_v^j)", () => {
    expect(bytesToHex(senderSharedSecret(scalar(V.enote_ephemeral_privkey), b(V.subaddress_view_pubkey)))).toBe(V.s_sender_receiver);
  });

  it("make_carrot_contextualized_sender_receiver_secret: s_sr_ctx = H_32[s_sr](D_e, input_context)", () => {
    expect(bytesToHex(makeSenderReceiverSecretCtx(sSr, b(V.enote_ephemeral_pubkey_subaddress), ic))).toBe(V.s_sender_receiver_ctx);
  });

  it("make_carrot_amount_blinding_factor: k_a for payment and for change", () => {
    expect(amountBlindingFactor(sCtx, V.amount, Ksj, "payment")).toBe(scalar(V.amount_blinding_factor_payment));
    expect(amountBlindingFactor(sCtx, V.amount, Ksj, "change")).toBe(scalar(V.amount_blinding_factor_change));
  });

  it("commit: C_a = k_a·G + a·H", () => {
    expect(bytesToHex(commitAmount(V.amount, scalar(V.amount_blinding_factor_payment)))).toBe(V.amount_commitment);
  });

  it("try_make_carrot_onetime_address_coinbase: K_o = K_s + k_g·G + k_t·T over (a, K_s)", () => {
    const ext = senderExtensionsCoinbase(sCtx, V.amount, Ksj);
    expect(bytesToHex(makeOnetimeAddress(Ksj, ext)!)).toBe(V.onetime_address_coinbase);
    expect(bytesToHex(recoverAddressSpendKey(b(V.onetime_address_coinbase), ext)!)).toBe(V.subaddress_spend_pubkey);
  });

  it("try_make_carrot_onetime_address: K_o = K_s^j + k_g·G + k_t·T over C_a; the receiver recovers K_s^j", () => {
    const ext = senderExtensions(sCtx, b(V.amount_commitment));
    expect(bytesToHex(makeOnetimeAddress(Ksj, ext)!)).toBe(V.onetime_address);
    expect(bytesToHex(recoverAddressSpendKey(Ko, ext)!)).toBe(V.subaddress_spend_pubkey);
  });

  it("the vectors pin the new T: with the old T (61b736…) K_o comes out different", () => {
    const { kg, kt } = senderExtensions(sCtx, b(V.amount_commitment));
    const oldT = Point.fromBytes(b(GENERATOR_T_OLD_HEX));
    const withOldT = decodePoint(Ksj)!.add(Point.BASE.multiply(kg)).add(oldT.multiply(kt));
    expect(withOldT.toHex()).not.toBe(V.onetime_address);
  });

  it("make_carrot_view_tag: vt = H_3[s_sr](input_context, K_o)", () => {
    expect(bytesToHex(makeViewTag(sSr, ic, Ko))).toBe(V.view_tag);
  });

  it("make_carrot_{anchor,amount,payment_id}_encryption_mask", () => {
    expect(bytesToHex(anchorMask(sCtx, Ko))).toBe(V.anchor_encryption_mask);
    expect(bytesToHex(amountMask(sCtx, Ko))).toBe(V.amount_encryption_mask);
    expect(bytesToHex(paymentIdMask(sCtx, Ko))).toBe(V.payment_id_encryption_mask);
    expect(decryptAmount(encryptAmount(V.amount, sCtx, Ko), sCtx, Ko)).toBe(V.amount);
  });

  it("make_carrot_janus_anchor_special: anchor_sp = H_16[k_v](D_e, input_context, K_o) (with the file's cryptonote D_e)", () => {
    expect(bytesToHex(janusAnchorSpecial(b(V.enote_ephemeral_pubkey_cryptonote), ic, Ko, kv))).toBe(V.anchor_special);
  });
});

describe("the same vectors as one enote, scanned end to end", () => {
  // The enote the file's values describe: a payment of `amount` to subaddress (5,16), integrated pid.
  const enote = {
    onetimeAddress: Ko,
    amountCommitment: b(V.amount_commitment),
    encryptedAmount: xorBytes(le64(V.amount), b(V.amount_encryption_mask)),
    viewTag: b(V.view_tag),
    encryptedAnchor: xorBytes(b(V.anchor_norm), b(V.anchor_encryption_mask)),
    ephemeralPubkey: b(V.enote_ephemeral_pubkey_subaddress),
  };
  const receiver: CarrotReceiver = {
    kind: "standard",
    viewSecret: kv,
    spendPublicKey: b(V.account_spend_pubkey),
    spendKeys: new Map([
      [V.account_spend_pubkey, { major: 0, minor: 0 }],
      [V.subaddress_spend_pubkey, { major: V.address_index_major, minor: V.address_index_minor }],
    ]),
    subaddressIndex: { major: 0, minor: 0 },
  };
  const pidEnc = xorBytes(b(V.payment_id), b(V.payment_id_encryption_mask));

  it("is owned: amount, subaddress (5,16), the authenticated payment ID, a normal (not self-send) payment", () => {
    expect(scanCarrotEnote(receiver, { inputContext: ic, encryptedPaymentId: pidEnc }, enote)).toEqual({
      owned: true,
      amount: V.amount,
      subaddress: { major: 5, minor: 16 },
      paymentId: V.payment_id,
      enoteType: "payment",
      selfSend: false,
      coinbase: false,
      addressSpendKey: V.subaddress_spend_pubkey,
    });
  });

  it("without its pid_enc the Janus check fails (d_e was derived with the pid): not owned", () => {
    expect(scanCarrotEnote(receiver, { inputContext: ic, encryptedPaymentId: null }, enote)).toEqual({ owned: false, refusal: "janus" });
  });

  it("a table without K_s^j: not owned at the table lookup", () => {
    const mainOnly = { ...receiver, spendKeys: new Map([[V.account_spend_pubkey, { major: 0, minor: 0 }]]) };
    expect(scanCarrotEnote(mainOnly, { inputContext: ic, encryptedPaymentId: pidEnc }, enote)).toEqual({ owned: false, refusal: "spend-key-not-ours" });
  });
});
