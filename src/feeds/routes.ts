/**
 * The feeds' routes: GET /v1/premium/builder-stats ($0.05) and its free
 * sample GET /v1/premium/builder-stats/sample (docs/feeds.md).
 */
import { z } from "zod";
import { LRUCache } from "lru-cache";
import { defineRoute, StreamBody, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { relaySourceCheck } from "../ingest/index.js";
import {
  BUILDER_STATS_PATH,
  BuilderStatsInput,
  BuilderStatsOutput,
  BuilderStatsSampleOutput,
  computeBuilderStats,
  redactBuilderStats,
  SAMPLE_WINDOW,
  type FeedsDeps,
} from "./builder-stats.js";
import { FEE_HISTORY_COLUMNS, FeeHistoryCsvInput, feeHistoryCsv, feeHistoryStart } from "./fee-history.js";
import { BUILDER_BIDS_COLUMNS, BuilderBidsCsvInput, builderBidsCsv, CSV_MAX_LIMIT } from "./csv.js";
import { BUILDER_BIDS_CSV_EXAMPLE, BUILDER_STATS_EXAMPLE, FEE_HISTORY_CSV_EXAMPLE } from "./examples.js";

export const BUILDER_STATS_PRICE = usdCents(5);
export const CSV_PRICE = usdCents(5);
/** The free sample is computed at most once per this long (on the injected clock): a free route must stay cheap. */
export const SAMPLE_CACHE_MS = 30_000;

export function feedsRoutes(ctx: FeedsDeps): AnyRouteDef[] {
  const sample = new LRUCache<"sample", ReturnType<typeof redactBuilderStats>>({
    max: 1,
    ttl: SAMPLE_CACHE_MS,
    perf: ctx.clock,
    ttlResolution: 0,
    fetchMethod: async () => redactBuilderStats(await computeBuilderStats({ ctx, input: { window: SAMPLE_WINDOW } })),
  });
  return [
    defineRoute({
      method: "GET",
      path: BUILDER_STATS_PATH,
      operationId: "premiumBuilderStats",
      mcpTool: "service_feeds_builder_stats",
      summary: "MEV-Boost builders over a window up to 30 days: block share, p10 to p99 bids, wins per hour of day, and the global value and bid distribution",
      tags: ["feeds"],
      input: BuilderStatsInput,
      output: BuilderStatsOutput,
      price: BUILDER_STATS_PRICE,
      example: { input: { window: "24h" }, output: BUILDER_STATS_EXAMPLE },
      readOnly: true,
      // No relay configured, every relay down or stale data: 503 and the payment is not settled.
      handler: async (input) => {
        await relaySourceCheck(ctx);
        return computeBuilderStats({ ctx, input });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/premium/fee-history.csv",
      operationId: "premiumFeeHistoryCsv",
      mcpTool: "service_feeds_fee_history_csv",
      summary: "Ethereum base fee and gas per block from the stored headers, as CSV",
      description: `RFC 4180 CSV with a header row; columns: ${FEE_HISTORY_COLUMNS.join(", ")}. Blocks oldest first from \`from_block\` (default: the newest \`limit\` blocks); \`limit\` at most ${CSV_MAX_LIMIT}.`,
      tags: ["feeds"],
      input: FeeHistoryCsvInput,
      output: z.string().describe("text/csv"),
      mimeType: "text/csv",
      price: CSV_PRICE,
      example: { input: { limit: "2" }, output: FEE_HISTORY_CSV_EXAMPLE },
      readOnly: true,
      handler: async (input) => {
        const start = await feeHistoryStart(ctx.db, input);
        return new StreamBody(() => feeHistoryCsv({ db: ctx.db, start, limit: input.limit }), "text/csv; charset=utf-8; header=present");
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/premium/builder-bids.csv",
      operationId: "premiumBuilderBidsCsv",
      mcpTool: "service_feeds_builder_bids_csv",
      summary: "Every MEV-Boost builder's highest bid per slot over a window, as CSV",
      description: `RFC 4180 CSV with a header row; columns: ${BUILDER_BIDS_COLUMNS.join(", ")}. Rows in (slot, builder_pubkey) order; \`limit\` at most ${CSV_MAX_LIMIT}.`,
      tags: ["feeds"],
      input: BuilderBidsCsvInput,
      output: z.string().describe("text/csv"),
      mimeType: "text/csv",
      price: CSV_PRICE,
      example: { input: { window: "1h", limit: "2" }, output: BUILDER_BIDS_CSV_EXAMPLE },
      readOnly: true,
      // The source is checked before settlement; the rows are read as the client downloads, after it.
      handler: async (input) => {
        await relaySourceCheck(ctx);
        return new StreamBody(() => builderBidsCsv({ ctx, input }), "text/csv; charset=utf-8; header=present");
      },
    }),
    defineRoute({
      method: "GET",
      path: `${BUILDER_STATS_PATH}/sample`,
      operationId: "premiumBuilderStatsSample",
      mcpTool: "service_feeds_builder_stats_sample",
      summary: "Free sample of the builder stats: top 3 builders of the last 6 h, whole-percent share and median bid",
      description: `Computed at most once per ${SAMPLE_CACHE_MS / 1000} s; \`generated_at_ms\` says when.`,
      tags: ["feeds"],
      input: z.object({}).strict(),
      output: BuilderStatsSampleOutput,
      handler: async () => {
        const r = await sample.fetch("sample");
        if (!r) throw new Error("builder-stats sample missing");
        return r;
      },
    }),
  ];
}
