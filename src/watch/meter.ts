/**
 * The Private Watch credit meter. Pure: no I/O, no ambient time. Every function
 * takes a state and returns the next state plus the ledger rows the caller
 * writes in the same transaction as the state change.
 *
 * Idle drain is exact: billing is carried in atomic·milliseconds so that any
 * split of a period into ticks bills exactly floor(total_ms × rate / day) in
 * total. `drainRemainder` is the sub-atomic part not billed yet
 * (0 ≤ drainRemainder < DAY_MS).
 *
 * Low credit: a watch starts armed. The first debit that leaves the balance
 * below LOW_CREDIT_THRESHOLD while armed returns `emitLowCredit: true` and
 * disarms. Only a top-up of at least the threshold re-arms it. A watch created
 * below the threshold (coin grace credit) warns on its first debit.
 *
 * The ledger is exact, append-only and bounded (docs/private-watch.md,
 * "The ledger"; docs/operations.md): the idle drain is taken from the credit at every tick but
 * booked as a ledger row only
 *   - at the first drain after a UTC midnight (covering the days since the
 *     last booked drain),
 *   - just before any other ledger row of the watch (delivery, top-up,
 *     settlement fee, forfeit), so each row's balance_after is exact,
 *   - when the drain takes the credit to zero.
 * Until then it is carried in `unbookedDrain`; at all times
 * sum(ledger) = creditAtomic + unbookedDrain, and sum(ledger) = creditAtomic
 * right after any row. That is at most one drain row per watch per UTC day
 * plus one per credit event, instead of one per tick.
 *
 * At zero: no idle drain accrues (the period at zero is never billed later),
 * deliveries are not charged (the caller must not deliver), and a top-up
 * restarts the drain clock at the top-up time.
 */
import type { Clock } from "../core/clock.js";
import { formatUsdcFixed } from "../core/money.js";

export const DAY_MS = 86_400_000;
const DAY_MS_N = BigInt(DAY_MS);

/** Idle drain, atomic USDC per UTC day (USD 0.02). */
export const IDLE_RATE_PER_DAY = 20000n;
/** Charge per delivered webhook (USD 0.005). */
export const PER_DELIVERY = 5000n;
/** `low_credit` fires when credit first falls below this (USD 0.05). */
export const LOW_CREDIT_THRESHOLD = 50000n;
/** Creation fee = opening credit of a paid watch (USD 0.10). */
export const CREATE_CREDIT = 100000n;

export interface MeterState {
  /** Remaining credit, atomic USDC. Never negative. */
  creditAtomic: bigint;
  /** Idle drain has been billed up to this instant (ms since epoch). */
  drainedThroughMs: number;
  /** Unbilled atomic·ms carried to the next tick, in [0, DAY_MS). */
  drainRemainder: bigint;
  /** Whether the next fall below the threshold emits `low_credit`. */
  lowCreditArmed: boolean;
  /** Idle drain already taken from creditAtomic but not yet written as a ledger row (atomic). */
  unbookedDrain: bigint;
  /** Start of the period `unbookedDrain` covers (ms since epoch); meaningless while it is 0. */
  unbookedFromMs: number;
}

const utcDay = (ms: number): number => Math.floor(ms / DAY_MS);

/** The carried drain as one ledger row (none when nothing is carried), and the state without it. */
function bookDrain(state: MeterState, throughMs: number): { state: MeterState; entries: LedgerEntry[] } {
  if (state.unbookedDrain === 0n) return { state, entries: [] };
  return {
    state: { ...state, unbookedDrain: 0n },
    entries: [
      {
        kind: "idle_drain",
        amountAtomic: -state.unbookedDrain,
        balanceAfter: state.creditAtomic,
        reason: `idle drain ${iso(state.unbookedFromMs)}..${iso(throughMs)}`,
      },
    ],
  };
}

export type LedgerKind = "create" | "topup" | "idle_drain" | "delivery" | "settlement_fee" | "forfeit";

export interface LedgerEntry {
  kind: LedgerKind;
  /** Signed change: positive credits, negative debits. Never zero. */
  amountAtomic: bigint;
  /** Balance after this entry. */
  balanceAfter: bigint;
  reason: string;
}

export interface MeterResult {
  state: MeterState;
  /** Ledger rows in order; empty when nothing changed. */
  entries: LedgerEntry[];
  /** True exactly once per arming: emit a `low_credit` event now. */
  emitLowCredit: boolean;
}

