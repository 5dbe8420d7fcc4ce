/**
 * Lending on the devnet L1: Aave V3 Core and SparkLend Pools at their
 * mainnet addresses, with the Aave V3 Core oracle, driven block by block:
 *   - prices walk (ETH and BTC, each with a mild pull back to its start;
 *     wstETH follows ETH at a fixed ratio; stablecoins at $1);
 *   - borrowers arrive (Supply of collateral, then Borrow of a stablecoin
 *     at a health factor between 1.02 and 1.4; up to 100 per Pool), interest
 *     accrues at a devnet pace (0.025 % per block, applied every 8 blocks) so health factors drift down, some
 *     borrowers repay part of their debt (Repay);
 *   - a position whose HF falls below 1 is liquidated by one of three
 *     liquidators with probability ½ per block (LiquidationCall): half the
 *     debt, or all of it at HF ≤ 0.95 or under $2,000, seizing collateral
 *     worth the repaid debt times the reserve's liquidation bonus.
 * The Pool answers `getUserAccountData(user)`, `getConfiguration(asset)`
 * (the reserve's parameters packed as Aave V3's ReserveConfigurationMap),
 * `getReservesList()` and `getReserveAddressById(id)` (the reserves of its
 * table in their order, WETH first: a reserve's id is its index) and
 * `getUserConfiguration(user)` (the position's collateral reserve's
 * collateral bit, its debt reserve's borrowing bit while it owes) and
 * the oracle `getAssetPrice(asset)` from this state (at the head, whatever
 * block tag), and every event is a real ABI-encoded log served by
 * eth_getLogs.
 * Efficiency mode: every Pool has one eMode category, id 1 "ETH correlated"
 * (WETH and wstETH collateral, LTV 93 %, threshold 95 %, liquidation bonus
 * 10100 i.e. 1 %); about one in three arriving WETH- or wstETH-backed
 * borrowers enters it (by arrival order, no extra random draw); the
 * simulation's health factors and liquidations still use the reserves' own
 * threshold and bonus (a devnet liberty, see `termsOf`). The Pool answers `getUserEMode(user)` and the Aave V3.2+
 * views `getEModeCategoryCollateralConfig(id)` and
 * `getEModeCategoryCollateralBitmap(id)` (bit i: reserve id i), and the
 * V3.0/3.1 `getEModeCategoryData(id)` (the reserves' configurations carry
 * their category in bits 168-175); a test can make a Pool answer only the
 * legacy view (`legacyEModeViews`) or none (`failEModeViews`).
 * The Aave V3 Prime (Lido) Pool has no simulated borrowers
 * (a test may open a position there); it answers the same views, so its
 * liquidation terms can be read.
 * Each Pool has its own copy of the reserve parameters; a test may change a
 * reserve's liquidation bonus or protocol fee (`setReserveTerms`), as a
 * governance payload would, and the simulated liquidators follow it.
 * Randomness is seeded apart from the fee model's, so adding lending leaves
 * the fee history unchanged. A reorg replaces the logs of the replaced
 * blocks; the positions themselves are not rolled back, and when the L1
 * catches up a jump in time only the newest 300 blocks carry lending
 * activity (devnet liberties).
 */
import { type DecodeFunctionDataReturnType, type Hex, encodeAbiParameters, encodeEventTopics, encodeFunctionResult, keccak256, concat, decodeFunctionData } from "viem";
import {
  AAVE_V3_CORE_ORACLE,
  encodeReserveConfigurationMap,
  encodeUserConfigurationMap,
  LENDING_MARKETS,
  oracleAbi,
  poolAbi,
  WAD,
} from "../src/chains/ethereum/lending.js";
import { ASSETS } from "../src/chains/ethereum/flashloans.js";
import { seededRandom } from "./seeded-random.js";
import type { LogSink } from "./ethereum-logs.js";

