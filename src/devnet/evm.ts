/**
 * A simulated EVM node for the devnet: Ethereum JSON-RPC 2.0 over HTTP on
 * loopback (single and batch requests), chain id 84532 (Base Sepolia), with
 * Base Sepolia's USDC (FiatToken v2.2 behaviour for EIP-3009) and Multicall3
 * at their real addresses. Contracts are TypeScript objects, not EVM
 * bytecode: they decode ABI calldata with viem and answer ABI-encoded
 * results, revert data and event logs exactly as the real contracts would, so
 * viem clients and the @x402/evm facilitator talk to it unmodified.
 *
 * Signed transactions are real: eth_sendRawTransaction parses the RLP
 * envelope, recovers the sender, checks chain id, nonce, fee cap and gas
 * funds, executes the call and mines it at once into a new block (automine).
 * Time comes from the injected clock; block timestamps never go backwards.
 *
 * The chain advertises only Base Sepolia, never mainnet, so a signature made
 * for the devnet can never move real money: the USDC EIP-712 domain is
 * `USDC` / `2` / 84532, and a mainnet-domain (`USD Coin`, 8453) signature
 * recovers to a different address and reverts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Abi,
  type Address,
  type Hex,
  concat,
  decodeFunctionData,
  domainSeparator,
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  hashTypedData,
  hexToBigInt,
  hexToBytes,
  isAddress,
  isHex,
  keccak256,
  numberToHex,
  parseAbi,
  parseTransaction,
  recoverAddress,
  recoverTransactionAddress,
  size,
  bytesToHex,
  toHex,
  type TransactionSerialized,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { type Clock, systemClock } from "../core/clock.js";

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

/** The well-known public test mnemonic of local EVM chains (anvil, hardhat). Never holds real funds. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";
/** Base Sepolia. The devnet never answers as mainnet (8453). */
export const DEVNET_CHAIN_ID = 84532;
export const DEVNET_NETWORK = "eip155:84532" as const;
/** Base Sepolia USDC (FiatTokenProxy). */
export const DEVNET_USDC_ADDRESS: Address = getAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
export const MULTICALL3_ADDRESS: Address = getAddress("0xcA11bde05977b3631167028862bE2a173976CA11");
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

const BLOCK_GAS_LIMIT = 30_000_000n;
/** Floor of the EIP-1559 base fee (0.001 gwei, Base Sepolia's usual level). */
const MIN_BASE_FEE = 1_000_000n;
/** What eth_maxPriorityFeePerGas suggests (0.001 gwei). */
const PRIORITY_FEE = 1_000_000n;
const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";
const ZERO_HASH: Hex = `0x${"00".repeat(32)}`;
/** Base's sequencer fee vault, reported as the miner of every block. */
const COINBASE: Address = "0x4200000000000000000000000000000000000011";
/** secp256k1 n / 2: FiatToken's ECRecover rejects malleable high-s signatures. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_BATCH = 1000;
const MAX_LOG_RANGE = 10_000n;
/** At most this many empty blocks are materialised when interval mining catches up with the clock. */
const MAX_CATCH_UP_BLOCKS = 256n;

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
// Execution model
// ---------------------------------------------------------------------------

/** A contract call reverted; `data` is the revert payload (Error(string) for a reason). */
export class ExecutionReverted extends Error {
  constructor(
    readonly data: Hex,
    readonly reason?: string,
  ) {
    super(reason ? `execution reverted: ${reason}` : "execution reverted");
    this.name = "ExecutionReverted";
  }
}

const errorStringAbi = parseAbi(["error Error(string)"]);

/** Revert with a Solidity `require` reason string. */
export function revert(reason: string): never {
  throw new ExecutionReverted(encodeErrorResult({ abi: errorStringAbi, errorName: "Error", args: [reason] }), reason);
}

export interface SimLog {
  address: Address;
  topics: Hex[];
  data: Hex;
}

/** What a simulated contract sees of one call. */
export interface CallFrame {
  readonly chain: SimulatedChain;
  /** msg.sender */
  readonly sender: Address;
  /** address(this) */
  readonly self: Address;
  readonly value: bigint;
  readonly data: Hex;
  readonly blockNumber: bigint;
  readonly timestamp: bigint;
  readonly baseFeePerGas: bigint;
  /** Logs of this call so far; they reach the receipt only if the whole transaction succeeds. */
  readonly logs: SimLog[];
  /** Emits a log from address(this). */
  emit(log: { topics: Hex[]; data: Hex }): void;
}

/**
 * A contract implemented in TypeScript. Later devnet work adds contracts with
 * SimulatedChain.deployContract; state must be restorable so that reverted
 * calls, eth_call and eth_estimateGas leave no trace.
 */
export interface SimulatedContract {
  /** What eth_getCode answers; must be non-empty. */
  readonly code: Hex;
  /** Runs a call and returns ABI-encoded return data, or throws ExecutionReverted. */
  call(frame: CallFrame): Promise<Hex>;
  /** Approximate execution gas of a call beyond the intrinsic cost. */
  executionGas(data: Hex): bigint;
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}

/**
 * Placeholder bytecode for simulated contracts: a single INVALID opcode. The
 * behaviour lives in TypeScript; the code only has to show that a contract
 * is deployed (the x402 facilitator refuses assets without code).
 */
export const SIMULATED_CODE: Hex = "0xfe";

const lower = (a: string) => a.toLowerCase();

// ---------------------------------------------------------------------------
// USDC (FiatToken v2.2 subset: ERC-20 + EIP-3009)
// ---------------------------------------------------------------------------

export const usdcAbi = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function currency() view returns (string)",
  "function decimals() view returns (uint8)",
  "function version() view returns (string)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address account) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function CANCEL_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function transferFrom(address from, address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

const authorizationFields = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

