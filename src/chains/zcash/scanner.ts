/**
 * Zcash's ChainScanner: the I/O loop around the pure engine (scan-engine.ts)
 * over a CompactBlockSource (lightwalletd).
 *
 * One scanWatches() call
 *   1. checks the server's network (at most once a minute) and reads the tip;
 *   2. loads each watch's state and keys (kept in an LRU keyed by a hash of
 *      address + key; nothing is logged). Keys are built lazily
 *      (watch-keys.ts): a watch with no new block and no new mempool
 *      transaction has nothing decoded; for a block or mempool transaction
 *      that needs keys, the watches' stored key material is loaded (one
 *      KeyMaterialStore call) and, where there is none, the UFVK is decoded,
 *      the trial-decryption keys built only for shielded outputs and
 *      transparent hashes derived only for a P2PKH output; what was built
 *      and is not stored yet is returned as `keyMaterial` to store;
 *   3. checks for reorgs: a watch whose top block is no longer the chain's
 *      (its height above the tip, or at the tip with another hash) walks back
 *      over its stored hashes to the last block still on the chain and loses
 *      the notes and spends above it — so a balance can go down;
 *   4. decides how far each watch goes (watches nearest the tip first; at
 *      most maxBlocksPerCall distinct heights) and streams each contiguous
 *      run of heights ONCE for all watches; each block is scanned for the
 *      watches standing right before it, all together. A block whose parent
 *      is not a watch's last stored hash is a reorg found on the way: the
 *      watch stops there and is walked back as in 3;
 *   5. reads the full transaction of each new shielded note for its memo;
 *   6. trial-decrypts the mempool's transactions: pending notes; and looks
 *      up their spends: the watches' notes they spend are pending spends;
 *   7. folds old spent notes and builds each watch's snapshot (snapshot.ts).
 * The number of blocks per call and its run time are bounded; a watch far
 * behind catches up over several ticks (`caughtUp` false until it reaches the tip).
 */
import { badRequest, upstreamFailed } from "../../core/errors.js";
import type { ChainScanner, KeyMaterialStore, ValidatedWatchKey, WatchScanInput, WatchScanOutput } from "../scanner.js";
import { bytesToHex } from "./bytes.js";
import type { CompactBlock, CompactBlockSource, CompactTx, PoolType } from "./compact.js";
import type { ZcashNetwork } from "./network.js";
import { validateZcashWatchKey } from "./ownership.js";
import {
  displayHex,
  keysNeeded,
  memoFromTransaction,
  mempoolSpendsOf,
  PreparedKeyCache,
  scanBlock,
  scanMempoolTx,
  SpendIndex,
  TRANSPARENT_GAP_LIMIT,
  type EngineWatch,
  type FoundNote,
} from "./scan-engine.js";
import { foldSettled, freshState, readZcashState, rollBack, type StoredNote } from "./scan-state.js";
import { summarizeZcashWatch } from "./snapshot.js";
import { WatchKeyCache, watchKeyId, type KeyCacheStats, type WatchKeys } from "./watch-keys.js";

/**
 * Default first height of a mainnet watch created without `birthdayHeight`
 * (the service contract's value). Test networks start at the tip.
 */
export const ZCASH_MAINNET_DEFAULT_START = 3_042_000;

/** Blocks read on (and kept in memory) after one that needs keys not built yet, before the stream is closed. */
const DRAIN_BLOCKS = 64;

/** How often, at most, the server's network is checked against the watches'. */
const NETWORK_CHECK_MS = 60_000;

const CHAIN_NAMES: Record<string, ZcashNetwork> = { main: "mainnet", test: "testnet", regtest: "regtest" };

