/**
 * npm run bench:zcash-watch — Zcash watches at scale, on PostgreSQL
 * (DATABASE_URL, a fresh schema dropped afterwards; PGlite otherwise,
 * labelled as such), against the devnet's lightwalletd over gRPC.
 *
 *  1. WATCHES (10,000) Zcash watches created through the watch service:
 *     each with its own UFVK (the devnet wallets' keys with a fresh
 *     transparent item and Sapling diversifier key each, so every watch
 *     decodes and derives on its own; the Orchard and Sapling ivks repeat),
 *     watching an Orchard unified address of that key.
 *  2. Full ticks (runWatchTick, every watch in one batch) with no new block
 *     and an empty mempool: the idle path. Measured cold (the scanner's key
 *     cache cleared, as after a restart) and warm, with the lazy keys (the
 *     default) and, as the baseline measured in the same run, the eager path
 *     (`eagerKeys`: every UFVK decoded and its transparent window derived on
 *     load, as the scanner did before). The eager cold tick is run on
 *     BASELINE_WATCHES (500) watches only — at 10,000 it takes minutes — and
 *     its per-watch cost is scaled to WATCHES, labelled as such.
 *  3. One block with a few outputs (devnet sends to an unwatched wallet,
 *     plus the coinbase) for all watches: the batch trial decryption. Once
 *     right after a restart (the key cache cleared: every watch's keys loaded
 *     from the sealed material stored at creation), once warm, and, as the
 *     baseline measured in the same run, once more after a restart with the
 *     material withheld from the scanner (every key derived from the view
 *     key: the path before the material was stored).
 *
 * Wall time and this process's CPU time are printed for each (the machine
 * may be shared). The scanners are built here with maxScanMs raised so one
 * tick covers every watch; the app's own scanner stops at 20 s and goes on
 * at the next tick.
 *
 * Env: WATCHES (10000), BASELINE_WATCHES (500), EAGER_FULL=0 (leave out the eager
 * path's ticks over every watch; its cold tick on BASELINE_WATCHES stays).
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sql } from "kysely";
import pino from "pino";
import { ManualClock } from "../src/core/clock.js";
import { applyConfigOverlay, loadConfig } from "../src/config.js";
import { createApp } from "../src/app.js";
import type { DatabaseHandle } from "../src/db/connection.js";
import { startDevnet } from "../devnet/index.js";
import { deriveDevnetZcashWallets } from "../devnet/zcash-wallets.js";
import { orchardAddressAt, orchardIvkParts } from "../src/chains/zcash/orchard-keys.js";
import { createZcashScanner, type ZcashScanner } from "../src/chains/zcash/scanner.js";
import { decodeUfvk, encodeUfvk, encodeUnifiedAddress } from "../src/chains/zcash/zip316.js";
import { CREATE_CREDIT } from "../src/watch/meter.js";
import { createWatch } from "../src/watch/service.js";
import { runWatchTick, type TickStats } from "../src/watch/tick.js";
import { cpuSince, machineLine, mapLimit, ms, openBenchDatabase, withBenchDatabase } from "./support.js";

const WATCHES = Number(process.env.WATCHES ?? 10_000);
const BASELINE_WATCHES = Math.min(Number(process.env.BASELINE_WATCHES ?? 500), WATCHES);
const EAGER_FULL = process.env.EAGER_FULL !== "0";
const log = pino({ level: "silent" });

/** A UFVK of the same account with a fresh transparent item and Sapling dk (valid points; the Orchard item kept). */
function variantUfvk(ufvk: string): string {
  const k = decodeUfvk(ufvk);
  const sk = secp256k1.utils.randomSecretKey();
  const transparent = { chainCode: randomBytes(32), publicKey: secp256k1.getPublicKey(sk, true), depth: 3, parentFingerprint: 0, childNumber: 0 };
  return encodeUfvk(k.network, { transparent, sapling: { ...k.sapling!, dk: randomBytes(32) }, orchard: k.orchard!.fvk, unknown: k.unknown });
}

interface Row {
  label: string;
  watches: number;
  wallMs: number;
  cpuMs: number;
  scanMs: number;
  stats: TickStats[];
  keys?: string;
  note?: string;
}
const rows: Row[] = [];

async function main() {
  console.log(machineLine("bench:zcash-watch"));
  await withBenchDatabase(await openBenchDatabase("bench_zwatch"), run);
}

