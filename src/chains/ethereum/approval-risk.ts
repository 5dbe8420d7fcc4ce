/**
 * The vocabulary of approval risk, shared by the counter-MEV feed
 * (feeds/counter-mev.ts, which computes it) and the address-risk question
 * (oracle/questions/address-risk.ts, which reads one address's share of it
 * through a function app.ts hands in). It lives with the chain because the
 * oracle may not import the feeds (docs/architecture.md); the scoring itself
 * stays in the feed.
 *
 * Bands (docs/feeds.md, Counter-MEV): critical ≥ 90, or an exploit/blocklist
 * factor with a live unlimited allowance; high 60–89; medium 25–59; low
 * 1–24; 0 is no risk signal (null).
 */

export const BANDS = ["critical", "high", "medium", "low"] as const;
export type Band = (typeof BANDS)[number];

export function bandOf(score: number, severeUnlimited = false): Band | null {
  if (score >= 90 || severeUnlimited) return "critical";
  if (score >= 60) return "high";
  if (score >= 25) return "medium";
  if (score >= 1) return "low";
  return null;
}

/** A spender in these bands is "flagged": its approvals make a token risky and an owner's allowance dangling. */
export const isFlaggedBand = (band: Band | null | undefined): boolean => band === "critical" || band === "high";

/** A token counts as risky from this score (the feed's `risky_tokens` total, the address-risk `risky_token` flag). */
export const RISKY_TOKEN_SCORE = 25;

/** What the approval scan knows of one address, scored as the feed scores it (the same functions, the same window). */
export interface ApprovalRisk {
  /** Whether the scan has run at all. */
  present: boolean;
  window: { from_block: number; to_block: number; blocks: number };
  /** Age of the newest scanned block (s); null before the first scan. */
  age_s: number | null;
  stale: boolean;
  /** The address as an approval spender. */
  spender: { risk_score: number; risk_band: Band | null; distinct_victims: number; unlimited_live: boolean; factors: string[]; top_flag: string | null } | null;
  /** The address as a token with live approvals. */
  token: { risk_score: number; risk_band: Band | null; approvals: number; flagged_share: number; factors: string[]; top_flag: string | null } | null;
  /** Its own live allowances that are dangling (it is the owner), riskiest first. */
  dangling: { token: string; spender: string; unlimited: boolean; risk_score: number; risk_band: Band; reason: string }[];
  /** Reverted transactions it sent in the window (a bleeding bot at BOT_MIN_FAILS). */
  failed_txs: number;
}
