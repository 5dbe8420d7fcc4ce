/**
 * The batch scanner on Carrot transactions (batch.ts scanTxForAccounts, which
 * computes every watch's k_v·D_e per distinct D_e with the shared X25519 and
 * hands them to the Carrot scan) finds exactly what the per-watch path
 * (scanTx: a ladder per watch and D_e) finds, over 5 and 50 watches: 2-output
 * sets (one shared D_e) and larger ones (one D_e per output) paying main
 * addresses, subaddresses and an integrated address, the payer's own change,
 * a coinbase, a transaction paying nobody watched, and transactions whose D_e
 * was replaced by a low-order or twist u (owned by nobody). Transactions are
 * ScanTx values built directly from sender.ts output sets, as the blob parser
 * returns them.
 */
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { makeIntegratedAddress } from "../../../../src/chains/monero/address.js";
import { batchCarrotSharedSecrets, scanTxForAccounts } from "../../../../src/chains/monero/batch.js";
import { bytesToHex, concatBytes } from "../../../../src/chains/monero/encoding.js";
import { extraAdditionalKeysField, extraNonceField, extraPubkeyField } from "../../../../src/chains/monero/extra.js";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { matchOutputs, prepareTx, scanTx } from "../../../../src/chains/monero/scan.js";
import { carrotSharedSecret, ownedCarrotEnotes, scanCarrotEnotes, shareCarrotTx, type CarrotEnote, type KnownSharedSecrets } from "../../../../src/chains/monero/carrot/scan.js";
import { montgomeryToEdwards } from "../../../../src/chains/monero/carrot/x25519.js";
import {
  buildCarrotCoinbaseEnotes,
  buildCarrotOutputSet,
  destinationFromAddress,
  type BuiltCarrotCoinbaseEnote,
  type BuiltCarrotOutputSet,
  type CarrotPayment,
} from "../../../../src/chains/monero/carrot/sender.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "../../../../src/chains/monero/types.js";
import { seededRng } from "../../../../devnet/monero-sender.js";
import { makeWallet, type TestWallet } from "../helpers.js";

const LOOKAHEAD = { lookahead: { accounts: 2, minors: 8 } };
const merchant = makeWallet("carrot-batch merchant");
const payer = makeWallet("carrot-batch payer");
const strangers = Array.from({ length: 46 }, (_, i) => makeWallet(`carrot-batch stranger ${i}`));
const PID = "a1b2c3d4e5f60718";

const main = (w: TestWallet): ViewAccount => makeViewAccount(w.address, w.viewSecretHex, LOOKAHEAD);
const subWatch = makeViewAccount(merchant.sub(1, 3), merchant.viewSecretHex, { subaddressIndex: { major: 1, minor: 3 } });
const fiveAccounts = [main(strangers[0]!), main(merchant), subWatch, main(payer), main(strangers[1]!)];
const fiftyAccounts = [...fiveAccounts, ...strangers.slice(2).map(main), main(makeWallet("carrot-batch last"))];

/** tx_extra as the chain carries D_e: one 0x01 key for a shared D_e, else 0x04 with one per output; pid_enc in a nonce. */
function transferExtra(keys: Uint8Array[], pidEnc: Uint8Array): Uint8Array {
  const shared = keys.every((k) => bytesToHex(k) === bytesToHex(keys[0]!));
  const keysField = shared ? extraPubkeyField(keys[0]!) : extraAdditionalKeysField(keys);
  return concatBytes(keysField, extraNonceField(concatBytes(Uint8Array.of(1), pidEnc)));
}

function transferTx(set: BuiltCarrotOutputSet, keyImage: Uint8Array, keys = set.enotes.map((e) => e.ephemeralPubkey)): ScanTx {
  return {
    txid: "",
    version: 2,
    extra: transferExtra(keys, set.encryptedPaymentId),
    isCoinbase: false,
    unlockTime: 0n,
    rctType: 7,
    fee: 1_000n,
    outputs: set.enotes.map((e) => ({
      publicKey: e.onetimeAddress,
      amount: 0n,
      encryptedAmount: e.encryptedAmount,
      commitment: e.amountCommitment,
      carrot: { viewTag: e.viewTag, encryptedAnchor: e.encryptedAnchor },
    })),
    keyImages: [bytesToHex(keyImage)],
  };
}

function coinbaseTx(enotes: BuiltCarrotCoinbaseEnote[], height: bigint): ScanTx {
  const keys = enotes.map((e) => e.ephemeralPubkey);
  return {
    txid: "",
    version: 2,
    extra: keys.length === 1 ? extraPubkeyField(keys[0]!) : extraAdditionalKeysField(keys),
    isCoinbase: true,
    coinbaseHeight: height,
    unlockTime: height + 60n,
    rctType: 0,
    fee: 0n,
    outputs: enotes.map((e) => ({ publicKey: e.onetimeAddress, amount: e.amount, carrot: { viewTag: e.viewTag, encryptedAnchor: e.encryptedAnchor } })),
    keyImages: [],
  };
}