export interface SimPosition {
  pool: string;
  user: string;
  collateral: string;
  collateralAmount: bigint;
  debt: string;
  debtAmount: bigint;
  /** The account's eMode category (getUserEMode); 0 = none. */
  eMode: number;
}

/** An eMode category (bps; `lb` 10000 + the bonus), with its collateral reserves by symbol. */
export interface SimEModeCategory {
  ltv: bigint;
  lt: bigint;
  lb: bigint;
  label: string;
  collateral: readonly string[];
}
/** Near Aave V3 Core's "ETH correlated" category. */
const EMODE_CATEGORIES: Record<number, SimEModeCategory> = {
  1: { ltv: 9_300n, lt: 9_500n, lb: 10_100n, label: "ETH correlated", collateral: ["WETH", "WSTETH"] },
};

/**
 * Reserve parameters (bps; caps in whole tokens), near Aave V3 Core's: `lb` is
 * the liquidation bonus as the Pool stores it (10000 + the bonus), `fee` the
 * liquidation protocol fee (a share of the bonus). The stablecoins are debt
 * only here (LTV, threshold and bonus 0, as Aave configures a reserve that
 * is not collateral).
 */
export interface SimReserve {
  ltv: bigint;
  lt: bigint;
  lb: bigint;
  fee: bigint;
  reserveFactor: bigint;
  borrowCap: bigint;
  supplyCap: bigint;
  eMode: bigint;
}
const RESERVES: Record<string, SimReserve> = {
  WETH: { ltv: 8_050n, lt: 8_300n, lb: 10_500n, fee: 1_000n, reserveFactor: 1_500n, borrowCap: 1_400_000n, supplyCap: 2_000_000n, eMode: 1n },
  WSTETH: { ltv: 7_850n, lt: 8_100n, lb: 10_600n, fee: 1_000n, reserveFactor: 500n, borrowCap: 12_000n, supplyCap: 1_200_000n, eMode: 1n },
  WBTC: { ltv: 7_300n, lt: 7_800n, lb: 10_500n, fee: 1_000n, reserveFactor: 2_000n, borrowCap: 28_000n, supplyCap: 43_000n, eMode: 0n },
  USDC: { ltv: 0n, lt: 0n, lb: 0n, fee: 1_000n, reserveFactor: 1_000n, borrowCap: 1_400_000_000n, supplyCap: 1_760_000_000n, eMode: 2n },
  USDT: { ltv: 0n, lt: 0n, lb: 0n, fee: 1_000n, reserveFactor: 1_000n, borrowCap: 1_200_000_000n, supplyCap: 1_500_000_000n, eMode: 2n },
  DAI: { ltv: 0n, lt: 0n, lb: 0n, fee: 1_000n, reserveFactor: 2_500n, borrowCap: 2_000_000_000n, supplyCap: 2_500_000_000n, eMode: 2n },
};
const LIQUIDATORS = [
  "0x1111111254eeb25477b68fb85ed929f73a960582",
  "0xf00dfeed000000000000000000000000000000a1",
  "0xbadc0de00000000000000000000000000000b0b2",
];
/** Live borrowers per Pool: enough for meaningful counts, few enough that a block stays cheap. */
const MAX_PER_POOL = 100;
const START_PRICES: Record<string, bigint> = { WETH: 3_000n * 10n ** 8n, WBTC: 90_000n * 10n ** 8n };

const lower = (a: string) => a.toLowerCase();

