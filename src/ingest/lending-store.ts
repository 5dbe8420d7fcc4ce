/**
 * The lending indexer's SQL (migrations 0013, 0019, 0020, 0022, 0023): positions of
 * borrowers with debt (Aave V3 / SparkLend ones with the terms of their own
 * collateral reserve), liquidation events, a cursor per market and each
 * market's liquidation terms as last read from the chain. A position is
 * (market, borrower, sub_market): sub_market is the Morpho Blue market id
 * inside the singleton, '' for pooled markets. Base amounts (USD, 8
 * decimals) and health factors (1e18) are exact decimal strings in the
 * database and bigints here; comparisons happen in SQL on numeric.
 */
import { sql, type Selectable } from "kysely";
import type { LendingLiquidationsTable } from "../db/schema.js";
import type { Queryable } from "../db/types.js";
import type { LiquidationTerms, PositionHealth, PositionTerms } from "../chains/ethereum/lending.js";

export interface StoredPosition {
  market: string;
  borrower: string;
  collateralBase: bigint;
  debtBase: bigint;
  liquidationThresholdBps: number;
  healthFactorWad: bigint;
  /** Morpho Blue market id; '' for pooled markets. */
  subMarket: string;
  firstSeenBlock: bigint;
  refreshedBlock: bigint;
  refreshedMs: number;
  /**
   * Aave V3 / SparkLend: the terms of the position's own best-paying collateral reserve as last read (migration 0022), with the eMode category whose bonus applied (0023);
   * null when they could not be read, and for Compound V3 and Morpho Blue.
   */
  reserveTerms: PositionTerms | null;
}

/** What a liquidation event says, whatever the protocol (the venues decode it from the logs; the store keeps it). */
export interface LiquidationFacts {
  borrower: string;
  liquidator: string;
  collateralAsset: string;
  debtAsset: string;
  debtToCover: bigint;
  collateralAmount: bigint;
  /** Morpho Blue market id; '' for pooled markets. */
  subMarket: string;
}

export interface StoredLiquidation extends LiquidationFacts {
  market: string;
  blockNumber: bigint;
  logIndex: number;
  blockHash: string;
  txHash: string;
  blockTimeS: number;
  debtBase: bigint | null;
}

export interface LendingCursor {
  market: string;
  chainId: number;
  lastBlock: bigint | null;
  lastBlockTimeS: number | null;
  lastRefreshMs: number | null;
  lastOkMs: number | null;
  lastError: string | null;
  lastErrorMs: number | null;
  ethPriceBase: bigint | null;
}

const num = (v: string | null) => (v === null ? null : Number(v));
const big = (v: string | null) => (v === null ? null : BigInt(v));

export async function cursors(db: Queryable): Promise<LendingCursor[]> {
  const rows = await db.selectFrom("lending_cursors").selectAll().orderBy("market").execute();
  return rows.map((r) => ({
    market: r.market,
    chainId: Number(r.chain_id),
    lastBlock: big(r.last_block),
    lastBlockTimeS: num(r.last_block_time_s),
    lastRefreshMs: num(r.last_refresh_ms),
    lastOkMs: num(r.last_ok_ms),
    lastError: r.last_error,
    lastErrorMs: num(r.last_error_ms),
    ethPriceBase: big(r.eth_price_base),
  }));
}

/** Records a successful run of a market: events read through `lastBlock`. */
export async function advanceCursor(
  db: Queryable,
  c: { market: string; chainId: number; lastBlock: bigint; lastBlockTimeS: number; nowMs: number; refreshed: boolean; ethPriceBase: bigint | null },
): Promise<void> {
  await db
    .insertInto("lending_cursors")
    .values({
      market: c.market,
      chain_id: String(c.chainId),
      last_block: c.lastBlock.toString(),
      last_block_time_s: String(c.lastBlockTimeS),
      last_refresh_ms: c.refreshed ? String(c.nowMs) : null,
      last_ok_ms: String(c.nowMs),
      last_error: null,
      last_error_ms: null,
      eth_price_base: c.ethPriceBase?.toString() ?? null,
    })
    .onConflict((oc) =>
      oc.column("market").doUpdateSet((eb) => ({
        chain_id: eb.ref("excluded.chain_id"),
        last_block: eb.ref("excluded.last_block"),
        last_block_time_s: eb.ref("excluded.last_block_time_s"),
        last_refresh_ms: c.refreshed ? eb.ref("excluded.last_refresh_ms") : eb.ref("lending_cursors.last_refresh_ms"),
        last_ok_ms: eb.ref("excluded.last_ok_ms"),
        last_error: null,
        last_error_ms: null,
        eth_price_base: c.ethPriceBase === null ? eb.ref("lending_cursors.eth_price_base") : eb.ref("excluded.eth_price_base"),
      })),
    )
    .execute();
}

