/**
 * What one tick writes for one watch, decided without I/O: the idle drain to
 * bill, the events to queue (low_credit, balance_change, scan_complete), the
 * watch row's next state and what the scan found for subscribers.
 *
 * The drain is computed once when the batch is leased; if a top-up committed
 * since (the meter as locked in the batch transaction differs), it is
 * recomputed from the locked row, so the top-up is never lost.
 */
import type { BalanceSnapshot, ScanState, WatchScanOutput } from "../chains/scanner.js";
import type { Clock } from "../core/clock.js";
import { diffOutputs, readKnownOutputs, type FindingsDiff } from "./findings.js";
import { applyIdleDrain, isPollable, type LedgerEntry, type MeterState } from "./meter.js";
import { balanceChanged, eventBody, expiresAtFor, meterColumns, meterOf, snapshotOf, type WatchRow } from "./model.js";
import type { LedgerRow, PendingEvent, WatchUpdate } from "./account.js";
import type { ClaimedWatch } from "./tick-leases.js";

/** A watch's meter after the idle drain up to the tick's instant. */
export interface DrainedMeter {
  state: MeterState;
  entries: LedgerEntry[];
  lowCredit: boolean;
}

export function drainTo(row: WatchRow, nowMs: number): DrainedMeter {
  const r = applyIdleDrain(meterOf(row), nowMs);
  return { state: r.state, entries: r.entries, lowCredit: r.emitLowCredit };
}

export function sameMeter(a: WatchRow, b: WatchRow): boolean {
  return (
    String(a.credit_atomic) === String(b.credit_atomic) &&
    String(a.drained_through_ms) === String(b.drained_through_ms) &&
    String(a.drain_remainder) === String(b.drain_remainder) &&
    a.low_credit_armed === b.low_credit_armed &&
    String(a.drain_unbooked_atomic) === String(b.drain_unbooked_atomic) &&
    String(a.drain_unbooked_from_ms) === String(b.drain_unbooked_from_ms)
  );
}

export interface WatchPlan {
  update: WatchUpdate;
  events: PendingEvent[];
  ledger: LedgerRow[];
  /** null when the watch was not scanned this tick. */
  found: FindingsDiff | null;
}

/**
 * The confirmation depth a chain counts balances at, as its scanner states it
 * in the snapshot (`confirmationsRequired`); 1 when it does not say.
 */
export function confirmationDepthOf(snapshot: BalanceSnapshot): number {
  const d = snapshot.confirmationsRequired;
  return typeof d === "number" && Number.isInteger(d) ? Math.max(1, d) : 1;
}

export function planWatch(input: {
  watch: ClaimedWatch;
  /** The meter columns as locked in the batch transaction. */
  locked: WatchRow;
  /** The drain computed at lease time from `watch`. */
  drained: DrainedMeter;
  scan: WatchScanOutput | undefined;
  nowMs: number;
  clock: Clock;
}): WatchPlan {
  const { watch: w, locked, drained, scan: out, nowMs, clock } = input;
  // A top-up that committed since the lease changed the meter: bill from the fresh row, not the stale copy.
  const m = sameMeter(locked, w) ? drained : drainTo(locked, nowMs);
  const identity = { id: w.id, chain: w.chain, address: w.address };
  const events: PendingEvent[] = [];
  const ledger: LedgerRow[] = m.entries.map((e) => ({
    watch_id: w.id,
    kind: e.kind,
    amount_atomic: e.amountAtomic.toString(),
    balance_after: e.balanceAfter.toString(),
    reason: e.reason,
    ref: null,
  }));
  const previous = snapshotOf(w.snapshot, w.start_height);
  if (m.lowCredit) {
    events.push({ watchId: w.id, billable: true, body: eventBody(identity, "low_credit", previous, previous, m.state, clock) });
  }
  let initialDone = w.initial_scan_done;
  if (out) {
    if (balanceChanged(previous, out.snapshot)) {
      events.push({ watchId: w.id, billable: true, body: eventBody(identity, "balance_change", previous, out.snapshot, m.state, clock) });
    }
    if (!initialDone && (out.caughtUp ?? true)) {
      initialDone = true;
      events.push({
        watchId: w.id,
        billable: true,
        body: eventBody(identity, "scan_complete", out.snapshot, out.snapshot, m.state, clock, {
          scan: { fromHeight: w.start_height, toHeight: out.snapshot.scannedHeight },
        }),
      });
    }
  }
  const diff = out
    ? diffOutputs(readKnownOutputs(w.known_outputs), out.outputs, {
        depth: confirmationDepthOf(out.snapshot),
        scannedHeight: out.snapshot.scannedHeight,
      })
    : null;
  // A watch scanned before the tick kept its outputs has no memory to compare with: its first diff
  // only records the baseline, so old payments are never announced to subscribers as new.
  // The memory is written on a watch's first scan too (even empty), so "no memory" means "older than it".
  const noMemory = w.known_outputs == null;
  const baselineOnly = noMemory && w.scan_state != null;
  const found = !diff
    ? null
    : baselineOnly
      ? { ...diff, findings: { new: [], confirmed: [], reorged: [] }, changed: true }
      : noMemory
        ? { ...diff, changed: true }
        : diff;
  return {
    update: {
      id: w.id,
      meter: meterColumns(m.state),
      scanState: out?.state ?? (w.scan_state as ScanState | null),
      snapshot: out?.snapshot ?? (w.snapshot as BalanceSnapshot | null),
      initialDone,
      expiresAt: expiresAtFor(m.state, nowMs),
      polled: Boolean(out),
      dueNow: out?.caughtUp === false || (!isPollable(drained.state) && isPollable(m.state)),
    },
    events,
    ledger,
    found,
  };
}