export interface DevnetLending {
  /** Advances the markets by one block; their events go to the L1's log book (ethereum-logs.ts). */
  onBlock(): void;
  /** Answers an eth_call to a Pool or the oracle; undefined for other targets. */
  call(to: string, data: string): Hex | undefined;
  /** Test hooks. */
  positions(pool?: string): SimPosition[];
  /** Opens a position directly (a Supply and a Borrow in the next block). */
  open(p: { pool: string; user: string; collateral: string; collateralAmount: bigint; debt: string; debtAmount: bigint; eMode?: number }): void;
  /** Moves a price by `bps` (negative = down) from the next block on. */
  shock(symbol: "WETH" | "WBTC", bps: number): void;
  price(symbol: string): bigint;
  /** Stops automatic arrivals, interest, repayments and price moves (liquidations still happen). */
  freeze(frozen: boolean): void;
  /** Stops the simulated liquidators (liquidatable positions stay open). */
  pauseLiquidators(paused: boolean): void;
  /** A Pool's parameters of a reserve (a copy); undefined for a reserve the Pool does not list. */
  reserve(pool: string, symbol: string): SimReserve | undefined;
  /** Changes a reserve's liquidation bonus (`lb`, 10000 + bonus bps) or protocol fee in one Pool, from now on. */
  setReserveTerms(pool: string, symbol: string, terms: { lb?: bigint; fee?: bigint }): void;
  /** The Pool's ReserveConfigurationMap of an asset, as getConfiguration answers it (0 for an unlisted asset). */
  configuration(pool: string, asset: string): bigint;
  /** The Pool's reserves by reserve id (getReservesList's order while none is dropped), as token symbols. */
  reserveSymbols(pool: string): string[];
  /** The UserConfigurationMap of an account, as getUserConfiguration answers it (0 without a position). */
  userConfiguration(pool: string, user: string): bigint;
  /** Makes the Pool's getUserConfiguration of an account fail (empty return data, as a reverted sub-call reads) or answer again. */
  failUserConfiguration(pool: string, user: string, fail: boolean): void;
  /**
   * Drops a reserve no position uses, as PoolConfigurator.dropReserve: getReservesList leaves it out (so the reserves
   * after it move down one index), its id stays empty (getReserveAddressById answers address(0)), getConfiguration 0.
   */
  dropReserve(pool: string, symbol: string): void;
  /** The devnet's eMode category of an id (a copy); undefined for an id not configured. */
  eModeCategory(id: number): SimEModeCategory | undefined;
  /** Makes a Pool answer like an Aave V3.0/3.1 Pool: the V3.2+ eMode views fail (no such function), getEModeCategoryData answers. */
  legacyEModeViews(pool: string, legacy: boolean): void;
  /** Makes every eMode category view of a Pool fail (getUserEMode still answers), or answer again. */
  failEModeViews(pool: string, fail: boolean): void;
}

/** The markets' state: every Pool's reserves, prices, positions, the simulation's counters and the tests' switches. */
interface LendingState {
  random: () => number;
  logs: LogSink;
  /** Pools with simulated borrowers. */
  pools: readonly string[];
  /** Every Aave-family Pool with its reserves configured (Prime's too, though it has no positions here). */
  configured: readonly string[];
  reserves: Map<string, Map<string, SimReserve>>;
  prices: Map<string, bigint>;
  /** Keyed by `positionKey`. */
  positions: Map<string, SimPosition>;
  userCounter: number;
  interestClock: number;
  frozen: boolean;
  liquidatorsPaused: boolean;
  failingUserConfig: Set<string>;
  legacyEMode: Set<string>;
  failingEMode: Set<string>;
  /** Dropped reserves per Pool; a dropped one keeps its id, left empty, as Aave leaves it. */
  dropped: Map<string, Set<string>>;
}

type AccountData = { c: bigint; d: bigint; avail: bigint; lt: bigint; ltv: bigint; hf: bigint };

/** The Pools' reserves by id (the same order in every Pool). */
const SYMBOLS = Object.keys(RESERVES);
const SCALE = new Map(Object.entries(ASSETS).map(([sym, a]) => [sym, 10n ** BigInt(a.decimals)]));
const NO_DEBT_HF = 2n ** 256n - 1n;

const positionKey = (pool: string, user: string) => `${pool}:${user}`;
const reserveOf = (s: LendingState, pool: string, symbol: string) => s.reserves.get(pool)!.get(symbol)!;
const droppedIn = (s: LendingState, pool: string) => s.dropped.get(pool) ?? new Set<string>();
const symbolOf = (address: string) => Object.entries(ASSETS).find(([, a]) => a.address === lower(address))?.[0];

