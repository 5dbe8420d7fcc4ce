/**
 * What the counter-MEV feed reads from an Ethereum node, as plain functions:
 * ERC-20 Approval logs (eth_getLogs), reverted transactions from block
 * receipts (eth_getBlockReceipts) with their gas burn and a cheap reason,
 * live allowances (allowance(owner, spender)), account kinds (eth_getCode)
 * and the ETH/USD price from the Chainlink aggregator.
 *
 * ERC-20 and ERC-721 share the Approval topic; ERC-721 indexes the token id
 * as a fourth topic, so only three-topic logs are ERC-20 approvals.
 */
import { z } from "zod";
import type { EthRpc } from "./rpc.js";

export const APPROVAL_TOPIC = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";
/** allowance(address,address) */
export const SELECTOR_ALLOWANCE = "0xdd62ed3e";
/** Chainlink ETH/USD aggregator proxy on mainnet, and latestRoundData(). */
export const CHAINLINK_ETH_USD = "0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419";
export const SELECTOR_LATEST_ROUND_DATA = "0xfeaf968c";
/** "Unlimited": 2^256 − 1, and commonly anything ≥ 2^255. */
export const UNLIMITED_FROM = 2n ** 255n;
/** EIP-7702 delegation designator prefix of an EOA's code. */
export const DELEGATION_PREFIX = "0xef0100";

export interface ApprovalLog {
  block: bigint;
  logIndex: number;
  txHash: string;
  token: string;
  owner: string;
  spender: string;
  value: bigint;
}

const hex = z.string().regex(/^0x[0-9a-fA-F]*$/);
const LogSchema = z.object({
  address: hex,
  topics: z.array(hex),
  data: hex,
  blockNumber: hex,
  logIndex: hex,
  transactionHash: hex,
  removed: z.boolean().optional(),
});

const topicAddress = (t: string) => `0x${t.slice(-40)}`.toLowerCase();

/** The ERC-20 approvals among eth_getLogs results (other logs and removed ones skipped). */
export function parseApprovalLogs(raw: unknown): ApprovalLog[] {
  const logs = z.array(z.unknown()).parse(raw);
  const out: ApprovalLog[] = [];
  for (const item of logs) {
    const r = LogSchema.safeParse(item);
    if (!r.success) throw new Error(`malformed log: ${r.error.issues[0]?.message ?? "invalid"}`);
    const l = r.data;
    if (l.removed || l.topics.length !== 3 || l.topics[0]!.toLowerCase() !== APPROVAL_TOPIC || l.data.length < 66) continue;
    out.push({
      block: BigInt(l.blockNumber),
      logIndex: Number(BigInt(l.logIndex)),
      txHash: l.transactionHash.toLowerCase(),
      token: l.address.toLowerCase(),
      owner: topicAddress(l.topics[1]!),
      spender: topicAddress(l.topics[2]!),
      value: BigInt(l.data.slice(0, 66)),
    });
  }
  return out;
}

export type FailReason = "out_of_gas" | "reverted" | "priority_gas_auction";

export interface FailedTx {
  block: bigint;
  txHash: string;
  from: string;
  to: string | null;
  gasUsed: bigint;
  /** gasUsed × effectiveGasPrice (+ blob gas × blob gas price). */
  burnWei: bigint;
  reason: FailReason;
}

const ReceiptSchema = z.object({
  transactionHash: hex,
  from: hex,
  to: hex.nullable().optional(),
  status: hex,
  gasUsed: hex,
  effectiveGasPrice: hex,
  blobGasUsed: hex.optional(),
  blobGasPrice: hex.optional(),
});

/**
 * The reverted transactions of one block's receipts. `gasLimits` (hash →
 * gas limit) tells out-of-gas apart; two or more failures in the block aimed
 * at the same contract are a priority gas auction.
 */
export function failedTransactions(block: bigint, receipts: unknown, gasLimits: ReadonlyMap<string, bigint>): FailedTx[] {
  const rows = z.array(z.unknown()).parse(receipts ?? []);
  const failed: Omit<FailedTx, "reason">[] = [];
  for (const item of rows) {
    const r = ReceiptSchema.safeParse(item);
    if (!r.success) throw new Error(`malformed receipt: ${r.error.issues[0]?.message ?? "invalid"}`);
    const x = r.data;
    if (BigInt(x.status) !== 0n) continue;
    const gasUsed = BigInt(x.gasUsed);
    const blob = x.blobGasUsed && x.blobGasPrice ? BigInt(x.blobGasUsed) * BigInt(x.blobGasPrice) : 0n;
    failed.push({
      block,
      txHash: x.transactionHash.toLowerCase(),
      from: x.from.toLowerCase(),
      to: x.to ? x.to.toLowerCase() : null,
      gasUsed,
      burnWei: gasUsed * BigInt(x.effectiveGasPrice) + blob,
    });
  }
  const perTarget = new Map<string, number>();
  for (const f of failed) if (f.to) perTarget.set(f.to, (perTarget.get(f.to) ?? 0) + 1);
  return failed.map((f) => ({
    ...f,
    reason: gasLimits.get(f.txHash) === f.gasUsed ? "out_of_gas" : f.to && (perTarget.get(f.to) ?? 0) >= 2 ? "priority_gas_auction" : "reverted",
  }));
}

const word = (v: string, i: number) => BigInt(`0x${v.slice(2 + 64 * i, 2 + 64 * (i + 1)) || "0"}`);
const pad = (a: string) => a.slice(2).toLowerCase().padStart(64, "0");

/** The live allowance of `owner` to `spender` on `token`; null when the token does not answer. */
export async function readAllowance(rpc: EthRpc, token: string, owner: string, spender: string): Promise<bigint | null> {
  const out = await rpc.ethCall(token, `${SELECTOR_ALLOWANCE}${pad(owner)}${pad(spender)}`);
  return out.length >= 66 ? word(out, 0) : null;
}

export type AccountKind = "eoa" | "contract" | "delegated";

export async function accountKind(rpc: EthRpc, address: string): Promise<AccountKind> {
  const code = z.string().parse(await rpc.call("eth_getCode", [address, "latest"])).toLowerCase();
  if (code === "0x") return "eoa";
  return code.startsWith(DELEGATION_PREFIX) && code.length === 2 + 46 ? "delegated" : "contract";
}

/** ETH/USD from the Chainlink aggregator (8 decimals), with its update time; null when it does not answer. */
export async function ethUsdPrice(rpc: EthRpc): Promise<{ usd: number; updatedAt: number } | null> {
  const out = await rpc.ethCall(CHAINLINK_ETH_USD, SELECTOR_LATEST_ROUND_DATA).catch(() => "0x");
  if (out.length < 2 + 64 * 5) return null;
  const answer = word(out, 1);
  if (answer <= 0n || answer >= 2n ** 255n) return null;
  return { usd: Number(answer) / 1e8, updatedAt: Number(word(out, 3)) };
}
