/**
 * Morpho Blue on the devnet L1: the singleton at its mainnet address (as the
 * Aave Pools of ethereum-lending.ts are) with three markets whose oracles
 * and IRM sit at devnet-made addresses, driven block by block:
 *   - the first block carries CreateMarket for each market (id = keccak256 of
 *     the ABI-encoded MarketParams);
 *   - oracles answer `price()` = collateral price in loan-token units × 1e36
 *     (decimals included) from the lending simulation's USD prices;
 *   - borrowers arrive (SupplyCollateral, then Borrow) at a health factor
 *     between 1.03 and 1.35, up to 30 per market; the IRM answers
 *     `borrowRateView` with a fixed per-second rate (about 0.2 % per 96 s, so
 *     positions drift within minutes) and each market accrues it as
 *     Morpho.sol `_accrueInterest` does (totalBorrowAssets +=
 *     wMulDown(totalBorrowAssets, wTaylorCompounded(rate, elapsed)),
 *     lastUpdate = the newest block's time) every block and before every
 *     borrow, repay and liquidation, while shares stay, so every borrower's
 *     debt grows; some repay a fifth of their shares (Repay);
 *   - an unhealthy position (maxBorrow < borrowed, Morpho.sol `_isHealthy`)
 *     is liquidated with probability ½ per block: all its debt repaid,
 *     collateral seized at the liquidation incentive factor, or — when the
 *     collateral does not cover that — all the collateral seized and the rest
 *     of the debt realised as bad debt (Liquidate).
 * The singleton answers `position`, `market` and `idToMarketParams`, with the
 * share arithmetic of SharesMathLib (facts: morpho-org/morpho-blue).
 */
import { type Hex, concat, decodeFunctionData, encodeAbiParameters, encodeEventTopics, encodeFunctionResult, keccak256, toHex } from "viem";
import {
  liquidationIncentiveFactor,
  marketId,
  MORPHO_BLUE,
  morphoAbi,
  morphoOracleAbi,
  morphoIrmAbi,
  accruedBorrowAssets,
  ORACLE_PRICE_SCALE,
  toAssetsUp,
  toSharesUp,
  type MarketParams,
} from "../src/chains/ethereum/morpho.js";
import { WAD } from "../src/chains/ethereum/lending.js";
import { ASSETS } from "../src/chains/ethereum/flashloans.js";
import { seededRandom } from "./seeded-random.js";
import type { LogSink } from "./ethereum-logs.js";
import { devnetAddress } from "./ethereum-comet.js";

const lower = (a: string) => a.toLowerCase();

interface SimMarket {
  id: string;
  loan: string;
  collateral: string;
  params: MarketParams;
  totalBorrowAssets: bigint;
  totalBorrowShares: bigint;
  lastUpdate: bigint;
}

const IRM = devnetAddress("vigil devnet morpho irm");
/** The IRM's borrow rate, per second, WAD-scaled: 0.2 % per 96 s (8 blocks of 12 s). */
export const DEVNET_MORPHO_BORROW_RATE = (2n * 10n ** 15n) / 96n;
const MARKET_SPECS = [
  { loan: "USDC", collateral: "WSTETH", lltv: 860n * 10n ** 15n },
  { loan: "USDC", collateral: "WBTC", lltv: 860n * 10n ** 15n },
  { loan: "WETH", collateral: "WSTETH", lltv: 945n * 10n ** 15n },
] as const;
const LIQUIDATORS = ["0x1d0b1e00000000000000000000000000000000b1", "0x1d0b1e00000000000000000000000000000000b2"];
const MAX_PER_MARKET = 30;
/** Lender supply: the markets' totalSupply figures (never the binding constraint on the devnet). */
const SUPPLY_ASSETS = 10n ** 30n;

export interface SimMorphoPosition {
  id: string;
  user: string;
  borrowShares: bigint;
  collateral: bigint;
}

export interface DevnetMorpho {
  /** Advances the markets to a block of this time (seconds); their events go to the L1's log book (ethereum-logs.ts). */
  onBlock(timestamp: number): void;
  call(to: string, data: string): Hex | undefined;
  markets(): { id: string; loan: string; collateral: string; params: MarketParams; totalBorrowAssets: bigint; totalBorrowShares: bigint; lastUpdate: bigint }[];
  positions(id?: string): SimMorphoPosition[];
  /** The oracle's price() of a market. */
  oraclePrice(id: string): bigint;
  /** Opens a position (SupplyCollateral and Borrow in the next block). */
  open(p: { id: string; user: string; collateral: bigint; borrowAssets: bigint }): void;
  freeze(frozen: boolean): void;
  pauseLiquidators(paused: boolean): void;
}