export interface ZcashScannerOptions {
  source: CompactBlockSource;
  /** When set, watches of another network are refused at creation, and a server on another network is refused. */
  network?: ZcashNetwork;
  /** Confirmations before a note counts in balanceAtomic (default 10). */
  confirmations?: number;
  /** Distinct blocks fetched per scanWatches call (default 500). */
  maxBlocksPerCall?: number;
  /** Wall-clock budget per call in ms (default 20 000); progress so far is kept. */
  maxScanMs?: number;
  /** Block hashes kept per watch for reorg detection (default 20). */
  reorgWindow?: number;
  /** Watch keys kept in memory between calls (default 10 000: decoding a UFVK costs ~5–30 ms, so the cache should hold every active watch). */
  keyCacheSize?: number;
  /**
   * Decode every UFVK and derive its transparent window when the watch is loaded, needed or not
   * (the behaviour before keys were built lazily). Default false; kept for the benchmark baseline.
   */
  eagerKeys?: boolean;
  /** Trial-decrypt the mempool for pending notes (default true). */
  includeMempool?: boolean;
  /** Notes kept in full per watch before old spent ones are folded into sums (default 500). */
  maxStoredNotes?: number;
  /** Notes listed in the snapshot (newest; default 20). */
  snapshotOutputs?: number;
  /** Full transactions read for memos per call (default 100); the rest are read on later calls. */
  memoFetchesPerCall?: number;
  /** Transparent gap limit on the external chain (default 20). */
  gapLimit?: number;
  /**
   * From this many watches on, a block with shielded outputs is trial-decrypted with no stream
   * open, like key building (default 500): on a busy machine one block for thousands of watches
   * can outlast the stream's message timeout.
   */
  offlineScanWatches?: number;
  /** Called when one watch cannot be scanned (it is left out of the result). Never given the key. */
  onWatchError?: (watchId: string, error: unknown) => void;
}

interface Work extends EngineWatch {
  input: WatchScanInput;
  /** Scan heights scannedHeight+1 … end this call. */
  end: number;
  stopped: boolean;
  /** A reorg was seen under this watch during the pass: walk back after it. */
  suspect: boolean;
  /** Its key did not decode when needed: reported, left out of the result. */
  failed: boolean;
}

interface MempoolEntry {
  tx: CompactTx;
  /** keys.id → pending notes of that watch. */
  results: Map<string, StoredNote[]>;
}

export interface ZcashScanner extends ChainScanner {
  readonly source: CompactBlockSource;
  /** What the key cache built in this process (UFVK decodes, scan keys, transparent hashes) and how many watches it holds. */
  keyStats(): KeyCacheStats & { cached: number };
  /** Forgets every cached key (the next call starts cold, as after a restart). */
  clearKeyCache(): void;
}

