/**
 * Parsers of monerod answers into the typed results of daemon-types.ts.
 * Strict: a field of the wrong type is a DaemonShapeError (the client makes
 * it a 502), never a crash or a silently wrong number. u64 fields are read
 * losslessly; epee's habit of omitting empty arrays is honoured.
 */
import { parseJsonLossless, type LosslessJson } from "./lossless-json.js";
import type { MoneroBlock, MoneroBlockHeader, MoneroFeeEstimate, MoneroInfo, MoneroPoolTx, MoneroTxEntry } from "./daemon-types.js";

export type Obj = { [k: string]: LosslessJson };

/** A daemon answer of the wrong shape; the client turns it into a 502 naming the call. */
export class DaemonShapeError extends Error {}

export function asObj(v: LosslessJson | undefined, what: string): Obj {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new DaemonShapeError(`${what}: expected an object`);
  return v;
}

/** A u64 field as bigint, losslessly (number, bigint or decimal string). */
export function u64(v: unknown, what = "value"): bigint {
  if (typeof v === "bigint") {
    if (v < 0n || v >= 1n << 64n) throw new DaemonShapeError(`${what}: out of u64 range`);
    return v;
  }
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) throw new DaemonShapeError(`${what}: not a safe non-negative integer`);
    return BigInt(v);
  }
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) {
    const b = BigInt(v);
    if (b >= 1n << 64n) throw new DaemonShapeError(`${what}: out of u64 range`);
    return b;
  }
  throw new DaemonShapeError(`${what}: expected an unsigned integer`);
}

/** A small counter/height field as a JS number. */
export function num(v: LosslessJson | undefined, what: string): number {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new DaemonShapeError(`${what}: expected a non-negative integer`);
}

export function optNum(v: LosslessJson | undefined, what: string, dflt = 0): number {
  return v === undefined || v === null ? dflt : num(v, what);
}

export function str(v: LosslessJson | undefined, what: string): string {
  if (typeof v === "string") return v;
  throw new DaemonShapeError(`${what}: expected a string`);
}

export function optStr(v: LosslessJson | undefined, dflt = ""): string {
  return typeof v === "string" ? v : dflt;
}

export function bool(v: LosslessJson | undefined, dflt = false): boolean {
  return typeof v === "boolean" ? v : dflt;
}

export function hash32(v: LosslessJson | undefined, what: string): string {
  const s = str(v, what);
  if (!/^[0-9a-f]{64}$/.test(s)) throw new DaemonShapeError(`${what}: expected 64 lowercase hex characters`);
  return s;
}

/** epee omits empty arrays: absent means []. */
export function arr(v: LosslessJson | undefined, what: string): LosslessJson[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DaemonShapeError(`${what}: expected an array`);
  return v;
}

/** Prefer the 128-bit `wide_*` hex form when present (difficulty can exceed u64 in principle). */
function wideOr(o: Obj, wideKey: string, key: string): bigint {
  const wide = o[wideKey];
  if (typeof wide === "string" && /^0x[0-9a-fA-F]{1,32}$/.test(wide)) return BigInt(wide);
  const v = o[key];
  return v === undefined ? 0n : u64(v, key);
}

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

export function parseBlockHeader(v: LosslessJson | undefined): MoneroBlockHeader {
  const h = asObj(v, "block_header");
  return {
    height: num(h.height, "height"),
    hash: hash32(h.hash, "hash"),
    prevHash: hash32(h.prev_hash, "prev_hash"),
    timestamp: num(h.timestamp, "timestamp"),
    majorVersion: optNum(h.major_version, "major_version"),
    minorVersion: optNum(h.minor_version, "minor_version"),
    nonce: optNum(h.nonce, "nonce"),
    depth: optNum(h.depth, "depth"),
    difficulty: wideOr(h, "wide_difficulty", "difficulty"),
    cumulativeDifficulty: wideOr(h, "wide_cumulative_difficulty", "cumulative_difficulty"),
    reward: h.reward === undefined ? 0n : u64(h.reward, "reward"),
    blockSize: optNum(h.block_size, "block_size"),
    blockWeight: optNum(h.block_weight, "block_weight"),
    numTxes: optNum(h.num_txes, "num_txes"),
    minerTxHash: optStr(h.miner_tx_hash),
    orphanStatus: bool(h.orphan_status),
  };
}

