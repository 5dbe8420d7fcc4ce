/**
 * Notice ranking, pure: no clock, no database.
 *
 * Model: every boost adds its amount (atomic USDC) to a score that halves
 * every BOOST_HALF_LIFE_MS (7 days). The score of a notice at time t is
 *   Σ amount_i × 0.5^((t − t_i) / H)
 * over its boosts. Because the decay is exponential, the sum is carried as one
 * (anchor score, anchor time) pair: a boost at t sets
 *   anchor := anchor × 0.5^((t − anchor_ms) / H) + amount, anchor_ms := t.
 *
 * Order: boosted notices (any paid weight) first, by decayed score, highest
 * first; then unboosted notices, newest first; ties by id so the order is
 * total and stable. The score is a ranking number (a float), never money: the
 * money paid is `weightAtomic`, an exact bigint.
 *
 * Scores are evaluated at `rankingTime(now)`, the start of the current minute,
 * so that a read is the same bytes (and ETag) for a minute when nothing changed.
 */

export const BOOST_HALF_LIFE_MS = 7 * 24 * 3600 * 1000;
/** Scores are computed as of the start of the minute (cacheable reads). */
export const RANKING_STEP_MS = 60_000;

export interface BoostState {
  /** Decayed boost score at anchorMs (atomic USDC units, fractional). */
  anchor: number;
  anchorMs: number;
}

export interface RankInput extends BoostState {
  id: string;
  createdMs: number;
  /** Total paid in boosts, atomic USDC; 0 = unboosted. */
  weightAtomic: bigint;
}

export function rankingTime(nowMs: number): number {
  return nowMs - (((nowMs % RANKING_STEP_MS) + RANKING_STEP_MS) % RANKING_STEP_MS);
}

/** The score at `atMs`; a time before the anchor (clock skew) counts as no decay. */
export function decayedScore(state: BoostState, atMs: number): number {
  const age = Math.max(0, atMs - state.anchorMs);
  return state.anchor * Math.pow(0.5, age / BOOST_HALF_LIFE_MS);
}

/** The state after a boost of `amountAtomic` at `atMs`. */
export function applyBoost(state: BoostState, amountAtomic: bigint, atMs: number): BoostState {
  if (amountAtomic <= 0n) throw new RangeError("a boost amount is positive");
  const at = Math.max(atMs, state.anchorMs);
  return { anchor: decayedScore(state, at) + Number(amountAtomic), anchorMs: at };
}

/** Negative when a ranks above b. */
export function compareNotices(a: RankInput, b: RankInput, atMs: number): number {
  const aBoosted = a.weightAtomic > 0n;
  const bBoosted = b.weightAtomic > 0n;
  if (aBoosted !== bBoosted) return aBoosted ? -1 : 1;
  if (aBoosted) {
    const d = decayedScore(b, atMs) - decayedScore(a, atMs);
    if (d !== 0) return d;
  }
  if (a.createdMs !== b.createdMs) return b.createdMs - a.createdMs;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A new array in rank order (the input is not changed). */
export function rankNotices<T extends RankInput>(notices: readonly T[], atMs: number): T[] {
  return [...notices].sort((a, b) => compareNotices(a, b, atMs));
}
