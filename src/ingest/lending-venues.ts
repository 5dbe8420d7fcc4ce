/**
 * What the lending indexer does differently per protocol, behind one shape
 * (`LendingVenue`): which topics to ask eth_getLogs for, which positions and
 * liquidations a range of logs names (`scan`), and how the health of those
 * positions is read through Multicall3 (`read`). The indexer
 * (lending-indexer.ts) does the rest the same way for every market: cursor,
 * ranges, valuation of liquidations, the write transaction.
 *
 *   - Aave V3 / SparkLend: `getUserAccountData` per account (the Pool's own HF)
 *     and beside it `getUserConfiguration` (which reserves it uses as
 *     collateral); per run the Pool's reserves (`getReservesList`, each
 *     one's `getConfiguration`), so each position carries the terms of its
 *     own best-paying collateral reserve (`positionTerms`), with the bonus of
 *     its efficiency-mode category (`getUserEMode` beside the two, the
 *     category read once per run, `readEModeCategories`) for the reserves
 *     that are collateral of that category; the market's
 *     terms from `getConfiguration` of its principal collateral reserve.
 *   - Compound V3: per Comet, its base token, price feeds, assets and their
 *     liquidateCollateralFactor, then per account `borrowBalanceOf` and
 *     `isLiquidatable`, and `collateralBalanceOf` of every asset for the
 *     accounts that borrow (chains/ethereum/comet.ts for the arithmetic).
 *     Liquidations are AbsorbDebt events; the collateral shown is the
 *     absorbed asset of largest value in the same transaction. The
 *     liquidation terms from `storeFrontPriceFactor` and each asset's
 *     `liquidationFactor`.
 *   - Morpho Blue: positions are (market id, borrower); per market
 *     `idToMarketParams` (immutable, remembered), `market` totals and the
 *     oracle's `price()`, per position `position`, and the block's time;
 *     then the IRM's `borrowRateView` of each market with interest pending,
 *     which is added to its borrow total (chains/ethereum/morpho.ts).
 *     Markets whose loan token has no USD price on the oracle are left out:
 *     the store is in USD. No market-wide terms (the incentive is per
 *     isolated market, from its LLTV).
 */
import type { Hex } from "viem";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import type { LiquidationFacts } from "./lending-store.js";
import {
  aaveReserveTerms,
  accountDataCall,
  blockNumberCall,
  decodeAccountData,
  decodeBlockNumber,
  decodePoolLog,
  decodeReserveAddress,
  decodeReserveConfiguration,
  decodeReservesList,
  decodeUserConfiguration,
  decodeUserEMode,
  decodeEModeCategory,
  decodeEModeCategoryLegacy,
  eModeCategoryDataCall,
  eModeCollateralBitmapCall,
  eModeCollateralConfigCall,
  userEModeCall,
  type EModeCategory,
  POOL_TOPICS,
  positionTerms,
  reserveAddressByIdCall,
  reserveConfigurationCall,
  reservesListCall,
  userConfigurationCall,
  type LendingMarket,
  type LiquidationTerms,
  type PositionHealth,
  type PositionTerms,
  type RawLog,
  type SubCall,
} from "../chains/ethereum/lending.js";
import { COMET_TOPICS, cometCalls, cometHealth, cometStorefrontTerms, decodeCometLog, decodeCometResult, type CometMarketState } from "../chains/ethereum/comet.js";
import {
  decodeMarket,
  decodeMarketParams,
  decodeMorphoLog,
  decodeOraclePrice,
  decodePosition,
  morphoCalls,
  morphoHealth,
  accruesInterest,
  accruedBorrowAssets,
  decodeBlockTimestamp,
  decodeBorrowRate,
  MORPHO_TOPICS,
  type MarketParams,
} from "../chains/ethereum/morpho.js";

export interface PositionKey {
  borrower: string;
  /** Morpho Blue market id; '' for pooled markets. */
  subMarket: string;
}

/** A liquidation found in the logs, before it is valued. */
export interface FoundLiquidation extends LiquidationFacts {
  log: RawLog;
}

export interface TokenFacts {
  price: bigint | null;
  decimals: number | null;
}