/** The markets' state: each market's totals, positions, the simulation's counters and the tests' switches. */
interface MorphoState {
  random: () => number;
  logs: LogSink;
  usdPrice: (symbol: string) => bigint;
  markets: SimMarket[];
  byId: Map<string, SimMarket>;
  byOracle: Map<string, SimMarket>;
  /** Keyed by `positionKey`. */
  positions: Map<string, SimMorphoPosition>;
  txCounter: number;
  userCounter: number;
  /** The newest block's time (seconds): interest accrues up to it. */
  now: bigint;
  created: boolean;
  frozen: boolean;
  liquidatorsPaused: boolean;
}

const positionKey = (id: string, user: string) => `${id}:${user}`;
const dec = (symbol: string) => BigInt(ASSETS[symbol]!.decimals);
const words = (...v: bigint[]) => encodeAbiParameters(v.map(() => ({ type: "uint256" })), v);
const result = (functionName: string, value: unknown) => encodeFunctionResult({ abi: morphoAbi, functionName, result: value } as never);

export function createDevnetMorpho(opts: { seed: number; logs: LogSink; usdPrice: (symbol: string) => bigint }): DevnetMorpho {
  const markets = MARKET_SPECS.map(newMarket);
  const s: MorphoState = {
    random: seededRandom(opts.seed ^ 0x3079),
    logs: opts.logs,
    usdPrice: opts.usdPrice,
    markets,
    byId: new Map(markets.map((m) => [m.id, m])),
    byOracle: new Map(markets.map((m) => [m.params.oracle, m])),
    positions: new Map(),
    txCounter: 0,
    userCounter: 0,
    now: 0n,
    created: false,
    frozen: false,
    liquidatorsPaused: false,
  };
  return {
    onBlock: (timestamp) => step(s, timestamp),
    call: (to, data) => morphoCall(s, to, data),
    markets: () => s.markets.map((m) => ({ id: m.id, loan: m.loan, collateral: m.collateral, params: { ...m.params }, totalBorrowAssets: m.totalBorrowAssets, totalBorrowShares: m.totalBorrowShares, lastUpdate: m.lastUpdate })),
    positions: (id) => [...s.positions.values()].filter((p) => !id || p.id === lower(id)).map((p) => ({ ...p })),
    oraclePrice: (id) => oraclePrice(s, s.byId.get(lower(id))!),
    open: (p) => openPosition(s, s.byId.get(lower(p.id))!, lower(p.user), p.collateral, p.borrowAssets),
    freeze: (x) => {
      s.frozen = x;
    },
    pauseLiquidators: (x) => {
      s.liquidatorsPaused = x;
    },
  };
}

/** A market of a spec, with its oracle at a made-up address and nothing borrowed yet. */
function newMarket(spec: (typeof MARKET_SPECS)[number]): SimMarket {
  const params: MarketParams = {
    loanToken: ASSETS[spec.loan]!.address,
    collateralToken: ASSETS[spec.collateral]!.address,
    oracle: devnetAddress(`vigil devnet morpho oracle ${spec.collateral}/${spec.loan}`),
    irm: IRM,
    lltv: spec.lltv,
  };
  return { id: marketId(params), loan: spec.loan, collateral: spec.collateral, params, totalBorrowAssets: 0n, totalBorrowShares: 0n, lastUpdate: 0n };
}

/** Collateral price in loan units × 1e36, decimals included (IOracle.price()). */
function oraclePrice(s: MorphoState, m: SimMarket): bigint {
  return (s.usdPrice(m.collateral) * ORACLE_PRICE_SCALE * 10n ** dec(m.loan)) / (s.usdPrice(m.loan) * 10n ** dec(m.collateral));
}

const borrowed = (m: SimMarket, p: SimMorphoPosition) => toAssetsUp(p.borrowShares, m.totalBorrowAssets, m.totalBorrowShares);

function healthy(s: MorphoState, m: SimMarket, p: SimMorphoPosition): boolean {
  return p.borrowShares === 0n || (((p.collateral * oraclePrice(s, m)) / ORACLE_PRICE_SCALE) * m.params.lltv) / WAD >= borrowed(m, p);
}

function emit(s: MorphoState, eventName: string, args: Record<string, unknown>, data: Hex, tx: number): void {
  s.logs({ address: MORPHO_BLUE, topics: encodeEventTopics({ abi: morphoAbi, eventName, args } as never) as Hex[], data, tx: toHex(`morpho tx ${tx}`) });
}

