/**
 * A simulated EVM node for the devnet: Ethereum JSON-RPC 2.0 over HTTP on
 * loopback (single and batch requests), chain id 84532 (Base Sepolia), with
 * Base Sepolia's USDC (FiatToken v2.2 behaviour for EIP-3009), Multicall3,
 * and x402's batch-settlement escrow with its ERC-3009 deposit collector, at
 * their real addresses. Contracts are TypeScript objects, not EVM
 * bytecode: they decode ABI calldata with viem and answer ABI-encoded
 * results, revert data and event logs exactly as the real contracts would, so
 * viem clients and the @x402/evm facilitator talk to it unmodified.
 *
 * Signed transactions are real: eth_sendRawTransaction parses the RLP
 * envelope, recovers the sender, checks chain id, nonce, fee cap and gas
 * funds, executes the call and mines it at once into a new block (automine).
 * Time comes from the injected clock; block timestamps never go backwards.
 *
 * The parts, each in its own file: evm-network.ts (ids, addresses,
 * balances), evm-contract.ts (execution model), evm-usdc.ts,
 * evm-multicall.ts, evm-batch-settlement.ts and evm-deposit-collector.ts
 * (the contracts), evm-chain.ts (state, blocks,
 * transactions), evm-rpc.ts (the JSON-RPC methods), jsonrpc-server.ts (the
 * HTTP transport). This file wires them into a running node.
 *
 * The chain advertises only Base Sepolia, never mainnet, so a signature made
 * for the devnet can never move real money: the USDC EIP-712 domain is
 * `USDC` / `2` / 84532, and a mainnet-domain (`USD Coin`, 8453) signature
 * recovers to a different address and reverts.
 */
