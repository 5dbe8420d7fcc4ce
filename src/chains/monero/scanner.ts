/**
 * Monero's ChainScanner: the I/O loop around the pure view-key scanner.
 *
 * One scanWatches() call
 *   1. reads the tip (one get_last_block_header);
 *   2. checks every watch's stored block hashes against the daemon (one
 *      header per distinct scanned height; a walk back over the stored
 *      window only when a hash differs) and rolls back outputs above the
 *      fork point — so a snapshot can go down after a reorg;
 *   3. fetches each block the watches still need ONCE for all of them
 *      (get_block_headers_range → get_block by hash → /get_transactions in
 *      chunks of 100), through an LRU cache keyed by block hash, so watches
 *      scanned on different ticks do not fetch a block twice;
 *   4. scans every block's transactions against the accounts that need it
 *      with the batch scanner (batch.ts: each tx key's table is built once
 *      and shared by up to 64 watches; 3–5× less work than one by one);
 *   5. scans the transaction pool (hashes every call, bodies and results
 *      cached while the tx stays in the pool) as pending outputs.
 * The number of blocks per call and its run time are bounded; a watch far
 * behind catches up over several ticks, after the watches near the tip.
 *
 * View keys arrive decrypted for this call. Built view accounts are kept in
 * a small in-memory LRU (keyed by a hash of address + key) so the subaddress
 * look-ahead table is not rebuilt every tick; nothing is written or logged.
 */
import { createHash } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { upstreamFailed } from "../../core/errors.js";
import type {
  BalanceSnapshot,
  ChainScanner,
  ReceivedOutput,
  ScanState,
  ValidatedWatchKey,
  WatchScanInput,
  WatchScanOutput,
} from "../scanner.js";
import type { MoneroBlockHeader, MoneroDaemon, MoneroTxEntry } from "./daemon-client.js";
import { hexToBytesStrict } from "./encoding.js";
import { DEFAULT_LOOKAHEAD, MAX_LOOKAHEAD_KEYS, makeViewAccount, validateMoneroWatchKey } from "./keys.js";
import { BATCH_MIN_ACCOUNTS, scanTxForAccounts } from "./batch.js";
import type { MoneroScanPool } from "./pool.js";
import { derivationsFor, matchOutputs, prepareTx, type PreparedTx } from "./scan.js";
import { parseTransactionBlob, txFromDaemonJson } from "./tx-binary.js";
import type { MoneroNetwork, OwnedOutput, ScanTx, SubaddressLookahead, ViewAccount } from "./types.js";

// ---------------------------------------------------------------------------
// Chain rules
// ---------------------------------------------------------------------------

/** unlock_time values below this are block heights, above are Unix times (CRYPTONOTE_MAX_BLOCK_NUMBER). */
export const MAX_BLOCK_NUMBER = 500_000_000n;
/** Seconds of slack wallet2 allows on time-based unlocks (CRYPTONOTE_LOCKED_TX_ALLOWED_DELTA_SECONDS_V2). */
const UNLOCK_DELTA_SECONDS = 120n;

/** Confirmations of an output mined at `height` when the newest block is `tip` (a tx in the top block has 1). */
export function confirmationsAt(height: number | null, tip: number): number {
  if (height === null) return 0;
  return Math.max(0, tip - height + 1);
}

/** Whether an output's unlock_time has passed (wallet2 is_tx_spendtime_unlocked). */
export function isUnlocked(unlockTime: bigint, tip: number, nowMs: number): boolean {
  if (unlockTime === 0n) return true;
  if (unlockTime < MAX_BLOCK_NUMBER) return BigInt(tip) + 1n >= unlockTime;
  return BigInt(Math.floor(nowMs / 1000)) + UNLOCK_DELTA_SECONDS >= unlockTime;
}

// ---------------------------------------------------------------------------
// Blocks as the scanner needs them, with a cache
// ---------------------------------------------------------------------------

