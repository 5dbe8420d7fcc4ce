/**
 * What Vigil knows of monerod: the typed answers (u64 money and difficulty
 * as bigint, heights and counters as numbers), the MoneroDaemon port the
 * scanner, facts and historical scan depend on, and its one error type
 * (502 chain_rpc_failed, with the JSON-RPC code when there was one).
 */
import { UpstreamError, type UpstreamHealth } from "../../core/upstream.js";
import type { LosslessJson } from "./lossless-json.js";

export interface MoneroInfo {
  /** Block count (= top block height + 1), as monerod reports it. */
  height: number;
  /** 0 when the daemon considers itself synchronized, else the best height seen from peers. */
  targetHeight: number;
  synchronized: boolean;
  busySyncing: boolean;
  offline: boolean;
  txPoolSize: number;
  txCount: number;
  topBlockHash: string;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  /** "mainnet" | "testnet" | "stagenet" | "fakechain" */
  nettype: string;
  /** Seconds between blocks (120 on mainnet). */
  target: number;
  untrusted: boolean;
  restricted: boolean;
  version: string;
  adjustedTime: number;
}

export interface MoneroBlockHeader {
  height: number;
  hash: string;
  prevHash: string;
  timestamp: number;
  majorVersion: number;
  minorVersion: number;
  nonce: number;
  depth: number;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  reward: bigint;
  blockSize: number;
  blockWeight: number;
  numTxes: number;
  minerTxHash: string;
  orphanStatus: boolean;
}

export interface MoneroBlock {
  header: MoneroBlockHeader;
  minerTxHash: string;
  /** Non-coinbase transaction hashes, in block order. */
  txHashes: string[];
  /** Hex of the serialized block. */
  blob: string;
  /** The decoded coinbase (`json.miner_tx`), lossless-parsed. */
  minerTxJson: LosslessJson;
}

export interface MoneroTxEntry {
  txHash: string;
  /** Decoded transaction (as_json, parsed losslessly); null when the daemon sent none. */
  json: LosslessJson | null;
  /** Full hex when unpruned, else the pruned hex (may be ""). */
  hex: string;
  prunedHex: string;
  inPool: boolean;
  doubleSpendSeen: boolean;
  /** null while in the pool. */
  blockHeight: number | null;
  blockTimestamp: number | null;
  confirmations: number;
  outputIndices: bigint[];
  receivedTimestamp: number | null;
}

export interface MoneroPoolTx {
  idHash: string;
  json: LosslessJson | null;
  blobHex: string;
  blobSize: number;
  weight: number;
  fee: bigint;
  receiveTime: number;
  relayed: boolean;
  doubleSpendSeen: boolean;
}

export interface MoneroFeeEstimate {
  /** Per-byte fee (fees[0] since v15). */
  fee: bigint;
  /** Per-byte fees for priorities low, normal, elevated, priority. */
  fees: bigint[];
  /** A fee must be rounded up to a multiple of this. */
  quantizationMask: bigint;
}

export interface MoneroTransactions {
  txs: MoneroTxEntry[];
  missed: string[];
}

/** Health of the daemon connection, as the upstream client keeps it. */
export type DaemonStatus = UpstreamHealth;

/**
 * What the scanner, facts and historical scan need from monerod. The real
 * client and the not-configured client both implement it.
 */
export interface MoneroDaemon {
  readonly configured: boolean;
  status(): DaemonStatus;
  getInfo(signal?: AbortSignal): Promise<MoneroInfo>;
  getBlockCount(signal?: AbortSignal): Promise<number>;
  getLastBlockHeader(signal?: AbortSignal): Promise<MoneroBlockHeader>;
  getBlockHeaderByHeight(height: number, signal?: AbortSignal): Promise<MoneroBlockHeader>;
  /** Inclusive range; split into requests of at most 1000 (restricted-node limit). */
  getBlockHeadersRange(start: number, end: number, signal?: AbortSignal): Promise<MoneroBlockHeader[]>;
  getBlock(ref: { height: number } | { hash: string }, signal?: AbortSignal): Promise<MoneroBlock>;
  /** decode_as_json; split into requests of at most 100 hashes (restricted-node limit). */
  getTransactions(hashes: string[], opts?: { prune?: boolean }, signal?: AbortSignal): Promise<MoneroTransactions>;
  getTransactionPoolHashes(signal?: AbortSignal): Promise<string[]>;
  getTransactionPool(signal?: AbortSignal): Promise<MoneroPoolTx[]>;
  getFeeEstimate(signal?: AbortSignal): Promise<MoneroFeeEstimate>;
  close(): Promise<void>;
}

/** A monerod failure: 502 chain_rpc_failed, with the JSON-RPC error code when there was one. */
export class MoneroDaemonError extends UpstreamError {
  constructor(message: string, details: Record<string, unknown>, rpcCode?: number) {
    super("chain_rpc_failed", message, details, rpcCode);
  }
}

/** JSON-RPC error −2: "too big height" (height ≥ block count), e.g. after a reorg to a shorter chain. */
export const RPC_ERR_TOO_BIG_HEIGHT = -2;