const pay = (address: string, amount: bigint): CarrotPayment => ({ destination: destinationFromAddress(address), amount });
const change = (amount: bigint) => ({ viewSecret: bytesToNumberLE(payer.viewSecretBytes), spendPublicKey: payer.spendPublic, isSubaddress: false, amount });

function transfer(seed: string, payments: CarrotPayment[], changeAmount: bigint) {
  const rng = seededRng(seed);
  const keyImage = rng(32);
  const set = buildCarrotOutputSet({ firstKeyImage: keyImage, payments, change: change(changeAmount), rng });
  return { set, keyImage, tx: transferTx(set, keyImage) };
}

const twoOutputs = transfer("cb two", [pay(merchant.address, 5_000n)], 70n);
const subaddressTwo = transfer("cb sub two", [pay(merchant.sub(1, 3), 6_000n)], 71n);
const integratedTwo = transfer("cb integrated", [pay(makeIntegratedAddress(merchant.address, PID), 7_000n)], 72n);
const wide = transfer(
  "cb wide",
  [pay(merchant.sub(1, 3), 8_000n), pay(merchant.sub(0, 5), 9_000n), pay(strangers[7]!.address, 10_000n), pay(strangers[30]!.sub(1, 1), 11_000n), pay(makeIntegratedAddress(strangers[1]!.address, PID), 12_000n)],
  73n,
);
const notOurs = transfer("cb nobody", [pay(makeWallet("carrot-batch unwatched").address, 13_000n), pay(makeWallet("carrot-batch unwatched 2").sub(0, 1), 14_000n)], 15_000n);
const coinbase = coinbaseTx(
  buildCarrotCoinbaseEnotes({ blockIndex: 3_100_000n, payments: [pay(merchant.address, 600_000_000_000n), pay(strangers[40]!.address, 1n), pay(strangers[1]!.address, 2n)], rng: seededRng("cb coinbase") }),
  3_100_000n,
);

/** u's with no usable product: 0 (order 2), an order-8 point, −1 and a twist point (the ladder fallback). */
const p = (1n << 255n) - 19n;
const ORDER8_U = 39382357235489614581723060781553021112529911719440698176882885853963445705823n;
const TWIST_U = numberToBytesLE(2n, 32); // 2³ + 486662·2² + 2 is not a square mod p (checked below)
const badKeys = [numberToBytesLE(0n, 32), numberToBytesLE(ORDER8_U, 32), numberToBytesLE(p - 1n, 32), TWIST_U];
const badKeyTxs = badKeys.map((k) => transferTx(twoOutputs.set, twoOutputs.keyImage, twoOutputs.set.enotes.map(() => k)));

const txs: [string, ScanTx][] = [
  ["2-output main", twoOutputs.tx],
  ["2-output subaddress", subaddressTwo.tx],
  ["2-output integrated", integratedTwo.tx],
  ["6-output mixed", wide.tx],
  ["not ours", notOurs.tx],
  ["coinbase", coinbase],
  ...badKeyTxs.map((tx, i): [string, ScanTx] => [`bad D_e ${i}`, tx]),
];

const amounts = (owned: OwnedOutput[]) => owned.map((o) => o.amount);

