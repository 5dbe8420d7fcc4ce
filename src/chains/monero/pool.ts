/**
 * MoneroScanPool: the batch scanner spread over worker threads. Watches are
 * split into one slice per thread (sent once); each scan sends the block's
 * transactions to every thread and merges the answers back into
 * result[tx][account] in the caller's order.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { scanTxsForAccounts } from "./batch.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "./types.js";

/**
 * Running from TypeScript sources (tsx, vitest): the worker registers tsx's
 * loader itself, then imports the worker module (loader flags of the parent
 * are not inherited by worker threads reliably).
 */
function tsBootstrap(workerUrl: URL): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { exports: Record<string, { import?: { default?: string } }> };
  const esmApi = pkg.exports["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
  const tsxApi = pathToFileURL(path.resolve(path.dirname(pkgPath), esmApi)).href;
  return `(async () => {
  const { register } = await import(${JSON.stringify(tsxApi)});
  register();
  await import(${JSON.stringify(workerUrl.href)});
})().catch((e) => { setImmediate(() => { throw e; }); });`;
}

type Reply = { id: number; ok: true; results?: OwnedOutput[][][] } | { id: number; ok: false; error: string };

export interface MoneroScanPoolOptions {
  /** Worker threads (default: available parallelism). 0 scans on the calling thread. */
  threads?: number;
}

export class MoneroScanPool {
  private readonly workers: Worker[] = [];
  private slices: number[][] = [];
  private accountCount = 0;
  private accountsLocal: ViewAccount[] = [];
  private nextId = 1;
  private broken: Error | undefined;
  private closing = false;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  private readonly threadCount: number;

  /** Threads start on first use, so an idle or small deployment never pays for them. */
  constructor(opts: MoneroScanPoolOptions = {}) {
    this.threadCount = opts.threads ?? availableParallelism();
  }

  private startWorkers(): void {
    if (this.workers.length > 0 || this.threadCount === 0 || this.closing) return;
    const isTs = import.meta.url.endsWith(".ts");
    const url = new URL(`./batch-worker.${isTs ? "ts" : "js"}`, import.meta.url);
    for (let i = 0; i < this.threadCount; i++) {
      const w = isTs ? new Worker(tsBootstrap(url), { eval: true }) : new Worker(url);
      w.on("message", (r: Reply) => {
        const p = this.pending.get(r.id);
        if (p) {
          this.pending.delete(r.id);
          p.resolve(r);
        }
      });
      const fail = (e: Error) => {
        this.broken ??= e;
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
      };
      w.on("error", fail);
      w.on("exit", (code) => {
        if (!this.closing) fail(new Error(`scan worker exited (code ${code})`));
      });
      this.workers.push(w);
    }
  }

  get threads(): number {
    return this.threadCount;
  }

  private call(w: Worker, msg: Record<string, unknown>): Promise<Reply> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ ...msg, id });
    });
  }

  /** Replaces the watched accounts (split evenly over the threads). */
  async setAccounts(accounts: ViewAccount[]): Promise<void> {
    this.startWorkers();
    this.accountCount = accounts.length;
    if (this.workers.length === 0) {
      this.accountsLocal = accounts;
      return;
    }
    const n = this.workers.length;
    this.slices = Array.from({ length: n }, () => [] as number[]);
    accounts.forEach((_, i) => this.slices[i % n]!.push(i));
    const replies = await Promise.all(this.workers.map((w, k) => this.call(w, { kind: "accounts", accounts: this.slices[k]!.map((i) => accounts[i]!) })));
    for (const r of replies) if (!r.ok) throw new Error(`scan worker: ${r.error}`);
  }

  /** result[tx][account], same order as setAccounts. */
  async scanTxs(txs: ScanTx[]): Promise<OwnedOutput[][][]> {
    if (this.workers.length === 0) return scanTxsForAccounts(txs, this.accountsLocal);
    const replies = await Promise.all(this.workers.map((w) => this.call(w, { kind: "scan", txs })));
    const out: OwnedOutput[][][] = txs.map(() => new Array<OwnedOutput[]>(this.accountCount));
    replies.forEach((r, k) => {
      if (!r.ok) throw new Error(`scan worker: ${r.error}`);
      const slice = this.slices[k]!;
      r.results!.forEach((perTx, t) => perTx.forEach((owned, j) => (out[t]![slice[j]!] = owned)));
    });
    return out;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
