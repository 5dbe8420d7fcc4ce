/**
 * The counter-MEV routes (docs/feeds.md, Counter-MEV): GET /v1/premium/counter-mev
 * ($0.05, every scored row) and its free GET /v1/counter-mev/summary.
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { assertFresh, computeCounterMev, COUNTER_MEV_PATH, CounterMevInput, CounterMevOutput, CounterMevSummaryOutput, summarizeCounterMev, type CounterMevDeps } from "./counter-mev.js";
import { COUNTER_MEV_EXAMPLE } from "./examples.js";

export const COUNTER_MEV_PRICE = usdCents(5);

export function counterMevRoutes(ctx: CounterMevDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: COUNTER_MEV_PATH,
      operationId: "premiumCounterMev",
      summary: "Approval risk on Ethereum, uncapped: every scored spender, token and dangling approval, and the bots bleeding gas on reverted transactions",
      tags: ["feeds"],
      mcpTool: "service_counter_mev",
      input: CounterMevInput,
      output: CounterMevOutput,
      price: COUNTER_MEV_PRICE,
      example: { input: { min_band: "high" }, output: COUNTER_MEV_EXAMPLE },
      readOnly: true,
      // Missing or stale scan data: 503 source_stale, and the payment is not settled.
      handler: async (input) => {
        const full = await computeCounterMev({ ctx, input });
        assertFresh(full);
        return full;
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/counter-mev/summary",
      operationId: "counterMevSummary",
      summary: "Free counter-MEV summary: totals, risk bands and the top 5 malicious spenders, risky tokens and bleeding bots",
      tags: ["feeds"],
      mcpTool: "service_counter_mev_summary",
      input: z.object({}).strict(),
      output: CounterMevSummaryOutput,
      handler: async () => summarizeCounterMev(await computeCounterMev({ ctx, input: { min_band: "low" } })),
    }),
  ];
}
