/**
 * Compound V3 on the devnet L1: the cUSDCv3, cWETHv3, cUSDTv3 and cWstETHv3
 * Comets at their mainnet addresses (as the Aave Pools of
 * ethereum-lending.ts are), with price feeds at devnet-made addresses, driven
 * block by block (cUSDSv3 is indexed but not simulated: USDS is not among the
 * devnet's tokens, so that address has no positions and no events here, and
 * answers only its liquidation terms):
 *   - prices are the lending simulation's (USD); cUSDCv3's and cUSDTv3's
 *     feeds answer in USD, cWETHv3's in ETH and cWstETHv3's in wstETH (their
 *     base feed is a constant 1e8), as on mainnet;
 *   - borrowers arrive (SupplyCollateral of one asset, then Withdraw of base:
 *     the borrow) at a health factor between 1.04 and 1.4 in
 *     liquidateCollateralFactor terms, up to 40 per Comet; debt accrues
 *     0.025 % per block (every 8 blocks); some repay a fifth (Supply);
 *   - an account that `isLiquidatable` is absorbed with probability ½ per
 *     block by one of two absorbers: AbsorbCollateral per asset, then
 *     AbsorbDebt with basePaidOut = max(debt, Σ collateral value ×
 *     liquidationFactor) as Comet.absorbInternal computes it; the account
 *     leaves with no debt.
 * Events go to the L1's log book (ethereum-logs.ts), one transaction salt per
 * arrival, repayment or absorption. The Comet answers baseToken, baseTokenPriceFeed, baseScale, numAssets,
 * getAssetInfo, getPrice, borrowBalanceOf, collateralBalanceOf and
 * isLiquidatable and storeFrontPriceFactor from this state (facts:
 * compound-finance/comet contracts/Comet.sol and CometMainInterface.sol;
 * factors 1e18, prices 8 decimals). Parameters are devnet values near
 * mainnet's, not read from it; the storefront factors are mainnet's
 * (deployments/mainnet/<market>/configuration.json: 0.5 for cUSDCv3,
 * cWETHv3 and cUSDTv3, 0.6 for cUSDSv3, 0.7 for cWstETHv3). cUSDSv3 answers
 * only its liquidation terms (storeFrontPriceFactor, numAssets and
 * getAssetInfo of its WETH and wstETH collateral at mainnet's liquidation
 * factors), so they can be read. A test may change a Comet's storefront
 * factor (`setStoreFrontPriceFactor`), as a governance upgrade would.
 */
import { type Hex, concat, decodeFunctionData, encodeAbiParameters, encodeEventTopics, encodeFunctionResult, keccak256, toHex } from "viem";
import { cometAbi } from "../src/chains/ethereum/comet.js";
import { LENDING_MARKETS, WAD } from "../src/chains/ethereum/lending.js";
import { ASSETS } from "../src/chains/ethereum/flashloans.js";
import { seededRandom } from "./seeded-random.js";
import type { LogSink } from "./ethereum-logs.js";

const lower = (a: string) => a.toLowerCase();
/** A devnet-made address (never a mainnet contract): the last 20 bytes of keccak256(label). */
export const devnetAddress = (label: string) => lower(`0x${keccak256(toHex(label)).slice(26)}`);

interface SimAsset {
  symbol: string;
  feed: string;
  liquidateCF: bigint;
  borrowCF: bigint;
  liquidationFactor: bigint;
}
interface SimComet {
  id: string;
  address: string;
  base: string;
  baseFeed: string;
  /**
   * "USD": the feeds answer USD prices (cUSDCv3, cUSDTv3). "base": they answer
   * prices in units of the base token and the base feed is a constant 1e8
   * (cWETHv3 in ETH, cWstETHv3 in wstETH), as on mainnet.
   */
  unit: "USD" | "base";
  assets: SimAsset[];
  /** storeFrontPriceFactor at start, 1e18-scaled. */
  storeFrontPriceFactor: bigint;
}

const f = (x: number) => BigInt(Math.round(x * 1e4)) * 10n ** 14n;
const asset = (comet: string, symbol: string, lcf: number, bcf: number, lf: number): SimAsset => ({
  symbol,
  feed: devnetAddress(`vigil devnet ${comet} ${symbol} price feed`),
  liquidateCF: f(lcf),
  borrowCF: f(bcf),
  liquidationFactor: f(lf),
});
const cometAt = (id: string) => LENDING_MARKETS.find((m) => m.id === id)!.pool;

