/**
 * A paid Zcash historical scan with includeNotes on the devnet, over the real
 * wire (x402 payment, the app's lightwalletd gRPC client, the devnet's
 * compact blocks and tree states): Sapling and Orchard notes paid before
 * NU6.3, an Ironwood note after it, one Sapling note spent. Every unspent
 * note's Merkle path must verify against the devnet's root at toHeight,
 * recomputed here independently from GetTreeState through a lightwalletd
 * client of the test's own, and its leaf must be the note's commitment in
 * the compact block; the spent note has no path.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { bytesToHex, hexToBytes } from "../../src/chains/zcash/bytes.js";
import { createLightwalletd, type Lightwalletd } from "../../src/chains/zcash/lightwalletd.js";
import { CommitmentTree, rootFromPath, type TreePool } from "../../src/chains/zcash/merkle.js";
import { decodeUfvk } from "../../src/chains/zcash/zip316.js";
import { DEVNET_ZCASH_NU63_HEIGHT } from "../../devnet/zcash-chain.js";

let s: WatchStack;
let client: Lightwalletd;
beforeAll(async () => {
  // Five blocks of history: the tip is before NU6.3, so an Orchard receiver still gets an Orchard note.
  s = await startWatchStack({ https: false, zcashInitialBlocks: 5 });
  client = createLightwalletd({ url: s.devnet.configOverlay.LIGHTWALLETD_URL as string, network: "testnet", timeoutMs: 10_000 });
}, 120_000);
afterAll(async () => {
  client?.close();
  await s?.close();
});

/** The note's commitment (cmu / cmx) as the compact block carries it. */
async function commitmentOf(pool: TreePool, txid: string, index: number, height: number): Promise<Uint8Array> {
  for await (const b of client.blockRange(height, height)) {
    const tx = b.vtx.find((t) => bytesToHex(Uint8Array.from(t.txid).reverse()) === txid)!;
    return pool === "sapling" ? tx.outputs[index]!.cmu : (pool === "orchard" ? tx.actions : tx.ironwoodActions)[index]!.cmx;
  }
  throw new Error("block not served");
}

describe("Zcash historical scan: anchors and Merkle paths", () => {
  it("every unspent Sapling, Orchard and Ironwood note's path verifies against the devnet's root at toHeight; the spent note has none", async () => {
    const chain = s.devnet.zcashChain!;
    const wallet = s.devnet.zcashWallets()[0]!;
    const from = chain.tip().height + 1;
    expect(from).toBeLessThan(DEVNET_ZCASH_NU63_HEIGHT);

    const sapling = chain.send(wallet.saplingAddress, 120_000n, "sapling kept");
    const orchard = chain.send(wallet.address, 130_000n, "orchard kept");
    expect(orchard.pool).toBe("orchard");
    chain.mine(1);
    const spentLater = chain.send(wallet.saplingAddress, 140_000n, "sapling spent");
    chain.mine(1);
    chain.mine(DEVNET_ZCASH_NU63_HEIGHT - chain.tip().height);
    const ironwood = chain.send(wallet.address, 150_000n, "ironwood kept");
    expect(ironwood.pool).toBe("ironwood");
    chain.mine(2);
    chain.spend(decodeUfvk(wallet.ufvk), spentLater.txid, { pool: "sapling" });
    chain.mine(3);
    const to = chain.tip().height;

    const r = await s.paid("/v1/private/historical", { chain: "zcash", viewKey: wallet.ufvk, birthdayHeight: from, toHeight: to, includeNotes: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const outputs = r.json.outputs as any[];
    const byTx = (txid: string) => outputs.find((o) => o.txid === txid)!;
    expect(byTx(sapling.txid)).toMatchObject({ pool: "sapling", spent: false, memo: { text: "sapling kept" } });
    expect(byTx(orchard.txid)).toMatchObject({ pool: "orchard", spent: false });
    expect(byTx(ironwood.txid)).toMatchObject({ pool: "ironwood", spent: false });
    const spent = byTx(spentLater.txid);
    expect(spent).toMatchObject({ pool: "sapling", spent: true });
    for (const k of ["anchor", "position", "merkle_path"]) expect(spent, k).not.toHaveProperty(k);

    // The devnet's roots at toHeight, from its own GetTreeState.
    const state = await client.treeState(to);
    const trees = { sapling: CommitmentTree.parse("sapling", state.saplingTree), orchard: CommitmentTree.parse("orchard", state.orchardTree), ironwood: CommitmentTree.parse("ironwood", state.ironwoodTree) };
    let checked = 0;
    for (const o of outputs.filter((x) => !x.spent)) {
      const pool = o.pool as TreePool;
      const tree = trees[pool];
      expect(o.anchor).toBe(bytesToHex(tree.root()));
      expect(o.merkle_path).toHaveLength(32);
      expect(o.position).toBeLessThan(tree.size());
      const leaf = await commitmentOf(pool, o.txid, o.output_index, o.height);
      const path = (o.merkle_path as string[]).map((h) => hexToBytes(h));
      expect(bytesToHex(rootFromPath(tree.hasher, leaf, o.position, path))).toBe(bytesToHex(tree.root()));
      // And the path is specific to this note: a neighbouring position does not verify.
      expect(bytesToHex(rootFromPath(tree.hasher, leaf, o.position ^ 1, path))).not.toBe(bytesToHex(tree.root()));
      checked++;
    }
    expect(checked).toBe(3);
    // Positions agree with ChainMetadata: the Sapling note paid first in its block sits right after the previous block's tree.
    const prev = chain.byHeight(byTx(sapling.txid).height - 1)!;
    expect(byTx(sapling.txid).position).toBeGreaterThanOrEqual(prev.trees.sapling);
  });

  it("without includeNotes no anchor or path is computed or returned", async () => {
    const chain = s.devnet.zcashChain!;
    const wallet = s.devnet.zcashWallets()[0]!;
    const before = s.devnet.lightwalletd!.requestCounts().GetTreeState ?? 0;
    const r = await s.paid("/v1/private/historical", { chain: "zcash", viewKey: wallet.ufvk, birthdayHeight: chain.blocks[0]!.height, toHeight: chain.tip().height });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.outputs).toBeUndefined();
    expect(s.devnet.lightwalletd!.requestCounts().GetTreeState ?? 0).toBe(before);
  });
});
