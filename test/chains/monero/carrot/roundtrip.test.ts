/**
 * Sender → view-key scanner round trips with a legacy wallet: the merchant is
 * the functional-test wallet of Monero's own tests (vendored
 * test/vectors/monero/addresses.json: its standard address, subaddresses in
 * accounts 0, 1 and 2, and its integrated address), watched exactly as the
 * legacy scanner watches it (keys.ts makeViewAccount with the default
 * look-ahead). Payers are seeded test wallets. Every enote is built by
 * sender.ts and scanned by scan.ts; the scanner must recover exactly the
 * amount, subaddress and payment ID, and refuse everything else.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { addSubaddressesToAccount, makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { bytesToHex, hexToBytes } from "../../../../src/chains/monero/encoding.js";
import {
  buildCarrotCoinbaseEnotes,
  buildCarrotOutputSet,
  destinationFromAddress,
  makeCoinbaseEnote,
  makeNormalEnote,
  type BuiltCarrotOutputSet,
  type SelfSendKeys,
} from "../../../../src/chains/monero/carrot/sender.js";
import {
  scanCarrotCoinbaseEnote,
  scanCarrotEnote,
  scanCarrotEnotes,
  type CarrotReceiver,
  type CarrotScanResult,
} from "../../../../src/chains/monero/carrot/scan.js";
import { inputContextRingct } from "../../../../src/chains/monero/carrot/enote.js";
import type { SubaddressIndex } from "../../../../src/chains/monero/types.js";
import { seededRng } from "../../../../devnet/monero-sender.js";
import { makeWallet, type TestWallet } from "../helpers.js";
import { readJsonVector, vectorsPresent } from "../vectors.js";

interface FunctionalWallet {
  view_secret: string;
  spend_public: string;
  standard_address: string;
  subaddresses: { major: number; minor: number; address: string }[];
  integrated: { payment_id: string; address: string }[];
}

const U64_MAX = (1n << 64n) - 1n;

function selfKeys(w: TestWallet): SelfSendKeys {
  return { viewSecret: bytesToNumberLE(w.viewSecretBytes), spendPublicKey: w.spendPublic, isSubaddress: false };
}

function scanSet(r: CarrotReceiver, set: BuiltCarrotOutputSet): CarrotScanResult[] {
  return scanCarrotEnotes(r, { inputContext: set.inputContext, encryptedPaymentId: set.encryptedPaymentId }, set.enotes);
}

/** The owned results with the enote amounts they came from, in output order. */
function owned(results: CarrotScanResult[]) {
  return results.flatMap((r, i) => (r.owned ? [{ i, amount: r.amount, subaddress: r.subaddress, paymentId: r.paymentId, enoteType: r.enoteType, selfSend: r.selfSend }] : []));
}

const payment = (amount: bigint, subaddress: SubaddressIndex | null, paymentId: string | null = null) => ({ amount, subaddress, paymentId, enoteType: "payment", selfSend: false });

