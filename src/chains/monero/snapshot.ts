/**
 * What one watch's scan reports: its outputs (mined, then pending from the
 * pool) and the balance snapshot the watch module compares between ticks.
 * An output counts in balanceAtomic once it has the required confirmations
 * (at least 1) and is unlocked; everything else is pending. A pool output
 * whose one-time key is already known (mined, or a duplicate) is counted
 * once. The snapshot lists the newest outputs without confirmation counts,
 * so it changes only when money does.
 */
import type { BalanceSnapshot, ReceivedOutput, WatchScanOutput } from "../scanner.js";
import { confirmationsAt, isUnlocked } from "./chain-rules.js";
import type { PendingOutput } from "./mempool.js";
import { byChainOrder, type WatchWork } from "./scan-state.js";

export interface SnapshotOptions {
  /** Confirmations before an output counts in balanceAtomic. */
  confirmations: number;
  /** Outputs listed in the snapshot (newest). */
  snapshotOutputs: number;
  nowMs: number;
}

type ListedOutput = ReceivedOutput & { status: "confirmed" | "pending"; unlocked: boolean; doubleSpendSeen?: boolean };

export function summarizeWatch(w: WatchWork, tip: number, pending: PendingOutput[], opts: SnapshotOptions): WatchScanOutput {
  const st = w.state;
  let balance = BigInt(st.settled.atomic);
  let pendingAtomic = 0n;
  const outputs: ListedOutput[] = [];
  const sorted = [...st.outputs].sort(byChainOrder);
  const known = new Set(sorted.map((o) => o.publicKey));
  for (const o of sorted) {
    const conf = confirmationsAt(o.height, tip);
    const unlocked = isUnlocked(BigInt(o.unlockTime), tip, opts.nowMs);
    const confirmed = conf >= Math.max(1, opts.confirmations) && unlocked;
    const amount = BigInt(o.amount);
    if (confirmed) balance += amount;
    else pendingAtomic += amount;
    outputs.push({
      txid: o.txid,
      index: String(o.index),
      amountAtomic: o.amount,
      height: o.height,
      confirmations: conf,
      ...(o.subaddress ? { subaddress: o.subaddress } : {}),
      status: confirmed ? "confirmed" : "pending",
      unlocked,
    });
  }
  for (const p of pending) {
    if (known.has(p.out.publicKey)) continue; // already mined (or a duplicate key): counted once
    known.add(p.out.publicKey);
    pendingAtomic += p.out.amount;
    const sub = p.out.subaddress && p.out.subaddress.major >= 0 ? p.out.subaddress : undefined;
    outputs.push({
      txid: p.txid,
      index: String(p.out.outputIndex),
      amountAtomic: p.out.amount.toString(),
      height: null,
      confirmations: 0,
      ...(sub ? { subaddress: { major: sub.major, minor: sub.minor } } : {}),
      status: "pending",
      unlocked: false,
      ...(p.doubleSpendSeen ? { doubleSpendSeen: true } : {}),
    });
  }
  const snapshot: BalanceSnapshot = {
    balanceAtomic: balance.toString(),
    pendingAtomic: pendingAtomic.toString(),
    receivedAtomic: (balance + pendingAtomic).toString(),
    scannedHeight: st.scannedHeight,
    confirmationsRequired: opts.confirmations,
    outputCount: st.settled.count + outputs.length,
    outputs: outputs.slice(-opts.snapshotOutputs).map((o) => ({
      txid: o.txid,
      index: o.index,
      amountAtomic: o.amountAtomic,
      height: o.height,
      status: o.status,
      subaddress: o.subaddress ?? null,
    })),
  };
  return {
    watchId: w.input.watchId,
    state: st,
    snapshot,
    outputs: outputs.map(({ status: _s, unlocked: _u, ...o }) => o),
    caughtUp: st.scannedHeight >= tip,
  };
}
