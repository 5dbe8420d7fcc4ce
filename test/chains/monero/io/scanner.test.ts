import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../src/core/clock.js";
import { ServiceError } from "../../../../src/core/errors.js";
import { MoneroDaemonClient } from "../../../../src/chains/monero/daemon-client.js";
import { hexToBytes } from "../../../../src/chains/monero/encoding.js";
import { confirmationsAt, createMoneroScanner, isUnlocked, lookaheadFrom, type MoneroScanner } from "../../../../src/chains/monero/scanner.js";
import { deriveSubaddress } from "../../../../src/chains/monero/subaddress.js";
import { decodeAddress } from "../../../../src/chains/monero/address.js";
import { MoneroScanPool } from "../../../../src/chains/monero/pool.js";
import type { ScanState, WatchScanInput, WatchScanOutput } from "../../../../src/chains/scanner.js";
import { TEST_LOOKAHEAD, startTestMonerod } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;
type Wallet = Monerod["wallets"][number];

const XMR = 1_000_000_000_000n;

/** A watch as the watch module keeps it: state goes through JSON between ticks, like a DB column. */
class Watch {
  state: ScanState | null = null;
  last: WatchScanOutput | undefined;
  constructor(
    readonly watchId: string,
    readonly address: string,
    readonly viewKey: string,
    readonly startHeight: number,
  ) {}
  input(): WatchScanInput {
    return { watchId: this.watchId, address: this.address, viewKey: this.viewKey, state: this.state, startHeight: this.startHeight };
  }
  take(out: WatchScanOutput): WatchScanOutput {
    expect(out.watchId).toBe(this.watchId);
    this.state = JSON.parse(JSON.stringify(out.state)) as ScanState;
    this.last = out;
    return out;
  }
}

async function tick(scanner: MoneroScanner, ...watches: Watch[]): Promise<WatchScanOutput[]> {
  const outs = await scanner.scanWatches(watches.map((w) => w.input()));
  return outs.map((o, i) => watches[i]!.take(o));
}