/** What a venue may use during one run of one market. */
export interface VenueContext {
  rpc: EthRpc;
  market: LendingMarket;
  multicall: (calls: readonly SubCall[]) => Promise<(Hex | null)[]>;
  /** USD price (8 decimals) and decimals of tokens, from the indexer's oracle. */
  tokenFacts: (tokens: readonly string[]) => Promise<Map<string, TokenFacts>>;
  /** The run's abort signal (a venue rethrows a failure once it is aborted, rather than degrading). */
  signal?: AbortSignal;
}

/** A position's health as read, with (Aave V3 / SparkLend) the terms of its own collateral: null when they could not be read. */
export interface ReadPosition {
  borrower: string;
  subMarket: string;
  data: PositionHealth;
  terms?: PositionTerms | null;
}

export interface LendingVenue {
  topics: readonly string[];
  scan(ctx: VenueContext, logs: readonly RawLog[]): Promise<{ touched: PositionKey[]; liquidations: FoundLiquidation[] }>;
  /** Health of each position; positions whose reads failed are left out (neither written nor dropped). */
  read(ctx: VenueContext, keys: readonly PositionKey[]): Promise<ReadPosition[]>;
  /** The market's liquidation terms and the block they were read at (absent: the venue has no market-wide terms). Throws when they cannot be read. */
  terms?(ctx: VenueContext): Promise<{ terms: LiquidationTerms; block: bigint }>;
}

/** The block Multicall3 answered a batch at (its getBlockNumber sub-call). */
function blockOf(data: Hex | null | undefined): bigint {
  const b = decodeBlockNumber(data ?? null);
  if (b === null) throw new Error("Multicall3 did not answer getBlockNumber");
  return b;
}

const ZERO = "0x0000000000000000000000000000000000000000";

// ------------------------------------------------------------------ Aave V3

/** A Pool's reserves by reserve id (the ids of the UserConfigurationMap's bits), with their configurations as read this run. */
export type AaveReserves = Map<number, { asset: string; configuration: bigint }>;

/**
 * A Pool's reserves: getReservesList, then in one batch each reserve's
 * getConfiguration and getReserveAddressById of each index. A reserve's id
 * is its index in getReservesList while no reserve has been dropped (the
 * list leaves dropped ones out; aave-v3-core Pool.sol getReservesList);
 * where the Pool answers getReserveAddressById its answers are used
 * instead, so a gap left by a dropped reserve cannot shift the ids (a
 * reserve whose id is then not found among the first ids is left out, and a
 * position using it gets no terms). Throws when the list cannot be read;
 * reserves whose configuration cannot be read are left out.
 */
export async function readAaveReserves(ctx: VenueContext): Promise<AaveReserves> {
  const [list] = await ctx.multicall([reservesListCall(ctx.market.pool)]);
  const assets = decodeReservesList(list ?? null);
  if (!assets) throw new Error("the Pool did not answer getReservesList");
  const r = await ctx.multicall([...assets.map((a) => reserveConfigurationCall(ctx.market.pool, a)), ...assets.map((_, i) => reserveAddressByIdCall(ctx.market.pool, i))]);
  const configurations = new Map(assets.flatMap((a, i) => {
    const c = decodeReserveConfiguration(r[i] ?? null);
    return c === null ? [] : [[a, c] as const];
  }));
  const byId = assets.map((_, i) => decodeReserveAddress(r[assets.length + i] ?? null));
  const out: AaveReserves = new Map();
  const answered = byId.some((a) => a !== null);
  assets.forEach((listed, i) => {
    const asset = answered ? byId[i] : listed;
    const configuration = asset ? configurations.get(asset) : undefined;
    if (asset && configuration !== undefined) out.set(i, { asset, configuration });
  });
  return out;
}

/**
 * A Pool's eMode categories by id, as its liquidations use them: first the
 * V3.2+ views (getEModeCategoryCollateralConfig and
 * getEModeCategoryCollateralBitmap of each id, one batch), then for the ids
 * those did not answer the V3.0/3.1 getEModeCategoryData (a Pool older than
 * V3.2 has no such functions: the sub-calls fail). A category with no
 * liquidation bonus (an id never configured) or no answer is left out: its
 * accounts are valued with their reserves' own terms.
 */
