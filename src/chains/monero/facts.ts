/**
 * Monero chain facts for the Penny Oracle (/v1/q/xmr/*) and Monero's line in
 * /v1/health. Every answer comes from the daemon at the time of asking (the
 * registry caches 10 s); a down daemon is a 502, an absent one a 503: never
 * stale data. Money is in piconero as decimal strings, plus XMR strings.
 */
import { z } from "zod";
import type { Clock } from "../../core/clock.js";
import { badRequest } from "../../core/errors.js";
import { formatXmr, parseXmr } from "../../core/money.js";
import type { QuestionDef } from "../../oracle/question.js";
import type { MoneroDaemon } from "./daemon-client.js";

export { PICONERO_PER_XMR, formatXmr, parseXmr } from "../../core/money.js";

/** A typical 2-in/2-out transaction is about 1.5 kB; the fee estimate is quoted for this size. */
export const TYPICAL_TX_BYTES = 1500n;
export const FEE_PRIORITIES = ["slow", "normal", "fast", "fastest"] as const;

/** fee = ceil(bytes × per-byte fee / mask) × mask, as wallet2 rounds (get_fee_quantization_mask). */
export function quantizedFee(bytes: bigint, perByte: bigint, mask: bigint): bigint {
  const m = mask > 0n ? mask : 1n;
  const raw = bytes * perByte;
  return ((raw + m - 1n) / m) * m;
}

const money = z.string().regex(/^\d+$/).describe("piconero, decimal string");
const xmr = z.string().regex(/^\d+(\.\d{1,12})?$/).describe("XMR, decimal string");
const hex32 = z.string().regex(/^[0-9a-f]{64}$/);

export const xmrHeightAnswer = z.object({
  height: z.number().int().describe("height of the newest block (block count − 1)"),
  block_count: z.number().int(),
  target_height: z.number().int().describe("best height known from peers; equals height once synchronized"),
  synchronized: z.boolean(),
  busy_syncing: z.boolean(),
  blocks_behind: z.number().int(),
  top_block_hash: z.string(),
  network: z.string(),
});

export const xmrMempoolAnswer = z.object({
  tx_count: z.number().int().describe("transactions waiting in the daemon's pool"),
  height: z.number().int(),
});

export const xmrFeeAnswer = z.object({
  fee_per_byte_piconero: money,
  fee_per_kb_piconero: money.describe("per 1024 bytes"),
  fee_per_byte_xmr: xmr,
  fee_per_kb_xmr: xmr,
  quantization_mask_piconero: money,
  priority: z.literal("slow").describe("the daemon's base (lowest-priority) fee, what wallets use by default"),
});

const feeLevel = z.object({ piconero: money, xmr, per_byte_piconero: money });
export const xmrFeeEstimateAnswer = z.object({
  tx_size_bytes: z.number().int(),
  slow: feeLevel,
  normal: feeLevel,
  fast: feeLevel,
  fastest: feeLevel,
  quantization_mask_piconero: money,
});

export const xmrLastBlockAnswer = z.object({
  height: z.number().int(),
  timestamp: z.number().int().describe("Unix seconds, as the miner set it"),
  age_s: z.number().int().describe("seconds since timestamp (0 if the timestamp is in the future)"),
  hash: hex32,
  difficulty: z.string().regex(/^\d+$/),
  size: z.number().int().describe("block size in bytes"),
  weight: z.number().int(),
  tx_count: z.number().int().describe("non-coinbase transactions in the block"),
  reward_piconero: money,
  reward_xmr: xmr,
});

export interface MoneroFactsDeps {
  daemon: MoneroDaemon;
  clock: Clock;
}

/** Whether the daemon is configured and its last call (if any) succeeded. */
export function moneroAvailable(daemon: MoneroDaemon): boolean {
  if (!daemon.configured) return false;
  return daemon.status().lastOk !== false;
}

