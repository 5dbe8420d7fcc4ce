/**
 * Simulated Multicall3 at its canonical address: aggregate, tryAggregate,
 * aggregate3 and friends, each sub-call a real CALL through the chain (so
 * msg.sender is Multicall3 and a failing sub-call reverts only itself when
 * failure is allowed). viem's multicall batching talks to it unmodified.
 */
import {
  type Address,
  type Hex,
  decodeFunctionData,
  encodeFunctionResult,
  parseAbi,
  size,
} from "viem";
import { type CallFrame, ExecutionReverted, type SimulatedContract, SIMULATED_CODE, revert } from "./evm-contract.js";

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
