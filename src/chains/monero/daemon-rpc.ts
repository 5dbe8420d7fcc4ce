/**
 * The monerod RPC methods Vigil uses, one typed method each, over
 * MonerodTransport. Requests that a restricted node would refuse as too
 * large are split here (1000 headers, 100 transactions per request), and
 * answers are checked against what was asked (a header range must come back
 * with exactly the heights requested).
 */
import {
  arr,
  hash32,
  num,
  parseBlock,
  parseBlockHeader,
  parseFeeEstimate,
  parseInfo,
  parsePoolTx,
  parseTxEntry,
  str,
} from "./daemon-parsers.js";
import { MonerodTransport, type MoneroDaemonClientOptions } from "./daemon-transport.js";
import {
  MoneroDaemonError,
  type DaemonStatus,
  type MoneroBlock,
  type MoneroBlockHeader,
  type MoneroDaemon,
  type MoneroFeeEstimate,
  type MoneroInfo,
  type MoneroPoolTx,
  type MoneroTransactions,
  type MoneroTxEntry,
} from "./daemon-types.js";

/** Most headers per get_block_headers_range (restricted-node limit). */
const HEADERS_PER_REQUEST = 1000;
/** Most hashes per /get_transactions (restricted-node limit). */
const TXS_PER_REQUEST = 100;

/** The real client. */
export class MoneroDaemonClient implements MoneroDaemon {
  readonly configured = true;
  private readonly transport: MonerodTransport;

  constructor(opts: MoneroDaemonClientOptions) {
    this.transport = new MonerodTransport(opts);
  }

  /** Where the client points, without credentials (safe to log). */
  get endpoint(): string {
    return this.transport.endpoint;
  }

  status(): DaemonStatus {
    return this.transport.status();
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  async getInfo(signal?: AbortSignal): Promise<MoneroInfo> {
    const r = await this.transport.rpc("get_info", undefined, signal);
    return this.transport.shape("get_info", () => parseInfo(r));
  }

  async getBlockCount(signal?: AbortSignal): Promise<number> {
    const r = await this.transport.rpc("get_block_count", undefined, signal);
    return this.transport.shape("get_block_count", () => num(r.count, "count"));
  }

  async getLastBlockHeader(signal?: AbortSignal): Promise<MoneroBlockHeader> {
    const r = await this.transport.rpc("get_last_block_header", undefined, signal);
    return this.transport.shape("get_last_block_header", () => parseBlockHeader(r.block_header));
  }

  async getBlockHeaderByHeight(height: number, signal?: AbortSignal): Promise<MoneroBlockHeader> {
    const r = await this.transport.rpc("get_block_header_by_height", { height }, signal);
    return this.transport.shape("get_block_header_by_height", () => parseBlockHeader(r.block_header));
  }

  async getBlockHeadersRange(start: number, end: number, signal?: AbortSignal): Promise<MoneroBlockHeader[]> {
    const out: MoneroBlockHeader[] = [];
    for (let from = start; from <= end; from += HEADERS_PER_REQUEST) {
      const to = Math.min(end, from + HEADERS_PER_REQUEST - 1);
      const r = await this.transport.rpc("get_block_headers_range", { start_height: from, end_height: to }, signal);
      const headers = this.transport.shape("get_block_headers_range", () => arr(r.headers, "headers").map(parseBlockHeader));
      if (headers.length !== to - from + 1 || headers.some((h, i) => h.height !== from + i)) {
        throw new MoneroDaemonError("Monero daemon answered get_block_headers_range with the wrong heights", {
          call: "get_block_headers_range",
          start: from,
          end: to,
        });
      }
      out.push(...headers);
    }
    return out;
  }

  async getBlock(ref: { height: number } | { hash: string }, signal?: AbortSignal): Promise<MoneroBlock> {
    const r = await this.transport.rpc("get_block", "height" in ref ? { height: ref.height } : { hash: ref.hash }, signal);
    return this.transport.shape("get_block", () => parseBlock(r));
  }

  async getTransactions(hashes: string[], opts: { prune?: boolean } = {}, signal?: AbortSignal): Promise<MoneroTransactions> {
    const txs: MoneroTxEntry[] = [];
    const missed: string[] = [];
    for (let i = 0; i < hashes.length; i += TXS_PER_REQUEST) {
      const chunk = hashes.slice(i, i + TXS_PER_REQUEST);
      const r = await this.transport.other(
        "/get_transactions",
        { txs_hashes: chunk, decode_as_json: true, prune: opts.prune ?? true, split: false },
        signal,
      );
      this.transport.shape("/get_transactions", () => {
        for (const t of arr(r.txs, "txs")) txs.push(parseTxEntry(t));
        for (const m of arr(r.missed_tx, "missed_tx")) missed.push(str(m, "missed_tx[]"));
      });
    }
    return { txs, missed };
  }

  async getTransactionPoolHashes(signal?: AbortSignal): Promise<string[]> {
    const r = await this.transport.other("/get_transaction_pool_hashes", {}, signal);
    return this.transport.shape("/get_transaction_pool_hashes", () => arr(r.tx_hashes, "tx_hashes").map((h) => hash32(h, "tx_hashes[]")));
  }

  async getTransactionPool(signal?: AbortSignal): Promise<MoneroPoolTx[]> {
    const r = await this.transport.other("/get_transaction_pool", {}, signal);
    return this.transport.shape("/get_transaction_pool", () => arr(r.transactions, "transactions").map(parsePoolTx));
  }

  async getFeeEstimate(signal?: AbortSignal): Promise<MoneroFeeEstimate> {
    const r = await this.transport.rpc("get_fee_estimate", { grace_blocks: 0 }, signal);
    return this.transport.shape("get_fee_estimate", () => parseFeeEstimate(r));
  }
}
