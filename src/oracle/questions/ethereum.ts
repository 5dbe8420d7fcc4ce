/**
 * The Ethereum questions of the Penny Oracle: /v1/q/base-fee (from the
 * follower's stored head and the pure fee math), /v1/q/cheapest-flashloan
 * (the reviewed catalogue with Aave's premium and each candidate's liquidity
 * read on chain) and /v1/q/data-freshness (how old each ingested source is).
 * Gwei values are exact decimal strings (wei / 10^9, trailing zeros
 * trimmed), with the wei integers beside them; no float anywhere.
 */
import { z } from "zod";
import type { Clock } from "../../core/clock.js";
import { badRequest, upstreamFailed, unavailable } from "../../core/errors.js";
import type { Queryable } from "../../db/types.js";
import { forkSchedule } from "../../chains/ethereum/fees.js";
import { baseFeeFacts, checkCandidate, readOnchainFees } from "../../chains/ethereum/facts.js";
import { ASSETS, candidatesFor, FLASHLOAN_CHAINS, pickCheapest, resolveAsset } from "../../chains/ethereum/flashloans.js";
import type { EthRpc } from "../../chains/ethereum/rpc.js";
import { countHeaders, latestHeader, latestHeaderAnyChain } from "../../ingest/index.js";
import type { QuestionDef } from "../question.js";

const wei = z.string().regex(/^\d+$/).describe("wei, decimal integer string");
const gwei = z.string().regex(/^\d+(\.\d{1,9})?$/).describe("gwei, exact decimal string");
const address = z.string().regex(/^0x[0-9a-f]{40}$/);

export const baseFeeAnswer = z.object({
  block: z.number().int().describe("number of the newest stored block (the head the follower last saw)"),
  block_timestamp: z.number().int().describe("its timestamp, Unix seconds"),
  source_age_s: z.number().int().describe("seconds between that timestamp and the answer"),
  chain_id: z.number().int(),
  base_fee_wei: wei,
  base_fee_gwei: gwei,
  blob_base_fee_wei: wei.nullable(),
  blob_base_fee_gwei: gwei.nullable().describe("null before Cancun"),
  gas_used_ratio: z.string().regex(/^\d+(\.\d+)?$/).describe("gasUsed / gasLimit of the head (eth_feeHistory's gasUsedRatio; 0.5 = at target), 6 decimals, rounded down"),
  next_base_fee_wei: wei,
  next_base_fee_gwei: gwei,
  next_blob_base_fee_wei: wei.nullable(),
  next_blob_base_fee_gwei: gwei.nullable().describe("blob base fee of the next block under the schedule active one slot after the head"),
  fork: z.string().nullable().describe("blob fork whose rules priced the head"),
  next_fork: z.string().nullable(),
});

export const cheapestFlashloanAnswer = z.object({
  found: z.boolean().describe("whether a provider can lend the asset now"),
  asset: z.string().describe("catalogued symbol"),
  asset_address: address,
  chain: z.string(),
  provider: z.string().nullable(),
  provider_id: z.string().nullable(),
  fee_bps: z.number().int().nullable().describe("basis points (1 bp = 0.01 %)"),
  address: address.nullable().describe("contract the borrower calls"),
  candidates_checked: z.number().int(),
});

export const ETH_SOURCES = ["eth_rpc"] as const;

export const dataFreshnessAnswer = z.object({
  source: z.string().describe('"eth_rpc", a relay source "relay:<name>", or "lending"'),
  configured: z.boolean(),
  age_s: z.number().int().nullable().describe("seconds since the newest ingested item (eth_rpc: the stored head's timestamp; a relay: its last successful poll; lending: the newest indexed block of the slowest market); null when none yet"),
  fresh: z.boolean().describe("age_s within the limit the answers enforce"),
  max_age_s: z.number().int(),
  head_block: z.number().int().nullable(),
  stored_blocks: z.number().int().describe("eth_rpc: stored headers; a relay: stored delivered payloads; lending: tracked positions"),
  node_reachable: z.boolean().describe("whether the node answered eth_blockNumber for this answer (stored data can still be fresh without it)"),
  node_head: z.number().int().nullable().describe("the node's head now; node_head − head_block is the follower's lag in blocks"),
  newest_slot: z.number().int().nullable().describe("relay sources: newest delivered slot stored from this relay (null for eth_rpc)"),
  last_ok_ms: z.number().int().nullable().describe("relay sources: when its last poll succeeded (Unix ms)"),
  last_error: z.string().nullable().describe("relay sources: why its last poll failed, while it is down"),
});

