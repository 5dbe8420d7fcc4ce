/**
 * The five Monero questions of the Penny Oracle (/v1/q/xmr/*): path, summary,
 * parameters, the published answer schema and availability. The facts
 * themselves come from chains/monero/facts.ts; each answer is checked against
 * its own schema, so what OpenAPI publishes is what a caller receives.
 */
import { z } from "zod";
import type { Clock } from "../../core/clock.js";
import type { MoneroDaemon } from "../../chains/monero/daemon-client.js";
import {
  moneroAvailable,
  moneroFeeEstimateFacts,
  moneroFeeFacts,
  moneroHeightFacts,
  moneroLastBlockFacts,
  moneroMempoolFacts,
} from "../../chains/monero/facts.js";
import type { QuestionDef } from "../question.js";

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

export interface MoneroQuestionDeps {
  daemon: MoneroDaemon;
  clock: Clock;
}

export function moneroQuestions({ daemon, clock }: MoneroQuestionDeps): QuestionDef[] {
  const available = () => moneroAvailable(daemon);
  return [
    {
      path: "xmr/height",
      summary: "Monero chain height and sync state",
      source: "monero",
      params: [],
      answer: xmrHeightAnswer,
      available,
      answerQuestion: async (_p, signal) => xmrHeightAnswer.parse(await moneroHeightFacts(daemon, signal)),
    },
    {
      path: "xmr/mempool",
      summary: "Count of pending Monero transactions",
      source: "monero",
      params: [],
      answer: xmrMempoolAnswer,
      available,
      answerQuestion: async (_p, signal) => xmrMempoolAnswer.parse(await moneroMempoolFacts(daemon, signal)),
    },
    {
      path: "xmr/fee",
      summary: "Recommended Monero fee per byte in piconero, also per kB",
      source: "monero",
      params: [],
      answer: xmrFeeAnswer,
      available,
      answerQuestion: async (_p, signal) => xmrFeeAnswer.parse(await moneroFeeFacts(daemon, signal)),
    },
    {
      path: "xmr/fee-estimate",
      summary: "Total fee for a typical 1500-byte Monero transaction at slow/normal/fast/fastest, in piconero and XMR",
      source: "monero",
      params: [],
      answer: xmrFeeEstimateAnswer,
      available,
      answerQuestion: async (_p, signal) => xmrFeeEstimateAnswer.parse(await moneroFeeEstimateFacts(daemon, signal)),
    },
    {
      path: "xmr/last-block",
      summary: "Timestamp, age, hash, difficulty and size of the latest Monero block",
      source: "monero",
      params: [],
      answer: xmrLastBlockAnswer,
      available,
      answerQuestion: async (_p, signal) => xmrLastBlockAnswer.parse(await moneroLastBlockFacts(daemon, clock, signal)),
    },
  ];
}
