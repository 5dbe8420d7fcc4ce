/**
 * The flash-loan catalogue of Ethereum mainnet: one reviewed entry per
 * provider with its contract, fee, whether one loan can carry several
 * assets, where its liquidity sits, caveats and the source each fact was
 * checked against. Pure data and pure selection; the on-chain reads
 * (Aave's premium, balances) are done by the caller and passed in.
 *
 * Fees are basis points (1 bp = 0.01 %). A provider whose fee lives on chain
 * (`feeSource: "onchain"`) carries the value last reported as `fee_bps` only
 * after the caller has read it; until then it is null (unknown), never a
 * guess.
 */

export type LiquidityModel =
  /** The asset balance the contract holds (Balancer, Uniswap V4, Morpho). */
  | { kind: "balance"; holder: string }
  /** Aave-style reserve: flash-loan enabled and not paused per the data provider. */
  | { kind: "aave-reserve"; dataProvider: string }
  /** Minted on demand up to a ceiling read with max() (Maker DssFlash). */
  | { kind: "mint-ceiling" }
  /** Not evaluated by the cheapest-provider question (pools or vaults must be enumerated). */
  | { kind: "not-evaluated"; reason: string };

export interface FlashLoanProvider {
  id: string;
  name: string;
  chain: "ethereum";
  /** The contract a borrower calls. */
  address: string;
  /** Flat fee in bps when fixed by the protocol; null when read on chain. */
  fixedFeeBps: number | null;
  /** How the fee is known: fixed in code/governance, or read with `feeCall` each time. */
  feeSource: "fixed" | "onchain" | "pool-tier";
  /** Read-only call that returns the fee in bps (Aave: FLASHLOAN_PREMIUM_TOTAL()). */
  feeCall?: { to: string; selector: string };
  multiAsset: boolean;
  /** Asset symbols it can lend, or "any" held token. */
  assets: "any" | readonly string[];
  liquidity: LiquidityModel;
  liquidityNote: string;
  caveats: string;
  source: string;
}

