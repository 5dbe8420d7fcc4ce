/**
 * What the one-off historical scans of every chain share
 * (POST /v1/private/historical: monero/historical.ts, zcash/historical.ts):
 * the limits and their defaults, the refusals of a range (400
 * `invalid_height`, 400 `range_too_large` with a suggested birthdayHeight;
 * the height-above-tip check is also the watch birthday's),
 * the run's deadline (504 `scan_timeout` with how far it got) and the totals
 * every answer carries. The chains differ in what a key sees and how blocks
 * are read; that stays in their modules.
 */
import { badRequest, ServiceError } from "../core/errors.js";

/** Longest range accepted by default (HISTORICAL_MAX_BLOCKS). */
export const HISTORICAL_MAX_BLOCKS = 20_000;
/** Run-time budget of one call by default (ms). */
export const HISTORICAL_DEADLINE_MS = 25_000;
/** Said with every range refusal. */
export const NARROW_THE_RANGE = "Use a later birthdayHeight or an earlier toHeight, and split longer histories into several calls.";

export interface HistoricalLimits {
  maxBlocks: number;
  deadlineMs: number;
}

export function historicalLimits(opts: { maxBlocks?: number; deadlineMs?: number }): HistoricalLimits {
  return { maxBlocks: Math.max(1, opts.maxBlocks ?? HISTORICAL_MAX_BLOCKS), deadlineMs: opts.deadlineMs ?? HISTORICAL_DEADLINE_MS };
}

/**
 * A height a caller gave against the chain tip: the 400 `invalid_height` when
 * it is above `tip + marginBlocks`. The historical scan allows no margin (it
 * reads blocks that exist); a watch's birthday allows a few days of blocks
 * (watch/service.ts), since a wallet may be made before its first block is mined.
 */
export function checkHeightAgainstTip(
  height: number,
  tip: number,
  field: { name: string; detail: string },
  marginBlocks = 0,
): void {
  const limit = tip + marginBlocks;
  if (height <= limit) return;
  throw badRequest(
    "invalid_height",
    marginBlocks === 0
      ? `${field.name} ${height} is above the chain tip ${tip}.`
      : `${field.name} ${height} is more than ${marginBlocks} blocks above the chain tip ${tip} (at most ${limit}).`,
    { [field.detail]: height, tip_height: tip, ...(marginBlocks === 0 ? {} : { max_height: limit }) },
  );
}

/** The range from..to against the tip and the block limit; its length in blocks, or the 400 that refuses it. */
export function checkHistoricalRange(from: number, to: number, tip: number, maxBlocks: number): number {
  if (!Number.isInteger(from) || from < 0) throw badRequest("invalid_height", "birthdayHeight must be a non-negative integer.");
  if (!Number.isInteger(to) || to < 0) throw badRequest("invalid_height", "toHeight must be a non-negative integer.");
  checkHeightAgainstTip(to, tip, { name: "toHeight", detail: "to_height" });
  if (from > to) throw badRequest("invalid_height", `birthdayHeight ${from} is above toHeight ${to}.`, { from_height: from, to_height: to });
  const blocks = to - from + 1;
  if (blocks > maxBlocks) {
    throw badRequest(
      "range_too_large",
      `The range ${from}..${to} is ${blocks} blocks; at most ${maxBlocks} are scanned per call. ${NARROW_THE_RANGE}`,
      { requested_blocks: blocks, max_blocks: maxBlocks, suggested_birthday_height: to - maxBlocks + 1 },
    );
  }
  return blocks;
}

/**
 * A run's deadline, counted from when the call started (the tip read included):
 * `check(through)` throws 504 scan_timeout, naming the last block scanned, once it has passed.
 */
export function scanDeadline(deadlineMs: number, started = Date.now()) {
  return {
    check(through: number, from: number, to: number): void {
      if (Date.now() - started <= deadlineMs) return;
      throw new ServiceError("scan_timeout", `The scan ran out of time after block ${through} (budget ${Math.round(deadlineMs / 1000)} s). Narrow the range and retry.`, {
        scanned_through: through,
        from_height: from,
        to_height: to,
        deadline_ms: deadlineMs,
      });
    },
  };
}

/** The totals of every historical answer (atomic units of the chain, as strings). */
export interface HistoricalTotals {
  network: string;
  from_height: number;
  to_height: number;
  tip_height: number;
  scanned_blocks: number;
  received_atomic: string;
  spent_atomic: string;
  spendable_atomic: string;
  locked_atomic: string;
  output_count: number;
  notes: string[];
}

/** What every listed output of a historical answer carries (`includeOutputs` / `includeNotes`). */
export interface HistoricalOutputFields {
  txid: string;
  output_index: number;
  amount_atomic: string;
  height: number;
  confirmations: number;
}
