/**
 * The Ethereum follower: a background job that keeps the chain head's
 * headers in the database (`eth_headers`, newest ETH_RETENTION_BLOCKS), which
 * /v1/q/base-fee and /v1/q/data-freshness read. One run:
 *   1. reads the node's chain id (it must have a fork schedule) and head;
 *   2. plans the next range (chains/ethereum/follow.ts): at most `batch`
 *      blocks above the stored head, never older than the retention;
 *   3. fetches the range's headers and checks they link to the stored tip;
 *      a break means a reorg: the stored blocks from the break's parent up
 *      are dropped and the next run fetches them again;
 *   4. stores the headers and prunes what fell out of the retention, in one
 *      transaction;
 *   5. at the head, compares its projection of the next block's fees with
 *      the node's own (eth_feeHistory): a mismatch means the fork schedule
 *      table is stale (a fork it does not know), which is logged loudly;
 *   6. reports more work while the range did not reach the head.
 * Several workers may run it at once: writes are idempotent upserts of the
 * same node data, and retention deletes are bounded by number.
 */
import type { Job } from "../core/jobs.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import { forkSchedule, projectFees } from "../chains/ethereum/fees.js";
import { firstBreak, planFollow, pruneBelow } from "../chains/ethereum/follow.js";
import type { EthHeader, EthRpc } from "../chains/ethereum/rpc.js";
import { dropFrom, headerAt, latestHeader, pruneBefore, storeHeaders } from "./ethereum-store.js";

export interface EthereumFollowerDeps {
  db: Queryable;
  rpc: EthRpc;
  /** Blocks kept per chain. */
  retention: number;
  /** Headers fetched per run. */
  batch: number;
  /** Told when the node's next-block fees differ from the schedule table's projection. */
  warn?: (info: Record<string, unknown>, message: string) => void;
}

export interface FollowResult {
  chainId: number;
  nodeHead: bigint;
  stored: number;
  pruned: number;
  /** Number from which stored blocks were dropped after a reorg, if any. */
  reorgFrom: bigint | null;
  /** The projection checked against the node's eth_feeHistory (only when the run reached the head). */
  scheduleCheck: "match" | "mismatch" | "unavailable" | "skipped";
  more: boolean;
}

export async function followEthereumOnce(deps: EthereumFollowerDeps, signal?: AbortSignal): Promise<FollowResult> {
  const { db, rpc } = deps;
  const chainId = await rpc.chainId(signal);
  if (!forkSchedule(chainId)) throw new Error(`Ethereum chain id ${chainId} has no fork schedule (chains/ethereum/fees.ts)`);
  const nodeHead = await rpc.blockNumber(signal);
  const tip = await latestHeader(db, chainId);
  const plan = planFollow({ storedHead: tip?.number ?? null, nodeHead, retention: deps.retention, batch: deps.batch });
  const base = { chainId, nodeHead, stored: 0, pruned: 0, reorgFrom: null, scheduleCheck: "skipped" as const };
  if (!plan) return { ...base, more: false };

  const headers: EthHeader[] = [];
  for (let n = plan.from; n <= plan.to; n++) {
    const h = await rpc.header(n, signal);
    // The node's head moved back under us (a reorg in progress): store what we have.
    if (!h) break;
    headers.push(h);
  }
  const parent = plan.from > 0n ? await headerAt(db, chainId, plan.from - 1n) : null;
  const brk = firstBreak(parent, headers);
  if (brk === 0 && parent) {
    await dropFrom(db, chainId, parent.number);
    return { ...base, reorgFrom: parent.number, more: true };
  }
  const linked = brk === -1 ? headers : headers.slice(0, brk);
  const pruned = await withTransaction(db, async (trx) => {
    await storeHeaders(trx, chainId, linked);
    return pruneBefore(trx, chainId, pruneBelow(nodeHead, deps.retention));
  });
  const more = brk !== -1 || plan.remaining > 0n;
  const newest = linked[linked.length - 1];
  const scheduleCheck = !more && newest ? await checkSchedule(deps, chainId, newest, signal) : "skipped";
  return { ...base, stored: linked.length, pruned, more, scheduleCheck };
}

async function checkSchedule(deps: EthereumFollowerDeps, chainId: number, head: EthHeader, signal?: AbortSignal): Promise<FollowResult["scheduleCheck"]> {
  const node = await deps.rpc.nodeNextFees(head.number, signal).catch(() => null);
  if (!node) return "unavailable";
  const ours = projectFees(head, forkSchedule(chainId)!);
  const blobDiffers = node.blobBaseFee !== null && ours.nextBlobBaseFee !== null && node.blobBaseFee !== ours.nextBlobBaseFee;
  if (node.baseFee === ours.nextBaseFee && !blobDiffers) return "match";
  deps.warn?.(
    {
      chainId,
      block: head.number.toString(),
      node: { baseFee: node.baseFee.toString(), blobBaseFee: node.blobBaseFee?.toString() ?? null },
      projected: { baseFee: ours.nextBaseFee.toString(), blobBaseFee: ours.nextBlobBaseFee?.toString() ?? null, fork: ours.nextFork },
    },
    "ethereum fee projection differs from the node's: the fork schedule table may be missing a fork",
  );
  return "mismatch";
}

/** The follower as a background job (one entry of `backgroundJobs`). */
export function ethereumFollowerJob(deps: EthereumFollowerDeps, intervalMs: number): Job {
  return {
    name: "ethereum follower",
    intervalMs,
    leaseSeconds: 60,
    run: async (signal) => ({ more: (await followEthereumOnce(deps, signal)).more }),
  };
}
