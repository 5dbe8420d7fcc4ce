/**
 * The Zcash scanner (engine + ChainScanner) against compact blocks built from
 * real note ciphertexts (sender.ts), served by an in-test CompactBlockSource.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bech32Encode } from "../../../src/chains/zcash/bech32.js";
import { describeAccountKeys } from "../../../src/chains/zcash/derive.js";
import { jubjubFromBytes, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import { NETWORKS } from "../../../src/chains/zcash/network.js";
import { encodeTextMemo, saplingNoteCommit } from "../../../src/chains/zcash/note-decrypt.js";
import { saplingNullifier } from "../../../src/chains/zcash/nullifier.js";
import { orchardAddressAt, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { prfExpand, toScalarSapling } from "../../../src/chains/zcash/prf.js";
import { saplingAddressAt, saplingFirstValidIndex, saplingInternalDfvk } from "../../../src/chains/zcash/sapling-keys.js";
import { scanTransaction } from "../../../src/chains/zcash/scan-tx.js";
import { createZcashScanner, ZCASH_MAINNET_DEFAULT_START, type ZcashScannerOptions } from "../../../src/chains/zcash/scanner.js";
import type { ScanState, WatchScanOutput } from "../../../src/chains/scanner.js";
import { p2pkhHashAt } from "../../../src/chains/zcash/transparent.js";
import { parseTransaction } from "../../../src/chains/zcash/tx-parse.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUfvk, encodeUfvk, encodeUnifiedAddress } from "../../../src/chains/zcash/zip316.js";
import type { CompactBlock } from "../../../src/chains/zcash/compact.js";
import { makeTx, TestCompactChain } from "./compact-chain.js";
import { serviceError } from "./helpers.js";
import { encryptAction, encryptSapling, p2pkhScript } from "./sender.js";

const NET = "regtest" as const;
const seedOf = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + n) & 0xff);

function wallet(n: number) {
  const acct = deriveAccountViewingKeys(seedOf(n), NET, 0);
  const d = describeAccountKeys(acct);
  const orchardExt = orchardIvkParts(acct.orchard, "external")!;
  const orchardInt = orchardIvkParts(acct.orchard, "internal")!;
  const saplingInt = saplingInternalDfvk(acct.sapling);
  return {
    acct,
    ufvk: d.ufvk,
    address: d.defaultAddress,
    defaultIndex: BigInt(d.diversifierIndex),
    sapling: (j = BigInt(d.diversifierIndex)) => saplingAddressAt(acct.sapling, saplingFirstValidIndex(acct.sapling.dk, j).index)!,
    saplingIndex: (j: bigint) => saplingFirstValidIndex(acct.sapling.dk, j).index,
    saplingInternal: () => saplingAddressAt(saplingInt, saplingFirstValidIndex(saplingInt.dk).index)!,
    orchard: (j = BigInt(d.diversifierIndex)) => orchardAddressAt(orchardExt, j),
    orchardInternal: () => orchardAddressAt(orchardInt, 0n),
    p2pkh: (i: number) => p2pkhHashAt(acct.transparent, 0, i)!,
  };
}

const alice = wallet(1);
const bob = wallet(2);
const text = (s: string) => encodeTextMemo(s);
const EMPTY = encodeTextMemo("");

/** A watch as the watch module keeps it between ticks (state through JSON, like the database). */
class Watches {
  readonly rows = new Map<string, { address: string; viewKey: string; startHeight: number; state: ScanState | null }>();
  constructor(readonly scanner: ReturnType<typeof createZcashScanner>) {}
  add(id: string, address: string, viewKey: string, startHeight: number) {
    this.rows.set(id, { address, viewKey, startHeight, state: null });
  }
  async tick(): Promise<Map<string, WatchScanOutput>> {
    const inputs = [...this.rows].map(([watchId, r]) => ({ watchId, address: r.address, viewKey: r.viewKey, state: r.state, startHeight: r.startHeight }));
    const out = await this.scanner.scanWatches(inputs);
    const res = new Map<string, WatchScanOutput>();
    for (const o of out) {
      this.rows.get(o.watchId)!.state = JSON.parse(JSON.stringify(o.state)) as ScanState;
      res.set(o.watchId, o);
    }
    return res;
  }
}

function setup(opts: Partial<ZcashScannerOptions> = {}, base = 1000) {
  const chain = new TestCompactChain(base);
  const scanner = createZcashScanner({ source: chain, network: NET, confirmations: 2, ...opts });
  return { chain, scanner, watches: new Watches(scanner) };
}