/** The credit block of the spec (webhook bodies, status, top-up answers). */
export interface CreditBlock {
  remaining_atomic: string;
  remaining_usd: string;
  days_remaining: number;
  low_credit: boolean;
  rate_per_day_atomic: string;
  rate_per_call_atomic: string;
  low_credit_threshold_atomic: string;
}

function assertMs(ms: number, name: string): void {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`${name} must be an integer number of milliseconds`);
}

function assertPositive(amount: bigint, name: string): void {
  if (typeof amount !== "bigint" || amount <= 0n) throw new RangeError(`${name} must be a positive bigint`);
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** `low_credit` must be emitted for this state (armed and below the threshold). */
export function lowCreditCrossed(state: MeterState): boolean {
  return state.lowCreditArmed && state.creditAtomic < LOW_CREDIT_THRESHOLD;
}

/** After a debit: emit once and disarm if the threshold was crossed. */
function afterDebit(state: MeterState, entries: LedgerEntry[]): MeterResult {
  if (lowCreditCrossed(state)) return { state: { ...state, lowCreditArmed: false }, entries, emitLowCredit: true };
  return { state, entries, emitLowCredit: false };
}

/** Debits up to `amount` (never below zero), booking any carried drain first. */
function debit(state: MeterState, kind: LedgerKind, amount: bigint, reason: string): MeterResult {
  if (state.creditAtomic === 0n) return { state, entries: [], emitLowCredit: false };
  const booked = bookDrain(state, state.drainedThroughMs);
  const charged = amount < state.creditAtomic ? amount : state.creditAtomic;
  const creditAtomic = state.creditAtomic - charged;
  const capped = charged < amount ? ` (capped at balance; ${amount - charged} atomic not charged)` : "";
  const next = { ...booked.state, creditAtomic };
  return afterDebit(next, [...booked.entries, { kind, amountAtomic: -charged, balanceAfter: creditAtomic, reason: reason + capped }]);
}

/** A new meter with `creditAtomic` opening credit (CREATE_CREDIT for a paid watch, grace credit for a coin one). */
export function openMeter(creditAtomic: bigint, nowMs: number, reason = "watch created"): MeterResult {
  assertMs(nowMs, "nowMs");
  if (typeof creditAtomic !== "bigint" || creditAtomic < 0n) throw new RangeError("creditAtomic must be a non-negative bigint");
  const state: MeterState = { creditAtomic, drainedThroughMs: nowMs, drainRemainder: 0n, lowCreditArmed: true, unbookedDrain: 0n, unbookedFromMs: nowMs };
  const entries: LedgerEntry[] = creditAtomic > 0n ? [{ kind: "create", amountAtomic: creditAtomic, balanceAfter: creditAtomic, reason }] : [];
  return { state, entries, emitLowCredit: false };
}

/**
 * Bills idle drain from `state.drainedThroughMs` to `toMs`:
 * floor((elapsed × IDLE_RATE_PER_DAY + carried) / DAY_MS), the rest carried.
 * The amount leaves the credit at once; its ledger row is written when the
 * period crosses a UTC midnight or the credit reaches zero (see the top).
 * A `toMs` not after the billed-through instant changes nothing.
 */
export function applyIdleDrain(state: MeterState, toMs: number): MeterResult {
  assertMs(toMs, "toMs");
  const fromMs = state.drainedThroughMs;
  if (toMs <= fromMs) return { state, entries: [], emitLowCredit: false };
  if (state.creditAtomic === 0n) {
    // Time at zero credit is not billed, now or later.
    return { state: { ...state, drainedThroughMs: toMs, drainRemainder: 0n }, entries: [], emitLowCredit: false };
  }
  const numerator = BigInt(toMs - fromMs) * IDLE_RATE_PER_DAY + state.drainRemainder;
  const due = numerator / DAY_MS_N;
  const carried = numerator % DAY_MS_N;
  const charged = due < state.creditAtomic ? due : state.creditAtomic;
  const creditAtomic = state.creditAtomic - charged;
  let next: MeterState = {
    ...state,
    creditAtomic,
    drainedThroughMs: toMs,
    drainRemainder: creditAtomic === 0n ? 0n : carried,
    unbookedDrain: state.unbookedDrain + charged,
    unbookedFromMs: state.unbookedDrain === 0n ? fromMs : state.unbookedFromMs,
  };
  let entries: LedgerEntry[] = [];
  if (next.unbookedDrain > 0n && (creditAtomic === 0n || utcDay(next.unbookedFromMs) !== utcDay(toMs))) {
    ({ state: next, entries } = bookDrain(next, toMs));
    if (charged < due) entries[0] = { ...entries[0]!, reason: `${entries[0]!.reason} (capped at balance; ${due - charged} atomic not charged)` };
  }
  if (charged === 0n) return { state: next, entries, emitLowCredit: false };
  return afterDebit(next, entries);
}

/** Charges one delivered webhook (PER_DELIVERY, capped at the balance). No entry at zero. */
export function chargeDelivery(state: MeterState, reason = "webhook delivered"): MeterResult {
  return debit(state, "delivery", PER_DELIVERY, reason);
}

/** Charges a flat fee (e.g. the checkout settlement fee), capped at the balance. */
export function chargeSettlementFee(state: MeterState, amountAtomic: bigint, reason = "checkout settlement fee"): MeterResult {
  assertPositive(amountAtomic, "amountAtomic");
  return debit(state, "settlement_fee", amountAtomic, reason);
}

/**
 * Adds credit. A top-up of at least LOW_CREDIT_THRESHOLD re-arms `low_credit`.
 * A top-up of a drained (zero) watch restarts the drain clock at `nowMs`.
 */
export function applyTopup(state: MeterState, amountAtomic: bigint, nowMs: number, reason = "top-up"): MeterResult {
  assertPositive(amountAtomic, "amountAtomic");
  assertMs(nowMs, "nowMs");
  const booked = bookDrain(state, state.drainedThroughMs);
  let next: MeterState = { ...booked.state, creditAtomic: state.creditAtomic + amountAtomic };
  if (state.creditAtomic === 0n) {
    next = { ...next, drainedThroughMs: Math.max(state.drainedThroughMs, nowMs), drainRemainder: 0n };
  }
  if (amountAtomic >= LOW_CREDIT_THRESHOLD) next = { ...next, lowCreditArmed: true };
  return {
    state: next,
    entries: [...booked.entries, { kind: "topup", amountAtomic, balanceAfter: next.creditAtomic, reason }],
    emitLowCredit: false,
  };
}

/** Cancellation: the remaining credit is forfeited. */
export function forfeitCredit(state: MeterState, reason = "watch cancelled"): MeterResult {
  if (state.creditAtomic === 0n) return { state, entries: [], emitLowCredit: false };
  const booked = bookDrain(state, state.drainedThroughMs);
  const amount = state.creditAtomic;
  return {
    state: { ...booked.state, creditAtomic: 0n, drainRemainder: 0n },
    entries: [...booked.entries, { kind: "forfeit", amountAtomic: -amount, balanceAfter: 0n, reason }],
    emitLowCredit: false,
  };
}

/** A watch is polled (and may deliver) only while it has credit. */
export function isPollable(state: MeterState): boolean {
  return state.creditAtomic > 0n;
}

/**
 * The instant at which idle drain alone takes the balance to zero: the least
 * t with applyIdleDrain(state, t) leaving 0. Null at zero credit.
 */
export function idleExhaustionMs(state: MeterState): number | null {
  if (state.creditAtomic === 0n) return null;
  // least elapsed e with e × rate + remainder ≥ credit × DAY
  const need = state.creditAtomic * DAY_MS_N - state.drainRemainder;
  const elapsed = (need + IDLE_RATE_PER_DAY - 1n) / IDLE_RATE_PER_DAY;
  return state.drainedThroughMs + Number(elapsed);
}

/**
 * The spec's credit block as of `clock.now()`: the booked balance minus the
 * idle drain accrued since the last tick (exactly what a tick now would
 * bill), so status between ticks does not overstate the credit.
 * `remaining_usd` has six decimals ("0.095000"); `days_remaining` is the idle
 * days left, floored to three decimals.
 */
export function creditBlock(state: MeterState, clock: Clock): CreditBlock {
  const remaining = applyIdleDrain(state, Math.max(state.drainedThroughMs, Math.floor(clock.now()))).state.creditAtomic;
  return {
    remaining_atomic: remaining.toString(),
    remaining_usd: formatUsdcFixed(remaining),
    days_remaining: Number((remaining * 1000n) / IDLE_RATE_PER_DAY) / 1000,
    low_credit: remaining < LOW_CREDIT_THRESHOLD,
    rate_per_day_atomic: IDLE_RATE_PER_DAY.toString(),
    rate_per_call_atomic: PER_DELIVERY.toString(),
    low_credit_threshold_atomic: LOW_CREDIT_THRESHOLD.toString(),
  };
}