describe("Monero scanner against the simulated monerod", () => {
  let d: Monerod;
  let client: MoneroDaemonClient;
  const clock = new ManualClock(Date.now());
  let alice: Wallet;
  let bob: Wallet;
  let carol: Wallet;

  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 3 });
    client = new MoneroDaemonClient({ url: d.url, attempts: 2 });
    [alice, bob, carol] = d.wallets as [Wallet, Wallet, Wallet];
  });
  afterAll(async () => {
    await client.close();
    await d.close();
  });
  beforeEach(() => {
    clock.set(Date.now());
  });

  const newScanner = (opts: Partial<Parameters<typeof createMoneroScanner>[0]> = {}) =>
    createMoneroScanner({ daemon: client, confirmations: 3, lookahead: TEST_LOOKAHEAD, clock, ...opts });

  it("validates watch keys: right key, wrong key, wrong network", () => {
    const s = newScanner();
    expect(s.validateWatchKey(alice.address, alice.viewKey)).toEqual({ chain: "monero", address: alice.address, network: "testnet" });
    expect(s.validateWatchKey(alice.subaddresses[0]!.address, alice.viewKey).address).toBe(alice.subaddresses[0]!.address);
    expect(() => s.validateWatchKey(alice.address, bob.viewKey)).toThrow(expect.objectContaining({ status: 400, code: "view_key_mismatch" }));
    const mainnetOnly = newScanner({ network: "mainnet" });
    expect(() => mainnetOnly.validateWatchKey(alice.address, alice.viewKey)).toThrow(expect.objectContaining({ status: 400, code: "invalid_address" }));
  });

  it("a payment is pending from the pool, pending while young, and balance after the configured confirmations", async () => {
    const s = newScanner({ confirmations: 3 });
    const w = new Watch("w-confirm", bob.address, bob.viewKey, await s.defaultStartHeight());
    expect((await tick(s, w))[0]!.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "0", scannedHeight: d.height() });

    const txid = d.send(bob.address, XMR / 4n);
    let out = (await tick(s, w))[0]!;
    expect(out.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "250000000000", receivedAtomic: "250000000000" });
    expect(out.outputs).toEqual([{ txid, index: "0", amountAtomic: "250000000000", height: null, confirmations: 0, subaddress: { major: 0, minor: 0 } }]);

    d.mine(1);
    out = (await tick(s, w))[0]!;
    expect(out.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "250000000000", scannedHeight: d.height() });
    expect(out.outputs[0]).toMatchObject({ txid, height: d.height(), confirmations: 1 });

    d.mine(1);
    expect((await tick(s, w))[0]!.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "250000000000" });
    d.mine(1);
    out = (await tick(s, w))[0]!;
    expect(out.snapshot).toMatchObject({ balanceAtomic: "250000000000", pendingAtomic: "0", receivedAtomic: "250000000000" });
    expect(out.outputs[0]!.confirmations).toBe(3);
    expect((out.snapshot.outputs as { status: string }[])[0]!.status).toBe("confirmed");
  });

  it("0-conf is never balance, even with confirmations = 0", async () => {
    const s = newScanner({ confirmations: 0 });
    const w = new Watch("w-zero", carol.address, carol.viewKey, await s.defaultStartHeight());
    d.send(carol.address, 7n);
    expect((await tick(s, w))[0]!.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "7" });
    d.mine(1);
    expect((await tick(s, w))[0]!.snapshot).toMatchObject({ balanceAtomic: "7", pendingAtomic: "0" });
  });

  it("a primary-address watch sees the whole wallet within the look-ahead, with subaddress indices; a subaddress watch sees only its subaddress", async () => {
    const s = newScanner({ confirmations: 1 });
    const start = await s.defaultStartHeight();
    const primary = new Watch("w-primary", alice.address, alice.viewKey, start);
    const sub01 = alice.subaddresses.find((x) => x.major === 0 && x.minor === 1)!;
    const sub11 = alice.subaddresses.find((x) => x.major === 1 && x.minor === 1)!;
    const subWatch = new Watch("w-sub", sub01.address, alice.viewKey, start);
    const other = new Watch("w-bob", bob.address, bob.viewKey, start);
    const decoded = decodeAddress(alice.address);
    if (!decoded.ok) throw new Error(decoded.error);
    // Beyond the test look-ahead (minors 0..4): not covered by the primary watch (documented).
    const beyond = deriveSubaddress("testnet", hexToBytes(alice.viewKey), decoded.value.spendPublicKey, { major: 0, minor: 9 });

    const tx1 = d.send(sub01.address, 1n * XMR);
    const tx2 = d.send(sub11.address, 2n * XMR);
    const tx3 = d.send(alice.address, 3n * XMR);
    d.send(beyond, 4n * XMR);
    d.mine(1);
    const [p, sw, o] = await tick(s, primary, subWatch, other);

    expect(p!.snapshot).toMatchObject({ balanceAtomic: String(6n * XMR), pendingAtomic: "0" });
    const bySub = Object.fromEntries(p!.outputs.map((x) => [x.txid, x.subaddress]));
    expect(bySub).toEqual({ [tx1]: { major: 0, minor: 1 }, [tx2]: { major: 1, minor: 1 }, [tx3]: { major: 0, minor: 0 } });
    // The subaddress index shows in the snapshot the webhook carries.
    expect((p!.snapshot.outputs as { subaddress: unknown }[]).map((x) => x.subaddress)).toEqual(
      expect.arrayContaining([{ major: 0, minor: 1 }, { major: 1, minor: 1 }, { major: 0, minor: 0 }]),
    );

    expect(sw!.snapshot).toMatchObject({ balanceAtomic: String(1n * XMR) });
    expect(sw!.outputs.map((x) => x.txid)).toEqual([tx1]);

    expect(o!.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "0" });
    expect(o!.outputs).toEqual([]);
  });

  it("scanning on the worker-thread pool gives the same results as on this thread", async () => {
    const pool = new MoneroScanPool({ threads: 2 });
    try {
      const start = d.height() + 1;
      const mk = (tag: string) =>
        [alice, bob, carol].flatMap((wl) => [
          new Watch(`${tag}-${wl.label}`, wl.address, wl.viewKey, start),
          new Watch(`${tag}-${wl.label}-sub`, wl.subaddresses[2]!.address, wl.viewKey, start),
        ]);
      const local = mk("local");
      const pooled = mk("pool");
      const txids = [
        d.send(alice.address, 3n),
        d.send(bob.subaddresses[2]!.address, 4n),
        d.send(carol.subaddresses[0]!.address, 5n),
        d.send(carol.subaddresses[2]!.address, 6n),
      ];
      d.mine(2);
      const a = await tick(newScanner(), ...local);
      const b = await tick(newScanner({ scanPool: pool, scanPoolMinWatches: 1 }), ...pooled);
      const view = (outs: WatchScanOutput[]) => outs.map((o) => ({ snapshot: o.snapshot, outputs: o.outputs }));
      expect(view(b)).toEqual(view(a));
      const seen = a.flatMap((o) => o.outputs.map((x) => x.txid));
      for (const t of txids) expect(seen).toContain(t);
      expect(b.find((o) => o.watchId === "pool-carol")!.snapshot.receivedAtomic).toBe("11");
      expect(b.find((o) => o.watchId === "pool-carol-sub")!.snapshot.receivedAtomic).toBe("6");
    } finally {
      await pool.close();
    }
  });

  it("a reorg that removes a payment takes the balance back down", async () => {
    const s = newScanner({ confirmations: 2 });
    const w = new Watch("w-reorg", carol.address, carol.viewKey, await s.defaultStartHeight());
    await tick(s, w);
    const before = BigInt((w.last!.snapshot.balanceAtomic as string) ?? "0");
    const txid = d.send(carol.address, 5n * XMR);
    d.mine(3);
    let out = (await tick(s, w))[0]!;
    expect(BigInt(out.snapshot.balanceAtomic)).toBe(before + 5n * XMR);
    const heightBefore = d.height();

    const dropped = d.reorg(3);
    expect(dropped).toContain(txid);
    out = (await tick(s, w))[0]!;
    expect(BigInt(out.snapshot.balanceAtomic)).toBe(before);
    expect(out.snapshot.pendingAtomic).toBe("0");
    expect(out.outputs.find((x) => x.txid === txid)).toBeUndefined();
    expect(out.snapshot.scannedHeight).toBe(heightBefore); // rescanned the replacement blocks
    // The stored hashes now follow the new chain.
    const tipHash = (await client.getLastBlockHeader()).hash;
    expect((out.state.hashes as string[]).at(-1)).toBe(tipHash);
  });

  it("a reorg that sends a payment back to the pool makes it pending; mined again, it counts once", async () => {
    const s = newScanner({ confirmations: 1 });
    const w = new Watch("w-remine", bob.address, bob.viewKey, await s.defaultStartHeight());
    await tick(s, w);
    const base = BigInt(w.last!.snapshot.balanceAtomic);
    const txid = d.send(bob.address, 9n);
    d.mine(1);
    let out = (await tick(s, w))[0]!;
    expect(BigInt(out.snapshot.balanceAtomic)).toBe(base + 9n);

    expect(d.reorg(1, { keepTxs: true })).toEqual([txid]);
    out = (await tick(s, w))[0]!;
    expect(BigInt(out.snapshot.balanceAtomic)).toBe(base);
    expect(out.snapshot.pendingAtomic).toBe("9");
    expect(out.outputs.filter((x) => x.txid === txid)).toEqual([expect.objectContaining({ height: null, confirmations: 0 })]);

    d.mine(1);
    out = (await tick(s, w))[0]!;
    expect(BigInt(out.snapshot.balanceAtomic)).toBe(base + 9n);
    expect(out.snapshot.pendingAtomic).toBe("0");
    expect(out.outputs.filter((x) => x.txid === txid)).toEqual([expect.objectContaining({ height: d.height(), confirmations: 1 })]);
  });

  it("several watches share one fetch per block, and another scanner call reuses the block cache", async () => {
    const s = newScanner();
    const start = await s.defaultStartHeight();
    const ws = [alice, bob, carol].map((wl, i) => new Watch(`w-share-${i}`, wl.address, wl.viewKey, start));
    await tick(s, ...ws);
    d.send(alice.address, 1n);
    d.send(bob.address, 2n);
    d.mine(5);
    d.resetRequestCounts();
    await tick(s, ...ws);
    const counts = d.requestCounts();
    expect(counts.get_block).toBe(5);
    expect(counts["/get_transactions"]).toBe(1); // both block txs in one request
    for (const w of ws) expect(w.last!.snapshot.scannedHeight).toBe(d.height());

    // A watch scanned later over the same blocks: served from the cache.
    const late = new Watch("w-late", carol.address, carol.viewKey, start + 1);
    d.resetRequestCounts();
    await tick(s, late);
    expect(d.requestCounts().get_block ?? 0).toBe(0);
    expect(late.last!.snapshot.scannedHeight).toBe(d.height());
  });

  it("catch-up is bounded per call, and watches near the tip are served first", async () => {
    d.mine(10);
    const s = newScanner({ maxBlocksPerCall: 4 });
    const tip = d.height();
    const far = new Watch("w-far", alice.address, alice.viewKey, tip - 11);
    const near = new Watch("w-near", bob.address, bob.viewKey, tip);
    const [f0, n0] = await tick(s, far, near);
    expect(near.last!.snapshot.scannedHeight).toBe(tip);
    expect(far.last!.snapshot.scannedHeight).toBe(tip - 12 + 3); // 1 block went to `near`, 3 to `far`
    expect(n0!.caughtUp).toBe(true);
    expect(f0!.caughtUp).toBe(false);
    let calls = 1;
    while ((far.last!.snapshot.scannedHeight as number) < tip) {
      await tick(s, far, near);
      calls++;
      expect(calls).toBeLessThan(10);
    }
    expect(far.last!.snapshot.scannedHeight).toBe(tip);
    expect(far.last!.caughtUp).toBe(true);
  });

  it("a call that runs out of time returns what it has; the watch resumes next call", async () => {
    d.mine(3);
    const start = d.height() - 2;
    const w = new Watch("w-budget", bob.address, bob.viewKey, start);
    const options = { daemon: client, confirmations: 3, lookahead: TEST_LOOKAHEAD, clock, maxScanMs: -1 };
    const s = createMoneroScanner(options);
    // A cold watch past the deadline is not even prepared: left out, so its stored state stays as it was.
    expect(await s.scanWatches([w.input()])).toEqual([]);
    // With its account ready but no time left, it is returned without progress.
    options.maxScanMs = 60_000;
    await s.scanWatches([new Watch("w-warm", bob.address, bob.viewKey, d.height()).input()]);
    options.maxScanMs = -1;
    const [out] = await tick(s, w);
    expect(out!.snapshot.scannedHeight).toBe(start - 1);
    expect(out!.caughtUp).toBe(false);
    options.maxScanMs = 60_000;
    const [again] = await tick(s, w);
    expect(again!.snapshot.scannedHeight).toBe(d.height());
    expect(again!.caughtUp).toBe(true);
  });

  it("coinbase outputs stay pending until unlocked (60 blocks), then count", async () => {
    const miner = d.wallets.find((x) => x.label === "miner")!;
    const s = newScanner({ confirmations: 1, maxBlocksPerCall: 1000 });
    const w = new Watch("w-miner", miner.address, miner.viewKey, d.height() + 1);
    d.mine(1);
    let out = (await tick(s, w))[0]!;
    expect(out.snapshot).toMatchObject({ balanceAtomic: "0", pendingAtomic: "600000000000" });
    d.mine(59);
    out = (await tick(s, w))[0]!;
    // The first coinbase (unlock_time = h + 60) unlocks once the chain has h + 60 blocks.
    expect(out.snapshot.balanceAtomic).toBe("600000000000");
    expect(BigInt(out.snapshot.pendingAtomic)).toBe(59n * 600_000_000_000n);
  });

  it("a watch whose stored state is unreadable starts over from its start height", async () => {
    const s = newScanner();
    const w = new Watch("w-bad-state", bob.address, bob.viewKey, d.height());
    w.state = { scannedHeight: 5, v: 99 } as ScanState;
    const out = (await tick(s, w))[0]!;
    expect(out.state.scannedHeight).toBe(d.height());
  });

  it("a watch with an unusable key does not stop the others and is left out of the result", async () => {
    const errors: string[] = [];
    const s = newScanner({ onWatchError: (id) => errors.push(id) });
    const good = new Watch("w-good", bob.address, bob.viewKey, d.height());
    const bad = new Watch("w-badkey", bob.address, alice.viewKey, d.height());
    const outs = await s.scanWatches([good.input(), bad.input()]);
    expect(outs.map((o) => o.watchId)).toEqual(["w-good"]);
    expect(outs[0]!.snapshot.scannedHeight).toBe(d.height());
    expect(errors).toEqual(["w-badkey"]);
  });

  it("refuses to scan against a daemon on another network (502 chain_network_mismatch)", async () => {
    const w = new Watch("w-net", bob.address, bob.viewKey, d.height());
    await expect(newScanner({ network: "mainnet" }).scanWatches([w.input()])).rejects.toMatchObject({
      status: 502,
      code: "chain_network_mismatch",
    });
    const ok = await newScanner({ network: "testnet" }).scanWatches([w.input()]);
    expect(ok).toHaveLength(1);
  });

  it("a daemon failure fails the whole tick with 502 (the watch module keeps the old state)", async () => {
    const s = newScanner();
    const w = new Watch("w-down", bob.address, bob.viewKey, d.height());
    d.failNext(2, 500);
    const err = await s.scanWatches([w.input()]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
  });
});