const snap = (o: WatchScanOutput | undefined) => o!.snapshot as unknown as Record<string, unknown> & { pools: Record<string, { balanceAtomic: string; pendingAtomic: string }>; outputs: Record<string, unknown>[] };

describe("Zcash scanner: receiving", () => {
  it("finds a note in each pool, with and without memo, and reads the memo from the full transaction", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    await watches.tick();
    const tx1 = makeTx({
      sapling: [encryptSapling(bob.sapling(), 5n, EMPTY), encryptSapling(alice.sapling(), 1_000n, text("sapling hello"))],
      orchard: [encryptAction(alice.orchard(), 2_000n, EMPTY, 0x02)],
      ironwood: [encryptAction(alice.orchard(), 3_000n, text("ironwood ✓"), 0x03)],
    });
    const tx2 = makeTx({ sapling: [encryptSapling(alice.sapling(), 10n, EMPTY)], orchard: [encryptAction(alice.orchard(), 20n, text("orchard memo"), 0x02)] });
    chain.mine([tx1, tx2]);
    let r = (await watches.tick()).get("a")!;
    const seen = r.outputs.map((o) => [o.index, o.amountAtomic, o.memo ?? null]).sort((x, y) => Number(x[1]) - Number(y[1]));
    expect(seen).toEqual([
      ["sapling:0", "10", null],
      ["orchard:0", "20", "orchard memo"],
      ["sapling:1", "1000", "sapling hello"],
      ["orchard:0", "2000", null],
      ["ironwood:0", "3000", "ironwood ✓"],
    ]);
    // Not yet 2 confirmations: all pending.
    expect(snap(r)).toMatchObject({ balanceAtomic: "0", pendingAtomic: "6030", receivedAtomic: "6030", spentAtomic: "0" });
    chain.mineEmpty(1);
    r = (await watches.tick()).get("a")!;
    const s = snap(r);
    expect(s).toMatchObject({ balanceAtomic: "6030", pendingAtomic: "0", confirmationsRequired: 2, scannedHeight: chain.tip });
    expect(s.pools).toEqual({
      transparent: { balanceAtomic: "0", pendingAtomic: "0" },
      sapling: { balanceAtomic: "1010", pendingAtomic: "0" },
      orchard: { balanceAtomic: "2020", pendingAtomic: "0" },
      ironwood: { balanceAtomic: "3000", pendingAtomic: "0" },
    });
    const memos = s.outputs.map((o) => o.memo);
    expect(memos).toContainEqual({ text: "sapling hello" });
    expect(memos).toContainEqual({ text: "ironwood ✓" });
    expect(r.outputs.every((o) => o.diversifierIndex === Number(alice.defaultIndex) || o.index.startsWith("sapling"))).toBe(true);
    expect(r.outputs.every((o) => o.confirmations === 2 && o.height === chain.tip - 1)).toBe(true);
  });

  it("reports the diversifier index of a non-default address and finds internal (change) notes", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const j = alice.saplingIndex(1000n);
    chain.mine([
      makeTx({
        sapling: [encryptSapling(alice.sapling(1000n), 7n, EMPTY), encryptSapling(alice.saplingInternal(), 8n, EMPTY)],
        orchard: [encryptAction(alice.orchard(123_456n), 9n, EMPTY, 0x02), encryptAction(alice.orchardInternal(), 11n, EMPTY, 0x02)],
      }),
    ]);
    const r = (await watches.tick()).get("a")!;
    const byIndex = new Map(r.outputs.map((o) => [o.index, o]));
    expect(byIndex.get("sapling:0")).toMatchObject({ amountAtomic: "7", diversifierIndex: Number(j) });
    expect(byIndex.get("sapling:1")).toMatchObject({ amountAtomic: "8" });
    expect(byIndex.get("orchard:0")).toMatchObject({ amountAtomic: "9", diversifierIndex: 123_456 });
    expect(byIndex.get("orchard:1")).toMatchObject({ amountAtomic: "11" });
    const state = watches.rows.get("a")!.state as unknown as { notes: { index: number; pool: string; scope: string }[] };
    expect(state.notes.filter((n) => n.scope === "internal").map((n) => `${n.pool}:${n.index}`).sort()).toEqual(["orchard:1", "sapling:1"]);
  });

  it("a wrong key finds nothing; a tampered ciphertext or commitment counts nothing", async () => {
    const { chain, watches } = setup();
    watches.add("b", bob.address, bob.ufvk, chain.tip + 1);
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const good = makeTx({ sapling: [encryptSapling(alice.sapling(), 100n, EMPTY)], orchard: [encryptAction(alice.orchard(), 200n, EMPTY, 0x02)], ironwood: [encryptAction(alice.orchard(), 300n, EMPTY, 0x03)] });
    const tampered = makeTx({ sapling: [encryptSapling(alice.sapling(), 1n, EMPTY), encryptSapling(alice.sapling(), 2n, EMPTY)], orchard: [encryptAction(alice.orchard(), 3n, EMPTY, 0x02), encryptAction(alice.orchard(), 4n, EMPTY, 0x02)], ironwood: [encryptAction(alice.orchard(), 5n, EMPTY, 0x03)] });
    tampered.compact.outputs[0]!.ciphertext[20] ^= 1; // value/rseed bytes change: the commitment no longer matches
    tampered.compact.outputs[1]!.cmu[3] ^= 1;
    tampered.compact.actions[0]!.ciphertext[15] ^= 1;
    tampered.compact.actions[1]!.cmx[0] ^= 1;
    tampered.compact.ironwoodActions[0]!.ciphertext[0] ^= 1; // lead byte no longer 0x03
    chain.mine([good, tampered]);
    const r = await watches.tick();
    expect(r.get("b")!.outputs).toEqual([]);
    expect(snap(r.get("b"))).toMatchObject({ balanceAtomic: "0", pendingAtomic: "0", receivedAtomic: "0" });
    expect(r.get("a")!.outputs.map((o) => o.amountAtomic).sort()).toEqual(["100", "200", "300"]);
  });

  it("an Orchard-protocol note in the wrong pool (lead byte 0x02 in Ironwood, 0x03 in Orchard) counts nothing", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 1n, EMPTY, 0x03)], ironwood: [encryptAction(alice.orchard(), 2n, EMPTY, 0x02)] })]);
    expect((await watches.tick()).get("a")!.outputs).toEqual([]);
  });

  it("a UFVK with only Sapling scans Sapling only", async () => {
    const { chain, watches } = setup();
    const saplingOnly = encodeUfvk(NET, { sapling: alice.acct.sapling });
    const zaddr = bech32Encode(NETWORKS[NET].saplingAddressHrp, alice.sapling());
    expect(watches.scanner.validateWatchKey(zaddr, saplingOnly)).toMatchObject({ chain: "zcash", network: NET });
    watches.add("s", zaddr, saplingOnly, chain.tip + 1);
    chain.mine([makeTx({ sapling: [encryptSapling(alice.sapling(), 40n, EMPTY)], orchard: [encryptAction(alice.orchard(), 50n, EMPTY, 0x02)], vout: [{ value: 60n, script: p2pkhScript(alice.p2pkh(0)) }] })]);
    const r = (await watches.tick()).get("s")!;
    expect(r.outputs.map((o) => [o.index, o.amountAtomic])).toEqual([["sapling:0", "40"]]);
  });
});

