/**
 * Lending markets on Ethereum (pure): the reviewed market table, the Aave V3
 * Pool's events and views as ABI, the Multicall3 batch of
 * `getUserAccountData`, and the liquidation arithmetic the questions and the
 * opportunities feed share. Nothing here does I/O.
 *
 * Units follow the Pool: "base" amounts are USD with 8 decimals (the Aave
 * oracle's base currency on Ethereum), the health factor is scaled 1e18
 * (`type(uint256).max` when there is no debt), thresholds and bonuses are
 * basis points. Every computation is bigint; no float touches an amount.
 *
 * SparkLend is an Aave V3 fork with the same events and views, so one
 * decoder serves both. Compound V3 (comet.ts) and Morpho Blue (morpho.ts)
 * have their own events and views; every market's positions end up in the
 * same shape (`PositionHealth`: USD base units, bps, a 1e18 health factor).
 */
import {
  type Hex,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  parseAbi,
  toEventSelector,
} from "viem";

/** Canonical Multicall3 (same address on every EVM chain; mds1/multicall). */
export const MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11";
/** Aave V3 Core's price oracle (bgd-labs/aave-address-book AaveV3Ethereum.ORACLE): USD, 8 decimals. */
export const AAVE_V3_CORE_ORACLE = "0x54586be62e3c3580375ae3723c145253060ca0c2";

export const LENDING_PROTOCOLS = ["aave", "spark", "compound", "morpho"] as const;
export type LendingProtocol = (typeof LENDING_PROTOCOLS)[number];

export interface LendingMarket {
  /** Stable id used in the database and the answers. */
  id: string;
  name: string;
  protocol: LendingProtocol;
  /** The contract the events come from (lower-case): the Aave Pool, the Comet proxy, the Morpho Blue singleton. */
  pool: string;
  source: string;
  /**
   * Aave V3 / SparkLend: the market's principal collateral reserve, whose
   * `getConfiguration` gives the market's liquidation terms: the
   * opportunities feed values a position with them when the terms of its
   * own collateral reserves could not be read.
   */
  principalReserve?: { symbol: string; asset: string };
}

/** Mainnet token addresses of the principal reserves (the same as chains/ethereum/flashloans.ts ASSETS). */
const WETH_ADDRESS = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const WSTETH_ADDRESS = "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0";

/** The markets indexed (addresses as in the reviewed sources, lower-case). */
export const LENDING_MARKETS: readonly LendingMarket[] = [
  {
    id: "aave-v3-core",
    name: "Aave V3 Core",
    protocol: "aave",
    pool: "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2",
    source: "bgd-labs/aave-address-book src/ts/AaveV3Ethereum.ts",
    principalReserve: { symbol: "WETH", asset: WETH_ADDRESS },
  },
  {
    id: "aave-v3-prime",
    name: "Aave V3 Prime (Lido)",
    protocol: "aave",
    pool: "0x4e033931ad43597d96d6bcc25c280717730b58b1",
    source: "bgd-labs/aave-address-book src/ts/AaveV3EthereumLido.ts",
    principalReserve: { symbol: "wstETH", asset: WSTETH_ADDRESS },
  },
  {
    id: "sparklend",
    name: "SparkLend",
    protocol: "spark",
    pool: "0xc13e21b648a5ee794902342038ff3adab66be987",
    source: "marsfoundation/sparklend-deployments; SparkLend health checker script (POOL constant)",
    principalReserve: { symbol: "WETH", asset: WETH_ADDRESS },
  },
  {
    id: "compound-v3-usdc",
    name: "Compound V3 USDC (cUSDCv3)",
    protocol: "compound",
    pool: "0xc3d688b66703497daa19211eedff47f25384cdc3",
    source: "compound-finance/comet deployments/mainnet/usdc/roots.json (comet)",
  },
  {
    id: "compound-v3-weth",
    name: "Compound V3 WETH (cWETHv3)",
    protocol: "compound",
    pool: "0xa17581a9e3356d9a858b789d68b4d866e593ae94",
    source: "compound-finance/comet deployments/mainnet/weth/roots.json (comet)",
  },
  {
    id: "compound-v3-usdt",
    name: "Compound V3 USDT (cUSDTv3)",
    protocol: "compound",
    pool: "0x3afdc9bca9213a35503b077a6072f3d0d5ab0840",
    source: "compound-finance/comet deployments/mainnet/usdt/roots.json (comet)",
  },
  {
    id: "compound-v3-usds",
    name: "Compound V3 USDS (cUSDSv3)",
    protocol: "compound",
    pool: "0x5d409e56d886231adaf00c8775665ad0f9897b56",
    source: "compound-finance/comet deployments/mainnet/usds/roots.json (comet)",
  },
  {
    // Feeds in wstETH (constant base feed 1e8): converted to USD like cWETHv3's (comet.ts cometHealth).
    id: "compound-v3-wsteth",
    name: "Compound V3 wstETH (cWstETHv3)",
    protocol: "compound",
    pool: "0x3d0bb1ccab520a66e607822fc55bc921738fafe3",
    source: "compound-finance/comet deployments/mainnet/wsteth/roots.json (comet)",
  },
  {
    id: "morpho-blue",
    name: "Morpho Blue",
    protocol: "morpho",
    pool: "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb",
    source: "morpho-org/morpho-blue (singleton; the same address as the flash-loan catalogue's)",
  },
];

