/**
 * The lending questions of the Penny Oracle, from the lending indexer's data
 * (ingest/lending-store.ts, with the reads the opportunities feed shares in
 * ingest/lending-reads.ts): /v1/q/liquidatable, /v1/q/at-risk-count,
 * /v1/q/recent-liquidations, and the `lending` line of /v1/q/data-freshness.
 *
 * Definitions (docs/ethereum.md, Lending): a position is one borrower in one
 * market (Aave V3 Core, Aave V3 Prime, SparkLend, the Compound V3 Comets
 * cUSDCv3, cWETHv3, cUSDTv3, cUSDSv3 and cWstETHv3) or in one Morpho Blue market; its health factor is the Pool's own
 * `getUserAccountData` for Aave and Spark, Σ collateral · price ·
 * liquidateCollateralFactor / debt for Compound V3, collateral · oracle
 * price · LLTV / debt for Morpho Blue, at the indexer's last refresh; it is
 * liquidatable when the HF is below 1 with debt outstanding. USD amounts are
 * the Aave oracle's base currency (8 decimals) shown as exact dollar strings
 * with 2 decimals (rounded down); health factors are numbers with 6
 * decimals (rounded down).
 *
 * Every answer carries `source_age_s` (seconds since the newest indexed
 * block of the slowest market asked about) and `indexed_block`. No node → 503
 * chain_not_configured; nothing indexed yet, a health-factor refresh never
 * done, or data older than the limit → 503 source_stale naming `lending`.
 */
import { z } from "zod";
import { baseToUsd, closeFactorFor, isLiquidatable, LENDING_PROTOCOLS, wadToNumber } from "../../chains/ethereum/lending.js";
import { countPositions, cursors, liquidationsSince, positionsOf, riskCounts, invalidParam, LENDING_SOURCE, lendingSourceCheck, marketsFor, parseMaxHf, parseMinDebt, priceDropPct, PROTOCOL_CHOICES, type LendingReadDeps } from "../../ingest/index.js";
import type { QuestionDef } from "../question.js";
import type { ExtraFreshnessSources, SourceFreshness } from "./ethereum.js";

export const SINCE_MIN_MAX = 1_440;

const usd = z.string().regex(/^\d+\.\d{2}$/).describe("USD, exact decimal string with 2 decimals (rounded down)").meta({ examples: ["1234.56"] });
const sourceFields = {
  source_age_s: z.number().int().describe("seconds since the newest indexed block (of the slowest market included)"),
  indexed_block: z.number().int().describe("newest block whose events every included market has read"),
};

export const liquidatableAnswer = z.object({
  found: z.boolean().describe("whether the address has debt in an indexed market"),
  addr: z.string(),
  protocol: z.enum(LENDING_PROTOCOLS).nullable().describe("protocol of the position shown (the lowest health factor)"),
  market: z.string().nullable(),
  isolated_market: z.string().nullable().describe("Morpho Blue market id (bytes32) of the position shown; null for pooled markets"),
  liquidatable: z.boolean().describe("health factor below 1 with debt outstanding"),
  health_factor: z.number().nullable().describe("health factor (Aave's getUserAccountData, or its equivalent for Compound V3 and Morpho Blue), 6 decimals rounded down"),
  collateral_usd: usd.nullable(),
  debt_usd: usd.nullable(),
  liquidation_threshold_bps: z.number().int().nullable().describe("weighted liquidation threshold (Compound V3: liquidateCollateralFactor; Morpho Blue: LLTV), basis points"),
  close_factor_bps: z.number().int().nullable().describe("share of the debt one liquidation may repay: Aave/Spark 10000 at HF ≤ 0.95 or a position under $2,000, else 5000; Compound V3 and Morpho Blue 10000"),
  price_drop_to_liquidation_pct: z.number().nullable().describe("collateral price fall (percent, 2 decimals) that brings the HF to 1 with the debt fixed: 100 × (1 − 1/HF); 0 when already liquidatable"),
  positions: z.number().int().describe("markets in which the address has debt"),
  refreshed_block: z.number().int().nullable().describe("block of the position's last health-factor read"),
  last_seen_ms: z.number().int().nullable().describe("when it was read (Unix ms)"),
  protocol_filter: z.enum(PROTOCOL_CHOICES),
  ...sourceFields,
});