describe("Zcash scanner: spends", () => {
  it("a Sapling spend seen through its nullifier (nk and the note's tree position) lowers the balance", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const addr = alice.sapling();
    const rseed = Uint8Array.from({ length: 32 }, (_, i) => i + 3);
    const value = 777n;
    // Other outputs before ours in the block, so the position is not the block's first.
    const filler = makeTx({ sapling: [encryptSapling(bob.sapling(), 1n, EMPTY), encryptSapling(bob.sapling(), 2n, EMPTY)] });
    const pay = makeTx({ sapling: [encryptSapling(bob.sapling(), 3n, EMPTY), encryptSapling(addr, value, EMPTY, rseed)] });
    const block = chain.mine([filler, pay]);
    chain.mineEmpty(2);
    let r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "777", spentAtomic: "0" });
    // The nullifier the wallet would reveal, computed from the sender's side.
    const gd = saplingDiversifyHash(addr.slice(0, 11))!;
    const cm = saplingNoteCommit(gd, jubjubFromBytes(addr.slice(11))!, value, toScalarSapling(prfExpand(rseed, Uint8Array.of(0x04))));
    const position = BigInt(chain.saplingSizeBefore(block.height) + 3);
    const nf = saplingNullifier(alice.acct.sapling.nk, cm, position);
    const wrongPosition = saplingNullifier(alice.acct.sapling.nk, cm, position + 1n);
    chain.mine([makeTx({ spends: { sapling: [wrongPosition], orchard: [nf], ironwood: [nf] } })]);
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "777", spentAtomic: "0" }); // other pools' sets, wrong position: not a spend
    chain.mine([makeTx({ spends: { sapling: [nf] } })]);
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "0", pendingAtomic: "0", receivedAtomic: "777", spentAtomic: "777" });
    expect(snap(r).outputs[0]).toMatchObject({ spent: true, index: "sapling:1" });
    // Still listed (the watch module must not think it reorged away).
    expect(r.outputs.map((o) => o.index)).toEqual(["sapling:1"]);
  });

  it("Orchard and Ironwood spends are looked for in their own pool only", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const pay = makeTx({ orchard: [encryptAction(alice.orchard(), 100n, EMPTY, 0x02)], ironwood: [encryptAction(alice.orchard(), 1000n, EMPTY, 0x03)] });
    chain.mine([pay]);
    chain.mineEmpty(1);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "1100" });
    // The nullifiers through the independent whole-transaction path (scan-tx).
    const notes = scanTransaction(parseTransaction(pay.raw), decodeUfvk(alice.ufvk));
    const orchardNf = notes.find((n) => n.pool === "orchard")!.nullifier!;
    const ironwoodNf = notes.find((n) => n.pool === "ironwood")!.nullifier!;
    // The Orchard note's nullifier revealed in the Ironwood pool does not spend it (nor the Ironwood note).
    chain.mine([makeTx({ spends: { ironwood: [orchardNf], sapling: [ironwoodNf] } })]);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "1100", spentAtomic: "0" });
    chain.mine([makeTx({ spends: { orchard: [orchardNf] } })]);
    let s = snap((await watches.tick()).get("a"));
    expect(s).toMatchObject({ balanceAtomic: "1000", spentAtomic: "100" });
    expect(s.pools.orchard).toEqual({ balanceAtomic: "0", pendingAtomic: "0" });
    chain.mine([makeTx({ spends: { ironwood: [ironwoodNf] } })]);
    s = snap((await watches.tick()).get("a"));
    expect(s).toMatchObject({ balanceAtomic: "0", spentAtomic: "1100" });
  });

  it("a note received and spent in the same block counts as received and spent", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const pay = makeTx({ orchard: [encryptAction(alice.orchard(), 55n, EMPTY, 0x02)] });
    const nf = scanTransaction(parseTransaction(pay.raw), decodeUfvk(alice.ufvk))[0]!.nullifier!;
    chain.mine([pay, makeTx({ spends: { orchard: [nf] } })]);
    chain.mineEmpty(1);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "0", receivedAtomic: "55", spentAtomic: "55" });
  });
});

