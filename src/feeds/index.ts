/**
 * The face of the premium feeds and their samples: builder statistics,
 * liquidation opportunities, counter-MEV approval risk, puzzle-contract risk
 * and Zcash pool history, read from what Ethereum ingestion stored (and the
 * feeds' own jobs: the approval scan and the Zcash pool snapshots). The
 * approval scan's view of an address is offered to the oracle's address-risk
 * question.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import type { IngestModule } from "../ingest/index.js";
import type { ApprovalRisk } from "../chains/ethereum/approval-risk.js";
import { loadRiskLists, type RiskLists } from "../chains/ethereum/risk-lists.js";
import { zcashPoolsRoutes } from "./zcash-pools-routes.js";
import { zcashSnapshotJob, type ZcashPoolsDeps } from "./zcash-pools.js";
import { feedsRoutes } from "./routes.js";
import { opportunitiesRoutes } from "./opportunities-routes.js";
import { counterMevRoutes } from "./counter-mev-routes.js";
import { approvalRiskOf, type CounterMevDeps } from "./counter-mev.js";
import { approvalScanJob, type ApprovalScanDeps } from "./approval-scan.js";
import { puzzleRiskRoutes } from "./puzzle-risk-routes.js";
import { loadWatchlist } from "./puzzle-risk.js";

export interface FeedsModule extends ServiceModule {
  /** What the counter-MEV scan job needs. */
  approvalScan: ApprovalScanDeps;
  /** What the Zcash pool snapshot job needs; its zebrad is not configured when ZEBRAD_URL is unset. */
  zcashPools: ZcashPoolsDeps;
  /** The public risk lists (RISK_LISTS, loaded once) and the approval scan's score of an address, for the address-risk question. */
  risk: { lists: RiskLists; approvalRisk: (address: string) => Promise<ApprovalRisk> };
}

export function createFeedsModule(ctx: ModuleContext, ingest: IngestModule): FeedsModule {
  const { config, clock } = ctx;
  const db = ctx.database.db;
  const rpc = ctx.upstreams.ethRpc;
  const zcashPools: ZcashPoolsDeps = { db, zebrad: ctx.upstreams.zebrad, clock, intervalSeconds: config.ZCASH_SNAPSHOT_SECONDS };
  // The public risk lists, loaded once: the counter-MEV scores and the address-risk question read the same set.
  const lists = loadRiskLists(config.RISK_LISTS, clock.now());
  // Counter-MEV: the approval scan beside the follower, scored against the public risk lists.
  const approvalScan: ApprovalScanDeps = { db, rpc, lists, retention: config.COUNTER_MEV_RETENTION_BLOCKS, batch: 100, confirmations: 2 };
  const counterMev: CounterMevDeps = {
    db,
    rpc,
    clock,
    lists,
    windowBlocks: config.COUNTER_MEV_WINDOW_BLOCKS,
    maxWindowBlocks: config.COUNTER_MEV_RETENTION_BLOCKS,
    maxAgeSeconds: config.COUNTER_MEV_MAX_AGE_SECONDS,
    priceMemo: {},
  };
  return {
    name: "feeds",
    approvalScan,
    zcashPools,
    risk: { lists, approvalRisk: (address) => approvalRiskOf({ ctx: counterMev, address }) },
    routes: [
      ...zcashPoolsRoutes(zcashPools),
      ...feedsRoutes(ingest.reads.relays),
      ...opportunitiesRoutes(ingest.reads.lending),
      ...counterMevRoutes(counterMev),
      ...puzzleRiskRoutes({ rpc, clock, watchlist: loadWatchlist(config.PUZZLE_WATCHLIST), maxAgeSeconds: config.ETH_MAX_AGE_SECONDS, memo: {} }),
    ],
    jobs: () => [
      ...(rpc.configured ? [approvalScanJob(approvalScan, 4_000)] : []),
      ...(zcashPools.zebrad.configured ? [zcashSnapshotJob(zcashPools)] : []),
    ],
  };
}
