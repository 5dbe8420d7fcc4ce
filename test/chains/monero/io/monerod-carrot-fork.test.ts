/**
 * The devnet monerod's chain across the FCMP++/Carrot fork (v17): below the
 * fork height v16 blocks with legacy coinbases and RingCT type 6 transfers;
 * from it v17 blocks with the FCMP++ tree, a Carrot coinbase and Carrot
 * transfers by default (a legacy one still on request, as v17 allows). Every
 * blob parses to the same ScanTx as its as_json, every block id recomputes
 * from its blob, the view-key scan finds each payment with its amount and
 * subaddress (and the sender's change as a self-send), the chain file reloads
 * the Carrot blocks, and a reorg across the fork height rebuilds both kinds.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../src/core/clock.js";
import { makeIntegratedAddress } from "../../../../src/chains/monero/address.js";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { scanTx } from "../../../../src/chains/monero/scan.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../../src/chains/monero/tx-binary.js";
import type { ScanTx } from "../../../../src/chains/monero/types.js";
import { HttpReply } from "../../../../devnet/jsonrpc-server.js";
import { DevnetMoneroChain, isCarrotTx } from "../../../../devnet/monerod-chain.js";
import { deriveDevnetWallets } from "../../../../devnet/monerod-wallets.js";
import type { BuiltMoneroTx } from "../../../../devnet/monero-sender.js";
import { tempDataDir } from "./helpers.js";

const FORK = 4;
const wallets = deriveDevnetWallets(randomBytes(32).toString("hex"));
const [alice, bob, , miner] = wallets as [typeof wallets[0], typeof wallets[0], typeof wallets[0], typeof wallets[0]];
const dir = tempDataDir("vigil-xmr-carrot-");
const chainFile = path.join(dir, "monero-chain.jsonl");
const clock = new ManualClock(Date.now());
const newChain = () =>
  new DevnetMoneroChain({ network: "testnet", minerAddress: miner.address, clock, chainFile, carrotForkHeight: FORK, carrotSender: { address: miner.address, viewKey: miner.viewKey } });
const lookahead = { lookahead: { accounts: 2, minors: 5 } };
const account = (w: typeof alice) => makeViewAccount(w.address, w.viewKey, lookahead);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function fromBlob(t: BuiltMoneroTx): ScanTx {
  const r = parseTransactionBlob(t.blob);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** The 400 a devnet action answers with. */
function refusal(f: () => unknown): { status: number; code: string; message: string } {
  try {
    f();
  } catch (e) {
    if (!(e instanceof HttpReply)) throw e;
    const err = (e.body as { error: { code: string; message: string } }).error;
    return { status: e.status, code: err.code, message: err.message };
  }
  throw new Error("not refused");
}

/** The blob and the as_json give the same ScanTx (with the txid the blob hashes to). */
function sameBothWays(t: BuiltMoneroTx): ScanTx {
  const a = fromBlob(t);
  expect(a.txid).toBe(t.txid);
  const j = txFromDaemonJson(t.asJson, t.txid);
  if (!j.ok) throw new Error(j.error);
  expect(j.value).toEqual(a);
  const pruned = parseTransactionBlob(Buffer.from(t.prunedHex, "hex"));
  expect(pruned.ok && { ...pruned.value, txid: t.txid }).toEqual(a);
  return a;
}

