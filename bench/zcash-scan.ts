/**
 * npm run bench:zcash-scan — compact trial decryptions per second per core
 * for Sapling, Orchard and Ironwood outputs, for 1 and 1,000 watches against
 * the same block, next to the plain @noble reference path measured in the
 * same run; then a 1,000-output block checked against 1,000 watches, on
 * worker threads (one per core by default).
 *
 * Two units are printed side by side:
 *  - per IVK: one trial decryption = one incoming viewing key against one
 *    output (one key agreement, one KDF, one ChaCha20 block, plus the full
 *    commitment check whenever the lead byte is plausible);
 *  - per watch: one (watch, output) check, complete. Every watch has an
 *    external and an internal key for each protocol, so it is two IVK trials
 *    (the per-IVK rate is twice the per-watch rate).
 * Outputs are real: built with the sender-side note encryption of the test
 * suite (test/chains/zcash/sender.ts), some paying watches, the rest paying
 * random addresses.
 *
 * The batch path is measured with both curve engines: "wasm" (the default,
 * wasm-field.ts) and "bigint" (curve-batch.ts, the previous arithmetic).
 *
 * Options: --watches=1,1000  --block=1000  --threads=N  --seconds=2
 *          --engines=wasm,bigint (batch-path rows)  --block-engines=wasm (add bigint to time the block with it too)
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { batchTryAction, batchTrySapling, prepareKeys, setCurveEngine, BATCH_MIN_KEYS, type CurveEngine } from "../src/chains/zcash/batch-decrypt.js";
import { tryActionOutput, trySaplingOutput, type ActionOutputData, type SaplingOutputData, type ScanKeys } from "../src/chains/zcash/note-decrypt.js";
import { actionOutputTo, randomOrchardIvk, randomSaplingIvk, randomWatch, saplingOutputTo } from "../test/chains/zcash/batch-fixtures.js";

type Pool = "sapling" | "orchard" | "ironwood";
interface BlockOut {
  pool: Pool;
  out: SaplingOutputData & Partial<ActionOutputData>;
  /** The watch it pays, or -1. */
  to: number;
}
const HEIGHT = 3_000_000; // after Canopy's grace window: Sapling lead byte 0x02 only

// ---------------------------------------------------------------------------
// Serialisation for the worker threads (bigints as strings, bytes as arrays).

const toWire = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? { $b: v.toString() } : v instanceof Uint8Array ? { $u: Array.from(v) } : v));
const fromWire = <T>(s: string): T =>
  JSON.parse(s, (_k, v: unknown) => {
    if (v && typeof v === "object" && "$b" in v) return BigInt((v as { $b: string }).$b);
    if (v && typeof v === "object" && "$u" in v) return Uint8Array.from((v as { $u: number[] }).$u);
    return v;
  }) as T;

function scanBlock(watches: ScanKeys[], outs: BlockOut[]): { hits: [number, number, string][] } {
  const prepared = prepareKeys(watches);
  const hits: [number, number, string][] = [];
  outs.forEach((o, i) => {
    const found =
      o.pool === "sapling" ? batchTrySapling(prepared, o.out, HEIGHT) : batchTryAction(prepared, o.pool, o.out as ActionOutputData);
    for (const h of found) hits.push([i, h.watch, h.note.value.toString()]);
  });
  return { hits };
}

if (!isMainThread) {
  const { watches, outs, engine } = fromWire<{ watches: ScanKeys[]; outs: BlockOut[]; engine: CurveEngine }>(workerData as string);
  setCurveEngine(engine);
  parentPort!.postMessage(scanBlock(watches, outs));
} else {
  await main();
}