/** Records a failed run of a market (the data stays as it was). */
export async function recordCursorError(db: Queryable, market: string, chainId: number, message: string, nowMs: number): Promise<void> {
  await db
    .insertInto("lending_cursors")
    .values({ market, chain_id: String(chainId), last_block: null, last_block_time_s: null, last_error: message.slice(0, 300), last_error_ms: String(nowMs) })
    .onConflict((oc) => oc.column("market").doUpdateSet({ last_error: message.slice(0, 300), last_error_ms: String(nowMs) }))
    .execute();
}

export async function trackedBorrowers(db: Queryable, market: string): Promise<string[]> {
  const rows = await db.selectFrom("lending_positions").select("borrower").distinct().where("market", "=", market).execute();
  return rows.map((r) => r.borrower);
}

/** Every tracked position of a market as (borrower, sub-market). */
export async function trackedPositions(db: Queryable, market: string): Promise<{ borrower: string; subMarket: string }[]> {
  const rows = await db.selectFrom("lending_positions").select(["borrower", "sub_market"]).where("market", "=", market).execute();
  return rows.map((r) => ({ borrower: r.borrower, subMarket: r.sub_market }));
}

/**
 * Writes refreshed account data: positions with debt are upserted (keeping
 * their first-seen block), positions without debt are dropped.
 */