export interface ScanBlock {
  height: number;
  hash: string;
  prevHash: string;
  timestamp: number;
  /** Coinbase first, then the block's transactions in order. */
  txs: PreparedTx[];
}

class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(k: K): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  get size(): number {
    return this.map.size;
  }
}

/** Runs fn over items with at most `limit` in flight; results in input order; the first failure rejects. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
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
 * Fetches blocks with their transactions, each block once, through an LRU
 * keyed by block hash (a hash names one block forever, so cached entries
 * never go stale; a reorg simply asks for other hashes).
 */
export class MoneroBlockSource {
  private readonly cache: Lru<string, ScanBlock>;
  /** Requests made, for tests and metrics. */
  readonly stats = { blocksFetched: 0, blockCacheHits: 0, txsFetched: 0 };

  private readonly concurrency: number;

  constructor(
    readonly daemon: MoneroDaemon,
    opts: { cacheBlocks?: number; concurrency?: number } = {},
  ) {
    this.cache = new Lru(opts.cacheBlocks ?? 512);
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
      // A few requests in flight: against a remote daemon, round trips dominate catch-up.
      const raw = await mapLimit(missing, this.concurrency, async (h) => {
        const b = await this.daemon.getBlock({ hash: h.hash }, signal);
        this.stats.blocksFetched++;
        if (b.header.hash !== h.hash) {
          throw upstreamFailed("chain_rpc_failed", "Monero daemon returned a different block than asked for", {
            asked: h.hash,
            got: b.header.hash,
          });
        }
        return b;
      });
      const allHashes = raw.flatMap((b) => b.txHashes);
      const txByHash = new Map<string, ScanTx>();
      const chunks: string[][] = [];
      for (let i = 0; i < allHashes.length; i += 100) chunks.push(allHashes.slice(i, i + 100));
      const answers = await mapLimit(chunks, this.concurrency, (chunk) => this.daemon.getTransactions(chunk, { prune: true }, signal));
      for (const { txs, missed } of answers) {
        this.stats.txsFetched += txs.length;
        if (missed.length > 0) {
          throw upstreamFailed("chain_rpc_failed", "Monero daemon could not find transactions of a block it served", {
            missed: missed.slice(0, 5),
          });
        }
        for (const t of txs) txByHash.set(t.txHash, scanTxFromEntry(t));
      }
      for (const b of raw) {
        const miner = txFromDaemonJson(b.minerTxJson, b.minerTxHash);
        if (!miner.ok) {
          throw upstreamFailed("chain_rpc_failed", `Monero daemon sent an unreadable coinbase in block ${b.header.height}`, {
            height: b.header.height,
            reason: miner.error,
          });
        }
        const txs: PreparedTx[] = [prepareTx(miner.value)];
        for (const th of b.txHashes) {
          const t = txByHash.get(th);
          if (!t) throw upstreamFailed("chain_rpc_failed", `Monero daemon did not return transaction ${th}`, { txid: th });
          txs.push(prepareTx(t));
        }
        const block: ScanBlock = {
          height: b.header.height,
          hash: b.header.hash,
          prevHash: b.header.prevHash,
          timestamp: b.header.timestamp,
          txs,
        };
        this.cache.set(block.hash, block);
        result.set(block.hash, block);
      }
    }
    return headers.map((h) => result.get(h.hash)!);
  }
}

/** Watches scanned together per transaction (batch scanner) between two time-budget checks. */
const SCAN_GROUP = 64;

/**
 * Outputs of one prepared tx for each account: the batch scanner (work per tx shared among the
 * accounts) from BATCH_MIN_ACCOUNTS accounts on, the plain per-account path below.
 */
export function scanForAccounts(prepared: PreparedTx, accounts: ViewAccount[]): OwnedOutput[][] {
  if (accounts.length >= BATCH_MIN_ACCOUNTS) return scanTxForAccounts(prepared.tx, accounts);
  return accounts.map((a) => matchTx(prepared, a));
}

