/**
 * What one Zcash watch's scan reports: its notes (mined, then pending from
 * the mempool) and the balance snapshot the watch module compares between
 * ticks. Snapshot fields:
 *   - balanceAtomic: spendable = unspent notes with at least
 *     `confirmationsRequired` confirmations (and at least 1);
 *   - pendingAtomic: unspent notes not yet that deep, plus notes seen in the
 *     mempool (counted once, and not once mined);
 *   - pendingSpentAtomic: unspent mined notes that a mempool transaction
 *     spends (outgoing, not final: they stay in balanceAtomic/pendingAtomic
 *     until the spend is mined, when they leave those once);
 *   - receivedAtomic / spentAtomic: everything ever received in mined blocks
 *     since the start height, and the part of it whose spend is mined;
 *   - pools: balanceAtomic / pendingAtomic per pool (transparent, sapling,
 *     orchard, ironwood), summing to the two totals;
 *   - outputs: the newest notes with pool, amount, height, status
 *     (confirmed | pending), spent flag, spendPending (a mempool transaction
 *     spends it), ZIP 302 memo and diversifier index.
 * Confirmation counts are left out of the snapshot so it changes only when
 * money does.
 */
import type { BalanceSnapshot, ReceivedOutput, WatchScanOutput } from "../scanner.js";
import { byChainOrder, confirmationsAt, noteKey, ZCASH_POOLS, type StoredNote, type ZcashPool, type ZcashScanState } from "./scan-state.js";

export interface ZcashSnapshotOptions {
  confirmations: number;
  /** Notes listed in the snapshot (newest). */
  snapshotOutputs: number;
}

type PoolSums = Record<ZcashPool, { balanceAtomic: bigint; pendingAtomic: bigint }>;

function diversifierIndexOf(n: StoredNote): number | undefined {
  if (n.di === null) return undefined;
  const v = Number(n.di);
  return Number.isSafeInteger(v) ? v : undefined;
}

function memoText(n: StoredNote): string | undefined {
  return n.memo && "text" in n.memo ? n.memo.text : undefined;
}

export function summarizeZcashWatch(
  watchId: string,
  st: ZcashScanState,
  tip: number,
  pending: readonly StoredNote[],
  opts: ZcashSnapshotOptions,
  /** Notes of `st` that mempool transactions spend. */
  spending: readonly StoredNote[] = [],
): WatchScanOutput {
  const depth = Math.max(1, opts.confirmations);
  const pools = Object.fromEntries(ZCASH_POOLS.map((p) => [p, { balanceAtomic: 0n, pendingAtomic: 0n }])) as PoolSums;
  let received = BigInt(st.settled.receivedAtomic);
  let spent = BigInt(st.settled.spentAtomic);
  const listed: (ReceivedOutput & { pool: ZcashPool; status: "confirmed" | "pending"; spent: boolean; spendPending: boolean; memoValue: StoredNote["memo"] })[] = [];
  const sorted = [...st.notes].sort(byChainOrder);
  const known = new Set(sorted.map(noteKey));
  const spendingKeys = new Set(spending.map(noteKey));
  let pendingSpent = 0n;
  for (const n of sorted) {
    const value = BigInt(n.value);
    const conf = confirmationsAt(n.height, tip);
    const confirmed = conf >= depth;
    const spendPending = !n.spent && spendingKeys.has(noteKey(n));
    received += value;
    if (n.spent) spent += value;
    else if (confirmed) pools[n.pool].balanceAtomic += value;
    else pools[n.pool].pendingAtomic += value;
    if (spendPending) pendingSpent += value;
    listed.push(outputOf(n, n.height, conf, confirmed, n.spent !== null, spendPending));
  }
  for (const n of pending) {
    const key = noteKey(n);
    if (known.has(key)) continue; // mined already (or listed twice): counted once
    known.add(key);
    pools[n.pool].pendingAtomic += BigInt(n.value);
    listed.push(outputOf(n, null, 0, false, false, false));
  }
  let balance = 0n;
  let pendingAtomic = 0n;
  for (const p of ZCASH_POOLS) {
    balance += pools[p].balanceAtomic;
    pendingAtomic += pools[p].pendingAtomic;
  }
  const snapshot: BalanceSnapshot = {
    balanceAtomic: balance.toString(),
    pendingAtomic: pendingAtomic.toString(),
    pendingSpentAtomic: pendingSpent.toString(),
    receivedAtomic: received.toString(),
    spentAtomic: spent.toString(),
    scannedHeight: st.scannedHeight,
    confirmationsRequired: opts.confirmations,
    pools: Object.fromEntries(
      ZCASH_POOLS.map((p) => [p, { balanceAtomic: pools[p].balanceAtomic.toString(), pendingAtomic: pools[p].pendingAtomic.toString() }]),
    ),
    outputCount: st.settled.count + listed.length,
    outputs: (opts.snapshotOutputs > 0 ? listed.slice(-opts.snapshotOutputs) : []).map((o) => ({
      txid: o.txid,
      index: o.index,
      pool: o.pool,
      amountAtomic: o.amountAtomic,
      height: o.height,
      status: o.status,
      spent: o.spent,
      spendPending: o.spendPending,
      memo: o.memoValue ?? null,
      diversifierIndex: o.diversifierIndex ?? null,
    })),
  };
  return {
    watchId,
    state: st,
    snapshot,
    outputs: listed.map(({ pool: _p, status: _s, spent: _sp, spendPending: _sd, memoValue: _m, ...o }) => o),
    caughtUp: st.scannedHeight >= tip,
  };
}

function outputOf(n: StoredNote, height: number | null, confirmations: number, confirmed: boolean, spent: boolean, spendPending: boolean) {
  const di = diversifierIndexOf(n);
  const memo = memoText(n);
  return {
    txid: n.txid,
    index: `${n.pool}:${n.index}`,
    amountAtomic: n.value,
    height,
    confirmations,
    ...(memo !== undefined ? { memo } : {}),
    ...(di !== undefined ? { diversifierIndex: di } : {}),
    pool: n.pool,
    status: confirmed ? ("confirmed" as const) : ("pending" as const),
    spent,
    spendPending,
    memoValue: n.memo,
  };
}
