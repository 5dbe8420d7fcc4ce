/**
 * The historical scan's Merkle paths against a devnet lightwalletd (real
 * gRPC) that answers badly: a tree state whose root disagrees with the
 * commitments served, or ChainMetadata sizes that disagree with the blocks,
 * is 502 chain_tree_mismatch — no path is handed out. The upstream is made
 * to lie by a thin wrapper around the real client's answers (what a faulty
 * server would send), not by replacing the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { bytesToHex } from "../../../src/chains/zcash/bytes.js";
import type { CompactBlock, CompactBlockSource } from "../../../src/chains/zcash/compact.js";
import { createZcashHistorical } from "../../../src/chains/zcash/historical.js";
import { createLightwalletd, type Lightwalletd } from "../../../src/chains/zcash/lightwalletd.js";
import { startDevnetLightwalletd, type DevnetLightwalletd } from "../../../devnet/lightwalletd.js";
import { DevnetZcashChain } from "../../../devnet/zcash-chain.js";
import { deriveDevnetZcashWallets, type DevnetZcashWallet } from "../../../devnet/zcash-wallets.js";

let chain: DevnetZcashChain;
let sim: DevnetLightwalletd;
let client: Lightwalletd;
let wallet: DevnetZcashWallet;
let from: number;

beforeAll(async () => {
  chain = new DevnetZcashChain(systemClock, 0);
  chain.open(12);
  wallet = deriveDevnetZcashWallets("5a".repeat(32))[0]!;
  sim = await startDevnetLightwalletd({ chain });
  client = createLightwalletd({ url: sim.url, network: "testnet", backoffMs: 1, timeoutMs: 10_000 });
  from = chain.tip().height + 1;
  chain.send(wallet.address, 50_000n);
  chain.send(wallet.saplingAddress, 60_000n);
  chain.mine(2);
  chain.addMempoolTxs(2);
  chain.mine(2);
});

afterAll(async () => {
  client.close();
  await sim.close();
});

/** The real client, with some answers altered on their way back. */
function lying(alter: { treeState?: (s: Awaited<ReturnType<Lightwalletd["treeState"]>>) => typeof s; block?: (b: CompactBlock) => CompactBlock }): CompactBlockSource {
  return {
    latestBlock: (sig) => client.latestBlock(sig),
    blockRange: async function* (a, b, pools, sig) {
      for await (const blk of client.blockRange(a, b, pools, sig)) yield alter.block ? alter.block(blk) : blk;
    },
    transaction: (t, sig) => client.transaction(t, sig),
    mempool: (p, sig) => client.mempool(p, sig),
    treeState: async (h, sig) => {
      const s = await client.treeState(h, sig);
      return alter.treeState ? alter.treeState(s) : s;
    },
    info: (sig) => client.info(sig),
    close: () => undefined,
  };
}

const scanWith = (source: CompactBlockSource) =>
  createZcashHistorical({ source, network: "testnet", maxBlocks: 100 })({ viewKey: wallet.ufvk, birthdayHeight: from, toHeight: chain.tip().height, includeNotes: true });

describe("historical Merkle paths refuse a server whose trees disagree with its blocks", () => {
  it("an honest server: Sapling and Ironwood notes get paths to the served roots", async () => {
    const out = await scanWith(client);
    const shielded = out.outputs!.filter((o) => o.pool !== "transparent");
    expect(shielded.map((o) => o.pool).sort()).toEqual(["ironwood", "sapling"]);
    for (const o of shielded) {
      expect(o.merkle_path).toHaveLength(32);
      expect(o.anchor).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("a root at toHeight that is not the root of the served commitments: 502 chain_tree_mismatch", async () => {
    const to = chain.tip().height;
    // The tree state at toHeight is the one of an earlier block (a stale or wrong tree), under the right hash.
    const stale = await client.treeState(to - 2);
    const source = lying({ treeState: (s) => (s.height === to ? { ...s, saplingTree: stale.saplingTree, ironwoodTree: stale.ironwoodTree } : s) });
    await expect(scanWith(source)).rejects.toMatchObject({ status: 502, code: "chain_tree_mismatch" });
  });

  it("ChainMetadata sizes that disagree with the commitments in the blocks: 502 chain_tree_mismatch naming the pool", async () => {
    const source = lying({ block: (b) => ({ ...b, chainMetadata: { ...b.chainMetadata, ironwoodCommitmentTreeSize: b.chainMetadata.ironwoodCommitmentTreeSize + 1 } }) });
    await expect(scanWith(source)).rejects.toMatchObject({ status: 502, code: "chain_tree_mismatch", details: { pool: "ironwood" } });
  });

  it("a malformed tree state: 502 chain_tree_mismatch", async () => {
    const source = lying({ treeState: (s) => ({ ...s, saplingTree: "01" + bytesToHex(new Uint8Array(31)) }) });
    await expect(scanWith(source)).rejects.toMatchObject({ status: 502, code: "chain_tree_mismatch", details: { pool: "sapling" } });
  });
});
