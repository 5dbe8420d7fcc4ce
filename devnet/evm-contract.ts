/**
 * The execution model of the simulated EVM: contracts are TypeScript
 * objects behind the `SimulatedContract` interface; a call sees a
 * `CallFrame`, emits logs through it, and fails by throwing
 * `ExecutionReverted` with the exact revert data a Solidity contract would
 * return. State must be restorable so that reverted calls leave no trace.
 */
import {
  type Address,
  type Hex,
  encodeErrorResult,
  parseAbi,
} from "viem";

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

/**
 * What a contract may ask of the chain it runs on. `SimulatedChain` implements
 * it; the contract model names only this much, so it does not import the chain.
 */
export interface ContractHost {
  readonly chainId: number;
  getCode(address: string): Hex;
  ethBalanceOf(address: string): bigint;
  /** A CALL from inside a contract; reverts roll back only the sub-call. */
  innerCall(parent: CallFrame, target: Address, data: Hex): Promise<Hex>;
}

/** What a simulated contract sees of one call. */
export interface CallFrame {
  readonly chain: ContractHost;
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

/** Map keys are lower-case addresses and hashes. */
export const lower = (a: string) => a.toLowerCase();

/** The zero address (mint source, burn target, "no recipient"). */
export const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";