/** Mainnet token addresses (bgd-labs/aave-address-book src/ts/AaveV3Ethereum.ts, ASSETS). */
export const ASSETS: Readonly<Record<string, { address: string; decimals: number }>> = {
  WETH: { address: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", decimals: 18 },
  WSTETH: { address: "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0", decimals: 18 },
  WBTC: { address: "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", decimals: 8 },
  USDC: { address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6 },
  DAI: { address: "0x6b175474e89094c44da98b954eedeac495271d0f", decimals: 18 },
  USDT: { address: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6 },
  LINK: { address: "0x514910771af9ca656af840dff83e8264ecf986ca", decimals: 18 },
  GHO: { address: "0x40d16fc0246ad3160ccc09b8d0d3a2cd28ae6c2f", decimals: 18 },
  RETH: { address: "0xae78736cd615f374d3085123a210448e74fc6393", decimals: 18 },
  CBETH: { address: "0xbe9895146f7af43049ca1c1ae358b0541ea49704", decimals: 18 },
};

export const AAVE_V3_CORE_POOL = "0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2";
export const AAVE_V3_CORE_DATA_PROVIDER = "0x0a16f2fcc0d44fae41cc54e079281d84a363becd";
/** FLASHLOAN_PREMIUM_TOTAL() */
export const SELECTOR_FLASHLOAN_PREMIUM_TOTAL = "0x074b2e43";
/** getFlashLoanEnabled(address) */
export const SELECTOR_GET_FLASHLOAN_ENABLED = "0xd7ed3ef4";
/** getPaused(address) */
export const SELECTOR_GET_PAUSED = "0xb55d9904";
/** balanceOf(address) */
export const SELECTOR_BALANCE_OF = "0x70a08231";
/** DssFlash max() */
export const SELECTOR_DSS_FLASH_MAX = "0x6ac5db19";
export const DSS_FLASH = "0x60744434d6339a6b27d73d9eda62b6f66a0a04fa";

const AAVE_FEE_NOTE = "premium = amount × FLASHLOAN_PREMIUM_TOTAL / 10 000, rounded half up; flashLoan() waives it for ACL flash borrowers and debt-mode legs";

export const FLASHLOAN_PROVIDERS: readonly FlashLoanProvider[] = [
  {
    id: "balancer-v2",
    name: "Balancer V2 Vault",
    chain: "ethereum",
    address: "0xba12222222228d8ba445958a75a0704d566bf2c8",
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: true,
    assets: "any",
    liquidity: { kind: "balance", holder: "0xba12222222228d8ba445958a75a0704d566bf2c8" },
    liquidityNote: "the Vault's balance of the token",
    caveats: "token list must be sorted ascending and unique; fee is governance-set (ProtocolFeesCollector.getFlashLoanFeePercentage, 0); several pools were drained in the 3 Nov 2025 exploit, so balances of affected tokens are lower",
    source: "https://docs.balancer.fi/reference/contracts/flash-loans.html",
  },
  {
    id: "balancer-v3",
    name: "Balancer V3 Vault",
    chain: "ethereum",
    address: "0xba1333333333a1ba1108e8412f11850a5c319ba9",
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: true,
    assets: "any",
    liquidity: { kind: "balance", holder: "0xba1333333333a1ba1108e8412f11850a5c319ba9" },
    liquidityNote: "the Vault's reserves of the token",
    caveats: "borrowed through unlock → callback → sendTo → settle, not a flashLoan() call",
    source: "https://docs.balancer.fi/concepts/vault/flash-loans.html",
  },
  {
    id: "uniswap-v4",
    name: "Uniswap V4 PoolManager",
    chain: "ethereum",
    address: "0x000000000004444c5dc75cb358380d2e3de08a90",
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: true,
    assets: "any",
    liquidity: { kind: "balance", holder: "0x000000000004444c5dc75cb358380d2e3de08a90" },
    liquidityNote: "the PoolManager's balance of the token",
    caveats: "flash accounting: unlock → take → sync/settle before unlock returns",
    source: "https://docs.uniswap.org/contracts/v4/deployments",
  },
  {
    id: "morpho-blue",
    name: "Morpho Blue",
    chain: "ethereum",
    address: "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb",
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: false,
    assets: "any",
    liquidity: { kind: "balance", holder: "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb" },
    liquidityNote: "Morpho's balance of the token, lender supply and posted collateral together",
    caveats: "one token per call (nest calls for several); immutable, no fee switch",
    source: "morpho-org/morpho-blue src/Morpho.sol (flashLoan)",
  },
  {
    id: "maker-dss-flash",
    name: "Maker/Sky DssFlash",
    chain: "ethereum",
    address: DSS_FLASH,
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: false,
    assets: ["DAI"],
    liquidity: { kind: "mint-ceiling" },
    liquidityNote: "DAI minted on demand up to the max() ceiling",
    caveats: "DAI only (ERC-3156); toll set to 0 in the 3 Sep 2021 executive",
    source: "https://docs.makerdao.com/smart-contract-modules/flash-mint-module",
  },
  {
    id: "aave-v3-core",
    name: "Aave V3 Core",
    chain: "ethereum",
    address: AAVE_V3_CORE_POOL,
    fixedFeeBps: null,
    feeSource: "onchain",
    feeCall: { to: AAVE_V3_CORE_POOL, selector: SELECTOR_FLASHLOAN_PREMIUM_TOTAL },
    multiAsset: true,
    assets: ["WETH", "WSTETH", "WBTC", "USDC", "DAI", "USDT", "LINK", "GHO", "RETH", "CBETH"],
    liquidity: { kind: "aave-reserve", dataProvider: AAVE_V3_CORE_DATA_PROVIDER },
    liquidityNote: "the reserve's underlying held by its aToken; the reserve must be active, unpaused and flash-loan enabled",
    caveats: AAVE_FEE_NOTE,
    source: "bgd-labs/aave-address-book src/ts/AaveV3Ethereum.ts; aave-dao/aave-v3-origin FlashLoanLogic.sol",
  },
  {
    id: "aave-v3-prime",
    name: "Aave V3 Prime (Lido)",
    chain: "ethereum",
    address: "0x4e033931ad43597d96d6bcc25c280717730b58b1",
    fixedFeeBps: null,
    feeSource: "onchain",
    feeCall: { to: "0x4e033931ad43597d96d6bcc25c280717730b58b1", selector: SELECTOR_FLASHLOAN_PREMIUM_TOTAL },
    multiAsset: true,
    assets: ["WETH", "WSTETH", "USDC", "GHO"],
    liquidity: { kind: "not-evaluated", reason: "its data provider address is not in the reviewed sources yet" },
    liquidityNote: "the reserve's underlying held by its aToken",
    caveats: AAVE_FEE_NOTE,
    source: "bgd-labs/aave-address-book src/ts/AaveV3EthereumLido.ts",
  },
  {
    id: "sparklend",
    name: "SparkLend",
    chain: "ethereum",
    address: "0xc13e21b648a5ee794902342038ff3adab66be987",
    fixedFeeBps: null,
    feeSource: "onchain",
    feeCall: { to: "0xc13e21b648a5ee794902342038ff3adab66be987", selector: SELECTOR_FLASHLOAN_PREMIUM_TOTAL },
    multiAsset: true,
    assets: ["WETH", "WSTETH", "USDC", "DAI", "USDT", "WBTC", "RETH"],
    liquidity: { kind: "not-evaluated", reason: "Pool address comes from third-party code; not used for routing until verified" },
    liquidityNote: "the reserve's underlying held by its aToken",
    caveats: "Aave V3 fork; premium set to 0 at deployment (marsfoundation/sparklend-deployments script/DeploySpark.s.sol), current value read on chain",
    source: "https://devs.spark.fi/sparklend/features/flash-loans",
  },
  {
    id: "uniswap-v3",
    name: "Uniswap V3 pools",
    chain: "ethereum",
    address: "0x1f98431c8ad98523631ae4a59f267346ea31f984",
    fixedFeeBps: 1,
    feeSource: "pool-tier",
    multiAsset: true,
    assets: "any",
    liquidity: { kind: "not-evaluated", reason: "pools must be enumerated per pair and fee tier" },
    liquidityNote: "the pool's token balances; the address is the Factory (getPool(a, b, fee))",
    caveats: "fee is the pool's tier (1, 5, 30 or 100 bps; the lowest is shown), ceil(amount × fee / 1e6); only the two tokens of one pool",
    source: "Uniswap/v3-core contracts/UniswapV3Pool.sol (flash), contracts/UniswapV3Factory.sol",
  },
  {
    id: "euler-v2",
    name: "Euler v2 (EVK vaults)",
    chain: "ethereum",
    address: "0x0c9a3dd6b8f28529d72d7f9ce918d493519ee383",
    fixedFeeBps: 0,
    feeSource: "fixed",
    multiAsset: false,
    assets: "any",
    liquidity: { kind: "not-evaluated", reason: "vaults must be discovered from the factory and checked for the OP_FLASHLOAN hook" },
    liquidityNote: "each vault's cash(); the address is the EVC",
    caveats: "per vault, which its governor can disable; EVC address from third-party code",
    source: "euler-xyz/euler-vault-kit src/EVault/modules/Borrowing.sol",
  },
];

export const FLASHLOAN_CHAINS = ["ethereum"] as const;

export interface ProviderFilter {
  chain: string;
  /** Drops providers whose flat fee exceeds it; an on-chain fee not read is kept (unknown). */
  maxFeeBps?: number;
  multiAsset?: boolean;
}

/** The fee in bps a provider charges now: the fixed one, or the one read on chain (null if unread). */
export function providerFeeBps(p: FlashLoanProvider, onchainFees: ReadonlyMap<string, number>): number | null {
  return p.feeSource === "onchain" ? (onchainFees.get(p.id) ?? null) : p.fixedFeeBps;
}

export function filterProviders(
  providers: readonly FlashLoanProvider[],
  f: ProviderFilter,
  onchainFees: ReadonlyMap<string, number>,
): FlashLoanProvider[] {
  return providers.filter((p) => {
    if (p.chain !== f.chain) return false;
    if (f.multiAsset === true && !p.multiAsset) return false;
    if (f.maxFeeBps !== undefined) {
      const fee = providerFeeBps(p, onchainFees);
      if (fee !== null && fee > f.maxFeeBps) return false;
    }
    return true;
  });
}

/** A symbol (any case) or 0x-address → the catalogued asset, or null when not catalogued. */
export function resolveAsset(asset: string): { symbol: string; address: string } | null {
  const a = asset.trim();
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) {
    const lower = a.toLowerCase();
    const hit = Object.entries(ASSETS).find(([, v]) => v.address === lower);
    return hit ? { symbol: hit[0], address: lower } : null;
  }
  const symbol = a.toUpperCase();
  const hit = ASSETS[symbol];
  return hit ? { symbol, address: hit.address } : null;
}

