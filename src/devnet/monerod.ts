/**
 * A simulated monerod on loopback for the devnet and tests. It speaks the
 * same wire protocol as monerod v0.18 for what Vigil uses — JSON-RPC at
 * /json_rpc (get_info, get_block_count, get_last_block_header,
 * get_block_header_by_height/_by_hash, get_block_headers_range, get_block,
 * get_fee_estimate) and the JSON endpoints /get_info, /get_height,
 * /get_transactions, /get_transaction_pool, /get_transaction_pool_hashes —
 * including epee's habit of omitting empty arrays and u64s written as bare
 * integers. Blocks, coinbases and transfers are built by monero-sender.ts
 * with real sender-side cryptography, so a view-key scanner finds devnet
 * payments exactly as it would on mainnet.
 *
 * Devnet-only endpoints: POST /devnet/send {address, amount_piconero},
 * POST /devnet/mine {blocks}, POST /devnet/reorg {depth}, GET /devnet/wallets.
 * Addresses use the Monero testnet prefixes (never mainnet). The chain lives
 * in memory; the ready wallets come from a seed kept under
 * <dataDir>/devnet/monero-wallets.json (created on first start).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { request } from "undici";
import { systemClock, type Clock } from "../core/clock.js";
import { decodeAddress, encodeAddress } from "../chains/monero/address.js";
import { hashToScalar, mulBase, scalarToBytes } from "../chains/monero/crypto.js";
import { parseJsonLossless, stringifyJsonLossless } from "../chains/monero/daemon-client.js";
import { parseBlockBlob } from "../chains/monero/tx-binary.js";
import { bytesToHex, concatBytes, encodeVarint, hexToBytesStrict } from "../chains/monero/encoding.js";
import { formatXmr, parseXmr } from "../core/money.js";
import { deriveSubaddress } from "../chains/monero/subaddress.js";
import type { MoneroNetwork } from "../chains/monero/types.js";
import { buildBlock, buildCoinbase, buildTransfer, type BuiltMoneroBlock, type BuiltMoneroTx } from "./monero-sender.js";

export const DEVNET_MONERO_NETWORK: MoneroNetwork = "testnet";
/** Tail emission: 0.6 XMR per block. */
export const DEVNET_BLOCK_REWARD = 600_000_000_000n;
export const DEVNET_DIFFICULTY = 120_000n;
/** Per-byte fees for low/normal/elevated/priority, as monerod's docs example. */
export const DEVNET_FEES = [20_000n, 80_000n, 320_000n, 4_000_000n] as const;
export const DEVNET_QUANTIZATION_MASK = 10_000n;
const DEVNET_TX_FEE = 30_000_000n;
const MAX_TXS_PER_BLOCK = 200;

export interface DevnetMoneroWallet {
  chain: "monero";
  network: MoneroNetwork;
  label: string;
  address: string;
  viewKey: string;
  spendKey: string;
  /** A few subaddresses of the wallet (index → address), for subaddress watches. */
  subaddresses: { major: number; minor: number; address: string }[];
}

interface ChainTx {
  tx: BuiltMoneroTx;
  height: number | null;
  receivedAt: number;
  outputIndices: bigint[];
}

interface ChainBlock {
  height: number;
  built: BuiltMoneroBlock;
  minerTx: BuiltMoneroTx;
  txs: BuiltMoneroTx[];
  timestamp: number;
  reward: bigint;
  size: number;
  cumulativeDifficulty: bigint;
}

