/**
 * Morpho Blue for the lending indexer (pure): the singleton's events, its
 * views, market ids, share arithmetic and the health factor. No I/O.
 *
 * Facts (morpho-org/morpho-blue: src/libraries/EventsLib.sol,
 * ConstantsLib.sol, SharesMathLib.sol, src/Morpho.sol `_isHealthy`,
 * src/interfaces/IMorpho.sol):
 *   - one contract holds every market; a market's id is keccak256 of the
 *     ABI-encoded MarketParams (loanToken, collateralToken, oracle, irm, lltv);
 *   - the oracle's `price()` is the collateral's price in loan-token units
 *     scaled by 1e36 (ORACLE_PRICE_SCALE), decimals included;
 *   - borrowed = borrowShares → assets rounding up with 1e6 virtual shares
 *     and 1 virtual asset; maxBorrow = collateral · price / 1e36 (down) ·
 *     lltv / 1e18 (down); healthy iff maxBorrow ≥ borrowed;
 *   - no close factor: a position may be liquidated whole.
 *
 * Health factor (1e18-scaled, comparable with Aave's):
 *   HF = floor(collateral · price / 1e36) · lltv / borrowed
 * which is below 1e18 exactly when the contract finds the position
 * unhealthy. The market's borrow total is brought to the block being read
 * as the contract's next call would (Morpho.sol `_accrueInterest`,
 * MorphoBalancesLib `expectedMarketBalances`): when time has passed since
 * `lastUpdate`, the market has debt and an IRM, interest =
 * wMulDown(totalBorrowAssets, wTaylorCompounded(irm.borrowRateView(params,
 * market), elapsed)) is added (MathLib.sol: wTaylorCompounded(x, n) =
 * x·n + (x·n)²/(2·1e18) + (x·n)²·(x·n)/(2·1e18·3·1e18), each term rounded
 * down; IIrm.sol `borrowRateView(MarketParams, Market)`, a per-second WAD
 * rate).
 */
import { type Hex, decodeEventLog, decodeFunctionResult, encodeAbiParameters, encodeFunctionData, keccak256, parseAbi, toEventSelector } from "viem";
import { decodeOrNull, MULTICALL3, NO_DEBT_HF, WAD, type PositionHealth, type SubCall } from "./lending.js";

/** The Morpho Blue singleton on Ethereum (the same address as in the flash-loan catalogue). */
export const MORPHO_BLUE = "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb";
export const ORACLE_PRICE_SCALE = 10n ** 36n;
export const VIRTUAL_SHARES = 10n ** 6n;
export const VIRTUAL_ASSETS = 1n;

export const morphoAbi = parseAbi([
  "struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }",
  "event CreateMarket(bytes32 indexed id, MarketParams marketParams)",
  "event Borrow(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets, uint256 shares)",
  "event Repay(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets, uint256 shares)",
  "event SupplyCollateral(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets)",
  "event WithdrawCollateral(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets)",
  "event Liquidate(bytes32 indexed id, address indexed caller, address indexed borrower, uint256 repaidAssets, uint256 repaidShares, uint256 seizedAssets, uint256 badDebtAssets, uint256 badDebtShares)",
  "function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)",
  "function market(bytes32 id) view returns (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee)",
  "function idToMarketParams(bytes32 id) view returns (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv)",
]);
export const morphoOracleAbi = parseAbi(["function price() view returns (uint256)"]);
const multicallTimeAbi = parseAbi(["function getCurrentBlockTimestamp() view returns (uint256 timestamp)"]);
export const morphoIrmAbi = parseAbi([
  "struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }",
  "struct Market { uint128 totalSupplyAssets; uint128 totalSupplyShares; uint128 totalBorrowAssets; uint128 totalBorrowShares; uint128 lastUpdate; uint128 fee; }",
  "function borrowRateView(MarketParams marketParams, Market market) view returns (uint256)",
]);

const ev = (name: string) => toEventSelector(morphoAbi.find((x) => x.type === "event" && x.name === name)!);
/** 0xac4b2400…83ac (research §3.3; checked in the tests). */
export const MORPHO_TOPIC_CREATE_MARKET = ev("CreateMarket");
export const MORPHO_TOPIC_BORROW = ev("Borrow");
export const MORPHO_TOPIC_REPAY = ev("Repay");
export const MORPHO_TOPIC_SUPPLY_COLLATERAL = ev("SupplyCollateral");
export const MORPHO_TOPIC_WITHDRAW_COLLATERAL = ev("WithdrawCollateral");
export const MORPHO_TOPIC_LIQUIDATE = ev("Liquidate");
/** Lender-side events (Supply/Withdraw) are not read: they name no borrower. */
export const MORPHO_TOPICS = [
  MORPHO_TOPIC_CREATE_MARKET,
  MORPHO_TOPIC_BORROW,
  MORPHO_TOPIC_REPAY,
  MORPHO_TOPIC_SUPPLY_COLLATERAL,
  MORPHO_TOPIC_WITHDRAW_COLLATERAL,
  MORPHO_TOPIC_LIQUIDATE,
] as const;