export function createDevnetLending(opts: { seed: number; logs: LogSink; pools?: readonly string[] }): DevnetLending {
  const pools = opts.pools ?? LENDING_MARKETS.filter((m) => (m.protocol === "aave" || m.protocol === "spark") && m.id !== "aave-v3-prime").map((m) => m.pool);
  const configured = [...new Set([...pools, ...LENDING_MARKETS.filter((m) => m.protocol === "aave" || m.protocol === "spark").map((m) => m.pool)])];
  const s: LendingState = {
    random: seededRandom(opts.seed ^ 0x1e4d1),
    logs: opts.logs,
    pools,
    configured,
    reserves: new Map(configured.map((pool) => [pool, new Map(Object.entries(RESERVES).map(([sym, r]) => [sym, { ...r }]))])),
    prices: new Map<string, bigint>(Object.entries(START_PRICES)),
    positions: new Map(),
    userCounter: 0,
    interestClock: 0,
    frozen: false,
    liquidatorsPaused: false,
    failingUserConfig: new Set(),
    legacyEMode: new Set(),
    failingEMode: new Set(),
    dropped: new Map(),
  };
  return { ...lendingControls(s), ...reserveControls(s) };
}

/** The markets' block step, their eth_call answers, positions, prices and the simulation's switches. */
function lendingControls(s: LendingState): Pick<DevnetLending, "onBlock" | "call" | "positions" | "open" | "shock" | "price" | "freeze" | "pauseLiquidators" | "userConfiguration" | "failUserConfiguration"> {
  return {
    onBlock: () => step(s),
    call: (to, data) => lendingCall(s, to, data),
    positions: (pool) => [...s.positions.values()].filter((p) => !pool || p.pool === lower(pool)).map((p) => ({ ...p })),
    open: (p) => openPosition(s, { ...p, pool: lower(p.pool), user: lower(p.user), eMode: p.eMode ?? 0 }),
    shock: (symbol, bps) => s.prices.set(symbol, (s.prices.get(symbol)! * BigInt(10_000 + bps)) / 10_000n),
    price: (symbol) => priceOf(s, symbol),
    freeze: (f) => {
      s.frozen = f;
    },
    pauseLiquidators: (p) => {
      s.liquidatorsPaused = p;
    },
    userConfiguration: (pool, user) => userConfiguration(s, lower(pool), lower(user)),
    failUserConfiguration: (pool, user, fail) => {
      if (fail) s.failingUserConfig.add(positionKey(lower(pool), lower(user)));
      else s.failingUserConfig.delete(positionKey(lower(pool), lower(user)));
    },
  };
}

/** The Pools' reserve parameters and eMode views, as governance and the tests change them. */
function reserveControls(s: LendingState): Omit<DevnetLending, keyof ReturnType<typeof lendingControls>> {
  return {
    reserve: (pool, symbol) => {
      const r = s.reserves.get(lower(pool))?.get(symbol);
      return r ? { ...r } : undefined;
    },
    setReserveTerms: (pool, symbol, t) => {
      const r = s.reserves.get(lower(pool))?.get(symbol);
      if (!r) throw new Error(`no ${symbol} reserve on the devnet Pool ${pool}`);
      if (t.lb !== undefined) r.lb = t.lb;
      if (t.fee !== undefined) r.fee = t.fee;
    },
    configuration: (pool, asset) => configuration(s, lower(pool), asset),
    reserveSymbols: () => [...SYMBOLS],
    dropReserve: (pool, symbol) => dropReserve(s, pool, symbol),
    eModeCategory: (id) => (EMODE_CATEGORIES[id] ? { ...EMODE_CATEGORIES[id]!, collateral: [...EMODE_CATEGORIES[id]!.collateral] } : undefined),
    legacyEModeViews: (pool, legacy) => {
      if (legacy) s.legacyEMode.add(lower(pool));
      else s.legacyEMode.delete(lower(pool));
    },
    failEModeViews: (pool, fail) => {
      if (fail) s.failingEMode.add(lower(pool));
      else s.failingEMode.delete(lower(pool));
    },
  };
}