export interface DevnetMonerod {
  url: string;
  network: MoneroNetwork;
  wallets: DevnetMoneroWallet[];
  /** Height of the newest block. */
  height(): number;
  /** Mines n blocks (with the pool's transactions in the first); returns their hashes. */
  mine(n?: number): string[];
  /** Builds a transfer to `address` and puts it in the pool; returns the txid. */
  send(address: string, piconero: bigint): string;
  /**
   * Replaces the newest `depth` blocks with empty ones. Their transfers are
   * dropped (default) or, with keepTxs, returned to the pool as a real node
   * does with transactions of orphaned blocks. Returns those txids.
   */
  reorg(depth: number, opts?: { keepTxs?: boolean }): string[];
  /** Requests served, by JSON-RPC method or path (for tests that count fetches). */
  requestCounts(): Record<string, number>;
  resetRequestCounts(): void;
  /** Makes the next `count` HTTP requests answer `status` (default 500), for retry tests. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

export interface StartDevnetMonerodOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  dataDir: string;
  /** Mines a block every blockSeconds (timer is unref'd); 0 disables the timer. */
  blockSeconds: number;
  log?: Logger;
  clock?: Clock;
  /** Blocks mined at start when there is no saved chain (default 1, the genesis). */
  initialBlocks?: number;
  /**
   * Keep the chain in <dataDir>/devnet/monero-chain.jsonl and reload it on the
   * next start (default true), so watches stored by a previous run still
   * match the chain. The pool is not kept.
   */
  persistChain?: boolean;
}

// ---------------------------------------------------------------------------
// Wallets
// ---------------------------------------------------------------------------

const WALLET_LABELS = ["alice", "bob", "carol", "miner"] as const;

interface WalletSeedFile {
  seed: string;
  network: MoneroNetwork;
}

function loadOrCreateSeed(dataDir: string): WalletSeedFile {
  const dir = path.join(dataDir, "devnet");
  const file = path.join(dir, "monero-wallets.json");
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<WalletSeedFile>;
    if (typeof parsed.seed === "string" && /^[0-9a-f]{64}$/.test(parsed.seed)) {
      return { seed: parsed.seed, network: DEVNET_MONERO_NETWORK };
    }
  } catch {
    // first start
  }
  fs.mkdirSync(dir, { recursive: true });
  const created: WalletSeedFile = { seed: randomBytes(32).toString("hex"), network: DEVNET_MONERO_NETWORK };
  fs.writeFileSync(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  return created;
}

/**
 * Wallet i: spend secret b = Hs(seed ‖ "vigil-devnet-monero" ‖ i); view secret
 * a = Hs(b) as in Monero's standard (25-word) wallets.
 */
export function deriveDevnetWallets(seedHex: string, network: MoneroNetwork = DEVNET_MONERO_NETWORK): DevnetMoneroWallet[] {
  const seed = hexToBytesStrict(seedHex);
  if (!seed || seed.length !== 32) throw new RangeError("devnet wallet seed must be 32 bytes of hex");
  const tag = new TextEncoder().encode("vigil-devnet-monero");
  return WALLET_LABELS.map((label, i) => {
    const b = hashToScalar(concatBytes(seed, tag, encodeVarint(i)));
    const spendSecret = scalarToBytes(b);
    const a = hashToScalar(spendSecret);
    const viewSecret = scalarToBytes(a);
    const B = mulBase(b).toBytes();
    const A = mulBase(a).toBytes();
    const subaddresses = [
      { major: 0, minor: 1 },
      { major: 0, minor: 2 },
      { major: 1, minor: 1 },
    ].map((idx) => ({ ...idx, address: deriveSubaddress(network, viewSecret, B, idx) }));
    return {
      chain: "monero" as const,
      network,
      label,
      address: encodeAddress(network, "standard", B, A),
      viewKey: bytesToHex(viewSecret),
      spendKey: bytesToHex(spendSecret),
      subaddresses,
    };
  });
}

// ---------------------------------------------------------------------------
// Chain file: one JSON line per block (appended as blocks are mined, rewritten on reorg)
// ---------------------------------------------------------------------------

interface SavedTx {
  txid: string;
  hex: string;
  prunedHex: string;
  prunableHex: string;
  prunableHash: string;
  asJson: string;
  txPublicKey: string;
  additionalPublicKeys: string[];
  outputs: { address: string; amount: string; outputIndex: number; publicKey: string; viewTag: number }[];
  unlockTime: string;
  fee: string;
}

