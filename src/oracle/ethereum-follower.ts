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
 *   5. reports more work while the range did not reach the head.
 * Several workers may run it at once: writes are idempotent upserts of the
 * same node data, and retention deletes are bounded by number.
 */
import type { Job } from "../core/jobs.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import { forkSchedule } from "../chains/ethereum/fees.js";
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
}

export interface FollowResult {
  chainId: number;
  nodeHead: bigint;
  stored: number;
  pruned: number;
  /** Number from which stored blocks were dropped after a reorg, if any. */
  reorgFrom: bigint | null;
  more: boolean;
}

export async function followEthereumOnce(deps: EthereumFollowerDeps, signal?: AbortSignal): Promise<FollowResult> {
  const { db, rpc } = deps;
  const chainId = await rpc.chainId(signal);
  if (!forkSchedule(chainId)) throw new Error(`Ethereum chain id ${chainId} has no fork schedule (chains/ethereum/fees.ts)`);
  const nodeHead = await rpc.blockNumber(signal);
  const tip = await latestHeader(db, chainId);
  const plan = planFollow({ storedHead: tip?.number ?? null, nodeHead, retention: deps.retention, batch: deps.batch });
  const base = { chainId, nodeHead, stored: 0, pruned: 0, reorgFrom: null };
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
  return { ...base, stored: linked.length, pruned, more: brk !== -1 || plan.remaining > 0n };
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