export const atRiskAnswer = z.object({
  count: z.number().int().describe("positions with health factor ≤ max_hf and debt ≥ min_debt_usd"),
  total_debt_usd: usd,
  liquidatable_count: z.number().int().describe("of all positions with debt ≥ min_debt_usd, those with HF < 1"),
  universe_size: z.number().int().describe("positions with debt tracked in the included markets"),
  max_hf: z.string(),
  min_debt_usd: z.string(),
  protocol: z.enum(PROTOCOL_CHOICES),
  ...sourceFields,
});

export const recentLiquidationsAnswer = z.object({
  count: z.number().int().describe("liquidation events (LiquidationCall, Compound V3 AbsorbDebt, Morpho Blue Liquidate) whose block time lies within the last since_min minutes"),
  total_debt_usd: usd.describe("debt repaid, valued at the oracle price when indexed (events without a price are left out)"),
  unpriced: z.number().int().describe("events left out of total_debt_usd because their debt asset had no oracle price"),
  distinct_borrowers: z.number().int(),
  distinct_liquidators: z.number().int(),
  since_min: z.number().int(),
  protocol: z.enum(PROTOCOL_CHOICES),
  newest: z
    .object({
      market: z.string(),
      block: z.number().int(),
      block_time_s: z.number().int(),
      tx_hash: z.string(),
      borrower: z.string(),
      liquidator: z.string(),
      debt_usd: usd.nullable(),
    })
    .nullable(),
  ...sourceFields,
});

/** The lending questions read the indexer's data as the opportunities feed does. */
export type LendingQuestionDeps = LendingReadDeps;

type ProtocolChoice = (typeof PROTOCOL_CHOICES)[number];

export function parseAddress(text: string | undefined, path = "addr"): string {
  if (!text || !/^0x[0-9a-fA-F]{40}$/.test(text)) throw invalidParam(path, `${path} must be a 0x-address (0x followed by 40 hex digits)`);
  return text.toLowerCase();
}

export function parseSinceMin(text: string | undefined): number {
  const t = text ?? "60";
  const v = /^\d{1,4}$/.test(t) ? Number(t) : NaN;
  if (!(v >= 1 && v <= SINCE_MIN_MAX)) throw invalidParam("since_min", `since_min must be a whole number of minutes from 1 to ${SINCE_MIN_MAX}`);
  return v;
}

const protocolParam = {
  name: "protocol",
  required: false,
  description: "lending protocol: aave (Aave V3 Core and Prime), spark (SparkLend), compound (Compound V3 cUSDCv3, cWETHv3, cUSDTv3, cUSDSv3, cWstETHv3), morpho (Morpho Blue), or all",
  allowed: PROTOCOL_CHOICES,
  default: "all",
} as const;
const choice = (p: string | undefined) => (p ?? "all") as ProtocolChoice;

export function lendingQuestions(deps: LendingQuestionDeps): QuestionDef[] {
  return [liquidatableQuestion(deps), atRiskCountQuestion(deps), recentLiquidationsQuestion(deps)];
}