describe("Zcash scanner: transparent receivers", () => {
  it("sees P2PKH payments within the gap limit, moves the window as addresses are used, and sees their spends", async () => {
    const { chain, watches } = setup({ gapLimit: 5 });
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const t = (i: number, v: bigint) => ({ value: v, script: p2pkhScript(alice.p2pkh(i)) });
    // index 7 is beyond the window (0..4) at first; after 3 is used the window is 0..8.
    const first = makeTx({ vout: [t(7, 70n), t(3, 30n)] });
    chain.mine([first]);
    chain.mine([makeTx({ vout: [t(7, 71n), { value: 1n, script: p2pkhScript(bob.p2pkh(0)) }] })]);
    chain.mineEmpty(1);
    let r = (await watches.tick()).get("a")!;
    expect(r.outputs.map((o) => [o.index, o.amountAtomic, o.diversifierIndex])).toEqual([
      ["transparent:1", "30", 3],
      ["transparent:0", "71", 7],
    ]);
    expect(snap(r).pools.transparent).toEqual({ balanceAtomic: "101", pendingAtomic: "0" });
    // Spending the outpoint (first, 1).
    chain.mine([makeTx({ spends: { vin: [{ txid: first.txid, index: 1 }, { txid: first.txid, index: 0 }] } })]);
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "71", spentAtomic: "30" });
  });
});

