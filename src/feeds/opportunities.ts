/**
 * The liquidation-opportunities feed (docs/feeds.md): lending positions at or
 * below a health factor, each valued as a liquidation and ranked by expected
 * value. One computation, `computeOpportunities`, answers the paid feed; the
 * free sample is `redactOpportunities` of its answer (top 3 rows, addresses
 * truncated, dollars rounded to one significant figure).
 *
 * The model, per position (all bigint, USD base units of 8 decimals):
 *   close factor  cf = the Pool's rule at the liquidation's HF (the current HF
 *                 if below 1, else just under 1): 100 % at HF ≤ 0.95 or a
 *                 position under $2,000, else 50 % (Aave, Spark); 100 % for
 *                 Compound V3 (absorb) and Morpho Blue (no close factor);
 *   repay         = debt × cf, at most collateral / (1 + bonus) (the seizure
 *                 cannot exceed the collateral);
 *   gross bonus   = repay × bonus, the bonus being what the protocol pays
 *                 (`defaultBonus`, per protocol and market; `bonus_bps`
 *                 overrides it for every row):
 *                   Aave V3 / SparkLend: the liquidation bonus of the
 *                   position's own collateral reserve that pays the most
 *                   (the liquidator picks which collateral to seize), as
 *                   the lending indexer last read it
 *                   (Pool.getUserConfiguration, getReservesList,
 *                   getConfiguration); when that could not be read, the
 *                   market's principal collateral reserve's;
 *                   Compound V3: buying absorbed collateral at the storefront
 *                   discount d = storeFrontPriceFactor × (1 − liquidationFactor)
 *                   pays d / (1 − d) on what is paid; the lowest d among the
 *                   market's collateral assets, as the indexer last read
 *                   them;
 *                   Morpho Blue: LIF − 1, LIF = min(1.15, 1 / (0.3 · LLTV + 0.7))
 *                   from the position's stored LLTV (exact);
 *                   a market whose terms have not been read yet: 5 %
 *                   (`fallback`);
 *   protocol cut  = gross bonus × protocol fee (Aave and Spark: the
 *                 liquidationProtocolFee of the reserve the bonus is taken
 *                 from, as read, 10 % in the fallback; Compound V3 and Morpho Blue take none
 *                 from the liquidator);
 *   swap cost     = (repay + gross bonus) × 0.30 % (selling the seized
 *                 collateral for the debt asset);
 *   gas           = 450,000 gas × (head base fee + 1 gwei tip) × ETH price;
 *   flash loan    = 0 (Balancer, Morpho Blue and Uniswap V4 lend without fee:
 *                 /v1/flashloan/providers);
 *   net           = gross bonus − protocol cut − swap cost − gas;
 *   competition   = the liquidators seen in the last 24 h; a newcomer's share
 *                 is 1 / (1 + that number);
 *   expected value = net × share (net itself when negative).
 * For a position not yet liquidatable the value is conditional on it
 * reaching HF 1; `price_drop_to_liquidation_pct` says how far that is.
 * Priority fees paid to builders and oracle-update auctions (Chainlink SVR)
 * take most of the bonus in practice: these are gross opportunities.
 */
import { z } from "zod";
import { sampleEnvelopeFields } from "./sample-fields.js";
import { formatAtomic, type MoneyUnit } from "../core/money.js";
import {
  BASE_UNIT,
  baseToUsd,
  closeFactorFor,
  isLiquidatable,
  type LendingProtocol,
  oneSignificantUsd,
  wadToNumber,
  WAD,
  type LendingMarket,
} from "../chains/ethereum/lending.js";
import { liquidationIncentiveFactor } from "../chains/ethereum/morpho.js";
import { cursors, liquidationsSince, marketTerms, positionsBelow, riskCounts, type StoredMarketTerms, type StoredPosition, latestHeader, marketsFor, parseMaxHf, parseMinDebt, PROTOCOL_CHOICES, priceDropPct, type LendingReadDeps } from "../ingest/index.js";

export const OPPORTUNITIES_PATH = "/v1/premium/opportunities";
export const SAMPLE_TOP = 3;
export const MAX_LIMIT = 500;
export const GAS_UNITS = 450_000n;
export const TIP_WEI = 1_000_000_000n;
export const SWAP_COST_BPS = 30n;
/** The sample's fixed filters (the bonus: each protocol's own). */
export const SAMPLE_INPUT = { max_hf: "1.1", min_debt_usd: "0", protocol: "all", limit: SAMPLE_TOP } as const;