export interface MarketParams {
  loanToken: string;
  collateralToken: string;
  oracle: string;
  irm: string;
  lltv: bigint;
}

/** keccak256(abi.encode(MarketParams)): the market's id. */
export function marketId(p: MarketParams): string {
  return keccak256(
    encodeAbiParameters(
      [{ type: "address" }, { type: "address" }, { type: "address" }, { type: "address" }, { type: "uint256" }],
      [p.loanToken as Hex, p.collateralToken as Hex, p.oracle as Hex, p.irm as Hex, p.lltv],
    ),
  );
}

const low = (a: string) => a.toLowerCase();

export type MorphoEvent =
  | { kind: "create"; id: string; params: MarketParams }
  | { kind: "touch"; id: string; borrower: string }
  | { kind: "liquidate"; id: string; liquidator: string; borrower: string; repaidAssets: bigint; seizedAssets: bigint; badDebtAssets: bigint };

export function decodeMorphoLog(log: { topics: readonly string[]; data: string }): MorphoEvent | null {
  let d;
  try {
    d = decodeEventLog({ abi: morphoAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex, strict: true });
  } catch {
    return null;
  }
  switch (d.eventName) {
    case "CreateMarket": {
      const p = d.args.marketParams;
      return {
        kind: "create",
        id: low(d.args.id),
        params: { loanToken: low(p.loanToken), collateralToken: low(p.collateralToken), oracle: low(p.oracle), irm: low(p.irm), lltv: p.lltv },
      };
    }
    case "Borrow":
    case "Repay":
    case "SupplyCollateral":
    case "WithdrawCollateral":
      return { kind: "touch", id: low(d.args.id), borrower: low(d.args.onBehalf) };
    case "Liquidate":
      return {
        kind: "liquidate",
        id: low(d.args.id),
        liquidator: low(d.args.caller),
        borrower: low(d.args.borrower),
        repaidAssets: d.args.repaidAssets,
        seizedAssets: d.args.seizedAssets,
        badDebtAssets: d.args.badDebtAssets,
      };
  }
}

const call = (target: string, functionName: string, args: readonly unknown[] = []): SubCall => ({
  target,
  data: encodeFunctionData({ abi: morphoAbi, functionName, args } as never),
});

export const morphoCalls = {
  position: (morpho: string, id: string, user: string) => call(morpho, "position", [id, user]),
  market: (morpho: string, id: string) => call(morpho, "market", [id]),
  idToMarketParams: (morpho: string, id: string) => call(morpho, "idToMarketParams", [id]),
  oraclePrice: (oracle: string): SubCall => ({ target: oracle, data: encodeFunctionData({ abi: morphoOracleAbi, functionName: "price" }) }),
  /** The timestamp of the block the batch is read at (Multicall3's own view). */
  blockTimestamp: (): SubCall => ({ target: MULTICALL3, data: encodeFunctionData({ abi: multicallTimeAbi, functionName: "getCurrentBlockTimestamp" }) }),
  borrowRateView: (p: MarketParams, m: MarketState): SubCall => ({
    target: p.irm,
    data: encodeFunctionData({
      abi: morphoIrmAbi,
      functionName: "borrowRateView",
      args: [
        { loanToken: p.loanToken as Hex, collateralToken: p.collateralToken as Hex, oracle: p.oracle as Hex, irm: p.irm as Hex, lltv: p.lltv },
        { totalSupplyAssets: m.totalSupplyAssets, totalSupplyShares: m.totalSupplyShares, totalBorrowAssets: m.totalBorrowAssets, totalBorrowShares: m.totalBorrowShares, lastUpdate: m.lastUpdate, fee: m.fee },
      ],
    }),
  }),
};

/** A market's stored state (`market(id)`). */
export interface MarketState {
  totalSupplyAssets: bigint;
  totalSupplyShares: bigint;
  totalBorrowAssets: bigint;
  totalBorrowShares: bigint;
  lastUpdate: bigint;
  fee: bigint;
}

/** MathLib.wTaylorCompounded: e^(x·n) − 1 by its first three terms, WAD-scaled, each term rounded down. */
export function wTaylorCompounded(x: bigint, n: bigint): bigint {
  const first = x * n;
  const second = (first * first) / (2n * WAD);
  const third = (second * first) / (3n * WAD);
  return first + second + third;
}