/** PoolConfigurator.dropReserve: only a reserve no position uses. */
function dropReserve(s: LendingState, pool: string, symbol: string): void {
  const target = lower(pool);
  if (!s.reserves.get(target)?.has(symbol)) throw new Error(`no ${symbol} reserve on the devnet Pool ${pool}`);
  if ([...s.positions.values()].some((p) => p.pool === target && (p.collateral === symbol || p.debt === symbol))) throw new Error(`the ${symbol} reserve is in use`);
  s.dropped.set(target, new Set([...droppedIn(s, target), symbol]));
}

function priceOf(s: LendingState, symbol: string): bigint {
  if (symbol === "WSTETH") return (s.prices.get("WETH")! * 12n) / 10n;
  // The other liquid-staking tokens (Compound V3's cWETHv3 collateral) at fixed ratios to ETH too.
  if (symbol === "RETH") return (s.prices.get("WETH")! * 113n) / 100n;
  if (symbol === "CBETH") return (s.prices.get("WETH")! * 109n) / 100n;
  return s.prices.get(symbol) ?? 10n ** 8n;
}

const valueBase = (s: LendingState, symbol: string, amount: bigint) => (amount * priceOf(s, symbol)) / SCALE.get(symbol)!;
const fromBase = (s: LendingState, symbol: string, base: bigint) => (base * SCALE.get(symbol)!) / priceOf(s, symbol);

/**
 * The terms the simulation runs a position with: its collateral reserve's, in eMode too (a devnet liberty: applying
 * the category's threshold and bonus would change which positions are liquidated when, hence every later random
 * draw, and with them the seeded histories other tests rely on). Only the Pool's views report the category.
 */
const termsOf = (s: LendingState, p: Pick<SimPosition, "pool" | "collateral">): { ltv: bigint; lt: bigint; lb: bigint } => reserveOf(s, p.pool, p.collateral);

/** Whether a position is under HF 1, without building its account (the per-block check). */
function underwater(s: LendingState, p: SimPosition): boolean {
  const r = termsOf(s, p);
  return p.debtAmount > 0n && valueBase(s, p.collateral, p.collateralAmount) * r.lt < valueBase(s, p.debt, p.debtAmount) * 10_000n;
}

/** getUserAccountData's figures of a position (all zero but the HF without one). */
function account(s: LendingState, p: SimPosition | undefined): AccountData {
  if (!p || p.debtAmount === 0n) {
    const c = p ? valueBase(s, p.collateral, p.collateralAmount) : 0n;
    const r = p ? termsOf(s, p) : { lt: 0n, ltv: 0n };
    return { c, d: 0n, avail: (c * r.ltv) / 10_000n, lt: r.lt, ltv: r.ltv, hf: NO_DEBT_HF };
  }
  const r = termsOf(s, p);
  const c = valueBase(s, p.collateral, p.collateralAmount);
  const d = valueBase(s, p.debt, p.debtAmount);
  const maxBorrow = (c * r.ltv) / 10_000n;
  return { c, d, avail: maxBorrow > d ? maxBorrow - d : 0n, lt: r.lt, ltv: r.ltv, hf: d === 0n ? NO_DEBT_HF : (c * r.lt * WAD) / 10_000n / d };
}

function emit(s: LendingState, address: string, eventName: "Supply" | "Borrow" | "Repay" | "LiquidationCall", args: Record<string, unknown>, data: Hex): void {
  const topics = encodeEventTopics({ abi: poolAbi, eventName, args } as never) as Hex[];
  s.logs({ address, topics, data });
}