describe("devnet monerod across the Carrot fork", () => {
  const chain = newChain();
  const pay: Record<string, string> = {};
  const sub = alice.subaddresses.find((s) => s.major === 1 && s.minor === 1)!;
  const integrated = makeIntegratedAddress(bob.address, "0123456789abcdef");

  it("legacy below the fork, v17 with Carrot from it; both kinds in v17; Carrot refused before the fork", () => {
    chain.open(2); // heights 0, 1
    expect(chain.defaultKind()).toBe("legacy");
    pay.before = chain.send(alice.address, 1_000_000n);
    expect(refusal(() => chain.send(alice.address, 5n, "carrot"))).toEqual({ status: 400, code: "invalid_kind", message: expect.stringContaining("fork height 4") });
    chain.mine(2); // heights 2 (with the payment), 3
    expect(chain.height()).toBe(FORK - 1);
    expect(chain.defaultKind()).toBe("carrot");
    pay.legacyInPool = chain.send(bob.address, 7_000n, "legacy");
    pay.atFork = chain.send(alice.address, 2_000_000n);
    pay.sub = chain.send(sub.address, 3_000_000n);
    chain.mine(1); // height 4 = the fork
    pay.integrated = chain.send(integrated, 4_000_000n);
    chain.mine(2); // 5 (with it), 6

    expect(chain.blocks.map((b) => b.built.json.major_version)).toEqual([16, 16, 16, 16, 17, 17, 17]);
    expect(chain.blocks.map((b) => b.built.json.minor_version)).toEqual([16, 16, 16, 16, 17, 17, 17]);
    expect(chain.blocks.map((b) => isCarrotTx(b.minerTx))).toEqual([false, false, false, false, true, true, true]);
    const fork = chain.blocks[FORK]!;
    expect(fork.txs.map((t) => t.txid).sort()).toEqual([pay.legacyInPool, pay.atFork, pay.sub].sort());
    expect(fork.txs.map((t) => [t.txid, isCarrotTx(t)]).sort()).toEqual(
      [
        [pay.legacyInPool, false],
        [pay.atFork, true],
        [pay.sub, true],
      ].sort(),
    );
    expect(chain.blocks[2]!.txs.map((t) => t.txid)).toEqual([pay.before]);
  });

  it("every block id recomputes from its blob (the FCMP++ tree from v17 on), every tx parses the same from blob and as_json", () => {
    for (const b of chain.blocks) {
      const r = parseBlockBlob(b.built.blob);
      if (!r.ok) throw new Error(r.error);
      expect(r.value.hash).toBe(b.built.hash);
      expect(r.value.majorVersion).toBe(b.height >= FORK ? 17 : 16);
      expect(r.value.minerTx.txid).toBe(b.minerTx.txid);
      expect(r.value.txHashes).toEqual(b.txs.map((t) => t.txid));
      if (b.height >= FORK) {
        expect(r.value.fcmpTree).toEqual({ nTreeLayers: b.built.json.fcmp_pp_n_tree_layers, treeRoot: b.built.json.fcmp_pp_tree_root });
      } else {
        expect(r.value.fcmpTree).toBeUndefined();
        expect(b.built.json.fcmp_pp_tree_root).toBeUndefined();
      }
      const miner = sameBothWays(b.minerTx);
      expect(miner.coinbaseHeight).toBe(BigInt(b.height));
      for (const t of b.txs) {
        const s = sameBothWays(t);
        expect(s.rctType).toBe(isCarrotTx(t) ? 7 : 6);
        expect(s.fee).toBe(30_000_000n);
      }
    }
  });

  it("the view-key scan finds every payment with its amount, subaddress and payment ID; the miner sees its coinbases and its change", () => {
    const tx = (id: string) => chain.txIndex.get(id)!.tx;
    const alices = [pay.before, pay.atFork, pay.sub].map((id) => scanTx(fromBlob(tx(id)), account(alice)));
    expect(alices.map((o) => o.map((x) => [x.amount, x.subaddress]))).toEqual([
      [[1_000_000n, { major: 0, minor: 0 }]],
      [[2_000_000n, { major: 0, minor: 0 }]],
      [[3_000_000n, { major: 1, minor: 1 }]],
    ]);
    const bobs = [pay.legacyInPool, pay.integrated].map((id) => scanTx(fromBlob(tx(id)), account(bob)));
    expect(bobs.map((o) => o.map((x) => [x.amount, x.paymentId ?? null]))).toEqual([[[7_000n, null]], [[4_000_000n, "0123456789abcdef"]]]);
    expect(scanTx(fromBlob(tx(pay.atFork)), account(bob))).toEqual([]);
    // The built outputs name who each Carrot output pays: the payment and the sender's change.
    const atFork = tx(pay.atFork);
    expect(atFork.outputs.map((o) => o.address).sort()).toEqual([alice.address, miner.address].sort());
    expect(atFork.outputs.every((o) => typeof o.viewTag === "string" && o.viewTag.length === 6)).toBe(true);
    const change = atFork.outputs.find((o) => o.address === miner.address)!;
    expect(scanTx(fromBlob(atFork), account(miner))).toEqual([expect.objectContaining({ outputIndex: change.outputIndex, amount: change.amount })]);
    for (const b of chain.blocks) {
      expect(scanTx(fromBlob(b.minerTx), account(miner)).map((o) => o.amount)).toEqual([b.reward]);
      expect(scanTx(fromBlob(b.minerTx), account(alice))).toEqual([]);
    }
  });

  it("the chain file reloads the Carrot blocks and transactions", () => {
    const again = newChain();
    again.open(1);
    expect(again.blocks.map((b) => b.built.hash)).toEqual(chain.blocks.map((b) => b.built.hash));
    expect(again.blocks.map((b) => b.built.asJson)).toEqual(chain.blocks.map((b) => b.built.asJson));
    const reloaded = again.txIndex.get(pay.sub)!;
    expect(reloaded.height).toBe(FORK);
    expect(reloaded.tx.hex).toBe(chain.txIndex.get(pay.sub)!.tx.hex);
    expect(reloaded.tx.outputs).toEqual(chain.txIndex.get(pay.sub)!.tx.outputs);
    expect(scanTx(sameBothWays(reloaded.tx), account(alice)).map((o) => o.amount)).toEqual([3_000_000n]);
  });

  it("a reorg across the fork height rebuilds v16 and v17 blocks and returns both kinds to the pool", () => {
    const tip = chain.height();
    const returned = chain.reorg(tip - 2, { keepTxs: true }); // heights 3..6 replaced: one v16, three v17
    expect(returned.sort()).toEqual([pay.legacyInPool, pay.atFork, pay.sub, pay.integrated].sort());
    expect(chain.blocks.map((b) => b.built.json.major_version)).toEqual([16, 16, 16, 16, 17, 17, 17]);
    expect(chain.blocks.slice(3).every((b) => b.txs.length === 0)).toBe(true);
    for (const b of chain.blocks) {
      const r = parseBlockBlob(b.built.blob);
      expect(r.ok && r.value.hash).toBe(b.built.hash);
      expect(isCarrotTx(b.minerTx)).toBe(b.height >= FORK);
    }
    chain.mine(1);
    expect(chain.top().txs.map((t) => t.txid).sort()).toEqual(returned.sort());
    const reloaded = newChain();
    reloaded.open(1);
    expect(reloaded.blocks.map((b) => b.built.hash)).toEqual(chain.blocks.map((b) => b.built.hash));
  });

  it("without a fork height nothing changes: v16 and legacy only", () => {
    const plain = new DevnetMoneroChain({ network: "testnet", minerAddress: miner.address, clock });
    plain.open(3);
    plain.send(alice.address, 9n);
    plain.mine(1);
    expect(plain.blocks.map((b) => b.built.json.major_version)).toEqual([16, 16, 16, 16]);
    expect(plain.blocks.some((b) => isCarrotTx(b.minerTx) || b.txs.some(isCarrotTx))).toBe(false);
    expect(refusal(() => plain.send(alice.address, 9n, "carrot"))).toMatchObject({ status: 400, code: "invalid_kind" });
  });
});
