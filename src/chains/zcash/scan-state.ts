/**
 * The per-watch memory the Zcash scanner keeps between ticks (JSON, stored by
 * the watch module, never looked into outside chains/zcash): how far the
 * watch is scanned, the hashes of its last blocks for reorg detection, the
 * notes found (with the nullifier that will mark each one spent, and the
 * spend once seen) and how far the transparent external chain is in use.
 * Invariants:
 *   - hashes[i] is the hash (display hex) of block scannedHeight − hashes.length + 1 + i;
 *   - a note is identified by (pool, txid, index in its bundle) and stored once;
 *   - every note and spend is at a height ≤ scannedHeight;
 *   - only notes that are spent, and whose receipt and spend are both final,
 *     are folded into `settled`: unspent notes stay, since their nullifier
 *     is needed to see them spent, and nothing a reorg could take back is
 *     hidden in a sum.
 * Every function here changes the state in place and does no I/O.
 */
import type { ScanState } from "../scanner.js";
import type { DecodedMemo } from "./note-decrypt.js";

export type ZcashPool = "transparent" | "sapling" | "orchard" | "ironwood";
export const ZCASH_POOLS: readonly ZcashPool[] = ["transparent", "sapling", "orchard", "ironwood"];

/** One note (or transparent output) the watch received. */
export interface StoredNote {
  pool: ZcashPool;
  /** Display hex (as explorers show it). */
  txid: string;
  /** Index in its bundle: Sapling output, Orchard/Ironwood action, or transparent vout. */
  index: number;
  /** zatoshi, decimal. */
  value: string;
  height: number;
  scope: "external" | "internal";
  /** Shielded: the ZIP 32 diversifier index; transparent: the address index on the external chain (decimal string; null when unknown). */
  di: string | null;
  /** ZIP 302 memo of a shielded note; absent until the full transaction was read; null when empty. */
  memo?: DecodedMemo;
  /**
   * What marks the note spent, hex: its nullifier (Sapling, Orchard, Ironwood; looked for in
   * the same pool only), or the outpoint `txid(protocol order)‖index` for a transparent output.
   * null when it cannot be computed (Sapling without the tree size of the block).
   */
  nf: string | null;
  /** Set once a spend of the note is mined. */
  spent: { height: number; txid: string } | null;
}

export interface ZcashScanState extends ScanState {
  v: 1;
  /** Height of the last block fully scanned (startHeight − 1 before the first). */
  scannedHeight: number;
  /** Hashes (display hex) of blocks scannedHeight − hashes.length + 1 … scannedHeight. */
  hashes: string[];
  notes: StoredNote[];
  /** Old notes, spent and final, folded into sums to bound the state size. */
  settled: { receivedAtomic: string; spentAtomic: string; count: number };
  /** External transparent addresses 0 … tNext − 1 have received; the gap limit is counted from tNext. */
  tNext: number;
}

const HEX64 = /^[0-9a-f]{64}$/;
const DIGITS = /^\d+$/;

function isMemo(m: unknown): m is DecodedMemo {
  if (m === null) return true;
  if (typeof m !== "object") return false;
  const x = m as Record<string, unknown>;
  return (typeof x.text === "string" && !("hex" in x)) || (typeof x.hex === "string" && /^[0-9a-f]*$/.test(x.hex) && !("text" in x));
}

function isStoredNote(o: unknown): o is StoredNote {
  if (typeof o !== "object" || o === null) return false;
  const x = o as Record<string, unknown>;
  const spent = x.spent as Record<string, unknown> | null;
  return (
    ZCASH_POOLS.includes(x.pool as ZcashPool) &&
    typeof x.txid === "string" &&
    HEX64.test(x.txid) &&
    Number.isInteger(x.index) &&
    (x.index as number) >= 0 &&
    typeof x.value === "string" &&
    DIGITS.test(x.value) &&
    Number.isInteger(x.height) &&
    (x.scope === "external" || x.scope === "internal") &&
    (x.di === null || (typeof x.di === "string" && DIGITS.test(x.di))) &&
    (!("memo" in x) || isMemo(x.memo)) &&
    (x.nf === null || (typeof x.nf === "string" && /^[0-9a-f]+$/.test(x.nf))) &&
    (spent === null || (typeof spent === "object" && Number.isInteger(spent.height) && typeof spent.txid === "string"))
  );
}

