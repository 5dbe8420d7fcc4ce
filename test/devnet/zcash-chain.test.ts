/**
 * The devnet's Zcash chain through its real servers on loopback (the zebrad
 * JSON-RPC simulator with its controls, the lightwalletd gRPC simulator on the
 * same chain): the chain opens before NU6.3 and is mined across it, so
 * Orchard and Ironwood are both exercised. Invariants (hashes chain, tree
 * sizes, ZIP 244 txids, value pools), payments to every pool with and without
 * memo, to a diversified and to a change address, decryption by the right
 * wallet only, reorgs, spends through nullifiers, the CLI controls and
 * `vigil zcash scan-tx` on a devnet transaction of each pool.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { runZcashCli } from "../../src/chains/zcash/cli.js";
import { bytesToHex } from "../../src/chains/zcash/bytes.js";
import type { CompactBlock } from "../../src/chains/zcash/compact.js";
import { jubjubMul, saplingDiversifyHash } from "../../src/chains/zcash/jubjub.js";
import { createLightwalletd, type Lightwalletd } from "../../src/chains/zcash/lightwalletd.js";
import { decryptTransaction, saplingNoteCommit, scanKeysFromUfvk } from "../../src/chains/zcash/note-decrypt.js";
import { saplingNullifier } from "../../src/chains/zcash/nullifier.js";
import { prfExpand, toScalarSapling } from "../../src/chains/zcash/prf.js";
import { scanTransaction } from "../../src/chains/zcash/scan-tx.js";
import { parseTransaction } from "../../src/chains/zcash/tx-parse.js";
import { transactionId } from "../../src/chains/zcash/txid.js";
import { createZebrad, ZCASH_POOLS, type Zebrad } from "../../src/chains/zcash/zebrad.js";
import { decodeUfvk, decodeUnifiedAddress, encodeUnifiedAddress } from "../../src/chains/zcash/zip316.js";
import { runDevnetCli } from "../../devnet/cli.js";
import { startDevnetLightwalletd, type DevnetLightwalletd } from "../../devnet/lightwalletd.js";
import { DEVNET_ZCASH_LOCKBOX_SHARE, DEVNET_ZCASH_NU63_HEIGHT, DEVNET_ZCASH_SUBSIDY, type DevnetZcashTx } from "../../devnet/zcash-chain.js";
import type { DevnetZcashWallet } from "../../devnet/zcash-wallets.js";
import { startDevnetZebrad, type DevnetZebrad } from "../../devnet/zebrad.js";
import { runOnStreams } from "../helpers/cli-streams.js";

let zebrad: DevnetZebrad;
let lwd: DevnetLightwalletd;
let light: Lightwalletd;
let rpc: Zebrad;
let alice: DevnetZcashWallet;
let bob: DevnetZcashWallet;
let carol: DevnetZcashWallet;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-zcash-devnet-"));

const keysOf = (w: DevnetZcashWallet) => scanKeysFromUfvk(decodeUfvk(w.ufvk, "testnet"));
const protocol = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex")).reverse();
const display = (b: Uint8Array) => bytesToHex(Uint8Array.from(b).reverse());

async function post(p: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(new URL(p, zebrad.url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

/** Mines one block and returns the mined transaction and its height. */
function mined(txid: string): { tx: DevnetZcashTx; height: number } {
  const f = zebrad.chain.findTx(txid);
  if (!f?.block) throw new Error(`${txid} not mined`);
  return { tx: f.tx, height: f.block.height };
}

async function compactAt(height: number): Promise<CompactBlock> {
  for await (const b of light.blockRange(height, height, ["transparent", "sapling", "orchard", "ironwood"])) return b;
  throw new Error("no block");
}

beforeAll(async () => {
  // Three blocks: the tip is before NU6.3, so Orchard payments can be made first.
  zebrad = await startDevnetZebrad({ blockSeconds: 0, initialBlocks: 3 });
  lwd = await startDevnetLightwalletd({ chain: zebrad.chain });
  light = createLightwalletd({ url: lwd.url, network: "testnet" });
  rpc = createZebrad({ url: zebrad.url, network: "testnet", backoffMs: 1 });
  [alice, bob, carol] = zebrad.wallets() as [DevnetZcashWallet, DevnetZcashWallet, DevnetZcashWallet];
});

