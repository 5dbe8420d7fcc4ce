/**
 * Pending (0-conf) outputs from the transaction pool. The pool's hashes are
 * read on every call; a transaction's body is fetched once and kept, with
 * each view account's result for it, for as long as it stays in the pool (a
 * pool tx never changes). A pool tx that cannot be read is ignored: it is
 * read again once mined.
 */
import type { MoneroDaemon } from "./daemon-client.js";
import { scanTxFromEntry } from "./block-source.js";
import { SCAN_GROUP, matchTx, scanForAccounts } from "./match.js";
import { prepareTx, type PreparedTx } from "./scan.js";
import type { WatchWork } from "./scan-state.js";
import type { OwnedOutput } from "./types.js";

interface PoolEntry {
  tx: PreparedTx | null;
  doubleSpendSeen: boolean;
  /** accountKey → outputs. */
  results: Map<string, OwnedOutput[]>;
}

export interface PendingOutput {
  txid: string;
  out: OwnedOutput;
  doubleSpendSeen: boolean;
}

export class MempoolScan {
  private readonly entries = new Map<string, PoolEntry>();

  constructor(private readonly daemon: MoneroDaemon) {}

  /** Drops txs that left the pool and fetches the new ones. */
  async refresh(signal?: AbortSignal): Promise<void> {
    const hashes = await this.daemon.getTransactionPoolHashes(signal);
    const current = new Set(hashes);
    for (const h of [...this.entries.keys()]) if (!current.has(h)) this.entries.delete(h);
    const fresh = hashes.filter((h) => !this.entries.has(h));
    if (fresh.length === 0) return;
    const { txs } = await this.daemon.getTransactions(fresh, { prune: true }, signal);
    for (const t of txs) {
      let prepared: PreparedTx | null = null;
      try {
        prepared = prepareTx(scanTxFromEntry(t));
      } catch {
        prepared = null;
      }
      this.entries.set(t.txHash, { tx: prepared, doubleSpendSeen: t.doubleSpendSeen, results: new Map() });
    }
  }

  /** Scans every pool tx for the watches that have no cached result for it yet (batched). */
  scan(items: WatchWork[]): void {
    for (const entry of this.entries.values()) {
      if (!entry.tx) continue;
      const todo = items.filter((w) => w.account && !entry.results.has(w.accountKey));
      for (let g = 0; g < todo.length; g += SCAN_GROUP) {
        const group = todo.slice(g, g + SCAN_GROUP);
        const perAccount = scanForAccounts(entry.tx, group.map((w) => w.account!));
        group.forEach((w, i) => entry.results.set(w.accountKey, perAccount[i]!));
      }
    }
  }

  /** The pool outputs of one watch (scanned now if scan() has not seen it). */
  outputsFor(w: WatchWork): PendingOutput[] {
    const res: PendingOutput[] = [];
    if (!w.account) return res;
    for (const [txid, entry] of this.entries) {
      if (!entry.tx) continue;
      let found = entry.results.get(w.accountKey);
      if (!found) {
        found = matchTx(entry.tx, w.account);
        entry.results.set(w.accountKey, found);
      }
      for (const out of found) res.push({ txid, out, doubleSpendSeen: entry.doubleSpendSeen });
    }
    return res;
  }
}
