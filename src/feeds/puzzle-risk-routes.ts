/**
 * The puzzle-risk routes (docs/feeds.md, Puzzle risk): GET /v1/premium/puzzle-risk
 * ($0.05, the annotated watchlist), the free GET /v1/puzzle-risk/summary and
 * GET /v1/puzzle-risk/lookup?address=.
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { unavailable } from "../core/errors.js";
import { computePuzzleRisk, LookupInput, LookupOutput, lookupPuzzle, PUZZLE_RISK_PATH, PuzzleRiskOutput, PuzzleSummaryOutput, summarizePuzzleRisk, type PuzzleDeps } from "./puzzle-risk.js";
import { PUZZLE_RISK_EXAMPLE } from "./examples.js";

export const PUZZLE_RISK_PRICE = usdCents(5);

export function puzzleRiskRoutes(ctx: PuzzleDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: PUZZLE_RISK_PATH,
      operationId: "premiumPuzzleRisk",
      summary: "Puzzle and bounty contracts on the watchlist, each classified (locked, front-run bait, owner-only payout, claimable, unfunded, indeterminate) with its reason",
      tags: ["feeds"],
      mcpTool: "service_puzzle_risk",
      input: z.object({}).strict(),
      output: PuzzleRiskOutput,
      price: PUZZLE_RISK_PRICE,
      example: { input: {}, output: PUZZLE_RISK_EXAMPLE },
      readOnly: true,
      handler: async () => {
        const full = await computePuzzleRisk(ctx);
        // An empty watchlist or a stale node: 503, and the payment is not settled.
        if (!full.present || full.freshness.stale) {
          throw unavailable("source_stale", "The puzzle watchlist is empty or the node's head is stale.", { source: "puzzle_watchlist", age_s: full.freshness.age_s });
        }
        return full;
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/puzzle-risk/summary",
      operationId: "puzzleRiskSummary",
      summary: "Free puzzle-risk summary: watched and funded counts, verdict counts, ETH locked / at front-run risk / claimable, the 5 highest-stake contracts",
      tags: ["feeds"],
      mcpTool: "service_puzzle_risk_summary",
      input: z.object({}).strict(),
      output: PuzzleSummaryOutput,
      handler: async () => summarizePuzzleRisk(await computePuzzleRisk(ctx)),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/puzzle-risk/lookup",
      operationId: "puzzleRiskLookup",
      summary: "Verdict for one contract (watched or not): locked-no-payout trap, front-run bait, owner-only payout, claimable or indeterminate, with the reason",
      tags: ["feeds"],
      mcpTool: "service_puzzle_risk_lookup",
      input: LookupInput,
      output: LookupOutput,
      handler: (input) => lookupPuzzle(ctx, input.address),
    }),
  ];
}