/** One source's line of /v1/q/data-freshness (the node, or one ingested relay). */
export interface SourceFreshness {
  source: string;
  configured: boolean;
  age_s: number | null;
  fresh: boolean;
  max_age_s: number;
  stored_blocks: number;
  node_reachable: boolean;
  newest_slot: number | null;
  last_ok_ms: number | null;
  last_error: string | null;
}

/** Other ingested sources (the MEV-Boost relays) answered by data-freshness. */
export interface ExtraFreshnessSources {
  ids: readonly string[];
  freshness: (id: string) => Promise<SourceFreshness>;
}

export interface EthereumQuestionDeps {
  rpc: EthRpc;
  db: Queryable;
  clock: Clock;
  /** Oldest head (seconds) the fee answers accept before answering 503 source_stale. */
  maxAgeSeconds: number;
  /** The relays' freshness lines (source ids "relay:<name>"). */
  extraSources?: ExtraFreshnessSources;
}

async function scheduleOf(rpc: EthRpc, signal?: AbortSignal) {
  const chainId = await rpc.chainId(signal);
  const schedule = forkSchedule(chainId);
  if (!schedule) throw upstreamFailed("chain_schedule_unknown", `No fork schedule for Ethereum chain id ${chainId}.`, { chainId });
  return schedule;
}

