/**
 * Blocks as the scanner needs them: header, then every transaction decoded
 * and prepared for scanning (coinbase first, then block order). Each block
 * is fetched once — get_block by hash, its transactions by /get_transactions
 * in chunks of 100 — and kept in an LRU keyed by block hash: a hash names
 * one block forever, so entries never go stale and a reorg simply asks for
 * other hashes. A few requests are kept in flight, because against a remote
 * daemon round trips dominate catch-up.
 */
import { LRUCache } from "lru-cache";
import pMap from "p-map";
import { upstreamFailed } from "../../core/errors.js";
import type { MoneroBlockHeader, MoneroDaemon, MoneroTxEntry } from "./daemon-client.js";
import { hexToBytesStrict } from "./encoding.js";
import { prepareTx, type PreparedTx } from "./scan.js";
import { parseTransactionBlob, txFromDaemonJson } from "./tx-binary.js";
import { outputKindViolation } from "./carrot/tx.js";
import type { ScanTx } from "./types.js";

/** Hashes per /get_transactions request (restricted-node limit). */
const TXS_PER_REQUEST = 100;

export interface ScanBlock {
  height: number;
  hash: string;
  prevHash: string;
  timestamp: number;
  /** Coinbase first, then the block's transactions in order. */
  txs: PreparedTx[];
}

/** A decoded tx from a /get_transactions entry: the JSON form, else the (pruned) blob. */
export function scanTxFromEntry(entry: MoneroTxEntry): ScanTx {
  if (entry.json !== null) {
    const r = txFromDaemonJson(entry.json, entry.txHash);
    if (r.ok) return r.value;
  }
  const bytes = entry.hex ? hexToBytesStrict(entry.hex) : null;
  if (bytes) {
    const r = parseTransactionBlob(bytes);
    if (r.ok) return { ...r.value, txid: entry.txHash };
  }
  throw upstreamFailed("chain_rpc_failed", `Monero daemon sent transaction ${entry.txHash} in a form that cannot be read`, {
    txid: entry.txHash,
  });
}

/**
 * The fork the block was mined under decides which output kinds it may hold
 * (legacy before v17, either in v17, Carrot from v18): a block that breaks
 * the rule is refused as the daemon's failure, never scanned.
 */
function keepsForkRules(tx: ScanTx, header: MoneroBlockHeader): ScanTx {
  const violation = outputKindViolation(tx, header.majorVersion);
  if (violation) {
    throw upstreamFailed("chain_rpc_failed", `Monero daemon sent block ${header.height} with transaction ${tx.txid} that breaks its fork's rules: ${violation}`, {
      height: header.height,
      txid: tx.txid,
      majorVersion: header.majorVersion,
    });
  }
  return tx;
}

export class MoneroBlockSource {
  private readonly cache: LRUCache<string, ScanBlock>;
  /** Requests made, for tests and metrics. */
  readonly stats = { blocksFetched: 0, blockCacheHits: 0, txsFetched: 0 };

  private readonly concurrency: number;

  constructor(
    readonly daemon: MoneroDaemon,
    opts: { cacheBlocks?: number; concurrency?: number } = {},
  ) {
    this.cache = new LRUCache({ max: Math.max(1, opts.cacheBlocks ?? 512) });
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
  }

  /** Headers for the given heights; contiguous runs are fetched with one range request each. */
  async headers(heights: number[], signal?: AbortSignal): Promise<Map<number, MoneroBlockHeader>> {
    const sorted = [...new Set(heights)].sort((a, b) => a - b);
    const out = new Map<number, MoneroBlockHeader>();
    let i = 0;
    while (i < sorted.length) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
      const hs = await this.daemon.getBlockHeadersRange(sorted[i]!, sorted[j]!, signal);
      for (const h of hs) out.set(h.height, h);
      i = j + 1;
    }
    return out;
  }

  /** Blocks for the given headers (in the given order), from the cache or the daemon. */
  async blocks(headers: MoneroBlockHeader[], signal?: AbortSignal): Promise<ScanBlock[]> {
    const result = new Map<string, ScanBlock>();
    const missing: MoneroBlockHeader[] = [];
    for (const h of headers) {
      const hit = this.cache.get(h.hash);
      if (hit) {
        this.stats.blockCacheHits++;
        result.set(h.hash, hit);
      } else if (!missing.some((m) => m.hash === h.hash)) {
        missing.push(h);
      }
    }
    if (missing.length > 0) {
      for (const block of await this.fetch(missing, signal)) {
        this.cache.set(block.hash, block);
        result.set(block.hash, block);
      }
    }
    return headers.map((h) => result.get(h.hash)!);
  }

  /** The blocks of `headers` from the daemon, each checked against the hash asked for. */
  private async fetch(headers: MoneroBlockHeader[], signal?: AbortSignal): Promise<ScanBlock[]> {
    const raw = await pMap(
      headers,
      async (h) => {
        const b = await this.daemon.getBlock({ hash: h.hash }, signal);
        this.stats.blocksFetched++;
        if (b.header.hash !== h.hash) {
          throw upstreamFailed("chain_rpc_failed", "Monero daemon returned a different block than asked for", {
            asked: h.hash,
            got: b.header.hash,
          });
        }
        return b;
      },
      { concurrency: this.concurrency },
    );
    const allHashes = raw.flatMap((b) => b.txHashes);
    const chunks: string[][] = [];
    for (let i = 0; i < allHashes.length; i += TXS_PER_REQUEST) chunks.push(allHashes.slice(i, i + TXS_PER_REQUEST));
    const answers = await pMap(chunks, (chunk) => this.daemon.getTransactions(chunk, { prune: true }, signal), {
      concurrency: this.concurrency,
    });
    const txByHash = new Map<string, ScanTx>();
    for (const { txs, missed } of answers) {
      this.stats.txsFetched += txs.length;
      if (missed.length > 0) {
        throw upstreamFailed("chain_rpc_failed", "Monero daemon could not find transactions of a block it served", {
          missed: missed.slice(0, 5),
        });
      }
      for (const t of txs) txByHash.set(t.txHash, scanTxFromEntry(t));
    }
    return raw.map((b) => {
      const miner = txFromDaemonJson(b.minerTxJson, b.minerTxHash);
      if (!miner.ok) {
        throw upstreamFailed("chain_rpc_failed", `Monero daemon sent an unreadable coinbase in block ${b.header.height}`, {
          height: b.header.height,
          reason: miner.error,
        });
      }
      const txs: PreparedTx[] = [prepareTx(keepsForkRules(miner.value, b.header))];
      for (const th of b.txHashes) {
        const t = txByHash.get(th);
        if (!t) throw upstreamFailed("chain_rpc_failed", `Monero daemon did not return transaction ${th}`, { txid: th });
        txs.push(prepareTx(keepsForkRules(t, b.header)));
      }
      return { height: b.header.height, hash: b.header.hash, prevHash: b.header.prevHash, timestamp: b.header.timestamp, txs };
    });
  }
}