afterAll(async () => {
  light.close();
  await rpc.close();
  await lwd.close();
  await zebrad.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Every block: pools move by its transactions' deltas (plus the lockbox share), the supply by the subsidy, fees return in the coinbase. */
function checkPools(): void {
  const blocks = zebrad.chain.blocks;
  for (let i = 1; i < blocks.length; i++) {
    const a = blocks[i - 1]!;
    const b = blocks[i]!;
    for (const p of ZCASH_POOLS) {
      const fromTxs = b.txs.reduce((s, t) => s + (t.deltas[p] ?? 0n), 0n) + (p === "lockbox" ? DEVNET_ZCASH_LOCKBOX_SHARE : 0n);
      expect(b.pools[p] - a.pools[p]).toBe(fromTxs);
      expect(b.deltas[p]).toBe(fromTxs);
    }
    const total = (x: typeof a) => ZCASH_POOLS.reduce((s, p) => s + x.pools[p], 0n);
    expect(total(b) - total(a)).toBe(DEVNET_ZCASH_SUBSIDY);
    if (b.height < DEVNET_ZCASH_NU63_HEIGHT) expect(b.pools.ironwood).toBe(0n);
    // Fees leave with the payments and come back in the coinbase.
    const fees = b.txs.reduce((s, t) => s + t.fee, 0n);
    expect(b.txs[0]!.parsed.vout[0]!.value).toBe(DEVNET_ZCASH_SUBSIDY - DEVNET_ZCASH_LOCKBOX_SHARE + fees);
  }
}

const state: { orchardTx?: string; ironwoodTx?: string; saplingTx?: string; transparentTx?: string } = {};

describe("payments across NU6.3", () => {
  it("before NU6.3: a unified address gets an Orchard note (lead 0x02, v5) that only its wallet decrypts", () => {
    expect(zebrad.chain.nextHeight()).toBeLessThan(DEVNET_ZCASH_NU63_HEIGHT);
    const r = zebrad.chain.send(alice.address, 250_000n, "before the upgrade");
    expect(r.pool).toBe("orchard");
    zebrad.mine(1);
    const { tx, height } = mined(r.txid);
    expect(tx.parsed.version).toBe(5);
    const notes = decryptTransaction(tx.parsed, keysOf(alice), height);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ pool: "orchard", leadByte: 0x02, value: 250_000n, scope: "external", diversifierIndex: BigInt(alice.diversifierIndex) });
    expect(new TextDecoder().decode(notes[0]!.memo!).replace(/\0+$/, "")).toBe("before the upgrade");
    expect(decryptTransaction(tx.parsed, keysOf(bob), height)).toEqual([]);
    state.orchardTx = r.txid;
  });

  it("from NU6.3: the same address gets an Ironwood note (lead 0x03, v6); no memo reads as empty", () => {
    zebrad.mine(DEVNET_ZCASH_NU63_HEIGHT - zebrad.chain.tip().height);
    expect(zebrad.chain.tip().height).toBe(DEVNET_ZCASH_NU63_HEIGHT);
    const r = zebrad.chain.send(alice.address, 400_000n);
    expect(r.pool).toBe("ironwood");
    zebrad.mine(1);
    const { tx, height } = mined(r.txid);
    expect(tx.parsed.version).toBe(6);
    const [note] = scanTransaction(tx.parsed, decodeUfvk(alice.ufvk, "testnet"), { height });
    expect(note).toMatchObject({ pool: "ironwood", value: 400_000n, memo: null, scope: "external" });
    expect(decryptTransaction(tx.parsed, keysOf(bob), height)).toEqual([]);
    expect(decryptTransaction(tx.parsed, keysOf(carol), height)).toEqual([]);
    state.ironwoodTx = r.txid;
  });

  it("a Sapling address and a Sapling-only unified address get Sapling notes; memos round-trip", () => {
    const a = zebrad.chain.send(bob.saplingAddress, 31_000n, "sapling memo ✓");
    const ua = decodeUnifiedAddress(carol.address, "testnet");
    const saplingOnly = encodeUnifiedAddress("testnet", { sapling: ua.sapling });
    const b = zebrad.chain.send(saplingOnly, 32_000n);
    expect([a.pool, b.pool]).toEqual(["sapling", "sapling"]);
    zebrad.mine(1);
    const ta = mined(a.txid);
    const [na] = scanTransaction(ta.tx.parsed, decodeUfvk(bob.ufvk, "testnet"), { height: ta.height });
    expect(na).toMatchObject({ pool: "sapling", value: 31_000n, memo: { text: "sapling memo ✓" }, scope: "external" });
    expect(decryptTransaction(ta.tx.parsed, keysOf(alice), ta.height)).toEqual([]);
    const tb = mined(b.txid);
    const [nb] = scanTransaction(tb.tx.parsed, decodeUfvk(carol.ufvk, "testnet"), { height: tb.height });
    expect(nb).toMatchObject({ pool: "sapling", value: 32_000n, memo: null });
    state.saplingTx = a.txid;
  });

  it("a t-address gets a transparent P2PKH output; a memo to it is refused", () => {
    expect(() => zebrad.chain.send(carol.transparentAddress, 1n, "no")).toThrow(/memo/);
    const r = zebrad.chain.send(carol.transparentAddress, 77_000n);
    expect(r.pool).toBe("transparent");
    zebrad.mine(1);
    const { tx, height } = mined(r.txid);
    const notes = scanTransaction(tx.parsed, decodeUfvk(carol.ufvk, "testnet"), { height });
    expect(notes).toEqual([expect.objectContaining({ pool: "transparent", value: 77_000n, scope: "external", diversifierIndex: BigInt(carol.diversifierIndex) })]);
    state.transparentTx = r.txid;
  });

  it("a diversified address and the internal (change) address are found with their index and scope", () => {
    const d = zebrad.chain.send(bob.diversifiedAddress.address, 5_000n, "div");
    const c = zebrad.chain.send(bob.changeAddress, 6_000n, "change");
    zebrad.mine(1);
    const nd = scanTransaction(mined(d.txid).tx.parsed, decodeUfvk(bob.ufvk, "testnet"))[0]!;
    expect(nd).toMatchObject({ pool: "ironwood", scope: "external", diversifierIndex: BigInt(bob.diversifiedAddress.index), memo: { text: "div" } });
    const nc = scanTransaction(mined(c.txid).tx.parsed, decodeUfvk(bob.ufvk, "testnet"))[0]!;
    expect(nc).toMatchObject({ pool: "ironwood", scope: "internal", value: 6_000n, memo: { text: "change" } });
  });

  it("bad sends are refused: mainnet address, zero amount, memo over 512 bytes", () => {
    expect(() => zebrad.chain.send("t1VpYecBW4UudbGcy4ufh61eWxQCoFaUrPs", 1n)).toThrow();
    expect(() => zebrad.chain.send(alice.address, 0n)).toThrow(/amount/);
    expect(() => zebrad.chain.send(alice.address, 1n, "x".repeat(513))).toThrow(/512/);
  });
});