/** One position's health in every protocol's terms made common (USD base units of 8 decimals, bps, HF 1e18). */
export interface PositionHealth {
  collateralBase: bigint;
  debtBase: bigint;
  liquidationThresholdBps: bigint;
  /** 1e18-scaled; NO_DEBT_HF when there is no debt. */
  healthFactorWad: bigint;
}

/** Aave's `type(uint256).max`: the health factor of an account without debt. */
export const NO_DEBT_HF = 2n ** 256n - 1n;

export const poolAbi = parseAbi([
  "event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)",
  "event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)",
  "event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens)",
  "event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount)",
  "event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)",
  "function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)",
  // IPool.getConfiguration returns DataTypes.ReserveConfigurationMap, a struct of one uint256 (`data`).
  "struct ReserveConfigurationMap { uint256 data; }",
  "function getConfiguration(address asset) view returns (ReserveConfigurationMap)",
  // IPool.getReservesList: the listed reserves, dropped ones left out; getReserveAddressById (aave-v3-core ≥ 1.17,
  // SparkLend, Aave V3.1+): the reserve at a reserve id (address(0) for a dropped or unused id).
  "function getReservesList() view returns (address[])",
  "function getReserveAddressById(uint16 id) view returns (address)",
  // IPool.getUserConfiguration returns DataTypes.UserConfigurationMap, a struct of one uint256 (`data`).
  "struct UserConfigurationMap { uint256 data; }",
  "function getUserConfiguration(address user) view returns (UserConfigurationMap)",
  // Efficiency mode. IPool.getUserEMode: the account's category id (0 = none), both generations. Aave V3.2+
  // (aave-dao/aave-v3-origin src/contracts/interfaces/IPool.sol, DataTypes.CollateralConfig): a category's
  // collateral terms and its collateralBitmap (bit i set: reserve id i is collateral in the category).
  "function getUserEMode(address user) view returns (uint256)",
  "struct CollateralConfig { uint16 ltv; uint16 liquidationThreshold; uint16 liquidationBonus; }",
  "function getEModeCategoryCollateralConfig(uint8 id) view returns (CollateralConfig)",
  "function getEModeCategoryCollateralBitmap(uint8 id) view returns (uint128)",
  // Aave V3.0/3.1 (aave/aave-v3-core contracts/protocol/libraries/types/DataTypes.sol EModeCategory; V3.2+ keeps it
  // as EModeCategoryLegacy): the category's terms; its collateral are the reserves whose configuration carries its
  // id (ReserveConfigurationMap bits 168-175, deprecated from V3.2 on).
  "struct EModeCategoryLegacy { uint16 ltv; uint16 liquidationThreshold; uint16 liquidationBonus; address priceSource; string label; }",
  "function getEModeCategoryData(uint8 id) view returns (EModeCategoryLegacy)",
]);