describe.skipIf(!vectorsPresent)("Carrot round trips to a legacy wallet (functional-test wallet, default look-ahead)", () => {
  const W = readJsonVector<{ functional_test_wallet: FunctionalWallet }>("addresses.json").functional_test_wallet;
  const merchant = makeViewAccount(W.standard_address, W.view_secret);
  const sub = (major: number, minor: number) => W.subaddresses.find((s) => s.major === major && s.minor === minor)!.address;
  const payer = makeWallet("carrot payer");
  const stranger = makeWallet("carrot stranger");
  const payerWatch = makeViewAccount(payer.address, payer.viewSecretHex);
  const keyImage = (seed: string) => seededRng(seed)(32);

  function pay(seed: string, payments: { address: string; amount: bigint }[], changeAmount = 1_000n): BuiltCarrotOutputSet {
    const rng = seededRng(seed);
    return buildCarrotOutputSet({
      firstKeyImage: keyImage(`${seed} key image`),
      payments: payments.map((p) => ({ destination: destinationFromAddress(p.address), amount: p.amount })),
      change: { ...selfKeys(payer), amount: changeAmount },
      rng,
    });
  }

  it("main address, 2 outputs: the payment is found exactly; the payer's change is not ours; both share one D_e", () => {
    const set = pay("main", [{ address: W.standard_address, amount: 1_234_567_890_123n }]);
    expect(set.enotes).toHaveLength(2);
    expect(bytesToHex(set.enotes[0]!.ephemeralPubkey)).toBe(bytesToHex(set.enotes[1]!.ephemeralPubkey));
    const results = scanSet(merchant, set);
    const paid = set.enotes.findIndex((e) => !e.selfSend);
    expect(owned(results)).toEqual([{ i: paid, ...payment(1_234_567_890_123n, { major: 0, minor: 0 }) }]);
    expect(results[1 - paid]).toEqual({ owned: false, refusal: "view-tag" });
    expect(results[paid]).toMatchObject({ coinbase: false, addressSpendKey: W.spend_public });
  });

  it("the payer's own watch sees its change as a self-send (special anchor), type change, and not the payment", () => {
    const set = pay("change", [{ address: W.standard_address, amount: 5n }], 777n);
    const results = scanSet(payerWatch, set);
    expect(owned(results)).toEqual([{ i: set.enotes.findIndex((e) => e.selfSend), amount: 777n, subaddress: { major: 0, minor: 0 }, paymentId: null, enoteType: "change", selfSend: true }]);
  });

  it("subaddresses in accounts 0 and 1 plus the main address in one 4-output set: one D_e each, all found with their indices", () => {
    const set = pay("subs", [
      { address: sub(0, 1), amount: 10n },
      { address: sub(1, 0), amount: U64_MAX },
      { address: sub(1, 2), amount: 0n },
    ]);
    expect(new Set(set.enotes.map((e) => bytesToHex(e.ephemeralPubkey))).size).toBe(4);
    const byAmount = owned(scanSet(merchant, set)).map((o) => [o.amount, o.subaddress]);
    expect(byAmount.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))).toEqual([
      [0n, { major: 1, minor: 2 }],
      [10n, { major: 0, minor: 1 }],
      [U64_MAX, { major: 1, minor: 0 }],
    ]);
  });

  it("outputs come sorted by K_o, as the reference orders them", () => {
    const set = pay("sorted", [{ address: sub(0, 1), amount: 1n }, { address: stranger.address, amount: 2n }, { address: sub(1, 1), amount: 3n }]);
    const keys = set.enotes.map((e) => bytesToHex(e.onetimeAddress));
    expect(keys).toEqual([...keys].sort());
  });

  it("integrated address: its payment ID is recovered and authenticated; the other output of the same tx reads pid 0", () => {
    const integrated = W.integrated[0]!;
    const set = pay("integrated", [
      { address: integrated.address, amount: 42n },
      { address: sub(1, 1), amount: 43n },
    ]);
    const integratedEnote = set.enotes.find((e) => e.amount === 42n)!;
    expect(bytesToHex(set.encryptedPaymentId)).toBe(bytesToHex(integratedEnote.encryptedPaymentId));
    const found = owned(scanSet(merchant, set)).map(({ i: _i, ...rest }) => rest);
    expect(found.sort((a, b) => Number(a.amount - b.amount))).toEqual([
      payment(42n, { major: 0, minor: 0 }, integrated.payment_id),
      payment(43n, { major: 1, minor: 1 }),
    ]);
  });

  it("a subaddress watch sees only its own subaddress and reports the index it was given", () => {
    const watch = makeViewAccount(sub(1, 2), W.view_secret, { subaddressIndex: { major: 1, minor: 2 } });
    const set = pay("sub watch", [{ address: sub(1, 2), amount: 9n }, { address: W.standard_address, amount: 8n }]);
    const results = scanSet(watch, set);
    expect(owned(results).map((o) => [o.amount, o.subaddress])).toEqual([[9n, { major: 1, minor: 2 }]]);
    const mainIdx = set.enotes.findIndex((e) => e.amount === 8n);
    expect(results[mainIdx]).toEqual({ owned: false, refusal: "spend-key-not-ours" });
  });

  it("a subaddress beyond the look-ahead (2,0), (0,999): not ours until the watch adds it, then found", () => {
    const set = pay("beyond", [{ address: sub(2, 0), amount: 20n }, { address: sub(0, 999), amount: 999n }]);
    expect(scanSet(merchant, set).filter((r) => !r.owned && r.refusal === "spend-key-not-ours")).toHaveLength(2);
    const extended = makeViewAccount(W.standard_address, W.view_secret);
    addSubaddressesToAccount(extended, [{ major: 2, minor: 0 }, { major: 0, minor: 999 }]);
    expect(owned(scanSet(extended, set)).map((o) => [o.amount, o.subaddress]).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)))).toEqual([
      [20n, { major: 2, minor: 0 }],
      [999n, { major: 0, minor: 999 }],
    ]);
  });

  it("3 outputs with per-output D_e; a set between two other wallets has nothing of ours", () => {
    const set = pay("three", [{ address: W.standard_address, amount: 3n }, { address: stranger.address, amount: 4n }]);
    expect(new Set(set.enotes.map((e) => bytesToHex(e.ephemeralPubkey))).size).toBe(3);
    expect(owned(scanSet(merchant, set)).map((o) => o.amount)).toEqual([3n]);
    const foreign = pay("foreign", [{ address: stranger.address, amount: 5n }, { address: makeWallet("third").address, amount: 6n }]);
    expect(owned(scanSet(merchant, foreign))).toEqual([]);
    expect(scanSet(merchant, foreign).every((r) => !r.owned && r.refusal === "view-tag")).toBe(true);
  });

  it("the merchant's own spend: its change to a subaddress in a 3-output set is a self-send it sees with the index", () => {
    const merchantChange: SelfSendKeys = {
      viewSecret: bytesToNumberLE(hexToBytes(W.view_secret)),
      spendPublicKey: destinationFromAddress(sub(1, 1)).spendPublicKey,
      isSubaddress: true,
    };
    const set = buildCarrotOutputSet({
      firstKeyImage: keyImage("merchant spend"),
      payments: [{ destination: destinationFromAddress(stranger.address), amount: 50n }, { destination: destinationFromAddress(payer.address), amount: 60n }],
      change: { ...merchantChange, amount: 70n },
      rng: seededRng("merchant spend"),
    });
    expect(owned(scanSet(merchant, set)).map(({ i: _i, ...o }) => o)).toEqual([{ amount: 70n, subaddress: { major: 1, minor: 1 }, paymentId: null, enoteType: "change", selfSend: true }]);
  });

  it("scanning one enote with or without a precomputed k_v·D_e gives the same answer", () => {
    const set = pay("cache", [{ address: sub(0, 1), amount: 11n }]);
    const ctx = { inputContext: set.inputContext, encryptedPaymentId: set.encryptedPaymentId };
    expect(set.enotes.map((e) => scanCarrotEnote(merchant, ctx, e))).toEqual(scanSet(merchant, set));
  });
});

