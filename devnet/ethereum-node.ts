/**
 * The devnet L1 node's state and its JSON-RPC answers (ethereum.ts serves
 * them): the blocks (ethereum-blocks.ts), the simulated contracts on one log
 * book (the lending markets of ethereum-lending.ts, the Comets of
 * ethereum-comet.ts, Morpho Blue of ethereum-morpho.ts), the flash-loan
 * contracts at their mainnet addresses, accounts and the counter-MEV
 * activity, and the test switches. One named function per method group:
 * blocks, eth_call (with Multicall3 aggregate3 over all of these), fee
 * history, balances per block, logs.
 *
 * eth_getBalance answers per block: the account's set balance plus what its
 * blocks paid it up to the asked block, so a balance difference across a
 * block is what that block paid; with a state history the node keeps state
 * for only the newest n blocks, as a pruned node does.
 */
import { decodeFunctionData, encodeFunctionResult, keccak256, parseAbi, toHex, type Hex } from "viem";
import { blobBaseFee, blobParamsAt, GAS_PER_BLOB, nextBaseFee, nextExcessBlobGas } from "../src/chains/ethereum/fees.js";
import {
  AAVE_V3_CORE_DATA_PROVIDER,
  ASSETS,
  DSS_FLASH,
  FLASHLOAN_PROVIDERS,
  SELECTOR_BALANCE_OF,
  SELECTOR_DSS_FLASH_MAX,
  SELECTOR_FLASHLOAN_PREMIUM_TOTAL,
  SELECTOR_GET_FLASHLOAN_ENABLED,
  SELECTOR_GET_PAUSED,
} from "../src/chains/ethereum/flashloans.js";
import { MULTICALL3 } from "../src/chains/ethereum/lending.js";
import { createDevnetAccounts, type DevnetAccounts } from "./ethereum-accounts.js";
import { createDevnetActivity, type DevnetActivity } from "./ethereum-activity.js";
import {
  blockJson,
  createL1Blocks,
  DEVNET_ETH_CHAIN_ID,
  headOf,
  hex,
  lookupBlock,
  SCHEDULE,
  txJson,
  type DevnetBlock,
  type L1Blocks,
} from "./ethereum-blocks.js";
import { createDevnetComet, type DevnetComet } from "./ethereum-comet.js";
import { createDevnetLending, type DevnetLending } from "./ethereum-lending.js";
import { createLogBook, logMatches, parseLogFilter, type DevnetLogBook } from "./ethereum-logs.js";
import { createDevnetMorpho, type DevnetMorpho } from "./ethereum-morpho.js";
import { JsonRpcError } from "./jsonrpc-server.js";

const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getCurrentBlockTimestamp() view returns (uint256 timestamp)",
  "function getBlockNumber() view returns (uint256 blockNumber)",
]);

const word = (v: bigint) => `0x${v.toString(16).padStart(64, "0")}`;
const e18 = 10n ** 18n;

type Methods = Record<string, (params: unknown[]) => unknown>;

export interface L1Node {
  chain: L1Blocks;
  /** The simulated contracts' events: a block's logs are the Pools', then the Comets', then Morpho's. */
  logBook: DevnetLogBook;
  lending: DevnetLending;
  comet: DevnetComet;
  morpho: DevnetMorpho;
  accounts: DevnetAccounts;
  activity: DevnetActivity;
  /** Flash-loan premium (bps) per Aave-like pool address. */
  premiums: Map<string, bigint>;
  /** Token balances, keyed "<token>:<holder>". */
  balances: Map<string, bigint>;
  /** Blocks of account state kept (null: an archive node). */
  stateHistory: number | null;
  /** Wei added to the next-block fees eth_feeHistory reports. */
  feeSkew: bigint;
  /** eth_getBlockByHash answers the parent of the block asked for. */
  wrongBlockByHash: boolean;
}

