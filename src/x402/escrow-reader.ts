/**
 * What the channel keeper reads of the batch-settlement escrow on the payment
 * chain, over EVM_RPC_URL (viem): channels' state (one Multicall3 call for
 * many), the receiver's totals, the escrow's events in a block range, and
 * receipts. Reading only; every transaction goes through the facilitator.
 */
import { BlockNotFoundError, createPublicClient, http, parseAbi, parseEventLogs, type Hex, type PublicClient } from "viem";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { escrowViewsAbi } from "./batch-claims.js";
import { createRpcFetch } from "./rpc-fetch.js";

/** A channel as the escrow holds it. */
export interface EscrowChannelState {
  balance: bigint;
  totalClaimed: bigint;
  /** Unix seconds a pending withdrawal started; 0: none. */
  withdrawRequestedAt: number;
  withdrawAmount: bigint;
  refundNonce: bigint;
}

export const escrowEventsAbi = parseAbi([
  "event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)",
  "event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)",
  "event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)",
  "event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)",
]);

/** One of the escrow's events about a channel. */
export interface EscrowEvent {
  name: "Deposited" | "Claimed" | "Refunded" | "WithdrawInitiated" | "WithdrawFinalized";
  channelId: string;
  amount: bigint;
  /** Claimed: the channel's new claimed total. */
  total?: bigint;
  txHash: Hex;
  blockNumber: bigint;
}

export interface EscrowReader {
  blockNumber(): Promise<bigint>;
  /** The hash of a block by number; undefined when the chain has no such block. */
  blockHash(number: bigint): Promise<string | undefined>;
  /** The state of each channel, in order. */
  channelStates(channelIds: readonly Hex[]): Promise<EscrowChannelState[]>;
  /** What has been claimed for `receiver` in `token` and what of it has been settled to it. */
  receiverTotals(receiver: Hex, token: Hex): Promise<{ totalClaimed: bigint; totalSettled: bigint }>;
  /** The escrow's channel events in [from, to]. */
  events(from: bigint, to: bigint): Promise<EscrowEvent[]>;
  /** One kind of event of some channels in [from, to]. */
  channelEvents(name: "Deposited" | "Claimed" | "Refunded", channelIds: readonly Hex[], from: bigint, to: bigint): Promise<EscrowEvent[]>;
  /** The escrow's events of one mined transaction. */
  transactionEvents(hash: Hex): Promise<EscrowEvent[]>;
  /** Whether a transaction is mined and succeeded (null: not found yet). */
  receiptStatus(hash: Hex): Promise<"success" | "reverted" | null>;
}

const escrow = BATCH_SETTLEMENT_ADDRESS as Hex;
/** Multicall3 at its canonical address (a predeploy on Base and Base Sepolia; the devnet has it). */
const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

/** An escrow log as the keeper reads it. */
function eventOf(log: { eventName: string; args: unknown; transactionHash: Hex; blockNumber: bigint }): EscrowEvent {
  const args = log.args as { channelId: Hex; amount?: bigint; claimAmount?: bigint; newTotalClaimed?: bigint };
  return {
    name: log.eventName as EscrowEvent["name"],
    channelId: args.channelId.toLowerCase(),
    amount: args.amount ?? args.claimAmount ?? 0n,
    ...(args.newTotalClaimed !== undefined ? { total: args.newTotalClaimed } : {}),
    txHash: log.transactionHash,
    blockNumber: log.blockNumber,
  };
}

export function createEscrowReader(rpcUrl: string, opts: { timeoutMs?: number } = {}): EscrowReader {
  const client: PublicClient = createPublicClient({ transport: http(rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 2, fetchFn: createRpcFetch() }) });
  return {
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockHash(number) {
      try {
        return (await client.getBlock({ blockNumber: number })).hash.toLowerCase();
      } catch (e) {
        if (e instanceof BlockNotFoundError) return undefined;
        throw e;
      }
    },
    async channelStates(ids) {
      if (ids.length === 0) return [];
      const contracts = ids.flatMap((id) => [
        { address: escrow, abi: escrowViewsAbi, functionName: "channels", args: [id] } as const,
        { address: escrow, abi: escrowViewsAbi, functionName: "pendingWithdrawals", args: [id] } as const,
        { address: escrow, abi: escrowViewsAbi, functionName: "refundNonce", args: [id] } as const,
      ]);
      const results = await client.multicall({ contracts, allowFailure: false, batchSize: 0, multicallAddress: MULTICALL3 });
      return ids.map((_, i) => {
        const [balance, totalClaimed] = results[3 * i] as readonly [bigint, bigint];
        const [withdrawAmount, initiatedAt] = results[3 * i + 1] as readonly [bigint, number];
        return { balance, totalClaimed, withdrawRequestedAt: Number(initiatedAt), withdrawAmount, refundNonce: results[3 * i + 2] as bigint };
      });
    },
    async receiverTotals(receiver, token) {
      const [totalClaimed, totalSettled] = await client.readContract({ address: escrow, abi: escrowViewsAbi, functionName: "receivers", args: [receiver, token] });
      return { totalClaimed, totalSettled };
    },
    async events(from, to) {
      const logs = await client.getLogs({ address: escrow, events: escrowEventsAbi, fromBlock: from, toBlock: to, strict: true });
      return logs.map(eventOf);
    },
    async channelEvents(name, channelIds, from, to) {
      const event = escrowEventsAbi.find((e) => e.name === name)!;
      const logs = await client.getLogs({ address: escrow, event, args: { channelId: [...channelIds] }, fromBlock: from, toBlock: to, strict: true });
      return logs.map(eventOf);
    },
    async transactionEvents(hash) {
      const receipt = await client.getTransactionReceipt({ hash });
      const logs = parseEventLogs({ abi: escrowEventsAbi, logs: receipt.logs.filter((l) => l.address.toLowerCase() === escrow.toLowerCase()), strict: true });
      return logs.map((l) => eventOf({ eventName: l.eventName, args: l.args, transactionHash: l.transactionHash!, blockNumber: l.blockNumber! }));
    },
    async receiptStatus(hash) {
      try {
        return (await client.getTransactionReceipt({ hash })).status;
      } catch {
        return null;
      }
    },
  };
}