/** A devnet Comet: market id, label (of its devnet-made feed addresses), base, feed unit, storefront factor, and per collateral [symbol, liquidateCF, borrowCF, liquidationFactor]. */
const simComet = (id: string, label: string, base: string, unit: SimComet["unit"], storeFront: number, assets: [string, number, number, number][]): SimComet => ({
  id,
  address: cometAt(id),
  base,
  baseFeed: devnetAddress(`vigil devnet ${label} ${base} price feed`),
  unit,
  assets: assets.map(([symbol, lcf, bcf, lf]) => asset(label, symbol, lcf, bcf, lf)),
  storeFrontPriceFactor: f(storeFront),
});

export const DEVNET_COMETS: readonly SimComet[] = [
  simComet("compound-v3-usdc", "cUSDCv3", "USDC", "USD", 0.5, [["WETH", 0.85, 0.82, 0.9], ["WBTC", 0.8, 0.75, 0.9], ["WSTETH", 0.85, 0.8, 0.9]]),
  simComet("compound-v3-weth", "cWETHv3", "WETH", "base", 0.5, [["WSTETH", 0.95, 0.9, 0.96], ["RETH", 0.93, 0.9, 0.96], ["CBETH", 0.93, 0.9, 0.96]]),
  // Factors as in compound-finance/comet deployments/mainnet/usdt/configuration.json.
  simComet("compound-v3-usdt", "cUSDTv3", "USDT", "USD", 0.5, [["WETH", 0.895, 0.825, 0.95], ["WBTC", 0.77, 0.7, 0.95], ["WSTETH", 0.895, 0.825, 0.95]]),
  // Feeds in wstETH with a constant base feed (deployments/mainnet/wsteth/deploy.ts, migrations
  // 1727727546_change_base_price_feed.ts); WETH, USDC and USDT collateral at the factors of
  // migrations/1762179749_add_usdc_usdt_weth_and_weeth_collateral.ts.
  simComet("compound-v3-wsteth", "cWstETHv3", "WSTETH", "base", 0.7, [["WETH", 0.93, 0.9, 0.96], ["USDC", 0.83, 0.8, 0.9], ["USDT", 0.83, 0.8, 0.9]]),
];

/**
 * cUSDSv3 answers only its liquidation terms (USDS is not a devnet token, so
 * it has no base, prices or positions): storeFrontPriceFactor 0.6 and its
 * WETH and wstETH collateral at liquidationFactor 0.95 and 0.92
 * (deployments/mainnet/usds/configuration.json; the collateral factors are
 * devnet values).
 */
export const DEVNET_COMET_TERMS_ONLY: readonly Omit<SimComet, "base" | "baseFeed" | "unit">[] = [
  { id: "compound-v3-usds", address: cometAt("compound-v3-usds"), storeFrontPriceFactor: f(0.6), assets: [asset("cUSDSv3", "WETH", 0.9, 0.85, 0.95), asset("cUSDSv3", "WSTETH", 0.87, 0.82, 0.92)] },
];

const ABSORBERS = ["0xab5e0b5e000000000000000000000000000000a1", "0xab5e0b5e000000000000000000000000000000a2"];
const MAX_PER_COMET = 40;

export interface SimCometPosition {
  comet: string;
  user: string;
  /** Collateral balances by symbol. */
  collateral: Record<string, bigint>;
  /** Base borrowed (base token units). */
  borrow: bigint;
}

export interface DevnetComet {
  /** Advances the Comets by one block; their events go to the L1's log book (ethereum-logs.ts). */
  onBlock(): void;
  /** Answers an eth_call to a Comet; undefined for other targets. */
  call(to: string, data: string): Hex | undefined;
  positions(comet?: string): SimCometPosition[];
  /** Opens a position (SupplyCollateral and Withdraw in the next block). */
  open(p: { comet: string; user: string; collateral: string; collateralAmount: bigint; borrow: bigint }): void;
  /** The feed price (8 decimals, in the Comet's feed unit) of an asset or the base. */
  feedPrice(comet: string, symbol: string): bigint;
  isLiquidatable(comet: string, user: string): boolean;
  freeze(frozen: boolean): void;
  pauseAbsorbers(paused: boolean): void;
  /** A Comet's storefront factor and its collateral's liquidation factors by symbol (1e18), as it answers them now. */
  liquidationTerms(comet: string): { storeFrontPriceFactor: bigint; liquidationFactors: Record<string, bigint> };
  /** Changes a Comet's storeFrontPriceFactor (1e18) from now on. */
  setStoreFrontPriceFactor(comet: string, factor: bigint): void;
}

