/**
 * GET /v1/flashloan/providers (free; MCP tool `service_flashloan_providers`):
 * the reviewed flash-loan catalogue of chains/ethereum/flashloans.ts, with
 * the fees that live on chain (Aave's FLASHLOAN_PREMIUM_TOTAL and its forks)
 * read from the configured node. A fee that cannot be read is null with the
 * reason in `fee_note`: never a guessed number. Filters: `chain`,
 * `max_fee_bps` (drops providers whose known fee exceeds it), `multi_asset`.
 */
import { z } from "zod";
import type { Clock } from "../core/clock.js";
import { describeError } from "../core/upstream.js";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { queryBoolean, queryNumber } from "../http/query-values.js";
import { readOnchainFees } from "../chains/ethereum/facts.js";
import { FLASHLOAN_CHAINS, FLASHLOAN_PROVIDERS, filterProviders, providerFeeBps } from "../chains/ethereum/flashloans.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";

/** On-chain fees are re-read at most this often (they change by governance vote). */
export const ONCHAIN_FEE_TTL_MS = 60_000;

export const ProvidersInput = z
  .object({
    chain: z.enum(FLASHLOAN_CHAINS, { message: `chain must be one of: ${FLASHLOAN_CHAINS.join(", ")}` }).default("ethereum"),
    // A number and a boolean (the spec's types); the query string spells them "5", "true".
    max_fee_bps: queryNumber({ min: 0, max: 10_000, message: "max_fee_bps must be a number of basis points from 0 to 10000 (1 bp = 0.01 %)" }).optional(),
    multi_asset: queryBoolean({ message: "multi_asset must be one of: true, false" }).optional(),
  })
  .strict();

const address = z.string().regex(/^0x[0-9a-f]{40}$/);

export const ProvidersOutput = z.object({
  chain: z.string(),
  count: z.number().int(),
  providers: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      chain: z.string(),
      address,
      fee_bps: z.number().nullable().describe("basis points; null when the on-chain fee could not be read"),
      fee_source: z.enum(["fixed", "onchain", "pool-tier"]),
      fee_note: z.string().optional(),
      multi_asset: z.boolean(),
      assets: z.union([z.literal("any"), z.array(z.string())]),
      liquidity: z.string(),
      caveats: z.string(),
      source: z.string(),
    }),
  ),
  fees_read_at_ms: z.number().int().nullable().describe("when the on-chain fees were read (Unix ms)"),
});

export interface FlashloanDeps {
  rpc: EthRpc;
  clock: Clock;
}

export async function listFlashloanProviders({ ctx, input }: { ctx: FlashloanDeps & { feeMemo: FeeMemo }; input: z.output<typeof ProvidersInput> }): Promise<z.input<typeof ProvidersOutput>> {
  const fees = await ctx.feeMemo.get();
  const list = filterProviders(FLASHLOAN_PROVIDERS, { chain: input.chain, maxFeeBps: input.max_fee_bps, multiAsset: input.multi_asset }, fees.values);
  return {
    chain: input.chain,
    count: list.length,
    providers: list.map((p) => {
      const fee = providerFeeBps(p, fees.values);
      const note =
        p.feeSource === "onchain"
          ? fee === null
            ? `read on chain with FLASHLOAN_PREMIUM_TOTAL(); not available now (${fees.error ?? "no node configured"})`
            : "read on chain with FLASHLOAN_PREMIUM_TOTAL()"
          : p.feeSource === "pool-tier"
            ? "lowest pool fee tier; the pool used decides (1, 5, 30 or 100 bps)"
            : undefined;
      return {
        id: p.id,
        name: p.name,
        chain: p.chain,
        address: p.address,
        fee_bps: fee,
        fee_source: p.feeSource,
        ...(note ? { fee_note: note } : {}),
        multi_asset: p.multiAsset,
        assets: p.assets === "any" ? "any" : [...p.assets],
        liquidity: p.liquidityNote,
        caveats: p.caveats,
        source: p.source,
      };
    }),
    fees_read_at_ms: fees.readAtMs,
  };
}

export interface FeeMemo {
  get(): Promise<{ values: Map<string, number>; readAtMs: number | null; error?: string }>;
}

/** On-chain fees read at most once per TTL; a failed read is not kept. */
export function createFeeMemo({ rpc, clock }: FlashloanDeps): FeeMemo {
  let kept: { values: Map<string, number>; readAtMs: number } | null = null;
  return {
    get: async () => {
      if (!rpc.configured) return { values: new Map(), readAtMs: null };
      if (kept && clock.now() - kept.readAtMs < ONCHAIN_FEE_TTL_MS) return kept;
      try {
        kept = { values: await readOnchainFees(rpc, FLASHLOAN_PROVIDERS), readAtMs: clock.now() };
        return kept;
      } catch (e) {
        return { values: new Map(), readAtMs: null, error: describeError(e) };
      }
    },
  };
}

export function flashloanRoutes(deps: FlashloanDeps): AnyRouteDef[] {
  const ctx = { ...deps, feeMemo: createFeeMemo(deps) };
  return [
    defineRoute({
      method: "GET",
      path: "/v1/flashloan/providers",
      operationId: "flashloanProviders",
      summary: "Flash-loan providers on Ethereum: fee in bps (Aave's read on chain), contract, multi-asset, liquidity, caveats and a source each",
      tags: ["oracle"],
      input: ProvidersInput,
      output: ProvidersOutput,
      mcpTool: "service_flashloan_providers",
      handler: (input) => listFlashloanProviders({ ctx, input }),
    }),
  ];
}