describe("Zcash scanner: mempool, confirmations, reorgs", () => {
  it("a mempool note is pending (with its memo), then confirmed once mined and deep enough", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    await watches.tick();
    // A pool transaction that pays someone else is not read in full.
    chain.broadcast(makeTx({ ironwood: [encryptAction(bob.orchard(), 1n, text("not yours"), 0x03)] }));
    const reads = chain.served.transactions;
    expect((await watches.tick()).get("a")!.outputs).toEqual([]);
    expect(chain.served.transactions).toBe(reads);
    chain.broadcast(makeTx({ ironwood: [encryptAction(alice.orchard(), 4_200n, text("coffee"), 0x03)] }));
    let r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "0", pendingAtomic: "4200", receivedAtomic: "0" });
    expect(r.outputs).toEqual([expect.objectContaining({ height: null, confirmations: 0, index: "ironwood:0", memo: "coffee" })]);
    expect(snap(r).pools.ironwood).toEqual({ balanceAtomic: "0", pendingAtomic: "4200" });
    chain.mine();
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "0", pendingAtomic: "4200", receivedAtomic: "4200" });
    expect(r.outputs).toEqual([expect.objectContaining({ height: chain.tip, confirmations: 1, memo: "coffee" })]);
    chain.mineEmpty(1);
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "4200", pendingAtomic: "0" });
  });

  it("a reorg removes a note and its spend: the balance goes down, and back up when re-mined", async () => {
    const { chain, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 100n, EMPTY, 0x02)] })]);
    const pay = makeTx({ sapling: [encryptSapling(alice.sapling(), 900n, EMPTY)] });
    chain.mine([pay]);
    chain.mineEmpty(2);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "1000" });
    chain.reorg(3); // the Sapling payment's block and the two after it
    chain.mineEmpty(3); // a longer replacement chain without the payment
    let r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "100", receivedAtomic: "100", scannedHeight: chain.tip });
    expect(r.outputs.map((o) => o.index)).toEqual(["orchard:0"]);
    // Same height reorg at the tip (no new block on top): detected by the tip hash.
    chain.mine([pay]);
    chain.mineEmpty(1);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "1000" });
    chain.reorg(2);
    chain.mineEmpty(2);
    r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "100", scannedHeight: chain.tip });
  });

  it("a watch none of whose stored blocks is on the chain starts over from its start height", async () => {
    const { chain, watches } = setup({ reorgWindow: 3 });
    const start = chain.tip + 1;
    watches.add("a", alice.address, alice.ufvk, start);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 5n, EMPTY, 0x02)] })]);
    chain.mineEmpty(5);
    expect(snap((await watches.tick()).get("a"))).toMatchObject({ balanceAtomic: "5" });
    chain.reorg(6);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 6n, EMPTY, 0x02)] })]);
    chain.mineEmpty(5);
    const r = (await watches.tick()).get("a")!;
    expect(snap(r)).toMatchObject({ balanceAtomic: "6", receivedAtomic: "6" });
  });
});