describe.skipIf(!vectorsPresent)("Carrot coinbase round trips", () => {
  const W = readJsonVector<{ functional_test_wallet: FunctionalWallet }>("addresses.json").functional_test_wallet;
  const merchant = makeViewAccount(W.standard_address, W.view_secret);
  const stranger = makeWallet("coinbase stranger");

  it("a coinbase to the main address is found with its clear amount; another miner's is not ours", () => {
    const enotes = buildCarrotCoinbaseEnotes({
      blockIndex: 3_141_592n,
      payments: [
        { destination: destinationFromAddress(W.standard_address), amount: 600_000_000_000n },
        { destination: destinationFromAddress(stranger.address), amount: 1n },
      ],
      rng: seededRng("coinbase"),
    });
    const results = enotes.map((e) => scanCarrotCoinbaseEnote(merchant, e));
    const mine = enotes.findIndex((e) => e.amount === 600_000_000_000n);
    expect(results[mine]).toEqual({ owned: true, amount: 600_000_000_000n, subaddress: { major: 0, minor: 0 }, paymentId: null, enoteType: "payment", selfSend: false, coinbase: true, addressSpendKey: W.spend_public });
    expect(results[1 - mine]).toEqual({ owned: false, refusal: "view-tag" });
  });

  it("the block index is bound in (another height fails the view tag); the clear amount is bound in (K_s differs)", () => {
    const e = makeCoinbaseEnote({ destination: destinationFromAddress(W.standard_address), amount: 5n, anchor: seededRng("cb anchor")(16), blockIndex: 10n });
    expect(scanCarrotCoinbaseEnote(merchant, e).owned).toBe(true);
    expect(scanCarrotCoinbaseEnote(merchant, { ...e, blockIndex: 11n })).toEqual({ owned: false, refusal: "view-tag" });
    expect(scanCarrotCoinbaseEnote(merchant, { ...e, amount: 6n })).toEqual({ owned: false, refusal: "spend-key-not-ours" });
  });

  it("coinbase goes to main addresses only: the sender refuses a subaddress, a subaddress watch never owns one", () => {
    const subAddress = W.subaddresses[0]!.address;
    expect(() => makeCoinbaseEnote({ destination: destinationFromAddress(subAddress), amount: 1n, anchor: new Uint8Array(16).fill(1), blockIndex: 1n })).toThrow(RangeError);
    expect(() => makeCoinbaseEnote({ destination: destinationFromAddress(W.integrated[0]!.address), amount: 1n, anchor: new Uint8Array(16).fill(1), blockIndex: 1n })).toThrow(RangeError);
    const e = makeCoinbaseEnote({ destination: destinationFromAddress(W.standard_address), amount: 5n, anchor: new Uint8Array(16).fill(2), blockIndex: 1n });
    const subWatch = makeViewAccount(subAddress, W.view_secret);
    expect(scanCarrotCoinbaseEnote(subWatch, e)).toEqual({ owned: false, refusal: "spend-key-not-ours" });
  });
});