/** A Supply of the collateral and a Borrow of the debt. */
function openPosition(s: LendingState, p: SimPosition): void {
  s.positions.set(positionKey(p.pool, p.user), { ...p });
  const coll = ASSETS[p.collateral]!.address as Hex;
  const debt = ASSETS[p.debt]!.address as Hex;
  emit(s, p.pool, "Supply", { reserve: coll, onBehalfOf: p.user, referralCode: 0 }, encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [p.user as Hex, p.collateralAmount]));
  emit(
    s,
    p.pool,
    "Borrow",
    { reserve: debt, onBehalfOf: p.user, referralCode: 0 },
    encodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "uint8" }, { type: "uint256" }], [p.user as Hex, p.debtAmount, 2, 5n * 10n ** 25n]),
  );
}

/** A new borrower on a Pool: random collateral, size and target health factor. */
function arrive(s: LendingState, pool: string): void {
  const random = s.random;
  const collateral = (["WETH", "WETH", "WSTETH", "WBTC"] as const)[Math.floor(random() * 4)]!;
  const debt = pool === LENDING_MARKETS.find((m) => m.id === "sparklend")!.pool ? "DAI" : (["USDC", "USDT"] as const)[Math.floor(random() * 2)]!;
  // Sizes from $1,500 to about $1.5M of collateral, log-uniform.
  const collBase = BigInt(Math.floor(1_500 * Math.pow(1_000, random()))) * 10n ** 8n;
  const targetHf = 1.02 + random() * 0.38;
  s.userCounter++;
  // Every third arrival backed by an ETH-correlated asset borrows in eMode 1 (by order: the random draws stay the same).
  const eMode = collateral !== "WBTC" && s.userCounter % 3 === 0 ? 1 : 0;
  const debtBase = (collBase * termsOf(s, { pool, collateral }).lt * 10_000n) / 10_000n / BigInt(Math.round(targetHf * 10_000));
  const user = lower(`0x${keccak256(concat([pool as Hex, `0x${s.userCounter.toString(16).padStart(8, "0")}`])).slice(26)}`);
  openPosition(s, { pool, user, collateral, collateralAmount: fromBase(s, collateral, collBase), debt, debtAmount: fromBase(s, debt, debtBase), eMode });
}

/** A LiquidationCall by a random liquidator: half the debt, or all of it when the position is deep under or small. */
function liquidate(s: LendingState, p: SimPosition): void {
  const a = account(s, p);
  const r = termsOf(s, p);
  const full = a.hf <= (95n * WAD) / 100n || a.c < 2_000n * 10n ** 8n || a.d < 2_000n * 10n ** 8n;
  let debtToCover = full ? p.debtAmount : p.debtAmount / 2n;
  let seizeBase = (valueBase(s, p.debt, debtToCover) * r.lb) / 10_000n;
  if (seizeBase > a.c) {
    // Not enough collateral for the bonus: take it all and cover what it pays for.
    seizeBase = a.c;
    debtToCover = fromBase(s, p.debt, (a.c * 10_000n) / r.lb);
  }
  const seized = seizeBase >= a.c ? p.collateralAmount : fromBase(s, p.collateral, seizeBase);
  const liquidator = LIQUIDATORS[Math.floor(s.random() * LIQUIDATORS.length)]!;
  emit(
    s,
    p.pool,
    "LiquidationCall",
    { collateralAsset: ASSETS[p.collateral]!.address as Hex, debtAsset: ASSETS[p.debt]!.address as Hex, user: p.user as Hex },
    encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "bool" }], [debtToCover, seized, liquidator as Hex, false]),
  );
  p.debtAmount -= debtToCover;
  p.collateralAmount -= seized;
  // Dust left after the collateral is gone is written off (Aave v3.3 deficit): the position is closed.
  if (p.debtAmount === 0n || p.collateralAmount === 0n) s.positions.delete(positionKey(p.pool, p.user));
}

