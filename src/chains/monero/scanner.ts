/**
 * Monero's ChainScanner: the I/O loop around the pure view-key scanner.
 *
 * One scanWatches() call
 *   1. reads the tip (one get_last_block_header);
 *   2. checks every watch's stored block hashes against the daemon and rolls
 *      back outputs above the fork point (reorg.ts);
 *   3. decides how far each watch goes and fetches each block the watches
 *      still need ONCE for all of them, through an LRU keyed by block hash
 *      (block-source.ts);
 *   4. scans every block's transactions against the accounts that need it,
 *      batched per tx, on the worker-thread pool for large groups
 *      (block-scan.ts, match.ts);
 *   5. scans the transaction pool as pending outputs (mempool.ts);
 *   6. folds old final outputs and builds each watch's snapshot
 *      (scan-state.ts, snapshot.ts).
 * The number of blocks per call and its run time are bounded; a watch far
 * behind catches up over several ticks, after the watches near the tip.
 *
 * View keys arrive decrypted for this call. Built view accounts are kept in
 * a small in-memory LRU keyed by a hash of address + key (view-accounts.ts);
 * nothing is written or logged.
 */
import type { Clock } from "../../core/clock.js";
import { upstreamFailed } from "../../core/errors.js";
import type { ChainScanner, ValidatedWatchKey, WatchScanInput, WatchScanOutput } from "../scanner.js";
import { MoneroBlockSource } from "./block-source.js";
import { ThreadScan, allocateHeights, scanBlocks } from "./block-scan.js";
import { lookaheadFrom } from "./chain-rules.js";
import type { MoneroDaemon } from "./daemon-client.js";
import { validateMoneroWatchKey } from "./keys.js";
import { MempoolScan } from "./mempool.js";
import type { MoneroScanPool } from "./pool.js";
import { checkReorgs } from "./reorg.js";
import { foldSettled, readState, type WatchWork } from "./scan-state.js";
import { summarizeWatch } from "./snapshot.js";
import type { MoneroNetwork, SubaddressLookahead } from "./types.js";
import { ViewAccountCache } from "./view-accounts.js";

// The scanner's parts, re-exported where callers have always found them.
export { MAX_BLOCK_NUMBER, confirmationsAt, isUnlocked, lookaheadFrom } from "./chain-rules.js";
export { MoneroBlockSource, scanTxFromEntry, type ScanBlock } from "./block-source.js";
export { matchTx, scanForAccounts } from "./match.js";
export { readState, type MoneroScanState, type StoredOutput } from "./scan-state.js";

/** How often, at most, the daemon's network is checked against the watches'. */
const NETWORK_CHECK_MS = 60_000;

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
  const accounts = new ViewAccountCache(lookahead, opts.network, opts.accountCacheSize ?? 1000);
  const mempool = new MempoolScan(daemon);
  const blockScan = {
    blockSource,
    reorgWindow,
    ...(opts.scanPool ? { threads: new ThreadScan(opts.scanPool) } : {}),
    threadMinWatches: Math.max(1, opts.scanPoolMinWatches ?? 64),
  };
  /** Confirmations needed before an output is final enough to fold (beyond any reorg we handle). */
  const foldDepth = Math.max(reorgWindow, confirmations, 60);

  /**
   * A daemon on another network than the watches would simply never show a payment: refuse to
   * scan instead (checked with get_info at most once a minute). fakechain (regtest) uses mainnet
   * addresses.
   */
  let networkCheckedAt = -Infinity;
  const checkNetwork = async (signal?: AbortSignal) => {
    if (!opts.network || Date.now() - networkCheckedAt < NETWORK_CHECK_MS) return;
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

  /** The watches this call can scan, with their accounts; a watch whose key fails is reported and left out. */
  const loadWork = (inputs: WatchScanInput[], deadline: number): WatchWork[] => {
    const live: WatchWork[] = [];
    for (const input of inputs) {
      const state = readState(input.state, input.startHeight);
      // Building a primary watch's subaddress table is the costly part of a cold start:
      // past the deadline, uncached watches wait for the next call.
      const own = input.subaddresses ?? lookahead;
      if (Date.now() > deadline && !accounts.has(input.address, input.viewKey, own)) continue;
      try {
        const { account, key } = accounts.get(input.address, input.viewKey, own);
        live.push({ input, account, accountKey: key, state, end: state.scannedHeight, stopped: false });
      } catch (e) {
        opts.onWatchError?.(input.watchId, e);
      }
    }
    return live;
  };

  return {
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
    async tipHeight(signal?: AbortSignal): Promise<number> {
      return (await daemon.getLastBlockHeader(signal)).height;
    },
    async scanWatches(inputs: WatchScanInput[], signal?: AbortSignal): Promise<WatchScanOutput[]> {
      const started = Date.now();
      await checkNetwork(signal);
      const deadline = started + (opts.maxScanMs ?? 20_000); // read per call
      const tip = (await daemon.getLastBlockHeader(signal)).height;
      const live = loadWork(inputs, deadline);
      await checkReorgs(live, tip, blockSource, signal);
      const heights = allocateHeights(live, tip, maxBlocksPerCall);
      await scanBlocks(live, heights, deadline, blockScan, signal);
      if (includePool && live.length > 0) {
        await mempool.refresh(signal);
        mempool.scan(live);
      }
      // Watches that could not be scanned this call are left out: the watch module keeps
      // their previous state and snapshot (no spurious balance change).
      return live.map((w) => {
        foldSettled(w.state, tip, { maxStored: maxStoredOutputs, foldDepth, nowMs: clock.now() });
        return summarizeWatch(w, tip, mempool.outputsFor(w), { confirmations, snapshotOutputs, nowMs: clock.now() });
      });
    },
  };
}