export async function readEModeCategories(ctx: VenueContext, ids: readonly number[]): Promise<Map<number, EModeCategory>> {
  const out = new Map<number, EModeCategory>();
  if (ids.length === 0) return out;
  const pool = ctx.market.pool;
  const r = await ctx.multicall(ids.flatMap((id) => [eModeCollateralConfigCall(pool, id), eModeCollateralBitmapCall(pool, id)]));
  ids.forEach((id, i) => {
    const c = decodeEModeCategory(id, r[2 * i] ?? null, r[2 * i + 1] ?? null);
    if (c) out.set(id, c);
  });
  const legacy = ids.filter((id) => !out.has(id));
  if (legacy.length > 0) {
    const l = await ctx.multicall(legacy.map((id) => eModeCategoryDataCall(pool, id)));
    legacy.forEach((id, i) => {
      const c = decodeEModeCategoryLegacy(id, l[i] ?? null);
      if (c) out.set(id, c);
    });
  }
  for (const [id, c] of out) if (c.liquidationBonus === 0n) out.delete(id);
  return out;
}

/**
 * Aave V3 / SparkLend: one venue object per run (it remembers the Pool's
 * reserves read during the run, as the Comet venue its state).
 */
export function aaveVenue(): LendingVenue {
  let reserves: Promise<AaveReserves | null> | null = null;
  // A failed read of the reserves leaves this run's positions without their own terms; it never fails the market.
  const reservesOf = (ctx: VenueContext) => (reserves ??= readAaveReserves(ctx).catch((e) => {
    if (ctx.signal?.aborted) throw e;
    return null;
  }));
  // The eMode categories read this run, by id; a failed read leaves the category out (reserve terms), never fails the market.
  const categories = new Map<number, Promise<EModeCategory | null>>();
  const categoriesOf = async (ctx: VenueContext, ids: readonly number[]) => {
    const missing = [...new Set(ids)].filter((id) => id !== 0 && !categories.has(id));
    if (missing.length > 0) {
      const read = readEModeCategories(ctx, missing).catch((e) => {
        if (ctx.signal?.aborted) throw e;
        return new Map<number, EModeCategory>();
      });
      for (const id of missing) categories.set(id, read.then((m) => m.get(id) ?? null));
    }
    return new Map(await Promise.all([...new Set(ids)].filter((id) => id !== 0).map(async (id) => [id, await categories.get(id)!] as const)));
  };
  return {
    topics: POOL_TOPICS,
    async scan(_ctx, logs) {
      const touched: PositionKey[] = [];
      const liquidations: FoundLiquidation[] = [];
      for (const log of logs) {
        const ev = decodePoolLog(log);
        if (!ev) continue;
        touched.push({ borrower: ev.user, subMarket: "" });
        if (ev.kind === "liquidation") {
          liquidations.push({
            log,
            borrower: ev.user,
            liquidator: ev.liquidator,
            collateralAsset: ev.collateralAsset,
            debtAsset: ev.debtAsset,
            debtToCover: ev.debtToCover,
            collateralAmount: ev.collateralAmount,
            subMarket: "",
          });
        }
      }
      return { touched, liquidations };
    },
    async read(ctx, keys) {
      if (keys.length === 0) return [];
      const byId = await reservesOf(ctx);
      // getUserAccountData, getUserConfiguration and getUserEMode of each account side by side, in the same batches.
      const pool = ctx.market.pool;
      const r = await ctx.multicall(keys.flatMap((k) => [accountDataCall(pool, k.borrower), userConfigurationCall(pool, k.borrower), userEModeCall(pool, k.borrower)]));
      const eModes = keys.map((_, i) => decodeUserEMode(r[3 * i + 2] ?? null));
      const cats = byId ? await categoriesOf(ctx, eModes.filter((id): id is number => id !== null)) : new Map<number, EModeCategory | null>();
      return keys.flatMap((k, i) => {
        const data = decodeAccountData(r[3 * i] ?? null);
        if (!data) return [];
        const config = byId ? decodeUserConfiguration(r[3 * i + 1] ?? null) : null;
        // A failed getUserEMode or category read: the reserves' own terms (the eMode bonus is only ever lower).
        const eMode = eModes[i] ? (cats.get(eModes[i]!) ?? null) : null;
        return [{ borrower: k.borrower, subMarket: "", data, terms: config === null ? null : positionTerms(config, byId!, eMode) }];
      });
    },
    async terms(ctx) {
      const reserve = ctx.market.principalReserve;
      if (!reserve) throw new Error(`no principal collateral reserve for ${ctx.market.id}`);
      const [config, block] = await ctx.multicall([reserveConfigurationCall(ctx.market.pool, reserve.asset), blockNumberCall()]);
      const data = decodeReserveConfiguration(config ?? null);
      if (data === null) throw new Error(`the Pool did not answer getConfiguration(${reserve.symbol})`);
      return { terms: aaveReserveTerms(data, reserve.symbol), block: blockOf(block) };
    },
  };
}