/**
 * Where a row's bonus comes from: aave_position_reserve, the position's own best-paying collateral reserve; aave_emode,
 * the same choice where that reserve is collateral of the account's eMode category, whose bonus it pays; aave_reserve
 * and comet_storefront, the market's terms (all as the indexer read them from the chain).
 */
export const BONUS_SOURCES = ["query", "aave_position_reserve", "aave_emode", "aave_reserve", "comet_storefront", "morpho_lltv", "fallback"] as const;
export type BonusSource = (typeof BONUS_SOURCES)[number];

/** A market whose terms the indexer has not read yet: Aave's usual 5 %. */
export const FALLBACK_BONUS_BPS = 500n;
/** …and, for Aave V3 / SparkLend, their usual liquidationProtocolFee of 10 % (Compound V3 and Morpho Blue take none). */
export const FALLBACK_PROTOCOL_FEE_BPS = 1_000n;
const fallbackProtocolFeeBps = (protocol: LendingProtocol | undefined) => (protocol === "aave" || protocol === "spark" ? FALLBACK_PROTOCOL_FEE_BPS : 0n);

/** Comet's storefront arithmetic (the indexer applies it to the factors it reads). */
export { cometDiscountWad, discountToBonusBps } from "../chains/ethereum/comet.js";

const E18 = 10n ** 18n;

/** Morpho Blue: LIF − 1 in bps (rounded down), LIF from the market's LLTV in bps (the position's stored liquidation threshold). */
export const morphoBonusBps = (lltvBps: number) => ((liquidationIncentiveFactor(BigInt(lltvBps) * 10n ** 14n) - E18) * 10_000n) / E18;

/** A row's valuation terms: the bonus, where it comes from, and the share of it the protocol keeps. */
export interface RowTerms {
  bps: bigint;
  source: BonusSource;
  protocolFeeBps: bigint;
  /** The collateral reserve whose terms these are (aave_position_reserve, aave_emode); null otherwise. */
  collateralReserve: string | null;
  /** aave_emode: the account's eMode category, whose bonus this is; absent otherwise. */
  emodeCategory?: number;
}

/**
 * The bonus a position's protocol pays, where it comes from and the
 * protocol's share (see the header): Morpho Blue from the position's LLTV;
 * Aave V3 and SparkLend from the position's own best-paying collateral
 * reserve when the indexer read it (`reserveTerms`; its eMode category's
 * bonus where that applies, source aave_emode), else like Compound V3
 * from their market's terms as the indexer last read them from the chain
 * (`terms`, by market id); the fallback for a market whose terms have not
 * been read yet.
 */
export function defaultBonus(
  market: LendingMarket | undefined,
  p: Pick<StoredPosition, "liquidationThresholdBps"> & Partial<Pick<StoredPosition, "reserveTerms">>,
  terms: ReadonlyMap<string, Pick<StoredMarketTerms, "bonusBps" | "protocolFeeBps" | "source">>,
): RowTerms {
  if (market?.protocol === "morpho") return { bps: morphoBonusBps(p.liquidationThresholdBps), source: "morpho_lltv", protocolFeeBps: 0n, collateralReserve: null };
  const own = p.reserveTerms;
  if ((market?.protocol === "aave" || market?.protocol === "spark") && own) {
    if (own.emodeCategory !== undefined) {
      return { bps: own.bonusBps, source: "aave_emode", protocolFeeBps: own.protocolFeeBps, collateralReserve: own.asset, emodeCategory: own.emodeCategory };
    }
    return { bps: own.bonusBps, source: "aave_position_reserve", protocolFeeBps: own.protocolFeeBps, collateralReserve: own.asset };
  }
  const t = market ? terms.get(market.id) : undefined;
  if (t) return { bps: t.bonusBps, source: t.source, protocolFeeBps: t.protocolFeeBps, collateralReserve: null };
  return { bps: FALLBACK_BONUS_BPS, source: "fallback", protocolFeeBps: fallbackProtocolFeeBps(market?.protocol), collateralReserve: null };
}

