/**
 * The scanner's per-watch state and its pure steps, without a daemon: the
 * reorg window, roll-back, the burning-bug rule, folding only final outputs,
 * the snapshot's balance split, and how a call's block budget is shared.
 */
import { describe, expect, it } from "vitest";
import type { WatchScanInput } from "../../../src/chains/scanner.js";
import { allocateHeights } from "../../../src/chains/monero/block-scan.js";
import {
  addChainOutput,
  foldSettled,
  markScanned,
  readState,
  rollBack,
  type MoneroScanState,
  type WatchWork,
} from "../../../src/chains/monero/scan-state.js";
import { summarizeWatch } from "../../../src/chains/monero/snapshot.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "../../../src/chains/monero/types.js";

const hash = (n: number) => n.toString(16).padStart(64, "0");
const key = (n: number) => `k${n}`.padEnd(64, "0");

function tx(txid: string, opts: { unlockTime?: bigint; coinbase?: boolean } = {}): ScanTx {
  return {
    txid,
    version: 2,
    extra: new Uint8Array(),
    isCoinbase: opts.coinbase ?? false,
    unlockTime: opts.unlockTime ?? 0n,
    rctType: 6,
    fee: 0n,
    outputs: [],
    keyImages: [],
  };
}

const owned = (publicKey: string, amount: bigint, outputIndex = 0): OwnedOutput => ({
  outputIndex,
  publicKey,
  amount,
  subaddress: { major: 0, minor: 1 },
});

/** A state scanned through `top` with the hashes of the last `window` blocks. */
function scannedTo(top: number, window: number): MoneroScanState {
  const st = readState(null, 0);
  for (let h = 0; h <= top; h++) markScanned(st, { height: h, hash: hash(h) }, window);
  return st;
}

function work(watchId: string, state: MoneroScanState, account: ViewAccount | null = {} as ViewAccount): WatchWork {
  const input: WatchScanInput = { watchId, address: "addr", viewKey: "key", state: null, startHeight: 0 };
  return { input, account, accountKey: watchId, state, end: state.scannedHeight, stopped: false };
}

describe("scan state", () => {
  it("a state that is not recognised starts over from the start height; a valid one round-trips through JSON", () => {
    expect(readState(null, 100)).toMatchObject({ scannedHeight: 99, hashes: [], outputs: [] });
    expect(readState({ v: 1, scannedHeight: 5, hashes: ["nothex"] }, 7).scannedHeight).toBe(6);
    const st = scannedTo(10, 4);
    addChainOutput(st, tx(hash(1000)), owned(key(1), 5n), 9);
    const back = readState(JSON.parse(JSON.stringify(st)) as MoneroScanState, 0);
    expect(back).toEqual(st);
    expect(back.outputs).not.toBe(st.outputs);
  });

  it("keeps the hashes of the last reorgWindow blocks, the newest last", () => {
    const st = scannedTo(10, 4);
    expect(st.scannedHeight).toBe(10);
    expect(st.hashes).toEqual([hash(7), hash(8), hash(9), hash(10)]);
  });

  it("rolls back to a fork: outputs and hashes above it go, those at or below stay", () => {
    const st = scannedTo(10, 5);
    addChainOutput(st, tx(hash(1001)), owned(key(1), 5n), 7);
    addChainOutput(st, tx(hash(1002)), owned(key(2), 6n), 8);
    rollBack(st, 7);
    expect(st.scannedHeight).toBe(7);
    expect(st.hashes).toEqual([hash(6), hash(7)]);
    expect(st.outputs.map((o) => o.height)).toEqual([7]);
  });

  it("credits one one-time key once, with the larger amount (burning bug)", () => {
    const st = scannedTo(3, 4);
    addChainOutput(st, tx(hash(1)), owned(key(9), 10n), 2);
    addChainOutput(st, tx(hash(2)), owned(key(9), 4n), 3);
    expect(st.outputs.map((o) => [o.txid, o.amount])).toEqual([[hash(1), "10"]]);
    addChainOutput(st, tx(hash(3)), owned(key(9), 25n), 3);
    expect(st.outputs.map((o) => [o.txid, o.amount])).toEqual([[hash(3), "25"]]);
  });

  it("folds only outputs that are deep enough and unlocked, oldest first, keeping the total", () => {
    const st = scannedTo(200, 4);
    addChainOutput(st, tx(hash(1)), owned(key(1), 1n), 10);
    addChainOutput(st, tx(hash(2), { unlockTime: 10_000n }), owned(key(2), 2n), 20); // still locked at tip 200
    addChainOutput(st, tx(hash(3)), owned(key(3), 3n), 30);
    addChainOutput(st, tx(hash(4)), owned(key(4), 4n), 190); // too shallow
    foldSettled(st, 200, { maxStored: 1, foldDepth: 60, nowMs: 0 });
    // The locked output stops the fold: nothing newer is folded past it.
    expect(st.settled).toEqual({ atomic: "1", count: 1 });
    expect(st.outputs.map((o) => o.amount)).toEqual(["2", "3", "4"]);
  });
});

describe("snapshot", () => {
  it("splits balance and pending by confirmations and unlock; pool outputs already mined count once", () => {
    const st = scannedTo(20, 4);
    addChainOutput(st, tx(hash(1)), owned(key(1), 100n), 5); // 16 confirmations
    addChainOutput(st, tx(hash(2)), owned(key(2), 20n), 18); // 3 confirmations
    addChainOutput(st, tx(hash(3), { unlockTime: 50n }), owned(key(3), 7n), 5); // deep but locked
    st.settled = { atomic: "1000", count: 2 };
    const pending = [
      { txid: hash(4), out: owned(key(4), 3n), doubleSpendSeen: true },
      { txid: hash(2), out: owned(key(2), 20n), doubleSpendSeen: false }, // mined meanwhile
    ];
    const out = summarizeWatch(work("w1", st), 20, pending, { confirmations: 10, snapshotOutputs: 2, nowMs: 0 });
    expect(out.snapshot).toMatchObject({
      balanceAtomic: "1100",
      pendingAtomic: "30",
      receivedAtomic: "1130",
      scannedHeight: 20,
      confirmationsRequired: 10,
      outputCount: 6,
    });
    expect((out.snapshot.outputs as { txid: string }[]).map((o) => o.txid)).toEqual([hash(2), hash(4)]);
    expect(out.outputs.at(-1)).toMatchObject({ txid: hash(4), height: null, confirmations: 0, doubleSpendSeen: true });
    expect(out.caughtUp).toBe(true);
  });
});

describe("block budget", () => {
  it("watches nearest the tip go first; a height shared by several watches counts once", () => {
    const near = work("near", scannedTo(95, 4));
    const far = work("far", scannedTo(10, 4));
    const twin = work("twin", scannedTo(95, 4));
    const noKey = work("nokey", scannedTo(0, 4), null);
    const heights = allocateHeights([far, near, twin, noKey], 100, 8);
    expect(heights).toEqual([11, 12, 13, 96, 97, 98, 99, 100]);
    expect([near.end, twin.end, far.end]).toEqual([100, 100, 13]);
    expect(noKey.end).toBe(0);
  });
});