describe("Zcash scanner: many watches, bounded work", () => {
  it("one pass fetches each block once for all watches, and bounds the blocks per call (caughtUp)", async () => {
    const { chain, scanner, watches } = setup({ maxBlocksPerCall: 4 });
    const wallets = [alice, bob, wallet(3), wallet(4)];
    chain.mineEmpty(2);
    const txs = wallets.map((w, i) => makeTx({ orchard: [encryptAction(w.orchard(), BigInt(i + 1) * 10n, EMPTY, 0x02)] }));
    chain.mine(txs);
    chain.mineEmpty(3);
    wallets.forEach((w, i) => watches.add(`w${i}`, w.address, w.ufvk, chain.base + 1));
    let r = await watches.tick();
    expect([...r.values()].every((o) => o.caughtUp === false)).toBe(true);
    expect(chain.served.ranges).toBe(1);
    r = await watches.tick();
    expect([...r.values()].every((o) => o.caughtUp === true)).toBe(true);
    expect([...chain.served.blocks.values()].every((n) => n === 1)).toBe(true);
    wallets.forEach((_, i) => expect(snap(r.get(`w${i}`))).toMatchObject({ balanceAtomic: String((i + 1) * 10) }));
    expect(scanner.chain).toBe("zcash");
  });

  it("a watch whose key no longer decodes is reported and left out; the others are scanned", async () => {
    const errors: string[] = [];
    const { chain, watches } = setup({ onWatchError: (id) => errors.push(id) });
    watches.add("bad", alice.address, "uview1notakey", chain.tip + 1);
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    const r = await watches.tick();
    expect([...r.keys()]).toEqual(["a"]);
    expect(errors).toEqual(["bad"]);
  });

  it("malformed compact data never throws out of the scanner", async () => {
    const good = makeTx({ orchard: [encryptAction(alice.orchard(), 9n, EMPTY, 0x02)], sapling: [encryptSapling(alice.sapling(), 8n, EMPTY)] });
    const bytes = (max: number) => fc.uint8Array({ minLength: 0, maxLength: max });
    const mutate = fc.record({
      cut: fc.nat(40),
      junk: bytes(40),
      field: fc.constantFrom("cmu", "ephemeralKey", "ciphertext", "nullifier", "cmx", "nf", "script", "txid", "meta", "hash"),
    });
    await fc.assert(
      fc.asyncProperty(mutate, async (m) => {
        const chain = new TestCompactChain(1000);
        const scanner = createZcashScanner({ source: chain, network: NET, confirmations: 1 });
        const w = new Watches(scanner);
        w.add("a", alice.address, alice.ufvk, 1001);
        const tx = makeTx({ orchard: [encryptAction(alice.orchard(), 9n, EMPTY, 0x02)], sapling: [encryptSapling(alice.sapling(), 8n, EMPTY)], vout: [{ value: 3n, script: p2pkhScript(alice.p2pkh(0)) }] });
        const c = tx.compact;
        const junk = m.junk.slice(0, m.cut);
        switch (m.field) {
          case "cmu": c.outputs[0]!.cmu = junk; break;
          case "ephemeralKey": c.outputs[0]!.ephemeralKey = junk; c.actions[0]!.ephemeralKey = junk; break;
          case "ciphertext": c.outputs[0]!.ciphertext = junk; c.actions[0]!.ciphertext = junk; break;
          case "nullifier": c.actions[0]!.nullifier = junk; break;
          case "cmx": c.actions[0]!.cmx = junk; break;
          case "nf": c.spends.push({ nf: junk }); break;
          case "script": c.vout[0]!.scriptPubKey = junk; break;
          case "txid": c.txid = junk; break;
          case "meta": break;
          case "hash": break;
        }
        // The same malformed transaction also sits in the mempool (the pending path must not throw either).
        chain.broadcast(makeTx({ sapling: [encryptSapling(alice.sapling(), 1n, EMPTY)] }));
        chain.mine([tx, good]);
        chain.broadcast({ ...tx, compact: { ...tx.compact } });
        if (m.field === "meta") chain.blocks[1]!.chainMetadata = { saplingCommitmentTreeSize: m.cut - 20, orchardCommitmentTreeSize: -1, ironwoodCommitmentTreeSize: NaN };
        if (m.field === "hash") chain.mangle = (b: CompactBlock) => ({ ...b, hash: junk });
        const r = await w.tick();
        const out = r.get("a")!;
        expect(out).toBeDefined();
        // The untouched transaction is still found whenever the block itself is well-formed.
        if (m.field !== "hash") expect(out.outputs.filter((o) => o.txid === good.txidHex).map((o) => o.amountAtomic).sort()).toEqual(["8", "9"]);
      }),
      { numRuns: 25 },
    );
  });
});

describe("Zcash scanner: watch keys", () => {
  const { scanner } = setup();

  it("accepts a unified address or a Sapling address with its UFVK", () => {
    expect(scanner.validateWatchKey(alice.address, alice.ufvk)).toEqual({ chain: "zcash", address: alice.address, network: NET, keyMaterial: expect.any(String) });
    const zaddr = bech32Encode(NETWORKS[NET].saplingAddressHrp, alice.sapling());
    expect(scanner.validateWatchKey(zaddr, alice.ufvk).address).toBe(zaddr);
    const other = encodeUnifiedAddress(NET, { orchard: alice.orchard(99n), sapling: alice.sapling(500n) });
    expect(scanner.validateWatchKey(other, alice.ufvk).address).toBe(other);
  });

  it("refuses a unified address without its UFVK, a spending key, an address as key, another network", () => {
    expect(serviceError(() => scanner.validateWatchKey(bob.address, alice.ufvk))).toMatchObject({ status: 400, code: "address_not_in_ufvk" });
    expect(serviceError(() => scanner.validateWatchKey(alice.address, alice.address))).toMatchObject({ status: 400, code: "address_not_ufvk" });
    expect(serviceError(() => scanner.validateWatchKey(alice.address, ""))).toMatchObject({ status: 400, code: "invalid_view_key" });
    const saplingOnly = encodeUfvk(NET, { sapling: alice.acct.sapling });
    // The UA's Orchard receiver cannot be checked with a key that has no Orchard part.
    expect(serviceError(() => scanner.validateWatchKey(alice.address, saplingOnly))).toMatchObject({ status: 400, code: "address_not_in_ufvk" });
    const main = deriveAccountViewingKeys(seedOf(1), "mainnet", 0);
    const mainKeys = describeAccountKeys(main);
    expect(serviceError(() => scanner.validateWatchKey(mainKeys.defaultAddress, mainKeys.ufvk))).toMatchObject({ status: 400, code: "wrong_network" });
  });

  it("default start height: the contract's value on mainnet, the tip elsewhere", async () => {
    const chain = new TestCompactChain(2_000, "main");
    const mainnet = createZcashScanner({ source: chain, network: "mainnet" });
    expect(await mainnet.defaultStartHeight()).toBe(ZCASH_MAINNET_DEFAULT_START);
    expect(ZCASH_MAINNET_DEFAULT_START).toBe(3_042_000);
    const test = setup({}, 5_000);
    test.chain.mineEmpty(3);
    expect(await test.scanner.defaultStartHeight()).toBe(5_003);
  });

  it("a server on another network is refused (502 chain_network_mismatch)", async () => {
    const chain = new TestCompactChain(10, "main");
    const s = createZcashScanner({ source: chain, network: NET });
    await expect(s.scanWatches([])).rejects.toMatchObject({ status: 502, code: "chain_network_mismatch" });
  });
});