interface SavedBlock {
  height: number;
  hash: string;
  hex: string;
  asJson: string;
  minerTx: SavedTx;
  txs: SavedTx[];
  timestamp: number;
  reward: string;
  size: number;
  cumulativeDifficulty: string;
}

function saveTx(t: BuiltMoneroTx): SavedTx {
  return {
    txid: t.txid,
    hex: t.hex,
    prunedHex: t.prunedHex,
    prunableHex: t.prunableHex,
    prunableHash: t.prunableHash,
    asJson: t.asJson,
    txPublicKey: t.txPublicKey,
    additionalPublicKeys: t.additionalPublicKeys,
    outputs: t.outputs.map((o) => ({ ...o, amount: o.amount.toString() })),
    unlockTime: t.unlockTime.toString(),
    fee: t.fee.toString(),
  };
}

function loadTx(t: SavedTx): BuiltMoneroTx {
  const blob = hexToBytesStrict(t.hex);
  if (!blob) throw new Error(`bad hex in saved tx ${t.txid}`);
  return {
    txid: t.txid,
    blob,
    hex: t.hex,
    prunedHex: t.prunedHex,
    prunableHex: t.prunableHex,
    prunableHash: t.prunableHash,
    json: parseJsonLossless(t.asJson) as unknown as BuiltMoneroTx["json"],
    asJson: t.asJson,
    txPublicKey: t.txPublicKey,
    additionalPublicKeys: t.additionalPublicKeys,
    outputs: t.outputs.map((o) => ({ ...o, amount: BigInt(o.amount) })),
    unlockTime: BigInt(t.unlockTime),
    fee: BigInt(t.fee),
  };
}

function saveBlock(b: ChainBlock): SavedBlock {
  return {
    height: b.height,
    hash: b.built.hash,
    hex: b.built.hex,
    asJson: b.built.asJson,
    minerTx: saveTx(b.minerTx),
    txs: b.txs.map(saveTx),
    timestamp: b.timestamp,
    reward: b.reward.toString(),
    size: b.size,
    cumulativeDifficulty: b.cumulativeDifficulty.toString(),
  };
}

function loadBlock(x: SavedBlock): ChainBlock {
  const blob = hexToBytesStrict(x.hex);
  if (!blob) throw new Error(`bad hex in saved block ${x.height}`);
  const minerTx = loadTx(x.minerTx);
  const txs = x.txs.map(loadTx);
  // The block id is recomputed from the parts, so a damaged file cannot smuggle in a wrong chain.
  const parsed = parseBlockBlob(blob);
  if (!parsed.ok || parsed.value.hash !== x.hash || parsed.value.minerTx.txid !== minerTx.txid) {
    throw new Error(`saved block ${x.height} does not hash to ${x.hash}`);
  }
  return {
    height: x.height,
    built: { hash: x.hash, blob, hex: x.hex, json: parseJsonLossless(x.asJson) as unknown as BuiltMoneroBlock["json"], asJson: x.asJson },
    minerTx,
    txs,
    timestamp: x.timestamp,
    reward: BigInt(x.reward),
    size: x.size,
    cumulativeDifficulty: BigInt(x.cumulativeDifficulty),
  };
}