/** Morpho.sol `_accrueInterest` at the newest block's time. */
function accrue(s: MorphoState, m: SimMarket): void {
  if (s.now <= m.lastUpdate) return;
  m.totalBorrowAssets = accruedBorrowAssets(m, DEVNET_MORPHO_BORROW_RATE, s.now);
  m.lastUpdate = s.now;
}

/** SupplyCollateral and Borrow in one transaction, onto the account's position. */
function openPosition(s: MorphoState, m: SimMarket, user: string, collateral: bigint, assets: bigint): void {
  accrue(s, m);
  const p = s.positions.get(positionKey(m.id, user)) ?? { id: m.id, user, borrowShares: 0n, collateral: 0n };
  const shares = toSharesUp(assets, m.totalBorrowAssets, m.totalBorrowShares);
  p.collateral += collateral;
  p.borrowShares += shares;
  m.totalBorrowAssets += assets;
  m.totalBorrowShares += shares;
  s.positions.set(positionKey(m.id, user), p);
  const tx = s.txCounter++;
  emit(s, "SupplyCollateral", { id: m.id, caller: user, onBehalf: user }, words(collateral), tx);
  emit(s, "Borrow", { id: m.id, onBehalf: user, receiver: user }, encodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "uint256" }], [user as Hex, assets, shares]), tx);
}

/** A new borrower: random size and health. */
function arrive(s: MorphoState, m: SimMarket): void {
  // $1,000 to about $300,000 of collateral, log-uniform.
  const collUsd = BigInt(Math.floor(1_000 * Math.pow(300, s.random()))) * 10n ** 8n;
  const collateral = (collUsd * 10n ** dec(m.collateral)) / s.usdPrice(m.collateral);
  const hfBps = BigInt(Math.round((1.03 + s.random() * 0.32) * 10_000));
  const maxBorrow = (((collateral * oraclePrice(s, m)) / ORACLE_PRICE_SCALE) * m.params.lltv) / WAD;
  s.userCounter++;
  const user = lower(`0x${keccak256(toHex(`morpho borrower ${s.userCounter}`)).slice(26)}`);
  openPosition(s, m, user, collateral, (maxBorrow * 10_000n) / hfBps);
}

/** A liquidation of every share by a random liquidator; what the collateral cannot cover is realised as bad debt. */
function liquidate(s: MorphoState, m: SimMarket, p: SimMorphoPosition): void {
  accrue(s, m);
  const liquidator = LIQUIDATORS[Math.floor(s.random() * LIQUIDATORS.length)]!;
  const price = oraclePrice(s, m);
  const lif = liquidationIncentiveFactor(m.params.lltv);
  // Repay every share: seized = repaid assets × LIF in collateral (Morpho.sol liquidate, repaidShares given).
  let repaidShares = p.borrowShares;
  let seized = (((((repaidShares * (m.totalBorrowAssets + 1n)) / (m.totalBorrowShares + 10n ** 6n)) * lif) / WAD) * ORACLE_PRICE_SCALE) / price;
  if (seized > p.collateral) {
    // Not enough collateral: seize it all (seizedAssets given) and realise the rest as bad debt.
    seized = p.collateral;
    const quoted = (seized * price + ORACLE_PRICE_SCALE - 1n) / ORACLE_PRICE_SCALE;
    repaidShares = toSharesUp((quoted * WAD + lif - 1n) / lif, m.totalBorrowAssets, m.totalBorrowShares);
    if (repaidShares > p.borrowShares) repaidShares = p.borrowShares;
  }
  const repaidAssets = toAssetsUp(repaidShares, m.totalBorrowAssets, m.totalBorrowShares);
  p.borrowShares -= repaidShares;
  m.totalBorrowShares -= repaidShares;
  m.totalBorrowAssets = m.totalBorrowAssets > repaidAssets ? m.totalBorrowAssets - repaidAssets : 0n;
  p.collateral -= seized;
  let badDebtShares = 0n;
  let badDebtAssets = 0n;
  if (p.collateral === 0n && p.borrowShares > 0n) {
    badDebtShares = p.borrowShares;
    const a = toAssetsUp(badDebtShares, m.totalBorrowAssets, m.totalBorrowShares);
    badDebtAssets = a < m.totalBorrowAssets ? a : m.totalBorrowAssets;
    m.totalBorrowAssets -= badDebtAssets;
    m.totalBorrowShares -= badDebtShares;
    p.borrowShares = 0n;
  }
  emit(s, "Liquidate", { id: m.id, caller: liquidator, borrower: p.user }, words(repaidAssets, repaidShares, seized, badDebtAssets, badDebtShares), s.txCounter++);
  if (p.borrowShares === 0n) s.positions.delete(positionKey(m.id, p.user));
}