describe("chain invariants", () => {
  it("hashes chain, versions follow NU6.3, txids recompute per ZIP 244, tree sizes grow by the outputs", async () => {
    const blocks = zebrad.chain.blocks;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      if (i > 0) {
        expect(b.previousHash).toBe(blocks[i - 1]!.hash);
        const p = blocks[i - 1]!.trees;
        const sum = (f: (t: DevnetZcashTx) => number) => b.txs.reduce((s, t) => s + f(t), 0);
        expect(b.trees.sapling - p.sapling).toBe(sum((t) => t.parsed.sapling.outputs.length));
        expect(b.trees.orchard - p.orchard).toBe(sum((t) => t.parsed.orchard?.actions.length ?? 0));
        expect(b.trees.ironwood - p.ironwood).toBe(sum((t) => t.parsed.ironwood?.actions.length ?? 0));
      }
      for (const t of b.txs) {
        const parsed = parseTransaction(t.raw);
        expect(transactionId(parsed)).toBe(t.txid);
        expect(parsed.version).toBe(b.height >= DEVNET_ZCASH_NU63_HEIGHT ? 6 : 5);
        expect(parsed.consensusBranchId).toBe(b.height >= DEVNET_ZCASH_NU63_HEIGHT ? 0x37a5165b : 0x5437f330);
      }
    }
    // The compact blocks carry the same hashes and tree sizes.
    const tip = zebrad.chain.tip();
    let prev: CompactBlock | undefined;
    for await (const c of light.blockRange(blocks[0]!.height, tip.height)) {
      const b = zebrad.chain.byHeight(c.height)!;
      expect(display(c.hash)).toBe(b.hash);
      if (prev) {
        expect(bytesToHex(c.prevHash)).toBe(bytesToHex(prev.hash));
        const outs = c.vtx.reduce((s, t) => s + t.outputs.length, 0);
        expect(c.chainMetadata.saplingCommitmentTreeSize - prev.chainMetadata.saplingCommitmentTreeSize).toBe(outs);
        expect(c.chainMetadata.ironwoodCommitmentTreeSize - prev.chainMetadata.ironwoodCommitmentTreeSize).toBe(c.vtx.reduce((s, t) => s + t.ironwoodActions.length, 0));
      }
      prev = c;
    }
  });

  it("value pools move by the transactions' deltas; the supply grows by the subsidy; Ironwood is empty before NU6.3", () => {
    checkPools();
  });

  it("every shielded devnet payment decrypts with exactly one wallet's keys: its recipient's", () => {
    const keys = [alice, bob, carol].map(keysOf);
    let payments = 0;
    for (const b of zebrad.chain.blocks)
      for (const t of b.txs) {
        if (t.kind !== "payment" || t.parsed.vout.length > 0) continue;
        payments++;
        const finders = keys.filter((k) => decryptTransaction(t.parsed, k, b.height).length > 0);
        expect(finders).toHaveLength(1);
      }
    expect(payments).toBeGreaterThanOrEqual(6);
    // Background traffic pays throwaway keys: no wallet finds anything in it.
    const background = zebrad.chain.blocks.flatMap((b) => b.txs.filter((t) => t.kind === "background").map((t) => ({ t, h: b.height }))).slice(0, 5);
    for (const { t, h } of background) for (const k of keys) expect(decryptTransaction(t.parsed, k, h)).toEqual([]);
  });

  it("zebrad and lightwalletd serve the same chain: tip, block contents, raw transactions, mempool", async () => {
    const info = await rpc.getBlockchainInfo();
    const latest = await light.latestBlock();
    expect(display(latest.hash)).toBe(info.bestBlockHash);
    const block = await rpc.getBlock(info.blocks);
    const compact = await light.block(info.blocks);
    expect(compact.vtx.map((t) => display(t.txid))).toEqual(block.txids);
    for (const txid of block.txids) {
      const hex = await rpc["call"]("getrawtransaction", [txid, 0], (x: unknown) => x as string);
      const raw = await light.transaction(protocol(txid));
      expect(bytesToHex(raw.data)).toBe(hex);
    }
    zebrad.chain.send(alice.address, 1_234n);
    const pool = await rpc.getRawMempool();
    const compactPool = await light.mempool(["transparent", "sapling", "orchard", "ironwood"]);
    expect(compactPool.map((t) => display(t.txid)).sort()).toEqual([...pool].sort());
  });
});