describe("Zcash scanner: keys are built only when block or mempool data needs them", () => {
  const carol = wallet(3);
  const stats = (s: ReturnType<typeof createZcashScanner>) => {
    const { ufvkDecodes, scanKeyBuilds, transparentHashes } = s.keyStats();
    return { ufvkDecodes, scanKeyBuilds, transparentHashes };
  };

  it("an idle tick (no new block, empty mempool) decodes no key, cold (after a cleared cache) or warm", async () => {
    const { chain, scanner, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    watches.add("b", bob.address, bob.ufvk, chain.tip + 1);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 700n, EMPTY, 0x02)], vout: [{ value: 9n, script: p2pkhScript(bob.p2pkh(1)) }] })]);
    const first = await watches.tick();
    // Gap limit 20 for each; bob's used index 1 moves his window to 0…21.
    expect(stats(scanner)).toEqual({ ufvkDecodes: 2, scanKeyBuilds: 2, transparentHashes: 42 });
    const before = stats(scanner);
    // Warm: nothing new anywhere.
    const warm = await watches.tick();
    expect(stats(scanner)).toEqual(before);
    // Cold: as after a restart.
    scanner.clearKeyCache();
    expect(scanner.keyStats().cached).toBe(0);
    const cold = await watches.tick();
    expect(stats(scanner)).toEqual(before);
    expect(scanner.keyStats().cached).toBe(2);
    for (const id of ["a", "b"]) {
      expect(snap(cold.get(id))).toEqual(snap(warm.get(id)));
      expect(snap(cold.get(id))).toEqual(snap(first.get(id)));
    }
    expect(snap(cold.get("a"))).toMatchObject({ receivedAtomic: "700" });
    expect(snap(cold.get("b")).pools.transparent).toMatchObject({ pendingAtomic: "9" });
  });

  it("an empty block decodes nothing; a shielded-only block derives no transparent hash; a P2PKH output derives them", async () => {
    const { chain, scanner, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    watches.add("c", carol.address, carol.ufvk, chain.tip + 1);
    await watches.tick();
    chain.mineEmpty(2);
    let r = await watches.tick();
    expect(stats(scanner)).toEqual({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0 });
    expect(r.get("a")!.snapshot).toMatchObject({ scannedHeight: chain.tip });
    chain.mine([makeTx({ sapling: [encryptSapling(carol.sapling(), 55n, EMPTY)] })]);
    r = await watches.tick();
    expect(stats(scanner)).toEqual({ ufvkDecodes: 2, scanKeyBuilds: 2, transparentHashes: 0 });
    expect(snap(r.get("c"))).toMatchObject({ receivedAtomic: "55" });
    chain.mine([makeTx({ vout: [{ value: 3n, script: p2pkhScript(alice.p2pkh(2)) }] })]);
    r = await watches.tick();
    // Carol's window 0…19, alice's 0…22 once index 2 is used.
    expect(stats(scanner)).toEqual({ ufvkDecodes: 2, scanKeyBuilds: 2, transparentHashes: 43 });
    expect(snap(r.get("a"))).toMatchObject({ receivedAtomic: "3" });
    expect(snap(r.get("c"))).toMatchObject({ receivedAtomic: "55" });
  });

  it("a mempool transaction is trial-decrypted once per watch: later idle ticks decode nothing even cold", async () => {
    const { chain, scanner, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.tip + 1);
    await watches.tick();
    chain.broadcast(makeTx({ orchard: [encryptAction(alice.orchard(), 42n, text("tea"), 0x02)] }));
    let r = await watches.tick();
    expect(stats(scanner)).toEqual({ ufvkDecodes: 1, scanKeyBuilds: 1, transparentHashes: 0 });
    expect(snap(r.get("a"))).toMatchObject({ pendingAtomic: "42" });
    scanner.clearKeyCache();
    r = await watches.tick();
    expect(stats(scanner)).toEqual({ ufvkDecodes: 1, scanKeyBuilds: 1, transparentHashes: 0 });
    expect(snap(r.get("a"))).toMatchObject({ pendingAtomic: "42" });
  });

  it("keys are built with the stream closed: it is read on at most 64 blocks, no block is fetched twice", async () => {
    const { chain, scanner, watches } = setup();
    watches.add("a", alice.address, alice.ufvk, chain.base + 1);
    chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 5n, EMPTY, 0x02)] })]);
    chain.mineEmpty(69);
    chain.mine([makeTx({ vout: [{ value: 6n, script: p2pkhScript(alice.p2pkh(0)) }] })]);
    const r = await watches.tick();
    // First block needs keys: it and 64 more are read, the stream closed, then 65…71 streamed on.
    expect(chain.served.ranges).toBe(2);
    expect([...chain.served.blocks.values()].every((n) => n === 1)).toBe(true);
    expect(chain.served.blocks.size).toBe(71);
    expect(snap(r.get("a"))).toMatchObject({ receivedAtomic: "11", scannedHeight: chain.tip });
    expect(stats(scanner)).toEqual({ ufvkDecodes: 1, scanKeyBuilds: 1, transparentHashes: 21 });
  });

  it("with many watches, blocks with shielded outputs are trial-decrypted with the stream closed: same notes, no block fetched twice", async () => {
    const offline = setup({ offlineScanWatches: 1 });
    const streamed = setup();
    const results = [];
    for (const s of [offline, streamed]) {
      s.watches.add("a", alice.address, alice.ufvk, s.chain.tip + 1);
      await s.watches.tick(); // keys built on the first tick (a coinbase-free empty chain: nothing yet)
      s.chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 5n, EMPTY, 0x02)] })]);
      await s.watches.tick();
      s.chain.served.ranges = 0;
      s.chain.served.blocks.clear();
      for (let i = 0; i < 70; i++) s.chain.mine([makeTx({ orchard: [encryptAction(alice.orchard(), 1n, EMPTY, 0x02)] })]);
      results.push(await s.watches.tick());
    }
    // The two chains encrypt afresh (other txids); everything else is the same.
    const noTxid = (o: WatchScanOutput | undefined) => ({ ...snap(o), outputs: snap(o).outputs.map(({ txid: _t, ...rest }) => rest) });
    expect(noTxid(results[0]!.get("a"))).toEqual(noTxid(results[1]!.get("a")));
    expect(snap(results[0]!.get("a"))).toMatchObject({ receivedAtomic: "75" });
    // Streamed: one range. Offline: the stream is closed at the first such block after 64 more, those are
    // scanned with no stream open, and the rest is streamed on (a second range); no block twice.
    expect(streamed.chain.served.ranges).toBe(1);
    expect(offline.chain.served.ranges).toBe(2);
    expect([...offline.chain.served.blocks.values()].every((n) => n === 1)).toBe(true);
    expect(offline.chain.served.blocks.size).toBe(70);
  });

  it("the eager baseline (eagerKeys) decodes every key on load and gives the same snapshots", async () => {
    const lazy = setup();
    const eager = setup({ eagerKeys: true });
    for (const s of [lazy, eager]) {
      s.watches.add("a", alice.address, alice.ufvk, s.chain.tip + 1);
      s.watches.add("c", carol.address, carol.ufvk, s.chain.tip + 1);
    }
    const payTx = makeTx({ sapling: [encryptSapling(carol.sapling(), 8n, EMPTY)], vout: [{ value: 4n, script: p2pkhScript(alice.p2pkh(0)) }] });
    const results = [];
    for (const s of [lazy, eager]) {
      await s.watches.tick();
      s.chain.mine([payTx]);
      s.chain.mineEmpty(1);
      results.push(await s.watches.tick());
    }
    expect(eager.scanner.keyStats()).toMatchObject({ ufvkDecodes: 2, scanKeyBuilds: 2 });
    for (const id of ["a", "c"]) {
      const [l, e] = results.map((m) => snap(m.get(id)));
      expect({ ...l, outputs: l!.outputs.length }).toEqual({ ...e, outputs: e!.outputs.length });
    }
    expect(snap(results[0]!.get("a"))).toMatchObject({ balanceAtomic: "4" });
    expect(snap(results[0]!.get("c"))).toMatchObject({ balanceAtomic: "8" });
  });
});