// ------------------------------------------------------------------ Compound V3

/** A Comet's base token, feeds and assets with their current prices (read once per run and market). */
export async function readCometState(ctx: VenueContext): Promise<CometMarketState> {
  const comet = ctx.market.pool;
  const [bt, feed, scale, n] = await ctx.multicall([cometCalls.baseToken(comet), cometCalls.baseTokenPriceFeed(comet), cometCalls.baseScale(comet), cometCalls.numAssets(comet)]);
  const baseToken = decodeCometResult<string>("baseToken", bt ?? null);
  const baseFeed = decodeCometResult<string>("baseTokenPriceFeed", feed ?? null);
  const baseScale = decodeCometResult<bigint>("baseScale", scale ?? null);
  const numAssets = decodeCometResult<number>("numAssets", n ?? null);
  if (!baseToken || !baseFeed || !baseScale || numAssets === null) throw new Error("the Comet did not answer baseToken/baseTokenPriceFeed/baseScale/numAssets");
  type Info = { asset: string; priceFeed: string; scale: bigint; liquidateCollateralFactor: bigint };
  const infoData = await ctx.multicall([cometCalls.getPrice(comet, baseFeed), ...Array.from({ length: numAssets }, (_, i) => cometCalls.getAssetInfo(comet, i))]);
  const basePrice = decodeCometResult<bigint>("getPrice", infoData[0] ?? null);
  const infos = infoData.slice(1).map((d) => decodeCometResult<Info>("getAssetInfo", d));
  if (!basePrice || infos.some((x) => x === null)) throw new Error("the Comet did not answer getPrice(base)/getAssetInfo");
  const prices = await ctx.multicall(infos.map((a) => cometCalls.getPrice(comet, a!.priceFeed)));
  return {
    baseToken: baseToken.toLowerCase(),
    baseScale,
    basePrice,
    assets: infos.map((a, i) => ({
      asset: a!.asset.toLowerCase(),
      priceFeed: a!.priceFeed.toLowerCase(),
      scale: a!.scale,
      liquidateCF: a!.liquidateCollateralFactor,
      // A feed that fails (getPrice reverts on a non-positive answer) values that collateral at 0: the HF errs low, never high.
      price: decodeCometResult<bigint>("getPrice", prices[i] ?? null) ?? 0n,
    })),
  };
}