describe("reorgs", () => {
  it("a reorg replaces the blocks; their payments are dropped, or kept unless listed", async () => {
    zebrad.mine(1);
    const a = zebrad.chain.send(alice.address, 11_000n, "doomed");
    const b = zebrad.chain.send(bob.address, 12_000n, "survives");
    zebrad.mine(1);
    const height = zebrad.chain.tip().height;
    const oldHash = zebrad.chain.tip().hash;
    const r = zebrad.chain.reorg(1, [a.txid]);
    expect(r.dropped).toEqual([a.txid]);
    expect(zebrad.chain.tip().height).toBe(height);
    expect(zebrad.chain.tip().hash).not.toBe(oldHash);
    expect(mined(b.txid).height).toBe(height);
    expect(zebrad.chain.findTx(a.txid)?.orphaned).toBe(true);
    expect((await light.transaction(protocol(a.txid))).height).toBeNull();
    const c = await compactAt(height);
    expect(c.vtx.map((t) => display(t.txid))).not.toContain(a.txid);
    // Without a list, every payment of the replaced blocks goes.
    const d = zebrad.chain.send(carol.address, 13_000n);
    zebrad.mine(2);
    const all = zebrad.chain.reorg(2);
    expect(all.dropped).toContain(d.txid);
    expect(zebrad.chain.findTx(d.txid)?.orphaned).toBe(true);
    // The replacement blocks keep every invariant, and the hashes still chain.
    checkPools();
    for (let i = 1; i < zebrad.chain.blocks.length; i++) expect(zebrad.chain.blocks[i]!.previousHash).toBe(zebrad.chain.blocks[i - 1]!.hash);
    expect(() => zebrad.chain.reorg(0)).toThrow(/depth/);
  });

  it("POST /devnet/zcash/reorg drops the listed transaction", async () => {
    const s = await post("/devnet/zcash/send", { address: alice.address, amount_zatoshi: "15000" });
    expect(s.status).toBe(200);
    await post("/devnet/zcash/mine", { blocks: 1 });
    const r = await post("/devnet/zcash/reorg", { depth: 1, drop_txids: [s.json.txid] });
    expect(r.status).toBe(200);
    expect(r.json.dropped).toEqual([s.json.txid]);
  });
});