export function freshState(startHeight: number): ZcashScanState {
  return {
    v: 1,
    scannedHeight: startHeight - 1,
    hashes: [],
    notes: [],
    settled: { receivedAtomic: "0", spentAtomic: "0", count: 0 },
    tNext: 0,
  };
}

/** Reads a stored state; anything unrecognised starts over from startHeight. */
export function readZcashState(state: ScanState | null, startHeight: number): ZcashScanState {
  if (!state || state.v !== 1) return freshState(startHeight);
  const s = state as Partial<ZcashScanState>;
  const settled = s.settled as ZcashScanState["settled"] | undefined;
  if (
    !Number.isInteger(s.scannedHeight) ||
    !Array.isArray(s.hashes) ||
    !s.hashes.every((h) => typeof h === "string" && HEX64.test(h)) ||
    !Array.isArray(s.notes) ||
    !s.notes.every(isStoredNote) ||
    typeof settled !== "object" ||
    settled === null ||
    typeof settled.receivedAtomic !== "string" ||
    !DIGITS.test(settled.receivedAtomic) ||
    typeof settled.spentAtomic !== "string" ||
    !DIGITS.test(settled.spentAtomic) ||
    !Number.isInteger(settled.count) ||
    !Number.isInteger(s.tNext) ||
    (s.tNext as number) < 0
  ) {
    return freshState(startHeight);
  }
  return {
    v: 1,
    scannedHeight: s.scannedHeight!,
    hashes: [...s.hashes],
    notes: s.notes.map((n) => ({ ...n, spent: n.spent ? { ...n.spent } : null })),
    settled: { ...settled },
    tNext: s.tNext!,
  };
}

/** Marks the block at scannedHeight + 1 as scanned, keeping the last `reorgWindow` hashes. */
export function markScanned(st: ZcashScanState, block: { height: number; hash: string }, reorgWindow: number): void {
  st.hashes.push(block.hash);
  if (st.hashes.length > reorgWindow) st.hashes.splice(0, st.hashes.length - reorgWindow);
  st.scannedHeight = block.height;
}

/** Rolls a watch back to `fork` (the last height still on the chain): later notes, spends and hashes go. */
export function rollBack(st: ZcashScanState, fork: number): void {
  st.notes = st.notes.filter((n) => n.height <= fork);
  for (const n of st.notes) if (n.spent && n.spent.height > fork) n.spent = null;
  const keep = Math.max(0, st.hashes.length - (st.scannedHeight - fork));
  st.hashes = st.hashes.slice(0, keep);
  st.scannedHeight = fork;
}

export const noteKey = (n: { pool: ZcashPool; txid: string; index: number }): string => `${n.pool}:${n.txid}:${n.index}`;

/** Records a note; false when it was already known (a block scanned twice adds nothing). */
export function addNote(st: ZcashScanState, note: StoredNote): boolean {
  const key = noteKey(note);
  if (st.notes.some((n) => noteKey(n) === key)) return false;
  st.notes.push(note);
  return true;
}

/** Notes in chain order: by height, then txid, then pool, then index. */
export function byChainOrder(a: StoredNote, b: StoredNote): number {
  return a.height - b.height || a.txid.localeCompare(b.txid) || ZCASH_POOLS.indexOf(a.pool) - ZCASH_POOLS.indexOf(b.pool) || a.index - b.index;
}

export const confirmationsAt = (height: number, tip: number): number => (height > tip ? 0 : tip - height + 1);

/**
 * Folds the oldest notes that are spent and final (receipt and spend both at
 * least foldDepth deep) into `settled`, while more than maxStored are kept.
 */
export function foldSettled(st: ZcashScanState, tip: number, opts: { maxStored: number; foldDepth: number }): void {
  if (st.notes.length <= opts.maxStored) return;
  st.notes.sort(byChainOrder);
  let received = BigInt(st.settled.receivedAtomic);
  let spent = BigInt(st.settled.spentAtomic);
  let count = st.settled.count;
  const kept: StoredNote[] = [];
  let excess = st.notes.length - opts.maxStored;
  for (const n of st.notes) {
    const final = n.spent !== null && confirmationsAt(n.height, tip) >= opts.foldDepth && confirmationsAt(n.spent.height, tip) >= opts.foldDepth;
    if (excess > 0 && final) {
      received += BigInt(n.value);
      spent += BigInt(n.value);
      count++;
      excess--;
    } else kept.push(n);
  }
  st.notes = kept;
  st.settled = { receivedAtomic: received.toString(), spentAtomic: spent.toString(), count };
}