/** Compound V3: one venue object per run (it remembers the Comet's state read during the run). */
export function cometVenue(): LendingVenue {
  let state: CometMarketState | null = null;
  const stateOf = async (ctx: VenueContext) => (state ??= await readCometState(ctx));
  return {
    topics: COMET_TOPICS,
    async scan(ctx, logs) {
      const touched: PositionKey[] = [];
      const debts: { log: RawLog; absorber: string; borrower: string; basePaidOut: bigint }[] = [];
      const collaterals = new Map<string, { asset: string; amount: bigint; usdValue: bigint }>();
      for (const log of logs) {
        const ev = decodeCometLog(log);
        if (!ev) continue;
        if (ev.kind === "touch") for (const a of ev.accounts) touched.push({ borrower: a, subMarket: "" });
        else if (ev.kind === "absorb-debt") {
          touched.push({ borrower: ev.borrower, subMarket: "" });
          debts.push({ log, absorber: ev.absorber, borrower: ev.borrower, basePaidOut: ev.basePaidOut });
        } else {
          const k = `${log.transactionHash}:${ev.borrower}`;
          const best = collaterals.get(k);
          if (!best || ev.usdValue > best.usdValue) collaterals.set(k, { asset: ev.asset, amount: ev.amount, usdValue: ev.usdValue });
        }
      }
      const baseToken = debts.length ? (await stateOf(ctx)).baseToken : ZERO;
      const liquidations = debts.map((d): FoundLiquidation => {
        const c = collaterals.get(`${d.log.transactionHash}:${d.borrower}`);
        return {
          log: d.log,
          borrower: d.borrower,
          liquidator: d.absorber,
          collateralAsset: c?.asset ?? ZERO,
          debtAsset: baseToken,
          debtToCover: d.basePaidOut,
          collateralAmount: c?.amount ?? 0n,
          subMarket: "",
        };
      });
      return { touched, liquidations };
    },
    async terms(ctx) {
      const comet = ctx.market.pool;
      const [n] = await ctx.multicall([cometCalls.numAssets(comet)]);
      const numAssets = decodeCometResult<number>("numAssets", n ?? null);
      if (numAssets === null) throw new Error("the Comet did not answer numAssets");
      const r = await ctx.multicall([
        cometCalls.storeFrontPriceFactor(comet),
        blockNumberCall(),
        ...Array.from({ length: numAssets }, (_, i) => cometCalls.getAssetInfo(comet, i)),
      ]);
      const factor = decodeCometResult<bigint>("storeFrontPriceFactor", r[0] ?? null);
      const infos = r.slice(2).map((d) => decodeCometResult<{ asset: string; liquidationFactor: bigint }>("getAssetInfo", d));
      if (factor === null || infos.some((x) => x === null)) throw new Error("the Comet did not answer storeFrontPriceFactor/getAssetInfo");
      const assets = infos.map((a) => ({ asset: a!.asset.toLowerCase(), liquidationFactor: a!.liquidationFactor }));
      return { terms: cometStorefrontTerms(factor, assets), block: blockOf(r[1]) };
    },
    async read(ctx, keys) {
      if (keys.length === 0) return [];
      const comet = ctx.market.pool;
      const m = await stateOf(ctx);
      const baseUsd = (await ctx.tokenFacts([m.baseToken])).get(m.baseToken)?.price;
      if (!baseUsd) throw new Error(`no USD price for the Comet's base token ${m.baseToken}`);
      const first = await ctx.multicall(keys.flatMap((k) => [cometCalls.borrowBalanceOf(comet, k.borrower), cometCalls.isLiquidatable(comet, k.borrower)]));
      const borrows = keys.map((k, i) => ({
        borrower: k.borrower,
        borrow: decodeCometResult<bigint>("borrowBalanceOf", first[2 * i] ?? null),
        liquidatable: decodeCometResult<boolean>("isLiquidatable", first[2 * i + 1] ?? null),
      }));
      // Collateral is read only for the accounts that borrow: most accounts a Comet's events name are lenders.
      const borrowing = borrows.filter((b) => b.borrow !== null && b.borrow > 0n);
      const coll = await ctx.multicall(borrowing.flatMap((b) => m.assets.map((a) => cometCalls.collateralBalanceOf(comet, b.borrower, a.asset))));
      const row = new Map(borrowing.map((b, j) => [b, j]));
      const out: { borrower: string; subMarket: string; data: PositionHealth }[] = [];
      for (const b of borrows) {
        if (b.borrow === null) continue;
        if (b.borrow === 0n) {
          out.push({ borrower: b.borrower, subMarket: "", data: cometHealth(m, 0n, [], baseUsd, null) });
          continue;
        }
        const j = row.get(b)!;
        const balances = m.assets.map((_, i) => decodeCometResult<bigint>("collateralBalanceOf", coll[j * m.assets.length + i] ?? null));
        if (balances.some((x) => x === null)) continue;
        out.push({ borrower: b.borrower, subMarket: "", data: cometHealth(m, b.borrow, balances as bigint[], baseUsd, b.liquidatable) });
      }
      return out;
    },
  };
}

// ------------------------------------------------------------------ Morpho Blue

/** Market params are immutable (the id is their hash): remembered across runs. */
const morphoParams = new Map<string, MarketParams>();

async function paramsOf(ctx: VenueContext, ids: readonly string[]): Promise<Map<string, MarketParams>> {
  const missing = [...new Set(ids)].filter((id) => !morphoParams.has(`${ctx.market.pool}:${id}`));
  if (missing.length) {
    const r = await ctx.multicall(missing.map((id) => morphoCalls.idToMarketParams(ctx.market.pool, id)));
    missing.forEach((id, i) => {
      const p = decodeMarketParams(r[i] ?? null);
      if (p) morphoParams.set(`${ctx.market.pool}:${id}`, p);
    });
  }
  const out = new Map<string, MarketParams>();
  for (const id of ids) {
    const p = morphoParams.get(`${ctx.market.pool}:${id}`);
    if (p) out.set(id, p);
  }
  return out;
}

