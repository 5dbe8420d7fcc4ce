/**
 * One-off historical scan (POST /v1/private/historical, chain monero): every
 * output the view key can see between birthdayHeight and toHeight.
 *
 * The view key lives only in this call's memory (the view account is built,
 * used and dropped; it is not cached, stored or logged). Work is bounded two
 * ways, decided before and during the run:
 *   - a range longer than maxBlocks, or holding more than maxTxs transactions
 *     (counted from the block headers), is refused up front: 400
 *     `range_too_large` (details: requested_blocks, max_blocks,
 *     estimated_txs, max_txs, suggested_birthday_height);
 *   - a run that passes its deadline stops: 504 `scan_timeout` (details:
 *     scanned_through, from/to) — the caller narrows the range and retries.
 * Spends are invisible to a view key (research/monero.md §2.13): spent_atomic
 * is "0" and spent_visibility says why; spendable_atomic assumes nothing was spent.
 */
import type { Clock } from "../../core/clock.js";
import { badRequest } from "../../core/errors.js";
import { checkHistoricalRange, historicalLimits, NARROW_THE_RANGE, scanDeadline, type HistoricalOutputFields, type HistoricalTotals } from "../historical.js";
import type { MoneroDaemon } from "./daemon-client.js";
import { makeViewAccount } from "./keys.js";
import { MoneroBlockSource } from "./block-source.js";
import { confirmationsAt, isUnlocked, lookaheadFrom } from "./chain-rules.js";
import { matchTx } from "./match.js";
import type { MoneroNetwork, SubaddressLookahead } from "./types.js";

/** Blocks an ordinary output needs before wallet2 will spend it (CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE). */
export const SPENDABLE_AGE = 10;

export interface MoneroHistoricalOptions {
  daemon: MoneroDaemon;
  /** Share the scanner's block cache (optional). */
  blockSource?: MoneroBlockSource;
  /** Longest range accepted (HISTORICAL_MAX_BLOCKS, default 20 000). */
  maxBlocks?: number;
  /** Run-time budget in ms (default 25 000). */
  deadlineMs?: number;
  /**
   * Most transactions (coinbase included) one call scans (default 10 000): each costs one key
   * derivation, 1–2 ms in JS on a busy core, so the default fits the deadline. Checked from block headers
   * before any scanning.
   */
  maxTxs?: number;
  lookahead?: SubaddressLookahead | number;
  network?: MoneroNetwork;
  clock: Clock;
}

export interface MoneroHistoricalInput {
  address: string;
  viewKey: string;
  /** Default 0 (Monero view keys carry no birthday). */
  birthdayHeight?: number;
  /** Default: the chain tip. */
  toHeight?: number;
  includeOutputs?: boolean;
  /** Primary addresses: the subaddresses scanned (default: the service's look-ahead). */
  lookahead?: SubaddressLookahead;
}

export interface HistoricalOutputEntry extends HistoricalOutputFields {
  subaddress: { major: number; minor: number } | null;
  unlock_time: string;
  unlocked: boolean;
  coinbase: boolean;
  public_key: string;
}

export interface MoneroHistoricalResult extends HistoricalTotals {
  chain: "monero";
  address: string;
  spent_visibility: "not_visible_with_view_key";
  outputs?: HistoricalOutputEntry[];
}

export type MoneroHistoricalService = ((input: MoneroHistoricalInput, signal?: AbortSignal) => Promise<MoneroHistoricalResult>) & {
  /**
   * The refusals decidable before any payment: address and view key (400s
   * naming what is wrong), heights against each other and the chain tip
   * (400 invalid_height), the range limit in blocks (400 range_too_large).
   * The run repeats them (the tip may have moved); the transaction-count
   * estimate, which reads every header of the range, is left to the run.
   */
  precheck(input: MoneroHistoricalInput, signal?: AbortSignal): Promise<void>;
};

