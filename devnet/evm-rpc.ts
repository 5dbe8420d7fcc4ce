/**
 * Ethereum JSON-RPC methods of the simulated node (eth_*, net_version,
 * web3_clientVersion …) over a SimulatedChain: parameter checks with the
 * error codes geth uses, quantities and blocks/transactions/receipts/logs
 * formatted as a real node formats them, reverts turned into error 3 with
 * the revert data.
 */
import {
  type Address,
  type Hex,
  concat,
  getAddress,
  hexToBigInt,
  isAddress,
  isHex,
  keccak256,
  numberToHex,
  size,
} from "viem";
import { JsonRpcError } from "./jsonrpc-server.js";
import { ExecutionReverted, ZERO_ADDRESS, lower } from "./evm-contract.js";
import { COINBASE, ZERO_HASH, type SimBlock, type SimReceiptLog, type SimTransaction, type SimulatedChain } from "./evm-chain.js";

/** What eth_maxPriorityFeePerGas suggests (0.001 gwei). */
const PRIORITY_FEE = 1_000_000n;
/** Widest block range one eth_getLogs may ask for. */
const MAX_LOG_RANGE = 10_000n;

const q = (n: bigint | number) => numberToHex(n);

function param<T>(params: unknown[], i: number, check: (v: unknown) => v is T, what: string): T {
  const v = params[i];
  if (!check(v)) throw new JsonRpcError(-32602, `invalid argument ${i}: expected ${what}`);
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
  if (!raw || typeof raw !== "object") throw new JsonRpcError(-32602, "invalid argument 0: expected a call object");
  const o = raw as CallObject;
  if (o.to === undefined || o.to === null) throw new JsonRpcError(-32000, "contract creation is not supported by the devnet");
  if (!isAddr(o.to)) throw new JsonRpcError(-32602, "invalid argument 0: bad 'to' address");
  if (o.from !== undefined && o.from !== null && !isAddr(o.from)) throw new JsonRpcError(-32602, "invalid argument 0: bad 'from' address");
  const data = o.input ?? o.data ?? "0x";
  if (!isHexStr(data) || (data.length - 2) % 2 !== 0) throw new JsonRpcError(-32602, "invalid argument 0: bad call data");
  let value = 0n;
  if (o.value !== undefined && o.value !== null) {
    if (!isQuantity(o.value)) throw new JsonRpcError(-32602, "invalid argument 0: bad value");
    value = hexToBigInt(o.value);
  }
  return { from: getAddress(isAddr(o.from) ? o.from : ZERO_ADDRESS), to: getAddress(o.to), value, data };
}

function revertToRpc(err: unknown): never {
  if (err instanceof ExecutionReverted) {
    throw new JsonRpcError(3, err.message, err.data);
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
  throw new JsonRpcError(-32602, "invalid block tag");
}

/** Historical state is not kept: reads answer from the latest state, for any existing block. */
function requireBlock(chain: SimulatedChain, tag: unknown): SimBlock {
  const b = resolveBlock(chain, tag);
  if (!b) throw new JsonRpcError(-32000, "header not found");
  return b;
}

type Handler = (params: unknown[]) => Promise<unknown> | unknown;

/** The Ethereum JSON-RPC methods the node answers, over one chain. */
export function ethereumMethods(chain: SimulatedChain): Record<string, Handler> {
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
      throw new JsonRpcError(-32000, "unknown account: the devnet holds no keys; sign locally and use eth_sendRawTransaction");
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
      else throw new JsonRpcError(-32602, "invalid argument 0: expected a block count");
      if (count < 1n) throw new JsonRpcError(-32602, "invalid argument 0: block count must be positive");
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
        if (!b) throw new JsonRpcError(-32000, "unknown block");
        from = b;
        to = b;
      } else {
        from = requireBlock(chain, f.fromBlock ?? "latest");
        to = requireBlock(chain, f.toBlock ?? "latest");
      }
      if (to.number - from.number > MAX_LOG_RANGE) throw new JsonRpcError(-32005, `block range exceeds ${MAX_LOG_RANGE}`);
      const addresses =
        f.address === undefined || f.address === null
          ? undefined
          : (Array.isArray(f.address) ? f.address : [f.address]).map((a) => {
              if (!isAddr(a)) throw new JsonRpcError(-32602, "invalid address in filter");
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