/** Reads a saved chain; null when there is none or it does not link up from the genesis. */
function readChainFile(file: string): ChainBlock[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const blocks: ChainBlock[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const b = loadBlock(JSON.parse(line) as SavedBlock);
    const prev = blocks[blocks.length - 1];
    if (b.height !== blocks.length || b.built.json.prev_id !== (prev ? prev.built.hash : ZERO_HASH)) {
      throw new Error(`saved chain breaks at height ${b.height}`);
    }
    blocks.push(b);
  }
  return blocks.length > 0 ? blocks : null;
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

function readBody(req: http.IncomingMessage, limit = 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, { error: "body too large" }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const ZERO_HASH = "0".repeat(64);

export async function startDevnetMonerod(opts: StartDevnetMonerodOptions): Promise<DevnetMonerod> {
  const clock = opts.clock ?? systemClock;
  const network = DEVNET_MONERO_NETWORK;
  const wallets = deriveDevnetWallets(loadOrCreateSeed(opts.dataDir).seed, network);
  const miner = wallets.find((w) => w.label === "miner")!;

  const persist = opts.persistChain ?? true;
  const chainFile = path.join(opts.dataDir, "devnet", "monero-chain.jsonl");
  const blocks: ChainBlock[] = [];
  const byHash = new Map<string, ChainBlock>();
  const txIndex = new Map<string, ChainTx>();
  let pool: BuiltMoneroTx[] = [];
  let nextGlobalOutput = 0n;
  const counts: Record<string, number> = {};
  let failures = { count: 0, status: 500 };

  const nowS = () => Math.floor(clock.now() / 1000);
  const top = () => blocks[blocks.length - 1]!;

  const mineOne = (includePool: boolean): ChainBlock => {
    const height = blocks.length;
    const included = includePool ? pool.slice(0, MAX_TXS_PER_BLOCK) : [];
    if (includePool) pool = pool.slice(included.length);
    const fees = included.reduce((s, t) => s + t.fee, 0n);
    const reward = DEVNET_BLOCK_REWARD + fees;
    const minerTx = buildCoinbase({ destinations: [{ address: miner.address, amount: reward }], height });
    const prev = blocks.length > 0 ? top() : null;
    // Strictly increasing timestamps even when several blocks are mined in one second.
    const timestamp = Math.max(nowS(), prev ? prev.timestamp + 1 : 0);
    const built = buildBlock({
      minerTx,
      txHashes: included.map((t) => t.txid),
      prevId: prev ? prev.built.hash : ZERO_HASH,
      timestamp,
      nonce: randomBytes(4).readUInt32LE(0),
    });
    const size = built.blob.length + included.reduce((s, t) => s + t.blob.length, 0);
    const block: ChainBlock = {
      height,
      built,
      minerTx,
      txs: included,
      timestamp,
      reward,
      size,
      cumulativeDifficulty: (prev ? prev.cumulativeDifficulty : 0n) + DEVNET_DIFFICULTY,
    };
    append(block);
    if (persist) fs.appendFileSync(chainFile, JSON.stringify(saveBlock(block)) + "\n");
    opts.log?.debug({ height, hash: built.hash, txs: included.length }, "devnet monerod mined a block");
    return block;
  };

  /** Adds a block to the in-memory chain and its indexes. */
  function append(block: ChainBlock): void {
    blocks.push(block);
    byHash.set(block.built.hash, block);
    for (const t of [block.minerTx, ...block.txs]) {
      const outputIndices = t.outputs.map(() => nextGlobalOutput++);
      txIndex.set(t.txid, { tx: t, height: block.height, receivedAt: txIndex.get(t.txid)?.receivedAt ?? block.timestamp, outputIndices });
    }
  }

  const mine = (n = 1): string[] => {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) hashes.push(mineOne(true).built.hash);
    return hashes;
  };

  const send = (address: string, piconero: bigint): string => {
    const d = decodeAddress(address);
    if (!d.ok) throw new HttpError(400, { error: { code: "invalid_address", message: `Not a Monero address: ${d.error}` } });
    if (d.value.network !== network) {
      throw new HttpError(400, {
        error: { code: "invalid_address", message: `The devnet runs Monero ${network}; this is a ${d.value.network} address.` },
      });
    }
    if (piconero <= 0n || piconero >= 1n << 64n) {
      throw new HttpError(400, { error: { code: "invalid_amount", message: "amount must be between 1 piconero and 2^64−1" } });
    }
    const tx = buildTransfer({ destinations: [{ address, amount: piconero }], fee: DEVNET_TX_FEE });
    pool.push(tx);
    txIndex.set(tx.txid, { tx, height: null, receivedAt: nowS(), outputIndices: [] });
    opts.log?.info({ txid: tx.txid, amount: formatXmr(piconero) }, "devnet monerod accepted a transfer");
    return tx.txid;
  };

  const reorg = (depth: number, ropts: { keepTxs?: boolean } = {}): string[] => {
    if (!Number.isInteger(depth) || depth < 1 || depth >= blocks.length) {
      throw new HttpError(400, { error: { code: "invalid_depth", message: `depth must be 1..${blocks.length - 1}` } });
    }
    const removed = blocks.splice(blocks.length - depth, depth);
    const dropped: string[] = [];
    for (const b of removed) {
      byHash.delete(b.built.hash);
      txIndex.delete(b.minerTx.txid);
      nextGlobalOutput -= BigInt(b.minerTx.outputs.length);
      for (const t of b.txs) {
        nextGlobalOutput -= BigInt(t.outputs.length);
        dropped.push(t.txid);
        if (ropts.keepTxs) {
          pool.push(t);
          txIndex.set(t.txid, { tx: t, height: null, receivedAt: txIndex.get(t.txid)?.receivedAt ?? nowS(), outputIndices: [] });
        } else {
          txIndex.delete(t.txid);
        }
      }
    }
    if (persist) fs.writeFileSync(chainFile, blocks.map((b) => JSON.stringify(saveBlock(b)) + "\n").join(""));
    for (let i = 0; i < depth; i++) mineOne(false);
    opts.log?.info({ depth, dropped: dropped.length }, "devnet monerod reorganised");
    return dropped;
  };

  // -- monerod answer shapes -------------------------------------------------

  const base = () => ({ credits: 0, status: "OK", top_hash: "", untrusted: false });

  const header = (b: ChainBlock) => ({
    block_size: b.size,
    block_weight: b.size,
    cumulative_difficulty: b.cumulativeDifficulty,
    cumulative_difficulty_top64: 0,
    depth: blocks.length - 1 - b.height,
    difficulty: DEVNET_DIFFICULTY,
    difficulty_top64: 0,
    hash: b.built.hash,
    height: b.height,
    long_term_weight: b.size,
    major_version: b.built.json.major_version,
    miner_tx_hash: b.minerTx.txid,
    minor_version: b.built.json.minor_version,
    nonce: b.built.json.nonce,
    num_txes: b.txs.length,
    orphan_status: false,
    pow_hash: "",
    prev_hash: b.built.json.prev_id,
    reward: b.reward,
    timestamp: b.timestamp,
    wide_cumulative_difficulty: "0x" + b.cumulativeDifficulty.toString(16),
    wide_difficulty: "0x" + DEVNET_DIFFICULTY.toString(16),
  });

  const info = () => {
    const t = top();
    return {
      ...base(),
      adjusted_time: nowS(),
      alt_blocks_count: 0,
      block_size_limit: 600000,
      block_size_median: 300000,
      block_weight_limit: 600000,
      block_weight_median: 300000,
      bootstrap_daemon_address: "",
      busy_syncing: false,
      cumulative_difficulty: t.cumulativeDifficulty,
      cumulative_difficulty_top64: 0,
      database_size: 0,
      difficulty: DEVNET_DIFFICULTY,
      difficulty_top64: 0,
      free_space: 0,
      grey_peerlist_size: 0,
      height: blocks.length,
      height_without_bootstrap: blocks.length,
      incoming_connections_count: 0,
      mainnet: false,
      nettype: network,
      offline: true,
      outgoing_connections_count: 0,
      restricted: false,
      rpc_connections_count: 1,
      stagenet: false,
      start_time: 0,
      synchronized: true,
      target: opts.blockSeconds > 0 ? Math.round(opts.blockSeconds) : 120,
      target_height: 0,
      testnet: true,
      top_block_hash: t.built.hash,
      tx_count: txIndex.size - blocks.length - pool.length,
      tx_pool_size: pool.length,
      update_available: false,
      version: "0.18.5.1-vigil-devnet",
      was_bootstrap_ever_used: false,
      white_peerlist_size: 0,
      wide_cumulative_difficulty: "0x" + t.cumulativeDifficulty.toString(16),
      wide_difficulty: "0x" + DEVNET_DIFFICULTY.toString(16),
    };
  };

  const blockAt = (height: unknown): ChainBlock => {
    if (typeof height !== "number" || !Number.isInteger(height) || height < 0) throw new RpcError(-1, "Invalid height");
    const b = blocks[height];
    if (!b) {
      throw new RpcError(-2, `Requested block height: ${height} greater than current top block height: ${blocks.length - 1}`);
    }
    return b;
  };

  const blockByHash = (hash: unknown): ChainBlock => {
    const b = typeof hash === "string" ? byHash.get(hash) : undefined;
    if (!b) throw new RpcError(-5, `Internal error: can't get block by hash. Hash = ${String(hash)}.`);
    return b;
  };

  /** epee leaves empty arrays out. */
  const arrayField = <T>(name: string, v: T[]): Record<string, T[]> => (v.length > 0 ? { [name]: v } : {});

  const jsonRpc = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case "get_info":
        return info();
      case "get_block_count":
        return { ...base(), count: blocks.length };
      case "get_last_block_header":
        return { ...base(), block_header: header(top()) };
      case "get_block_header_by_height":
        return { ...base(), block_header: header(blockAt(params.height)) };
      case "get_block_header_by_hash":
        return { ...base(), block_header: header(blockByHash(params.hash)) };
      case "get_block_headers_range": {
        const s = params.start_height;
        const e = params.end_height;
        if (typeof s !== "number" || typeof e !== "number" || s > e || e >= blocks.length || s < 0) {
          throw new RpcError(-2, "Invalid start/end heights.");
        }
        if (e - s >= 1000) throw new RpcError(-2, "Too many block headers requested.");
        return { ...base(), headers: blocks.slice(s, e + 1).map(header) };
      }
      case "get_block": {
        const b = params.hash !== undefined ? blockByHash(params.hash) : blockAt(params.height ?? -1);
        return {
          ...base(),
          blob: b.built.hex,
          block_header: header(b),
          json: b.built.asJson,
          miner_tx_hash: b.minerTx.txid,
          ...arrayField("tx_hashes", b.txs.map((t) => t.txid)),
        };
      }
      case "get_fee_estimate":
        return { ...base(), fee: DEVNET_FEES[0], fees: [...DEVNET_FEES], quantization_mask: DEVNET_QUANTIZATION_MASK };
      default:
        throw new RpcError(-32601, "Method not found");
    }
  };

  const prunedJson = (t: BuiltMoneroTx): string => {
    const { rctsig_prunable: _p, ...rest } = t.json;
    return stringifyJsonLossless(rest);
  };

  const getTransactions = (body: Record<string, unknown>): unknown => {
    const hashes = Array.isArray(body.txs_hashes) ? body.txs_hashes : [];
    const decode = body.decode_as_json === true;
    const prune = body.prune === true;
    const txs: unknown[] = [];
    const missed: string[] = [];
    const tipCount = blocks.length;
    for (const h of hashes) {
      const entry = typeof h === "string" ? txIndex.get(h) : undefined;
      if (!entry) {
        missed.push(String(h));
        continue;
      }
      const t = entry.tx;
      const common = {
        as_hex: prune ? "" : t.hex,
        as_json: decode ? (prune ? prunedJson(t) : t.asJson) : "",
        double_spend_seen: false,
        prunable_as_hex: prune ? "" : t.prunableHex,
        prunable_hash: t.prunableHash,
        pruned_as_hex: prune ? t.prunedHex : "",
        tx_hash: t.txid,
      };
      if (entry.height === null) {
        txs.push({ ...common, in_pool: true, relayed: true, received_timestamp: entry.receivedAt });
      } else {
        txs.push({
          ...common,
          block_height: entry.height,
          block_timestamp: blocks[entry.height]!.timestamp,
          confirmations: tipCount - entry.height,
          in_pool: false,
          output_indices: entry.outputIndices,
        });
      }
    }
    return { ...base(), ...arrayField("missed_tx", missed), ...arrayField("txs", txs) };
  };

  const poolEntries = () =>
    pool.map((t) => ({
      blob_size: t.blob.length,
      do_not_relay: false,
      double_spend_seen: false,
      fee: t.fee,
      id_hash: t.txid,
      kept_by_block: false,
      last_failed_height: 0,
      last_failed_id_hash: ZERO_HASH,
      last_relayed_time: txIndex.get(t.txid)?.receivedAt ?? 0,
      max_used_block_height: blocks.length - 1,
      max_used_block_id_hash: top().built.hash,
      receive_time: txIndex.get(t.txid)?.receivedAt ?? 0,
      relayed: true,
      tx_blob: t.hex,
      tx_json: t.asJson,
      weight: t.blob.length,
    }));

  const handle = async (req: http.IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const url = new URL(req.url ?? "/", "http://devnet");
    const route = url.pathname;
    if (req.method === "GET" && route === "/devnet/wallets") {
      counts[route] = (counts[route] ?? 0) + 1;
      return { status: 200, body: { network, wallets } };
    }
    if (req.method !== "POST") throw new HttpError(405, { error: "use POST" });
    const text = await readBody(req);
    let body: Record<string, unknown> = {};
    if (text.trim() !== "") {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      } catch {
        // monerod answers unparsable JSON-RPC with a parse error
        if (route === "/json_rpc") return { status: 200, body: { jsonrpc: "2.0", id: "0", error: { code: -32700, message: "Parse error" } } };
        throw new HttpError(400, { error: "invalid JSON" });
      }
    }
    if (route === "/json_rpc") {
      const method = typeof body.method === "string" ? body.method : "";
      counts[method] = (counts[method] ?? 0) + 1;
      const params = body.params && typeof body.params === "object" ? (body.params as Record<string, unknown>) : {};
      const id = body.id ?? "0";
      try {
        return { status: 200, body: { id, jsonrpc: "2.0", result: jsonRpc(method, params) } };
      } catch (e) {
        if (e instanceof RpcError) return { status: 200, body: { id, jsonrpc: "2.0", error: { code: e.code, message: e.message } } };
        throw e;
      }
    }
    counts[route] = (counts[route] ?? 0) + 1;
    switch (route) {
      case "/get_info":
        return { status: 200, body: info() };
      case "/get_height":
        return { status: 200, body: { ...base(), hash: top().built.hash, height: blocks.length } };
      case "/get_transactions":
        return { status: 200, body: getTransactions(body) };
      case "/get_transaction_pool":
        return { status: 200, body: { ...base(), ...arrayField("transactions", poolEntries()) } };
      case "/get_transaction_pool_hashes":
        return { status: 200, body: { ...base(), ...arrayField("tx_hashes", pool.map((t) => t.txid)) } };
      case "/devnet/send": {
        const address = typeof body.address === "string" ? body.address.trim() : "";
        const raw = body.amount_piconero;
        const amount =
          typeof raw === "string" && /^\d{1,20}$/.test(raw) ? BigInt(raw) : typeof raw === "number" && Number.isSafeInteger(raw) ? BigInt(raw) : -1n;
        const txid = send(address, amount);
        return {
          status: 200,
          body: { txid, address, amount_piconero: amount.toString(), amount_xmr: formatXmr(amount), fee_piconero: DEVNET_TX_FEE.toString() },
        };
      }
      case "/devnet/mine": {
        const n = body.blocks === undefined ? 1 : body.blocks;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000) {
          throw new HttpError(400, { error: { code: "invalid_blocks", message: "blocks must be 1..1000" } });
        }
        const hashes = mine(n);
        return { status: 200, body: { height: blocks.length - 1, hashes } };
      }
      case "/devnet/reorg": {
        const keepTxs = body.keep_txs === true;
        const moved = reorg(typeof body.depth === "number" ? body.depth : NaN, { keepTxs });
        return { status: 200, body: { height: blocks.length - 1, [keepTxs ? "returned_to_pool_txids" : "dropped_txids"]: moved } };
      }
      default:
        throw new HttpError(404, { error: "not found" });
    }
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      const text = typeof body === "string" ? body : stringifyJsonLossless(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (failures.count > 0) {
      failures.count--;
      req.resume();
      reply(failures.status, { error: "injected failure" });
      return;
    }
    handle(req).then(
      (r) => reply(r.status, r.body),
      (e: unknown) => {
        if (e instanceof HttpError) reply(e.status, e.body);
        else {
          opts.log?.error({ err: e }, "devnet monerod request failed");
          reply(500, { error: "internal error" });
        }
      },
    );
  });

  let saved: ChainBlock[] | null = null;
  if (persist) {
    fs.mkdirSync(path.dirname(chainFile), { recursive: true });
    try {
      saved = readChainFile(chainFile);
    } catch (e) {
      opts.log?.warn({ err: (e as Error).message }, "devnet monerod: saved chain unreadable; starting a new one");
      fs.rmSync(chainFile, { force: true });
    }
  }
  if (saved) {
    for (const b of saved) append(b);
    opts.log?.info({ height: blocks.length - 1 }, "devnet monerod reloaded its chain");
  } else {
    const initial = Math.max(1, opts.initialBlocks ?? 1);
    for (let i = 0; i < initial; i++) mineOne(false);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;

  let timer: NodeJS.Timeout | undefined;
  if (opts.blockSeconds > 0) {
    timer = setInterval(() => {
      try {
        mine(1);
      } catch (e) {
        opts.log?.error({ err: e }, "devnet monerod could not mine a block");
      }
    }, opts.blockSeconds * 1000);
    timer.unref();
  }
  opts.log?.info({ url, network, height: blocks.length - 1 }, "devnet monerod listening");

  return {
    url,
    network,
    wallets,
    height: () => blocks.length - 1,
    mine,
    send,
    reorg,
    requestCounts: () => ({ ...counts }),
    resetRequestCounts: () => {
      for (const k of Object.keys(counts)) delete counts[k];
    },
    failNext: (count: number, status = 500) => {
      failures = { count, status };
    },
    close: async () => {
      if (timer) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------
// Client side of the devnet endpoints (used by `vigil devnet send monero …`)
// ---------------------------------------------------------------------------

export interface DevnetSendResult {
  txid: string;
  address: string;
  amount_piconero: string;
  amount_xmr: string;
  fee_piconero: string;
}

/** Sends devnet XMR: `amountXmr` is an exact decimal string ("0.25"), converted without floats. */
export async function devnetMoneroSend(url: string, address: string, amountXmr: string): Promise<DevnetSendResult> {
  const piconero = parseXmr(amountXmr);
  if (piconero <= 0n) throw new RangeError("amount must be more than 0 XMR");
  const res = await request(new URL("/devnet/send", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address, amount_piconero: piconero.toString() }),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`devnet monerod answered HTTP ${res.statusCode} with non-JSON`);
  }
  if (res.statusCode !== 200) {
    const err = (parsed as { error?: { message?: string } | string }).error;
    const message = typeof err === "string" ? err : err?.message ?? `HTTP ${res.statusCode}`;
    throw new Error(`devnet send failed: ${message}`);
  }
  return parsed as DevnetSendResult;
}

/** Mines blocks on a running devnet (for scripts and the CLI). */
export async function devnetMoneroMine(url: string, blocks = 1): Promise<{ height: number; hashes: string[] }> {
  const res = await request(new URL("/devnet/mine", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ blocks }),
  });
  const parsed = (await res.body.json()) as { height: number; hashes: string[] };
  if (res.statusCode !== 200) throw new Error(`devnet mine failed: HTTP ${res.statusCode}`);
  return parsed;
}

/** Lists the ready wallets of a running devnet. */
export async function devnetMoneroWallets(url: string): Promise<DevnetMoneroWallet[]> {
  const res = await request(new URL("/devnet/wallets", url));
  if (res.statusCode !== 200) throw new Error(`devnet wallets failed: HTTP ${res.statusCode}`);
  return ((await res.body.json()) as { wallets: DevnetMoneroWallet[] }).wallets;
}

/** Exact XMR → piconero (re-exported for the CLI). */
export { parseXmr, formatXmr };