/** Providers the cheapest-provider question can check for `symbol`, cheapest fixed fee first. */
export function candidatesFor(symbol: string, providers: readonly FlashLoanProvider[] = FLASHLOAN_PROVIDERS): FlashLoanProvider[] {
  return providers.filter(
    (p) => p.liquidity.kind !== "not-evaluated" && (p.assets === "any" || p.assets.includes(symbol)),
  );
}

export interface CheckedCandidate {
  provider: FlashLoanProvider;
  feeBps: number;
  /** Units of the asset available now (a ceiling for minting providers); 0 = cannot lend now. */
  available: bigint;
}

/**
 * The cheapest provider that can lend now: lowest fee, then most available
 * liquidity, then the catalogue's order (simpler call first). Null when none can.
 */
export function pickCheapest(checked: readonly CheckedCandidate[]): CheckedCandidate | null {
  const order = new Map(FLASHLOAN_PROVIDERS.map((p, i) => [p.id, i]));
  const able = checked.filter((c) => c.available > 0n);
  able.sort((a, b) => {
    if (a.feeBps !== b.feeBps) return a.feeBps - b.feeBps;
    if (a.available !== b.available) return a.available > b.available ? -1 : 1;
    return (order.get(a.provider.id) ?? 0) - (order.get(b.provider.id) ?? 0);
  });
  return able[0] ?? null;
}

/** ABI-encodes `selector(address)`. */
export function encodeAddressCall(selector: string, addr: string): string {
  return `${selector}${addr.toLowerCase().replace(/^0x/, "").padStart(64, "0")}`;
}

/** A uint256 return value (the first 32-byte word). */
export function decodeUint(ret: string): bigint {
  const hex = ret.replace(/^0x/, "").slice(0, 64);
  if (hex.length < 64) throw new Error("short return data");
  return BigInt(`0x${hex}`);
}
