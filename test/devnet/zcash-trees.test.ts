/**
 * The devnet's note commitment trees, read over the wire: the tree states
 * lightwalletd (GetTreeState) and zebrad (z_gettreestate, finalsaplingroot)
 * serve parse, and their roots equal the root recomputed independently from
 * the tree state before a range plus every cmu/cmx the compact blocks carry,
 * after Sapling, Orchard (before NU6.3) and Ironwood payments, and after a reorg.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { bytesToHex } from "../../src/chains/zcash/bytes.js";
import { createLightwalletd, type Lightwalletd } from "../../src/chains/zcash/lightwalletd.js";
import { CommitmentTree, type TreePool } from "../../src/chains/zcash/merkle.js";
import { startDevnetLightwalletd, type DevnetLightwalletd } from "../../devnet/lightwalletd.js";
import { DEVNET_ZCASH_NU63_HEIGHT, DEVNET_ZCASH_START_HEIGHT, DevnetZcashChain, syntheticTree } from "../../devnet/zcash-chain.js";
import { deriveDevnetZcashWallets, type DevnetZcashWallet } from "../../devnet/zcash-wallets.js";
import { startDevnetZebrad, type DevnetZebrad } from "../../devnet/zebrad.js";

let chain: DevnetZcashChain;
let sim: DevnetLightwalletd;
let zebrad: DevnetZebrad;
let client: Lightwalletd;
let wallets: DevnetZcashWallet[];

const POOLS: TreePool[] = ["sapling", "orchard", "ironwood"];
const reversed = (hex: string) => bytesToHex(Uint8Array.from(Buffer.from(hex, "hex")).reverse());

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(zebrad.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

async function treesAt(height: number): Promise<Record<TreePool, CommitmentTree>> {
  const s = await client.treeState(height);
  expect(s.height).toBe(height);
  return { sapling: CommitmentTree.parse("sapling", s.saplingTree), orchard: CommitmentTree.parse("orchard", s.orchardTree), ironwood: CommitmentTree.parse("ironwood", s.ironwoodTree) };
}

/** Recomputes the trees at `to` from the tree state at `from − 1` and the compact blocks in between, checking sizes against ChainMetadata. */
async function recompute(from: number, to: number): Promise<Record<TreePool, CommitmentTree>> {
  const trees = await treesAt(from - 1);
  for await (const b of client.blockRange(from, to)) {
    for (const tx of b.vtx) {
      for (const o of tx.outputs) trees.sapling.append(o.cmu);
      for (const a of tx.actions) trees.orchard.append(a.cmx);
      for (const a of tx.ironwoodActions) trees.ironwood.append(a.cmx);
    }
    expect(trees.sapling.size()).toBe(b.chainMetadata.saplingCommitmentTreeSize);
    expect(trees.orchard.size()).toBe(b.chainMetadata.orchardCommitmentTreeSize);
    expect(trees.ironwood.size()).toBe(b.chainMetadata.ironwoodCommitmentTreeSize);
  }
  return trees;
}

async function expectServedRootsMatch(from: number, to: number): Promise<void> {
  const mine = await recompute(from, to);
  const served = await treesAt(to);
  for (const p of POOLS) expect(bytesToHex(served[p].root()), p).toBe(bytesToHex(mine[p].root()));
  const z = await rpc("z_gettreestate", [String(to)]);
  expect(z.height).toBe(to);
  expect(z.sapling.commitments.finalState).toBe(mine.sapling.toHex());
  expect(z.sapling.commitments.finalRoot).toBe(reversed(bytesToHex(mine.sapling.root())));
  expect(z.orchard.commitments.finalRoot).toBe(bytesToHex(mine.orchard.root()));
  if (to >= DEVNET_ZCASH_NU63_HEIGHT) expect(z.ironwood.commitments.finalRoot).toBe(bytesToHex(mine.ironwood.root()));
  else expect(z.ironwood).toBeUndefined();
  expect((await rpc("getblock", [String(to), 1])).finalsaplingroot).toBe(z.sapling.commitments.finalRoot);
}

beforeAll(async () => {
  // Five blocks: the tip is before NU6.3, so Orchard payments are still Orchard notes.
  chain = new DevnetZcashChain(systemClock, 0);
  chain.open(5);
  wallets = deriveDevnetZcashWallets("5a".repeat(32));
  sim = await startDevnetLightwalletd({ chain });
  zebrad = await startDevnetZebrad({ chain, blockSeconds: 0 });
  client = createLightwalletd({ url: sim.url, network: "testnet", backoffMs: 1, timeoutMs: 10_000 });
});

afterAll(async () => {
  client.close();
  await sim.close();
  await zebrad.close();
});

describe("devnet note commitment trees", () => {
  it("start from a valid synthetic frontier of the configured sizes, served for the height before the first block", async () => {
    const before = await treesAt(DEVNET_ZCASH_START_HEIGHT - 1);
    expect(before.sapling.size()).toBe(1_214_337);
    expect(before.orchard.size()).toBe(648_201);
    expect(before.ironwood.size()).toBe(0);
    expect(before.sapling.toHex()).toBe(syntheticTree("sapling", 1_214_337).toHex());
    // zebrad answers for the parent hash the first block names (all zeros) too.
    const z = await rpc("z_gettreestate", ["00".repeat(32)]);
    expect(z.height).toBe(DEVNET_ZCASH_START_HEIGHT - 1);
    expect(z.orchard.commitments.finalState).toBe(before.orchard.toHex());
  });

  it("a synthetic frontier of every small size is a valid tree of that size", () => {
    for (let n = 0; n < 40; n++) expect(syntheticTree("orchard", n).size()).toBe(n);
  });

  it("served roots equal the roots recomputed from the compact blocks, after Sapling and Orchard payments before NU6.3", async () => {
    const from = chain.tip().height + 1;
    const w = wallets[0]!;
    chain.send(w.saplingAddress, 70_000n);
    chain.send(w.address, 80_000n); // Orchard receiver, before NU6.3: an Orchard note
    chain.mine(1);
    chain.send(w.saplingAddress, 71_000n);
    chain.mine(1);
    expect(chain.tip().height).toBeLessThan(DEVNET_ZCASH_NU63_HEIGHT);
    await expectServedRootsMatch(from, chain.tip().height);
    await expectServedRootsMatch(DEVNET_ZCASH_START_HEIGHT, chain.tip().height);
  });

  it("and after crossing NU6.3 with Ironwood payments; a reorg rolls the trees back with the blocks", async () => {
    const from = chain.tip().height + 1;
    chain.mine(DEVNET_ZCASH_NU63_HEIGHT - chain.tip().height);
    chain.send(wallets[1]!.address, 90_000n); // an Ironwood note
    chain.mine(2);
    expect(chain.tip().height).toBeGreaterThan(DEVNET_ZCASH_NU63_HEIGHT);
    await expectServedRootsMatch(from, chain.tip().height);
    const rootBefore = bytesToHex((await treesAt(chain.tip().height)).ironwood.root());
    const tipBefore = chain.tip().height;
    const ironwoodBefore = chain.byHeight(tipBefore - 3)!.commitmentTrees.ironwood.size();
    chain.reorg(3);
    expect(chain.tip().height).toBe(tipBefore);
    // The replacement blocks carry none of the dropped payments: the tree is back to its size three blocks ago.
    expect((await treesAt(chain.tip().height)).ironwood.size()).toBe(ironwoodBefore);
    expect(bytesToHex((await treesAt(chain.tip().height)).ironwood.root())).not.toBe(rootBefore);
    await expectServedRootsMatch(from, chain.tip().height);
  });
});