export const oracleAbi = parseAbi(["function getAssetPrice(address asset) view returns (uint256)"]);
const erc20Abi = parseAbi(["function decimals() view returns (uint8)"]);

const multicallAbi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getBlockNumber() view returns (uint256 blockNumber)",
]);

export const TOPIC_SUPPLY = toEventSelector(poolAbi[0]);
export const TOPIC_BORROW = toEventSelector(poolAbi[1]);
export const TOPIC_REPAY = toEventSelector(poolAbi[2]);
export const TOPIC_WITHDRAW = toEventSelector(poolAbi[3]);
export const TOPIC_LIQUIDATION_CALL = toEventSelector(poolAbi[4]);
/** The topics the indexer asks eth_getLogs for (one OR-list in position 0). */
export const POOL_TOPICS = [TOPIC_SUPPLY, TOPIC_BORROW, TOPIC_REPAY, TOPIC_WITHDRAW, TOPIC_LIQUIDATION_CALL] as const;

/** A raw log as eth_getLogs returns it (already shape-checked). */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

export type PoolEvent =
  | { kind: "supply" | "borrow" | "repay" | "withdraw"; reserve: string; user: string; amount: bigint }
  | {
      kind: "liquidation";
      collateralAsset: string;
      debtAsset: string;
      user: string;
      debtToCover: bigint;
      collateralAmount: bigint;
      liquidator: string;
      receiveAToken: boolean;
    };

const low = (a: string) => a.toLowerCase();

/**
 * Decodes one Pool log; null for a log that is not one of the five events
 * (or is malformed: a node that sends garbage must not stop the indexer).
 * The account concerned is the position's owner: `onBehalfOf` for Supply
 * and Borrow, `user` for the others.
 */
export function decodePoolLog(log: Pick<RawLog, "topics" | "data">): PoolEvent | null {
  let d;
  try {
    d = decodeEventLog({ abi: poolAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data as Hex, strict: true });
  } catch {
    return null;
  }
  switch (d.eventName) {
    case "Supply":
      return { kind: "supply", reserve: low(d.args.reserve), user: low(d.args.onBehalfOf), amount: d.args.amount };
    case "Borrow":
      return { kind: "borrow", reserve: low(d.args.reserve), user: low(d.args.onBehalfOf), amount: d.args.amount };
    case "Repay":
      return { kind: "repay", reserve: low(d.args.reserve), user: low(d.args.user), amount: d.args.amount };
    case "Withdraw":
      return { kind: "withdraw", reserve: low(d.args.reserve), user: low(d.args.user), amount: d.args.amount };
    case "LiquidationCall":
      return {
        kind: "liquidation",
        collateralAsset: low(d.args.collateralAsset),
        debtAsset: low(d.args.debtAsset),
        user: low(d.args.user),
        debtToCover: d.args.debtToCover,
        collateralAmount: d.args.liquidatedCollateralAmount,
        liquidator: low(d.args.liquidator),
        receiveAToken: d.args.receiveAToken,
      };
  }
}

export interface AccountData {
  collateralBase: bigint;
  debtBase: bigint;
  availableBorrowsBase: bigint;
  liquidationThresholdBps: bigint;
  ltvBps: bigint;
  /** Scaled 1e18; 2^256−1 when there is no debt. */
  healthFactorWad: bigint;
}

export interface SubCall {
  target: string;
  data: Hex;
}

export const accountDataCall = (pool: string, user: string): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getUserAccountData", args: [user as Hex] }),
});

export const assetPriceCall = (oracle: string, asset: string): SubCall => ({
  target: oracle,
  data: encodeFunctionData({ abi: oracleAbi, functionName: "getAssetPrice", args: [asset as Hex] }),
});

export const decimalsCall = (token: string): SubCall => ({
  target: token,
  data: encodeFunctionData({ abi: erc20Abi, functionName: "decimals" }),
});

/**
 * A sub-call's return data decoded by `decode`; null when there is none (a
 * failed sub-call, no code at the target) or it does not decode (a revert,
 * another function's answer).
 */
