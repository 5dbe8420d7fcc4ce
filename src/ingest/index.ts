/**
 * The face of Ethereum ingestion: the jobs that read the Ethereum node and
 * the MEV-Boost relays into our tables (the follower, the lending indexer,
 * the relay poller) and what the modules that read those tables back (the
 * oracle's questions, the feeds) need to find them: the relays, the builder
 * names, the lending markets and how fresh an answer must be.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { parseRelayUrls, RelayClient } from "../chains/ethereum/relays.js";
import { builderKeyNames } from "../chains/ethereum/builders.js";
import { AAVE_V3_CORE_ORACLE, LENDING_MARKETS } from "../chains/ethereum/lending.js";
import { ethereumFollowerJob, type EthereumFollowerDeps } from "./ethereum-follower.js";
import { relayPollerJob, type RelayPollerDeps } from "./relay-poller.js";
import { lendingIndexerJob, type LendingIndexerDeps } from "./lending-indexer.js";
import type { RelayReadDeps } from "./relay-reads.js";
import type { LendingReadDeps } from "./lending-reads.js";

export { namesWithLearned } from "./builder-names.js";
export { bidPercentile, countPayloads, deliveredValuePercentile, deliveryAt, latestDelivery, newestSlot, relayUp, seenBuilderKeys, slotsByBuilder, sourceStates } from "./relay-store.js";
export { countHeaders, latestHeader, latestHeaderAnyChain } from "./ethereum-store.js";
export { invalidParam, LENDING_SOURCE, type LendingReadDeps, lendingSourceCheck, marketsFor, parseMaxHf, parseMinDebt, priceDropPct, PROTOCOL_CHOICES } from "./lending-reads.js";
export { countPositions, cursors, liquidationsSince, marketTerms, positionsBelow, positionsOf, riskCounts, type StoredMarketTerms, type StoredPosition } from "./lending-store.js";
export { type RelayReadDeps, relaySourceCheck } from "./relay-reads.js";

/** The lending indexer stays this many blocks behind the head. */
const LENDING_CONFIRMATIONS = 2;

/** What a reader of the relays' slots needs (the builder questions and feeds): the relays, their store and the builder names. */
export interface RelayReads extends RelayReadDeps {
  /** The reviewed builder key → name table (the defaults plus BUILDER_PUBKEYS); names learned from blocks come after it. */
  names: ReadonlyMap<string, string>;
  /** The Ethereum node the proposer payment is checked on, and builder names are learned from. */
  rpc: EthRpc;
}

export interface IngestModule extends ServiceModule {
  /** What the Ethereum follower job needs. */
  ethereum: EthereumFollowerDeps;
  /** What the relay poller job needs; no relays when RELAY_URLS is unset. */
  relays: RelayPollerDeps;
  /** What the lending indexer job needs. */
  lending: LendingIndexerDeps;
  reads: { relays: RelayReads; lending: LendingReadDeps };
}

export function createIngestModule(ctx: ModuleContext): IngestModule {
  const { config, clock, log } = ctx;
  const db = ctx.database.db;
  const rpc = ctx.upstreams.ethRpc;
  const warn = (info: Record<string, unknown>, message: string) => log.warn(info, message);
  const ethereum: EthereumFollowerDeps = { db, rpc, retention: config.ETH_RETENTION_BLOCKS, batch: 64, warn };
  // MEV-Boost relays (RELAY_URLS) and the reviewed builder key table; without relays the builder questions answer 503.
  const endpoints = parseRelayUrls(config.RELAY_URLS);
  const names = builderKeyNames(config.BUILDER_PUBKEYS);
  const relays: RelayPollerDeps = {
    db,
    relays: endpoints.map((r) => new RelayClient(r)),
    clock,
    retentionSeconds: config.RELAY_RETENTION_HOURS * 3600,
    warn,
    // Keys no reviewed table names are named from their blocks' extra-data, read on the Ethereum node (none configured: no learning).
    learnNames: { rpc, names },
  };
  // Lending (Aave V3 Core/Prime, SparkLend) on the same node.
  const lending: LendingIndexerDeps = {
    db,
    rpc,
    clock,
    markets: LENDING_MARKETS,
    oracle: AAVE_V3_CORE_ORACLE,
    backfillBlocks: config.LENDING_BACKFILL_BLOCKS,
    batchBlocks: 1_000,
    confirmations: LENDING_CONFIRMATIONS,
    retentionSeconds: config.LENDING_RETENTION_HOURS * 3600,
    multicallBatch: 200,
  };
  return {
    name: "ingest",
    ethereum,
    relays,
    lending,
    reads: {
      relays: { db, clock, relays: endpoints, names, maxAgeSeconds: config.RELAY_MAX_AGE_SECONDS, rpc },
      lending: { db, rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: config.ETH_MAX_AGE_SECONDS + 12 * LENDING_CONFIRMATIONS },
    },
    jobs: () => [
      ...(rpc.configured ? [ethereumFollowerJob(ethereum, 2_000)] : []),
      ...(relays.relays.length > 0 ? [relayPollerJob(relays, 6_000)] : []),
      ...(rpc.configured ? [lendingIndexerJob(lending, 4_000)] : []),
    ],
    close: async () => {
      await Promise.all(relays.relays.map((r) => r.close()));
    },
  };
}
