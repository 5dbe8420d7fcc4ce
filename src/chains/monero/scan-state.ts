/**
 * The per-watch memory the Monero scanner keeps between ticks (JSON, stored
 * by the watch module, never looked into outside chains/monero): how far
 * the watch is scanned, the hashes of its last blocks for reorg detection,
 * and the outputs found. Invariants:
 *   - hashes[i] is the hash of block scannedHeight − hashes.length + 1 + i;
 *   - one one-time public key is credited once (the burning bug), with the
 *     larger amount, as wallet2 does;
 *   - old outputs are folded into `settled` only once final (deep enough and
 *     unlocked), so folding never hides money a reorg could take back.
 * Every function here changes the state in place and does no I/O.
 */
import type { ScanState, WatchScanInput } from "../scanner.js";
import { confirmationsAt, isUnlocked } from "./chain-rules.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "./types.js";

/** One owned output kept in ScanState. */
export interface StoredOutput {
  txid: string;
  index: number;
  amount: string;
  height: number;
  publicKey: string;
  subaddress: { major: number; minor: number } | null;
  unlockTime: string;
  coinbase: boolean;
}

export interface MoneroScanState extends ScanState {
  v: 1;
  /** Height of the last block fully scanned (startHeight − 1 before the first). */
  scannedHeight: number;
  /** Hashes of blocks scannedHeight − hashes.length + 1 … scannedHeight (reorg window). */
  hashes: string[];
  outputs: StoredOutput[];
  /** Old, final outputs folded into a sum to bound the state size. */
  settled: { atomic: string; count: number };
}

function isStoredOutput(o: unknown): o is StoredOutput {
  if (typeof o !== "object" || o === null) return false;
  const x = o as Record<string, unknown>;
  return (
    typeof x.txid === "string" &&
    Number.isInteger(x.index) &&
    typeof x.amount === "string" &&
    /^\d+$/.test(x.amount) &&
    Number.isInteger(x.height) &&
    typeof x.publicKey === "string" &&
    typeof x.unlockTime === "string" &&
    /^\d+$/.test(x.unlockTime) &&
    typeof x.coinbase === "boolean"
  );
}

/** Reads a stored state; anything unrecognised starts over from startHeight. */
export function readState(state: ScanState | null, startHeight: number): MoneroScanState {
  const fresh: MoneroScanState = {
    v: 1,
    scannedHeight: startHeight - 1,
    hashes: [],
    outputs: [],
    settled: { atomic: "0", count: 0 },
  };
  if (!state || state.v !== 1) return fresh;
  const s = state as Partial<MoneroScanState>;
  if (
    !Number.isInteger(s.scannedHeight) ||
    !Array.isArray(s.hashes) ||
    !s.hashes.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h)) ||
    !Array.isArray(s.outputs) ||
    !s.outputs.every(isStoredOutput) ||
    typeof s.settled !== "object" ||
    s.settled === null ||
    typeof s.settled.atomic !== "string" ||
    !/^\d+$/.test(s.settled.atomic) ||
    !Number.isInteger(s.settled.count)
  ) {
    return fresh;
  }
  return {
    v: 1,
    scannedHeight: s.scannedHeight!,
    hashes: [...s.hashes],
    outputs: s.outputs.map((o) => ({ ...o })),
    settled: { ...s.settled },
  };
}

/** Marks the block at scannedHeight + 1 as scanned, keeping the last `reorgWindow` hashes. */
export function markScanned(st: MoneroScanState, block: { height: number; hash: string }, reorgWindow: number): void {
  st.hashes.push(block.hash);
  if (st.hashes.length > reorgWindow) st.hashes.splice(0, st.hashes.length - reorgWindow);
  st.scannedHeight = block.height;
}

/** Rolls a watch back to `fork` (the last height still on the chain): later outputs and hashes go. */
export function rollBack(st: MoneroScanState, fork: number): void {
  st.outputs = st.outputs.filter((o) => o.height <= fork);
  const keep = Math.max(0, st.hashes.length - (st.scannedHeight - fork));
  st.hashes = st.hashes.slice(0, keep);
  st.scannedHeight = fork;
}

/** Records an output found in a mined tx at `height`. */
export function addChainOutput(st: MoneroScanState, tx: ScanTx, o: OwnedOutput, height: number): void {
  const stored: StoredOutput = {
    txid: tx.txid,
    index: o.outputIndex,
    amount: o.amount.toString(),
    height,
    publicKey: o.publicKey,
    subaddress: o.subaddress && o.subaddress.major >= 0 ? { major: o.subaddress.major, minor: o.subaddress.minor } : null,
    unlockTime: tx.unlockTime.toString(),
    coinbase: tx.isCoinbase,
  };
  // Burning bug: one one-time key is credited once; keep the larger amount (wallet2).
  const dup = st.outputs.findIndex((x) => x.publicKey === stored.publicKey);
  if (dup >= 0) {
    if (BigInt(st.outputs[dup]!.amount) >= o.amount) return;
    st.outputs.splice(dup, 1);
  }
  st.outputs.push(stored);
}

/** Outputs in the order snapshots list them: by height, then txid, then index. */
export function byChainOrder(a: StoredOutput, b: StoredOutput): number {
  return a.height - b.height || a.txid.localeCompare(b.txid) || a.index - b.index;
}

/**
 * Folds the oldest final outputs into `settled` once more than maxStored are
 * kept. Final = at least foldDepth confirmations and unlocked at `nowMs`.
 */
export function foldSettled(st: MoneroScanState, tip: number, opts: { maxStored: number; foldDepth: number; nowMs: number }): void {
  if (st.outputs.length <= opts.maxStored) return;
  st.outputs.sort(byChainOrder);
  let settled = BigInt(st.settled.atomic);
  let count = st.settled.count;
  while (st.outputs.length > opts.maxStored) {
    const o = st.outputs[0]!;
    const final = confirmationsAt(o.height, tip) >= opts.foldDepth && isUnlocked(BigInt(o.unlockTime), tip, opts.nowMs);
    if (!final) break;
    settled += BigInt(o.amount);
    count++;
    st.outputs.shift();
  }
  st.settled = { atomic: settled.toString(), count };
}

/** One watch during one scanWatches call. */
export interface WatchWork {
  input: WatchScanInput;
  account: ViewAccount | null;
  /** Names the view account in caches (a hash of address, key and look-ahead; never the key). */
  accountKey: string;
  state: MoneroScanState;
  /** Scan heights scannedHeight+1 … end this call. */
  end: number;
  /** Set when the watch must stop for this call (out of time, or the chain moved under it). */
  stopped: boolean;
}