export function moneroQuestions({ daemon, clock }: MoneroFactsDeps): QuestionDef[] {
  const available = () => moneroAvailable(daemon);
  const height: QuestionDef = {
    path: "xmr/height",
    summary: "Monero chain height and sync state",
    source: "monero",
    params: [],
    answer: xmrHeightAnswer,
    available,
    answerQuestion: async (_p, signal) => {
      const info = await daemon.getInfo(signal);
      const top = info.height - 1;
      // monerod reports target_height 0 when it considers itself synchronized.
      const target = info.targetHeight > 0 ? Math.max(info.targetHeight - 1, top) : top;
      return xmrHeightAnswer.parse({
        height: top,
        block_count: info.height,
        target_height: target,
        synchronized: info.synchronized,
        busy_syncing: info.busySyncing,
        blocks_behind: target - top,
        top_block_hash: info.topBlockHash,
        network: info.nettype,
      });
    },
  };
  const mempool: QuestionDef = {
    path: "xmr/mempool",
    summary: "Count of pending Monero transactions",
    source: "monero",
    params: [],
    answer: xmrMempoolAnswer,
    available,
    answerQuestion: async (_p, signal) => {
      const info = await daemon.getInfo(signal);
      return xmrMempoolAnswer.parse({ tx_count: info.txPoolSize, height: info.height - 1 });
    },
  };
  const fee: QuestionDef = {
    path: "xmr/fee",
    summary: "Recommended Monero fee per byte in piconero, also per kB",
    source: "monero",
    params: [],
    answer: xmrFeeAnswer,
    available,
    answerQuestion: async (_p, signal) => {
      const est = await daemon.getFeeEstimate(signal);
      const perKb = est.fee * 1024n;
      return xmrFeeAnswer.parse({
        fee_per_byte_piconero: est.fee.toString(),
        fee_per_kb_piconero: perKb.toString(),
        fee_per_byte_xmr: formatXmr(est.fee),
        fee_per_kb_xmr: formatXmr(perKb),
        quantization_mask_piconero: est.quantizationMask.toString(),
        priority: "slow",
      });
    },
  };
  const feeEstimate: QuestionDef = {
    path: "xmr/fee-estimate",
    summary: "Total fee for a typical 1500-byte Monero transaction at slow/normal/fast/fastest, in piconero and XMR",
    source: "monero",
    params: [],
    answer: xmrFeeEstimateAnswer,
    available,
    answerQuestion: async (_p, signal) => {
      const est = await daemon.getFeeEstimate(signal);
      const levels: Record<string, unknown> = {};
      FEE_PRIORITIES.forEach((name, i) => {
        // Older daemons return one fee only; higher priorities then reuse the highest known.
        const perByte = est.fees[Math.min(i, est.fees.length - 1)]!;
        const total = quantizedFee(TYPICAL_TX_BYTES, perByte, est.quantizationMask);
        levels[name] = { piconero: total.toString(), xmr: formatXmr(total), per_byte_piconero: perByte.toString() };
      });
      return xmrFeeEstimateAnswer.parse({
        tx_size_bytes: Number(TYPICAL_TX_BYTES),
        ...levels,
        quantization_mask_piconero: est.quantizationMask.toString(),
      });
    },
  };
  const lastBlock: QuestionDef = {
    path: "xmr/last-block",
    summary: "Timestamp, age, hash, difficulty and size of the latest Monero block",
    source: "monero",
    params: [],
    answer: xmrLastBlockAnswer,
    available,
    answerQuestion: async (_p, signal) => {
      const h = await daemon.getLastBlockHeader(signal);
      const age = Math.max(0, Math.floor(clock.now() / 1000) - h.timestamp);
      return xmrLastBlockAnswer.parse({
        height: h.height,
        timestamp: h.timestamp,
        age_s: age,
        hash: h.hash,
        difficulty: h.difficulty.toString(),
        size: h.blockSize,
        weight: h.blockWeight,
        tx_count: h.numTxes,
        reward_piconero: h.reward.toString(),
        reward_xmr: formatXmr(h.reward),
      });
    },
  };
  return [height, mempool, fee, feeEstimate, lastBlock];
}

export interface MoneroHealth {
  configured: boolean;
  available: boolean;
  /** Top block height when reachable. */
  height?: number;
  synchronized?: boolean;
  network?: string;
  error?: string;
}

/** Monero's entry in /v1/health: one get_info with a short deadline. Never throws. */
export async function moneroHealth(daemon: MoneroDaemon, opts: { timeoutMs?: number } = {}): Promise<MoneroHealth> {
  if (!daemon.configured) return { configured: false, available: false };
  try {
    const info = await daemon.getInfo(AbortSignal.timeout(opts.timeoutMs ?? 3_000));
    return {
      configured: true,
      available: true,
      height: info.height - 1,
      synchronized: info.synchronized,
      network: info.nettype,
    };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { configured: true, available: false, error: message };
  }
}
