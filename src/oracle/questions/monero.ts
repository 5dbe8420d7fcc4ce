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
      example: {
        answer: {
          height: 3_571_234,
          block_count: 3_571_235,
          target_height: 3_571_234,
          synchronized: true,
          busy_syncing: false,
          blocks_behind: 0,
          top_block_hash: "756f71e16736e008cf5babb34e05105954101ad8ff3a2f8b98f379d25a98ae98",
          network: "mainnet",
        } satisfies z.input<typeof xmrHeightAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => xmrHeightAnswer.parse(await moneroHeightFacts(daemon, signal)),
    },
    {
      path: "xmr/mempool",
      summary: "Count of pending Monero transactions",
      source: "monero",
      params: [],
      answer: xmrMempoolAnswer,
      example: { answer: { tx_count: 37, height: 3_571_234 } satisfies z.input<typeof xmrMempoolAnswer> },
      available,
      answerQuestion: async (_p, signal) => xmrMempoolAnswer.parse(await moneroMempoolFacts(daemon, signal)),
    },
    {
      path: "xmr/fee",
      summary: "Recommended Monero fee per byte in piconero, also per kB",
      source: "monero",
      params: [],
      answer: xmrFeeAnswer,
      example: {
        answer: {
          fee_per_byte_piconero: "20000",
          fee_per_kb_piconero: "20480000",
          fee_per_byte_xmr: "0.00000002",
          fee_per_kb_xmr: "0.00002048",
          quantization_mask_piconero: "10000",
          priority: "slow",
        } satisfies z.input<typeof xmrFeeAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => xmrFeeAnswer.parse(await moneroFeeFacts(daemon, signal)),
    },
    {
      path: "xmr/fee-estimate",
      summary: "Total fee for a typical 1500-byte Monero transaction at slow/normal/fast/fastest, in piconero and XMR",
      source: "monero",
      params: [],
      answer: xmrFeeEstimateAnswer,
      example: {
        answer: {
          tx_size_bytes: 1500,
          slow: { piconero: "30000000", xmr: "0.00003", per_byte_piconero: "20000" },
          normal: { piconero: "120000000", xmr: "0.00012", per_byte_piconero: "80000" },
          fast: { piconero: "480000000", xmr: "0.00048", per_byte_piconero: "320000" },
          fastest: { piconero: "6000000000", xmr: "0.006", per_byte_piconero: "4000000" },
          quantization_mask_piconero: "10000",
        } satisfies z.input<typeof xmrFeeEstimateAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => xmrFeeEstimateAnswer.parse(await moneroFeeEstimateFacts(daemon, signal)),
    },
    {
      path: "xmr/last-block",
      summary: "Timestamp, age, hash, difficulty and size of the latest Monero block",
      source: "monero",
      params: [],
      answer: xmrLastBlockAnswer,
      example: {
        answer: {
          height: 3_571_234,
          timestamp: 1_767_225_541,
          age_s: 59,
          hash: "756f71e16736e008cf5babb34e05105954101ad8ff3a2f8b98f379d25a98ae98",
          difficulty: "578315426271",
          size: 29_384,
          weight: 29_384,
          tx_count: 21,
          reward_piconero: "600871230000",
          reward_xmr: "0.60087123",
        } satisfies z.input<typeof xmrLastBlockAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => xmrLastBlockAnswer.parse(await moneroLastBlockFacts(daemon, clock, signal)),
    },
  ];
}