/** One block: the markets' creation (first block), interest, arrivals and a repayment (unless frozen), then liquidations (unless paused). */
function step(s: MorphoState, timestamp: number): void {
  if (!s.created) createMarkets(s);
  s.now = BigInt(timestamp);
  if (!s.frozen) {
    for (const m of s.markets) accrue(s, m);
    for (const m of s.markets) {
      const live = [...s.positions.values()].filter((p) => p.id === m.id).length;
      if (live < MAX_PER_MARKET && s.random() < 0.3) arrive(s, m);
    }
    if (s.positions.size > 0 && s.random() < 0.06) repayPart(s);
  }
  if (!s.liquidatorsPaused) {
    for (const p of [...s.positions.values()]) {
      const m = s.byId.get(p.id)!;
      if (s.random() < 0.5 && !healthy(s, m, p)) liquidate(s, m, p);
    }
  }
}

/** The CreateMarket events, once, in the first block the markets see. */
function createMarkets(s: MorphoState): void {
  s.created = true;
  for (const m of s.markets) {
    emit(
      s,
      "CreateMarket",
      { id: m.id },
      encodeAbiParameters(
        [{ type: "tuple", components: [{ type: "address" }, { type: "address" }, { type: "address" }, { type: "address" }, { type: "uint256" }] }],
        [[m.params.loanToken as Hex, m.params.collateralToken as Hex, m.params.oracle as Hex, m.params.irm as Hex, m.params.lltv]],
      ),
      s.txCounter++,
    );
  }
}

/** A random borrower repays a fifth of its shares. */
function repayPart(s: MorphoState): void {
  const all = [...s.positions.values()];
  const p = all[Math.floor(s.random() * all.length)]!;
  const m = s.byId.get(p.id)!;
  accrue(s, m);
  const shares = p.borrowShares / 5n;
  const assets = toAssetsUp(shares, m.totalBorrowAssets, m.totalBorrowShares);
  p.borrowShares -= shares;
  m.totalBorrowShares -= shares;
  m.totalBorrowAssets = m.totalBorrowAssets > assets ? m.totalBorrowAssets - assets : 0n;
  emit(s, "Repay", { id: m.id, caller: p.user, onBehalf: p.user }, words(assets, shares), s.txCounter++);
}

/** An eth_call to a market's oracle, the IRM or Morpho Blue; undefined for anything else. */
function morphoCall(s: MorphoState, to: string, data: string): Hex | undefined {
  const target = lower(to);
  const om = s.byOracle.get(target);
  if (om) {
    return data.slice(0, 10) === "0xa035b1fe" ? encodeFunctionResult({ abi: morphoOracleAbi, functionName: "price", result: oraclePrice(s, om) }) : undefined;
  }
  if (target === IRM) {
    // IIrm.borrowRateView(MarketParams, Market): the same rate for every market.
    try {
      decodeFunctionData({ abi: morphoIrmAbi, data: data as Hex });
    } catch {
      return undefined;
    }
    return encodeFunctionResult({ abi: morphoIrmAbi, functionName: "borrowRateView", result: DEVNET_MORPHO_BORROW_RATE });
  }
  if (target !== MORPHO_BLUE) return undefined;
  let d;
  try {
    d = decodeFunctionData({ abi: morphoAbi, data: data as Hex });
  } catch {
    // Another function of the singleton (the flash-loan balance is the token's): the L1's own table answers.
    return undefined;
  }
  return morphoView(s, d.functionName, (d.args ?? []) as readonly unknown[]);
}

/** Morpho Blue's position, market and idToMarketParams views (zeros for an unknown market). */
function morphoView(s: MorphoState, functionName: string, args: readonly unknown[]): Hex | undefined {
  const m = s.byId.get(lower(String(args[0])));
  switch (functionName) {
    case "position": {
      const p = m ? s.positions.get(positionKey(m.id, lower(String(args[1])))) : undefined;
      return result("position", [0n, p?.borrowShares ?? 0n, p?.collateral ?? 0n]);
    }
    case "market":
      return result("market", m ? [SUPPLY_ASSETS, SUPPLY_ASSETS * 10n ** 6n, m.totalBorrowAssets, m.totalBorrowShares, m.lastUpdate, 0n] : [0n, 0n, 0n, 0n, 0n, 0n]);
    case "idToMarketParams": {
      const zero = "0x0000000000000000000000000000000000000000";
      return result("idToMarketParams", m ? [m.params.loanToken, m.params.collateralToken, m.params.oracle, m.params.irm, m.params.lltv] : [zero, zero, zero, zero, 0n]);
    }
    default:
      return undefined;
  }
}
