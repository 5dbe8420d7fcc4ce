/**
 * The four Zcash questions of the Penny Oracle (/v1/q/zec/*): path, summary,
 * the published answer schema and availability. The facts come from
 * chains/zcash/facts.ts over zebrad; each answer is checked against its own
 * schema, so what OpenAPI publishes is what a caller receives.
 */
import { z } from "zod";
import type { Clock } from "../../core/clock.js";
import type { Zebrad } from "../../chains/zcash/zebrad.js";
import { zcashAvailable, zecHeightFacts, zecLastBlockFacts, zecMempoolFacts, zecPoolsFacts } from "../../chains/zcash/facts.js";
import type { QuestionDef } from "../question.js";

const zatoshi = z.string().regex(/^\d+$/).describe("zatoshi, decimal string");
const zec = z.string().regex(/^\d+(\.\d{1,8})?$/).describe("ZEC, decimal string");
const hex32 = z.string().regex(/^[0-9a-f]{64}$/);
const percent = z.number().min(0).max(100);

export const zecHeightAnswer = z.object({
  height: z.number().int().describe("height of the best block the node has verified"),
  headers: z.number().int().describe("best header height the node knows"),
  estimated_height: z.number().int().describe("the node's estimate of the network tip"),
  verification_progress: z.number().min(0).describe("0..1 as zebrad reports it"),
  synchronized: z.boolean().describe("within 2 blocks of the estimated tip"),
  best_block_hash: hex32,
  network: z.string().describe('zebrad\'s chain name: "main", "test" or "regtest"'),
});

export const zecMempoolAnswer = z.object({
  tx_count: z.number().int().min(0).describe("transactions in zebrad's mempool"),
  bytes: z.number().int().min(0).describe("their serialized size"),
  usage_bytes: z.number().int().min(0).describe("memory the node uses for them"),
});

export const zecLastBlockAnswer = z.object({
  height: z.number().int(),
  timestamp: z.number().int().describe("Unix seconds, as the miner set it"),
  age_s: z.number().int().describe("seconds since timestamp (0 if the timestamp is in the future)"),
  hash: hex32,
  difficulty: z.number().min(0),
  size: z.number().int().describe("block size in bytes"),
  tx_count: z.number().int().describe("transactions in the block, coinbase included"),
});

const poolLine = z.object({ zatoshi, zec, monitored: z.boolean().describe("false when the node does not track this pool") });

export const zecPoolsAnswer = z.object({
  height: z.number().int(),
  best_block_hash: hex32,
  pools: z.object({
    transparent: poolLine,
    sprout: poolLine,
    sapling: poolLine,
    orchard: poolLine,
    lockbox: poolLine.describe("the deferred development-fund pool (NU6)"),
    ironwood: poolLine.describe("the NU6.3 shielded pool; zero before activation"),
  }),
  total_zatoshi: zatoshi,
  total_zec: zec,
  shielded_percent: percent.describe("(sprout + sapling + orchard + ironwood) / total × 100, floor to 0.01"),
  migration: z.object({
    ironwood_zatoshi: zatoshi,
    ironwood_zec: zec,
    orchard_remainder_zatoshi: zatoshi,
    orchard_remainder_zec: zec,
    migration_percent: percent.nullable().describe("ironwood / (orchard + ironwood) × 100, floor to 0.01; null when both are empty"),
  }),
});

export interface ZcashQuestionDeps {
  zebrad: Zebrad;
  clock: Clock;
}

export function zcashQuestions({ zebrad, clock }: ZcashQuestionDeps): QuestionDef[] {
  const available = () => zcashAvailable(zebrad);
  return [
    {
      path: "zec/height",
      summary: "Zcash chain height, verification progress and best block hash",
      source: "zcash",
      params: [],
      answer: zecHeightAnswer,
      example: {
        answer: {
          height: 3_101_020,
          headers: 3_101_020,
          estimated_height: 3_101_020,
          verification_progress: 0.999999,
          synchronized: true,
          best_block_hash: "00000000010f76c0277b21b8721d49a25c62293ca8c156b40604cca3f4a3710b",
          network: "main",
        } satisfies z.input<typeof zecHeightAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => zecHeightAnswer.parse(await zecHeightFacts(zebrad, signal)),
    },
    {
      path: "zec/mempool",
      summary: "Count and bytes of pending Zcash transactions",
      source: "zcash",
      params: [],
      answer: zecMempoolAnswer,
      example: { answer: { tx_count: 12, bytes: 48_230, usage_bytes: 61_440 } satisfies z.input<typeof zecMempoolAnswer> },
      available,
      answerQuestion: async (_p, signal) => zecMempoolAnswer.parse(await zecMempoolFacts(zebrad, signal)),
    },
    {
      path: "zec/last-block",
      summary: "Timestamp, age, hash, difficulty and size of the latest Zcash block",
      source: "zcash",
      params: [],
      answer: zecLastBlockAnswer,
      example: {
        answer: {
          height: 3_101_020,
          timestamp: 1_767_225_559,
          age_s: 41,
          hash: "00000000010f76c0277b21b8721d49a25c62293ca8c156b40604cca3f4a3710b",
          difficulty: 79_528_123.52,
          size: 14_233,
          tx_count: 9,
        } satisfies z.input<typeof zecLastBlockAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => zecLastBlockAnswer.parse(await zecLastBlockFacts(zebrad, clock, signal)),
    },
    {
      path: "zec/pools",
      summary: "ZEC supply by value pool (transparent, sprout, sapling, orchard, ironwood, lockbox) plus the Orchard→Ironwood migration readout",
      source: "zcash",
      params: [],
      answer: zecPoolsAnswer,
      example: {
        answer: {
          height: 3_101_020,
          best_block_hash: "00000000010f76c0277b21b8721d49a25c62293ca8c156b40604cca3f4a3710b",
          pools: {
            transparent: { zatoshi: "1099876543210000", zec: "10998765.4321", monitored: true },
            sprout: { zatoshi: "2541204000000", zec: "25412.04", monitored: true },
            sapling: { zatoshi: "101234567000000", zec: "1012345.67", monitored: true },
            orchard: { zatoshi: "420987654321000", zec: "4209876.54321", monitored: true },
            lockbox: { zatoshi: "29687500000000", zec: "296875", monitored: true },
            ironwood: { zatoshi: "1250000000000", zec: "12500", monitored: true },
          },
          total_zatoshi: "1655577468531000",
          total_zec: "16555774.68531",
          shielded_percent: 31.77,
          migration: {
            ironwood_zatoshi: "1250000000000",
            ironwood_zec: "12500",
            orchard_remainder_zatoshi: "420987654321000",
            orchard_remainder_zec: "4209876.54321",
            migration_percent: 0.29,
          },
        } satisfies z.input<typeof zecPoolsAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => zecPoolsAnswer.parse(await zecPoolsFacts(zebrad, signal)),
    },
  ];
}