describe("spends", () => {
  it("Orchard (pre-NU6.3 note) and Ironwood spends reveal the note's nullifier in its own pool", async () => {
    for (const [txid, pool] of [
      [state.orchardTx!, "orchard"],
      [state.ironwoodTx!, "ironwood"],
    ] as const) {
      const { tx, height } = mined(txid);
      const [note] = scanTransaction(tx.parsed, decodeUfvk(alice.ufvk, "testnet"), { height });
      const s = await post("/devnet/zcash/spend", { wallet: "alice", txid });
      expect(s.status).toBe(200);
      expect(s.json).toMatchObject({ pool, nullifier: bytesToHex(note!.nullifier!) });
      zebrad.mine(1);
      const c = await compactAt(mined(s.json.txid).height);
      const spendTx = c.vtx.find((t) => display(t.txid) === s.json.txid)!;
      const other = pool === "orchard" ? spendTx.ironwoodActions : spendTx.actions;
      const own = pool === "orchard" ? spendTx.actions : spendTx.ironwoodActions;
      expect(own.map((a) => bytesToHex(a.nullifier))).toContain(s.json.nullifier);
      expect(other.map((a) => bytesToHex(a.nullifier))).not.toContain(s.json.nullifier);
      const again = await post("/devnet/zcash/spend", { wallet: "alice", txid });
      expect(again).toMatchObject({ status: 400, json: { error: { code: "note_spent" } } });
    }
  });

  it("a Sapling spend's nullifier comes from nk and the note's tree position (recomputed from the compact blocks)", async () => {
    const { tx, height } = mined(state.saplingTx!);
    const ufvk = decodeUfvk(bob.ufvk, "testnet");
    const [note] = decryptTransaction(tx.parsed, scanKeysFromUfvk(ufvk), height);
    const block = await compactAt(height);
    const before = (await compactAt(height - 1)).chainMetadata.saplingCommitmentTreeSize;
    const cmuHex = bytesToHex(tx.parsed.sapling.outputs[note!.outputIndex]!.cmu);
    const pos = before + block.vtx.flatMap((t) => t.outputs).findIndex((o) => bytesToHex(o.cmu) === cmuHex);
    const gd = saplingDiversifyHash(note!.diversifier)!;
    const ivk = scanKeysFromUfvk(ufvk).sapling[0]!.ivk;
    const cm = saplingNoteCommit(gd, jubjubMul(gd, ivk), note!.value, toScalarSapling(prfExpand(note!.rseed, Uint8Array.of(0x04))));
    const expected = bytesToHex(saplingNullifier(ufvk.sapling!.nk, cm, BigInt(pos)));
    const s = await post("/devnet/zcash/spend", { wallet: "bob", txid: state.saplingTx, pool: "sapling" });
    expect(s.json.nullifier).toBe(expected);
    zebrad.mine(1);
    const c = await compactAt(mined(s.json.txid).height);
    expect(c.vtx.flatMap((t) => t.spends).map((x) => bytesToHex(x.nf))).toContain(expected);
  });

  it("spend requests are checked: unknown wallet, a transaction paying the wallet nothing", async () => {
    expect((await post("/devnet/zcash/spend", { wallet: "mallory", txid: state.saplingTx })).json.error.code).toBe("unknown_wallet");
    expect((await post("/devnet/zcash/spend", { wallet: "carol", txid: state.ironwoodTx })).json.error.code).toBe("note_not_found");
  });
});

