/**
 * Compound V3 (Comet) for the lending indexer (pure): the events that name
 * accounts, the views read per market and per account, and the health factor.
 * Nothing here does I/O.
 *
 * Facts (compound-finance/comet, contracts/CometMainInterface.sol,
 * CometExtInterface.sol, CometCore.sol, Comet.sol):
 *   - prices come from `getPrice(priceFeed)` with 8 decimals
 *     (PRICE_FEED_DECIMALS) in the unit of the market's feeds — USD for
 *     cUSDCv3, cUSDTv3 and cUSDSv3, ETH for cWETHv3, wstETH for cWstETHv3
 *     (a constant 1e8 base feed; deployments/mainnet/wsteth/deploy.ts and
 *     migrations/1727727546_change_base_price_feed.ts); factors are scaled
 *     1e18 (FACTOR_SCALE);
 *   - `isLiquidatable(account)`: −borrow × basePrice / baseScale + Σ
 *     collateral_i × price_i / scale_i × liquidateCollateralFactor_i < 0;
 *   - `absorb` takes an underwater account's whole collateral and debt:
 *     one AbsorbCollateral per asset, then AbsorbDebt(basePaidOut).
 *
 * Health factor (comparable with Aave's, 1e18-scaled):
 *   HF = Σ collateral_i · price_i / scale_i · liquidateCF_i / (borrow · basePrice / baseScale)
 * so HF < 1 exactly when `isLiquidatable` is true (up to rounding; the
 * contract's own answer wins, see `cometHealth`). The liquidation threshold
 * shown is the collateral-weighted liquidateCF in bps, like Aave's
 * `currentLiquidationThreshold`.
 */
import { type Hex, decodeEventLog, decodeFunctionResult, encodeFunctionData, parseAbi, toEventSelector } from "viem";
import { decodeOrNull, NO_DEBT_HF, WAD, type LiquidationTerms, type PositionHealth, type SubCall } from "./lending.js";

export const cometAbi = parseAbi([
  "event Supply(address indexed from, address indexed dst, uint256 amount)",
  "event Transfer(address indexed from, address indexed to, uint256 amount)",
  "event Withdraw(address indexed src, address indexed to, uint256 amount)",
  "event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount)",
  "event TransferCollateral(address indexed from, address indexed to, address indexed asset, uint256 amount)",
  "event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount)",
  "event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue)",
  "event AbsorbCollateral(address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue)",
  "struct AssetInfo { uint8 offset; address asset; address priceFeed; uint64 scale; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }",
  "function baseToken() view returns (address)",
  "function baseTokenPriceFeed() view returns (address)",
  "function baseScale() view returns (uint256)",
  "function numAssets() view returns (uint8)",
  "function getAssetInfo(uint8 i) view returns (AssetInfo)",
  "function getPrice(address priceFeed) view returns (uint256)",
  "function borrowBalanceOf(address account) view returns (uint256)",
  "function collateralBalanceOf(address account, address asset) view returns (uint128)",
  "function isLiquidatable(address account) view returns (bool)",
  "function storeFrontPriceFactor() view returns (uint256)",
]);

const ev = (name: string) => toEventSelector(cometAbi.find((x) => x.type === "event" && x.name === name)!);
export const COMET_TOPIC_SUPPLY = ev("Supply");
export const COMET_TOPIC_TRANSFER = ev("Transfer");
export const COMET_TOPIC_WITHDRAW = ev("Withdraw");
export const COMET_TOPIC_SUPPLY_COLLATERAL = ev("SupplyCollateral");
export const COMET_TOPIC_TRANSFER_COLLATERAL = ev("TransferCollateral");
export const COMET_TOPIC_WITHDRAW_COLLATERAL = ev("WithdrawCollateral");
/** 0x1547a878…f62f (research §3.2; checked in the tests). */
export const COMET_TOPIC_ABSORB_DEBT = ev("AbsorbDebt");
/** 0x9850ab1a…412e */
export const COMET_TOPIC_ABSORB_COLLATERAL = ev("AbsorbCollateral");
/**
 * The topics read from a Comet. Transfer is included because a base transfer
 * can open a borrow (`transferBase` emits Transfer(src, 0) for the part of
 * the supply it burns); a borrow opened by a transfer from an account with
 * nothing supplied names the borrower in no event, and is found only when the
 * account acts again.
 */