describe("the sender's rules and the scanner's refusal of malformed input", () => {
  const merchantWallet = makeWallet("carrot merchant");
  const merchant = makeViewAccount(merchantWallet.address, merchantWallet.viewSecretHex);
  const dest = destinationFromAddress(merchantWallet.address);
  const change = { viewSecret: bytesToNumberLE(merchantWallet.viewSecretBytes), spendPublicKey: merchantWallet.spendPublic, isSubaddress: false, amount: 1n };
  const ki = new Uint8Array(32).fill(3);

  it("refuses: no payment, more than 7 payments, two integrated addresses, a zero anchor", () => {
    expect(() => buildCarrotOutputSet({ firstKeyImage: ki, payments: [], change })).toThrow(RangeError);
    const eight = Array.from({ length: 8 }, () => ({ destination: dest, amount: 1n }));
    expect(() => buildCarrotOutputSet({ firstKeyImage: ki, payments: eight, change })).toThrow(RangeError);
    const pid = { ...dest, paymentId: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) };
    expect(() => buildCarrotOutputSet({ firstKeyImage: ki, payments: [{ destination: pid, amount: 1n }, { destination: pid, amount: 2n }], change })).toThrow(RangeError);
    expect(() => makeNormalEnote({ destination: dest, amount: 1n, anchor: new Uint8Array(16), inputContext: inputContextRingct(ki) })).toThrow(RangeError);
  });

  it("never throws on malformed enotes: each is refused as malformed or at the step it breaks", () => {
    const e = makeNormalEnote({ destination: dest, amount: 1n, anchor: new Uint8Array(16).fill(5), inputContext: inputContextRingct(ki) });
    const ctx = { inputContext: inputContextRingct(ki), encryptedPaymentId: null };
    expect(scanCarrotEnote(merchant, ctx, e).owned).toBe(true);
    expect(scanCarrotEnote(merchant, ctx, { ...e, viewTag: new Uint8Array(2) })).toEqual({ owned: false, refusal: "malformed" });
    expect(scanCarrotEnote(merchant, { ...ctx, inputContext: new Uint8Array(32) }, e)).toEqual({ owned: false, refusal: "malformed" });
    expect(scanCarrotEnote(merchant, { ...ctx, encryptedPaymentId: new Uint8Array(7) }, e)).toEqual({ owned: false, refusal: "malformed" });
    expect(scanCarrotEnote(merchant, ctx, { ...e, ephemeralPubkey: new Uint8Array(32) })).toEqual({ owned: false, refusal: "low-order-ephemeral-key" });
    const garbage = { onetimeAddress: null, amountCommitment: "x", encryptedAmount: 1, viewTag: undefined, encryptedAnchor: {}, ephemeralPubkey: [] } as unknown as typeof e;
    expect(scanCarrotEnote(merchant, ctx, garbage)).toEqual({ owned: false, refusal: "malformed" });
    expect(scanCarrotEnotes(merchant, ctx, [garbage, e]).map((r) => r.owned)).toEqual([false, true]);
    const cb = { onetimeAddress: e.onetimeAddress, amount: 1, viewTag: e.viewTag, encryptedAnchor: e.encryptedAnchor, ephemeralPubkey: e.ephemeralPubkey, blockIndex: 1n } as unknown as Parameters<typeof scanCarrotCoinbaseEnote>[1];
    expect(scanCarrotCoinbaseEnote(merchant, cb)).toEqual({ owned: false, refusal: "malformed" });
  });
});