export function createMoneroHistorical(opts: MoneroHistoricalOptions): MoneroHistoricalService {
  const { maxBlocks, deadlineMs } = historicalLimits(opts);
  const maxTxs = Math.max(1, opts.maxTxs ?? 10_000);
  const lookahead = lookaheadFrom(opts.lookahead);
  const source = opts.blockSource ?? new MoneroBlockSource(opts.daemon, { cacheBlocks: 64 });

  /** Key, heights and block range: what can be refused from one tip read. */
  const plan = async (input: MoneroHistoricalInput, signal?: AbortSignal) => {
    // Validates address + key first (400s name what is wrong), before any daemon work.
    const account = makeViewAccount(input.address, input.viewKey, {
      lookahead: input.lookahead ?? lookahead,
      ...(opts.network ? { network: opts.network } : {}),
    });
    const tip = (await opts.daemon.getLastBlockHeader(signal)).height;
    const from = input.birthdayHeight ?? 0;
    const to = input.toHeight ?? tip;
    const blocks = checkHistoricalRange(from, to, tip, maxBlocks);
    return { account, tip, from, to, blocks };
  };

  const run = async (input: MoneroHistoricalInput, signal?: AbortSignal): Promise<MoneroHistoricalResult> => {
    const deadline = scanDeadline(deadlineMs);
    const { account, tip, from, to, blocks } = await plan(input, signal);

    // The work is one key derivation per transaction: estimate it from the headers (one request
    // per 1000 blocks) and refuse a range that cannot finish in time before scanning anything.
    const allHeights: number[] = [];
    for (let h = from; h <= to; h++) allHeights.push(h);
    const headers = await source.headers(allHeights, signal);
    const txsAt = (h: number) => headers.get(h)!.numTxes + 1; // + coinbase
    let estimatedTxs = 0;
    for (let h = from; h <= to; h++) estimatedTxs += txsAt(h);
    if (estimatedTxs > maxTxs) {
      let fit = 0;
      let suggested = to + 1;
      while (suggested > from && fit + txsAt(suggested - 1) <= maxTxs) fit += txsAt(--suggested);
      throw badRequest(
        "range_too_large",
        `The range ${from}..${to} holds about ${estimatedTxs} transactions; at most ${maxTxs} are scanned per call. ${NARROW_THE_RANGE}`,
        { requested_blocks: blocks, estimated_txs: estimatedTxs, max_txs: maxTxs, max_blocks: maxBlocks, suggested_birthday_height: suggested },
      );
    }

    const found = new Map<string, HistoricalOutputEntry>(); // by one-time key (burning bug: counted once)
    const CHUNK = 50;
    for (let lo = from; lo <= to; lo += CHUNK) {
      if (signal?.aborted) throw signal.reason;
      deadline.check(lo - 1, from, to);
      const hi = Math.min(to, lo + CHUNK - 1);
      const heights: number[] = [];
      for (let h = lo; h <= hi; h++) heights.push(h);
      const chunk = await source.blocks(heights.map((h) => headers.get(h)!), signal);
      for (const block of chunk) {
        for (const prepared of block.txs) {
          for (const o of matchTx(prepared, account)) {
            const prev = found.get(o.publicKey);
            if (prev && BigInt(prev.amount_atomic) >= o.amount) continue;
            const unlockTime = prepared.tx.unlockTime;
            found.set(o.publicKey, {
              txid: prepared.tx.txid,
              output_index: o.outputIndex,
              amount_atomic: o.amount.toString(),
              height: block.height,
              confirmations: confirmationsAt(block.height, tip),
              subaddress: o.subaddress && o.subaddress.major >= 0 ? { major: o.subaddress.major, minor: o.subaddress.minor } : null,
              unlock_time: unlockTime.toString(),
              unlocked: isUnlocked(unlockTime, tip, opts.clock.now()),
              coinbase: prepared.tx.isCoinbase,
              public_key: o.publicKey,
            });
          }
        }
      }
    }

    let received = 0n;
    let spendable = 0n;
    const list = [...found.values()].sort((a, b) => a.height - b.height || a.txid.localeCompare(b.txid) || a.output_index - b.output_index);
    for (const o of list) {
      const amount = BigInt(o.amount_atomic);
      received += amount;
      if (o.unlocked && o.confirmations >= SPENDABLE_AGE) spendable += amount;
    }
    const result: MoneroHistoricalResult = {
      chain: "monero",
      network: account.network,
      address: account.address,
      from_height: from,
      to_height: to,
      tip_height: tip,
      scanned_blocks: blocks,
      received_atomic: received.toString(),
      spent_atomic: "0",
      spendable_atomic: spendable.toString(),
      locked_atomic: (received - spendable).toString(),
      spent_visibility: "not_visible_with_view_key",
      output_count: list.length,
      notes: [
        "A private view key shows incoming outputs only: spends need the spend key (key images), so spent_atomic is reported as 0 and spendable_atomic assumes nothing was spent.",
        `spendable_atomic counts outputs with at least ${SPENDABLE_AGE} confirmations whose unlock time has passed; the rest is locked_atomic.`,
        account.kind === "subaddress"
          ? "The address is a subaddress: only payments to this subaddress are visible."
          : `The address is a primary address: payments to it and to subaddresses within accounts 0..${account.lookahead.accounts - 1} × indices 0..${account.lookahead.minors - 1} are included.`,
        "Amounts are piconero (1 XMR = 10^12).",
      ],
    };
    if (input.includeOutputs) result.outputs = list;
    return result;
  };
  return Object.assign(run, { precheck: async (input: MoneroHistoricalInput, signal?: AbortSignal) => void (await plan(input, signal)) });
}