/** One block of the markets: prices, interest, arrivals and a repayment (unless frozen), then liquidations (unless paused). */
function step(s: LendingState): void {
  if (!s.frozen) {
    movePrices(s);
    // Interest: every 8th block, 8 blocks' worth (0.025 % a block), so the per-block cost stays small.
    if (++s.interestClock % 8 === 0) for (const p of s.positions.values()) p.debtAmount += p.debtAmount / 500n;
    const live = new Map<string, number>();
    for (const p of s.positions.values()) live.set(p.pool, (live.get(p.pool) ?? 0) + 1);
    for (const pool of s.pools) {
      if ((live.get(pool) ?? 0) < MAX_PER_POOL && s.random() < 0.45) arrive(s, pool);
    }
    if (s.positions.size > 0 && s.random() < 0.08) repayPart(s);
  }
  if (!s.liquidatorsPaused) {
    for (const p of [...s.positions.values()]) {
      if (s.random() < 0.5 && underwater(s, p)) liquidate(s, p);
    }
  }
}

/** ±0.35 % noise per block with a pull of 0.5 % of the gap back to the start price. */
function movePrices(s: LendingState): void {
  for (const [sym, start] of Object.entries(START_PRICES)) {
    const cur = s.prices.get(sym)!;
    const noise = BigInt(Math.round((s.random() - 0.5) * 70));
    const pull = ((start - cur) * 5n) / 1000n;
    s.prices.set(sym, cur + (cur * noise) / 10_000n + pull);
  }
}

/** A random borrower repays a fifth of its debt. */
function repayPart(s: LendingState): void {
  const all = [...s.positions.values()];
  const p = all[Math.floor(s.random() * all.length)]!;
  const amount = p.debtAmount / 5n;
  p.debtAmount -= amount;
  emit(s, p.pool, "Repay", { reserve: ASSETS[p.debt]!.address as Hex, user: p.user as Hex, repayer: p.user as Hex }, encodeAbiParameters([{ type: "uint256" }, { type: "bool" }], [amount, false]));
}

/** Aave V3's ReserveConfigurationMap of a reserve (chains/ethereum/lending.ts has the layout): active, borrowing enabled, not frozen or paused. */
function configuration(s: LendingState, pool: string, asset: string): bigint {
  const symbol = symbolOf(asset);
  const r = symbol && !droppedIn(s, pool).has(symbol) ? s.reserves.get(pool)?.get(symbol) : undefined;
  if (!symbol || !r) return 0n;
  return encodeReserveConfigurationMap({
    ltvBps: r.ltv,
    liquidationThresholdBps: r.lt,
    liquidationBonusBps: r.lb,
    decimals: BigInt(ASSETS[symbol]!.decimals),
    active: 1n,
    borrowingEnabled: 1n,
    reserveFactorBps: r.reserveFactor,
    borrowCap: r.borrowCap,
    supplyCap: r.supplyCap,
    liquidationProtocolFeeBps: r.fee,
    eModeCategory: r.eMode,
  });
}

/** Aave V3's UserConfigurationMap of an account (chains/ethereum/lending.ts has the layout): one collateral and, while it owes, one debt reserve. */
function userConfiguration(s: LendingState, pool: string, user: string): bigint {
  const p = s.positions.get(positionKey(pool, user));
  if (!p) return 0n;
  return encodeUserConfigurationMap({ collateral: [SYMBOLS.indexOf(p.collateral)], borrowing: p.debtAmount > 0n ? [SYMBOLS.indexOf(p.debt)] : [] });
}