export function decodeOrNull<T>(data: Hex | null, decode: (data: Hex) => T): T | null {
  if (!data || data === "0x") return null;
  try {
    return decode(data);
  } catch {
    return null;
  }
}

export const decodeDecimals = (data: Hex | null): number | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: erc20Abi, functionName: "decimals", data: d }));

/** Multicall3's own getBlockNumber, as a sub-call: the block the rest of its batch was read at. */
export const blockNumberCall = (): SubCall => ({ target: MULTICALL3, data: encodeFunctionData({ abi: multicallAbi, functionName: "getBlockNumber" }) });

export const decodeBlockNumber = (data: Hex | null): bigint | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: multicallAbi, functionName: "getBlockNumber", data: d }));

/** Multicall3 aggregate3 calldata; every sub-call may fail on its own. */
export function encodeAggregate3(calls: readonly SubCall[]): Hex {
  return encodeFunctionData({
    abi: multicallAbi,
    functionName: "aggregate3",
    args: [calls.map((c) => ({ target: c.target as Hex, allowFailure: true, callData: c.data }))],
  });
}

/** aggregate3's answer → each sub-call's return data, or null where it failed. */
export function decodeAggregate3(data: Hex): (Hex | null)[] {
  const r = decodeFunctionResult({ abi: multicallAbi, functionName: "aggregate3", data });
  return r.map((x) => (x.success ? x.returnData : null));
}

/** getUserAccountData's return data → the six values; null when it is not a valid answer (no code there, a revert). */
export const decodeAccountData = (data: Hex | null): AccountData | null =>
  decodeOrNull(data, (raw) => {
    const [c, d, a, lt, ltv, hf] = decodeFunctionResult({ abi: poolAbi, functionName: "getUserAccountData", data: raw });
    return { collateralBase: c, debtBase: d, availableBorrowsBase: a, liquidationThresholdBps: lt, ltvBps: ltv, healthFactorWad: hf };
  });

export const decodeAssetPrice = (data: Hex | null): bigint | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: oracleAbi, functionName: "getAssetPrice", data: d }));

// ---------------------------------------------------------------- reserve configuration

/**
 * Aave V3's ReserveConfigurationMap: one uint256 of packed fields (bit
 * positions inclusive). Layout from aave/aave-v3-core
 * contracts/protocol/libraries/configuration/ReserveConfiguration.sol (its
 * *_MASK constants and *_START_BIT_POSITION): LTV 0–15, liquidation
 * threshold 16–31, liquidation bonus 32–47 (10000 + the bonus, bps),
 * decimals 48–55, active 56, frozen 57, borrowing enabled 58, stable
 * borrowing 59, paused 60, reserve factor 64–79, borrow cap 80–115, supply
 * cap 116–151, liquidation protocol fee 152–167 (bps of the bonus),
 * eMode category 168–175. SparkLend keeps the same library.
 */
export const RESERVE_CONFIGURATION_FIELDS = {
  ltvBps: [0, 16],
  liquidationThresholdBps: [16, 16],
  liquidationBonusBps: [32, 16],
  decimals: [48, 8],
  active: [56, 1],
  frozen: [57, 1],
  borrowingEnabled: [58, 1],
  stableBorrowingEnabled: [59, 1],
  paused: [60, 1],
  reserveFactorBps: [64, 16],
  borrowCap: [80, 36],
  supplyCap: [116, 36],
  liquidationProtocolFeeBps: [152, 16],
  eModeCategory: [168, 8],
} as const satisfies Record<string, readonly [start: number, bits: number]>;

export type ReserveConfiguration = Record<keyof typeof RESERVE_CONFIGURATION_FIELDS, bigint>;

/** The fields of a ReserveConfigurationMap's `data`. */
export function decodeReserveConfigurationMap(data: bigint): ReserveConfiguration {
  const out = {} as ReserveConfiguration;
  for (const [name, [start, bits]] of Object.entries(RESERVE_CONFIGURATION_FIELDS)) {
    out[name as keyof ReserveConfiguration] = (data >> BigInt(start)) & ((1n << BigInt(bits)) - 1n);
  }
  return out;
}

