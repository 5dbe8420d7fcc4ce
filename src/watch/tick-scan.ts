/**
 * The tick's chain work: one scanner call per chain for all of its due
 * watches, with each view key decrypted for this call only. A failure costs
 * only what it touches: a key that does not open skips its watch, a scanner
 * that throws skips its chain; both are retried at the next tick.
 */
import type { Logger } from "pino";
import type { ChainId, ChainScanner, ScanState, SubaddressScan, WatchScanInput, WatchScanOutput } from "../chains/scanner.js";
import type { Metrics } from "../core/metrics.js";
import type { SecretBox } from "../core/secretbox.js";
import type { Database } from "../db/types.js";
import { keyMaterialStore, sealKeyMaterial } from "./key-material.js";
import type { ClaimedWatch } from "./tick-leases.js";
import { subaddressScans, type Lookahead } from "./subaddresses.js";

export interface ChainScans {
  /** watchId → what its scan returned (absent: not scanned this tick). */
  results: Map<string, WatchScanOutput>;
  scanned: number;
  scanErrors: number;
  /** watchId → key material the scanner built and the store lacks, sealed (written with the batch). */
  keyMaterial: Map<string, Buffer>;
}

export async function scanWatchesByChain(
  deps: {
    db: Database;
    scanners: Partial<Record<ChainId, ChainScanner>>;
    secretBox: SecretBox | null;
    log: Logger;
    metrics?: Metrics;
    /** The Monero look-ahead of a watch that names none. */
    subaddressDefault: Lookahead;
  },
  watches: readonly ClaimedWatch[],
): Promise<ChainScans> {
  const out: ChainScans = { results: new Map(), scanned: 0, scanErrors: 0, keyMaterial: new Map() };
  const byChain = new Map<ChainId, ClaimedWatch[]>();
  for (const w of watches) {
    const list = byChain.get(w.chain) ?? [];
    list.push(w);
    byChain.set(w.chain, list);
  }
  for (const [chain, list] of byChain) {
    const scanner = deps.scanners[chain];
    if (!scanner || !deps.secretBox) {
      out.scanErrors += list.length;
      continue;
    }
    // Monero: each watch's look-ahead and the invoice subaddresses handed out past it (one query for the batch).
    const subaddresses = chain === "monero" ? await subaddressScans(deps.db, list, deps.subaddressDefault) : new Map<string, SubaddressScan>();
    // A key that does not open (corrupted row, wrong MASTER_KEY) skips that watch only.
    const inputs: WatchScanInput[] = [];
    for (const w of list) {
      try {
        inputs.push({
          watchId: w.id,
          address: w.address,
          viewKey: deps.secretBox.open(w.view_key_enc, `viewkey:${w.id}`),
          state: (w.scan_state as ScanState | null) ?? null,
          startHeight: w.start_height,
          ...(subaddresses.has(w.id) ? { subaddresses: subaddresses.get(w.id)! } : {}),
        });
      } catch (e) {
        out.scanErrors++;
        deps.log.error({ watchId: w.id, err: (e as Error).message }, "view key does not decrypt; watch skipped");
      }
    }
    const box = deps.secretBox;
    const store = keyMaterialStore(deps.db, box, (watchId) => deps.log.warn({ watchId }, "stored key material does not decrypt; keys derived from the view key"));
    const endScan = deps.metrics?.scanDuration.startTimer({ chain });
    try {
      for (const r of await scanner.scanWatches(inputs, undefined, store)) {
        const { keyMaterial, ...result } = r;
        out.results.set(r.watchId, result);
        if (keyMaterial !== undefined) out.keyMaterial.set(r.watchId, sealKeyMaterial(box, r.watchId, keyMaterial));
      }
      endScan?.();
      out.scanned += inputs.length;
    } catch (e) {
      out.scanErrors += inputs.length;
      deps.log.warn({ chain, err: (e as Error).message }, "chain scan failed; watches retried next tick");
    }
  }
  return out;
}