describe("Monero scanner when the chain is replaced", () => {
  it("a reorg deeper than the stored window (here: a restarted devnet) starts the watch over", async () => {
    const first = await startTestMonerod({ initialBlocks: 3 });
    const carol = first.wallets[2]!;
    const c1 = new MoneroDaemonClient({ url: first.url });
    const s1 = createMoneroScanner({ daemon: c1, confirmations: 1, lookahead: TEST_LOOKAHEAD, clock: new ManualClock(Date.now()), reorgWindow: 4 });
    const w = new Watch("w-restart", carol.address, carol.viewKey, 1);
    first.send(carol.address, 11n);
    first.mine(6);
    expect((await tick(s1, w))[0]!.snapshot).toMatchObject({ balanceAtomic: "11", scannedHeight: 8 });
    await c1.close();
    await first.close();

    // Same data dir: same wallets, but a new chain with other blocks and no payment.
    const second = await startTestMonerod({ dataDir: first.dataDir, initialBlocks: 12 });
    second.send(carol.address, 5n);
    second.mine(1);
    const c2 = new MoneroDaemonClient({ url: second.url });
    const s2 = createMoneroScanner({ daemon: c2, confirmations: 1, lookahead: TEST_LOOKAHEAD, clock: new ManualClock(Date.now()), reorgWindow: 4 });
    const out = (await tick(s2, w))[0]!;
    expect(out.snapshot).toMatchObject({ balanceAtomic: "5", pendingAtomic: "0", scannedHeight: second.height() });
    expect(out.outputs).toHaveLength(1);
    await c2.close();
    await second.close();
  });
});