export function parseInfo(r: Obj): MoneroInfo {
  return {
    height: num(r.height, "height"),
    targetHeight: optNum(r.target_height, "target_height"),
    synchronized: bool(r.synchronized),
    busySyncing: bool(r.busy_syncing),
    offline: bool(r.offline),
    txPoolSize: optNum(r.tx_pool_size, "tx_pool_size"),
    txCount: optNum(r.tx_count, "tx_count"),
    topBlockHash: optStr(r.top_block_hash),
    difficulty: wideOr(r, "wide_difficulty", "difficulty"),
    cumulativeDifficulty: wideOr(r, "wide_cumulative_difficulty", "cumulative_difficulty"),
    nettype: optStr(r.nettype, r.testnet === true ? "testnet" : r.stagenet === true ? "stagenet" : "mainnet"),
    target: optNum(r.target, "target", 120),
    untrusted: bool(r.untrusted),
    restricted: bool(r.restricted),
    version: optStr(r.version),
    adjustedTime: optNum(r.adjusted_time, "adjusted_time"),
  };
}

/** Parses a JSON-in-a-string field (as_json, tx_json, get_block's json). */
export function innerJson(v: LosslessJson | undefined, what: string): LosslessJson | null {
  if (v === undefined || v === null || v === "") return null;
  try {
    return parseJsonLossless(str(v, what));
  } catch (e) {
    throw new DaemonShapeError(`${what}: ${(e as Error).message}`);
  }
}

export function parseTxEntry(v: LosslessJson): MoneroTxEntry {
  const t = asObj(v, "txs[]");
  const inPool = bool(t.in_pool);
  const asHex = optStr(t.as_hex);
  const prunedHex = optStr(t.pruned_as_hex);
  return {
    txHash: hash32(t.tx_hash, "tx_hash"),
    json: innerJson(t.as_json, "as_json"),
    hex: asHex || prunedHex,
    prunedHex,
    inPool,
    doubleSpendSeen: bool(t.double_spend_seen),
    blockHeight: inPool || t.block_height === undefined ? null : num(t.block_height, "block_height"),
    blockTimestamp: inPool || t.block_timestamp === undefined ? null : num(t.block_timestamp, "block_timestamp"),
    confirmations: optNum(t.confirmations, "confirmations"),
    outputIndices: arr(t.output_indices, "output_indices").map((x) => u64(x, "output_indices[]")),
    receivedTimestamp: t.received_timestamp === undefined ? null : num(t.received_timestamp, "received_timestamp"),
  };
}

export function parsePoolTx(v: LosslessJson): MoneroPoolTx {
  const t = asObj(v, "transactions[]");
  return {
    idHash: hash32(t.id_hash, "id_hash"),
    json: innerJson(t.tx_json, "tx_json"),
    blobHex: optStr(t.tx_blob),
    blobSize: optNum(t.blob_size, "blob_size"),
    weight: optNum(t.weight, "weight"),
    fee: t.fee === undefined ? 0n : u64(t.fee, "fee"),
    receiveTime: optNum(t.receive_time, "receive_time"),
    relayed: bool(t.relayed),
    doubleSpendSeen: bool(t.double_spend_seen),
  };
}

export function parseFeeEstimate(r: Obj): MoneroFeeEstimate {
  const fee = u64(r.fee, "fee");
  const fees = arr(r.fees, "fees").map((f) => u64(f, "fees[]"));
  const mask = r.quantization_mask === undefined ? 1n : u64(r.quantization_mask, "quantization_mask");
  return { fee, fees: fees.length > 0 ? fees : [fee], quantizationMask: mask === 0n ? 1n : mask };
}

/** get_block's answer: header, tx hashes in block order, the blob and the decoded coinbase. */
export function parseBlock(r: Obj): MoneroBlock {
  const header = parseBlockHeader(r.block_header);
  const inner = asObj(innerJson(r.json, "json") ?? undefined, "get_block json");
  const txHashes = arr(r.tx_hashes, "tx_hashes").map((h) => hash32(h, "tx_hashes[]"));
  return {
    header,
    minerTxHash: optStr(r.miner_tx_hash, header.minerTxHash),
    txHashes,
    blob: optStr(r.blob),
    minerTxJson: asObj(inner.miner_tx, "miner_tx"),
  };
}