export function ethereumQuestions(deps: EthereumQuestionDeps): QuestionDef[] {
  const { rpc, db, clock, maxAgeSeconds } = deps;
  const available = () => rpc.configured;
  const nowS = () => Math.floor(clock.now() / 1000);
  const assetList = Object.keys(ASSETS);

  const knownAsset = (text: string | undefined) => {
    const asset = resolveAsset(text ?? "");
    if (!asset) {
      throw badRequest("invalid_input", "The question's parameters are invalid.", {
        issues: [{ path: "asset", message: `asset must be one of: ${assetList.join(", ")} (or one of their 0x-addresses)` }],
      });
    }
    return asset;
  };

  return [
    {
      path: "base-fee",
      summary: "Ethereum latest base fee and blob base fee with the next block's projection (EIP-1559, EIP-4844, EIP-7918)",
      source: "ethereum",
      params: [],
      answer: baseFeeAnswer,
      example: {
        answer: {
          block: 24_150_000,
          block_timestamp: 1_767_225_599,
          source_age_s: 1,
          chain_id: 1,
          base_fee_wei: "187654321",
          base_fee_gwei: "0.187654321",
          blob_base_fee_wei: "12045117",
          blob_base_fee_gwei: "0.012045117",
          gas_used_ratio: "0.512345",
          next_base_fee_wei: "188233469",
          next_base_fee_gwei: "0.188233469",
          next_blob_base_fee_wei: "11961308",
          next_blob_base_fee_gwei: "0.011961308",
          fork: "bpo1",
          next_fork: "bpo1",
        } satisfies z.input<typeof baseFeeAnswer>,
      },
      available,
      answerQuestion: async (_p, signal) => {
        const schedule = await scheduleOf(rpc, signal);
        const head = await latestHeader(db, schedule.chainId);
        if (!head) throw unavailable("source_stale", "No Ethereum block has been ingested yet.", { source: "eth_rpc", age_s: null });
        const age = Math.max(0, nowS() - head.timestamp);
        if (age > maxAgeSeconds) {
          throw unavailable("source_stale", `The newest Ethereum block is ${age} s old (limit ${maxAgeSeconds} s).`, { source: "eth_rpc", age_s: age, block: Number(head.number) });
        }
        return baseFeeAnswer.parse({ ...baseFeeFacts(head, schedule), source_age_s: age });
      },
    },
    {
      path: "cheapest-flashloan",
      summary: "Cheapest flash-loan provider that can lend the asset now: provider, fee in bps, contract address",
      source: "ethereum",
      params: [
        { name: "asset", required: true, description: `token symbol or its 0x-address; catalogued: ${assetList.join(", ")}`, format: "symbol or 0x-address" },
        { name: "chain", required: false, description: "chain of the loan", allowed: FLASHLOAN_CHAINS, default: "ethereum" },
      ],
      answer: cheapestFlashloanAnswer,
      example: {
        params: { asset: "WETH", chain: "ethereum" },
        answer: {
          found: true,
          asset: "WETH",
          asset_address: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
          chain: "ethereum",
          provider: "Morpho Blue",
          provider_id: "morpho-blue",
          fee_bps: 0,
          address: "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb",
          candidates_checked: 5,
        } satisfies z.input<typeof cheapestFlashloanAnswer>,
      },
      available,
      check: (p) => void knownAsset(p.asset),
      answerQuestion: async (p, signal) => {
        const asset = knownAsset(p.asset);
        const candidates = candidatesFor(asset.symbol);
        const fees = await readOnchainFees(rpc, candidates, signal);
        const checked = (await Promise.all(candidates.map((c) => checkCandidate(rpc, c, asset.symbol, fees, signal)))).filter((c) => c !== null);
        const best = pickCheapest(checked);
        return cheapestFlashloanAnswer.parse({
          found: best !== null,
          asset: asset.symbol,
          asset_address: asset.address,
          chain: p.chain ?? "ethereum",
          provider: best?.provider.name ?? null,
          provider_id: best?.provider.id ?? null,
          fee_bps: best?.feeBps ?? null,
          address: best?.provider.address ?? null,
          candidates_checked: checked.length,
        });
      },
    },
    {
      path: "data-freshness",
      summary: "How old an ingested data source is (eth_rpc: the follower's newest Ethereum block; relay:<name>: a MEV-Boost relay's last poll; lending: the lending indexer's newest block)",
      source: "internal",
      params: [{ name: "source", required: true, description: "ingested source id", allowed: [...ETH_SOURCES, ...(deps.extraSources?.ids ?? [])] }],
      answer: dataFreshnessAnswer,
      example: {
        params: { source: "eth_rpc" },
        answer: {
          source: "eth_rpc",
          configured: true,
          age_s: 4,
          fresh: true,
          max_age_s: 120,
          head_block: 24_150_000,
          stored_blocks: 7_200,
          node_reachable: true,
          node_head: 24_150_001,
          newest_slot: null,
          last_ok_ms: null,
          last_error: null,
        } satisfies z.input<typeof dataFreshnessAnswer>,
      },
      available: () => true,
      answerQuestion: async (p, signal) => {
        if (p.source !== "eth_rpc" && deps.extraSources) {
          const f = await deps.extraSources.freshness(p.source ?? "");
          return dataFreshnessAnswer.parse({ ...f, head_block: null, node_head: null });
        }
        const relayNulls = { newest_slot: null, last_ok_ms: null, last_error: null };
        if (!rpc.configured) {
          return dataFreshnessAnswer.parse({
            source: "eth_rpc",
            configured: false,
            age_s: null,
            fresh: false,
            max_age_s: maxAgeSeconds,
            head_block: null,
            stored_blocks: 0,
            node_reachable: false,
            node_head: null,
            ...relayNulls,
          });
        }
        // The follower may run elsewhere: freshness is the stored data's, even while this process cannot reach the node.
        const [chainId, nodeHead] = await Promise.all([rpc.chainId(signal).catch(() => null), rpc.blockNumber(signal).catch(() => null)]);
        const head = chainId === null ? await latestHeaderAnyChain(db) : await latestHeader(db, chainId);
        const age = head ? Math.max(0, nowS() - head.timestamp) : null;
        return dataFreshnessAnswer.parse({
          source: "eth_rpc",
          configured: true,
          age_s: age,
          fresh: age !== null && age <= maxAgeSeconds,
          max_age_s: maxAgeSeconds,
          head_block: head ? Number(head.number) : null,
          stored_blocks: head ? await countHeaders(db, head.chainId) : 0,
          node_reachable: nodeHead !== null,
          node_head: nodeHead === null ? null : Number(nodeHead),
          ...relayNulls,
        });
      },
    },
  ];
}