describe("look-ahead from config", () => {
  it("N means minors 0..N−1 in accounts 0..1, clamped to what a view account accepts", () => {
    expect(lookaheadFrom(50)).toEqual({ accounts: 2, minors: 50 });
    expect(lookaheadFrom(0)).toEqual({ accounts: 2, minors: 1 });
    expect(lookaheadFrom(10_000)).toEqual({ accounts: 2, minors: 5_000 });
    expect(lookaheadFrom({ accounts: 3, minors: 7 })).toEqual({ accounts: 3, minors: 7 });
  });
});

describe("confirmation and unlock rules", () => {
  it("confirmations: the top block has 1, the pool 0", () => {
    expect(confirmationsAt(10, 10)).toBe(1);
    expect(confirmationsAt(1, 10)).toBe(10);
    expect(confirmationsAt(null, 10)).toBe(0);
  });
  it("unlock_time: heights below 500,000,000, Unix times above", () => {
    expect(isUnlocked(0n, 5, 0)).toBe(true);
    expect(isUnlocked(70n, 68, 0)).toBe(false);
    expect(isUnlocked(70n, 69, 0)).toBe(true);
    const t = 1_800_000_000n;
    expect(isUnlocked(t, 1, Number(t - 121n) * 1000)).toBe(false);
    expect(isUnlocked(t, 1, Number(t - 120n) * 1000)).toBe(true);
  });
});
