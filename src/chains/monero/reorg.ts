/**
 * Reorg handling for every watch of one call, before anything is scanned.
 * One header per distinct stored top height is compared with the watch's
 * last stored hash; only a watch whose top is gone walks back over its
 * stored window (one range request) to the last block still on the chain,
 * and loses the outputs above it — so a balance can go down after a reorg.
 * A watch none of whose stored blocks is on the chain any more (a reorg
 * deeper than the window, a restarted devnet, another network) starts over
 * from its start height: nothing it scanned can be trusted.
 */
import type { MoneroBlockHeader } from "./daemon-client.js";
import type { MoneroBlockSource } from "./block-source.js";
import { readState, rollBack, type WatchWork } from "./scan-state.js";

export async function checkReorgs(items: WatchWork[], tip: number, blockSource: MoneroBlockSource, signal?: AbortSignal): Promise<void> {
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
    if (fork !== null) rollBack(st, fork);
    else w.state = readState(null, w.input.startHeight);
  }
}

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let h = lo; h <= hi; h++) out.push(h);
  return out;
}