const usdcTypes = {
  TransferWithAuthorization: authorizationFields,
  ReceiveWithAuthorization: authorizationFields,
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const typeHash = (s: string) => keccak256(toHex(s));

interface UsdcState {
  balances: Map<string, bigint>;
  allowances: Map<string, bigint>;
  /** `${authorizer}:${nonce}` (lower case) → used or canceled */
  authorizations: Set<string>;
  totalSupply: bigint;
}

export interface UsdcOptions {
  address: Address;
  name: string;
  version: string;
  symbol: string;
  decimals: number;
  chainId: number;
}

/** USDC with FiatToken v2.2's EIP-3009 semantics and revert strings (no pause or blacklist). */
export class SimulatedUsdc implements SimulatedContract {
  readonly code = SIMULATED_CODE;
  private state: UsdcState = { balances: new Map(), allowances: new Map(), authorizations: new Set(), totalSupply: 0n };
  private readonly domain: { name: string; version: string; chainId: number; verifyingContract: Address };

  constructor(readonly options: UsdcOptions) {
    this.domain = {
      name: options.name,
      version: options.version,
      chainId: options.chainId,
      verifyingContract: options.address,
    };
  }

  balanceOf(address: string): bigint {
    return this.state.balances.get(lower(address)) ?? 0n;
  }

  authorizationState(authorizer: string, nonce: Hex): boolean {
    return this.state.authorizations.has(`${lower(authorizer)}:${lower(nonce)}`);
  }

  get totalSupply(): bigint {
    return this.state.totalSupply;
  }

  /** Devnet faucet: creates tokens out of thin air (no event; genesis allocation style). */
  mint(address: string, amount: bigint): void {
    if (amount < 0n) throw new Error("mint amount must be non-negative");
    this.state.balances.set(lower(address), this.balanceOf(address) + amount);
    this.state.totalSupply += amount;
  }

  snapshot(): UsdcState {
    return {
      balances: new Map(this.state.balances),
      allowances: new Map(this.state.allowances),
      authorizations: new Set(this.state.authorizations),
      totalSupply: this.state.totalSupply,
    };
  }

  restore(snapshot: unknown): void {
    this.state = snapshot as UsdcState;
  }

  executionGas(data: Hex): bigint {
    const selector = data.slice(0, 10);
    const fn = this.selectorNames.get(selector);
    switch (fn) {
      case "transferWithAuthorization":
      case "receiveWithAuthorization":
        return 60_000n;
      case "cancelAuthorization":
        return 35_000n;
      case "transfer":
      case "transferFrom":
      case "approve":
        return 30_000n;
      default:
        return 3_000n;
    }
  }

  private readonly selectorNames = new Map<string, string>(
    usdcAbi
      .filter((item) => item.type === "function")
      .map((item) => {
        const sig = `${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
        return [keccak256(toHex(sig)).slice(0, 10), item.name] as const;
      }),
  );

  async call(frame: CallFrame): Promise<Hex> {
    if (frame.value !== 0n) throw new ExecutionReverted("0x");
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: usdcAbi, data: frame.data });
    } catch {
      // Unknown selector or malformed arguments: FiatToken has no fallback.
      throw new ExecutionReverted("0x");
    }
    const result = (functionName: string, value: unknown): Hex =>
      encodeFunctionResult({ abi: usdcAbi as Abi, functionName, result: value });

    switch (decoded.functionName) {
      case "name":
        return result("name", this.options.name);
      case "symbol":
        return result("symbol", this.options.symbol);
      case "currency":
        return result("currency", "USD");
      case "decimals":
        return result("decimals", this.options.decimals);
      case "version":
        return result("version", this.options.version);
      case "totalSupply":
        return result("totalSupply", this.state.totalSupply);
      case "balanceOf":
        return result("balanceOf", this.balanceOf(decoded.args[0]));
      case "allowance":
        return result("allowance", this.state.allowances.get(`${lower(decoded.args[0])}:${lower(decoded.args[1])}`) ?? 0n);
      case "DOMAIN_SEPARATOR":
        return result("DOMAIN_SEPARATOR", domainSeparator({ domain: this.domain }));
      case "TRANSFER_WITH_AUTHORIZATION_TYPEHASH":
        return result(
          "TRANSFER_WITH_AUTHORIZATION_TYPEHASH",
          typeHash(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        );
      case "RECEIVE_WITH_AUTHORIZATION_TYPEHASH":
        return result(
          "RECEIVE_WITH_AUTHORIZATION_TYPEHASH",
          typeHash(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        );
      case "CANCEL_AUTHORIZATION_TYPEHASH":
        return result("CANCEL_AUTHORIZATION_TYPEHASH", typeHash("CancelAuthorization(address authorizer,bytes32 nonce)"));
      case "authorizationState":
        return result("authorizationState", this.authorizationState(decoded.args[0], decoded.args[1]));
      case "transfer": {
        this.transfer(frame, frame.sender, decoded.args[0], decoded.args[1]);
        return result("transfer", true);
      }
      case "approve": {
        const [spender, value] = decoded.args;
        if (lower(spender) === lower(ZERO_ADDRESS)) revert("ERC20: approve to the zero address");
        this.state.allowances.set(`${lower(frame.sender)}:${lower(spender)}`, value);
        this.emit(frame, "Approval", { owner: frame.sender, spender }, encodeAbiParameters([{ type: "uint256" }], [value]));
        return result("approve", true);
      }
      case "transferFrom": {
        const [from, to, value] = decoded.args;
        const key = `${lower(from)}:${lower(frame.sender)}`;
        const allowed = this.state.allowances.get(key) ?? 0n;
        if (value > allowed) revert("ERC20: transfer amount exceeds allowance");
        this.transfer(frame, from, to, value);
        this.state.allowances.set(key, allowed - value);
        return result("transferFrom", true);
      }
      case "transferWithAuthorization":
      case "receiveWithAuthorization": {
        const args = decoded.args;
        const [from, to, value, validAfter, validBefore, nonce] = args;
        const signature = args.length === 9 ? packSignature(args[6], args[7], args[8]) : args[6];
        const primaryType =
          decoded.functionName === "transferWithAuthorization" ? "TransferWithAuthorization" : "ReceiveWithAuthorization";
        if (primaryType === "ReceiveWithAuthorization" && lower(to) !== lower(frame.sender)) {
          revert("FiatTokenV2: caller must be the payee");
        }
        // Order and messages as in FiatTokenV2_2._transferWithAuthorization.
        if (!(frame.timestamp > validAfter)) revert("FiatTokenV2: authorization is not yet valid");
        if (!(frame.timestamp < validBefore)) revert("FiatTokenV2: authorization is expired");
        this.requireUnused(from, nonce);
        const digest = hashTypedData({
          domain: this.domain,
          types: usdcTypes,
          primaryType,
          message: { from, to, value, validAfter, validBefore, nonce },
        });
        await this.requireValidSignature(frame, from, digest, signature);
        this.state.authorizations.add(`${lower(from)}:${lower(nonce)}`);
        this.emit(frame, "AuthorizationUsed", { authorizer: from, nonce }, "0x");
        this.transfer(frame, from, to, value);
        return "0x";
      }
      case "cancelAuthorization": {
        const args = decoded.args;
        const [authorizer, nonce] = args;
        const signature = args.length === 5 ? packSignature(args[2], args[3], args[4]) : args[2];
        this.requireUnused(authorizer, nonce);
        const digest = hashTypedData({
          domain: this.domain,
          types: usdcTypes,
          primaryType: "CancelAuthorization",
          message: { authorizer, nonce },
        });
        await this.requireValidSignature(frame, authorizer, digest, signature);
        this.state.authorizations.add(`${lower(authorizer)}:${lower(nonce)}`);
        this.emit(frame, "AuthorizationCanceled", { authorizer, nonce }, "0x");
        return "0x";
      }
    }
  }

  private requireUnused(authorizer: Address, nonce: Hex): void {
    if (this.authorizationState(authorizer, nonce)) revert("FiatTokenV2: authorization is used or canceled");
  }

  /** SignatureChecker.isValidSignatureNow: ECRecover for EOAs; contracts here implement no EIP-1271. */
  private async requireValidSignature(frame: CallFrame, signer: Address, digest: Hex, signature: Hex): Promise<void> {
    if (frame.chain.getCode(signer) !== "0x") revert("FiatTokenV2: invalid signature");
    if (size(signature) !== 65) revert("ECRecover: invalid signature length");
    const s = hexToBigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130, 132), 16);
    if (s > SECP256K1_HALF_N) revert("ECRecover: invalid signature 's' value");
    if (v !== 27 && v !== 28) revert("ECRecover: invalid signature 'v' value");
    let recovered: Address;
    try {
      recovered = await recoverAddress({ hash: digest, signature });
    } catch {
      revert("ECRecover: invalid signature");
    }
    if (lower(recovered) !== lower(signer)) revert("FiatTokenV2: invalid signature");
  }

  private transfer(frame: CallFrame, from: Address, to: Address, value: bigint): void {
    if (lower(from) === lower(ZERO_ADDRESS)) revert("ERC20: transfer from the zero address");
    if (lower(to) === lower(ZERO_ADDRESS)) revert("ERC20: transfer to the zero address");
    const balance = this.balanceOf(from);
    if (value > balance) revert("ERC20: transfer amount exceeds balance");
    this.state.balances.set(lower(from), balance - value);
    this.state.balances.set(lower(to), this.balanceOf(to) + value);
    this.emit(frame, "Transfer", { from, to }, encodeAbiParameters([{ type: "uint256" }], [value]));
  }

  private emit(
    frame: CallFrame,
    eventName: "Transfer" | "Approval" | "AuthorizationUsed" | "AuthorizationCanceled",
    indexed: Record<string, unknown>,
    data: Hex,
  ): void {
    const topics = encodeEventTopics({ abi: usdcAbi as Abi, eventName, args: indexed }) as Hex[];
    frame.emit({ topics, data });
  }
}

function packSignature(v: number, r: Hex, s: Hex): Hex {
  return concat([r, s, numberToHex(v, { size: 1 })]);
}

// ---------------------------------------------------------------------------
// Multicall3
// ---------------------------------------------------------------------------

export const multicall3Abi = parseAbi([
  "struct Call { address target; bytes callData; }",
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate(Call[] calls) payable returns (uint256 blockNumber, bytes[] returnData)",
  "function tryAggregate(bool requireSuccess, Call[] calls) payable returns (Result[] returnData)",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getBlockNumber() view returns (uint256 blockNumber)",
  "function getCurrentBlockTimestamp() view returns (uint256 timestamp)",
  "function getChainId() view returns (uint256 chainid)",
  "function getBasefee() view returns (uint256 basefee)",
  "function getEthBalance(address addr) view returns (uint256 balance)",
]);

/** Multicall3's batching entry points; each sub-call is a CALL with msg.sender = Multicall3. */
export class SimulatedMulticall3 implements SimulatedContract {
  readonly code = SIMULATED_CODE;
  snapshot(): null {
    return null;
  }
  restore(): void {}
  executionGas(data: Hex): bigint {
    return 5_000n + BigInt(size(data)) * 10n;
  }

  async call(frame: CallFrame): Promise<Hex> {
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: multicall3Abi, data: frame.data });
    } catch {
      throw new ExecutionReverted("0x");
    }
    const sub = async (target: Address, data: Hex) => {
      try {
        return { success: true, returnData: await frame.chain.innerCall(frame, target, data) };
      } catch (err) {
        if (err instanceof ExecutionReverted) return { success: false, returnData: err.data };
        throw err;
      }
    };
    switch (decoded.functionName) {
      case "aggregate": {
        const out: Hex[] = [];
        for (const c of decoded.args[0]) {
          const r = await sub(c.target, c.callData);
          if (!r.success) revert("Multicall3: call failed");
          out.push(r.returnData);
        }
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate", result: [frame.blockNumber, out] });
      }
      case "tryAggregate": {
        const [requireSuccess, calls] = decoded.args;
        const out = [];
        for (const c of calls) {
          const r = await sub(c.target, c.callData);
          if (requireSuccess && !r.success) revert("Multicall3: call failed");
          out.push(r);
        }
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "tryAggregate", result: out });
      }
      case "aggregate3": {
        const out = [];
        for (const c of decoded.args[0]) {
          const r = await sub(c.target, c.callData);
          if (!c.allowFailure && !r.success) revert("Multicall3: call failed");
          out.push(r);
        }
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", result: out });
      }
      case "getBlockNumber":
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "getBlockNumber", result: frame.blockNumber });
      case "getCurrentBlockTimestamp":
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "getCurrentBlockTimestamp", result: frame.timestamp });
      case "getChainId":
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "getChainId", result: BigInt(frame.chain.chainId) });
      case "getBasefee":
        return encodeFunctionResult({ abi: multicall3Abi, functionName: "getBasefee", result: frame.baseFeePerGas });
      case "getEthBalance":
        return encodeFunctionResult({
          abi: multicall3Abi,
          functionName: "getEthBalance",
          result: frame.chain.ethBalanceOf(decoded.args[0]),
        });
    }
  }
}

// ---------------------------------------------------------------------------
// Chain: blocks, transactions, receipts
// ---------------------------------------------------------------------------

export interface SimBlock {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  timestamp: bigint;
  baseFeePerGas: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  transactions: Hex[];
  logsBloom: Hex;
}

export interface SimReceiptLog extends SimLog {
  logIndex: number;
}

export interface SimTransaction {
  hash: Hex;
  type: "legacy" | "eip2930" | "eip1559" | "eip4844" | "eip7702";
  from: Address;
  to: Address;
  nonce: number;
  gas: bigint;
  value: bigint;
  input: Hex;
  chainId: number;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList: readonly { address: Address; storageKeys: readonly Hex[] }[];
  r: Hex;
  s: Hex;
  v: bigint;
  yParity: number;
  blockNumber: bigint;
  blockHash: Hex;
  transactionIndex: number;
  effectiveGasPrice: bigint;
  status: "success" | "reverted";
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  logs: SimReceiptLog[];
  logsBloom: Hex;
  /** Revert reason when status is reverted (for debugging; not part of the receipt). */
  revertReason?: string;
}

/** A JSON-RPC error as the node answers it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Hex,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

interface ChainState {
  eth: Map<string, bigint>;
  contracts: Map<string, unknown>;
}

export interface SimulatedChainOptions {
  chainId?: number;
  clock?: Clock;
  /** 0 (default): mine only when a transaction arrives. >0: also mine empty blocks as the clock advances. */
  blockTimeSeconds?: number;
}

/** The chain state machine, independent of the HTTP transport. */
export class SimulatedChain {
  readonly chainId: number;
  readonly clock: Clock;
  readonly blockTimeSeconds: bigint;
  private readonly contracts = new Map<string, SimulatedContract>();
  private eth = new Map<string, bigint>();
  private readonly nonces = new Map<string, number>();
  readonly blocks: SimBlock[] = [];
  private readonly blocksByHash = new Map<string, SimBlock>();
  private readonly txs = new Map<string, SimTransaction>();

  constructor(options: SimulatedChainOptions = {}) {
    this.chainId = options.chainId ?? DEVNET_CHAIN_ID;
    this.clock = options.clock ?? systemClock;
    this.blockTimeSeconds = BigInt(options.blockTimeSeconds ?? 0);
    this.pushBlock({ timestamp: this.nowSeconds(), transactions: [], gasUsed: 0n, logsBloom: bytesToHex(new Uint8Array(256)) });
  }

  // -- state access ---------------------------------------------------------

  deployContract(address: Address, contract: SimulatedContract): void {
    if (this.contracts.has(lower(address))) throw new Error(`a contract is already deployed at ${address}`);
    if (!contract.code || contract.code === "0x") throw new Error("a simulated contract needs non-empty code");
    this.contracts.set(lower(address), contract);
  }

  getCode(address: string): Hex {
    return this.contracts.get(lower(address))?.code ?? "0x";
  }

  ethBalanceOf(address: string): bigint {
    return this.eth.get(lower(address)) ?? DEVNET_DEFAULT_ETH_BALANCE;
  }

  transactionCount(address: string): number {
    return this.nonces.get(lower(address)) ?? 0;
  }

  get latest(): SimBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  getTransaction(hash: string): SimTransaction | undefined {
    return this.txs.get(lower(hash));
  }

  private nowSeconds(): bigint {
    return BigInt(Math.floor(this.clock.now() / 1000));
  }

  /** Timestamp the next block gets: the clock, but never before the latest block. */
  pendingTimestamp(): bigint {
    const now = this.nowSeconds();
    return now > this.latest.timestamp ? now : this.latest.timestamp;
  }

  /** EIP-1559 base fee of the next block, floored at MIN_BASE_FEE. */
  nextBaseFee(): bigint {
    const parent = this.latest;
    const target = parent.gasLimit / 2n;
    let fee = parent.baseFeePerGas;
    if (parent.gasUsed > target) {
      const delta = (parent.baseFeePerGas * (parent.gasUsed - target)) / target / 8n;
      fee += delta > 0n ? delta : 1n;
    } else if (parent.gasUsed < target) {
      fee -= (parent.baseFeePerGas * (target - parent.gasUsed)) / target / 8n;
    }
    return fee < MIN_BASE_FEE ? MIN_BASE_FEE : fee;
  }

  private snapshotState(): ChainState {
    const contracts = new Map<string, unknown>();
    for (const [addr, c] of this.contracts) contracts.set(addr, c.snapshot());
    return { eth: new Map(this.eth), contracts };
  }

  private restoreState(state: ChainState): void {
    this.eth = state.eth;
    for (const [addr, snap] of state.contracts) this.contracts.get(addr)!.restore(snap);
  }

  // -- execution ------------------------------------------------------------

  private async execute(
    msg: { from: Address; to: Address; value: bigint; data: Hex },
    env: { blockNumber: bigint; timestamp: bigint; baseFeePerGas: bigint },
    logs: SimLog[],
  ): Promise<Hex> {
    const contract = this.contracts.get(lower(msg.to));
    const saved = this.snapshotState();
    try {
      if (msg.value > 0n) {
        const balance = this.ethBalanceOf(msg.from);
        if (balance < msg.value) throw new ExecutionReverted("0x", "insufficient balance for transfer");
        this.eth.set(lower(msg.from), balance - msg.value);
        this.eth.set(lower(msg.to), this.ethBalanceOf(msg.to) + msg.value);
      }
      if (!contract) return "0x";
      const frameLogs: SimLog[] = [];
      const self = getAddress(msg.to);
      const frame: CallFrame = {
        chain: this,
        sender: msg.from,
        self,
        value: msg.value,
        data: msg.data,
        ...env,
        logs: frameLogs,
        emit: (log) => frameLogs.push({ address: self, topics: log.topics, data: log.data }),
      };
      const out = await contract.call(frame);
      logs.push(...frameLogs);
      return out;
    } catch (err) {
      this.restoreState(saved);
      throw err;
    }
  }

  /** A CALL from inside a simulated contract (e.g. Multicall3); reverts roll back only the sub-call. */
  async innerCall(parent: CallFrame, target: Address, data: Hex): Promise<Hex> {
    // The sub-call's logs join the parent's only if the sub-call succeeds (execute pushes on success).
    return this.execute(
      { from: parent.self, to: target, value: 0n, data },
      { blockNumber: parent.blockNumber, timestamp: parent.timestamp, baseFeePerGas: parent.baseFeePerGas },
      parent.logs,
    );
  }

  /** eth_call: runs against the pending block context and discards every state change. */
  async simulate(msg: { from: Address; to: Address; value: bigint; data: Hex }): Promise<{ returnData: Hex; logs: SimLog[] }> {
    const saved = this.snapshotState();
    const logs: SimLog[] = [];
    try {
      const returnData = await this.execute(msg, this.pendingEnv(), logs);
      return { returnData, logs };
    } finally {
      this.restoreState(saved);
    }
  }

  pendingEnv(): { blockNumber: bigint; timestamp: bigint; baseFeePerGas: bigint } {
    return { blockNumber: this.latest.number + 1n, timestamp: this.pendingTimestamp(), baseFeePerGas: this.nextBaseFee() };
  }

  intrinsicGas(data: Hex): bigint {
    let gas = 21_000n;
    for (const byte of hexToBytes(data)) gas += byte === 0 ? 4n : 16n;
    return gas;
  }

  gasFor(to: Address, data: Hex): bigint {
    const contract = this.contracts.get(lower(to));
    return this.intrinsicGas(data) + (contract ? contract.executionGas(data) : 0n);
  }

  /** Validates, executes and mines a signed transaction. Returns its hash. */
  async sendRawTransaction(raw: Hex): Promise<Hex> {
    let parsed;
    let from: Address;
    try {
      parsed = parseTransaction(raw as TransactionSerialized);
      from = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    } catch (err) {
      throw new RpcError(-32000, `invalid transaction: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    }
    const hash = keccak256(raw);
    if (this.txs.has(hash)) throw new RpcError(-32000, "already known");
    const type = parsed.type ?? "legacy";
    if (type === "eip4844" || type === "eip7702") throw new RpcError(-32000, `transaction type ${type} not supported`);
    if (parsed.chainId === undefined) {
      throw new RpcError(-32000, "only replay-protected (EIP-155) transactions allowed over RPC");
    }
    if (parsed.chainId !== this.chainId) {
      throw new RpcError(-32000, `invalid chain id for signer: have ${parsed.chainId} want ${this.chainId}`);
    }
    if (!parsed.to) throw new RpcError(-32000, "contract creation is not supported by the devnet");
    const nonce = parsed.nonce ?? 0;
    const expected = this.transactionCount(from);
    if (nonce < expected) throw new RpcError(-32000, `nonce too low: next nonce ${expected}, tx nonce ${nonce}`);
    if (nonce > expected) {
      throw new RpcError(-32000, `nonce too high: next nonce ${expected}, tx nonce ${nonce} (the devnet has no mempool)`);
    }
    const gas = parsed.gas ?? 0n;
    const data = parsed.data ?? "0x";
    const value = parsed.value ?? 0n;
    if (gas < this.intrinsicGas(data)) throw new RpcError(-32000, "intrinsic gas too low");
    if (gas > BLOCK_GAS_LIMIT) throw new RpcError(-32000, "exceeds block gas limit");

    this.catchUp();
    const env = this.pendingEnv();
    let feeCap: bigint;
    let effectiveGasPrice: bigint;
    if (type === "eip1559") {
      const maxFee = parsed.maxFeePerGas ?? 0n;
      const tip = parsed.maxPriorityFeePerGas ?? 0n;
      if (tip > maxFee) throw new RpcError(-32000, "max priority fee per gas higher than max fee per gas");
      if (maxFee < env.baseFeePerGas) {
        throw new RpcError(-32000, `max fee per gas less than block base fee: maxFeePerGas: ${maxFee}, baseFee: ${env.baseFeePerGas}`);
      }
      feeCap = maxFee;
      effectiveGasPrice = env.baseFeePerGas + tip < maxFee ? env.baseFeePerGas + tip : maxFee;
    } else {
      const gasPrice = parsed.gasPrice ?? 0n;
      if (gasPrice < env.baseFeePerGas) {
        throw new RpcError(-32000, `transaction underpriced: gasPrice ${gasPrice}, baseFee ${env.baseFeePerGas}`);
      }
      feeCap = gasPrice;
      effectiveGasPrice = gasPrice;
    }
    const balance = this.ethBalanceOf(from);
    if (balance < gas * feeCap + value) {
      throw new RpcError(-32000, `insufficient funds for gas * price + value: balance ${balance}, tx cost ${gas * feeCap + value}`);
    }

    // Accepted: the nonce is consumed and gas is paid whether or not the call reverts.
    this.nonces.set(lower(from), expected + 1);
    const to = getAddress(parsed.to);
    const needed = this.gasFor(to, data);
    const logs: SimLog[] = [];
    let status: "success" | "reverted" = "success";
    let gasUsed = needed;
    let revertReason: string | undefined;
    if (gas < needed) {
      status = "reverted";
      gasUsed = gas;
      revertReason = "out of gas";
    } else {
      try {
        await this.execute({ from, to, value, data }, env, logs);
      } catch (err) {
        if (!(err instanceof ExecutionReverted)) throw err;
        status = "reverted";
        revertReason = err.reason ?? "execution reverted";
        logs.length = 0;
      }
    }
    this.eth.set(lower(from), this.ethBalanceOf(from) - gasUsed * effectiveGasPrice);

    const receiptLogs = logs.map((log, i) => ({ ...log, logIndex: i }));
    const logsBloom = bloomOf(receiptLogs);
    const block = this.pushBlock({ timestamp: env.timestamp, transactions: [hash], gasUsed, logsBloom });
    const yParity =
      parsed.yParity ?? (parsed.v === undefined ? 0 : parsed.v === 27n || parsed.v === 28n ? Number(parsed.v - 27n) : Number((parsed.v - 35n) % 2n));
    this.txs.set(hash, {
      hash,
      type,
      from,
      to,
      nonce,
      gas,
      value,
      input: data,
      chainId: parsed.chainId,
      gasPrice: parsed.gasPrice,
      maxFeePerGas: parsed.maxFeePerGas,
      maxPriorityFeePerGas: parsed.maxPriorityFeePerGas,
      accessList: "accessList" in parsed && parsed.accessList ? parsed.accessList : [],
      r: parsed.r ?? ZERO_HASH,
      s: parsed.s ?? ZERO_HASH,
      v: parsed.v ?? BigInt(yParity),
      yParity,
      blockNumber: block.number,
      blockHash: block.hash,
      transactionIndex: 0,
      effectiveGasPrice,
      status,
      gasUsed,
      cumulativeGasUsed: gasUsed,
      logs: receiptLogs,
      logsBloom,
      revertReason,
    });
    return hash;
  }

  /** eth_estimateGas: the gas model's figure, or the revert the call would hit. */
  async estimateGas(msg: { from: Address; to: Address; value: bigint; data: Hex }): Promise<bigint> {
    await this.simulate(msg);
    return this.gasFor(msg.to, msg.data);
  }

  /** Mines one empty block now (tests and callers that want block numbers to move). */
  mine(): SimBlock {
    return this.pushBlock({
      timestamp: this.pendingTimestamp(),
      transactions: [],
      gasUsed: 0n,
      logsBloom: bytesToHex(new Uint8Array(256)),
    });
  }

  /** Interval mining, done lazily: materialise the empty blocks the clock says should exist. */
  catchUp(): void {
    if (this.blockTimeSeconds <= 0n) return;
    const now = this.nowSeconds();
    const due = (now - this.latest.timestamp) / this.blockTimeSeconds;
    if (due <= 0n) return;
    const start = this.latest.timestamp;
    const count = due > MAX_CATCH_UP_BLOCKS ? MAX_CATCH_UP_BLOCKS : due;
    for (let i = 1n; i <= count; i++) {
      // If the gap was larger than the cap, the last block jumps to the due time.
      const step = i === count ? due : i;
      this.pushBlock({
        timestamp: start + step * this.blockTimeSeconds,
        transactions: [],
        gasUsed: 0n,
        logsBloom: bytesToHex(new Uint8Array(256)),
      });
    }
  }

  private pushBlock(b: { timestamp: bigint; transactions: Hex[]; gasUsed: bigint; logsBloom: Hex }): SimBlock {
    const parent = this.blocks[this.blocks.length - 1];
    const number = parent ? parent.number + 1n : 0n;
    const parentHash = parent ? parent.hash : ZERO_HASH;
    const baseFeePerGas = parent ? this.nextBaseFee() : MIN_BASE_FEE;
    // Not an RLP header hash: a deterministic digest of the fields that make the block unique.
    const hash = keccak256(
      encodeAbiParameters(
        [{ type: "uint256" }, { type: "bytes32" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes32[]" }, { type: "uint256" }],
        [BigInt(this.chainId), parentHash, number, b.timestamp, b.transactions, baseFeePerGas],
      ),
    );
    const block: SimBlock = {
      number,
      hash,
      parentHash,
      timestamp: b.timestamp,
      baseFeePerGas,
      gasLimit: BLOCK_GAS_LIMIT,
      gasUsed: b.gasUsed,
      transactions: b.transactions,
      logsBloom: b.logsBloom,
    };
    this.blocks.push(block);
    this.blocksByHash.set(hash, block);
    return block;
  }

  blockByNumber(n: bigint): SimBlock | undefined {
    if (n < 0n || n >= BigInt(this.blocks.length)) return undefined;
    return this.blocks[Number(n)];
  }

  blockByHash(hash: string): SimBlock | undefined {
    return this.blocksByHash.get(lower(hash));
  }
}

/** The 2048-bit logs bloom of the yellow paper (M3:2048 over address and topics). */
function bloomOf(logs: readonly SimLog[]): Hex {
  const bloom = new Uint8Array(256);
  const add = (item: Hex) => {
    const h = hexToBytes(keccak256(item));
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const log of logs) {
    add(log.address);
    for (const t of log.topics) add(t);
  }
  return bytesToHex(bloom);
}

// ---------------------------------------------------------------------------
// JSON-RPC
// ---------------------------------------------------------------------------

const q = (n: bigint | number) => numberToHex(n);

function param<T>(params: unknown[], i: number, check: (v: unknown) => v is T, what: string): T {
  const v = params[i];
  if (!check(v)) throw new RpcError(-32602, `invalid argument ${i}: expected ${what}`);
  return v;
}
const isAddr = (v: unknown): v is Address => typeof v === "string" && isAddress(v, { strict: false });
const isHexStr = (v: unknown): v is Hex => typeof v === "string" && isHex(v, { strict: true });
const isHash = (v: unknown): v is Hex => isHexStr(v) && v.length === 66;
const isQuantity = (v: unknown): v is Hex => typeof v === "string" && /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v);

interface CallObject {
  from?: unknown;
  to?: unknown;
  data?: unknown;
  input?: unknown;
  value?: unknown;
}

function callMessage(raw: unknown): { from: Address; to: Address; value: bigint; data: Hex } {
  if (!raw || typeof raw !== "object") throw new RpcError(-32602, "invalid argument 0: expected a call object");
  const o = raw as CallObject;
  if (o.to === undefined || o.to === null) throw new RpcError(-32000, "contract creation is not supported by the devnet");
  if (!isAddr(o.to)) throw new RpcError(-32602, "invalid argument 0: bad 'to' address");
  if (o.from !== undefined && o.from !== null && !isAddr(o.from)) throw new RpcError(-32602, "invalid argument 0: bad 'from' address");
  const data = o.input ?? o.data ?? "0x";
  if (!isHexStr(data) || (data.length - 2) % 2 !== 0) throw new RpcError(-32602, "invalid argument 0: bad call data");
  let value = 0n;
  if (o.value !== undefined && o.value !== null) {
    if (!isQuantity(o.value)) throw new RpcError(-32602, "invalid argument 0: bad value");
    value = hexToBigInt(o.value);
  }
  return { from: getAddress(isAddr(o.from) ? o.from : ZERO_ADDRESS), to: getAddress(o.to), value, data };
}

function revertToRpc(err: unknown): never {
  if (err instanceof ExecutionReverted) {
    throw new RpcError(3, err.message, err.data);
  }
  throw err;
}

function formatBlock(chain: SimulatedChain, b: SimBlock, full: boolean): Record<string, unknown> {
  return {
    number: q(b.number),
    hash: b.hash,
    parentHash: b.parentHash,
    nonce: "0x0000000000000000",
    sha3Uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    logsBloom: b.logsBloom,
    transactionsRoot: b.transactions.length ? keccak256(concat(b.transactions)) : "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    stateRoot: keccak256(concat([b.hash, "0x01"])),
    receiptsRoot: b.transactions.length ? keccak256(concat([...b.transactions, "0x02"])) : "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    miner: COINBASE,
    difficulty: "0x0",
    totalDifficulty: "0x0",
    extraData: "0x",
    size: q(1000 + 200 * b.transactions.length),
    gasLimit: q(b.gasLimit),
    gasUsed: q(b.gasUsed),
    timestamp: q(b.timestamp),
    baseFeePerGas: q(b.baseFeePerGas),
    mixHash: ZERO_HASH,
    withdrawals: [],
    withdrawalsRoot: "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
    transactions: full ? b.transactions.map((h) => formatTx(chain.getTransaction(h)!)) : b.transactions,
    uncles: [],
  };
}

const txTypeHex: Record<SimTransaction["type"], Hex> = {
  legacy: "0x0",
  eip2930: "0x1",
  eip1559: "0x2",
  eip4844: "0x3",
  eip7702: "0x4",
};

function formatTx(t: SimTransaction): Record<string, unknown> {
  return {
    hash: t.hash,
    type: txTypeHex[t.type],
    blockHash: t.blockHash,
    blockNumber: q(t.blockNumber),
    transactionIndex: q(t.transactionIndex),
    from: t.from,
    to: t.to,
    nonce: q(t.nonce),
    gas: q(t.gas),
    value: q(t.value),
    input: t.input,
    chainId: q(t.chainId),
    gasPrice: q(t.effectiveGasPrice),
    ...(t.type === "eip1559"
      ? { maxFeePerGas: q(t.maxFeePerGas ?? 0n), maxPriorityFeePerGas: q(t.maxPriorityFeePerGas ?? 0n) }
      : {}),
    ...(t.type !== "legacy" ? { accessList: t.accessList, yParity: q(t.yParity) } : {}),
    v: q(t.v),
    r: t.r,
    s: t.s,
  };
}

function formatLog(t: SimTransaction, log: SimReceiptLog): Record<string, unknown> {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: q(t.blockNumber),
    blockHash: t.blockHash,
    transactionHash: t.hash,
    transactionIndex: q(t.transactionIndex),
    logIndex: q(log.logIndex),
    removed: false,
  };
}

function formatReceipt(t: SimTransaction): Record<string, unknown> {
  return {
    transactionHash: t.hash,
    transactionIndex: q(t.transactionIndex),
    blockHash: t.blockHash,
    blockNumber: q(t.blockNumber),
    from: t.from,
    to: t.to,
    contractAddress: null,
    cumulativeGasUsed: q(t.cumulativeGasUsed),
    gasUsed: q(t.gasUsed),
    effectiveGasPrice: q(t.effectiveGasPrice),
    logs: t.logs.map((l) => formatLog(t, l)),
    logsBloom: t.logsBloom,
    status: t.status === "success" ? "0x1" : "0x0",
    type: txTypeHex[t.type],
  };
}

function resolveBlock(chain: SimulatedChain, tag: unknown): SimBlock | undefined {
  if (tag === undefined || tag === null || tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") {
    return chain.latest;
  }
  if (tag === "earliest") return chain.blocks[0];
  if (isQuantity(tag)) return chain.blockByNumber(hexToBigInt(tag));
  if (typeof tag === "object") {
    const o = tag as { blockNumber?: unknown; blockHash?: unknown };
    if (isQuantity(o.blockNumber)) return chain.blockByNumber(hexToBigInt(o.blockNumber));
    if (isHash(o.blockHash)) return chain.blockByHash(o.blockHash);
  }
  throw new RpcError(-32602, "invalid block tag");
}

/** Historical state is not kept: reads answer from the latest state, for any existing block. */
function requireBlock(chain: SimulatedChain, tag: unknown): SimBlock {
  const b = resolveBlock(chain, tag);
  if (!b) throw new RpcError(-32000, "header not found");
  return b;
}

type Handler = (params: unknown[]) => Promise<unknown> | unknown;

function handlers(chain: SimulatedChain): Record<string, Handler> {
  return {
    web3_clientVersion: () => "vigil-devnet-evm/0.1",
    net_version: () => String(chain.chainId),
    net_listening: () => true,
    net_peerCount: () => "0x0",
    eth_chainId: () => q(chain.chainId),
    eth_syncing: () => false,
    eth_mining: () => true,
    eth_accounts: () => [],
    eth_coinbase: () => COINBASE,
    eth_blockNumber: () => q(chain.latest.number),
    eth_gasPrice: () => q(chain.nextBaseFee() + PRIORITY_FEE),
    eth_maxPriorityFeePerGas: () => q(PRIORITY_FEE),
    eth_blobBaseFee: () => "0x1",
    eth_getBalance: (p) => {
      const a = param(p, 0, isAddr, "address");
      requireBlock(chain, p[1]);
      return q(chain.ethBalanceOf(a));
    },
    eth_getTransactionCount: (p) => {
      const a = param(p, 0, isAddr, "address");
      requireBlock(chain, p[1]);
      return q(chain.transactionCount(a));
    },
    eth_getCode: (p) => {
      const a = param(p, 0, isAddr, "address");
      requireBlock(chain, p[1]);
      return chain.getCode(a);
    },
    eth_getBlockByNumber: (p) => {
      const b = resolveBlock(chain, p[0]);
      return b ? formatBlock(chain, b, p[1] === true) : null;
    },
    eth_getBlockByHash: (p) => {
      const b = chain.blockByHash(param(p, 0, isHash, "block hash"));
      return b ? formatBlock(chain, b, p[1] === true) : null;
    },
    eth_getBlockTransactionCountByNumber: (p) => {
      const b = resolveBlock(chain, p[0]);
      return b ? q(b.transactions.length) : null;
    },
    eth_call: async (p) => {
      const msg = callMessage(p[0]);
      requireBlock(chain, p[1]);
      try {
        return (await chain.simulate(msg)).returnData;
      } catch (err) {
        return revertToRpc(err);
      }
    },
    eth_estimateGas: async (p) => {
      const msg = callMessage(p[0]);
      try {
        return q(await chain.estimateGas(msg));
      } catch (err) {
        return revertToRpc(err);
      }
    },
    eth_sendRawTransaction: (p) => chain.sendRawTransaction(param(p, 0, isHexStr, "signed transaction bytes")),
    eth_sendTransaction: () => {
      throw new RpcError(-32000, "unknown account: the devnet holds no keys; sign locally and use eth_sendRawTransaction");
    },
    eth_getTransactionByHash: (p) => {
      const t = chain.getTransaction(param(p, 0, isHash, "transaction hash"));
      return t ? formatTx(t) : null;
    },
    eth_getTransactionReceipt: (p) => {
      const t = chain.getTransaction(param(p, 0, isHash, "transaction hash"));
      return t ? formatReceipt(t) : null;
    },
    eth_getBlockReceipts: (p) => {
      const b = resolveBlock(chain, p[0]);
      return b ? b.transactions.map((h) => formatReceipt(chain.getTransaction(h)!)) : null;
    },
    eth_feeHistory: (p) => {
      const countRaw = p[0];
      let count: bigint;
      if (typeof countRaw === "number" && Number.isInteger(countRaw)) count = BigInt(countRaw);
      else if (isQuantity(countRaw)) count = hexToBigInt(countRaw);
      else throw new RpcError(-32602, "invalid argument 0: expected a block count");
      if (count < 1n) throw new RpcError(-32602, "invalid argument 0: block count must be positive");
      if (count > 1024n) count = 1024n;
      const newest = requireBlock(chain, p[1]);
      const percentiles = Array.isArray(p[2]) ? (p[2] as unknown[]) : undefined;
      const oldest = newest.number - count + 1n < 0n ? 0n : newest.number - count + 1n;
      const blocks = chain.blocks.slice(Number(oldest), Number(newest.number) + 1);
      const nextFee = newest.number === chain.latest.number ? chain.nextBaseFee() : chain.blockByNumber(newest.number + 1n)!.baseFeePerGas;
      return {
        oldestBlock: q(oldest),
        baseFeePerGas: [...blocks.map((b) => q(b.baseFeePerGas)), q(nextFee)],
        gasUsedRatio: blocks.map((b) => Number(b.gasUsed) / Number(b.gasLimit)),
        ...(percentiles
          ? {
              reward: blocks.map((b) =>
                percentiles.map(() => {
                  // Every devnet transaction pays at most the suggested tip; empty blocks report zero.
                  const tips = b.transactions.map((h) => {
                    const t = chain.getTransaction(h)!;
                    return t.effectiveGasPrice - b.baseFeePerGas;
                  });
                  return q(tips.length ? tips.reduce((a, c) => (c < a ? c : a)) : 0n);
                }),
              ),
            }
          : {}),
      };
    },
    eth_getLogs: (p) => {
      const f = (p[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown; address?: unknown; topics?: unknown; blockHash?: unknown };
      let from: SimBlock;
      let to: SimBlock;
      if (f.blockHash !== undefined) {
        const b = chain.blockByHash(param([f.blockHash], 0, isHash, "block hash"));
        if (!b) throw new RpcError(-32000, "unknown block");
        from = b;
        to = b;
      } else {
        from = requireBlock(chain, f.fromBlock ?? "latest");
        to = requireBlock(chain, f.toBlock ?? "latest");
      }
      if (to.number - from.number > MAX_LOG_RANGE) throw new RpcError(-32005, `block range exceeds ${MAX_LOG_RANGE}`);
      const addresses =
        f.address === undefined || f.address === null
          ? undefined
          : (Array.isArray(f.address) ? f.address : [f.address]).map((a) => {
              if (!isAddr(a)) throw new RpcError(-32602, "invalid address in filter");
              return lower(a);
            });
      const topics = Array.isArray(f.topics) ? (f.topics as unknown[]) : [];
      const out: Record<string, unknown>[] = [];
      for (let n = from.number; n <= to.number; n++) {
        for (const h of chain.blockByNumber(n)!.transactions) {
          const t = chain.getTransaction(h)!;
          for (const log of t.logs) {
            if (addresses && !addresses.includes(lower(log.address))) continue;
            const match = topics.every((want, i) => {
              if (want === null || want === undefined) return true;
              const options = Array.isArray(want) ? want : [want];
              return log.topics[i] !== undefined && options.some((o) => typeof o === "string" && lower(o) === log.topics[i]);
            });
            if (match) out.push(formatLog(t, log));
          }
        }
      }
      return out;
    },
  };
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: unknown; result: unknown }
  | { jsonrpc: "2.0"; id: unknown; error: { code: number; message: string; data?: unknown } };

// ---------------------------------------------------------------------------
// HTTP server
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
  usdcBalanceOf(address: string): bigint;
  /** Devnet faucet: credit USDC to any address. */
  mintUsdc(address: string, amount: bigint): void;
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
  const perAccount = options.usdcPerAccount ?? DEVNET_USDC_PER_ACCOUNT;
  for (const a of accounts) usdc.mint(a.address, perAccount);

  const table = handlers(chain);
  // One request at a time, like a single-threaded node: execution awaits signature recovery,
  // and state snapshots must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const answer = async (req: unknown): Promise<JsonRpcResponse | undefined> => {
    if (!req || typeof req !== "object" || Array.isArray(req)) {
      return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } };
    }
    const r = req as JsonRpcRequest;
    const isNotification = !("id" in r);
    const id = r.id ?? null;
    if (typeof r.method !== "string") {
      return { jsonrpc: "2.0", id, error: { code: -32600, message: "invalid request: missing method" } };
    }
    const params = r.params === undefined ? [] : r.params;
    if (!Array.isArray(params)) {
      return { jsonrpc: "2.0", id, error: { code: -32602, message: "params must be an array" } };
    }
    try {
      onRequest?.(r.method, params);
    } catch {
      // An observer's failure must not change what the node answers.
    }
    const handler = Object.prototype.hasOwnProperty.call(table, r.method) ? table[r.method] : undefined;
    if (!handler) {
      return isNotification
        ? undefined
        : { jsonrpc: "2.0", id, error: { code: -32601, message: `the method ${r.method} does not exist/is not available` } };
    }
    try {
      const result = await serial(async () => {
        chain.catchUp();
        return handler(params);
      });
      return isNotification ? undefined : { jsonrpc: "2.0", id, result };
    } catch (err) {
      if (isNotification) return undefined;
      if (err instanceof RpcError) {
        return { jsonrpc: "2.0", id, error: { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) } };
      }
      return { jsonrpc: "2.0", id, error: { code: -32603, message: `internal error: ${err instanceof Error ? err.message : String(err)}` } };
    }
  };

  const server = http.createServer((req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "content-type");
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST, OPTIONS", "content-type": "text/plain" }).end("JSON-RPC over POST only\n");
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        tooLarge = true;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      void (async () => {
        const send = (status: number, body: unknown) => {
          if (body === undefined) {
            res.writeHead(status === 200 ? 204 : status).end();
            return;
          }
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        };
        if (tooLarge) {
          send(413, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "request body too large" } });
          return;
        }
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          send(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
          return;
        }
        if (Array.isArray(body)) {
          if (body.length === 0 || body.length > MAX_BATCH) {
            send(200, { jsonrpc: "2.0", id: null, error: { code: -32600, message: `batch must hold 1..${MAX_BATCH} requests` } });
            return;
          }
          const out: JsonRpcResponse[] = [];
          for (const item of body) {
            const r = await answer(item);
            if (r) out.push(r);
          }
          send(200, out.length ? out : undefined);
          return;
        }
        send(200, await answer(body));
      })().catch((err: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain" }).end(err instanceof Error ? err.message : String(err));
        }
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    chainId: DEVNET_CHAIN_ID,
    usdcAddress: DEVNET_USDC_ADDRESS,
    accounts,
    chain,
    usdc,
    usdcBalanceOf: (addr) => usdc.balanceOf(addr),
    mintUsdc: (addr, amount) => usdc.mint(addr, amount),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