/** Outputs of one prepared tx for one account; never throws on malformed tx data. */
export function matchTx(prepared: PreparedTx, account: ViewAccount): OwnedOutput[] {
  try {
    return matchOutputs(prepared, account, derivationsFor(prepared, account.viewSecret));
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------
// Per-watch state (JSON, stored by the watch module)
// ---------------------------------------------------------------------------

/** One owned output kept in ScanState. */
export interface StoredOutput {
  txid: string;
  index: number;
  amount: string;
  height: number;
  publicKey: string;
  subaddress: { major: number; minor: number } | null;
  unlockTime: string;
  coinbase: boolean;
}

export interface MoneroScanState extends ScanState {
  v: 1;
  /** Height of the last block fully scanned (startHeight − 1 before the first). */
  scannedHeight: number;
  /** Hashes of blocks scannedHeight − hashes.length + 1 … scannedHeight (reorg window). */
  hashes: string[];
  outputs: StoredOutput[];
  /** Old, final outputs folded into a sum to bound the state size. */
  settled: { atomic: string; count: number };
}

function isStoredOutput(o: unknown): o is StoredOutput {
  if (typeof o !== "object" || o === null) return false;
  const x = o as Record<string, unknown>;
  return (
    typeof x.txid === "string" &&
    Number.isInteger(x.index) &&
    typeof x.amount === "string" &&
    /^\d+$/.test(x.amount) &&
    Number.isInteger(x.height) &&
    typeof x.publicKey === "string" &&
    typeof x.unlockTime === "string" &&
    /^\d+$/.test(x.unlockTime) &&
    typeof x.coinbase === "boolean"
  );
}

/** Reads a stored state; anything unrecognised starts over from startHeight. */
export function readState(state: ScanState | null, startHeight: number): MoneroScanState {
  const fresh: MoneroScanState = {
    v: 1,
    scannedHeight: startHeight - 1,
    hashes: [],
    outputs: [],
    settled: { atomic: "0", count: 0 },
  };
  if (!state || state.v !== 1) return fresh;
  const s = state as Partial<MoneroScanState>;
  if (
    !Number.isInteger(s.scannedHeight) ||
    !Array.isArray(s.hashes) ||
    !s.hashes.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h)) ||
    !Array.isArray(s.outputs) ||
    !s.outputs.every(isStoredOutput) ||
    typeof s.settled !== "object" ||
    s.settled === null ||
    typeof s.settled.atomic !== "string" ||
    !/^\d+$/.test(s.settled.atomic) ||
    !Number.isInteger(s.settled.count)
  ) {
    return fresh;
  }
  return {
    v: 1,
    scannedHeight: s.scannedHeight!,
    hashes: [...s.hashes],
    outputs: s.outputs.map((o) => ({ ...o })),
    settled: { ...s.settled },
  };
}

// ---------------------------------------------------------------------------
// The scanner
// ---------------------------------------------------------------------------

export interface MoneroScannerOptions {
  daemon: MoneroDaemon;
  /** Confirmations before an output counts in balanceAtomic (MONERO_CONFIRMATIONS, default 10). */
  confirmations: number;
  /**
   * Subaddress look-ahead of a primary-address watch: an object, or a number
   * N meaning minor indices 0..N−1 in accounts 0..1 (MONERO_SUBADDRESS_LOOKAHEAD).
   */
  lookahead?: SubaddressLookahead | number;
  /** When set, watches of another network are refused at creation. */
  network?: MoneroNetwork;
  clock: Clock;
  /** Distinct blocks fetched per scanWatches call (default 200). */
  maxBlocksPerCall?: number;
  /** Wall-clock budget per call in ms (default 20 000; read on every call); progress so far is kept. */
  maxScanMs?: number;
  /** Block hashes kept per watch for reorg detection (default 20). */
  reorgWindow?: number;
  /** Blocks kept in the shared cache (default 512). */
  cacheBlocks?: number;
  /** Daemon requests in flight while fetching blocks (default 4). */
  fetchConcurrency?: number;
  /**
   * Worker-thread scan pool (pool.ts). When given, blocks needed by at least
   * scanPoolMinWatches watches are scanned on its threads, so a large tick
   * neither blocks this thread's event loop nor stays on one core. The
   * scanner assumes it is the pool's only user.
   */
  scanPool?: MoneroScanPool;
  /** Default 64. */
  scanPoolMinWatches?: number;
  /** View accounts kept in memory between calls (default 1000). */
  accountCacheSize?: number;
  /** Scan the transaction pool for pending (0-conf) outputs (default true). */
  includePool?: boolean;
  /** Outputs kept in full per watch before old final ones are folded into a sum (default 200). */
  maxStoredOutputs?: number;
  /** Outputs listed in the snapshot (newest; default 20). */
  snapshotOutputs?: number;
  /** Called when one watch cannot be scanned (it is left out of the result). Never given the key. */
  onWatchError?: (watchId: string, error: unknown) => void;
}