export const COMET_TOPICS = [
  COMET_TOPIC_SUPPLY,
  COMET_TOPIC_TRANSFER,
  COMET_TOPIC_WITHDRAW,
  COMET_TOPIC_SUPPLY_COLLATERAL,
  COMET_TOPIC_TRANSFER_COLLATERAL,
  COMET_TOPIC_WITHDRAW_COLLATERAL,
  COMET_TOPIC_ABSORB_DEBT,
  COMET_TOPIC_ABSORB_COLLATERAL,
] as const;

const ZERO = "0x0000000000000000000000000000000000000000";
const low = (a: string) => a.toLowerCase();

export type CometEvent =
  | { kind: "touch"; accounts: string[] }
  | { kind: "absorb-debt"; absorber: string; borrower: string; basePaidOut: bigint; usdValue: bigint }
  | { kind: "absorb-collateral"; absorber: string; borrower: string; asset: string; amount: bigint; usdValue: bigint };

/** Decodes one Comet log; null for anything else or a malformed log. Accounts exclude the zero address. */
export function decodeCometLog(log: { topics: readonly string[]; data: string }): CometEvent | null {
  let d;
  try {
    d = decodeEventLog({ abi: cometAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex, strict: true });
  } catch {
    return null;
  }
  const touch = (...a: string[]): CometEvent => ({ kind: "touch", accounts: a.map(low).filter((x) => x !== ZERO) });
  switch (d.eventName) {
    case "Supply":
      return touch(d.args.dst);
    case "Transfer":
      return touch(d.args.from, d.args.to);
    case "Withdraw":
      return touch(d.args.src);
    case "SupplyCollateral":
      return touch(d.args.dst);
    case "TransferCollateral":
      return touch(d.args.from, d.args.to);
    case "WithdrawCollateral":
      return touch(d.args.src);
    case "AbsorbDebt":
      return { kind: "absorb-debt", absorber: low(d.args.absorber), borrower: low(d.args.borrower), basePaidOut: d.args.basePaidOut, usdValue: d.args.usdValue };
    case "AbsorbCollateral":
      return {
        kind: "absorb-collateral",
        absorber: low(d.args.absorber),
        borrower: low(d.args.borrower),
        asset: low(d.args.asset),
        amount: d.args.collateralAbsorbed,
        usdValue: d.args.usdValue,
      };
  }
}

const call = (target: string, functionName: string, args: readonly unknown[] = []): SubCall => ({
  target,
  data: encodeFunctionData({ abi: cometAbi, functionName, args } as never),
});

export const cometCalls = {
  baseToken: (comet: string) => call(comet, "baseToken"),
  baseTokenPriceFeed: (comet: string) => call(comet, "baseTokenPriceFeed"),
  baseScale: (comet: string) => call(comet, "baseScale"),
  numAssets: (comet: string) => call(comet, "numAssets"),
  getAssetInfo: (comet: string, i: number) => call(comet, "getAssetInfo", [i]),
  getPrice: (comet: string, feed: string) => call(comet, "getPrice", [feed]),
  borrowBalanceOf: (comet: string, account: string) => call(comet, "borrowBalanceOf", [account]),
  collateralBalanceOf: (comet: string, account: string, asset: string) => call(comet, "collateralBalanceOf", [account, asset]),
  isLiquidatable: (comet: string, account: string) => call(comet, "isLiquidatable", [account]),
  storeFrontPriceFactor: (comet: string) => call(comet, "storeFrontPriceFactor"),
};

/** Decodes one view's return data; null for a failed sub-call or garbage. */
export const decodeCometResult = <T>(functionName: string, data: Hex | null): T | null =>
  decodeOrNull(data, (d) => decodeFunctionResult({ abi: cometAbi, functionName, data: d } as never) as T);

export interface CometAsset {
  asset: string;
  priceFeed: string;
  /** 10^decimals of the asset. */
  scale: bigint;
  /** liquidateCollateralFactor, 1e18-scaled. */
  liquidateCF: bigint;
  /** getPrice(priceFeed): 8 decimals, in the market's feed unit. */
  price: bigint;
}