function tsWorker(file: URL, data: string): Worker {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { exports: Record<string, { import?: { default?: string } }> };
  const esmApi = pkg.exports["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
  const tsxApi = pathToFileURL(path.resolve(path.dirname(pkgPath), esmApi)).href;
  const code = `(async () => {
  const { register } = await import(${JSON.stringify(tsxApi)});
  register();
  await import(${JSON.stringify(file.href)});
})().catch((e) => { setImmediate(() => { throw e; }); });`;
  return new Worker(code, { eval: true, workerData: data });
}

async function main(): Promise<void> {
  const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
  const WATCH_COUNTS = (args.get("watches") ?? "1,1000").split(",").map(Number);
  const MAX_WATCHES = Math.max(...WATCH_COUNTS, 1000);
  const BLOCK = Number(args.get("block") ?? 1000);
  const THREADS = Number(args.get("threads") ?? Math.min(2, availableParallelism()));
  const SECONDS = Number(args.get("seconds") ?? 2);
  const ENGINES = (args.get("engines") ?? "wasm,bigint").split(",") as CurveEngine[];
  const BLOCK_ENGINES = (args.get("block-engines") ?? "wasm").split(",") as CurveEngine[];

  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const log = (s: string) => process.stdout.write(`${s}\n`);
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  log(`Zcash trial-decryption benchmark — Node ${process.version}, ${cpus()[0]?.model ?? "cpu"} × ${availableParallelism()}, load average ${loadavg()[0]!.toFixed(1)}`);

  let t = performance.now();
  const watches = Array.from({ length: MAX_WATCHES }, () => randomWatch());
  // The block: Sapling half, Orchard 35 %, Ironwood 15 %; every 25th output pays a watch (scope alternating).
  const pools: Pool[] = [];
  for (let i = 0; i < BLOCK; i++) pools.push(i % 20 < 10 ? "sapling" : i % 20 < 17 ? "orchard" : "ironwood");
  const block: BlockOut[] = pools.map((pool, i) => {
    const to = i % 25 === 0 ? (i * 7919) % MAX_WATCHES : -1;
    const scope = (i / 25) % 2;
    if (pool === "sapling") return { pool, to, out: saplingOutputTo(to >= 0 ? watches[to]!.sapling[scope]!.ivk : randomSaplingIvk(), BigInt(1000 + i)) };
    const ivk = to >= 0 ? watches[to]!.orchard[scope]!.ivk : randomOrchardIvk();
    return { pool, to, out: actionOutputTo(ivk, BigInt(1000 + i), pool === "orchard" ? 0x02 : 0x03) };
  });
  log(`setup: ${fmt(MAX_WATCHES)} watches (Sapling + Orchard keys, both scopes), ${BLOCK} real outputs, in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const sample = (pool: Pool, n: number) => block.filter((o) => o.pool === pool).slice(0, n);

  // Baseline: the reference path (plain @noble: trySaplingOutput / tryActionOutput), one watch at a time.
  const baseline = new Map<Pool, number>();
  log(`\nbaseline — reference path, plain @noble, one watch at a time, one core (a watch = 2 IVKs per protocol):`);
  for (const pool of ["sapling", "orchard", "ironwood"] as const) {
    const outs = sample(pool, 6);
    let n = 0;
    const c0 = cpu();
    t = performance.now();
    do {
      for (const o of outs) {
        const w = watches[n % MAX_WATCHES]!;
        if (pool === "sapling") trySaplingOutput(w, o.out, HEIGHT);
        else tryActionOutput(w, pool, o.out as ActionOutputData);
        n++;
      }
    } while (performance.now() - t < SECONDS * 500);
    const secs = (performance.now() - t) / 1000;
    baseline.set(pool, n / secs);
    const cpuRate = n / (cpu() - c0);
    log(`  ${pool.padEnd(8)} per IVK ${fmt((2 * n) / secs).padStart(7)}/s (CPU ${fmt(2 * cpuRate).padStart(7)}/s)   per watch ${fmt(n / secs).padStart(7)}/s (CPU ${fmt(cpuRate).padStart(7)}/s)`);
  }

  log(`\nbatch path (batch-decrypt.ts), one core; rates per IVK and per watch, × = per-watch rate over the baseline's per-watch rate (wall):`);
  let ok = true;
  for (const [e, engine] of ENGINES.entries()) {
    setCurveEngine(engine);
    for (const n of WATCH_COUNTS) {
      if (e > 0 && 2 * n < BATCH_MIN_KEYS) continue; // the reference path again: measured once
      const slice = watches.slice(0, n);
      const prepared = prepareKeys(slice);
      for (const pool of ["sapling", "orchard", "ironwood"] as const) {
        const outs = sample(pool, n >= 100 ? 12 : 40);
        const run = () => {
          let hits = 0;
          for (const o of outs) hits += (pool === "sapling" ? batchTrySapling(prepared, o.out, HEIGHT) : batchTryAction(prepared, pool, o.out as ActionOutputData)).length;
          return hits;
        };
        run(); // warm-up (JIT, digit recoding)
        let rounds = 0;
        let hits = 0;
        const c0 = cpu();
        t = performance.now();
        do {
          hits = run();
          rounds++;
        } while (performance.now() - t < SECONDS * 1000);
        const secs = (performance.now() - t) / 1000;
        const cpuSecs = cpu() - c0;
        const trials = n * outs.length * rounds;
        const want = outs.filter((o) => o.to >= 0 && o.to < n).length;
        if (hits !== want) ok = false;
        const base = baseline.get(pool)!;
        const path = 2 * n < BATCH_MIN_KEYS ? "reference path below " + BATCH_MIN_KEYS + " keys" : engine;
        log(
          `  ${fmt(n).padStart(5)} watch${n === 1 ? " " : "es"} ${pool.padEnd(8)} per IVK ${fmt((2 * trials) / secs).padStart(7)}/s (CPU ${fmt((2 * trials) / cpuSecs).padStart(7)}/s)` +
            `   per watch ${fmt(trials / secs).padStart(7)}/s (CPU ${fmt(trials / cpuSecs).padStart(7)}/s) = ${(trials / secs / base).toFixed(1).padStart(5)}×` +
            `   [${path}; found ${hits}/${want}${hits === want ? "" : " MISMATCH"}]`,
        );
      }
    }
  }
  setCurveEngine("wasm");

  // The whole block against every watch, split over worker threads by output.
  const checks = BLOCK * MAX_WATCHES;
  for (const engine of BLOCK_ENGINES) {
    log(
      `\n${fmt(BLOCK)}-output block × ${fmt(MAX_WATCHES)} watches = ${fmt(checks)} watch checks = ${fmt(2 * checks)} IVK trials, ${THREADS} worker thread${THREADS === 1 ? "" : "s"}, ${engine} engine (load average ${loadavg()[0]!.toFixed(1)}):`,
    );
    const blockCpu0 = cpu(); // process-wide: includes the worker threads
    t = performance.now();
    const parts = Array.from({ length: THREADS }, (_, k) => block.map((o, i) => [o, i] as const).filter(([, i]) => i % THREADS === k));
    const results = await Promise.all(
      parts.map(
        (part) =>
          new Promise<[number, number, string][]>((resolve, reject) => {
            const w = tsWorker(new URL(import.meta.url), toWire({ watches, outs: part.map(([o]) => o), engine }));
            w.once("message", (m: { hits: [number, number, string][] }) => {
              resolve(m.hits.map(([i, watch, v]) => [part[i]![1], watch, v]));
              void w.terminate();
            });
            w.once("error", reject);
          }),
      ),
    );
    const secs = (performance.now() - t) / 1000;
    const blockCpu = cpu() - blockCpu0;
    const hits = results.flat().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const want = block.flatMap((o, i) => (o.to >= 0 ? [[i, o.to, String(1000 + i)]] : []));
    const same = JSON.stringify(hits) === JSON.stringify(want);
    if (!same) ok = false;
    log(`  ${secs.toFixed(1)} s wall (${fmt(checks / secs)} watch checks/s over ${THREADS} threads), found ${hits.length}/${want.length} payments${same ? "" : " MISMATCH"}`);
    log(
      `  CPU time of all threads: ${blockCpu.toFixed(1)} s (per core: ${fmt(checks / blockCpu)} watch checks/s = ${fmt((2 * checks) / blockCpu)} IVK trials/s; ${(blockCpu / THREADS).toFixed(1)} s on ${THREADS} otherwise idle cores)`,
    );
    log(`  target: under 60 s wall → ${secs < 60 ? "met" : "NOT met"}`);
  }
  if (!ok) process.exitCode = 1;
}
