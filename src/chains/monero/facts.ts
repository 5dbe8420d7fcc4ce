/**
 * Monero chain facts: plain functions over the daemon that the Penny Oracle
 * (/v1/q/xmr/*, declared in oracle/questions/monero.ts) and /v1/health call.
 * Every fact comes from the daemon at the time of asking; a down daemon is a
 * 502, an absent one a 503: never stale data. Money is in piconero as
 * decimal strings, plus XMR strings. Field names are the published answer's.
 */
import type { Clock } from "../../core/clock.js";
import { formatXmr } from "../../core/money.js";
import type { MoneroDaemon } from "./daemon-client.js";
import { probeChainHealth, type ChainHealth } from "../health.js";

export { PICONERO_PER_XMR, formatXmr, parseXmr } from "../../core/money.js";
/** A typical 2-in/2-out transaction is about 1.5 kB; the fee estimate is quoted for this size. */
export const TYPICAL_TX_BYTES = 1500n;
export const FEE_PRIORITIES = ["slow", "normal", "fast", "fastest"] as const;

/** fee = ceil(bytes × per-byte fee / mask) × mask, as wallet2 rounds (get_fee_quantization_mask). */
export function quantizedFee(bytes: bigint, perByte: bigint, mask: bigint): bigint {
  const m = mask > 0n ? mask : 1n;
  const raw = bytes * perByte;
  return ((raw + m - 1n) / m) * m;
}

export interface MoneroHeightFacts {
  /** Height of the newest block (block count − 1). */
  height: number;
  block_count: number;
  /** Best height known from peers; equals height once synchronized. */
  target_height: number;
  synchronized: boolean;
  busy_syncing: boolean;
  blocks_behind: number;
  top_block_hash: string;
  network: string;
}

export interface MoneroMempoolFacts {
  tx_count: number;
  height: number;
}

export interface MoneroFeeFacts {
  fee_per_byte_piconero: string;
  /** Per 1024 bytes. */
  fee_per_kb_piconero: string;
  fee_per_byte_xmr: string;
  fee_per_kb_xmr: string;
  quantization_mask_piconero: string;
  /** The daemon's base (lowest-priority) fee, what wallets use by default. */
  priority: "slow";
}

export interface MoneroFeeLevel {
  piconero: string;
  xmr: string;
  per_byte_piconero: string;
}

export type MoneroFeeEstimateFacts = { tx_size_bytes: number; quantization_mask_piconero: string } & Record<
  (typeof FEE_PRIORITIES)[number],
  MoneroFeeLevel
>;

export interface MoneroLastBlockFacts {
  height: number;
  /** Unix seconds, as the miner set it. */
  timestamp: number;
  /** Seconds since timestamp (0 if the timestamp is in the future). */
  age_s: number;
  hash: string;
  difficulty: string;
  size: number;
  weight: number;
  /** Non-coinbase transactions in the block. */
  tx_count: number;
  reward_piconero: string;
  reward_xmr: string;
}

/** Whether the daemon is configured and its last call (if any) succeeded. */
export function moneroAvailable(daemon: MoneroDaemon): boolean {
  if (!daemon.configured) return false;
  return daemon.status().lastOk !== false;
}

/** Chain height and sync state from one get_info. */
export async function moneroHeightFacts(daemon: MoneroDaemon, signal?: AbortSignal): Promise<MoneroHeightFacts> {
  const info = await daemon.getInfo(signal);
  const top = info.height - 1;
  // monerod reports target_height 0 when it considers itself synchronized.
  const target = info.targetHeight > 0 ? Math.max(info.targetHeight - 1, top) : top;
  return {
    height: top,
    block_count: info.height,
    target_height: target,
    synchronized: info.synchronized,
    busy_syncing: info.busySyncing,
    blocks_behind: target - top,
    top_block_hash: info.topBlockHash,
    network: info.nettype,
  };
}

/** Transactions waiting in the daemon's pool. */
export async function moneroMempoolFacts(daemon: MoneroDaemon, signal?: AbortSignal): Promise<MoneroMempoolFacts> {
  const info = await daemon.getInfo(signal);
  return { tx_count: info.txPoolSize, height: info.height - 1 };
}

/** The base fee per byte and per kB. */
export async function moneroFeeFacts(daemon: MoneroDaemon, signal?: AbortSignal): Promise<MoneroFeeFacts> {
  const est = await daemon.getFeeEstimate(signal);
  const perKb = est.fee * 1024n;
  return {
    fee_per_byte_piconero: est.fee.toString(),
    fee_per_kb_piconero: perKb.toString(),
    fee_per_byte_xmr: formatXmr(est.fee),
    fee_per_kb_xmr: formatXmr(perKb),
    quantization_mask_piconero: est.quantizationMask.toString(),
    priority: "slow",
  };
}

/** The total fee of a typical transaction at each priority. */
export async function moneroFeeEstimateFacts(daemon: MoneroDaemon, signal?: AbortSignal): Promise<MoneroFeeEstimateFacts> {
  const est = await daemon.getFeeEstimate(signal);
  const level = (i: number): MoneroFeeLevel => {
    // Older daemons return one fee only; higher priorities then reuse the highest known.
    const perByte = est.fees[Math.min(i, est.fees.length - 1)]!;
    const total = quantizedFee(TYPICAL_TX_BYTES, perByte, est.quantizationMask);
    return { piconero: total.toString(), xmr: formatXmr(total), per_byte_piconero: perByte.toString() };
  };
  return {
    tx_size_bytes: Number(TYPICAL_TX_BYTES),
    slow: level(0),
    normal: level(1),
    fast: level(2),
    fastest: level(3),
    quantization_mask_piconero: est.quantizationMask.toString(),
  };
}

/** The newest block's header; its age is measured on the injected clock. */
export async function moneroLastBlockFacts(daemon: MoneroDaemon, clock: Clock, signal?: AbortSignal): Promise<MoneroLastBlockFacts> {
  const h = await daemon.getLastBlockHeader(signal);
  return {
    height: h.height,
    timestamp: h.timestamp,
    age_s: Math.max(0, Math.floor(clock.now() / 1000) - h.timestamp),
    hash: h.hash,
    difficulty: h.difficulty.toString(),
    size: h.blockSize,
    weight: h.blockWeight,
    tx_count: h.numTxes,
    reward_piconero: h.reward.toString(),
    reward_xmr: formatXmr(h.reward),
  };
}

export type MoneroHealth = ChainHealth;

/** Monero's entry in /v1/health: one get_info with a short deadline. Never throws. */
export function moneroHealth(daemon: MoneroDaemon, opts: { timeoutMs?: number } = {}): Promise<MoneroHealth> {
  return probeChainHealth(
    daemon.configured,
    async (signal) => {
      const info = await daemon.getInfo(signal);
      return { height: info.height - 1, synchronized: info.synchronized, network: info.nettype };
    },
    opts.timeoutMs,
  );
}