export async function storeAccounts(
  db: Queryable,
  market: string,
  block: bigint,
  nowMs: number,
  accounts: readonly { borrower: string; subMarket?: string; data: PositionHealth; terms?: PositionTerms | null }[],
): Promise<{ stored: number; dropped: number }> {
  const withDebt = accounts.filter((a) => a.data.debtBase > 0n);
  const without = new Map<string, string[]>();
  for (const a of accounts) if (a.data.debtBase === 0n) without.set(a.subMarket ?? "", [...(without.get(a.subMarket ?? "") ?? []), a.borrower]);
  for (let i = 0; i < withDebt.length; i += 500) {
    await db
      .insertInto("lending_positions")
      .values(
        withDebt.slice(i, i + 500).map((a) => ({
          market,
          borrower: a.borrower,
          collateral_base: a.data.collateralBase.toString(),
          debt_base: a.data.debtBase.toString(),
          liquidation_threshold_bps: Number(a.data.liquidationThresholdBps),
          health_factor_wad: a.data.healthFactorWad.toString(),
          sub_market: a.subMarket ?? "",
          first_seen_block: block.toString(),
          refreshed_block: block.toString(),
          refreshed_ms: String(nowMs),
          collateral_reserve: a.terms?.asset ?? null,
          reserve_bonus_bps: a.terms ? Number(a.terms.bonusBps) : null,
          reserve_protocol_fee_bps: a.terms ? Number(a.terms.protocolFeeBps) : null,
          emode_category: a.terms?.emodeCategory ?? null,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["market", "borrower", "sub_market"]).doUpdateSet((eb) => ({
          collateral_base: eb.ref("excluded.collateral_base"),
          debt_base: eb.ref("excluded.debt_base"),
          liquidation_threshold_bps: eb.ref("excluded.liquidation_threshold_bps"),
          health_factor_wad: eb.ref("excluded.health_factor_wad"),
          refreshed_block: eb.ref("excluded.refreshed_block"),
          refreshed_ms: eb.ref("excluded.refreshed_ms"),
          collateral_reserve: eb.ref("excluded.collateral_reserve"),
          reserve_bonus_bps: eb.ref("excluded.reserve_bonus_bps"),
          reserve_protocol_fee_bps: eb.ref("excluded.reserve_protocol_fee_bps"),
          emode_category: eb.ref("excluded.emode_category"),
        })),
      )
      .execute();
  }
  let dropped = 0;
  for (const [sub, borrowers] of without) {
    for (let i = 0; i < borrowers.length; i += 500) {
      const r = await db
        .deleteFrom("lending_positions")
        .where("market", "=", market)
        .where("sub_market", "=", sub)
        .where("borrower", "in", borrowers.slice(i, i + 500))
        .executeTakeFirst();
      dropped += Number(r.numDeletedRows);
    }
  }
  return { stored: withDebt.length, dropped };
}

export async function storeLiquidations(db: Queryable, rows: readonly StoredLiquidation[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("lending_liquidations")
    .values(
      rows.map((l) => ({
        market: l.market,
        block_number: l.blockNumber.toString(),
        log_index: l.logIndex,
        block_hash: l.blockHash,
        tx_hash: l.txHash,
        block_time_s: String(l.blockTimeS),
        borrower: l.borrower,
        liquidator: l.liquidator,
        collateral_asset: l.collateralAsset,
        debt_asset: l.debtAsset,
        debt_to_cover: l.debtToCover.toString(),
        collateral_amount: l.collateralAmount.toString(),
        debt_base: l.debtBase?.toString() ?? null,
        sub_market: l.subMarket,
      })),
    )
    .onConflict((oc) => oc.columns(["market", "block_number", "log_index"]).doNothing())
    .execute();
}

/** Retention: drops liquidations whose block is older than `beforeS`. */
export async function pruneLiquidations(db: Queryable, beforeS: number): Promise<number> {
  const r = await db.deleteFrom("lending_liquidations").where("block_time_s", "<", String(beforeS)).executeTakeFirst();
  return Number(r.numDeletedRows);
}

const positionFromRow = (r: {
  market: string;
  borrower: string;
  collateral_base: string;
  debt_base: string;
  liquidation_threshold_bps: number;
  health_factor_wad: string;
  sub_market: string;
  first_seen_block: string;
  refreshed_block: string;
  refreshed_ms: string;
  collateral_reserve: string | null;
  reserve_bonus_bps: number | null;
  reserve_protocol_fee_bps: number | null;
  emode_category: number | null;
}): StoredPosition => ({
  market: r.market,
  borrower: r.borrower,
  collateralBase: BigInt(r.collateral_base),
  debtBase: BigInt(r.debt_base),
  liquidationThresholdBps: Number(r.liquidation_threshold_bps),
  healthFactorWad: BigInt(r.health_factor_wad),
  subMarket: r.sub_market,
  firstSeenBlock: BigInt(r.first_seen_block),
  refreshedBlock: BigInt(r.refreshed_block),
  refreshedMs: Number(r.refreshed_ms),
  reserveTerms:
    r.collateral_reserve !== null && r.reserve_bonus_bps !== null && r.reserve_protocol_fee_bps !== null
      ? {
          asset: r.collateral_reserve,
          bonusBps: BigInt(r.reserve_bonus_bps),
          protocolFeeBps: BigInt(r.reserve_protocol_fee_bps),
          ...(r.emode_category !== null ? { emodeCategory: r.emode_category } : {}),
        }
      : null,
});

/** An address's positions in the given markets, lowest health factor first. */
export async function positionsOf(db: Queryable, borrower: string, markets: readonly string[]): Promise<StoredPosition[]> {
  if (markets.length === 0) return [];
  const rows = await db
    .selectFrom("lending_positions")
    .selectAll()
    .where("borrower", "=", borrower)
    .where("market", "in", markets)
    .orderBy("health_factor_wad", "asc")
    .execute();
  return rows.map(positionFromRow);
}

/** Positions at or below a health factor with at least `minDebtBase` of debt, lowest HF first. */
export async function positionsBelow(
  db: Queryable,
  q: { markets: readonly string[]; maxHfWad: bigint; minDebtBase: bigint; limit?: number },
): Promise<StoredPosition[]> {
  if (q.markets.length === 0) return [];
  let query = db
    .selectFrom("lending_positions")
    .selectAll()
    .where("market", "in", q.markets)
    .where(sql<boolean>`health_factor_wad <= ${q.maxHfWad.toString()}::numeric`)
    .where(sql<boolean>`debt_base >= ${q.minDebtBase.toString()}::numeric`)
    .orderBy("health_factor_wad", "asc")
    .orderBy("debt_base", "desc");
  if (q.limit !== undefined) query = query.limit(q.limit);
  return (await query.execute()).map(positionFromRow);
}

/** Count and total debt of positions at or below a health factor, plus the number of borrowers tracked. */
export async function riskCounts(
  db: Queryable,
  q: { markets: readonly string[]; maxHfWad: bigint; minDebtBase: bigint },
): Promise<{ count: number; debtBase: bigint; liquidatable: number; universe: number }> {
  if (q.markets.length === 0) return { count: 0, debtBase: 0n, liquidatable: 0, universe: 0 };
  const r = await sql<{ n: string; debt: string | null; liq: string; universe: string }>`
    SELECT
      count(*) FILTER (WHERE health_factor_wad <= ${q.maxHfWad.toString()}::numeric AND debt_base >= ${q.minDebtBase.toString()}::numeric)::text AS n,
      (sum(debt_base) FILTER (WHERE health_factor_wad <= ${q.maxHfWad.toString()}::numeric AND debt_base >= ${q.minDebtBase.toString()}::numeric))::text AS debt,
      count(*) FILTER (WHERE health_factor_wad < 1000000000000000000::numeric AND debt_base >= ${q.minDebtBase.toString()}::numeric)::text AS liq,
      count(*)::text AS universe
    FROM lending_positions WHERE market IN (${sql.join(q.markets)})`.execute(db);
  const row = r.rows[0]!;
  return { count: Number(row.n), debtBase: BigInt(row.debt ?? "0"), liquidatable: Number(row.liq), universe: Number(row.universe) };
}

export async function countPositions(db: Queryable): Promise<number> {
  const r = await db.selectFrom("lending_positions").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
  return Number(r.n);
}

const liquidationFromRow = (r: Selectable<LendingLiquidationsTable>): StoredLiquidation => ({
  market: r.market,
  blockNumber: BigInt(r.block_number),
  logIndex: Number(r.log_index),
  blockHash: r.block_hash,
  txHash: r.tx_hash,
  blockTimeS: Number(r.block_time_s),
  borrower: r.borrower,
  liquidator: r.liquidator,
  collateralAsset: r.collateral_asset,
  debtAsset: r.debt_asset,
  debtToCover: BigInt(r.debt_to_cover),
  collateralAmount: BigInt(r.collateral_amount),
  debtBase: big(r.debt_base),
  subMarket: r.sub_market,
});

/** Liquidations in the given markets since `sinceS` (block time), newest first. */
export async function liquidationsSince(db: Queryable, markets: readonly string[], sinceS: number, borrower?: string): Promise<StoredLiquidation[]> {
  if (markets.length === 0) return [];
  let q = db
    .selectFrom("lending_liquidations")
    .selectAll()
    .where("market", "in", markets)
    .where("block_time_s", ">=", String(sinceS));
  if (borrower !== undefined) q = q.where("borrower", "=", borrower);
  const rows = await q.orderBy("block_number", "desc").orderBy("log_index", "desc").execute();
  return rows.map(liquidationFromRow);
}

/** A market's liquidation terms as stored (migration 0020). */
export interface StoredMarketTerms extends LiquidationTerms {
  market: string;
  /** The block the terms were read at. */
  readBlock: bigint;
  readMs: number;
}

/** Writes a market's freshly read terms, replacing ones read at an older or the same block (several workers may run the indexer). */
export async function storeMarketTerms(db: Queryable, t: StoredMarketTerms): Promise<void> {
  const row = {
    market: t.market,
    bonus_bps: Number(t.bonusBps),
    protocol_fee_bps: Number(t.protocolFeeBps),
    source: t.source,
    detail: t.detail.slice(0, 300),
    read_block: t.readBlock.toString(),
    read_ms: String(t.readMs),
  };
  const { market: _market, ...update } = row;
  await db
    .insertInto("lending_market_terms")
    .values(row)
    .onConflict((oc) => oc.column("market").doUpdateSet(update).where("lending_market_terms.read_block", "<=", row.read_block))
    .execute();
}

/** The stored terms of every market that has them, by market id. */
export async function marketTerms(db: Queryable): Promise<Map<string, StoredMarketTerms>> {
  const rows = await db.selectFrom("lending_market_terms").selectAll().execute();
  return new Map(
    rows.map((r) => [
      r.market,
      {
        market: r.market,
        bonusBps: BigInt(r.bonus_bps),
        protocolFeeBps: BigInt(r.protocol_fee_bps),
        source: r.source as LiquidationTerms["source"],
        detail: r.detail,
        readBlock: BigInt(r.read_block),
        readMs: Number(r.read_ms),
      },
    ]),
  );
}
