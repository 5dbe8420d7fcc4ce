/**
 * What the devnet's EVM chain is: Base Sepolia's chain id and contract
 * addresses (USDC, Multicall3, x402's batch-settlement escrow and collector), the public test mnemonic its accounts come from, and the
 * opening balances. Every part of the simulated node reads these.
 */
import {
  type Address,
  getAddress,
} from "viem";

/** The well-known public test mnemonic of local EVM chains (anvil, hardhat). Never holds real funds. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";
/** Base Sepolia. The devnet never answers as mainnet (8453). */
export const DEVNET_CHAIN_ID = 84532;
export const DEVNET_NETWORK = "eip155:84532" as const;
/** Base Sepolia USDC (FiatTokenProxy). */
export const DEVNET_USDC_ADDRESS: Address = getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
export const MULTICALL3_ADDRESS: Address = getAddress("0xcA11bde05977b3631167028862bE2a173976CA11");
/**
 * x402's batch-settlement escrow (x402BatchSettlement) and its ERC-3009 deposit
 * collector: CREATE2 addresses, the same on every chain, as @x402/evm has them.
 */
export const BATCH_SETTLEMENT_ADDRESS: Address = getAddress("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003");
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS: Address = getAddress("0x4020806089470a89826cB9fB1f4059150b550004");
/** EIP-712 domain of Base Sepolia USDC. Note the name is `USDC`, not mainnet's `USD Coin`. */
export const DEVNET_USDC_DOMAIN = {
  name: "USDC",
  version: "2",
  chainId: DEVNET_CHAIN_ID,
  verifyingContract: DEVNET_USDC_ADDRESS,
} as const;
export const DEVNET_USDC_DECIMALS = 6;
/** 1,000 USDC in atomic units, the opening balance of every funded test account. */
export const DEVNET_USDC_PER_ACCOUNT = 1_000_000_000n;
/** Every address starts with 10,000 ETH for gas: the devnet does not ration gas. */
export const DEVNET_DEFAULT_ETH_BALANCE = 10_000n * 10n ** 18n;
