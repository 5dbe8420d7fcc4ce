/**
 * Zcash chain facts: plain functions over zebrad that the Penny Oracle
 * (/v1/q/zec/*, declared in oracle/questions/zcash.ts) and /v1/health call.
 * Every fact is read from the node when asked: a down node is a 502, an
 * absent one a 503, a node of another network a 502 chain_network_mismatch;
 * never stale data. Money is zatoshi as decimal strings plus ZEC strings.
 *
 * Migration readout (docs/zcash-chain.md): after NU6.3 value leaves the
 * Orchard pool for the Ironwood pool and never returns, so
 *   ironwood balance   = ironwood.chainValueZat
 *   orchard remainder  = orchard.chainValueZat
 *   migration percent  = 100 × ironwood / (orchard + ironwood), rounded down
 *                        to 0.01 (null while both pools are empty).
 * Shielded share = (sprout + sapling + orchard + ironwood) / total, same
 * rounding. Total = the sum of the six pools.
 */
import type { Clock } from "../../core/clock.js";
import { formatZec } from "../../core/money.js";
import { ZCASH_POOLS, type ZcashPool, type ZcashValuePools, type Zebrad } from "./zebrad.js";
import { probeChainHealth, type ChainHealth } from "../health.js";

export interface ZecHeightFacts {
  /** Height of the best block the node has verified. */
  height: number;
  /** Best header height the node knows. */
  headers: number;
  /** The node's estimate of the network tip (height when it gives none). */
  estimated_height: number;
  /** 0..1, as zebrad reports it. */
  verification_progress: number;
  synchronized: boolean;
  best_block_hash: string;
  network: string;
}

export interface ZecMempoolFacts {
  tx_count: number;
  bytes: number;
  /** Memory the node uses for the mempool, bytes. */
  usage_bytes: number;
}

export interface ZecLastBlockFacts {
  height: number;
  /** Unix seconds, as the miner set it. */
  timestamp: number;
  age_s: number;
  hash: string;
  difficulty: number;
  size: number;
  /** Transactions in the block, coinbase included. */
  tx_count: number;
}

export interface ZecPoolLine {
  zatoshi: string;
  zec: string;
  monitored: boolean;
}

export interface ZecPoolsFacts {
  height: number;
  best_block_hash: string;
  pools: Record<ZcashPool, ZecPoolLine>;
  total_zatoshi: string;
  total_zec: string;
  shielded_percent: number;
  migration: {
    ironwood_zatoshi: string;
    ironwood_zec: string;
    orchard_remainder_zatoshi: string;
    orchard_remainder_zec: string;
    /** 100 × ironwood / (orchard + ironwood), floor to 0.01; null when both are zero. */
    migration_percent: number | null;
  };
}

/** 100 × part / whole rounded down to 0.01, computed in integers; null when whole is 0. */
export function percentOf(part: bigint, whole: bigint): number | null {
  if (whole <= 0n) return null;
  const basisPoints = (part * 10_000n) / whole;
  return Number(basisPoints) / 100;
}

/** The migration readout and totals of one set of value pools. */
export function poolsReadout(pools: ZcashValuePools): Omit<ZecPoolsFacts, "height" | "best_block_hash"> {
  const lines = {} as Record<ZcashPool, ZecPoolLine>;
  let total = 0n;
  for (const p of ZCASH_POOLS) {
    const v = pools[p];
    lines[p] = { zatoshi: v.zatoshi.toString(), zec: formatZec(v.zatoshi), monitored: v.monitored };
    total += v.zatoshi;
  }
  const shielded = pools.sprout.zatoshi + pools.sapling.zatoshi + pools.orchard.zatoshi + pools.ironwood.zatoshi;
  const ironwood = pools.ironwood.zatoshi;
  const orchard = pools.orchard.zatoshi;
  return {
    pools: lines,
    total_zatoshi: total.toString(),
    total_zec: formatZec(total),
    shielded_percent: percentOf(shielded, total) ?? 0,
    migration: {
      ironwood_zatoshi: ironwood.toString(),
      ironwood_zec: formatZec(ironwood),
      orchard_remainder_zatoshi: orchard.toString(),
      orchard_remainder_zec: formatZec(orchard),
      migration_percent: percentOf(ironwood, orchard + ironwood),
    },
  };
}

/** Whether the node is configured and its last call (if any) succeeded. */
export function zcashAvailable(zebrad: Zebrad): boolean {
  if (!zebrad.configured) return false;
  return zebrad.status().lastOk !== false;
}

export async function zecHeightFacts(zebrad: Zebrad, signal?: AbortSignal): Promise<ZecHeightFacts> {
  const info = await zebrad.getBlockchainInfo(signal);
  const estimated = Math.max(info.estimatedHeight ?? info.blocks, info.blocks);
  return {
    height: info.blocks,
    headers: info.headers,
    estimated_height: estimated,
    verification_progress: info.verificationProgress,
    // zebrad's progress reaches 1 only at the tip; within two blocks of its estimate counts as synchronized.
    synchronized: estimated - info.blocks <= 2,
    best_block_hash: info.bestBlockHash,
    network: info.chain,
  };
}

export async function zecMempoolFacts(zebrad: Zebrad, signal?: AbortSignal): Promise<ZecMempoolFacts> {
  const m = await zebrad.getMempoolInfo(signal);
  return { tx_count: m.size, bytes: m.bytes, usage_bytes: m.usage };
}

/** The best block (getblockchaininfo then getblock by its hash); its age on the injected clock. */
export async function zecLastBlockFacts(zebrad: Zebrad, clock: Clock, signal?: AbortSignal): Promise<ZecLastBlockFacts> {
  const info = await zebrad.getBlockchainInfo(signal);
  const b = await zebrad.getBlock(info.bestBlockHash, signal);
  return {
    height: b.height,
    timestamp: b.time,
    age_s: Math.max(0, Math.floor(clock.now() / 1000) - b.time),
    hash: b.hash,
    difficulty: b.difficulty,
    size: b.size,
    tx_count: b.txids.length,
  };
}

export async function zecPoolsFacts(zebrad: Zebrad, signal?: AbortSignal): Promise<ZecPoolsFacts> {
  const info = await zebrad.getBlockchainInfo(signal);
  return { height: info.blocks, best_block_hash: info.bestBlockHash, ...poolsReadout(info.valuePools) };
}

export type ZcashHealth = ChainHealth;

/** Zcash's entry in /v1/health: one getblockchaininfo with a short deadline. Never throws. */
export function zcashHealth(zebrad: Zebrad, opts: { timeoutMs?: number } = {}): Promise<ZcashHealth> {
  return probeChainHealth(
    zebrad.configured,
    async (signal) => {
      const f = await zecHeightFacts(zebrad, signal);
      return { height: f.height, synchronized: f.synchronized, network: zebrad.network };
    },
    opts.timeoutMs,
  );
}
