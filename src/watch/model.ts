/** Pure helpers shared by the watch services and the tick: row ↔ meter, snapshots, event bodies. */
import { randomBytes } from "node:crypto";
import type { Clock } from "../core/clock.js";
import type { WatchesTable } from "../db/schema.js";
import { creditBlock, DAY_MS, idleExhaustionMs, type MeterState } from "./meter.js";
import type { BalanceSnapshot } from "../chains/scanner.js";
import type { WatchEvent } from "./events.js";
import { isWebhookBodyWithinLimit } from "../webhooks/deliver.js";

/** Days a watch at zero credit is kept (paused) before it is deleted, so a top-up can revive it. */
export const ZERO_CREDIT_GRACE_DAYS = 30;

/** Rows per multi-row statement: 1000 × 13 columns stays far below PostgreSQL's 65535 bind parameters. */
export const SQL_ROWS_PER_STATEMENT = 1000;

export type WatchRow = Pick<WatchesTable, "credit_atomic" | "drained_through_ms" | "drain_remainder" | "low_credit_armed"> & {
  drain_unbooked_atomic: string | bigint;
  drain_unbooked_from_ms: string | bigint;
};

export function meterOf(row: WatchRow): MeterState {
  return {
    creditAtomic: BigInt(row.credit_atomic),
    drainedThroughMs: Number(row.drained_through_ms),
    drainRemainder: BigInt(row.drain_remainder),
    lowCreditArmed: row.low_credit_armed,
    unbookedDrain: BigInt(row.drain_unbooked_atomic),
    unbookedFromMs: Number(row.drain_unbooked_from_ms),
  };
}

export function meterColumns(m: MeterState): {
  credit_atomic: string;
  drained_through_ms: string;
  drain_remainder: string;
  low_credit_armed: boolean;
  drain_unbooked_atomic: string;
  drain_unbooked_from_ms: string;
} {
  return {
    credit_atomic: m.creditAtomic.toString(),
    drained_through_ms: String(m.drainedThroughMs),
    drain_remainder: m.drainRemainder.toString(),
    low_credit_armed: m.lowCreditArmed,
    drain_unbooked_atomic: m.unbookedDrain.toString(),
    drain_unbooked_from_ms: String(m.unbookedFromMs),
  };
}

/**
 * expiresAt: when idle drain alone would exhaust the credit, plus a grace
 * period in which a top-up revives the watch. Recomputed on every credit change.
 */
export function expiresAtFor(m: MeterState, nowMs: number): Date {
  const exhausted = idleExhaustionMs(m) ?? nowMs;
  return new Date(Math.max(exhausted, nowMs) + ZERO_CREDIT_GRACE_DAYS * DAY_MS);
}

export function emptySnapshot(startHeight: number): BalanceSnapshot {
  return { balanceAtomic: "0", pendingAtomic: "0", scannedHeight: Math.max(0, startHeight - 1) };
}

export function snapshotOf(value: unknown, startHeight: number): BalanceSnapshot {
  if (value && typeof value === "object" && "balanceAtomic" in value) return value as BalanceSnapshot;
  return emptySnapshot(startHeight);
}

export interface WatchIdentity {
  id: string;
  chain: string;
  address: string;
}

export interface EventBody {
  watchId: string;
  chain: string;
  address: string;
  event: WatchEvent;
  timestamp: string;
  nonce: string;
  previous: BalanceSnapshot;
  current: BalanceSnapshot;
  delta: {
    balance_atomic: string;
    before_atomic: string;
    after_atomic: string;
    pending_atomic: string;
    /** Signed change of `pendingSpentAtomic` (outgoing in the mempool), when the chain reports it (Zcash). */
    pending_spent_atomic?: string;
  };
  credit: ReturnType<typeof creditBlock>;
  [extra: string]: unknown;
}

export function newNonce(): string {
  return `evt_${randomBytes(16).toString("hex")}`;
}

/** The webhook body of the spec's table; extra fields (e.g. a status) go after the required ones. */
export function eventBody(
  w: WatchIdentity,
  event: WatchEvent,
  previous: BalanceSnapshot,
  current: BalanceSnapshot,
  meter: MeterState,
  clock: Clock,
  extra: Record<string, unknown> = {},
): EventBody {
  const before = BigInt(previous.balanceAtomic);
  const after = BigInt(current.balanceAtomic);
  return {
    watchId: w.id,
    chain: w.chain,
    address: w.address,
    event,
    timestamp: new Date(clock.now()).toISOString(),
    nonce: newNonce(),
    previous,
    current,
    delta: {
      balance_atomic: (after - before).toString(),
      before_atomic: before.toString(),
      after_atomic: after.toString(),
      pending_atomic: (BigInt(current.pendingAtomic) - BigInt(previous.pendingAtomic)).toString(),
      ...(current.pendingSpentAtomic !== undefined ? { pending_spent_atomic: (pendingSpentOf(current) - pendingSpentOf(previous)).toString() } : {}),
    },
    credit: creditBlock(meter, clock),
    ...extra,
  };
}

/** Whether a new snapshot differs from the previous one in a way the receiver must hear about. */
export function balanceChanged(previous: BalanceSnapshot, current: BalanceSnapshot): boolean {
  return previous.balanceAtomic !== current.balanceAtomic || previous.pendingAtomic !== current.pendingAtomic || pendingSpentOf(previous) !== pendingSpentOf(current);
}

/** Outgoing amount in the mempool (Zcash snapshots; 0 for a chain or an older snapshot without it). */
function pendingSpentOf(s: BalanceSnapshot): bigint {
  return typeof s.pendingSpentAtomic === "string" && /^\d+$/.test(s.pendingSpentAtomic) ? BigInt(s.pendingSpentAtomic) : 0n;
}

/**
 * The exact bytes sent, at most 64 KB: if a snapshot's per-output lists would
 * push a body over, they are left out (totals stay) and `truncated` says so.
 */
export function serializeEvent(body: EventBody): string {
  const full = JSON.stringify(body);
  if (isWebhookBodyWithinLimit(full)) return full;
  const strip = (s: EventBody["current"]) => Object.fromEntries(Object.entries(s).filter(([, v]) => !Array.isArray(v)));
  const slim = JSON.stringify({ ...body, previous: strip(body.previous), current: strip(body.current), truncated: true });
  if (!isWebhookBodyWithinLimit(slim)) throw new Error(`webhook body for ${body.event} exceeds 64 KB even without output lists`);
  return slim;
}