export function createZcashScanner(opts: ZcashScannerOptions): ZcashScanner {
  const { source } = opts;
  const confirmations = Math.max(0, Math.floor(opts.confirmations ?? 10));
  const maxBlocksPerCall = Math.max(1, opts.maxBlocksPerCall ?? 500);
  const reorgWindow = Math.max(2, opts.reorgWindow ?? 20);
  const includeMempool = opts.includeMempool ?? true;
  const maxStoredNotes = Math.max(1, opts.maxStoredNotes ?? 500);
  const snapshotOutputs = Math.max(0, opts.snapshotOutputs ?? 20);
  const memoFetchesPerCall = Math.max(0, opts.memoFetchesPerCall ?? 100);
  const gapLimit = Math.max(1, opts.gapLimit ?? TRANSPARENT_GAP_LIMIT);
  const offlineScanWatches = Math.max(1, opts.offlineScanWatches ?? 500);
  /** Depth at which notes and spends are final enough to fold (beyond any reorg handled, and beyond the watch module's memory). */
  const foldDepth = Math.max(reorgWindow, confirmations, 60);
  const keys = new WatchKeyCache(opts.keyCacheSize ?? 10_000, opts.eagerKeys ? { gapLimit } : undefined);
  /** Validated (address, key) pairs: the ownership check is done once per pair. */
  const validated = new Map<string, ValidatedWatchKey>();
  const mempool = new Map<string, MempoolEntry>();

  let networkCheckedAt = -Infinity;
  const checkNetwork = async (signal?: AbortSignal) => {
    if (!opts.network || Date.now() - networkCheckedAt < NETWORK_CHECK_MS) return;
    const info = await source.info(signal);
    const serverNetwork = CHAIN_NAMES[info.chainName] ?? info.chainName;
    if (serverNetwork !== opts.network) {
      throw upstreamFailed("chain_network_mismatch", `The lightwalletd server serves ${info.chainName}; this service watches ${opts.network} addresses.`, {
        serverNetwork: info.chainName,
        expectedNetwork: opts.network,
      });
    }
    networkCheckedAt = Date.now();
  };

  const loadWork = (inputs: WatchScanInput[], deadline: number): Work[] => {
    const live: Work[] = [];
    for (const input of inputs) {
      // Past the deadline, uncached watches wait for the next call.
      if (Date.now() > deadline && !keys.has(input.address, input.viewKey)) continue;
      try {
        const k = keys.get(input.address, input.viewKey);
        const state = readZcashState(input.state, input.startHeight);
        live.push({ input, keys: k, state, end: state.scannedHeight, stopped: false, suspect: false, failed: false });
      } catch (e) {
        opts.onWatchError?.(input.watchId, e);
      }
    }
    return live;
  };

  /** Walks a watch back over its stored hashes to the last block still on the chain. */
  const walkBack = async (w: Work, tip: number, signal?: AbortSignal) => {
    const st = w.state;
    const top = st.scannedHeight;
    const low = top - st.hashes.length + 1;
    const hi = Math.min(top, tip);
    const chain = new Map<number, string>();
    if (hi >= low) {
      for await (const b of source.blockRange(low, hi, ["sapling"], signal)) chain.set(b.height, displayHex(b.hash));
    }
    for (let h = hi; h >= low; h--) {
      if (chain.get(h) === st.hashes[h - low]) {
        rollBack(st, h);
        return;
      }
    }
    // Nothing stored is on the chain any more (a reorg deeper than the window, another chain): start over.
    w.state = freshState(w.input.startHeight);
  };

  /** Transparent data is asked for when a watch has (or, not yet decoded, may have) a transparent item. */
  const poolsFor = (live: Work[]): PoolType[] => {
    const pools: PoolType[] = ["sapling", "orchard", "ironwood"];
    return live.some((w) => !w.failed && w.keys.mayHaveTransparent) ? ["transparent", ...pools] : pools;
  };

  /**
   * Decodes the UFVKs of the watches about to scan data that needs keys; a key
   * that does not decode is reported and its watch left out of this and every
   * later step of the call.
   */
  const decodable = (ws: Work[]): Work[] =>
    ws.filter((w) => {
      if (w.failed) return false;
      try {
        w.keys.check();
        return true;
      } catch (e) {
        w.failed = true;
        w.stopped = true;
        opts.onWatchError?.(w.input.watchId, e);
        return false;
      }
    });

  /**
   * Loads the stored key material of the watches about to need keys whose keys were not built or
   * loaded in this process yet (once per key): with it nothing is decoded or derived. A store that
   * fails leaves them to be derived from the view key.
   */
  const ensureMaterial = async (ws: readonly Work[], store: KeyMaterialStore | undefined, signal?: AbortSignal) => {
    if (!store) return;
    const want = ws.filter((w) => !w.failed && !w.keys.materialTried);
    if (want.length === 0) return;
    for (const w of want) w.keys.materialTried = true;
    let found: Map<string, string>;
    try {
      found = await store.load([...new Set(want.map((w) => w.input.watchId))]);
    } catch (e) {
      if (signal?.aborted) throw e;
      return;
    }
    for (const w of want) {
      const text = found.get(w.input.watchId);
      if (text !== undefined && !w.keys.hasMaterial) w.keys.useMaterial(text);
    }
  };

  /** Sets each watch's `end` and returns the heights to fetch as contiguous runs. */
  const allocate = (live: Work[], tip: number): { start: number; end: number }[] => {
    const heights = new Set<number>();
    const order = [...live].sort((a, b) => b.state.scannedHeight - a.state.scannedHeight);
    for (const w of order) {
      let h = Math.max(0, w.state.scannedHeight + 1);
      for (; h <= tip; h++) {
        if (!heights.has(h)) {
          if (heights.size >= maxBlocksPerCall) break;
          heights.add(h);
        }
      }
      w.end = h - 1;
    }
    const sorted = [...heights].sort((a, b) => a - b);
    const runs: { start: number; end: number }[] = [];
    for (const h of sorted) {
      const last = runs[runs.length - 1];
      if (last && last.end === h - 1) last.end = h;
      else runs.push({ start: h, end: h });
    }
    return runs;
  };

  /**
   * Builds what `needs` asks for in each watch's keys, no stream open (building 10,000 watches' keys
   * takes longer than the server waits between messages). A key that does not decode is reported
   * and its watch left out; past the deadline the rest waits for the next call.
   */
  const buildKeys = (ws: Work[], needs: { shielded: boolean; p2pkh: boolean }, deadline: number) => {
    for (const w of ws) {
      if (w.failed || w.stopped) continue;
      if (Date.now() > deadline) {
        w.stopped = true;
        continue;
      }
      try {
        w.keys.build(needs, w.state.tNext + gapLimit);
      } catch (e) {
        w.failed = true;
        w.stopped = true;
        opts.onWatchError?.(w.input.watchId, e);
      }
    }
  };

  /**
   * Streams each run once. While a stream is open, blocks are scanned only with keys already
   * built: building 10,000 watches' keys takes longer than the server waits between messages.
   * When a block needs keys not built yet, the stream is read on (at most DRAIN_BLOCKS more
   * blocks) and closed, and those blocks are scanned with no stream open, building keys as they
   * need; a longer run is then streamed on from where it stopped. No block is fetched twice.
   */
  const scanRuns = async (live: Work[], runs: { start: number; end: number }[], index: SpendIndex, deadline: number, store: KeyMaterialStore | undefined, signal?: AbortSignal) => {
    const found: FoundNote[] = [];
    const prepared = new PreparedKeyCache();
    const pools = poolsFor(live);
    let expect = 0;
    /** Scans one block; "keys" when it needs keys not built and building is not allowed now. */
    const handle = (block: CompactBlock, mayBuild: boolean): "ok" | "keys" | "stop" | "deadline" => {
      if (signal?.aborted) throw signal.reason;
      if (Date.now() > deadline) {
        for (const w of live) w.stopped = true;
        return "deadline";
      }
      if (block.height !== expect || !(block.hash instanceof Uint8Array) || block.hash.length !== 32 || !(block.prevHash instanceof Uint8Array)) {
        // The server answered out of order or with a malformed block: stop this run; the next call asks again.
        for (const w of live) if (w.end >= expect) w.stopped = true;
        return "stop";
      }
      const h = block.height;
      const prevHex = displayHex(block.prevHash);
      const ready: Work[] = [];
      for (const w of live) {
        if (w.stopped || w.failed || w.state.scannedHeight !== h - 1 || w.end < h) continue;
        const last = w.state.hashes[w.state.hashes.length - 1];
        if (last !== undefined && last !== prevHex) {
          w.stopped = true;
          w.suspect = true;
          continue;
        }
        ready.push(w);
      }
      if (ready.length > 0) {
        const needs = keysNeeded(block.vtx);
        // Trial decryption for thousands of watches can outlast the stream's message timeout on a
        // busy machine, as key building can: both are done with no stream open.
        if (!mayBuild && needs.shielded && ready.length >= offlineScanWatches) return "keys";
        if (ready.some((w) => !w.keys.ready(needs, w.state.tNext + gapLimit))) {
          if (!mayBuild) return "keys";
          buildKeys(ready, needs, deadline);
        }
        const scanning = ready.filter((w) => !w.failed && !w.stopped);
        if (scanning.length > 0) found.push(...scanBlock(block, scanning, index, () => prepared.for(scanning), reorgWindow));
      }
      expect++;
      return "ok";
    };
    outer: for (const run of runs) {
      expect = run.start;
      while (expect <= run.end) {
        const drained: CompactBlock[] = [];
        let stop = false;
        for await (const block of source.blockRange(expect, run.end, pools, signal)) {
          if (drained.length > 0) {
            drained.push(block);
            if (drained.length > DRAIN_BLOCKS) break;
            continue;
          }
          const r = handle(block, false);
          if (r === "deadline") break outer;
          if (r === "stop") {
            stop = true;
            break;
          }
          if (r === "keys") drained.push(block);
        }
        if (drained.length === 0) break; // the run is done (or the server ended it early: the next call asks again)
        await ensureMaterial(live, store, signal);
        for (const block of drained) {
          const r = handle(block, true);
          if (r === "deadline") break outer;
          if (r === "stop") {
            stop = true;
            break;
          }
        }
        if (stop) break;
      }
    }
    return found;
  };

  /** Reads memos: first for the notes found now, then for older notes still without one. */
  const readMemos = async (live: Work[], found: FoundNote[], deadline: number, store: KeyMaterialStore | undefined, signal?: AbortSignal) => {
    const todo: FoundNote[] = found.filter((f) => f.note.pool !== "transparent");
    const seen = new Set(todo.map((f) => f.note));
    for (const w of live) for (const n of w.failed ? [] : w.state.notes) if (n.pool !== "transparent" && !("memo" in n) && !seen.has(n)) todo.push({ watch: w, note: n });
    await ensureMaterial(live.filter((w) => todo.some((f) => f.watch === w)), store, signal);
    const byTx = new Map<string, FoundNote[]>();
    for (const f of todo) {
      const list = byTx.get(f.note.txid) ?? [];
      list.push(f);
      byTx.set(f.note.txid, list);
    }
    let fetched = 0;
    for (const [txid, notes] of byTx) {
      if (fetched >= memoFetchesPerCall || Date.now() > deadline) break;
      fetched++;
      let raw: Uint8Array;
      try {
        raw = (await source.transaction(Uint8Array.from(Buffer.from(txid, "hex")).reverse(), signal)).data;
      } catch (e) {
        if (signal?.aborted) throw e;
        continue; // tried again on a later call
      }
      // A full transaction that does not give the same note again has no memo we can trust: null, not retried.
      for (const f of notes) f.note.memo = memoFromTransaction(raw, f.note, f.watch.keys, f.note.height) ?? null;
    }
  };

  /** Refreshes the mempool cache and returns each watch's pending notes and the mined notes its mempool spends. */
  const scanMempool = async (
    live: Work[],
    index: SpendIndex,
    tip: number,
    deadline: number,
    store: KeyMaterialStore | undefined,
    signal?: AbortSignal,
  ): Promise<Map<Work, { notes: StoredNote[]; spending: StoredNote[] }>> => {
    const out = new Map<Work, { notes: StoredNote[]; spending: StoredNote[] }>();
    const entryOf = (w: Work) => {
      let e = out.get(w);
      if (!e) out.set(w, (e = { notes: [], spending: [] }));
      return e;
    };
    const all = new Set<EngineWatch>(live.filter((w) => !w.failed));
    try {
      const txs = await source.mempool(poolsFor(live), signal);
      const current = new Set<string>();
      for (const tx of txs) {
        if (!(tx.txid instanceof Uint8Array) || tx.txid.length !== 32) continue;
        const id = bytesToHex(tx.txid);
        current.add(id);
        if (!mempool.has(id)) mempool.set(id, { tx, results: new Map() });
      }
      for (const id of [...mempool.keys()]) if (!current.has(id)) mempool.delete(id);
    } catch (e) {
      if (signal?.aborted) throw e;
      // The pool could not be read: keep what was known, so pending amounts do not flicker.
    }
    const prepared = new PreparedKeyCache();
    let memoFetches = 0;
    for (const [id, entry] of mempool) {
      let todo = live.filter((w) => !w.failed && !entry.results.has(w.keys.id));
      const needs = keysNeeded([entry.tx]);
      if (todo.length > 0 && (needs.shielded || needs.p2pkh)) {
        await ensureMaterial(todo, store, signal);
        todo = decodable(todo);
      }
      if (todo.length > 0) {
        const scanning = todo;
        const hits = scanMempoolTx(entry.tx, scanning, () => prepared.for(scanning), index, tip + 1);
        for (const w of todo) entry.results.set(w.keys.id, []);
        for (const hit of hits) if (todo[hit.watch]) entry.results.get(todo[hit.watch]!.keys.id)!.push(hit.note);
      }
      // The full transaction is read only when one of our shielded notes in it has no memo yet.
      const needMemo = live.some((w) => (entry.results.get(w.keys.id) ?? []).some((n) => n.pool !== "transparent" && !("memo" in n)));
      if (needMemo && memoFetches < memoFetchesPerCall && Date.now() <= deadline) {
        memoFetches++;
        try {
          const raw = (await source.transaction(Uint8Array.from(Buffer.from(id, "hex")), signal)).data;
          for (const w of live)
            for (const n of entry.results.get(w.keys.id) ?? []) if (n.pool !== "transparent" && !("memo" in n)) n.memo = memoFromTransaction(raw, n, w.keys, tip + 1) ?? null;
        } catch (e) {
          if (signal?.aborted) throw e;
        }
      }
      for (const w of live) {
        const notes = entry.results.get(w.keys.id);
        if (notes && notes.length > 0) entryOf(w).notes.push(...notes);
      }
      // Spends are looked up on every call (no keys needed): the notes they spend change as blocks are scanned.
      for (const f of mempoolSpendsOf(entry.tx, all, index)) {
        const e = entryOf(f.watch as Work);
        if (!e.spending.includes(f.note)) e.spending.push(f.note);
      }
    }
    return out;
  };

  /** New material of a watch's keys to store, if any (a key that no longer decodes has none). */
  const materialOf = (w: Work): string | undefined => {
    try {
      return w.keys.materialToStore();
    } catch {
      return undefined;
    }
  };

  return {
    chain: "zcash",
    source,
    validateWatchKey(address: string, viewKey: string): ValidatedWatchKey {
      const id = watchKeyId(address, viewKey);
      const cached = validated.get(id);
      if (cached) return cached;
      // The check decodes the UFVK and derives the transparent gap window through the watch's own
      // keys; the keys then built for scanning are handed back as material to store with the watch.
      const k = keys.create(address, viewKey);
      const checked = validateZcashWatchKey(address, viewKey, { keys: k, window: gapLimit });
      if (opts.network && checked.network !== opts.network) {
        throw badRequest("wrong_network", `This is a ${checked.network} key; this service watches ${opts.network}.`, { expected: opts.network, got: checked.network });
      }
      k.build({ shielded: true, p2pkh: true }, gapLimit);
      const v: ValidatedWatchKey = { ...checked, keyMaterial: k.exportMaterial() };
      k.markStored();
      // Warm for the watch's first ticks in this process (scanned under its canonical address).
      if (checked.address === address) keys.put(k);
      validated.set(id, v);
      while (validated.size > 1000) validated.delete(validated.keys().next().value!);
      return v;
    },
    keyStats: () => ({ ...keys.stats, cached: keys.size }),
    clearKeyCache: () => keys.clear(),
    async defaultStartHeight(): Promise<number> {
      if ((opts.network ?? "mainnet") === "mainnet") return ZCASH_MAINNET_DEFAULT_START;
      return (await source.latestBlock()).height;
    },
    async tipHeight(signal?: AbortSignal): Promise<number> {
      return (await source.latestBlock(signal)).height;
    },
    async scanWatches(inputs: WatchScanInput[], signal?: AbortSignal, store?: KeyMaterialStore): Promise<WatchScanOutput[]> {
      const started = Date.now();
      await checkNetwork(signal);
      const deadline = started + (opts.maxScanMs ?? 20_000);
      const latest = await source.latestBlock(signal);
      const tip = latest.height;
      const tipHash = displayHex(latest.hash);
      const live = loadWork(inputs, deadline);
      // Reorgs visible before scanning: the watch's top is above the tip, or at the tip with another hash.
      for (const w of live) {
        const st = w.state;
        if (st.hashes.length === 0) continue;
        if (st.scannedHeight > tip || (st.scannedHeight === tip && st.hashes[st.hashes.length - 1] !== tipHash)) await walkBack(w, tip, signal);
      }
      const index = new SpendIndex(live, gapLimit);
      const found = await scanRuns(live, allocate(live, tip), index, deadline, store, signal);
      // Reorgs found on the way: walk back now, so the snapshot already shows what was lost.
      for (const w of live) if (w.suspect) await walkBack(w, tip, signal);
      await readMemos(live, found, deadline, store, signal);
      const pending = includeMempool && live.length > 0 ? await scanMempool(live, index, tip, deadline, store, signal) : new Map<Work, { notes: StoredNote[]; spending: StoredNote[] }>();
      return live.filter((w) => !w.failed).map((w) => {
        foldSettled(w.state, tip, { maxStored: maxStoredNotes, foldDepth });
        const p = pending.get(w);
        const out = summarizeZcashWatch(w.input.watchId, w.state, tip, p?.notes ?? [], { confirmations, snapshotOutputs }, p?.spending ?? []);
        const material = store ? materialOf(w) : undefined;
        return material === undefined ? out : { ...out, keyMaterial: material };
      });
    },
  };
}

export type { WatchKeys };