/** The Comets' state: positions, the simulation's counters, the current storefront factors and the tests' switches. */
interface CometState {
  random: () => number;
  logs: LogSink;
  usdPrice: (symbol: string) => bigint;
  /** Keyed by `positionKey`. */
  positions: Map<string, SimCometPosition>;
  txCounter: number;
  userCounter: number;
  interestClock: number;
  frozen: boolean;
  absorbersPaused: boolean;
  /** Per devnet (DEVNET_COMETS is shared by every devnet in the process): the current storefront factors. */
  storeFront: Map<string, bigint>;
}

type TermsOnlyComet = (typeof DEVNET_COMET_TERMS_ONLY)[number];

const BY_ADDRESS = new Map(DEVNET_COMETS.map((c) => [c.address, c]));
const TERMS_ONLY = new Map(DEVNET_COMET_TERMS_ONLY.map((c) => [c.address, c]));

const positionKey = (comet: string, user: string) => `${comet}:${user}`;
const scale = (symbol: string) => 10n ** BigInt(ASSETS[symbol]!.decimals);
const amount = (v: bigint) => encodeAbiParameters([{ type: "uint256" }], [v]);
const result = (functionName: string, value: unknown) => encodeFunctionResult({ abi: cometAbi, functionName, result: value } as never);

/** `usdPrice(symbol)`: USD with 8 decimals (the lending simulation's prices, the ones its Aave oracle answers). */
export function createDevnetComet(opts: { seed: number; logs: LogSink; usdPrice: (symbol: string) => bigint }): DevnetComet {
  const s: CometState = {
    random: seededRandom(opts.seed ^ 0xc0e7),
    logs: opts.logs,
    usdPrice: opts.usdPrice,
    positions: new Map(),
    txCounter: 0,
    userCounter: 0,
    interestClock: 0,
    frozen: false,
    absorbersPaused: false,
    storeFront: new Map([...DEVNET_COMETS, ...DEVNET_COMET_TERMS_ONLY].map((c) => [c.address, c.storeFrontPriceFactor])),
  };
  return {
    onBlock: () => step(s),
    call: (to, data) => cometCall(s, to, data),
    positions: (comet) => [...s.positions.values()].filter((p) => !comet || p.comet === lower(comet)).map((p) => ({ ...p, collateral: { ...p.collateral } })),
    open: (p) => openPosition(s, BY_ADDRESS.get(lower(p.comet))!, lower(p.user), p.collateral, p.collateralAmount, p.borrow),
    feedPrice: (comet, symbol) => feedPrice(s, BY_ADDRESS.get(lower(comet))!, symbol),
    isLiquidatable: (comet, user) => {
      const c = BY_ADDRESS.get(lower(comet))!;
      return liquidatable(s, c, s.positions.get(positionKey(c.address, lower(user))));
    },
    freeze: (x) => {
      s.frozen = x;
    },
    pauseAbsorbers: (x) => {
      s.absorbersPaused = x;
    },
    liquidationTerms: (comet) => {
      const c = BY_ADDRESS.get(lower(comet)) ?? TERMS_ONLY.get(lower(comet));
      if (!c) throw new Error(`no devnet Comet at ${comet}`);
      return { storeFrontPriceFactor: s.storeFront.get(c.address)!, liquidationFactors: Object.fromEntries(c.assets.map((a) => [a.symbol, a.liquidationFactor])) };
    },
    setStoreFrontPriceFactor: (comet, factor) => {
      if (!s.storeFront.has(lower(comet))) throw new Error(`no devnet Comet at ${comet}`);
      s.storeFront.set(lower(comet), factor);
    },
  };
}

/** getPrice of an asset's (or the base's) feed: USD, or units of the base (exactly 1e8 for the base itself). */
function feedPrice(s: CometState, c: SimComet, symbol: string): bigint {
  if (c.unit === "USD") return s.usdPrice(symbol);
  return symbol === c.base ? 10n ** 8n : (s.usdPrice(symbol) * 10n ** 8n) / s.usdPrice(c.base);
}

