/**
 * The chain state machine of the simulated EVM, independent of any
 * transport: ETH balances and nonces, deployed simulated contracts, blocks
 * with EIP-1559 base fees, transactions and receipts with logs blooms.
 * Signed transactions are validated (chain id, nonce, fee cap, gas funds),
 * executed and mined at once, one block per transaction (automine); with a
 * block time, empty blocks appear as the injected clock advances. Every
 * state change of a call is snapshotted first and restored if it reverts.
 */
import {
  type Address,
  type Hex,
  encodeAbiParameters,
  getAddress,
  hexToBytes,
  keccak256,
  bytesToHex,
} from "viem";
import { type Clock, systemClock } from "../src/core/clock.js";
import { JsonRpcError } from "./jsonrpc-server.js";
import { type CallFrame, type ContractHost, ExecutionReverted, type SimLog, type SimulatedContract, lower } from "./evm-contract.js";
import { DEVNET_CHAIN_ID, DEVNET_DEFAULT_ETH_BALANCE } from "./evm-network.js";
import { checkEnvelope, decodeSignedTransaction, priceTransaction, yParityOf } from "./evm-tx.js";

/** Gas limit of every block; one transaction may use all of it. */
export const BLOCK_GAS_LIMIT = 30_000_000n;
/** Floor of the EIP-1559 base fee (0.001 gwei, Base Sepolia's usual level). */
const MIN_BASE_FEE = 1_000_000n;
export const ZERO_HASH: Hex = `0x${"00".repeat(32)}`;
/** Base's sequencer fee vault, reported as the miner of every block. */
export const COINBASE: Address = "0x4200000000000000000000000000000000000011";
/** At most this many empty blocks are materialised when interval mining catches up with the clock. */
const MAX_CATCH_UP_BLOCKS = 256n;

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

interface ChainState {
  eth: Map<string, bigint>;
  contracts: Map<string, unknown>;
}

/** A signed transaction's fields once its envelope is checked. */
interface PendingTx {
  from: Address;
  to: Address;
  nonce: number;
  gas: bigint;
  data: Hex;
  value: bigint;
}

/** What executing a transaction came to. */
interface TxOutcome {
  status: "success" | "reverted";
  gasUsed: bigint;
  revertReason?: string;
  logs: SimLog[];
}

export interface SimulatedChainOptions {
  chainId?: number;
  clock?: Clock;
  /** 0 (default): mine only when a transaction arrives. >0: also mine empty blocks as the clock advances. */
  blockTimeSeconds?: number;
}

/** The chain state machine, independent of the HTTP transport. */
export class SimulatedChain implements ContractHost {
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
    const { hash, from, parsed } = await decodeSignedTransaction(raw);
    if (this.txs.has(hash)) throw new JsonRpcError(-32000, "already known");
    const { type, chainId, to } = checkEnvelope(parsed, this.chainId);
    const tx = { from, to, nonce: parsed.nonce ?? 0, gas: parsed.gas ?? 0n, data: parsed.data ?? "0x", value: parsed.value ?? 0n };
    this.checkNonceAndGas(tx);
    this.catchUp();
    const env = this.pendingEnv();
    const { feeCap, effectiveGasPrice } = priceTransaction(parsed, type, env.baseFeePerGas);
    const balance = this.ethBalanceOf(from);
    if (balance < tx.gas * feeCap + tx.value) {
      throw new JsonRpcError(-32000, `insufficient funds for gas * price + value: balance ${balance}, tx cost ${tx.gas * feeCap + tx.value}`);
    }

    // Accepted: the nonce is consumed and gas is paid whether or not the call reverts.
    this.nonces.set(lower(from), tx.nonce + 1);
    const outcome = await this.runTransaction(tx, env);
    this.eth.set(lower(from), this.ethBalanceOf(from) - outcome.gasUsed * effectiveGasPrice);

    const receiptLogs = outcome.logs.map((log, i) => ({ ...log, logIndex: i }));
    const logsBloom = bloomOf(receiptLogs);
    const block = this.pushBlock({ timestamp: env.timestamp, transactions: [hash], gasUsed: outcome.gasUsed, logsBloom });
    const yParity = yParityOf(parsed);
    this.txs.set(hash, {
      hash,
      type,
      from,
      to,
      nonce: tx.nonce,
      gas: tx.gas,
      value: tx.value,
      input: tx.data,
      chainId,
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
      status: outcome.status,
      gasUsed: outcome.gasUsed,
      cumulativeGasUsed: outcome.gasUsed,
      logs: receiptLogs,
      logsBloom,
      revertReason: outcome.revertReason,
    });
    return hash;
  }

  /** The nonce must be the sender's next one (no mempool holds later ones) and the gas must fit the data and a block. */
  private checkNonceAndGas(tx: PendingTx): void {
    const expected = this.transactionCount(tx.from);
    if (tx.nonce < expected) throw new JsonRpcError(-32000, `nonce too low: next nonce ${expected}, tx nonce ${tx.nonce}`);
    if (tx.nonce > expected) {
      throw new JsonRpcError(-32000, `nonce too high: next nonce ${expected}, tx nonce ${tx.nonce} (the devnet has no mempool)`);
    }
    if (tx.gas < this.intrinsicGas(tx.data)) throw new JsonRpcError(-32000, "intrinsic gas too low");
    if (tx.gas > BLOCK_GAS_LIMIT) throw new JsonRpcError(-32000, "exceeds block gas limit");
  }

  /** Executes an accepted transaction: out of gas or a revert keeps no logs and no state change but the gas. */
  private async runTransaction(tx: PendingTx, env: { blockNumber: bigint; timestamp: bigint; baseFeePerGas: bigint }): Promise<TxOutcome> {
    const needed = this.gasFor(tx.to, tx.data);
    if (tx.gas < needed) return { status: "reverted", gasUsed: tx.gas, revertReason: "out of gas", logs: [] };
    const logs: SimLog[] = [];
    try {
      await this.execute({ from: tx.from, to: tx.to, value: tx.value, data: tx.data }, env, logs);
      return { status: "success", gasUsed: needed, logs };
    } catch (err) {
      if (!(err instanceof ExecutionReverted)) throw err;
      return { status: "reverted", gasUsed: needed, revertReason: err.reason ?? "execution reverted", logs: [] };
    }
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
