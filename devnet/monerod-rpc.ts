/**
 * What the devnet monerod answers, in monerod v0.18's own shapes: the
 * JSON-RPC methods Vigil uses at /json_rpc (get_info, get_block_count,
 * get_last_block_header, get_block_header_by_height/_by_hash,
 * get_block_headers_range, get_block, get_fee_estimate) and the JSON
 * endpoints /get_info, /get_height, /get_transactions,
 * /get_transaction_pool, /get_transaction_pool_hashes, with monerod's error
 * codes and epee's habit of leaving empty arrays out. u64 values stay
 * bigint: the server writes them as bare integers, as monerod does.
 */
import type { BuiltMoneroTx } from "./monero-sender.js";
import { JsonRpcError, type PlainRoute } from "./jsonrpc-server.js";
import { stringifyJsonLossless } from "../src/chains/monero/daemon-client.js";
import { type ChainBlock, ZERO_HASH } from "./monerod-block.js";
import { type DevnetMoneroChain, DEVNET_DIFFICULTY, DEVNET_FEES, DEVNET_QUANTIZATION_MASK } from "./monerod-chain.js";

export interface MonerodProtocol {
  /** JSON-RPC methods of /json_rpc (named params). */
  methods: Record<string, (params: Record<string, unknown>) => unknown>;
  /** The plain JSON endpoints, keyed "POST /path". */
  routes: Record<string, PlainRoute>;
}

/** monerod's answers over one devnet chain; `blockSeconds` is what get_info reports as the block target. */
export function monerodProtocol(chain: DevnetMoneroChain, { blockSeconds }: { blockSeconds: number }): MonerodProtocol {
  return { methods: monerodMethods(chain, blockSeconds), routes: monerodRoutes(chain, blockSeconds) };
}

const base = () => ({ credits: 0, status: "OK", top_hash: "", untrusted: false });

/** epee leaves empty arrays out. */
const arrayField = <T>(name: string, v: T[]): Record<string, T[]> => (v.length > 0 ? { [name]: v } : {});

function monerodMethods(chain: DevnetMoneroChain, blockSeconds: number): MonerodProtocol["methods"] {
  const header = (b: ChainBlock) => blockHeader(chain, b);
  return {
    get_info: () => info(chain, blockSeconds),
    get_block_count: () => ({ ...base(), count: chain.blocks.length }),
    get_last_block_header: () => ({ ...base(), block_header: header(chain.top()) }),
    get_block_header_by_height: (params) => ({ ...base(), block_header: header(blockAt(chain, params.height)) }),
    get_block_header_by_hash: (params) => ({ ...base(), block_header: header(blockByHash(chain, params.hash)) }),
    get_block_headers_range: (params) => {
      const s = params.start_height;
      const e = params.end_height;
      if (typeof s !== "number" || typeof e !== "number" || s > e || e >= chain.blocks.length || s < 0) {
        throw new JsonRpcError(-2, "Invalid start/end heights.");
      }
      if (e - s >= 1000) throw new JsonRpcError(-2, "Too many block headers requested.");
      return { ...base(), headers: chain.blocks.slice(s, e + 1).map(header) };
    },
    get_block: (params) => {
      const b = params.hash !== undefined ? blockByHash(chain, params.hash) : blockAt(chain, params.height ?? -1);
      return {
        ...base(),
        blob: b.built.hex,
        block_header: header(b),
        json: b.built.asJson,
        miner_tx_hash: b.minerTx.txid,
        ...arrayField("tx_hashes", b.txs.map((t) => t.txid)),
      };
    },
    get_fee_estimate: () => ({ ...base(), fee: DEVNET_FEES[0], fees: [...DEVNET_FEES], quantization_mask: DEVNET_QUANTIZATION_MASK }),
  };
}

function monerodRoutes(chain: DevnetMoneroChain, blockSeconds: number): MonerodProtocol["routes"] {
  return {
    "POST /get_info": () => info(chain, blockSeconds),
    "POST /get_height": () => ({ ...base(), hash: chain.top().built.hash, height: chain.blocks.length }),
    "POST /get_transactions": (body) => getTransactions(chain, body),
    "POST /get_transaction_pool": () => ({ ...base(), ...arrayField("transactions", poolEntries(chain)) }),
    "POST /get_transaction_pool_hashes": () => ({ ...base(), ...arrayField("tx_hashes", chain.pool.map((t) => t.txid)) }),
  };
}