/** Comet's liquidity: −debt value + Σ collateral value × liquidateCF (feed units, 8 decimals). */
function liquidity(s: CometState, c: SimComet, p: SimCometPosition): bigint {
  let l = -((p.borrow * feedPrice(s, c, c.base)) / scale(c.base));
  for (const a of c.assets) l += ((((p.collateral[a.symbol] ?? 0n) * feedPrice(s, c, a.symbol)) / scale(a.symbol)) * a.liquidateCF) / WAD;
  return l;
}

const liquidatable = (s: CometState, c: SimComet, p: SimCometPosition | undefined) => !!p && p.borrow > 0n && liquidity(s, c, p) < 0n;

function emit(s: CometState, address: string, eventName: string, args: Record<string, unknown>, data: Hex, tx: number): void {
  const topics = encodeEventTopics({ abi: cometAbi, eventName, args } as never) as Hex[];
  s.logs({ address, topics, data, tx: toHex(`comet tx ${tx}`) });
}

/** SupplyCollateral and Withdraw (the borrow) in one transaction, onto the account's position. */
function openPosition(s: CometState, c: SimComet, user: string, symbol: string, collateralAmount: bigint, borrow: bigint): void {
  const p = s.positions.get(positionKey(c.address, user)) ?? { comet: c.address, user, collateral: {}, borrow: 0n };
  p.collateral[symbol] = (p.collateral[symbol] ?? 0n) + collateralAmount;
  p.borrow += borrow;
  s.positions.set(positionKey(c.address, user), p);
  const tx = s.txCounter++;
  emit(s, c.address, "SupplyCollateral", { from: user, dst: user, asset: ASSETS[symbol]!.address }, amount(collateralAmount), tx);
  emit(s, c.address, "Withdraw", { src: user, to: user }, amount(borrow), tx);
}

/** A new borrower: random collateral, size and health. */
function arrive(s: CometState, c: SimComet): void {
  const random = s.random;
  const a = c.assets[Math.floor(random() * c.assets.length)]!;
  // $2,000 to about $600,000 of collateral, log-uniform.
  const collUsd = BigInt(Math.floor(2_000 * Math.pow(300, random()))) * 10n ** 8n;
  const hfBps = BigInt(Math.round((1.04 + random() * 0.36) * 10_000));
  const collAmount = (collUsd * scale(a.symbol)) / s.usdPrice(a.symbol);
  const debtUsd = (collUsd * a.liquidateCF * 10_000n) / WAD / hfBps;
  const borrow = (debtUsd * scale(c.base)) / s.usdPrice(c.base);
  s.userCounter++;
  const user = lower(`0x${keccak256(concat([c.address as Hex, toHex(`comet ${s.userCounter}`)])).slice(26)}`);
  openPosition(s, c, user, a.symbol, collAmount, borrow);
}

/** absorb by a random absorber: every collateral seized at its liquidation factor, the debt written off. */
function absorb(s: CometState, c: SimComet, p: SimCometPosition): void {
  const absorber = ABSORBERS[Math.floor(s.random() * ABSORBERS.length)]!;
  const tx = s.txCounter++;
  const basePrice = feedPrice(s, c, c.base);
  let delta = 0n;
  for (const a of c.assets) {
    const bal = p.collateral[a.symbol] ?? 0n;
    if (bal === 0n) continue;
    const value = (bal * feedPrice(s, c, a.symbol)) / scale(a.symbol);
    delta += (value * a.liquidationFactor) / WAD;
    emit(s, c.address, "AbsorbCollateral", { absorber, borrower: p.user, asset: ASSETS[a.symbol]!.address }, encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [bal, value]), tx);
  }
  const deltaBase = (delta * scale(c.base)) / basePrice;
  // absorbInternal: the new balance is −debt + delta, floored at 0; what the protocol paid out is the difference.
  const basePaidOut = deltaBase > p.borrow ? deltaBase : p.borrow;
  emit(
    s,
    c.address,
    "AbsorbDebt",
    { absorber, borrower: p.user },
    encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [basePaidOut, (basePaidOut * basePrice) / scale(c.base)]),
    tx,
  );
  s.positions.delete(positionKey(c.address, p.user));
}