/** The node with its contracts and the flash-loan liquidity; no block yet. */
export function createL1Node(seed: number, blockSeconds: number): L1Node {
  const logBook = createLogBook();
  const lending = createDevnetLending({ seed, logs: logBook.sink() });
  const comet = createDevnetComet({ seed, logs: logBook.sink(), usdPrice: lending.price });
  const morpho = createDevnetMorpho({ seed, logs: logBook.sink(), usdPrice: lending.price });
  const premiums = new Map<string, bigint>();
  for (const p of FLASHLOAN_PROVIDERS) if (p.feeCall) premiums.set(p.feeCall.to, p.id === "sparklend" ? 0n : 5n);
  const accounts = createDevnetAccounts();
  const activity = createDevnetActivity(accounts, logBook.count);
  const node: L1Node = {
    chain: createL1Blocks(blockSeconds, seed, (b, quiet) => onBlock(node, b, quiet)),
    logBook,
    lending,
    comet,
    morpho,
    accounts,
    activity,
    premiums,
    balances: new Map(),
    stateHistory: null,
    feeSkew: 0n,
    wrongBlockByHash: false,
  };
  seedFlashLoanLiquidity(node);
  return node;
}

/** What a new block does to the rest of the node: its payment becomes a known transaction, the markets move (unless quiet), activity is recorded. */
function onBlock(node: L1Node, b: DevnetBlock, quiet: boolean): void {
  for (const t of b.transactions) node.accounts.markKnown(t.hash, txJson(b, t, 0));
  if (!quiet) {
    node.lending.onBlock();
    node.comet.onBlock();
    node.morpho.onBlock(b.timestamp);
    node.logBook.seal(b);
  }
  node.activity.record(b);
}

export function setTokenBalance(node: L1Node, symbol: string, holder: string, amount: bigint): void {
  const asset = ASSETS[symbol.toUpperCase()];
  if (!asset) throw new Error(`unknown asset ${symbol}`);
  node.balances.set(`${asset.address}:${holder.toLowerCase()}`, amount);
}

/** Zero-fee liquidity for the majors; GHO has none there, so only Aave lends it (at its premium). */
function seedFlashLoanLiquidity(node: L1Node): void {
  const holders = Object.fromEntries(
    FLASHLOAN_PROVIDERS.filter((p) => p.liquidity.kind === "balance").map((p) => [p.id, (p.liquidity as { holder: string }).holder]),
  );
  const set = (symbol: string, provider: string, amount: bigint) => setTokenBalance(node, symbol, holders[provider]!, amount);
  set("WETH", "balancer-v2", 4_200n * e18);
  set("WETH", "balancer-v3", 1_900n * e18);
  set("WETH", "uniswap-v4", 9_500n * e18);
  set("WETH", "morpho-blue", 31_000n * e18);
  set("USDC", "balancer-v2", 12_000_000n * 10n ** 6n);
  set("USDC", "uniswap-v4", 48_000_000n * 10n ** 6n);
  set("USDC", "morpho-blue", 310_000_000n * 10n ** 6n);
  set("WBTC", "morpho-blue", 4_100n * 10n ** 8n);
  set("USDT", "uniswap-v4", 22_000_000n * 10n ** 6n);
  set("WSTETH", "balancer-v2", 2_600n * e18);
  set("WSTETH", "morpho-blue", 51_000n * e18);
}

/** eth_call: Multicall3, the lending markets, the counter-MEV activity, then the flash-loan contracts and tokens. */
function ethCall(node: L1Node, params: unknown[]): string {
  const call = params[0] as { to?: unknown; data?: unknown; input?: unknown } | undefined;
  const to = typeof call?.to === "string" ? call.to.toLowerCase() : "";
  const data = String(call?.data ?? call?.input ?? "0x").toLowerCase();
  if (to === MULTICALL3) return multicall(node, data);
  const lent = node.lending.call(to, data) ?? node.comet.call(to, data) ?? node.morpho.call(to, data);
  if (lent !== undefined) return lent;
  const answered = node.activity.call(to, data);
  if (answered !== undefined) return answered;
  return flashLoanCall(node, to, data);
}

