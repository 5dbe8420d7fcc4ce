/**
 * The feeds' routes: GET /v1/premium/builder-stats ($0.05) and its free
 * sample GET /v1/premium/builder-stats/sample (docs/feeds.md).
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { sourceCheck } from "../oracle/questions/builders.js";
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

export const BUILDER_STATS_PRICE = usdCents(5);

export function feedsRoutes(ctx: FeedsDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: BUILDER_STATS_PATH,
      operationId: "premiumBuilderStats",
      summary: "MEV-Boost builders over a window up to 30 days: block share, p10 to p99 bids, wins per hour of day, and the global value and bid distribution",
      tags: ["feeds"],
      input: BuilderStatsInput,
      output: BuilderStatsOutput,
      price: BUILDER_STATS_PRICE,
      readOnly: true,
      // No relay configured, every relay down or stale data: 503 and the payment is not settled.
      handler: async (input) => {
        await sourceCheck(ctx);
        return computeBuilderStats({ ctx, input });
      },
    }),
    defineRoute({
      method: "GET",
      path: `${BUILDER_STATS_PATH}/sample`,
      operationId: "premiumBuilderStatsSample",
      summary: "Free sample of the builder stats: top 3 builders of the last 6 h, whole-percent share and median bid",
      tags: ["feeds"],
      input: z.object({}).strict(),
      output: BuilderStatsSampleOutput,
      handler: async () => redactBuilderStats(await computeBuilderStats({ ctx, input: { window: SAMPLE_WINDOW } })),
    }),
  ];
}
