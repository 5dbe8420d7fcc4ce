/**
 * Monero's rules for when a received output counts, as wallet2 applies them:
 * confirmations from the tip, and unlock_time read as a height below
 * CRYPTONOTE_MAX_BLOCK_NUMBER and as a Unix time above it. Also the
 * subaddress look-ahead a watch scans, from its configured form.
 */
import { DEFAULT_LOOKAHEAD, MAX_LOOKAHEAD_KEYS } from "./keys.js";
import type { SubaddressLookahead } from "./types.js";

/** unlock_time values below this are block heights, above are Unix times (CRYPTONOTE_MAX_BLOCK_NUMBER). */
export const MAX_BLOCK_NUMBER = 500_000_000n;
/** Seconds of slack wallet2 allows on time-based unlocks (CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_SECONDS_V2). */
const UNLOCK_DELTA_SECONDS = 120n;

/** Confirmations of an output mined at `height` when the newest block is `tip` (a tx in the top block has 1). */
export function confirmationsAt(height: number | null, tip: number): number {
  if (height === null) return 0;
  return Math.max(0, tip - height + 1);
}

/** Whether an output's unlock_time has passed (wallet2 is_tx_spendtime_unlocked). */
export function isUnlocked(unlockTime: bigint, tip: number, nowMs: number): boolean {
  if (unlockTime === 0n) return true;
  if (unlockTime < MAX_BLOCK_NUMBER) return BigInt(tip) + 1n >= unlockTime;
  return BigInt(Math.floor(nowMs / 1000)) + UNLOCK_DELTA_SECONDS >= unlockTime;
}

/** A look-ahead from config: N → minors 0..N−1 in accounts 0..1, kept within MAX_LOOKAHEAD_KEYS. */
export function lookaheadFrom(v: SubaddressLookahead | number | undefined): SubaddressLookahead {
  if (v === undefined) return DEFAULT_LOOKAHEAD;
  if (typeof v === "number") {
    const accounts = DEFAULT_LOOKAHEAD.accounts;
    const minors = Math.min(Math.max(1, Math.floor(v)), Math.floor(MAX_LOOKAHEAD_KEYS / accounts));
    return { accounts, minors };
  }
  return v;
}