/** /v1/q/liquidatable: the address's position with the lowest health factor. */
function liquidatableQuestion(deps: LendingQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "liquidatable",
    summary: "Whether an address's lending position can be liquidated now: health factor, collateral and debt in USD, close factor (Aave V3, SparkLend, Compound V3, Morpho Blue)",
    source: "lending",
    params: [{ name: "addr", required: true, description: "borrower address", format: "0x-address" }, protocolParam],
    answer: liquidatableAnswer,
    example: {
      params: { addr: "0x568c6d6649bd926e6bedd9e4a3ad52ad67daad01", protocol: "all" },
      answer: {
        found: true,
        addr: "0x568c6d6649bd926e6bedd9e4a3ad52ad67daad01",
        protocol: "aave",
        market: "aave-v3-core",
        isolated_market: null,
        liquidatable: false,
        health_factor: 1.042318,
        collateral_usd: "482113.50",
        debt_usd: "389450.12",
        liquidation_threshold_bps: 8_250,
        close_factor_bps: 5_000,
        price_drop_to_liquidation_pct: 4.05,
        positions: 1,
        refreshed_block: 24_149_998,
        last_seen_ms: 1_767_225_575_000,
        protocol_filter: "all",
        source_age_s: 12,
        indexed_block: 24_149_999,
      } satisfies z.input<typeof liquidatableAnswer>,
    },
    available: () => deps.rpc.configured,
    check: (p) => void parseAddress(p.addr),
    answerQuestion: async (p) => {
      const addr = parseAddress(p.addr);
      const markets = marketsFor(deps.markets, p.protocol);
      const { nowS: _n, cursors: _c, ...src } = await lendingSourceCheck(deps, markets);
      const positions = await positionsOf(db, addr, markets.map((m) => m.id));
      const top = positions[0];
      const market = top ? deps.markets.find((m) => m.id === top.market)! : null;
      return liquidatableAnswer.parse({
        found: top !== undefined,
        addr,
        protocol: market?.protocol ?? null,
        market: market?.id ?? null,
        isolated_market: top && top.subMarket !== "" ? top.subMarket : null,
        liquidatable: top ? isLiquidatable(top.healthFactorWad, top.debtBase) : false,
        health_factor: top ? wadToNumber(top.healthFactorWad) : null,
        collateral_usd: top ? baseToUsd(top.collateralBase) : null,
        debt_usd: top ? baseToUsd(top.debtBase) : null,
        liquidation_threshold_bps: top?.liquidationThresholdBps ?? null,
        close_factor_bps: top && market ? Number(closeFactorFor(market.protocol, top)) : null,
        price_drop_to_liquidation_pct: top ? priceDropPct(top.healthFactorWad) : null,
        positions: positions.length,
        refreshed_block: top ? Number(top.refreshedBlock) : null,
        last_seen_ms: top?.refreshedMs ?? null,
        protocol_filter: choice(p.protocol),
        ...src,
      });
    },
  };
}

/** /v1/q/at-risk-count: positions at or below a health factor, with their debt. */
function atRiskCountQuestion(deps: LendingQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "at-risk-count",
    summary: "How many lending positions are at or below a health factor, with their total debt in USD (Aave V3, SparkLend, Compound V3, Morpho Blue)",
    source: "lending",
    params: [
      { name: "max_hf", required: false, description: "health factor ceiling (inclusive), 0 to 1000", default: "1.05", format: "decimal health factor" },
      { name: "min_debt_usd", required: false, description: "smallest debt counted", default: "0", format: "USD" },
      protocolParam,
    ],
    answer: atRiskAnswer,
    example: {
      params: { max_hf: "1.05", min_debt_usd: "10000", protocol: "all" },
      answer: {
        count: 148,
        total_debt_usd: "38211490.22",
        liquidatable_count: 3,
        universe_size: 41_873,
        max_hf: "1.05",
        min_debt_usd: "10000",
        protocol: "all",
        source_age_s: 12,
        indexed_block: 24_149_999,
      } satisfies z.input<typeof atRiskAnswer>,
    },
    available: () => deps.rpc.configured,
    check: (p) => {
      parseMaxHf(p.max_hf);
      parseMinDebt(p.min_debt_usd);
    },
    answerQuestion: async (p) => {
      const maxHf = parseMaxHf(p.max_hf);
      const minDebt = parseMinDebt(p.min_debt_usd);
      const markets = marketsFor(deps.markets, p.protocol);
      const { nowS: _n, cursors: _c, ...src } = await lendingSourceCheck(deps, markets);
      const r = await riskCounts(db, { markets: markets.map((m) => m.id), maxHfWad: maxHf, minDebtBase: minDebt });
      return atRiskAnswer.parse({
        count: r.count,
        total_debt_usd: baseToUsd(r.debtBase),
        liquidatable_count: r.liquidatable,
        universe_size: r.universe,
        max_hf: p.max_hf ?? "1.05",
        min_debt_usd: p.min_debt_usd ?? "0",
        protocol: choice(p.protocol),
        ...src,
      });
    },
  };
}