export interface MoneroScanner extends ChainScanner {
  readonly blockSource: MoneroBlockSource;
  readonly lookahead: SubaddressLookahead;
}

/** A look-ahead from config: N → minors 0..N−1 in accounts 0..1, kept within MAX_LOOKAHEAD_KEYS. */
export function lookaheadFrom(v: SubaddressLookahead | number | undefined): SubaddressLookahead {
  if (v === undefined) return DEFAULT_LOOKAHEAD;
  if (typeof v === "number") {
    const accounts = DEFAULT_LOOKAHEAD.accounts;
    const minors = Math.min(Math.max(1, Math.floor(v)), Math.floor(MAX_LOOKAHEAD_KEYS / accounts));
    return { accounts, minors };
  }
  return v;
}

interface PoolEntry {
  tx: PreparedTx | null;
  doubleSpendSeen: boolean;
  /** accountKey → outputs (a pool tx never changes, so results are cached while it stays). */
  results: Map<string, OwnedOutput[]>;
}

interface WorkItem {
  input: WatchScanInput;
  account: ViewAccount | null;
  accountKey: string;
  state: MoneroScanState;
  /** Scan heights scannedHeight+1 … end this call. */
  end: number;
  stopped: boolean;
}

function accountKeyOf(address: string, viewKey: string, lookahead: SubaddressLookahead): string {
  return createHash("sha256")
    .update(`${address}\u0000${viewKey.trim().toLowerCase()}\u0000${lookahead.accounts}x${lookahead.minors}`)
    .digest("hex");
}

