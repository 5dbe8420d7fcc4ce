/**
 * Scanning chain blocks for many watches at once. A call first decides how
 * far each watch goes (watches nearest the tip first; a height shared by
 * several watches is fetched once and counts once against the block
 * budget), then walks the blocks in order: for each block, the watches that
 * stand right before it scan it together, on the worker-thread pool when
 * enough of them do, else on this thread in groups of SCAN_GROUP with the
 * time budget checked between groups. A watch whose last hash is not the
 * block's parent stops: the chain moved since the reorg check, and the next
 * call checks again.
 */
import type { MoneroBlockSource, ScanBlock } from "./block-source.js";
import { SCAN_GROUP, scanForAccounts } from "./match.js";
import type { MoneroScanPool } from "./pool.js";
import { addChainOutput, markScanned, type WatchWork } from "./scan-state.js";
import type { OwnedOutput, ScanTx } from "./types.js";

/** Blocks fetched (headers, then bodies) per round between two time-budget checks. */
const BLOCKS_PER_ROUND = 20;

/**
 * Sets each watch's `end` for this call and returns the heights to fetch,
 * ascending: at most maxBlocks distinct heights, watches nearest the tip first.
 */
export function allocateHeights(items: WatchWork[], tip: number, maxBlocks: number): number[] {
  const heights = new Set<number>();
  const order = [...items].sort((a, b) => b.state.scannedHeight - a.state.scannedHeight);
  for (const w of order) {
    if (!w.account) continue;
    let h = w.state.scannedHeight + 1;
    if (h < 0) h = 0;
    for (; h <= tip; h++) {
      if (!heights.has(h)) {
        if (heights.size >= maxBlocks) break;
        heights.add(h);
      }
    }
    w.end = h - 1;
  }
  return [...heights].sort((a, b) => a - b);
}

/**
 * The worker-thread pool as one scanner uses it: calls are serialised, and
 * the accounts are sent to the threads only when the set changes (sending
 * thousands of look-ahead tables every block would cost more than the scan).
 * Assumes it is the pool's only user.
 */
export class ThreadScan {
  /** Accounts currently loaded in the pool's threads (keys joined); "" while unknown. */
  private loaded = "";
  private lock: Promise<unknown> = Promise.resolve();

  constructor(private readonly pool: MoneroScanPool) {}

  /** Outputs per tx, per watch (in `watches` order). */
  scan(watches: WatchWork[], txs: ScanTx[]): Promise<OwnedOutput[][][]> {
    const run = async () => {
      const keys = watches.map((w) => w.accountKey).join(",");
      if (keys !== this.loaded) {
        this.loaded = "";
        await this.pool.setAccounts(watches.map((w) => w.account!));
        this.loaded = keys;
      }
      return this.pool.scanTxs(txs);
    };
    const result = this.lock.then(run, run);
    this.lock = result.catch(() => undefined);
    return result;
  }
}

export interface BlockScanOptions {
  blockSource: MoneroBlockSource;
  /** Block hashes kept per watch. */
  reorgWindow: number;
  /** When set, blocks needed by at least threadMinWatches watches are scanned on its threads. */
  threads?: ThreadScan;
  threadMinWatches: number;
}

/** Scans `heights` (ascending) for the watches, until done or past `deadline` (epoch ms). */
export async function scanBlocks(
  items: WatchWork[],
  heights: number[],
  deadline: number,
  opts: BlockScanOptions,
  signal?: AbortSignal,
): Promise<void> {
  for (let i = 0; i < heights.length; i += BLOCKS_PER_ROUND) {
    if (Date.now() > deadline) break;
    if (signal?.aborted) throw signal.reason;
    const roundHeights = heights.slice(i, i + BLOCKS_PER_ROUND);
    const headerMap = await opts.blockSource.headers(roundHeights, signal);
    const blocks = await opts.blockSource.blocks(
      roundHeights.map((h) => headerMap.get(h)!),
      signal,
    );
    for (const block of blocks) {
      const ready = readyFor(items, block);
      if (opts.threads && ready.length >= opts.threadMinWatches) {
        if (Date.now() > deadline) {
          for (const w of ready) w.stopped = true;
          continue;
        }
        const results = await opts.threads.scan(ready, block.txs.map((p) => p.tx));
        results.forEach((perAccount, t) => {
          perAccount.forEach((found, i) => {
            for (const o of found) addChainOutput(ready[i]!.state, block.txs[t]!.tx, o, block.height);
          });
        });
        for (const w of ready) markScanned(w.state, block, opts.reorgWindow);
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
            for (const o of found) addChainOutput(group[i]!.state, prepared.tx, o, block.height);
          });
        }
        for (const w of group) markScanned(w.state, block, opts.reorgWindow);
      }
    }
  }
}

/** The watches that stand right before `block` and still go past it this call. */
function readyFor(items: WatchWork[], block: ScanBlock): WatchWork[] {
  const h = block.height;
  const ready: WatchWork[] = [];
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
  return ready;
}