/** The flash-loan providers' views and the catalogued tokens' decimals and balances; "0x" for anything else. */
function flashLoanCall(node: L1Node, to: string, data: string): string {
  const selector = data.slice(0, 10);
  const arg = data.length >= 74 ? `0x${data.slice(34, 74)}` : "";
  if (selector === SELECTOR_FLASHLOAN_PREMIUM_TOTAL && node.premiums.has(to)) return word(node.premiums.get(to)!);
  if (to === AAVE_V3_CORE_DATA_PROVIDER && selector === SELECTOR_GET_FLASHLOAN_ENABLED) {
    return word(Object.values(ASSETS).some((a) => a.address === arg) ? 1n : 0n);
  }
  if (to === AAVE_V3_CORE_DATA_PROVIDER && selector === SELECTOR_GET_PAUSED) return word(0n);
  if (to === DSS_FLASH && selector === SELECTOR_DSS_FLASH_MAX) return word(500_000_000n * e18);
  // ERC-20 decimals() of the catalogued tokens.
  if (selector === "0x313ce567") {
    const asset = Object.values(ASSETS).find((a) => a.address === to);
    if (asset) return word(BigInt(asset.decimals));
  }
  if (selector === SELECTOR_BALANCE_OF && Object.values(ASSETS).some((a) => a.address === to)) {
    return word(node.balances.get(`${to}:${arg}`) ?? 0n);
  }
  // No code at that address (or an unknown function): empty return data, as a node answers.
  return "0x";
}

/**
 * Multicall3 at its canonical address: aggregate3, each sub-call answered as its own eth_call (a sub-call to
 * Multicall3 itself included), and its block views, of the head block that eth_call runs against.
 */
function multicall(node: L1Node, data: string): string {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi: multicall3Abi, data: data as Hex });
  } catch {
    throw new JsonRpcError(3, "execution reverted");
  }
  const head = headOf(node.chain);
  if (decoded.functionName === "getCurrentBlockTimestamp") return encodeFunctionResult({ abi: multicall3Abi, functionName: "getCurrentBlockTimestamp", result: BigInt(head.timestamp) });
  if (decoded.functionName === "getBlockNumber") return encodeFunctionResult({ abi: multicall3Abi, functionName: "getBlockNumber", result: head.number });
  const results = decoded.args[0].map((c) => {
    const returnData = ethCall(node, [{ to: c.target, data: c.callData }]) as Hex;
    return { success: true, returnData };
  });
  return encodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", result: results });
}

/** eth_feeHistory, with the next block's fees moved by the node's skew. */
function feeHistory(node: L1Node, p: unknown[]) {
  const { blocks, blockSeconds } = node.chain;
  const count = Number(BigInt(String(p[0])));
  const newest = lookupBlock(node.chain, p[1]);
  if (!newest || count < 1 || count > 1024) throw new JsonRpcError(-32602, "invalid fee history range");
  const first = blocks[0]!.number;
  const from = newest.number - BigInt(count) + 1n < first ? first : newest.number - BigInt(count) + 1n;
  const range = blocks.slice(Number(from - first), Number(newest.number - first) + 1);
  const childTs = newest.timestamp + blockSeconds;
  const childParams = blobParamsAt(SCHEDULE, childTs)!;
  const blobFee = (b: DevnetBlock) => blobBaseFee(b.excessBlobGas, blobParamsAt(SCHEDULE, b.timestamp)!);
  return {
    oldestBlock: hex(from),
    baseFeePerGas: [...range.map((b) => hex(b.baseFeePerGas)), hex(nextBaseFee(newest) + node.feeSkew)],
    gasUsedRatio: range.map((b) => Number(b.gasUsed) / Number(b.gasLimit)),
    baseFeePerBlobGas: [...range.map((b) => hex(blobFee(b))), hex(blobBaseFee(nextExcessBlobGas(newest, childParams), childParams) + node.feeSkew)],
    blobGasUsedRatio: range.map((b) => Number(b.blobGasUsed) / Number(BigInt(blobParamsAt(SCHEDULE, b.timestamp)!.maxBlobs) * GAS_PER_BLOB)),
  };
}

