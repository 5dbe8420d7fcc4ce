/**
 * One flipped bit in any field of an owned Carrot enote never yields a wrong
 * owned result. Per field, the step that refuses it and why:
 *
 *   K_o            view-tag            vt = H_3[s_sr](input_context ‖ K_o) covers K_o
 *   input_context  view-tag            same transcript
 *   view tag       view-tag            compared directly
 *   D_e bits 0–254 view-tag            s_sr = k_v·D_e changes (X25519 is a bijection on u)
 *   D_e bit 255    spend-key-not-ours  X25519 ignores bit 255, so s_sr and vt stay; but
 *                                      s_sr_ctx = H_32[s_sr](D_e ‖ …) hashes the raw bytes,
 *                                      so k_g, k_t and the recovered K_s^j change
 *   C_a            spend-key-not-ours  vt does not cover C_a; k_g, k_t = H_n[s_sr_ctx](C_a) do
 *   a_enc          amount-commitment   a' = a ⊕ 2^i opens C_a under neither enote type
 *   anchor_enc     janus               anchor' gives another d_e', so D_e' ≠ D_e, and it is
 *                                      not the special anchor (a MAC under k_v) either
 *   pid_enc        the integrated output: janus (neither the flipped pid nor pid 0
 *                  re-derives D_e, since its d_e was made with the real pid);
 *                  any other output of the tx: unchanged, pid read as 0 (its d_e was
 *                  made with pid 0, and pid_enc is not bound to it)
 *   coinbase a     spend-key-not-ours  the extensions k_g, k_t cover (a, K_s)
 *   coinbase block index  view-tag     it is in the input context
 *
 * "view-tag" holds with probability 1 − 2^-24 per case (a collision passes
 * vt and is then refused at the table lookup); the runs use a fixed seed.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { makeIntegratedAddress } from "../../../../src/chains/monero/address.js";
import { subaddressSpendPublicKey } from "../../../../src/chains/monero/subaddress.js";
import { buildCarrotOutputSet, makeCoinbaseEnote, destinationFromAddress, type BuiltCarrotEnote } from "../../../../src/chains/monero/carrot/sender.js";
import { scanCarrotCoinbaseEnote, scanCarrotEnote, type CarrotEnote, type CarrotRefusal, type CarrotTxContext } from "../../../../src/chains/monero/carrot/scan.js";
import { seededRng } from "../../../../devnet/monero-sender.js";
import { makeWallet } from "../helpers.js";

const merchantWallet = makeWallet("bitflip merchant");
const payer = makeWallet("bitflip payer");
const merchant = makeViewAccount(merchantWallet.address, merchantWallet.viewSecretHex);
const integrated = makeIntegratedAddress(merchantWallet.address, "0908070605040302");

const set = buildCarrotOutputSet({
  firstKeyImage: seededRng("bitflip ki")(32),
  payments: [
    { destination: destinationFromAddress(integrated), amount: 123_456_789n },
    { destination: destinationFromAddress(merchantWallet.sub(0, 5)), amount: 987_654_321n },
  ],
  change: { viewSecret: bytesToNumberLE(payer.viewSecretBytes), spendPublicKey: payer.spendPublic, isSubaddress: false, amount: 1n },
  rng: seededRng("bitflip"),
});
const ctx: CarrotTxContext = { inputContext: set.inputContext, encryptedPaymentId: set.encryptedPaymentId };
const toIntegrated = set.enotes.find((e) => e.amount === 123_456_789n)!;
const toSubaddress = set.enotes.find((e) => e.amount === 987_654_321n)!;

function flip(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[bit >> 3]! ^= 1 << (bit & 7);
  return out;
}

const enoteFields = ["onetimeAddress", "amountCommitment", "encryptedAmount", "viewTag", "encryptedAnchor", "ephemeralPubkey"] as const;
type EnoteField = (typeof enoteFields)[number];

function expectedRefusal(field: EnoteField, bit: number): CarrotRefusal {
  switch (field) {
    case "onetimeAddress":
    case "viewTag":
      return "view-tag";
    case "ephemeralPubkey":
      return bit === 255 ? "spend-key-not-ours" : "view-tag";
    case "amountCommitment":
      return "spend-key-not-ours";
    case "encryptedAmount":
      return "amount-commitment";
    case "encryptedAnchor":
      return "janus";
  }
}

const RUNS = { numRuns: 40, seed: 26 };

describe("a one-bit change of any Carrot enote field", () => {
  it("the unchanged enotes are ours (integrated with its pid; subaddress (0,5) with none)", () => {
    expect(scanCarrotEnote(merchant, ctx, toIntegrated)).toMatchObject({ owned: true, amount: 123_456_789n, subaddress: { major: 0, minor: 0 }, paymentId: "0908070605040302" });
    expect(scanCarrotEnote(merchant, ctx, toSubaddress)).toMatchObject({ owned: true, amount: 987_654_321n, subaddress: { major: 0, minor: 5 }, paymentId: null });
  });

  for (const field of enoteFields) {
    it(`${field}: refused at the step the header names, for both outputs`, () => {
      fc.assert(
        fc.property(fc.constantFrom(toIntegrated, toSubaddress), fc.nat({ max: 8 * toIntegrated[field].length - 1 }), (e: BuiltCarrotEnote, bit) => {
          const changed: CarrotEnote = { ...e, [field]: flip(e[field], bit) };
          expect(scanCarrotEnote(merchant, ctx, changed)).toEqual({ owned: false, refusal: expectedRefusal(field, bit) });
        }),
        RUNS,
      );
    });
  }

  it("D_e bit 255 specifically (X25519 ignores it; the transcripts do not)", () => {
    for (const e of [toIntegrated, toSubaddress]) {
      expect(scanCarrotEnote(merchant, ctx, { ...e, ephemeralPubkey: flip(e.ephemeralPubkey, 255) })).toEqual({ owned: false, refusal: "spend-key-not-ours" });
    }
  });

  it("input_context: refused at the view tag", () => {
    fc.assert(
      fc.property(fc.constantFrom(toIntegrated, toSubaddress), fc.nat({ max: 8 * 33 - 1 }), (e, bit) => {
        expect(scanCarrotEnote(merchant, { ...ctx, inputContext: flip(ctx.inputContext, bit) }, e)).toEqual({ owned: false, refusal: "view-tag" });
      }),
      RUNS,
    );
  });

  it("pid_enc: the integrated output is refused (janus); the other output is unchanged with pid read as 0", () => {
    const base = scanCarrotEnote(merchant, ctx, toSubaddress);
    fc.assert(
      fc.property(fc.nat({ max: 63 }), (bit) => {
        const flipped = { ...ctx, encryptedPaymentId: flip(ctx.encryptedPaymentId!, bit) };
        expect(scanCarrotEnote(merchant, flipped, toIntegrated)).toEqual({ owned: false, refusal: "janus" });
        expect(scanCarrotEnote(merchant, flipped, toSubaddress)).toEqual(base);
      }),
      RUNS,
    );
  });
});

describe("a one-bit change of any Carrot coinbase enote field", () => {
  const cb = makeCoinbaseEnote({ destination: destinationFromAddress(merchantWallet.address), amount: 600_000_000_000n, anchor: seededRng("cb")(16), blockIndex: 2_000_000n });

  it("the unchanged coinbase enote is ours", () => {
    expect(scanCarrotCoinbaseEnote(merchant, cb)).toMatchObject({ owned: true, amount: 600_000_000_000n, coinbase: true });
  });

  const byteFields = [
    ["onetimeAddress", "view-tag"],
    ["viewTag", "view-tag"],
    ["encryptedAnchor", "janus"],
  ] as const;
  for (const [field, refusal] of byteFields) {
    it(`${field}: ${refusal}`, () => {
      fc.assert(
        fc.property(fc.nat({ max: 8 * cb[field].length - 1 }), (bit) => {
          expect(scanCarrotCoinbaseEnote(merchant, { ...cb, [field]: flip(cb[field], bit) })).toEqual({ owned: false, refusal });
        }),
        RUNS,
      );
    });
  }

  it("D_e: view-tag for bits 0–254, spend-key-not-ours for bit 255; amount: spend-key-not-ours; block index: view-tag", () => {
    fc.assert(
      fc.property(fc.nat({ max: 255 }), fc.nat({ max: 63 }), (bit, bit64) => {
        expect(scanCarrotCoinbaseEnote(merchant, { ...cb, ephemeralPubkey: flip(cb.ephemeralPubkey, bit) })).toEqual({ owned: false, refusal: bit === 255 ? "spend-key-not-ours" : "view-tag" });
        expect(scanCarrotCoinbaseEnote(merchant, { ...cb, amount: cb.amount ^ (1n << BigInt(bit64)) })).toEqual({ owned: false, refusal: "spend-key-not-ours" });
        expect(scanCarrotCoinbaseEnote(merchant, { ...cb, blockIndex: cb.blockIndex ^ (1n << BigInt(bit64)) })).toEqual({ owned: false, refusal: "view-tag" });
      }),
      RUNS,
    );
  });
});

describe("the subaddress output is found through the legacy subaddress table", () => {
  it("its recovered K_s^j is (0,5)'s D = B + Hs(\"SubAddr\\0\" ‖ a ‖ 0 ‖ 5)·G, the same table entry the legacy scanner uses", () => {
    const D = subaddressSpendPublicKey(merchantWallet.viewSecretBytes, merchantWallet.spendPublic, { major: 0, minor: 5 });
    expect(scanCarrotEnote(merchant, ctx, toSubaddress)).toMatchObject({ addressSpendKey: Buffer.from(D).toString("hex") });
  });
});
