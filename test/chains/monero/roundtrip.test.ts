import { describe, expect, it } from "vitest";
import { makeIntegratedAddress } from "../../../src/chains/monero/address.js";
import { mulBase } from "../../../src/chains/monero/crypto.js";
import { bytesToHex } from "../../../src/chains/monero/encoding.js";
import { parseExtra } from "../../../src/chains/monero/extra.js";
import { makeViewAccount } from "../../../src/chains/monero/keys.js";
import { scanTx } from "../../../src/chains/monero/scan.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../src/chains/monero/tx-binary.js";
import type { ScanTx, ViewAccount } from "../../../src/chains/monero/types.js";
import { buildBlock, buildCoinbase, buildTransfer, seededRng, type BuiltMoneroTx } from "../../../devnet/monero-sender.js";
import { makeWallet } from "./helpers.js";

const merchant = makeWallet("merchant");
const other = makeWallet("someone else");
const LOOK = { lookahead: { accounts: 2, minors: 20 } };

function parsed(built: BuiltMoneroTx): ScanTx {
  const r = parseTransactionBlob(built.blob);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** Scans both encodings (binary blob and monerod JSON) and checks they agree. */
function scanBoth(built: BuiltMoneroTx, account: ViewAccount) {
  const fromBlob = scanTx(parsed(built), account);
  const j = txFromDaemonJson(built.asJson, built.txid);
  if (!j.ok) throw new Error(j.error);
  expect(scanTx(j.value, account)).toEqual(fromBlob);
  return fromBlob;
}

describe("devnet sender → scanner round trips", () => {
  const primary = makeViewAccount(merchant.address, merchant.viewSecretHex, LOOK);

  it("standard address: found with amount, index (0,0), and the blob's txid matches the sender's", () => {
    const tx = buildTransfer({ destinations: [{ address: merchant.address, amount: 1_234_567_890_123n }, { address: other.address, amount: 5n }], rng: seededRng("t1") });
    expect(parsed(tx).txid).toBe(tx.txid);
    const found = scanBoth(tx, primary);
    expect(found).toEqual([{ outputIndex: 0, publicKey: tx.outputs[0]!.publicKey, amount: 1_234_567_890_123n, subaddress: { major: 0, minor: 0 }, paymentId: "0000000000000000" }]);
    expect(scanBoth(tx, makeViewAccount(other.address, other.viewSecretHex, LOOK)).map((f) => f.amount)).toEqual([5n]);
  });

  it("single subaddress destination: R = r·D, no additional keys; primary and subaddress watches both see it", () => {
    const sub = merchant.sub(0, 7);
    const tx = buildTransfer({ destinations: [{ address: sub, amount: 42n }], rng: seededRng("t2") });
    const extra = parseExtra(parsed(tx).extra);
    expect(extra.additionalPublicKeys).toEqual([]);
    expect(bytesToHex(extra.txPublicKeys[0]!)).not.toBe(bytesToHex(mulBase(1n).toBytes()));
    expect(scanBoth(tx, primary).map((f) => [f.amount, f.subaddress])).toEqual([[42n, { major: 0, minor: 7 }]]);
    const subWatch = makeViewAccount(sub, merchant.viewSecretHex, { subaddressIndex: { major: 0, minor: 7 } });
    expect(scanBoth(tx, subWatch).map((f) => [f.amount, f.subaddress])).toEqual([[42n, { major: 0, minor: 7 }]]);
    // A watch on a different subaddress of the same wallet does not see it.
    expect(scanBoth(tx, makeViewAccount(merchant.sub(0, 8), merchant.viewSecretHex))).toEqual([]);
  });

  it("several outputs in one tx (standard + two subaddresses + foreign): additional keys, all ours found with indices", () => {
    const tx = buildTransfer({
      destinations: [
        { address: other.address, amount: 1n },
        { address: merchant.sub(1, 3), amount: 300n },
        { address: merchant.address, amount: 100n },
        { address: merchant.sub(0, 19), amount: 219n },
      ],
      rng: seededRng("t3"),
    });
    expect(parseExtra(parsed(tx).extra).additionalPublicKeys.length).toBe(4);
    expect(scanBoth(tx, primary).map((f) => [f.outputIndex, f.amount, f.subaddress])).toEqual([
      [1, 300n, { major: 1, minor: 3 }],
      [2, 100n, { major: 0, minor: 0 }],
      [3, 219n, { major: 0, minor: 19 }],
    ]);
    // Subaddresses beyond the look-ahead are not seen by the primary watch (documented), but are by their own watch.
    const far = buildTransfer({ destinations: [{ address: merchant.sub(0, 500), amount: 9n }, { address: merchant.sub(0, 1), amount: 1n }], rng: seededRng("t3b") });
    expect(scanBoth(far, primary).map((f) => f.subaddress)).toEqual([{ major: 0, minor: 1 }]);
    expect(scanBoth(far, makeViewAccount(merchant.sub(0, 500), merchant.viewSecretHex)).map((f) => [f.amount, f.subaddress])).toEqual([[9n, null]]);
  });

  it("integrated address: payment id decrypted", () => {
    const integrated = makeIntegratedAddress(merchant.address, "0123456789abcdef");
    const tx = buildTransfer({ destinations: [{ address: integrated, amount: 77n }, { address: other.address, amount: 1n }], rng: seededRng("t4") });
    const found = scanBoth(tx, makeViewAccount(integrated, merchant.viewSecretHex, LOOK));
    expect(found.map((f) => [f.amount, f.paymentId, f.subaddress])).toEqual([[77n, "0123456789abcdef", { major: 0, minor: 0 }]]);
    expect(scanBoth(tx, primary).map((f) => f.paymentId)).toEqual(["0123456789abcdef"]);
  });

  it("wrong view key: nothing found", () => {
    const tx = buildTransfer({ destinations: [{ address: merchant.address, amount: 10n }, { address: merchant.sub(0, 2), amount: 11n }], rng: seededRng("t5") });
    expect(scanBoth(tx, makeViewAccount(other.address, other.viewSecretHex, LOOK))).toEqual([]);
  });

  it("tampered amount or commitment: output not counted; the untampered one still is", () => {
    const tx = buildTransfer({ destinations: [{ address: merchant.sub(0, 1), amount: 500n }, { address: merchant.sub(0, 2), amount: 600n }], rng: seededRng("t6") });
    const t = parsed(tx);
    t.outputs[0]!.encryptedAmount![2] ^= 0x10;
    expect(scanTx(t, primary).map((f) => f.amount)).toEqual([600n]);
    const t2 = parsed(tx);
    t2.outputs[1]!.commitment = mulBase(99n).toBytes();
    expect(scanTx(t2, primary).map((f) => f.amount)).toEqual([500n]);
  });

  it("unlock time and fee survive both encodings; view tags match the sender's", () => {
    const tx = buildTransfer({ destinations: [{ address: merchant.address, amount: 1n }], unlockTime: 3_000_000n, fee: 12345n, rng: seededRng("t7") });
    const t = parsed(tx);
    expect([t.unlockTime, t.fee, t.rctType, t.outputs[0]!.viewTag]).toEqual([3_000_000n, 12345n, 6, tx.outputs[0]!.viewTag]);
    const j = txFromDaemonJson(tx.json, tx.txid);
    expect(j.ok && [j.value.unlockTime, j.value.fee]).toEqual([3_000_000n, 12345n]);
  });

  it("coinbase: clear amount, unlock at height + 60, inside a block blob with a consistent block id", () => {
    const cb = buildCoinbase({ destinations: [{ address: merchant.address, amount: 600_000_000_000n }], height: 1234, rng: seededRng("cb") });
    const transfer = buildTransfer({ destinations: [{ address: other.address, amount: 3n }], rng: seededRng("cbt") });
    const block = buildBlock({ minerTx: cb, txHashes: [transfer.txid], prevId: "11".repeat(32), timestamp: 1_700_000_000 });
    const b = parseBlockBlob(block.blob);
    expect(b.ok).toBe(true);
    if (!b.ok) return;
    expect(b.value.hash).toBe(block.hash);
    expect(b.value.txHashes).toEqual([transfer.txid]);
    expect(b.value.minerTx.txid).toBe(cb.txid);
    expect(b.value.minerTx.unlockTime).toBe(1294n);
    expect(scanTx(b.value.minerTx, primary)).toEqual([{ outputIndex: 0, publicKey: cb.outputs[0]!.publicKey, amount: 600_000_000_000n, subaddress: { major: 0, minor: 0 } }]);
    const j = txFromDaemonJson(JSON.parse(block.asJson).miner_tx, cb.txid);
    expect(j.ok && scanTx(j.value, primary).map((f) => f.amount)).toEqual([600_000_000_000n]);
  });

  it("P2Pool-style coinbase with 130 outputs: index ≥ 128 (2-byte varint) found", () => {
    const dests = Array.from({ length: 130 }, (_, i) => ({ address: i === 129 ? merchant.address : other.address, amount: BigInt(i + 1) }));
    const cb = buildCoinbase({ destinations: dests, height: 99, rng: seededRng("p2p") });
    const found = scanTx(parsed(cb), primary);
    expect(found.map((f) => [f.outputIndex, f.amount])).toEqual([[129, 130n]]);
  });

  it("stagenet and testnet addresses round-trip too", () => {
    for (const net of ["stagenet", "testnet"] as const) {
      const w = makeWallet(`w-${net}`, net);
      const tx = buildTransfer({ destinations: [{ address: w.sub(0, 1), amount: 8n }, { address: w.address, amount: 9n }], rng: seededRng(net) });
      const acc = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { accounts: 1, minors: 2 } });
      expect(acc.network).toBe(net);
      expect(scanBoth(tx, acc).map((f) => f.amount)).toEqual([8n, 9n]);
    }
  });

});

describe("look-ahead extension", () => {
  it("a primary watch extended with an issued index sees payments beyond its look-ahead", async () => {
    const { addSubaddressesToAccount } = await import("../../../src/chains/monero/keys.js");
    const w = makeWallet("extend");
    const acc = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { accounts: 1, minors: 2 } });
    const tx = buildTransfer({ destinations: [{ address: w.sub(3, 4000), amount: 70n }], rng: seededRng("ext") });
    const p = parseTransactionBlob(tx.blob);
    if (!p.ok) throw new Error(p.error);
    expect(scanTx(p.value, acc)).toEqual([]);
    addSubaddressesToAccount(acc, [{ major: 3, minor: 4000 }]);
    expect(scanTx(p.value, acc).map((f) => [f.amount, f.subaddress])).toEqual([[70n, { major: 3, minor: 4000 }]]);
  });
});