export const morphoVenue: LendingVenue = {
  topics: MORPHO_TOPICS,
  async scan(ctx, logs) {
    const touched: PositionKey[] = [];
    const found: { log: RawLog; id: string; liquidator: string; borrower: string; repaid: bigint; seized: bigint }[] = [];
    for (const log of logs) {
      const ev = decodeMorphoLog(log);
      if (!ev) continue;
      if (ev.kind === "create") morphoParams.set(`${ctx.market.pool}:${ev.id}`, ev.params);
      else if (ev.kind === "touch") touched.push({ borrower: ev.borrower, subMarket: ev.id });
      else {
        touched.push({ borrower: ev.borrower, subMarket: ev.id });
        found.push({ log, id: ev.id, liquidator: ev.liquidator, borrower: ev.borrower, repaid: ev.repaidAssets, seized: ev.seizedAssets });
      }
    }
    const params = await paramsOf(ctx, found.map((f) => f.id));
    const liquidations = found.map((f): FoundLiquidation => ({
      log: f.log,
      borrower: f.borrower,
      liquidator: f.liquidator,
      collateralAsset: params.get(f.id)?.collateralToken ?? ZERO,
      debtAsset: params.get(f.id)?.loanToken ?? ZERO,
      debtToCover: f.repaid,
      collateralAmount: f.seized,
      subMarket: f.id,
    }));
    return { touched, liquidations };
  },
  async read(ctx, keys) {
    if (keys.length === 0) return [];
    const morpho = ctx.market.pool;
    const ids = [...new Set(keys.map((k) => k.subMarket))];
    const params = await paramsOf(ctx, ids);
    const known = ids.filter((id) => params.has(id));
    const r = await ctx.multicall([
      ...known.map((id) => morphoCalls.market(morpho, id)),
      ...known.map((id) => morphoCalls.oraclePrice(params.get(id)!.oracle)),
      ...keys.map((k) => morphoCalls.position(morpho, k.subMarket, k.borrower)),
      morphoCalls.blockTimestamp(),
    ]);
    const facts = await ctx.tokenFacts([...new Set(known.map((id) => params.get(id)!.loanToken))]);
    const markets = new Map(
      known.map((id, i) => [id, { totals: decodeMarket(r[i] ?? null), price: decodeOraclePrice(r[known.length + i] ?? null), params: params.get(id)! }]),
    );
    // Interest since each market's last update, as the contract's next call would add it (chains/ethereum/morpho.ts).
    // A market whose rate or the block's time cannot be read is left out this run, never shown with stale debt.
    const timestamp = decodeBlockTimestamp(r[2 * known.length + keys.length] ?? null);
    const accruing = [...markets].filter(([, m]) => m.totals && (timestamp === null || accruesInterest(m.params, m.totals, timestamp)));
    const rates = accruing.length > 0 && timestamp !== null ? await ctx.multicall(accruing.map(([, m]) => morphoCalls.borrowRateView(m.params, m.totals!))) : [];
    accruing.forEach(([id, m], i) => {
      const rate = decodeBorrowRate(rates[i] ?? null);
      markets.set(id, { ...m, totals: rate === null || timestamp === null ? null : { ...m.totals!, totalBorrowAssets: accruedBorrowAssets(m.totals!, rate, timestamp) } });
    });
    const out: { borrower: string; subMarket: string; data: PositionHealth }[] = [];
    keys.forEach((k, i) => {
      const m = markets.get(k.subMarket);
      const pos = decodePosition(r[2 * known.length + i] ?? null);
      const f = m ? facts.get(m.params.loanToken) : undefined;
      if (!m || !m.totals || m.price === null || !pos || !f?.price || f.decimals === null) return;
      out.push({ borrower: k.borrower, subMarket: k.subMarket, data: morphoHealth(pos, m.totals, m.price, m.params.lltv, f.price, f.decimals) });
    });
    return out;
  },
};

/** The venue of a market's protocol, fresh for one run. */
export function venueFor(market: LendingMarket): LendingVenue {
  switch (market.protocol) {
    case "aave":
    case "spark":
      return aaveVenue();
    case "compound":
      return cometVenue();
    case "morpho":
      return morphoVenue;
  }
}