/** Packs fields into a ReserveConfigurationMap's `data` (absent fields 0); a value too wide for its field is refused, as the library's setters refuse it. */
export function encodeReserveConfigurationMap(fields: Partial<ReserveConfiguration>): bigint {
  let data = 0n;
  for (const [name, value] of Object.entries(fields)) {
    const [start, bits] = RESERVE_CONFIGURATION_FIELDS[name as keyof ReserveConfiguration];
    if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`${name} does not fit in ${bits} bits`);
    data |= value << BigInt(start);
  }
  return data;
}

export const reserveConfigurationCall = (pool: string, asset: string): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getConfiguration", args: [asset as Hex] }),
});

/** getConfiguration's return data → the bitmap; null when it is not a valid answer. */
export const decodeReserveConfiguration = (data: Hex | null): bigint | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getConfiguration", data: d }).data);

export const reservesListCall = (pool: string): SubCall => ({ target: pool, data: encodeFunctionData({ abi: poolAbi, functionName: "getReservesList" }) });

/** getReservesList's return data → lower-case addresses; null when it is not a valid answer. */
export const decodeReservesList = (data: Hex | null): string[] | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getReservesList", data: d }).map(low));

export const reserveAddressByIdCall = (pool: string, id: number): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getReserveAddressById", args: [id] }),
});

/** getReserveAddressById's return data → a lower-case address; null when it is not a valid answer (a Pool older than the function). */
export const decodeReserveAddress = (data: Hex | null): string | null => decodeOrNull(data, (d) => low(decodeFunctionResult({ abi: poolAbi, functionName: "getReserveAddressById", data: d })));

export const userConfigurationCall = (pool: string, user: string): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getUserConfiguration", args: [user as Hex] }),
});

/** getUserConfiguration's return data → the bitmap; null when it is not a valid answer. */
export const decodeUserConfiguration = (data: Hex | null): bigint | null => decodeOrNull(data, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getUserConfiguration", data: d }).data);

export const userEModeCall = (pool: string, user: string): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getUserEMode", args: [user as Hex] }),
});

/** getUserEMode's return data → the category id (0 = none); null when it is not a valid answer or not a uint8. */
export const decodeUserEMode = (data: Hex | null): number | null =>
  decodeOrNull(data, (d) => {
    const id = decodeFunctionResult({ abi: poolAbi, functionName: "getUserEMode", data: d });
    if (id > 255n) throw new RangeError("eMode category id out of range");
    return Number(id);
  });

export const eModeCollateralConfigCall = (pool: string, id: number): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getEModeCategoryCollateralConfig", args: [id] }),
});
export const eModeCollateralBitmapCall = (pool: string, id: number): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getEModeCategoryCollateralBitmap", args: [id] }),
});
export const eModeCategoryDataCall = (pool: string, id: number): SubCall => ({
  target: pool,
  data: encodeFunctionData({ abi: poolAbi, functionName: "getEModeCategoryData", args: [id] }),
});

/**
 * An eMode category as its liquidations use it: `liquidationBonus` as the Pool stores it (10000 + the bonus, bps)
 * and which reserves are its collateral: V3.2+ `collateralBitmap` (bit i = reserve id i), or null for a V3.0/3.1
 * Pool, whose category's collateral are the reserves whose configuration names the category (eModeCategory bits).
 */
export interface EModeCategory {
  id: number;
  liquidationBonus: bigint;
  collateralBitmap: bigint | null;
}

