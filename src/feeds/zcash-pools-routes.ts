/**
 * GET /v1/zec/ironwood and GET /v1/zec/ironwood/history (free): the Zcash
 * value pools and the Orchard→Ironwood migration readout, now and over time
 * (operations in zcash-pools.ts; docs/zcash-pools.md).
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { queryInteger } from "../http/query-values.js";
import { zecPoolsAnswer } from "../oracle/index.js";
import { ZCASH_POOLS } from "../chains/zcash/zebrad.js";
import {
  createIronwoodCache,
  HISTORY_DEFAULT_POINTS,
  HISTORY_MAX_POINTS,
  HISTORY_MAX_WINDOW_MS,
  HISTORY_MIN_POINTS,
  HISTORY_MIN_WINDOW_MS,
  readIronwood,
  readZcashHistory,
  type ZcashPoolsDeps,
} from "./zcash-pools.js";

/** An integer (the spec's type; "86400000" in the query string) with its default. */
const intParam = (name: string, min: number, max: number, dflt: number) =>
  queryInteger({ min, max, message: `${name} must be an integer from ${min} to ${max}` })
    .optional()
    .transform((n) => n ?? dflt);

export const IronwoodInput = z.object({}).strict();

const freshness = z.object({
  age_s: z.number().int().min(0).describe("seconds since the pools were read from zebrad"),
  stale_after_s: z.number().int(),
  stale: z.boolean(),
});

export const IronwoodOutput = zecPoolsAnswer.extend({
  as_of_ms: z.number().int().describe("when the pools were read from zebrad (Unix ms)"),
  generated_at_ms: z.number().int(),
  freshness,
  present: z.boolean(),
  source_freshness_s: z.number().int().min(0),
  note: z.string(),
  premium_endpoint: z.string(),
});

export const HistoryInput = z
  .object({
    window_ms: intParam("window_ms", HISTORY_MIN_WINDOW_MS, HISTORY_MAX_WINDOW_MS, HISTORY_MAX_WINDOW_MS),
    max_points: intParam("max_points", HISTORY_MIN_POINTS, HISTORY_MAX_POINTS, HISTORY_DEFAULT_POINTS),
  })
  .strict();

const zec = z.string().regex(/^\d+(\.\d{1,8})?$/).describe("ZEC, decimal string");
const percent = z.number().min(0).max(100);

export const HistoryOutput = z.object({
  window_ms: z.number().int(),
  max_points: z.number().int(),
  from_ms: z.number().int(),
  to_ms: z.number().int(),
  interval_s: z.number().int().describe("seconds between snapshots"),
  snapshots_in_window: z.number().int().min(0).describe("stored snapshots in the window before downsampling"),
  downsampling: z.string(),
  generated_at_ms: z.number().int(),
  as_of_ms: z.number().int().nullable().describe("time of the newest snapshot in the window; null when there is none"),
  rows: z.array(
    z.object({
      t_ms: z.number().int(),
      height: z.number().int(),
      pools_zec: z.object(Object.fromEntries(ZCASH_POOLS.map((p) => [p, zec])) as Record<(typeof ZCASH_POOLS)[number], typeof zec>),
      total_zec: zec,
      shielded_percent: percent,
      migration_percent: percent.nullable(),
    }),
  ),
});

export function zcashPoolsRoutes(deps: ZcashPoolsDeps): AnyRouteDef[] {
  const cache = createIronwoodCache(deps);
  return [
    defineRoute({
      method: "GET",
      path: "/v1/zec/ironwood",
      operationId: "zecIronwood",
      mcpTool: "service_feeds_zec_ironwood",
      summary: "Every Zcash value pool (transparent, sprout, sapling, orchard, ironwood, lockbox) and the Orchard→Ironwood migration readout; cached about 60 s",
      tags: ["feeds"],
      input: IronwoodInput,
      output: IronwoodOutput,
      handler: () => readIronwood({ ctx: { clock: deps.clock, cache } }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/zec/ironwood/history",
      operationId: "zecIronwoodHistory",
      mcpTool: "service_feeds_zec_ironwood_history",
      summary: "Zcash value pools over time (snapshots every 15 minutes): per-pool ZEC, shielded share and migration percent, downsampled to max_points",
      tags: ["feeds"],
      input: HistoryInput,
      output: HistoryOutput,
      handler: (input) => readZcashHistory({ ctx: deps, input }),
    }),
  ];
}