/** eth_getBalance at a block: the set balance plus what blocks up to it credited; refused below a pruned node's history. */
function getBalance(node: L1Node, p: unknown[]): string {
  const b = lookupBlock(node.chain, p[1] ?? "latest");
  if (!b) throw new JsonRpcError(-32000, "header not found");
  const head = headOf(node.chain);
  // A pruned node keeps the state of its newest blocks only (geth's wording).
  if (node.stateHistory !== null && head.number - b.number >= BigInt(node.stateHistory)) {
    throw new JsonRpcError(-32000, `missing trie node ${keccak256(toHex(`state:${b.number}`))} (path ) state ${b.hash} is not available`);
  }
  const address = String(p[0]);
  let wei = BigInt(node.accounts.methods.eth_getBalance!([address]) as string);
  const who = address.toLowerCase();
  for (const block of node.chain.blocks) {
    if (block.number > b.number) break;
    wei += block.credits.get(who) ?? 0n;
  }
  return hex(wei);
}

/** The simulated contracts' log book over a block range; ranges above 5,000 blocks are refused as public nodes do. */
function contractLogs(node: L1Node, p: unknown[], filter: ReturnType<typeof parseLogFilter>) {
  const f = (p[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
  const from = lookupBlock(node.chain, f.fromBlock ?? "latest");
  const to = lookupBlock(node.chain, f.toBlock ?? "latest");
  if (!from || !to) return [];
  if (to.number - from.number > 5_000n) throw new JsonRpcError(-32005, "query exceeds max block range 5000");
  return node.logBook.query({ from: from.number, to: to.number, ...filter }).map((l) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: hex(l.blockNumber),
    blockHash: l.blockHash,
    transactionHash: l.transactionHash,
    transactionIndex: hex(l.transactionIndex),
    logIndex: hex(l.logIndex),
    removed: false,
  }));
}

/** eth_getLogs: the simulated contracts' events and the approvals of the counter-MEV activity, under one filter, in block and log order. */
function getLogs(node: L1Node, p: unknown[]) {
  type Log = { address: string; topics: string[]; blockNumber?: string; logIndex?: string };
  const n = (v: string | undefined) => BigInt(v ?? 0);
  const filter = parseLogFilter((p[0] ?? {}) as { address?: unknown; topics?: unknown });
  const approvals = (node.activity.methods.eth_getLogs(p) as Log[]).filter((l) => logMatches(l, filter));
  const all = [...(contractLogs(node, p, filter) as Log[]), ...approvals];
  return all.sort((a, b) => Number(n(a.blockNumber) - n(b.blockNumber)) || Number(n(a.logIndex) - n(b.logIndex)));
}

/** The chain id and the block reads. */
function blockMethods(node: L1Node): Methods {
  return {
    eth_chainId: () => hex(DEVNET_ETH_CHAIN_ID),
    net_version: () => String(DEVNET_ETH_CHAIN_ID),
    eth_blockNumber: () => hex(headOf(node.chain).number),
    eth_getBlockByNumber: (p) => {
      const b = lookupBlock(node.chain, p[0]);
      return b ? blockJson(b, p[1] === true) : null;
    },
    eth_getBlockByHash: (p) => {
      const asked = node.chain.byHash.get(String(p[0]).toLowerCase());
      const b = asked && node.wrongBlockByHash ? node.chain.byHash.get(asked.parentHash) : asked;
      return b ? blockJson(b, p[1] === true) : null;
    },
  };
}

/** Every method the node answers; later groups override earlier ones' names (balances and logs per block win). */
export function l1Methods(node: L1Node): Methods {
  return {
    ...blockMethods(node),
    eth_call: (p) => ethCall(node, p),
    eth_feeHistory: (p) => feeHistory(node, p),
    ...node.accounts.methods,
    ...node.activity.methods,
    eth_getBalance: (p) => getBalance(node, p),
    eth_getLogs: (p) => getLogs(node, p),
  };
}
