/**
 * The service's per-transaction match on Carrot transactions: a parsed
 * Carrot blob (devnet/monero-carrot-tx.ts, from sender-built output sets) is found by
 * matchTx / scanForAccounts (the plain and the batch path) and the
 * worker-thread pool for the watched
 * account, as the same OwnedOutput the legacy path returns, and not for
 * another account; the sender's own watch sees its change; the coinbase of a
 * v17 block is found; an inconsistent Carrot transaction owns nothing.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { makeIntegratedAddress } from "../../../../src/chains/monero/address.js";
import { bytesToHex, concatBytes } from "../../../../src/chains/monero/encoding.js";
import { extraNonceField } from "../../../../src/chains/monero/extra.js";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { matchTx, scanForAccounts } from "../../../../src/chains/monero/match.js";
import { prepareTx, scanTx } from "../../../../src/chains/monero/scan.js";
import { buildCarrotCoinbaseEnotes, buildCarrotOutputSet, destinationFromAddress } from "../../../../src/chains/monero/carrot/sender.js";
import { parseBlockBlob, parseTransactionBlob } from "../../../../src/chains/monero/tx-binary.js";
import type { ScanTx } from "../../../../src/chains/monero/types.js";
import { seededRng } from "../../../../devnet/monero-sender.js";
import { makeWallet } from "../helpers.js";
import { carrotBlockBlob, carrotCoinbaseBlob, carrotTxBlob } from "../../../../devnet/monero-carrot-tx.js";

const merchant = makeWallet("carrot-match merchant");
const payer = makeWallet("carrot-match payer");
const others = [makeWallet("carrot-match other 1"), makeWallet("carrot-match other 2"), makeWallet("carrot-match other 3")];
const watch = (w: typeof merchant) => makeViewAccount(w.address, w.viewSecretHex);
const PID = "00112233aabbccdd";

const rng = seededRng("carrot-match tx");
const keyImage = rng(32);
const set = buildCarrotOutputSet({
  firstKeyImage: keyImage,
  payments: [
    { destination: destinationFromAddress(merchant.sub(1, 7)), amount: 42_000_000n },
    { destination: destinationFromAddress(makeIntegratedAddress(merchant.address, PID)), amount: 1_000_000_000_000n },
    { destination: destinationFromAddress(others[0]!.address), amount: 3n },
  ],
  change: { viewSecret: bytesToNumberLE(payer.viewSecretBytes), spendPublicKey: payer.spendPublic, isSubaddress: false, amount: 8_000n },
  rng,
});

function parsed(blob: Uint8Array): ScanTx {
  const r = parseTransactionBlob(blob);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const tx = parsed(carrotTxBlob({ set, keyImages: [keyImage], fee: 100n, prunable: Uint8Array.of(9, 9, 9) }));
const indexOf = (amount: bigint) => set.enotes.findIndex((e) => e.amount === amount);
const expected = [
  { outputIndex: indexOf(42_000_000n), publicKey: bytesToHex(set.enotes[indexOf(42_000_000n)]!.onetimeAddress), amount: 42_000_000n, subaddress: { major: 1, minor: 7 } },
  {
    outputIndex: indexOf(1_000_000_000_000n),
    publicKey: bytesToHex(set.enotes[indexOf(1_000_000_000_000n)]!.onetimeAddress),
    amount: 1_000_000_000_000n,
    subaddress: { major: 0, minor: 0 },
    paymentId: PID,
  },
].sort((a, b) => a.outputIndex - b.outputIndex);

describe("matchTx on Carrot transactions", () => {
  it("finds the watched account's outputs as OwnedOutput, and nothing for another account", () => {
    const prepared = prepareTx(tx);
    expect(prepared.carrot.kind).toBe("transfer");
    expect(matchTx(prepared, watch(merchant))).toEqual(expected);
    expect(matchTx(prepared, watch(others[1]!))).toEqual([]);
    expect(scanTx(tx, watch(merchant))).toEqual(expected);
  });

  it("the batch path (many watches) gives each account the same answer as the plain path", () => {
    const accounts = [watch(others[1]!), watch(merchant), watch(others[0]!), watch(payer), watch(others[2]!)];
    const batch = scanForAccounts(prepareTx(tx), accounts);
    expect(batch).toEqual(accounts.map((a) => matchTx(prepareTx(tx), a)));
    expect(batch[1]).toEqual(expected);
    expect(batch[2]!.map((o) => o.amount)).toEqual([3n]);
    // The sender's change comes back to its own watch, reported as the legacy path reports a wallet's change: an owned output.
    expect(batch[3]).toEqual([{ outputIndex: indexOf(8_000n), publicKey: bytesToHex(set.enotes[indexOf(8_000n)]!.onetimeAddress), amount: 8_000n, subaddress: { major: 0, minor: 0 } }]);
    expect(batch[0]).toEqual([]);
    expect(batch[4]).toEqual([]);
  });

  it("the worker-thread pool (the service's scanner) finds the same Carrot outputs", async () => {
    const { MoneroScanPool } = await import("../../../../src/chains/monero/pool.js");
    const accounts = [watch(merchant), watch(others[1]!), watch(payer)];
    const pool = new MoneroScanPool({ threads: 1 });
    try {
      await pool.setAccounts(accounts);
      expect(await pool.scanTxs([tx])).toEqual([accounts.map((a) => matchTx(prepareTx(tx), a))]);
    } finally {
      await pool.close();
    }
  });

  it("a Carrot transaction the enote reader refuses owns nothing on either path", () => {
    const noKeys = parsed(carrotTxBlob({ set, keyImages: [keyImage], fee: 1n, extra: extraNonceField(concatBytes(Uint8Array.of(1), set.encryptedPaymentId)) }));
    const prepared = prepareTx(noKeys);
    expect(prepared.carrot.kind).toBe("invalid");
    expect(matchTx(prepared, watch(merchant))).toEqual([]);
    expect(scanForAccounts(prepared, [watch(merchant), watch(payer), watch(others[0]!)])).toEqual([[], [], []]);
  });

  it("the Carrot coinbase of a v17 block is found for the miner's watch only", () => {
    const enotes = buildCarrotCoinbaseEnotes({
      blockIndex: 5_000n,
      payments: [{ destination: destinationFromAddress(merchant.address), amount: 700_000_000_000n }],
      rng: seededRng("carrot-match coinbase"),
    });
    const block = parseBlockBlob(carrotBlockBlob({ major: 17, minerTx: carrotCoinbaseBlob(enotes), txHashes: [], prevId: new Uint8Array(32), tree: { nTreeLayers: 1, treeRoot: new Uint8Array(32).fill(7) } }));
    if (!block.ok) throw new Error(block.error);
    const prepared = prepareTx(block.value.minerTx);
    expect(matchTx(prepared, watch(merchant))).toEqual([{ outputIndex: 0, publicKey: bytesToHex(enotes[0]!.onetimeAddress), amount: 700_000_000_000n, subaddress: { major: 0, minor: 0 } }]);
    expect(matchTx(prepared, watch(payer))).toEqual([]);
  });
});