/** A V3.2+ Pool's answers to getEModeCategoryCollateralConfig and getEModeCategoryCollateralBitmap → the category; null unless both are valid. */
export function decodeEModeCategory(id: number, config: Hex | null, bitmap: Hex | null): EModeCategory | null {
  const c = decodeOrNull(config, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getEModeCategoryCollateralConfig", data: d }));
  const b = decodeOrNull(bitmap, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getEModeCategoryCollateralBitmap", data: d }));
  if (!c || b === null) return null;
  return { id, liquidationBonus: BigInt(c.liquidationBonus), collateralBitmap: b };
}

/** A V3.0/3.1 Pool's answer to getEModeCategoryData → the category (collateral by the reserves' own category bits); null when not valid. */
export function decodeEModeCategoryLegacy(id: number, data: Hex | null): EModeCategory | null {
  const c = decodeOrNull(data, (d) => decodeFunctionResult({ abi: poolAbi, functionName: "getEModeCategoryData", data: d }));
  return c ? { id, liquidationBonus: BigInt(c.liquidationBonus), collateralBitmap: null } : null;
}

/**
 * Whether a reserve is collateral of the category, i.e. whether a liquidation of an account in that category seizing
 * this reserve pays the category's bonus. V3.2+ (aave-dao/aave-v3-origin LiquidationLogic.executeLiquidationCall):
 * `userEModeCategory != 0 && EModeConfiguration.isReserveEnabledOnBitmap(collateralBitmap, collateralReserve.id)`.
 * V3.0/3.1 (aave/aave-v3-core LiquidationLogic._getConfigurationData, e.g. commit 94e571f3):
 * `userEModeCategory != 0 && EModeLogic.isInEModeCategory(userEModeCategory, collateral.configuration.getEModeCategory())`,
 * i.e. the reserve's category bits equal the user's. Otherwise the reserve's own liquidationBonus applies.
 */
export function inEModeCategory(category: EModeCategory, reserveId: number, configuration: bigint): boolean {
  if (category.id === 0) return false;
  if (category.collateralBitmap !== null) return reserveId < 128 && ((category.collateralBitmap >> BigInt(reserveId)) & 1n) === 1n;
  return decodeReserveConfigurationMap(configuration).eModeCategory === BigInt(category.id);
}

/**
 * Aave V3's UserConfigurationMap: two bits per reserve id i (the id the
 * Pool gave the reserve when it was listed, `ReserveData.id`): bit 2i set
 * when the user borrows the reserve, bit 2i + 1 when the user uses it as
 * collateral. From aave/aave-v3-core
 * contracts/protocol/libraries/configuration/UserConfiguration.sol:
 * setBorrowing sets `1 << (reserveIndex << 1)`, setUsingAsCollateral
 * `1 << ((reserveIndex << 1) + 1)` (BORROWING_MASK 0x55…, COLLATERAL_MASK
 * 0xAA…). At most 128 reserves (MAX_RESERVES_COUNT).
 */
export function decodeUserConfigurationMap(data: bigint): { borrowing: number[]; collateral: number[] } {
  const borrowing: number[] = [];
  const collateral: number[] = [];
  for (let i = 0; i < 128 && data >> BigInt(2 * i) !== 0n; i++) {
    if ((data >> BigInt(2 * i)) & 1n) borrowing.push(i);
    if ((data >> BigInt(2 * i + 1)) & 1n) collateral.push(i);
  }
  return { borrowing, collateral };
}

/** Packs reserve ids into a UserConfigurationMap's `data` (the inverse of decodeUserConfigurationMap). */
export function encodeUserConfigurationMap(m: { borrowing?: readonly number[]; collateral?: readonly number[] }): bigint {
  let data = 0n;
  for (const i of m.borrowing ?? []) data |= 1n << BigInt(2 * i);
  for (const i of m.collateral ?? []) data |= 1n << BigInt(2 * i + 1);
  return data;
}

/** The liquidation terms of one position's own collateral (Aave V3 / SparkLend): the reserve a liquidator would seize. */
export interface PositionTerms {
  /** The collateral reserve's asset (lower-case). */
  asset: string;
  bonusBps: bigint;
  protocolFeeBps: bigint;
  /** Set when the bonus is the account's eMode category's (that category's id); absent when it is the reserve's. */
  emodeCategory?: number;
}

/**
 * A reserve's configuration as collateral terms, or null when it cannot be
 * seized: not active, liquidation threshold 0 (not collateral), bonus not
 * above 100 %, or a protocol fee out of range.
 */
export function collateralTerms(asset: string, data: bigint): PositionTerms | null {
  const c = decodeReserveConfigurationMap(data);
  if (c.active !== 1n || c.liquidationThresholdBps === 0n || c.liquidationBonusBps <= 10_000n || c.liquidationProtocolFeeBps > 10_000n) return null;
  return { asset: low(asset), bonusBps: c.liquidationBonusBps - 10_000n, protocolFeeBps: c.liquidationProtocolFeeBps };
}

/**
 * A reserve that is collateral of the account's eMode category as collateral terms: the category's bonus (the
 * reserve's own is not used, so it need not be above 100 %) and the reserve's protocol fee; null when the reserve
 * cannot be seized (not active, liquidation threshold 0: ValidationLogic.validateLiquidationCall requires the
 * reserve's own threshold to be non-zero in both generations) or the category's bonus is not above 100 %.
 */
function eModeCollateralTerms(asset: string, data: bigint, eMode: EModeCategory): PositionTerms | null {
  const c = decodeReserveConfigurationMap(data);
  if (c.active !== 1n || c.liquidationThresholdBps === 0n || eMode.liquidationBonus <= 10_000n || c.liquidationProtocolFeeBps > 10_000n) return null;
  return { asset: low(asset), bonusBps: eMode.liquidationBonus - 10_000n, protocolFeeBps: c.liquidationProtocolFeeBps, emodeCategory: eMode.id };
}

/**
 * The terms a position is valued with: among its collateral reserves (the
 * collateral bits of its UserConfigurationMap, mapped to reserves by id) that
 * can be seized, the one paying the highest bonus (a liquidator picks the
 * collateral to seize); on a tie the lower protocol fee, then the lower id.
 * With the account's eMode category (`eMode`, as read; null or absent when the
 * account is in none or it could not be read), a reserve that is collateral of
 * the category pays the category's bonus instead of its own
 * (`inEModeCategory`); the protocol fee stays the reserve's
 * liquidationProtocolFee in both generations (LiquidationLogic
 * `_calculateAvailableCollateralToLiquidate` reads it from the collateral
 * reserve's configuration).
 * Null when it has none, or when a collateral bit names an id whose reserve
 * is unknown (the choice could be wrong).
 */
export function positionTerms(
  userConfiguration: bigint,
  reservesById: ReadonlyMap<number, { asset: string; configuration: bigint }>,
  eMode?: EModeCategory | null,
): PositionTerms | null {
  let best: PositionTerms | null = null;
  for (const id of decodeUserConfigurationMap(userConfiguration).collateral) {
    const r = reservesById.get(id);
    if (!r) return null;
    const t = eMode && inEModeCategory(eMode, id, r.configuration) ? eModeCollateralTerms(r.asset, r.configuration, eMode) : collateralTerms(r.asset, r.configuration);
    if (!t) continue;
    if (!best || t.bonusBps > best.bonusBps || (t.bonusBps === best.bonusBps && t.protocolFeeBps < best.protocolFeeBps)) best = t;
  }
  return best;
}

/** A market's liquidation terms as the opportunities feed uses them. */
export interface LiquidationTerms {
  /** What the liquidator receives beyond the repaid value, bps of it. */
  bonusBps: bigint;
  /** Share of that bonus the protocol keeps, bps. */
  protocolFeeBps: bigint;
  source: "aave_reserve" | "comet_storefront";
  detail: string;
}

/**
 * An Aave reserve's configuration → its liquidation terms: bonus =
 * liquidationBonus − 100 %, fee = liquidationProtocolFee. Throws for a
 * reserve that cannot be liquidated against (bonus not above 100 %: not
 * collateral or not listed) or is not active.
 */
export function aaveReserveTerms(data: bigint, reserve: string): LiquidationTerms {
  const c = decodeReserveConfigurationMap(data);
  if (c.active !== 1n) throw new Error(`the ${reserve} reserve is not active`);
  if (c.liquidationBonusBps <= 10_000n) throw new Error(`the ${reserve} reserve is not collateral (liquidation bonus ${c.liquidationBonusBps} bps)`);
  if (c.liquidationProtocolFeeBps > 10_000n) throw new Error(`the ${reserve} reserve's liquidation protocol fee is out of range (${c.liquidationProtocolFeeBps} bps)`);
  return {
    bonusBps: c.liquidationBonusBps - 10_000n,
    protocolFeeBps: c.liquidationProtocolFeeBps,
    source: "aave_reserve",
    detail: `${reserve} reserve: liquidationBonus ${c.liquidationBonusBps} bps, liquidationProtocolFee ${c.liquidationProtocolFeeBps} bps`,
  };
}

// ---------------------------------------------------------------- arithmetic

export const WAD = 10n ** 18n;
export const BASE_UNIT = 10n ** 8n;
/** Aave V3.3 LiquidationLogic: above this HF only half the debt may be repaid in one call. */
export const CLOSE_FACTOR_HF_THRESHOLD = 95n * 10n ** 16n;
/** Aave V3.3: positions (collateral or debt) below $2,000 may be closed entirely. */
export const MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD = 2_000n * BASE_UNIT;

/**
 * The share of the debt one liquidation call may repay, in bps: 100 % at or
 * below HF 0.95 or when the collateral or the debt is under $2,000, else
 * 50 %. (Per reserve in the contract; the account totals stand in for the
 * single-reserve case, which is the common one.)
 */
export function closeFactorBps(a: Pick<AccountData, "collateralBase" | "debtBase" | "healthFactorWad">): bigint {
  if (a.healthFactorWad <= CLOSE_FACTOR_HF_THRESHOLD) return 10_000n;
  if (a.collateralBase < MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD || a.debtBase < MIN_BASE_MAX_CLOSE_FACTOR_THRESHOLD) return 10_000n;
  return 5_000n;
}

/**
 * The close factor by protocol: Aave and SparkLend as above; Compound V3's
 * absorb takes the whole account and Morpho Blue has no close factor, so
 * 100 %.
 */
export function closeFactorFor(protocol: LendingProtocol, a: Pick<AccountData, "collateralBase" | "debtBase" | "healthFactorWad">): bigint {
  return protocol === "aave" || protocol === "spark" ? closeFactorBps(a) : 10_000n;
}

/** Whether the Pool would accept a liquidationCall now. */
export const isLiquidatable = (hfWad: bigint, debtBase: bigint) => debtBase > 0n && hfWad < WAD;

/** Value in base units of `amount` of a token with `decimals`, at `priceBase` (8-dec USD per whole token). */
export const toBase = (amount: bigint, decimals: number, priceBase: bigint) => (amount * priceBase) / 10n ** BigInt(decimals);

/** A 1e18-scaled ratio as a number with 6 decimals, rounded down (null for "no debt"). */
export function wadToNumber(wad: bigint): number | null {
  if (wad >= 2n ** 255n) return null;
  return Number(wad / 10n ** 12n) / 1e6;
}

/** A decimal string ("1.05") → 1e18-scaled bigint; null when it is not a plain non-negative decimal with ≤ 18 decimals. */
export function decimalToWad(text: string): bigint | null {
  const m = /^(\d{1,12})(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1]!) * WAD + BigInt((m[2] ?? "").padEnd(18, "0"));
}

/** Base units (8-dec USD) → dollars with 2 decimals, rounded down ("1234.56"). */
export function baseToUsd(base: bigint): string {
  const cents = base / 10n ** 6n;
  const s = (cents < 0n ? -cents : cents).toString().padStart(3, "0");
  return `${cents < 0n ? "-" : ""}${s.slice(0, -2)}.${s.slice(-2)}`;
}

/** Whole dollars (decimal string) → base units; null when not a plain non-negative decimal. */
export function usdToBase(text: string): bigint | null {
  const m = /^(\d{1,15})(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1]!) * BASE_UNIT + BigInt((m[2] ?? "").padEnd(8, "0"));
}

/** Rounds a non-negative base amount to one significant figure in whole dollars, half up ($12,345 → "10000", $0.40 → "0"). */
export function oneSignificantUsd(base: bigint): string {
  if (base < BASE_UNIT / 2n) return "0";
  const dollars = base / BASE_UNIT;
  const unit = dollars === 0n ? 1n : 10n ** BigInt(dollars.toString().length - 1);
  const step = unit * BASE_UNIT;
  return (((base + step / 2n) / step) * unit).toString();
}