/** One block: interest, arrivals and a repayment (unless frozen), then absorptions (unless paused). */
function step(s: CometState): void {
  if (!s.frozen) {
    if (++s.interestClock % 8 === 0) for (const p of s.positions.values()) p.borrow += p.borrow / 500n;
    for (const c of DEVNET_COMETS) {
      const live = [...s.positions.values()].filter((p) => p.comet === c.address).length;
      if (live < MAX_PER_COMET && s.random() < 0.3) arrive(s, c);
    }
    if (s.positions.size > 0 && s.random() < 0.06) repayPart(s);
  }
  if (!s.absorbersPaused) {
    for (const p of [...s.positions.values()]) {
      const c = BY_ADDRESS.get(p.comet)!;
      if (s.random() < 0.5 && liquidatable(s, c, p)) absorb(s, c, p);
    }
  }
}

/** A random borrower supplies back a fifth of its debt. */
function repayPart(s: CometState): void {
  const all = [...s.positions.values()];
  const p = all[Math.floor(s.random() * all.length)]!;
  const repay = p.borrow / 5n;
  p.borrow -= repay;
  emit(s, p.comet, "Supply", { from: p.user, dst: p.user }, amount(repay), s.txCounter++);
}

function assetInfo(a: SimAsset, i: number): Hex {
  return result("getAssetInfo", {
    offset: i,
    asset: ASSETS[a.symbol]!.address,
    priceFeed: a.feed,
    scale: BigInt(scale(a.symbol)),
    borrowCollateralFactor: a.borrowCF,
    liquidateCollateralFactor: a.liquidateCF,
    liquidationFactor: a.liquidationFactor,
    supplyCap: 10n ** 30n,
  });
}

/** An eth_call to a Comet; undefined for another target or a function it does not answer. */
function cometCall(s: CometState, to: string, data: string): Hex | undefined {
  const c = BY_ADDRESS.get(lower(to));
  const t = c ? undefined : TERMS_ONLY.get(lower(to));
  if (!c && !t) return undefined;
  let d;
  try {
    d = decodeFunctionData({ abi: cometAbi, data: data as Hex });
  } catch {
    return undefined;
  }
  const args = (d.args ?? []) as readonly unknown[];
  return c ? cometView(s, c, d.functionName, args) : termsOnlyCall(s, t!, d.functionName, args);
}

/** cUSDSv3: its terms only (see DEVNET_COMET_TERMS_ONLY); anything else has no answer. */
function termsOnlyCall(s: CometState, c: TermsOnlyComet, functionName: string, args: readonly unknown[]): Hex | undefined {
  if (functionName === "storeFrontPriceFactor") return result("storeFrontPriceFactor", s.storeFront.get(c.address)!);
  if (functionName === "numAssets") return result("numAssets", c.assets.length);
  if (functionName === "getAssetInfo") {
    const a = c.assets[Number(args[0])];
    return a ? assetInfo(a, Number(args[0])) : undefined;
  }
  return undefined;
}

/** A simulated Comet's views: base, assets, storefront factor, prices, balances, liquidatability. */
function cometView(s: CometState, c: SimComet, functionName: string, args: readonly unknown[]): Hex | undefined {
  const account = () => s.positions.get(positionKey(c.address, lower(String(args[0]))));
  switch (functionName) {
    case "baseToken":
      return result("baseToken", ASSETS[c.base]!.address);
    case "baseTokenPriceFeed":
      return result("baseTokenPriceFeed", c.baseFeed);
    case "baseScale":
      return result("baseScale", scale(c.base));
    case "numAssets":
      return result("numAssets", c.assets.length);
    case "getAssetInfo": {
      const i = Number(args[0]);
      const a = c.assets[i];
      // Comet reverts BadAsset() for an index out of range: no answer.
      if (!a) return undefined;
      return assetInfo(a, i);
    }
    case "storeFrontPriceFactor":
      return result("storeFrontPriceFactor", s.storeFront.get(c.address)!);
    case "getPrice": {
      const feed = lower(String(args[0]));
      if (feed === c.baseFeed) return result("getPrice", feedPrice(s, c, c.base));
      const a = c.assets.find((x) => x.feed === feed);
      return a ? result("getPrice", feedPrice(s, c, a.symbol)) : undefined;
    }
    case "borrowBalanceOf":
      return result("borrowBalanceOf", account()?.borrow ?? 0n);
    case "collateralBalanceOf": {
      const a = c.assets.find((x) => ASSETS[x.symbol]!.address === lower(String(args[1])));
      return result("collateralBalanceOf", a ? (account()?.collateral[a.symbol] ?? 0n) : 0n);
    }
    case "isLiquidatable":
      return result("isLiquidatable", liquidatable(s, c, account()));
    default:
      return undefined;
  }
}
