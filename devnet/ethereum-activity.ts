/**
 * Token approvals and failing bots on the devnet's Ethereum L1: every block
 * carries a few ERC-20 Approval events (owners from a pool of 120, tokens at
 * their mainnet addresses, spenders mostly well-known routers, now and then a
 * risky one: the exploited Sushi RouteProcessor2, a deprecated router, two
 * drainer EOAs) and, often, reverted transactions of five bots (plain
 * reverts, out-of-gas, two bots racing for the same target in one block).
 * Each block's activity is a pure function of its number and hash, so a
 * devnet's history is reproducible; it is generated when first asked for. It answers eth_getLogs (the Approval
 * topic), eth_getBlockReceipts, allowance(owner, spender) on the tokens
 * (about a third of the finite approvals have been spent since), and
 * Chainlink's ETH/USD latestRoundData; the bots' transactions are known to
 * eth_getTransactionByHash with their gas limit.
 */
import { createHash } from "node:crypto";
import { keccak256, toHex } from "viem";
import { APPROVAL_TOPIC, CHAINLINK_ETH_USD, SELECTOR_ALLOWANCE, SELECTOR_LATEST_ROUND_DATA } from "../src/chains/ethereum/approvals.js";
import { ASSETS } from "../src/chains/ethereum/flashloans.js";
import type { DevnetAccounts } from "./ethereum-accounts.js";
import { JsonRpcError } from "./jsonrpc-server.js";

const addr = (label: string) => `0x${keccak256(toHex(label)).slice(-40)}`;

/** The devnet's spenders: address, whether it has code, and how often it is approved. */
export const DEVNET_SPENDERS = {
  universalRouter: { address: "0x66a9893cc07d91d95644aedd05d03f95e1dba8af", code: true, weight: 40 },
  permit2: { address: "0x000000000022d473030f116ddee9f6b43ac78ba3", code: true, weight: 30 },
  oneInch: { address: "0x111111125421ca6dc452d289314280a0f8842a65", code: true, weight: 15 },
  sushiRp2: { address: "0x044b75f554b886a065b9567891e45c79542d7357", code: true, weight: 4 },
  deprecatedRouter: { address: addr("devnet:deprecated-router"), code: true, weight: 3 },
  drainerListed: { address: addr("devnet:drainer-listed"), code: false, weight: 4 },
  drainerUnlisted: { address: addr("devnet:drainer-unlisted"), code: false, weight: 4 },
} as const;
/** A token on the devnet's risk list. */
export const DEVNET_RISKY_TOKEN = addr("devnet:risky-token");
const TOKENS = [ASSETS.WETH!.address, ASSETS.USDC!.address, ASSETS.USDT!.address, ASSETS.DAI!.address, DEVNET_RISKY_TOKEN];
const OWNERS = Array.from({ length: 120 }, (_, i) => addr(`devnet:owner:${i}`));
export const DEVNET_BOTS = Array.from({ length: 5 }, (_, i) => addr(`devnet:bot:${i}`));
const BOT_TARGETS = Array.from({ length: 3 }, (_, i) => addr(`devnet:mev-target:${i}`));
const MAX = 2n ** 256n - 1n;
/** ETH/USD the devnet's Chainlink aggregator answers (8 decimals). */
export const DEVNET_ETH_USD = 3_012.5;

/** The devnet's risk list file (written by the devnet, named in RISK_LISTS). */
export const DEVNET_RISK_LIST = {
  name: "devnet-risk-list",
  source: "vigil devnet",
  entries: [
    { address: DEVNET_SPENDERS.drainerListed.address, kind: "spender", factors: ["blocklist"], label: "devnet drainer" },
    { address: DEVNET_SPENDERS.deprecatedRouter.address, kind: "spender", factors: ["deprecated", "closed_source"], label: "devnet deprecated router" },
    { address: DEVNET_RISKY_TOKEN, kind: "token", factors: ["phishing_risk"], label: "devnet look-alike token" },
  ],
};