/** Does the borrow total need the IRM's rate to be current at `timestamp`? (No IRM, no debt or no time passed: no.) */
export const accruesInterest = (p: MarketParams, m: MarketState, timestamp: bigint): boolean =>
  timestamp > m.lastUpdate && m.totalBorrowAssets > 0n && !/^0x0{40}$/.test(p.irm);

/** The borrow total the contract's next call would find at `timestamp`, given the IRM's per-second rate. */
export function accruedBorrowAssets(m: Pick<MarketState, "totalBorrowAssets" | "lastUpdate">, borrowRate: bigint, timestamp: bigint): bigint {
  if (timestamp <= m.lastUpdate) return m.totalBorrowAssets;
  return m.totalBorrowAssets + (m.totalBorrowAssets * wTaylorCompounded(borrowRate, timestamp - m.lastUpdate)) / WAD;
}

const decode = <T>(abi: typeof morphoAbi | typeof morphoOracleAbi | typeof morphoIrmAbi | typeof multicallTimeAbi, functionName: string, data: Hex | null): T | null =>
  decodeOrNull(data, (d) => decodeFunctionResult({ abi, functionName, data: d } as never) as T);

export const decodePosition = (data: Hex | null) => {
  const r = decode<readonly [bigint, bigint, bigint]>(morphoAbi, "position", data);
  return r ? { borrowShares: r[1], collateral: r[2] } : null;
};
export const decodeMarket = (data: Hex | null): MarketState | null => {
  const r = decode<readonly bigint[]>(morphoAbi, "market", data);
  return r ? { totalSupplyAssets: r[0]!, totalSupplyShares: r[1]!, totalBorrowAssets: r[2]!, totalBorrowShares: r[3]!, lastUpdate: r[4]!, fee: r[5]! } : null;
};
export const decodeBlockTimestamp = (data: Hex | null) => decode<bigint>(multicallTimeAbi, "getCurrentBlockTimestamp", data);
export const decodeBorrowRate = (data: Hex | null) => decode<bigint>(morphoIrmAbi, "borrowRateView", data);
export const decodeMarketParams = (data: Hex | null): MarketParams | null => {
  const r = decode<readonly [string, string, string, string, bigint]>(morphoAbi, "idToMarketParams", data);
  // An id that was never created answers all zeros.
  if (!r || /^0x0{40}$/.test(r[0]) || r[4] === 0n) return null;
  return { loanToken: low(r[0]), collateralToken: low(r[1]), oracle: low(r[2]), irm: low(r[3]), lltv: r[4] };
};
export const decodeOraclePrice = (data: Hex | null) => decode<bigint>(morphoOracleAbi, "price", data);

/** SharesMathLib.toAssetsUp. */
export const toAssetsUp = (shares: bigint, totalAssets: bigint, totalShares: bigint) => {
  const num = shares * (totalAssets + VIRTUAL_ASSETS);
  const den = totalShares + VIRTUAL_SHARES;
  return (num + den - 1n) / den;
};
/** SharesMathLib.toSharesUp. */
export const toSharesUp = (assets: bigint, totalAssets: bigint, totalShares: bigint) => {
  const num = assets * (totalShares + VIRTUAL_SHARES);
  const den = totalAssets + VIRTUAL_ASSETS;
  return (num + den - 1n) / den;
};

/** LIF = min(1.15, 1 / (1 − 0.3 · (1 − lltv))), 1e18-scaled (Morpho.sol liquidate). */
export function liquidationIncentiveFactor(lltv: bigint): bigint {
  const lif = (WAD * WAD) / (WAD - (3n * 10n ** 17n * (WAD - lltv)) / WAD);
  const max = 115n * 10n ** 16n;
  return lif < max ? lif : max;
}

/**
 * One position's health; amounts in USD base units (8 decimals) through
 * `loanUsd` (the loan token's USD price, 8 decimals) and its decimals.
 * Collateral is valued with Morpho's own oracle in loan-token units.
 */
export function morphoHealth(
  p: { borrowShares: bigint; collateral: bigint },
  m: { totalBorrowAssets: bigint; totalBorrowShares: bigint },
  oraclePrice: bigint,
  lltv: bigint,
  loanUsd: bigint,
  loanDecimals: number,
): PositionHealth {
  const borrowed = p.borrowShares === 0n ? 0n : toAssetsUp(p.borrowShares, m.totalBorrowAssets, m.totalBorrowShares);
  const collateralInLoan = (p.collateral * oraclePrice) / ORACLE_PRICE_SCALE;
  const scale = 10n ** BigInt(loanDecimals);
  return {
    collateralBase: (collateralInLoan * loanUsd) / scale,
    debtBase: (borrowed * loanUsd) / scale,
    liquidationThresholdBps: lltv / 10n ** 14n,
    healthFactorWad: borrowed === 0n ? NO_DEBT_HF : (collateralInLoan * lltv) / borrowed,
  };
}
