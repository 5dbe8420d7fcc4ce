/**
 * The liquidation-opportunities routes: GET /v1/premium/opportunities ($0.05)
 * and its free sample GET /v1/premium/opportunities/sample (docs/feeds.md).
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { lendingSourceCheck, marketsFor } from "../ingest/index.js";
import {
  computeOpportunities,
  OPPORTUNITIES_PATH,
  OpportunitiesInput,
  OpportunitiesOutput,
  OpportunitiesSampleOutput,
  redactOpportunities,
  SAMPLE_INPUT,
  type OpportunitiesDeps,
} from "./opportunities.js";
import { OPPORTUNITIES_EXAMPLE } from "./examples.js";

export const OPPORTUNITIES_PRICE = usdCents(5);

export function opportunitiesRoutes(ctx: OpportunitiesDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: OPPORTUNITIES_PATH,
      operationId: "premiumOpportunities",
      mcpTool: "service_opportunities",
      summary: "Lending positions at or below a health factor (Aave V3, SparkLend, Compound V3, Morpho Blue), each valued as a liquidation and ranked by expected value",
      description:
        "Model: repay = debt × close factor (capped by collateral / (1 + bonus)); gross bonus = repay × the bonus the position's protocol pays (Aave/Spark: the reserve's liquidation bonus; Compound V3: the storefront discount; Morpho Blue: LIF − 1 from the LLTV; bonus_bps overrides it), shown per row; minus the protocol's cut, swap cost and gas; times a newcomer's share against the liquidators seen in 24 h. See docs/feeds.md.",
      tags: ["feeds"],
      input: OpportunitiesInput,
      output: OpportunitiesOutput,
      price: OPPORTUNITIES_PRICE,
      example: { input: { max_hf: "1.1", min_debt_usd: "10000", limit: "1" }, output: OPPORTUNITIES_EXAMPLE },
      readOnly: true,
      // No node, nothing indexed or stale data: 503 and the payment is not settled.
      handler: async (input) => {
        await lendingSourceCheck(ctx, marketsFor(ctx.markets, input.protocol));
        return computeOpportunities({ ctx, input });
      },
    }),
    defineRoute({
      method: "GET",
      path: `${OPPORTUNITIES_PATH}/sample`,
      operationId: "premiumOpportunitiesSample",
      mcpTool: "service_opportunities_sample",
      summary: "Free sample of the opportunities feed: top 3 positions at HF ≤ 1.1, addresses truncated, dollars to one significant figure, live counts",
      tags: ["feeds"],
      input: z.object({}).strict(),
      output: OpportunitiesSampleOutput,
      handler: async () => redactOpportunities(await computeOpportunities({ ctx, input: { ...SAMPLE_INPUT } })),
    }),
  ];
}