const GWEI: MoneyUnit = { symbol: "gwei", decimals: 9, scale: 10n ** 9n };
const usd = z.string().regex(/^-?\d+\.\d{2}$/).describe("USD, exact decimal string with 2 decimals (rounded down)").meta({ examples: ["1234.56"] });

export const OpportunitiesInput = z
  .object({
    max_hf: z
      .string()
      .default("1.1")
      .refine((v) => {
        try {
          parseMaxHf(v);
          return true;
        } catch {
          return false;
        }
      }, "max_hf must be a decimal health factor from 0 to 1000, e.g. 1.1"),
    min_debt_usd: z
      .string()
      .default("0")
      .refine((v) => {
        try {
          parseMinDebt(v);
          return true;
        } catch {
          return false;
        }
      }, "min_debt_usd must be a non-negative amount of US dollars"),
    protocol: z.enum(PROTOCOL_CHOICES, { message: `protocol must be one of: ${PROTOCOL_CHOICES.join(", ")}` }).default("all"),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${MAX_LIMIT}`)
      .transform(Number)
      .refine((n) => n >= 1 && n <= MAX_LIMIT, `limit must be a whole number from 1 to ${MAX_LIMIT}`)
      .default(50),
    bonus_bps: z
      .string()
      .regex(/^\d{1,4}$/, "bonus_bps must be a whole number of basis points from 1 to 2000")
      .transform(Number)
      .refine((n) => n >= 1 && n <= 2_000, "bonus_bps must be a whole number of basis points from 1 to 2000")
      .optional()
      .describe("the liquidation bonus assumed for every row; default: what each position's protocol and market pays (docs/feeds.md)"),
  })
  .strict();
export type OpportunitiesQuery = z.output<typeof OpportunitiesInput>;

const row = z.object({
  rank: z.number().int(),
  borrower: z.string(),
  protocol: z.string(),
  market: z.string(),
  health_factor: z.number().nullable(),
  liquidatable: z.boolean(),
  price_drop_to_liquidation_pct: z.number(),
  isolated_market: z.string().nullable().describe("Morpho Blue market id; null for pooled markets"),
  collateral_usd: usd,
  debt_usd: usd,
  close_factor_bps: z.number().int(),
  bonus_bps: z.number().int().describe("the liquidation bonus this row is valued with"),
  bonus_source: z
    .enum(BONUS_SOURCES)
    .describe(
      "query: the bonus_bps parameter; aave_position_reserve: the liquidation bonus of the position's own collateral reserve that pays the most (collateral_reserve), read by the indexer from the Pool's getUserConfiguration, getReservesList and getConfiguration; aave_emode: the same reserve choice for an account in an efficiency-mode category (getUserEMode, emode_category) where that reserve is collateral of the category, so the liquidation pays the category's liquidation bonus (read with getEModeCategoryCollateralConfig and getEModeCategoryCollateralBitmap, or getEModeCategoryData on a Pool older than Aave V3.2), with the reserve's protocol fee; aave_reserve: the liquidation bonus of the market's principal collateral reserve, read from the Pool's getConfiguration by the indexer (when the position's own reserves could not be read); comet_storefront: Comet's lowest storefront discount d = storeFrontPriceFactor × (1 − liquidationFactor) as d / (1 − d), read from the Comet by the indexer; morpho_lltv: the market's liquidation incentive factor − 1; fallback: 5 % (the market's terms have not been read yet)",
    ),
  collateral_reserve: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/)
    .nullable()
    .describe(
      "Aave, Spark: the collateral reserve (its asset address) whose liquidation bonus and protocol fee value the row, the one of the position's own collateral reserves that pays the most (its protocol fee applies even when bonus_bps is given); null when the market's terms or the fallback are used, and for Compound V3 and Morpho Blue",
    ),
  emode_category: z
    .number()
    .int()
    .nullable()
    .describe(
      "Aave, Spark: the account's efficiency-mode (eMode) category id when its liquidation bonus values the row (bonus_source aave_emode, or query); null when the reserve's own bonus or the market's terms are used, and for Compound V3 and Morpho Blue",
    ),
  protocol_fee_bps: z
    .number()
    .int()
    .describe(
      "share of the bonus the protocol keeps: Aave, Spark the liquidationProtocolFee of the reserve the terms come from (collateral_reserve, else the market's principal reserve) as read from the chain (10 % in the fallback); Compound V3, Morpho Blue 0",
    ),
  repayable_usd: usd,
  gross_bonus_usd: usd,
  protocol_cut_usd: usd,
  swap_cost_usd: usd,
  gas_usd: usd,
  net_usd: usd,
  win_share_bps: z.number().int().describe("a newcomer's expected share against the liquidators seen in 24 h"),
  expected_value_usd: usd,
  refreshed_block: z.number().int(),
});
export type OpportunityRow = z.infer<typeof row>;

const freshnessFields = {
  as_of_ms: z.number().int().nullable().describe("block time of the newest indexed block of the slowest market (Unix ms); null when nothing is indexed"),
  generated_at_ms: z.number().int(),
  source_age_s: z.number().int().nullable(),
  stale_after_s: z.number().int(),
  stale: z.boolean(),
  present: z.boolean().describe("whether any position matches"),
};

export const OpportunitiesOutput = z.object({
  ...freshnessFields,
  filters: z.object({
    max_hf: z.string(),
    min_debt_usd: z.string(),
    protocol: z.enum(PROTOCOL_CHOICES),
    limit: z.number().int(),
    bonus_bps: z.number().int().nullable().describe("the bonus_bps asked for; null: each protocol's own (the rows' bonus_bps)"),
  }),
  totals: z.object({
    at_risk: z.number().int().describe("positions matching the filters (before the limit)"),
    at_risk_debt_usd: usd,
    liquidatable_now: z.number().int(),
    universe_size: z.number().int().describe("positions with debt tracked in the included markets"),
    liquidations_24h: z.number().int(),
    liquidators_24h: z.number().int(),
  }),
  assumptions: z.object({
    gas_units: z.number().int(),
    base_fee_gwei: z.string().nullable().describe("base fee of the newest stored block; null when none is stored (gas then counts as 0)"),
    tip_gwei: z.string(),
    eth_usd: usd.nullable(),
    protocol_fee_bps: z
      .number()
      .int()
      .describe("the highest liquidation protocol fee among the included markets' terms read from the chain (0 when none is read); each row uses its own market's (the row's protocol_fee_bps)"),
    swap_cost_bps: z.number().int(),
    flash_fee_bps: z.number().int(),
    note: z.string(),
  }),
  opportunities: z.array(row),
});
export type Opportunities = z.infer<typeof OpportunitiesOutput>;

export const OpportunitiesSampleOutput = z.object({
  ...sampleEnvelopeFields,
  totals: z.object({ at_risk: z.number().int(), liquidatable_now: z.number().int(), universe_size: z.number().int(), liquidations_24h: z.number().int() }),
  top: z.array(
    z.object({
      rank: z.number().int(),
      borrower: z.string().describe("first 6 and last 4 characters"),
      protocol: z.string(),
      health_factor: z.number().nullable(),
      liquidatable: z.boolean(),
      debt_usd: z.string().describe("one significant figure, whole dollars"),
      expected_value_usd: z.string().describe("one significant figure, whole dollars (a minus sign when negative)"),
    }),
  ),
  note: z.string(),
  premium_endpoint: z.string(),
});
export type OpportunitiesSample = z.infer<typeof OpportunitiesSampleOutput>;

/** The lending questions' dependencies: the same stored data, node and staleness limit. */
export type OpportunitiesDeps = LendingReadDeps;

export interface ValuationInputs {
  bonusBps: bigint;
  /** Share of the bonus the protocol keeps (bps). */
  protocolFeeBps: bigint;
  gasBase: bigint;
  competitors: number;
}

/** The model for one position (see the header); amounts in base units. */
export function valuePosition(p: { collateralBase: bigint; debtBase: bigint; healthFactorWad: bigint }, v: ValuationInputs, protocol: LendingProtocol = "aave") {
  const liquidatable = isLiquidatable(p.healthFactorWad, p.debtBase);
  const cf = closeFactorFor(protocol, { ...p, healthFactorWad: liquidatable ? p.healthFactorWad : WAD - 1n });
  let repay = (p.debtBase * cf) / 10_000n;
  const maxRepay = (p.collateralBase * 10_000n) / (10_000n + v.bonusBps);
  if (repay > maxRepay) repay = maxRepay;
  const gross = (repay * v.bonusBps) / 10_000n;
  const cut = (gross * v.protocolFeeBps) / 10_000n;
  const swap = ((repay + gross) * SWAP_COST_BPS) / 10_000n;
  const net = gross - cut - swap - v.gasBase;
  const shareBps = 10_000n / BigInt(1 + v.competitors);
  const ev = net > 0n ? (net * shareBps) / 10_000n : net;
  return { liquidatable, cf, repay, bonusBps: v.bonusBps, gross, protocolFeeBps: v.protocolFeeBps, cut, swap, gas: v.gasBase, net, shareBps, ev };
}

/** The paid feed's computation. Never throws for stale data: it says so (the paid route refuses it before settlement). */
export async function computeOpportunities({ ctx, input }: { ctx: OpportunitiesDeps; input: OpportunitiesQuery }): Promise<Opportunities> {
  const { db, clock } = ctx;
  const nowMs = clock.now();
  const nowS = Math.floor(nowMs / 1000);
  const markets = marketsFor(ctx.markets, input.protocol);
  const ids = markets.map((m) => m.id);
  const all = new Map((await cursors(db)).map((c) => [c.market, c]));
  const cs = markets.map((m) => all.get(m.id));
  const times = cs.map((c) => c?.lastBlockTimeS ?? null);
  const oldest = times.some((t) => t === null) || times.length === 0 ? null : Math.min(...(times as number[]));
  const age = oldest === null ? null : Math.max(0, nowS - oldest);
  const maxHf = parseMaxHf(input.max_hf);
  const minDebt = parseMinDebt(input.min_debt_usd);

  const ethPrice = cs.find((c) => c?.ethPriceBase)?.ethPriceBase ?? null;
  const chainId = cs.find((c) => c)?.chainId;
  const head = chainId === undefined ? null : await latestHeader(db, chainId);
  const gasBase = head && ethPrice ? (GAS_UNITS * (head.baseFeePerGas + TIP_WEI) * ethPrice) / WAD : 0n;
  const recent = await liquidationsSince(db, ids, nowS - 86_400);
  const competitors = new Set(recent.map((l) => l.liquidator)).size;
  const counts = await riskCounts(db, { markets: ids, maxHfWad: maxHf, minDebtBase: minDebt });
  // Every matching position is valued, then the best `limit` are kept: the rank is by value, not by HF.
  const positions = await positionsBelow(db, { markets: ids, maxHfWad: maxHf, minDebtBase: minDebt });
  const byId = new Map(ctx.markets.map((m) => [m.id, m]));
  const terms = await marketTerms(db);
  const valued = positions.map((p) => {
    const market = byId.get(p.market);
    const own = defaultBonus(market, p, terms);
    // bonus_bps replaces the bonus, not the protocol's share of it.
    const bonus = input.bonus_bps === undefined ? own : { ...own, bps: BigInt(input.bonus_bps), source: "query" as const };
    return { p, bonusSource: bonus.source, collateralReserve: own.collateralReserve, emodeCategory: own.emodeCategory ?? null, v: valuePosition(p, { bonusBps: bonus.bps, protocolFeeBps: bonus.protocolFeeBps, gasBase, competitors }, market?.protocol) };
  });
  const includedFees = ids.flatMap((id) => (terms.has(id) ? [terms.get(id)!.protocolFeeBps] : []));
  valued.sort((a, b) => (b.v.ev > a.v.ev ? 1 : b.v.ev < a.v.ev ? -1 : a.p.borrower.localeCompare(b.p.borrower)));

  return OpportunitiesOutput.parse({
    as_of_ms: oldest === null ? null : oldest * 1000,
    generated_at_ms: nowMs,
    source_age_s: age,
    stale_after_s: ctx.maxAgeSeconds,
    stale: age === null || age > ctx.maxAgeSeconds || !ctx.rpc.configured,
    present: positions.length > 0,
    filters: { max_hf: input.max_hf, min_debt_usd: input.min_debt_usd, protocol: input.protocol, limit: input.limit, bonus_bps: input.bonus_bps ?? null },
    totals: {
      at_risk: counts.count,
      at_risk_debt_usd: baseToUsd(counts.debtBase),
      liquidatable_now: positions.filter((p) => isLiquidatable(p.healthFactorWad, p.debtBase)).length,
      universe_size: counts.universe,
      liquidations_24h: recent.length,
      liquidators_24h: competitors,
    },
    assumptions: {
      gas_units: Number(GAS_UNITS),
      base_fee_gwei: head ? formatAtomic(head.baseFeePerGas, GWEI) : null,
      tip_gwei: formatAtomic(TIP_WEI, GWEI),
      eth_usd: ethPrice === null ? null : baseToUsd(ethPrice),
      protocol_fee_bps: Number(includedFees.reduce((hi, f) => (f > hi ? f : hi), 0n)),
      swap_cost_bps: Number(SWAP_COST_BPS),
      flash_fee_bps: 0,
      note: "Gross opportunities: liquidators usually pay most of the bonus to block builders, and oracle-update auctions (Chainlink SVR) return much of it to the protocol. Values of positions not yet liquidatable assume they reach HF 1. Each row's bonus is what its protocol pays (bonus_source) unless bonus_bps is given. Model: docs/feeds.md.",
    },
    opportunities: valued.slice(0, input.limit).map(({ p, v, bonusSource, collateralReserve, emodeCategory }, i) => ({
      rank: i + 1,
      borrower: p.borrower,
      protocol: byId.get(p.market)?.protocol ?? "unknown",
      market: p.market,
      health_factor: wadToNumber(p.healthFactorWad),
      liquidatable: v.liquidatable,
      price_drop_to_liquidation_pct: priceDropPct(p.healthFactorWad),
      isolated_market: p.subMarket === "" ? null : p.subMarket,
      collateral_usd: baseToUsd(p.collateralBase),
      debt_usd: baseToUsd(p.debtBase),
      close_factor_bps: Number(v.cf),
      bonus_bps: Number(v.bonusBps),
      bonus_source: bonusSource,
      collateral_reserve: collateralReserve,
      emode_category: emodeCategory,
      protocol_fee_bps: Number(v.protocolFeeBps),
      repayable_usd: baseToUsd(v.repay),
      gross_bonus_usd: baseToUsd(v.gross),
      protocol_cut_usd: baseToUsd(v.cut),
      swap_cost_usd: baseToUsd(v.swap),
      gas_usd: baseToUsd(v.gas),
      net_usd: baseToUsd(v.net),
      win_share_bps: Number(v.shareBps),
      expected_value_usd: baseToUsd(v.ev),
      refreshed_block: Number(p.refreshedBlock),
    })),
  });
}

/** "0x1234…abcd": the first 6 and last 4 characters. */
export const truncateAddress = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/** A "1234.56" dollar string (possibly negative) → one significant figure in whole dollars. */
export function roundUsdOneFigure(text: string): string {
  const negative = text.startsWith("-");
  const [whole, cents] = (negative ? text.slice(1) : text).split(".");
  const base = BigInt(whole!) * BASE_UNIT + BigInt((cents ?? "").padEnd(8, "0"));
  const r = oneSignificantUsd(base);
  return negative && r !== "0" ? `-${r}` : r;
}

/** The free sample: the paid answer for the fixed filters, cut to 3 rows, addresses truncated, dollars to one figure. */
export function redactOpportunities(paid: Opportunities): OpportunitiesSample {
  return OpportunitiesSampleOutput.parse({
    as_of_ms: paid.as_of_ms,
    generated_at_ms: paid.generated_at_ms,
    freshness: { age_s: paid.source_age_s, stale_after_s: paid.stale_after_s, stale: paid.stale },
    present: paid.present,
    source_freshness_s: paid.source_age_s,
    totals: {
      at_risk: paid.totals.at_risk,
      liquidatable_now: paid.totals.liquidatable_now,
      universe_size: paid.totals.universe_size,
      liquidations_24h: paid.totals.liquidations_24h,
    },
    top: paid.opportunities.slice(0, SAMPLE_TOP).map((r) => ({
      rank: r.rank,
      borrower: truncateAddress(r.borrower),
      protocol: r.protocol,
      health_factor: r.health_factor,
      liquidatable: r.liquidatable,
      debt_usd: roundUsdOneFigure(r.debt_usd),
      expected_value_usd: roundUsdOneFigure(r.expected_value_usd),
    })),
    note: `Top ${SAMPLE_TOP} lending positions at HF ≤ 1.1 by expected liquidation value, addresses truncated and dollars rounded to one significant figure. Every row with its full valuation, other filters and up to ${MAX_LIMIT} rows: ${OPPORTUNITIES_PATH} ($0.05).`,
    premium_endpoint: OPPORTUNITIES_PATH,
  });
}