import { type Address, type Hex, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { type Clock, systemClock } from "../src/core/clock.js";
import { startJsonRpcServer } from "./jsonrpc-server.js";
import { SimulatedChain } from "./evm-chain.js";
import { SimulatedMulticall3 } from "./evm-multicall.js";
import { SimulatedUsdc } from "./evm-usdc.js";
import { SimulatedBatchSettlement } from "./evm-batch-settlement.js";
import { SimulatedErc3009DepositCollector } from "./evm-deposit-collector.js";
import { ethereumMethods } from "./evm-rpc.js";
import {
  BATCH_SETTLEMENT_ADDRESS,
  DEVNET_CHAIN_ID,
  DEVNET_MNEMONIC,
  DEVNET_USDC_ADDRESS,
  DEVNET_USDC_DECIMALS,
  DEVNET_USDC_DOMAIN,
  DEVNET_USDC_PER_ACCOUNT,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  MULTICALL3_ADDRESS,
} from "./evm-network.js";

export * from "./evm-network.js";
export { ExecutionReverted, revert, SIMULATED_CODE, type CallFrame, type SimLog, type SimulatedContract } from "./evm-contract.js";
export { SimulatedUsdc, usdcAbi, type UsdcOptions } from "./evm-usdc.js";
export { SimulatedMulticall3, multicall3Abi } from "./evm-multicall.js";
export {
  SimulatedBatchSettlement,
  batchSettlementAbi,
  type BatchSettlementOptions,
  type ChannelConfig,
  type VoucherClaim,
} from "./evm-batch-settlement.js";
export { SimulatedErc3009DepositCollector, depositCollectorAbi } from "./evm-deposit-collector.js";
export { SimulatedChain, type SimBlock, type SimReceiptLog, type SimTransaction, type SimulatedChainOptions } from "./evm-chain.js";
/** A JSON-RPC error as the node answers it (the shared server's error type). */
export { JsonRpcError as RpcError } from "./jsonrpc-server.js";

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_BATCH = 1000;

// ---------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------

export interface DevnetAccount {
  address: Address;
  /** Well-known public test key derived from DEVNET_MNEMONIC. Never use on a real chain. */
  privateKey: Hex;
}

/** The first `count` accounts of DEVNET_MNEMONIC at m/44'/60'/0'/0/i. */
export function deriveDevnetAccounts(count = 10): DevnetAccount[] {
  const out: DevnetAccount[] = [];
  for (let i = 0; i < count; i++) {
    const account = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (!key) throw new Error(`no private key derived for devnet account ${i}`);
    out.push({ address: account.address, privateKey: toHex(key) });
  }
  return out;
}

// ---------------------------------------------------------------------------
// The node
// ---------------------------------------------------------------------------

export interface StartDevnetEvmOptions {
  host?: string;
  port?: number;
  clock?: Clock;
  /** How many mnemonic accounts to fund (default 10), or an explicit list to fund. */
  accounts?: number | readonly DevnetAccount[];
  /** USDC each funded account starts with (default 1,000 USDC). */
  usdcPerAccount?: bigint;
  /** See SimulatedChainOptions.blockTimeSeconds. */
  blockTimeSeconds?: number;
  /** Called for every JSON-RPC method the node is asked (for tests and debugging). */
  onRequest?: (method: string, params: unknown[]) => void;
}

export interface DevnetEvm {
  url: string;
  chainId: number;
  usdcAddress: Address;
  accounts: DevnetAccount[];
  chain: SimulatedChain;
  usdc: SimulatedUsdc;
  /** x402's batch-settlement escrow at BATCH_SETTLEMENT_ADDRESS (read channels, withdrawals, refund nonces, receivers directly). */
  escrow: SimulatedBatchSettlement;
  /** Its ERC-3009 deposit collector at ERC3009_DEPOSIT_COLLECTOR_ADDRESS. */
  erc3009Collector: SimulatedErc3009DepositCollector;
  usdcBalanceOf(address: string): bigint;
  /** Devnet faucet: credit USDC to any address. */
  mintUsdc(address: string, amount: bigint): void;
  /**
   * Test hook: runs `fn` once, on the node's own turn, just before the next
   * transaction sent over JSON-RPC executes (e.g. a payer's funds leave
   * between a facilitator's verify and its settlement). `fn` may act on
   * `chain` directly, not over JSON-RPC (the node serves one call at a time).
   */
  beforeNextTransaction(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function startDevnetEvm(options: StartDevnetEvmOptions = {}): Promise<DevnetEvm> {
  const { host = "127.0.0.1", port = 0, clock = systemClock, onRequest } = options;
  const accounts =
    typeof options.accounts === "object" ? [...options.accounts] : deriveDevnetAccounts(options.accounts ?? 10);
  const chain = new SimulatedChain({ chainId: DEVNET_CHAIN_ID, clock, blockTimeSeconds: options.blockTimeSeconds });
  const usdc = new SimulatedUsdc({
    address: DEVNET_USDC_ADDRESS,
    name: DEVNET_USDC_DOMAIN.name,
    version: DEVNET_USDC_DOMAIN.version,
    symbol: "USDC",
    decimals: DEVNET_USDC_DECIMALS,
    chainId: DEVNET_CHAIN_ID,
  });
  chain.deployContract(DEVNET_USDC_ADDRESS, usdc);
  chain.deployContract(MULTICALL3_ADDRESS, new SimulatedMulticall3());
  const escrow = new SimulatedBatchSettlement({ address: BATCH_SETTLEMENT_ADDRESS, chainId: DEVNET_CHAIN_ID });
  const erc3009Collector = new SimulatedErc3009DepositCollector(BATCH_SETTLEMENT_ADDRESS);
  chain.deployContract(BATCH_SETTLEMENT_ADDRESS, escrow);
  chain.deployContract(ERC3009_DEPOSIT_COLLECTOR_ADDRESS, erc3009Collector);
  const perAccount = options.usdcPerAccount ?? DEVNET_USDC_PER_ACCOUNT;
  for (const a of accounts) usdc.mint(a.address, perAccount);

  // One call at a time, like a single-threaded node: execution awaits signature recovery,
  // and state snapshots must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const beforeSend: (() => Promise<void> | void)[] = [];
  const methods = ethereumMethods(chain);
  const send = methods.eth_sendRawTransaction!;
  methods.eth_sendRawTransaction = async (params) => {
    await beforeSend.shift()?.();
    return send(params);
  };

  const server = await startJsonRpcServer({
    host,
    port,
    maxBodyBytes: MAX_BODY_BYTES,
    // Browser wallets and dapps on other origins talk to a local node directly.
    cors: true,
    rpc: {
      methods: { params: "positional", table: methods },
      maxBatch: MAX_BATCH,
      unknownMethodMessage: (method) => `the method ${method} does not exist/is not available`,
      // Positional dialect: params always arrive as an array.
      onCall: onRequest && ((method, params) => onRequest(method, Array.isArray(params) ? params : [])),
      run: (call) =>
        serial(async () => {
          chain.catchUp();
          return call();
        }),
    },
  });

  return {
    url: server.url,
    chainId: DEVNET_CHAIN_ID,
    usdcAddress: DEVNET_USDC_ADDRESS,
    accounts,
    chain,
    usdc,
    escrow,
    erc3009Collector,
    usdcBalanceOf: (addr) => usdc.balanceOf(addr),
    mintUsdc: (addr, amount) => usdc.mint(addr, amount),
    beforeNextTransaction: (fn) => void beforeSend.push(fn),
    close: () => server.close(),
  };
}