export function createMoneroScanner(opts: MoneroScannerOptions): MoneroScanner {
  const { daemon, clock } = opts;
  const confirmations = Math.max(0, Math.floor(opts.confirmations));
  const lookahead = lookaheadFrom(opts.lookahead);
  const maxBlocksPerCall = Math.max(1, opts.maxBlocksPerCall ?? 200);
  const reorgWindow = Math.max(2, opts.reorgWindow ?? 20);
  const includePool = opts.includePool ?? true;
  const maxStoredOutputs = Math.max(1, opts.maxStoredOutputs ?? 200);
  const snapshotOutputs = Math.max(0, opts.snapshotOutputs ?? 20);
  const blockSource = new MoneroBlockSource(daemon, { cacheBlocks: opts.cacheBlocks, concurrency: opts.fetchConcurrency });
  const accounts = new Lru<string, ViewAccount>(opts.accountCacheSize ?? 1000);
  const pool = new Map<string, PoolEntry>();
  /** Confirmations needed before an output is final enough to fold (beyond any reorg we handle). */
  const foldDepth = Math.max(reorgWindow, confirmations, 60);

  const accountFor = (address: string, viewKey: string): { account: ViewAccount; key: string } => {
    const key = accountKeyOf(address, viewKey, lookahead);
    let account = accounts.get(key);
    if (!account) {
      account = makeViewAccount(address, viewKey, { lookahead, ...(opts.network ? { network: opts.network } : {}) });
      accounts.set(key, account);
    }
    return { account, key };
  };

  /** Rolls a watch back to `fork` (last height still on the chain). */
  const rollBack = (st: MoneroScanState, fork: number) => {
    st.outputs = st.outputs.filter((o) => o.height <= fork);
    const keep = Math.max(0, st.hashes.length - (st.scannedHeight - fork));
    st.hashes = st.hashes.slice(0, keep);
    st.scannedHeight = fork;
  };

  /** Reorg check for all watches: compare stored hashes with the daemon's chain. */
  const checkReorgs = async (items: WorkItem[], tip: number, signal?: AbortSignal) => {
    const withHashes = items.filter((w) => w.state.hashes.length > 0);
    const tops = withHashes.map((w) => w.state.scannedHeight).filter((h) => h <= tip);
    const headers = tops.length > 0 ? await blockSource.headers(tops, signal) : new Map<number, MoneroBlockHeader>();
    for (const w of withHashes) {
      const st = w.state;
      const top = st.scannedHeight;
      if (top <= tip && headers.get(top)?.hash === st.hashes[st.hashes.length - 1]) continue;
      // The stored top is gone: walk back over the stored window (one range request).
      const low = top - st.hashes.length + 1;
      const hi = Math.min(top - 1, tip);
      const window = hi >= low ? await blockSource.headers(range(low, hi), signal) : new Map<number, MoneroBlockHeader>();
      let fork: number | null = null;
      for (let h = hi; h >= low; h--) {
        if (window.get(h)?.hash === st.hashes[h - low]) {
          fork = h;
          break;
        }
      }
      if (fork !== null) {
        rollBack(st, fork);
      } else {
        // No stored block is on the chain any more: a reorg deeper than the window, or another
        // chain altogether (a restarted devnet, a daemon on another network). Nothing scanned can
        // be trusted, so the watch starts over from its start height.
        w.state = readState(null, w.input.startHeight);
      }
    }
  };

  /** Decides how far each watch scans this call: watches nearest the tip first, shared heights are free. */
  const allocate = (items: WorkItem[], tip: number): number[] => {
    const heights = new Set<number>();
    const order = [...items].sort((a, b) => b.state.scannedHeight - a.state.scannedHeight);
    for (const w of order) {
      if (!w.account) continue;
      let h = w.state.scannedHeight + 1;
      if (h < 0) h = 0;
      for (; h <= tip; h++) {
        if (!heights.has(h)) {
          if (heights.size >= maxBlocksPerCall) break;
          heights.add(h);
        }
      }
      w.end = h - 1;
    }
    return [...heights].sort((a, b) => a - b);
  };

  /** Marks a block as scanned for a watch. */
  const advance = (w: WorkItem, block: ScanBlock) => {
    const st = w.state;
    st.hashes.push(block.hash);
    if (st.hashes.length > reorgWindow) st.hashes.splice(0, st.hashes.length - reorgWindow);
    st.scannedHeight = block.height;
  };

  const scanPoolMinWatches = Math.max(1, opts.scanPoolMinWatches ?? 64);
  /** Accounts currently loaded in the pool's threads (keys joined), to send them only when the set changes. */
  let poolLoaded = "";
  let poolLock: Promise<unknown> = Promise.resolve();
  const onPool = (ready: WorkItem[], txs: ScanTx[]): Promise<OwnedOutput[][][]> => {
    const run = async () => {
      const keys = ready.map((w) => w.accountKey).join(",");
      if (keys !== poolLoaded) {
        poolLoaded = "";
        await opts.scanPool!.setAccounts(ready.map((w) => w.account!));
        poolLoaded = keys;
      }
      return opts.scanPool!.scanTxs(txs);
    };
    const result = poolLock.then(run, run);
    poolLock = result.catch(() => undefined);
    return result;
  };

  const scanBlocks = async (items: WorkItem[], heights: number[], deadline: number, signal?: AbortSignal) => {
    const CHUNK = 20;
    for (let i = 0; i < heights.length; i += CHUNK) {
      if (Date.now() > deadline) break;
      if (signal?.aborted) throw signal.reason;
      const chunkHeights = heights.slice(i, i + CHUNK);
      const headerMap = await blockSource.headers(chunkHeights, signal);
      const blocks = await blockSource.blocks(
        chunkHeights.map((h) => headerMap.get(h)!),
        signal,
      );
      for (const block of blocks) {
        const h = block.height;
        const ready: WorkItem[] = [];
        for (const w of items) {
          if (!w.account || w.stopped || w.state.scannedHeight !== h - 1 || w.end < h) continue;
          const prev = w.state.hashes[w.state.hashes.length - 1];
          if (prev !== undefined && prev !== block.prevHash) {
            // The chain moved under us between the check and this block: the next call re-checks.
            w.stopped = true;
            continue;
          }
          ready.push(w);
        }
        if (opts.scanPool && ready.length >= scanPoolMinWatches) {
          if (Date.now() > deadline) {
            for (const w of ready) w.stopped = true;
            continue;
          }
          const results = await onPool(ready, block.txs.map((p) => p.tx));
          results.forEach((perAccount, t) => {
            perAccount.forEach((found, i) => {
              for (const o of found) addChainOutput(ready[i]!.state, block.txs[t]!.tx, o, h);
            });
          });
          for (const w of ready) advance(w, block);
          continue;
        }
        // Watches are scanned in groups so the batch scanner shares each tx's work among them,
        // while the time budget is still checked often enough.
        for (let g = 0; g < ready.length; g += SCAN_GROUP) {
          const group = ready.slice(g, g + SCAN_GROUP);
          if (Date.now() > deadline) {
            // Out of time: these watches resume from here on the next call.
            for (const w of group) w.stopped = true;
            continue;
          }
          const groupAccounts = group.map((w) => w.account!);
          for (const prepared of block.txs) {
            const perAccount = scanForAccounts(prepared, groupAccounts);
            perAccount.forEach((found, i) => {
              for (const o of found) addChainOutput(group[i]!.state, prepared.tx, o, h);
            });
          }
          for (const w of group) advance(w, block);
        }
      }
    }
  };

  const addChainOutput = (st: MoneroScanState, tx: ScanTx, o: OwnedOutput, height: number) => {
    const stored: StoredOutput = {
      txid: tx.txid,
      index: o.outputIndex,
      amount: o.amount.toString(),
      height,
      publicKey: o.publicKey,
      subaddress: o.subaddress && o.subaddress.major >= 0 ? { major: o.subaddress.major, minor: o.subaddress.minor } : null,
      unlockTime: tx.unlockTime.toString(),
      coinbase: tx.isCoinbase,
    };
    // Burning bug: one one-time key is credited once; keep the larger amount (wallet2).
    const dup = st.outputs.findIndex((x) => x.publicKey === stored.publicKey);
    if (dup >= 0) {
      if (BigInt(st.outputs[dup]!.amount) >= o.amount) return;
      st.outputs.splice(dup, 1);
    }
    st.outputs.push(stored);
  };

  const refreshPool = async (signal?: AbortSignal) => {
    const hashes = await daemon.getTransactionPoolHashes(signal);
    const current = new Set(hashes);
    for (const h of [...pool.keys()]) if (!current.has(h)) pool.delete(h);
    const fresh = hashes.filter((h) => !pool.has(h));
    if (fresh.length > 0) {
      const { txs } = await daemon.getTransactions(fresh, { prune: true }, signal);
      for (const t of txs) {
        let prepared: PreparedTx | null = null;
        try {
          prepared = prepareTx(scanTxFromEntry(t));
        } catch {
          prepared = null; // unreadable pool tx: ignored, it is re-read once mined
        }
        pool.set(t.txHash, { tx: prepared, doubleSpendSeen: t.doubleSpendSeen, results: new Map() });
      }
    }
  };

  /** Scans every pool tx for the watches that have no cached result for it yet (batched). */
  const scanPool = (items: WorkItem[]) => {
    for (const entry of pool.values()) {
      if (!entry.tx) continue;
      const todo = items.filter((w) => w.account && !entry.results.has(w.accountKey));
      for (let g = 0; g < todo.length; g += SCAN_GROUP) {
        const group = todo.slice(g, g + SCAN_GROUP);
        const perAccount = scanForAccounts(entry.tx, group.map((w) => w.account!));
        group.forEach((w, i) => entry.results.set(w.accountKey, perAccount[i]!));
      }
    }
  };

  const poolOutputs = (w: WorkItem): { txid: string; out: OwnedOutput; doubleSpendSeen: boolean }[] => {
    const res: { txid: string; out: OwnedOutput; doubleSpendSeen: boolean }[] = [];
    if (!w.account) return res;
    for (const [txid, entry] of pool) {
      if (!entry.tx) continue;
      let found = entry.results.get(w.accountKey);
      if (!found) {
        found = matchTx(entry.tx, w.account);
        entry.results.set(w.accountKey, found);
      }
      for (const out of found) res.push({ txid, out, doubleSpendSeen: entry.doubleSpendSeen });
    }
    return res;
  };

  /** Folds the oldest final outputs into `settled` once more than maxStoredOutputs are kept. */
  const compact = (st: MoneroScanState, tip: number) => {
    if (st.outputs.length <= maxStoredOutputs) return;
    st.outputs.sort((a, b) => a.height - b.height || a.txid.localeCompare(b.txid) || a.index - b.index);
    let settled = BigInt(st.settled.atomic);
    let count = st.settled.count;
    while (st.outputs.length > maxStoredOutputs) {
      const o = st.outputs[0]!;
      const final = confirmationsAt(o.height, tip) >= foldDepth && isUnlocked(BigInt(o.unlockTime), tip, clock.now());
      if (!final) break;
      settled += BigInt(o.amount);
      count++;
      st.outputs.shift();
    }
    st.settled = { atomic: settled.toString(), count };
  };

  const summarize = (w: WorkItem, tip: number): WatchScanOutput => {
    const st = w.state;
    const now = clock.now();
    let balance = BigInt(st.settled.atomic);
    let pending = 0n;
    const outputs: (ReceivedOutput & { status: "confirmed" | "pending"; unlocked: boolean; doubleSpendSeen?: boolean })[] = [];
    const sorted = [...st.outputs].sort((a, b) => a.height - b.height || a.txid.localeCompare(b.txid) || a.index - b.index);
    const known = new Set(sorted.map((o) => o.publicKey));
    for (const o of sorted) {
      const conf = confirmationsAt(o.height, tip);
      const unlocked = isUnlocked(BigInt(o.unlockTime), tip, now);
      const confirmed = conf >= Math.max(1, confirmations) && unlocked;
      const amount = BigInt(o.amount);
      if (confirmed) balance += amount;
      else pending += amount;
      outputs.push({
        txid: o.txid,
        index: String(o.index),
        amountAtomic: o.amount,
        height: o.height,
        confirmations: conf,
        ...(o.subaddress ? { subaddress: o.subaddress } : {}),
        status: confirmed ? "confirmed" : "pending",
        unlocked,
      });
    }
    for (const p of poolOutputs(w)) {
      if (known.has(p.out.publicKey)) continue; // already mined (or a duplicate key): counted once
      known.add(p.out.publicKey);
      pending += p.out.amount;
      const sub = p.out.subaddress && p.out.subaddress.major >= 0 ? p.out.subaddress : undefined;
      outputs.push({
        txid: p.txid,
        index: String(p.out.outputIndex),
        amountAtomic: p.out.amount.toString(),
        height: null,
        confirmations: 0,
        ...(sub ? { subaddress: { major: sub.major, minor: sub.minor } } : {}),
        status: "pending",
        unlocked: false,
        ...(p.doubleSpendSeen ? { doubleSpendSeen: true } : {}),
      });
    }
    const snapshot: BalanceSnapshot = {
      balanceAtomic: balance.toString(),
      pendingAtomic: pending.toString(),
      receivedAtomic: (balance + pending).toString(),
      scannedHeight: st.scannedHeight,
      confirmationsRequired: confirmations,
      outputCount: st.settled.count + outputs.length,
      // Newest few, without confirmation counts so the snapshot only changes when money does.
      outputs: outputs.slice(-snapshotOutputs).map((o) => ({
        txid: o.txid,
        index: o.index,
        amountAtomic: o.amountAtomic,
        height: o.height,
        status: o.status,
        subaddress: o.subaddress ?? null,
      })),
    };
    return {
      watchId: w.input.watchId,
      state: st,
      snapshot,
      outputs: outputs.map(({ status: _s, unlocked: _u, ...o }) => o),
      caughtUp: st.scannedHeight >= tip,
    };
  };

  /**
   * A daemon on another network than the watches would simply never show a payment: refuse to
   * scan instead (checked with get_info at most once a minute). fakechain (regtest) uses mainnet
   * addresses.
   */
  let networkCheckedAt = -Infinity;
  const checkNetwork = async (signal?: AbortSignal) => {
    if (!opts.network || Date.now() - networkCheckedAt < 60_000) return;
    const info = await daemon.getInfo(signal);
    const daemonNetwork = info.nettype === "fakechain" ? "mainnet" : info.nettype;
    if (daemonNetwork !== opts.network) {
      throw upstreamFailed(
        "chain_network_mismatch",
        `The Monero daemon runs ${info.nettype}; this service watches ${opts.network} addresses.`,
        { daemonNetwork: info.nettype, expectedNetwork: opts.network },
      );
    }
    networkCheckedAt = Date.now();
  };

  const scanner: MoneroScanner = {
    chain: "monero",
    blockSource,
    lookahead,
    validateWatchKey(address: string, viewKey: string): ValidatedWatchKey {
      return validateMoneroWatchKey(address, viewKey, opts.network ? { network: opts.network } : {});
    },
    async defaultStartHeight(): Promise<number> {
      const h = await daemon.getLastBlockHeader();
      return h.height;
    },
    async scanWatches(inputs: WatchScanInput[], signal?: AbortSignal): Promise<WatchScanOutput[]> {
      const started = Date.now();
      await checkNetwork(signal);
      const deadline = started + (opts.maxScanMs ?? 20_000); // read per call
      const tipHeader = await daemon.getLastBlockHeader(signal);
      const tip = tipHeader.height;
      const live: WorkItem[] = [];
      for (const input of inputs) {
        const state = readState(input.state, input.startHeight);
        // Building a primary watch's subaddress table is the costly part of a cold start:
        // past the deadline, uncached watches wait for the next call.
        if (Date.now() > deadline && !accounts.get(accountKeyOf(input.address, input.viewKey, lookahead))) continue;
        try {
          const { account, key } = accountFor(input.address, input.viewKey);
          live.push({ input, account, accountKey: key, state, end: state.scannedHeight, stopped: false });
        } catch (e) {
          opts.onWatchError?.(input.watchId, e);
        }
      }
      await checkReorgs(live, tip, signal);
      const heights = allocate(live, tip);
      await scanBlocks(live, heights, deadline, signal);
      if (includePool && live.length > 0) {
        await refreshPool(signal);
        scanPool(live);
      }
      // Watches that could not be scanned this call are left out: the watch module keeps
      // their previous state and snapshot (no spurious balance change).
      return live.map((w) => {
        compact(w.state, tip);
        return summarize(w, tip);
      });
    },
  };
  return scanner;
}

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let h = lo; h <= hi; h++) out.push(h);
  return out;
}