interface Block {
  number: bigint;
  hash: string;
  timestamp: number;
  baseFeePerGas: bigint;
}

interface Activity {
  logs: Record<string, unknown>[];
  receipts: Record<string, unknown>[];
}

export interface DevnetActivity {
  /** Generates (or regenerates, after a reorg) the activity of a block. */
  record(b: Block): void;
  /** An eth_call it answers, or undefined. */
  call(to: string, data: string): string | undefined;
  methods: Record<string, (params: unknown[]) => unknown>;
}

const hex = (v: bigint | number) => `0x${v.toString(16)}`;
const word = (v: bigint) => v.toString(16).padStart(64, "0");

/**
 * `logsBefore(n)`: how many logs (each its own transaction) block n already
 * holds in the L1's log book; this block's approvals and failed transactions
 * are numbered after them.
 */
export function createDevnetActivity(accounts: DevnetAccounts, logsBefore: (block: bigint) => number = () => 0): DevnetActivity {
  // Blocks are only noted when produced (a devnet whose clock jumps ahead produces many at once);
  // a block's activity is generated the first time it is asked for, then kept.
  const blocks = new Map<bigint, Block>();
  const byBlock = new Map<bigint, Activity>();
  /** token:owner:spender → the newest generated approval's block and the allowance left. */
  const allowances = new Map<string, { block: bigint; value: bigint }>();
  let headTimestamp = 0;
  for (const s of Object.values(DEVNET_SPENDERS)) if (s.code) accounts.setCode(s.address, "0x6080604052");
  const spenders = Object.values(DEVNET_SPENDERS);
  const totalWeight = spenders.reduce((a, s) => a + s.weight, 0);

  const record = (b: Block) => {
    headTimestamp = Math.max(headTimestamp, b.timestamp);
    blocks.set(b.number, { number: b.number, hash: b.hash, timestamp: b.timestamp, baseFeePerGas: b.baseFeePerGas });
    byBlock.delete(b.number);
  };

  const activityOf = (num: bigint): Activity | undefined => {
    const cached = byBlock.get(num);
    if (cached) return cached;
    const b = blocks.get(num);
    if (!b) return undefined;
    const h = (label: string) => createHash("sha256").update(`${b.hash}:${label}`).digest();
    const u = (label: string) => h(label).readUInt32BE(0) / 2 ** 32;
    const logs: Record<string, unknown>[] = [];
    const receipts: Record<string, unknown>[] = [];
    const first = logsBefore(b.number);
    let txIndex = first;
    const common = { blockNumber: hex(b.number), blockHash: b.hash };
    const n = Math.floor(u("count") * 4);
    for (let i = 0; i < n; i++) {
      const owner = OWNERS[Math.floor(u(`owner:${i}`) * OWNERS.length)]!;
      const token = TOKENS[Math.floor(u(`token:${i}`) * TOKENS.length)]!;
      let pick = u(`spender:${i}`) * totalWeight;
      const spender = (spenders.find((s) => (pick -= s.weight) < 0) ?? spenders[0]!).address;
      const v = u(`value:${i}`);
      const value = v < 0.35 ? MAX : v < 0.45 ? 0n : BigInt(Math.floor(u(`amount:${i}`) * 1e9)) * 10n ** 12n + 1n;
      const txHash = keccak256(toHex(`${b.hash}:approve:${i}`));
      logs.push({
        ...common,
        address: token,
        topics: [APPROVAL_TOPIC, `0x${owner.slice(2).padStart(64, "0")}`, `0x${spender.slice(2).padStart(64, "0")}`],
        data: `0x${word(value)}`,
        logIndex: hex(first + logs.length),
        transactionHash: txHash,
        transactionIndex: hex(txIndex),
        removed: false,
      });
      receipts.push({ ...common, transactionHash: txHash, transactionIndex: hex(txIndex++), from: owner, to: token, status: "0x1", gasUsed: hex(46_000), effectiveGasPrice: hex(b.baseFeePerGas + 10n ** 9n) });
      // Finite approvals get spent now and then (the token then reports less than the last log said).
      const key = `${token}:${owner}:${spender}`;
      const prev = allowances.get(key);
      if (!prev || prev.block <= b.number) allowances.set(key, { block: b.number, value: value !== MAX && u(`spent:${i}`) < 0.35 ? 0n : value });
    }
    const fails = u("fails") < 0.5 ? 1 : u("fails") < 0.65 ? 2 : 0;
    const race = fails === 2 ? BOT_TARGETS[Math.floor(u("race") * BOT_TARGETS.length)]! : null;
    for (let i = 0; i < fails; i++) {
      const from = DEVNET_BOTS[Math.floor(u(`bot:${i}`) ** 2 * DEVNET_BOTS.length)]!;
      const to = race ?? BOT_TARGETS[Math.floor(u(`target:${i}`) * BOT_TARGETS.length)]!;
      const gasLimit = 150_000n + BigInt(Math.floor(u(`limit:${i}`) * 350_000));
      const outOfGas = !race && u(`oog:${i}`) < 0.25;
      const gasUsed = outOfGas ? gasLimit : 30_000n + BigInt(Math.floor(u(`used:${i}`) * 90_000));
      const txHash = keccak256(toHex(`${b.hash}:fail:${i}`));
      const price = b.baseFeePerGas + BigInt(Math.floor(u(`tip:${i}`) * 20)) * 10n ** 9n;
      receipts.push({ ...common, transactionHash: txHash, transactionIndex: hex(txIndex++), from, to, status: "0x0", gasUsed: hex(gasUsed), effectiveGasPrice: hex(price) });
      accounts.markKnown(txHash, { blockNumber: hex(b.number), from, to, gas: hex(gasLimit) });
    }
    const activity = { logs, receipts };
    byBlock.set(b.number, activity);
    return activity;
  };

  const blockArg = (v: unknown, name: string): bigint => {
    if (typeof v !== "string" || !/^0x[0-9a-fA-F]+$/.test(v)) throw new JsonRpcError(-32602, `${name} must be a hex block number`);
    return BigInt(v);
  };

  return {
    record,
    call: (to, data) => {
      const selector = data.slice(0, 10);
      if (to === CHAINLINK_ETH_USD && selector === SELECTOR_LATEST_ROUND_DATA) {
        const answer = BigInt(Math.round(DEVNET_ETH_USD * 1e8));
        const t = BigInt(headTimestamp);
        return `0x${word(1n)}${word(answer)}${word(t)}${word(t)}${word(1n)}`;
      }
      if (selector === SELECTOR_ALLOWANCE && TOKENS.includes(to) && data.length >= 138) {
        const owner = `0x${data.slice(34, 74)}`;
        const spender = `0x${data.slice(98, 138)}`;
        return `0x${word(allowances.get(`${to}:${owner}:${spender}`)?.value ?? 0n)}`;
      }
      return undefined;
    },
    methods: {
      eth_getLogs: (p) => {
        const f = (p[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown; topics?: unknown[] };
        const from = blockArg(f.fromBlock, "fromBlock");
        const to = blockArg(f.toBlock, "toBlock");
        if (to < from || to - from > 10_000n) throw new JsonRpcError(-32005, "block range too large or inverted");
        const topic0 = Array.isArray(f.topics) ? f.topics[0] : undefined;
        if (topic0 !== undefined && topic0 !== null && String(topic0).toLowerCase() !== APPROVAL_TOPIC) return [];
        const out: Record<string, unknown>[] = [];
        for (let n = from; n <= to; n++) out.push(...(activityOf(n)?.logs ?? []));
        return out;
      },
      eth_getBlockReceipts: (p) => {
        const n = blockArg(p[0], "block");
        return activityOf(n)?.receipts ?? null;
      },
    },
  };
}