describe("batch Carrot scanning equals per-watch scanning", () => {
  for (const accounts of [fiveAccounts, fiftyAccounts]) {
    it(`${accounts.length} watches: the same owned outputs for every tx and watch`, () => {
      for (const [, tx] of txs) expect(scanTxForAccounts(tx, accounts)).toEqual(accounts.map((a) => scanTx(tx, a)));
      // Not vacuous: what the watches own, by amount (watch order: stranger 0, merchant, merchant's 1/3, payer, stranger 1, …).
      const owned = txs.map(([, tx]) => scanTxForAccounts(tx, accounts).slice(0, 5).map(amounts));
      expect(owned).toEqual([
        [[], [5_000n], [], [70n], []],
        [[], [6_000n], [6_000n], [71n], []],
        [[], [7_000n], [], [72n], []],
        [[], wide.set.enotes.map((e) => e.amount).filter((a) => a === 8_000n || a === 9_000n), [8_000n], [73n], [12_000n]],
        [[], [], [], [15_000n], []],
        [[], [600_000_000_000n], [], [], [2n]],
        ...badKeyTxs.map(() => [[], [], [], [], []]),
      ]);
      expect(scanTxForAccounts(integratedTwo.tx, accounts)[1]![0]!.paymentId).toBe(PID);
      if (accounts.length === 50) {
        const wideOwned = scanTxForAccounts(wide.tx, accounts);
        expect(amounts(wideOwned[accounts.indexOf(fiftyAccounts[7 + 3]!)]!)).toEqual([10_000n]); // strangers[7]
        expect(amounts(wideOwned[accounts.indexOf(fiftyAccounts[30 + 3]!)]!)).toEqual([11_000n]); // strangers[30], subaddress 1/1
        expect(amounts(scanTxForAccounts(coinbase, accounts)[accounts.indexOf(fiftyAccounts[40 + 3]!)]!)).toEqual([1n]); // strangers[40]
      }
    });
  }

  it("the batch shared secrets are carrotSharedSecret's for every watch and D_e (null for the point at infinity)", () => {
    const keys = [...new Set(wide.set.enotes.map((e) => bytesToHex(e.ephemeralPubkey)))].map((h) => wide.set.enotes.find((e) => bytesToHex(e.ephemeralPubkey) === h)!.ephemeralPubkey);
    expect(keys).toHaveLength(6);
    const hex = (s: Uint8Array | null) => (s ? bytesToHex(s) : null);
    for (const De of [...keys, ...badKeys]) {
      expect(batchCarrotSharedSecrets(De, fiveAccounts).map(hex)).toEqual(fiveAccounts.map((a) => hex(carrotSharedSecret(a.viewSecret, De))));
    }
    expect(batchCarrotSharedSecrets(badKeys[0]!, fiveAccounts)).toEqual(fiveAccounts.map(() => null));
    expect(montgomeryToEdwards(TWIST_U)).toBeNull();
  });

  it("the secrets handed to the scan are the ones it uses (coinbase too): another watch's secret finds nothing", () => {
    const merchantWatch = fiveAccounts[1]!;
    for (const tx of [twoOutputs.tx, coinbase]) {
      const prepared = prepareTx(tx);
      const carrot = prepared.carrot;
      if (carrot.kind !== "transfer" && carrot.kind !== "coinbase") throw new Error(`not a Carrot transaction: ${carrot.kind}`);
      // As the batch scanner hands them over: one transaction's shared work, here for a single watch (index 0).
      const known = (secret: (De: Uint8Array) => Uint8Array | null): KnownSharedSecrets => ({
        shared: shareCarrotTx(carrot.kind === "transfer" ? carrot.context : null, carrot.enotes, (De) => [secret(De)]),
        watch: 0,
      });
      const derivations = (k?: KnownSharedSecrets) => ({ main: [], additional: () => null, ...(k ? { carrot: k } : {}) });
      const plain = matchOutputs(prepared, merchantWatch, derivations());
      expect(plain.length).toBeGreaterThan(0);
      expect(matchOutputs(prepared, merchantWatch, derivations(known((De) => carrotSharedSecret(merchantWatch.viewSecret, De))))).toEqual(plain);
      expect(matchOutputs(prepared, merchantWatch, derivations(known((De) => carrotSharedSecret(fiveAccounts[0]!.viewSecret, De))))).toEqual([]);
      expect(matchOutputs(prepared, merchantWatch, derivations(known(() => null)))).toEqual([]);
    }
  });
  it("the view-tag prefilter reports exactly the enotes the full scan owns, malformed and low-order enotes included", () => {
    const watches = [main(merchant), subWatch, main(payer), main(strangers[0]!)];
    const lowOrder = new Uint8Array(32); // u = 0: (0, −1), of order 2, so k_v·D_e is the point at infinity for an even k_v and not for an odd one
    const breakings: ((e: CarrotEnote) => CarrotEnote)[] = [
      (e) => e,
      (e) => ({ ...e, viewTag: e.viewTag.subarray(0, 2) }),
      (e) => ({ ...e, viewTag: Uint8Array.of(e.viewTag[0]! ^ 1, e.viewTag[1]!, e.viewTag[2]!) }),
      (e) => ({ ...e, ephemeralPubkey: e.ephemeralPubkey.subarray(0, 31) }),
      (e) => ({ ...e, ephemeralPubkey: lowOrder }),
      (e) => ({ ...e, amountCommitment: e.amountCommitment.subarray(1) }),
    ];
    let owned = 0;
    for (const { tx } of [twoOutputs, subaddressTwo, integratedTwo, wide]) {
      const carrot = prepareTx(tx).carrot;
      if (carrot.kind !== "transfer") throw new Error(carrot.kind);
      for (const [b, breakIt] of breakings.entries()) {
        // Break one enote at a time (the last one's D_e is shared with the first in a two-output set).
        for (let target = 0; target < carrot.enotes.length; target++) {
          const enotes = carrot.enotes.map((e, i) => (i === target ? breakIt(e) : e));
          const shared = shareCarrotTx(carrot.context, enotes, (De) => watches.map((w) => carrotSharedSecret(w.viewSecret, De)));
          watches.forEach((w, watch) => {
            const full = scanCarrotEnotes(w, carrot.context, enotes).flatMap((result, index) => (result.owned ? [{ index, result }] : []));
            expect(ownedCarrotEnotes(w, carrot.context, enotes, { shared, watch }) ?? [], `breaking ${b}, enote ${target}`).toEqual(full);
            owned += full.length;
          });
        }
      }
    }
    expect(owned).toBeGreaterThan(20); // the unbroken enotes of every set are found (payments and the payer's change)
  });
});