/** /v1/q/recent-liquidations: the liquidations of the last minutes by block time. */
function recentLiquidationsQuestion(deps: LendingQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "recent-liquidations",
    summary: "Liquidations in the last minutes: count, debt repaid in USD, distinct liquidators, the newest one (Aave V3, SparkLend, Compound V3, Morpho Blue)",
    source: "lending",
    params: [
      { name: "since_min", required: false, description: `look-back by block time, 1 to ${SINCE_MIN_MAX}`, default: "60", format: "minutes" },
      protocolParam,
    ],
    answer: recentLiquidationsAnswer,
    example: {
      params: { since_min: "60", protocol: "all" },
      answer: {
        count: 4,
        total_debt_usd: "212883.41",
        unpriced: 0,
        distinct_borrowers: 4,
        distinct_liquidators: 2,
        since_min: 60,
        protocol: "all",
        newest: {
          market: "aave-v3-core",
          block: 24_149_871,
          block_time_s: 1_767_224_051,
          tx_hash: "0xe8ebc75ff577d7ebc046b18f3fb05d6051c6fa78c1e96d4b330a3078a0449b42",
          borrower: "0xea08b2a450c5c1468ceb6d399f14ae6a52074de6",
          liquidator: "0x6451df811448636c054e6119d71f974249ee9699",
          debt_usd: "58012.77",
        },
        source_age_s: 12,
        indexed_block: 24_149_999,
      } satisfies z.input<typeof recentLiquidationsAnswer>,
    },
    available: () => deps.rpc.configured,
    check: (p) => void parseSinceMin(p.since_min),
    answerQuestion: async (p) => {
      const since = parseSinceMin(p.since_min);
      const markets = marketsFor(deps.markets, p.protocol);
      const { nowS, cursors: _c, ...src } = await lendingSourceCheck(deps, markets);
      const rows = await liquidationsSince(db, markets.map((m) => m.id), nowS - since * 60);
      const priced = rows.filter((r) => r.debtBase !== null);
      const n = rows[0];
      return recentLiquidationsAnswer.parse({
        count: rows.length,
        total_debt_usd: baseToUsd(priced.reduce((a, r) => a + r.debtBase!, 0n)),
        unpriced: rows.length - priced.length,
        distinct_borrowers: new Set(rows.map((r) => r.borrower)).size,
        distinct_liquidators: new Set(rows.map((r) => r.liquidator)).size,
        since_min: since,
        protocol: choice(p.protocol),
        newest: n
          ? {
              market: n.market,
              block: Number(n.blockNumber),
              block_time_s: n.blockTimeS,
              tx_hash: n.txHash,
              borrower: n.borrower,
              liquidator: n.liquidator,
              debt_usd: n.debtBase === null ? null : baseToUsd(n.debtBase),
            }
          : null,
        ...src,
      });
    },
  };
}

/** The lending indexer as a data-freshness source ("lending"). */
export function lendingFreshnessSource(deps: LendingQuestionDeps): ExtraFreshnessSources {
  return {
    ids: [LENDING_SOURCE],
    freshness: async (): Promise<SourceFreshness> => {
      const all = new Map((await cursors(deps.db)).map((c) => [c.market, c]));
      const cs = deps.markets.map((m) => all.get(m.id));
      const times = cs.map((c) => c?.lastBlockTimeS ?? null);
      const age = times.some((t) => t === null) ? null : Math.max(0, Math.floor(deps.clock.now() / 1000) - Math.min(...(times as number[])));
      const failing = cs.filter((c) => c?.lastError && (c.lastOkMs === null || (c.lastErrorMs ?? 0) >= c.lastOkMs));
      const oks = cs.map((c) => c?.lastOkMs ?? null).filter((v): v is number => v !== null);
      return {
        source: LENDING_SOURCE,
        configured: deps.rpc.configured,
        age_s: age,
        fresh: deps.rpc.configured && age !== null && age <= deps.maxAgeSeconds,
        max_age_s: deps.maxAgeSeconds,
        stored_blocks: await countPositions(deps.db),
        node_reachable: deps.rpc.configured && failing.length === 0,
        newest_slot: null,
        last_ok_ms: oks.length ? Math.min(...oks) : null,
        last_error: failing.length ? `${failing[0]!.market}: ${failing[0]!.lastError}` : null,
      };
    },
  };
}

/** Several data-freshness sources as one (the relays and the lending indexer). */
export function combineFreshnessSources(...sources: ExtraFreshnessSources[]): ExtraFreshnessSources {
  return {
    ids: sources.flatMap((s) => [...s.ids]),
    freshness: async (id) => {
      const s = sources.find((x) => x.ids.includes(id));
      if (!s) throw invalidParam("source", `unknown source ${id}`);
      return s.freshness(id);
    },
  };
}