/** An eth_call to the oracle or a Pool; undefined for another target or a function the L1's own table answers. */
function lendingCall(s: LendingState, to: string, data: string): Hex | undefined {
  const target = lower(to);
  if (target === AAVE_V3_CORE_ORACLE) return oracleCall(s, data);
  if (!s.configured.includes(target)) return undefined;
  let d: PoolCall;
  try {
    d = decodeFunctionData({ abi: poolAbi, data: data as Hex });
  } catch {
    // Another function of the Pool (the flash-loan premium): the L1's own table answers it.
    return undefined;
  }
  switch (d.functionName) {
    case "getConfiguration":
      return encodeFunctionResult({ abi: poolAbi, functionName: "getConfiguration", result: { data: configuration(s, target, d.args[0]) } });
    case "getReservesList":
      return encodeFunctionResult({ abi: poolAbi, functionName: "getReservesList", result: SYMBOLS.filter((sym) => !droppedIn(s, target).has(sym)).map((sym) => ASSETS[sym]!.address as Hex) });
    case "getReserveAddressById": {
      const sym = SYMBOLS[d.args[0]] !== undefined && !droppedIn(s, target).has(SYMBOLS[d.args[0]]!) ? SYMBOLS[d.args[0]] : undefined;
      return encodeFunctionResult({ abi: poolAbi, functionName: "getReserveAddressById", result: (sym ? ASSETS[sym]!.address : "0x0000000000000000000000000000000000000000") as Hex });
    }
    case "getUserConfiguration": {
      const user = lower(d.args[0]);
      if (s.failingUserConfig.has(positionKey(target, user))) return "0x";
      return encodeFunctionResult({ abi: poolAbi, functionName: "getUserConfiguration", result: { data: userConfiguration(s, target, user) } });
    }
    case "getUserEMode":
      return encodeFunctionResult({ abi: poolAbi, functionName: "getUserEMode", result: BigInt(s.positions.get(positionKey(target, lower(d.args[0])))?.eMode ?? 0) });
    case "getEModeCategoryCollateralConfig":
    case "getEModeCategoryCollateralBitmap":
    case "getEModeCategoryData":
      return eModeView(s, target, d);
    case "getUserAccountData": {
      const a = account(s, s.positions.get(positionKey(target, lower(d.args[0]))));
      return encodeFunctionResult({ abi: poolAbi, functionName: "getUserAccountData", result: [a.c, a.d, a.avail, a.lt, a.ltv, a.hf] });
    }
    default:
      return undefined;
  }
}

type PoolCall = DecodeFunctionDataReturnType<typeof poolAbi>;

/** The oracle's getAssetPrice (0 for an unknown asset); undefined for anything else. */
function oracleCall(s: LendingState, data: string): Hex | undefined {
  try {
    const d = decodeFunctionData({ abi: oracleAbi, data: data as Hex });
    const sym = symbolOf(d.args[0]);
    return encodeFunctionResult({ abi: oracleAbi, functionName: "getAssetPrice", result: sym ? priceOf(s, sym) : 0n });
  } catch {
    return undefined;
  }
}

/** The eMode category views; a V3.0/3.1 Pool has no V3.2+ views: the call reverts (read as empty return data). */
function eModeView(
  s: LendingState,
  target: string,
  d: Extract<PoolCall, { functionName: "getEModeCategoryCollateralConfig" | "getEModeCategoryCollateralBitmap" | "getEModeCategoryData" }>,
): Hex {
  if (s.failingEMode.has(target) || (s.legacyEMode.has(target) && d.functionName !== "getEModeCategoryData")) return "0x";
  const c = EMODE_CATEGORIES[d.args[0]];
  const ltv = Number(c?.ltv ?? 0n), liquidationThreshold = Number(c?.lt ?? 0n), liquidationBonus = Number(c?.lb ?? 0n);
  if (d.functionName === "getEModeCategoryCollateralConfig") return encodeFunctionResult({ abi: poolAbi, functionName: d.functionName, result: { ltv, liquidationThreshold, liquidationBonus } });
  if (d.functionName === "getEModeCategoryData") {
    return encodeFunctionResult({ abi: poolAbi, functionName: d.functionName, result: { ltv, liquidationThreshold, liquidationBonus, priceSource: "0x0000000000000000000000000000000000000000", label: c?.label ?? "" } });
  }
  const bitmap = (c?.collateral ?? []).reduce((b, sym) => b | (1n << BigInt(SYMBOLS.indexOf(sym))), 0n);
  return encodeFunctionResult({ abi: poolAbi, functionName: d.functionName, result: bitmap });
}
