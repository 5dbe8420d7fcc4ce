/**
 * Simulated ERC3009DepositCollector of x402's batch-settlement scheme, and
 * the ERC-20 calls both it and the escrow make, as Solidity and
 * OpenZeppelin's SafeERC20 make them.
 *
 * The collector pulls a deposit for the escrow it is bound to: only that
 * escrow may call `collect` (OnlyX402BatchSettlement() otherwise). It
 * decodes `collectorData` as (validAfter, validBefore, salt, signature),
 * derives the ERC-3009 nonce keccak256(abi.encode(channelId, salt)), has
 * the token run receiveWithAuthorization from the payer to itself (the token
 * requires the caller to be the payee, hence the hop), then sends the amount
 * on to the escrow. It keeps no state; a revert anywhere reverts the deposit.
 */
import {
  type Abi,
  type Address,
  type Hex,
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  encodeFunctionResult,
  hexToBigInt,
  keccak256,
  parseAbi,
  size,
} from "viem";
import { type CallFrame, ExecutionReverted, type SimulatedContract, SIMULATED_CODE, lower } from "./evm-contract.js";

export const depositCollectorAbi = parseAbi([
  "function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData)",
  "function x402BatchSettlement() view returns (address)",
  "error OnlyX402BatchSettlement()",
  "error InvalidX402BatchSettlementAddress()",
  "error SafeERC20FailedOperation(address token)",
]);

/** What the escrow and the collector call on a token. */
const tokenAbi = parseAbi([
  "function balanceOf(address account) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

const collectorDataLayout = [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }] as const;

/** Revert with a custom error of `abi` (4-byte selector and its arguments). */
export function revertWith(abi: Abi, errorName: string, args: readonly unknown[] = []): never {
  throw new ExecutionReverted(encodeErrorResult({ abi, errorName, args }), errorName);
}

/**
 * A high-level Solidity call to a function that returns nothing: the callee
 * must have code (else an empty revert), and its revert is bubbled as is.
 */
export async function callWithoutResult(frame: CallFrame, target: Address, data: Hex): Promise<void> {
  if (frame.chain.getCode(target) === "0x") throw new ExecutionReverted("0x");
  await frame.chain.innerCall(frame, target, data);
}

/** IERC20(token).balanceOf(holder) as Solidity calls it: too short an answer fails to decode (an empty revert). */
export async function tokenBalanceOf(frame: CallFrame, token: Address, holder: Address): Promise<bigint> {
  const out = await frame.chain.innerCall(frame, token, encodeFunctionData({ abi: tokenAbi, functionName: "balanceOf", args: [holder] }));
  if (size(out) < 32) throw new ExecutionReverted("0x");
  return hexToBigInt(`0x${out.slice(2, 66)}`);
}

const TRUE_WORD = encodeAbiParameters([{ type: "bool" }], [true]);

/**
 * SafeERC20.safeTransfer: a reverting token's revert data is bubbled; a
 * token that answers `true`, or answers nothing but has code, succeeded;
 * anything else is SafeERC20FailedOperation(token).
 */
export async function safeTransfer(frame: CallFrame, token: Address, to: Address, value: bigint): Promise<void> {
  const out = await frame.chain.innerCall(frame, token, encodeFunctionData({ abi: tokenAbi, functionName: "transfer", args: [to, value] }));
  if (size(out) >= 32 && lower(out.slice(0, 66)) === TRUE_WORD) return;
  if (size(out) === 0 && frame.chain.getCode(token) !== "0x") return;
  revertWith(depositCollectorAbi, "SafeERC20FailedOperation", [token]);
}

/** The ERC-3009 collector bound to one escrow (its constructor argument on the real chain). */
export class SimulatedErc3009DepositCollector implements SimulatedContract {
  readonly code = SIMULATED_CODE;

  constructor(readonly escrow: Address) {}

  snapshot(): null {
    return null;
  }
  restore(): void {}

  /** The receiveWithAuthorization and transfer it makes are counted in the escrow's deposit gas; a direct call is this much. */
  executionGas(): bigint {
    return 2_500n;
  }

  async call(frame: CallFrame): Promise<Hex> {
    if (frame.value !== 0n) throw new ExecutionReverted("0x");
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: depositCollectorAbi, data: frame.data });
    } catch {
      throw new ExecutionReverted("0x");
    }
    if (decoded.functionName === "x402BatchSettlement") {
      return encodeFunctionResult({ abi: depositCollectorAbi, functionName: "x402BatchSettlement", result: this.escrow });
    }
    await this.collect(frame, decoded.args);
    return "0x";
  }

  private async collect(frame: CallFrame, args: readonly [Address, Address, bigint, Hex, Hex]): Promise<void> {
    const [payer, token, amount, channelId, collectorData] = args;
    if (lower(frame.sender) !== lower(this.escrow)) revertWith(depositCollectorAbi, "OnlyX402BatchSettlement");
    let validAfter: bigint, validBefore: bigint, salt: bigint, signature: Hex;
    try {
      [validAfter, validBefore, salt, signature] = decodeAbiParameters(collectorDataLayout, collectorData);
    } catch {
      // abi.decode of malformed bytes reverts without data.
      throw new ExecutionReverted("0x");
    }
    const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [channelId, salt]));
    const pull = encodeFunctionData({
      abi: tokenAbi,
      functionName: "receiveWithAuthorization",
      args: [payer, frame.self, amount, validAfter, validBefore, nonce, signature],
    });
    await callWithoutResult(frame, token, pull);
    await safeTransfer(frame, token, this.escrow, amount);
  }
}