function blockHeader(chain: DevnetMoneroChain, b: ChainBlock) {
  return {
    block_size: b.size,
    block_weight: b.size,
    cumulative_difficulty: b.cumulativeDifficulty,
    cumulative_difficulty_top64: 0,
    depth: chain.blocks.length - 1 - b.height,
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
  };
}

/** get_info (JSON-RPC and /get_info). */
function info(chain: DevnetMoneroChain, blockSeconds: number) {
  const t = chain.top();
  return {
    ...base(),
    adjusted_time: chain.nowS(),
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
    height: chain.blocks.length,
    height_without_bootstrap: chain.blocks.length,
    incoming_connections_count: 0,
    mainnet: false,
    nettype: chain.network,
    offline: true,
    outgoing_connections_count: 0,
    restricted: false,
    rpc_connections_count: 1,
    stagenet: false,
    start_time: 0,
    synchronized: true,
    target: blockSeconds > 0 ? Math.round(blockSeconds) : 120,
    target_height: 0,
    testnet: true,
    top_block_hash: t.built.hash,
    tx_count: chain.txIndex.size - chain.blocks.length - chain.pool.length,
    tx_pool_size: chain.pool.length,
    update_available: false,
    version: "0.18.5.1-vigil-devnet",
    was_bootstrap_ever_used: false,
    white_peerlist_size: 0,
    wide_cumulative_difficulty: "0x" + t.cumulativeDifficulty.toString(16),
    wide_difficulty: "0x" + DEVNET_DIFFICULTY.toString(16),
  };
}

function blockAt(chain: DevnetMoneroChain, height: unknown): ChainBlock {
  if (typeof height !== "number" || !Number.isInteger(height) || height < 0) throw new JsonRpcError(-1, "Invalid height");
  const b = chain.blocks[height];
  if (!b) {
    throw new JsonRpcError(-2, `Requested block height: ${height} greater than current top block height: ${chain.blocks.length - 1}`);
  }
  return b;
}

function blockByHash(chain: DevnetMoneroChain, hash: unknown): ChainBlock {
  const b = typeof hash === "string" ? chain.blockByHash(hash) : undefined;
  if (!b) throw new JsonRpcError(-5, `Internal error: can't get block by hash. Hash = ${String(hash)}.`);
  return b;
}

function prunedJson(t: BuiltMoneroTx): string {
  const { rctsig_prunable: _p, ...rest } = t.json;
  return stringifyJsonLossless(rest);
}

/** /get_transactions: each asked transaction from the pool or a block, the unknown ones as missed. */
function getTransactions(chain: DevnetMoneroChain, body: Record<string, unknown>): unknown {
  const hashes = Array.isArray(body.txs_hashes) ? body.txs_hashes : [];
  const decode = body.decode_as_json === true;
  const prune = body.prune === true;
  const txs: unknown[] = [];
  const missed: string[] = [];
  const tipCount = chain.blocks.length;
  for (const h of hashes) {
    const entry = typeof h === "string" ? chain.txIndex.get(h) : undefined;
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
        block_timestamp: chain.blocks[entry.height]!.timestamp,
        confirmations: tipCount - entry.height,
        in_pool: false,
        output_indices: entry.outputIndices,
      });
    }
  }
  return { ...base(), ...arrayField("missed_tx", missed), ...arrayField("txs", txs) };
}

function poolEntries(chain: DevnetMoneroChain) {
  return chain.pool.map((t) => ({
    blob_size: t.blob.length,
    do_not_relay: false,
    double_spend_seen: false,
    fee: t.fee,
    id_hash: t.txid,
    kept_by_block: false,
    last_failed_height: 0,
    last_failed_id_hash: ZERO_HASH,
    last_relayed_time: chain.txIndex.get(t.txid)?.receivedAt ?? 0,
    max_used_block_height: chain.blocks.length - 1,
    max_used_block_id_hash: chain.top().built.hash,
    receive_time: chain.txIndex.get(t.txid)?.receivedAt ?? 0,
    relayed: true,
    tx_blob: t.hex,
    tx_json: t.asJson,
    weight: t.blob.length,
  }));
}