async function run(handle: DatabaseHandle) {
  const devnet = await startDevnet({ dataDir: (await import("node:fs")).mkdtempSync(`${os.tmpdir()}/vigil-bench-`), blockSeconds: 0 });
  const chain = devnet.zcashChain!;
  chain.stopTimer();
  const clock = new ManualClock(Date.now());
  const parsed = loadConfig({ DEVNET: "off", DATA_DIR: os.tmpdir(), PORT: "0", LOG_LEVEL: "silent", WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1", ZCASH_CONFIRMATIONS: "2" });
  const config = applyConfigOverlay(parsed, devnet.configOverlay);
  const app = await createApp(config, { clock, log, database: handle });
  const appScanner = app.watch.scanners.zcash as ZcashScanner | undefined;
  if (!appScanner) throw new Error("the devnet did not configure a lightwalletd");
  const scannerOpts = { source: appScanner.source, network: config.ZCASH_NETWORK, confirmations: config.ZCASH_CONFIRMATIONS, maxScanMs: 3_600_000 };
  const lazy = createZcashScanner(scannerOpts);
  const eager = createZcashScanner({ ...scannerOpts, eagerKeys: true });
  let scanMs = 0;
  /** Puts a scanner in the app; `storedKeys: false` withholds the stored key material (the path before it was stored). */
  const use = (s: ZcashScanner, storedKeys = true) => {
    app.watch.scanners.zcash = {
      ...s,
      scanWatches: async (inputs, signal, store) => {
        const t = performance.now();
        try {
          return await s.scanWatches(inputs, signal, storedKeys ? store : undefined);
        } finally {
          scanMs += performance.now() - t;
        }
      },
    };
  };
  console.log(`lightwalletd (gRPC): ${config.LIGHTWALLETD_URL}; network ${config.ZCASH_NETWORK}`);

  // --- 1. Watches through the service ---------------------------------------------
  const wallets = devnet.zcashWallets();
  const outsider = deriveDevnetZcashWallets(randomBytes(32).toString("hex"), wallets[0]!.network, ["outsider"])[0]!;
  const orchard = wallets.map((w) => orchardIvkParts(decodeUfvk(w.ufvk).orchard!.fvk, "external")!);
  const start = chain.tip().height + 1;
  let t = performance.now();
  const ids: string[] = [];
  await mapLimit(
    Array.from({ length: WATCHES }, (_, i) => i),
    8,
    async (i) => {
      const w = wallets[i % wallets.length]!;
      const address = encodeUnifiedAddress(w.network, { orchard: orchardAddressAt(orchard[i % wallets.length]!, BigInt(1000 + i)) });
      const r = await createWatch({
        ctx: { deps: app.watch, db: app.database.db },
        input: { chain: "zcash", address, viewKey: variantUfvk(w.ufvk), webhookUrl: `http://127.0.0.1:9/w/${i % 100}`, birthdayHeight: start },
        opening: { creditAtomic: CREATE_CREDIT * 10n, funding: "usdc" },
      });
      ids[i] = r.watchId;
    },
  );
  await sql`UPDATE watches SET initial_scan_done = true`.execute(app.database.db);
  console.log(
    `created ${WATCHES} Zcash watches through createWatch in ${ms(performance.now() - t)} (${wallets.length} devnet wallets, each watch its own UFVK; the ownership check also builds the key material stored with each)`,
  );

  const pollGap = config.WATCH_POLL_SECONDS * 1000 * 1.2;
  const passUntilIdle = async () => {
    const stats: TickStats[] = [];
    for (;;) {
      const s = await runWatchTick(app.watch, { owner: "bench", batchSize: 10_000, leaseSeconds: 600 });
      if (s.claimed === 0) break;
      stats.push(s);
    }
    return stats;
  };
  const keyLine = (s: ZcashScanner) => {
    const k = s.keyStats();
    return `UFVKs decoded ${k.ufvkDecodes}, scan keys built ${k.scanKeyBuilds}, transparent hashes derived ${k.transparentHashes}, stored materials loaded ${k.materialLoads}`;
  };
  const measure = async (label: string, s: ZcashScanner, opts: { cold?: boolean; watches?: number; note?: string; storedKeys?: boolean } = {}) => {
    use(s, opts.storedKeys ?? true);
    clock.advance(pollGap);
    if (opts.cold) s.clearKeyCache();
    const before = s.keyStats();
    scanMs = 0;
    cpuSince();
    const t0 = performance.now();
    const stats = await passUntilIdle();
    const wallMs = performance.now() - t0;
    const after = s.keyStats();
    const row: Row = {
      label,
      watches: opts.watches ?? WATCHES,
      wallMs,
      cpuMs: cpuSince(),
      scanMs,
      stats,
      keys: `decoded ${after.ufvkDecodes - before.ufvkDecodes}, scan keys ${after.scanKeyBuilds - before.scanKeyBuilds}, t-hashes ${after.transparentHashes - before.transparentHashes}, materials loaded ${after.materialLoads - before.materialLoads}`,
      note: opts.note,
    };
    rows.push(row);
    const sum = (k: keyof TickStats) => stats.reduce((a, x) => a + x[k], 0);
    console.log(
      `\n${label} (${row.watches} watches)\n  wall ${ms(wallMs)}, CPU ${ms(row.cpuMs)}, of which scanWatches ${ms(scanMs)} wall; ${stats.length} tick(s), claimed ${sum("claimed")}, scanned ${sum("scanned")}, scan errors ${sum("scanErrors")}; keys: ${row.keys}; load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    return row;
  };

  // First pass: every watch scans its first block (nothing in it for them) and reaches the tip.
  chain.mine(1);
  await measure("first pass (the first block for every watch)", lazy, { cold: true });
  console.log(`  ${keyLine(lazy)} so far`);
  const atTip = async () =>
    Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM watches WHERE (scan_state->>'scannedHeight')::int = ${chain.tip().height}`.execute(app.database.db)).rows[0]!.n);
  console.log(`  watches at the tip: ${await atTip()} of ${WATCHES}`);

  // --- 2. Idle ticks ---------------------------------------------------------------
  const idleCold = await measure("idle tick, lazy keys, COLD (key cache cleared)", lazy, { cold: true });
  const idleWarm = await measure("idle tick, lazy keys, warm", lazy);
  await measure("idle tick, lazy keys, warm (again)", lazy);
  // The eager path over every watch (its first tick decodes all 10,000 keys: minutes) can be left out on a busy machine.
  const eagerWarm = EAGER_FULL
    ? (await measure("idle tick, eager keys (baseline), first tick: decodes everything", eager, { note: "baseline" }),
      await measure("idle tick, eager keys (baseline), warm", eager, { note: "baseline" }))
    : null;
  // The eager cold tick on a subset: only BASELINE_WATCHES watches are due.
  const subset = ids.slice(0, BASELINE_WATCHES);
  const others = ids.slice(BASELINE_WATCHES);
  const farFuture = new Date(clock.now() + 365 * 24 * 3600 * 1000);
  for (let i = 0; i < others.length; i += 5000) await app.database.db.updateTable("watches").set({ next_poll_at: farFuture }).where("id", "in", others.slice(i, i + 5000)).execute();
  const eagerCold = await measure(`idle tick, eager keys (baseline), COLD, ${BASELINE_WATCHES} watches`, eager, { cold: true, watches: subset.length, note: "baseline" });
  const lazyColdSubset = await measure(`idle tick, lazy keys, COLD, the same ${BASELINE_WATCHES} watches`, lazy, { cold: true, watches: subset.length });
  await app.database.db.updateTable("watches").set({ next_poll_at: new Date(clock.now()) }).where("chain", "=", "zcash").execute();

  // --- 3. A block with a few outputs for every watch ------------------------------
  const sendBlock = () => {
    for (let i = 0; i < 4; i++) chain.send(i % 2 ? outsider.address : outsider.saplingAddress, 100_000n + BigInt(i), i === 0 ? "bench" : undefined);
    chain.mine(1);
    const b = chain.tip();
    return b;
  };
  sendBlock();
  const blockCold = await measure("block tick: 4 shielded sends + coinbase, COLD (after a restart): keys from the stored material", lazy, { cold: true });
  console.log(`  watches at the tip: ${await atTip()} of ${WATCHES}`);
  sendBlock();
  const blockWarm = await measure("block tick: 4 shielded sends + coinbase, warm", lazy);
  console.log(`  watches at the tip: ${await atTip()} of ${WATCHES}`);
  sendBlock();
  const blockColdDerived = await measure(
    "baseline: block tick: 4 shielded sends + coinbase, COLD, keys derived from the view keys (no stored material: the path before)",
    lazy,
    { cold: true, storedKeys: false, note: "baseline" },
  );
  console.log(`  watches at the tip: ${await atTip()} of ${WATCHES}`);

  // --- Summary ---------------------------------------------------------------------
  const perWatch = (r: Row) => r.wallMs / r.watches;
  console.log(`\nsummary (${WATCHES} watches; one full tick each; wall / CPU of this process)`);
  const line = (name: string, r: Row, scaled?: boolean) =>
    console.log(`  ${name.padEnd(58)} ${ms(r.wallMs).padStart(10)} / ${ms(r.cpuMs).padStart(10)}${scaled ? `   → ×${(WATCHES / r.watches).toFixed(0)}: ~${ms(perWatch(r) * WATCHES)} wall at ${WATCHES}` : ""}`);
  line("idle, lazy keys, cold", idleCold);
  line("idle, lazy keys, warm", idleWarm);
  line(`idle, lazy keys, cold, ${BASELINE_WATCHES} watches`, lazyColdSubset);
  line(`baseline: idle, eager keys, cold, ${BASELINE_WATCHES} watches`, eagerCold, true);
  if (eagerWarm) line("baseline: idle, eager keys, warm", eagerWarm);
  line("block with outputs, cold, stored material", blockCold);
  line("block with outputs, warm", blockWarm);
  line("baseline: block with outputs, cold, keys derived", blockColdDerived);
  await app.close?.();
  await devnet.close?.();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