describe("controls and CLIs", () => {
  it("GET /devnet/zcash/wallets lists the ready wallets; POST send refuses a bad address with a 400", async () => {
    const w = (await (await fetch(new URL("/devnet/zcash/wallets", zebrad.url))).json()) as { wallets: DevnetZcashWallet[] };
    expect(w.wallets.map((x) => x.label)).toEqual(["alice", "bob", "carol"]);
    for (const x of w.wallets) {
      expect(x.address).toMatch(/^utest1/);
      expect(x.ufvk).toMatch(/^uviewtest1/);
      expect(x.mnemonic.split(" ")).toHaveLength(24);
    }
    const bad = await post("/devnet/zcash/send", { address: "nonsense", amount_zatoshi: "5" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_address");
  });

  it("`vigil devnet send zcash … --memo` and `mine zcash` against the running simulator", async () => {
    const config = () => loadConfig({ DATA_DIR: dataDir, DEVNET: "off", LOG_LEVEL: "silent" });
    const sent = await runOnStreams((io) => runDevnetCli(["send", "zcash", carol.address, "0.015", "--memo", "from the CLI", "--devnet", zebrad.url], io, config));
    expect(sent.code).toBe(0);
    const r = JSON.parse(sent.out);
    expect(r).toMatchObject({ pool: "ironwood", amount_zatoshi: "1500000" });
    const mine = await runOnStreams((io) => runDevnetCli(["mine", "zcash", "1", "--devnet", zebrad.url], io, config));
    expect(mine.code).toBe(0);
    const { tx, height } = mined(r.txid);
    expect(scanTransaction(tx.parsed, decodeUfvk(carol.ufvk, "testnet"), { height })[0]).toMatchObject({ memo: { text: "from the CLI" }, value: 1_500_000n });
  });

  it("`vigil zcash scan-tx` finds the devnet payment of each pool", async () => {
    const cases = [
      [state.orchardTx!, alice, "orchard", "before the upgrade"],
      [state.ironwoodTx!, alice, "ironwood", null],
      [state.saplingTx!, bob, "sapling", "sapling memo ✓"],
      [state.transparentTx!, carol, "transparent", null],
    ] as const;
    for (const [txid, w, pool, memo] of cases) {
      const { tx, height } = mined(txid);
      const r = await runOnStreams((io) => runZcashCli(["scan-tx"], io), JSON.stringify({ hex: bytesToHex(tx.raw), ufvk: w.ufvk, height }));
      expect(r.code).toBe(0);
      const out = JSON.parse(r.out);
      expect(out.txid).toBe(txid);
      expect(out.notes).toHaveLength(1);
      expect(out.notes[0]).toMatchObject({ pool, memo: memo === null ? null : { text: memo } });
      const other = await runOnStreams((io) => runZcashCli(["scan-tx"], io), JSON.stringify({ hex: bytesToHex(tx.raw), ufvk: w === bob ? alice.ufvk : bob.ufvk, height }));
      expect(JSON.parse(other.out).notes).toEqual([]);
    }
  });
});