export interface CometMarketState {
  baseToken: string;
  baseScale: bigint;
  /** getPrice(baseTokenPriceFeed), same unit as the assets' prices. */
  basePrice: bigint;
  assets: CometAsset[];
}

/**
 * One account's health. `baseUsd` is the USD price (8 decimals) of the base
 * token from the USD oracle: values in the feeds' unit are converted by
 * baseUsd / basePrice, so a market whose feeds are in its base token
 * (cWETHv3 in ETH, cWstETHv3 in wstETH, base feed 1e8) answers in USD like
 * the others. `liquidatable` is the contract's own `isLiquidatable`
 * when read: where our arithmetic and the contract disagree at the boundary
 * the HF is moved just across 1 to agree with it.
 */
export function cometHealth(
  m: CometMarketState,
  borrow: bigint,
  balances: readonly bigint[],
  baseUsd: bigint,
  liquidatable: boolean | null,
): PositionHealth {
  let value = 0n;
  let weighted = 0n;
  m.assets.forEach((a, i) => {
    const v = ((balances[i] ?? 0n) * a.price) / a.scale;
    value += v;
    weighted += (v * a.liquidateCF) / WAD;
  });
  const toUsd = (feedUnits: bigint) => (m.basePrice > 0n ? (feedUnits * baseUsd) / m.basePrice : 0n);
  const debtValue = (borrow * m.basePrice) / m.baseScale;
  const lt = value > 0n ? (weighted * 10_000n) / value : 0n;
  if (borrow === 0n) return { collateralBase: toUsd(value), debtBase: 0n, liquidationThresholdBps: lt, healthFactorWad: NO_DEBT_HF };
  let hf = debtValue > 0n ? (weighted * WAD) / debtValue : NO_DEBT_HF;
  if (liquidatable === true && hf >= WAD) hf = WAD - 1n;
  if (liquidatable === false && hf < WAD) hf = WAD;
  return { collateralBase: toUsd(value), debtBase: (borrow * baseUsd) / m.baseScale, liquidationThresholdBps: lt, healthFactorWad: hf };
}

// ---------------------------------------------------------------- liquidation terms

/** Comet.quoteCollateral's discount, 1e18-scaled: storeFrontPriceFactor × (1 − liquidationFactor) (Comet.sol, mulFactor). */
export const cometDiscountWad = (storeFrontPriceFactor: bigint, liquidationFactor: bigint) => (storeFrontPriceFactor * (WAD - liquidationFactor)) / WAD;

/** What a discount d pays on the base paid for the collateral, in bps (rounded down): d / (1 − d). */
export const discountToBonusBps = (discountWad: bigint) => (discountWad * 10_000n) / (WAD - discountWad);

/**
 * A Comet's liquidation terms for the opportunities feed: buying absorbed
 * collateral (buyCollateral) at the storefront discount d pays d / (1 − d)
 * on what is paid; the lowest d among the market's assets stands for a
 * position whose collateral mix is not stored. Comet takes no share of it.
 * Throws for factors out of range or a Comet without collateral assets.
 */
export function cometStorefrontTerms(storeFrontPriceFactor: bigint, assets: readonly { asset: string; liquidationFactor: bigint }[]): LiquidationTerms {
  if (storeFrontPriceFactor > WAD) throw new Error(`storeFrontPriceFactor out of range (${storeFrontPriceFactor})`);
  if (assets.length === 0) throw new Error("the Comet has no collateral assets");
  let lowest: { asset: string; liquidationFactor: bigint; d: bigint } | null = null;
  for (const a of assets) {
    if (a.liquidationFactor > WAD) throw new Error(`liquidationFactor of ${a.asset} out of range (${a.liquidationFactor})`);
    const d = cometDiscountWad(storeFrontPriceFactor, a.liquidationFactor);
    if (!lowest || d < lowest.d) lowest = { ...a, d };
  }
  const wad = (v: bigint) => (Number(v / 10n ** 12n) / 1e6).toString();
  return {
    bonusBps: discountToBonusBps(lowest!.d),
    protocolFeeBps: 0n,
    source: "comet_storefront",
    detail: `storeFrontPriceFactor ${wad(storeFrontPriceFactor)}, lowest discount from ${lowest!.asset} (liquidationFactor ${wad(lowest!.liquidationFactor)}) of ${assets.length} assets`,
  };
}
