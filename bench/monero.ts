/**
 * npm run bench:monero — (watch, transaction) checks per second for the
 * Monero view-key scanner, on one core for 1, 100 and 10,000 watches against
 * the same 40-transaction block, against a baseline of one plain @noble/curves
 * variable-base scalar multiplication per check; then the same block against
 * 10,000 watches on a worker-thread pool (target: under 30 s on 2 cores).
 *
 * Every check is complete: per-watch derivation 8·a·R, view tag per output,
 * and for tag hits the one-time key lookup and the commitment check. The
 * block is built by the devnet sender with real sender-side cryptography.
 *
 * Then the same for Monero after FCMP++ (issue 26): a block of 40 Carrot
 * transactions (RingCT type 7, sender-side Carrot code), the same payees, on
 * one core and on the pool, next to the legacy figures of the same run —
 * per check and per output. A Carrot check per watch is one unclamped X25519
 * multiplication per distinct D_e, the 3-byte view tag per output, and for a
 * tag hit the spend-key recovery, the amount commitment and the Janus check.
 *
 * Last, the Carrot view tag's hash alone (keyed BLAKE2b, 3-byte digest, one
 * per (watch, output) pair): the project's own blake2b.ts against
 * @noble/hashes' blake2b on the same inputs — why the hot path has its own.
 *
 * Options: --watches=1,100,10000  --threads=N  --skip-single-10000  --skip-carrot
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import { ed25519 } from "@noble/curves/ed25519.js";
import { encodeAddress } from "../src/chains/monero/address.js";
import { BATCH_MIN_ACCOUNTS, scanTxsForAccounts, chooseWindow } from "../src/chains/monero/batch.js";
import { mulBase, scalarToBytes } from "../src/chains/monero/crypto.js";
import { bytesToHex } from "../src/chains/monero/encoding.js";
import { parseExtra } from "../src/chains/monero/extra.js";
import { makeViewAccount } from "../src/chains/monero/keys.js";
import { MoneroScanPool } from "../src/chains/monero/pool.js";
import { deriveSubaddress } from "../src/chains/monero/subaddress.js";
import { parseTransactionBlob } from "../src/chains/monero/tx-binary.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "../src/chains/monero/types.js";
import { buildTransfer, randomScalar, seededRng } from "../devnet/monero-sender.js";
import { buildCarrotOutputSet, destinationFromAddress, type CarrotPayment } from "../src/chains/monero/carrot/sender.js";
import { carrotTxBlob } from "../devnet/monero-carrot-tx.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { blake2bKeyed } from "../src/chains/monero/carrot/blake2b.js";
import { BLAKE2B_PERSONALIZATION } from "../src/chains/monero/carrot/constants.js";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const WATCH_COUNTS = (args.get("watches") ?? "1,100,10000").split(",").map(Number);
const MAX_WATCHES = Math.max(...WATCH_COUNTS, 10_000);
const THREADS = Number(args.get("threads") ?? Math.min(2, availableParallelism()));
const BLOCK_TXS = 40;

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const log = (s: string) => process.stdout.write(`${s}\n`);

const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
log(`Monero view-key scan benchmark — Node ${process.version}, ${cpus()[0]?.model ?? "cpu"} × ${availableParallelism()}, load average ${load()}`);

// Watches: 10,000 independent view keys (one shared spend key keeps setup short; it does not change the per-check work).
const rng = seededRng("vigil-bench-monero");
const spendPublic = mulBase(randomScalar(rng)).toBytes();
let t = performance.now();
const viewSecrets: bigint[] = Array.from({ length: MAX_WATCHES }, () => randomScalar(rng));
const accounts: ViewAccount[] = viewSecrets.map((a) =>
  makeViewAccount(encodeAddress("mainnet", "standard", spendPublic, mulBase(a).toBytes()), bytesToHex(scalarToBytes(a)), { lookahead: { accounts: 1, minors: 4 } }),
);
log(`setup: ${fmt(accounts.length)} watches (address + a·G check + spend-key table) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

// Block: 40 transfers; 34 ordinary 2-output, 4 mixing a subaddress with another destination (additional tx keys), 2 with 4 outputs.
// Payments go to watches spread over the whole range so every watch count sees some.
const foreign = () => encodeAddress("mainnet", "standard", mulBase(randomScalar(rng)).toBytes(), mulBase(randomScalar(rng)).toBytes());
const payee = (k: number) => accounts[(k * 7919) % MAX_WATCHES]!;
const built = Array.from({ length: BLOCK_TXS }, (_, k) => {
  const to = payee(k);
  const amount = BigInt(1_000_000 + k);
  if (k < 4) {
    const sub = deriveSubaddress("mainnet", to.viewSecretBytes, to.spendPublicKey, { major: 0, minor: 2 });
    return buildTransfer({ destinations: [{ address: sub, amount }, { address: foreign(), amount: 5n }], rng });
  }
  if (k < 6) {
    return buildTransfer({ destinations: [{ address: foreign(), amount: 1n }, { address: to.address, amount }, { address: foreign(), amount: 2n }, { address: foreign(), amount: 3n }], rng });
  }
  return buildTransfer({ destinations: [{ address: to.address, amount }, { address: foreign(), amount: 7n }], rng });
});
const txs: ScanTx[] = built.map((b) => {
  const p = parseTransactionBlob(b.blob);
  if (!p.ok) throw new Error(p.error);
  return p.value;
});
const derivationsPerWatch = txs.reduce((n, tx) => {
  const e = parseExtra(tx.extra);
  return n + e.txPublicKeys.length + (e.additionalPublicKeys.length === tx.outputs.length ? e.additionalPublicKeys.length : 0);
}, 0);
const outputs = txs.reduce((n, tx) => n + tx.outputs.length, 0);
log(`block: ${txs.length} txs, ${outputs} outputs, ${derivationsPerWatch} key derivations per watch (4 txs carry additional keys)`);

function expectedHits(n: number): number {
  const set = new Set(accounts.slice(0, n).map((a) => a.address));
  return built.reduce((c, _, k) => c + (set.has(payee(k).address) ? 1 : 0), 0);
}
function countHits(results: OwnedOutput[][][]): number {
  return results.reduce((c, perTx) => c + perTx.reduce((d, owned) => d + owned.length, 0), 0);
}

// Baseline: one plain variable-base scalar multiplication per check with @noble/curves.
{
  const R = ed25519.Point.fromBytes(parseExtra(txs[0]!.extra).txPublicKeys[0]!);
  const sample = 300;
  t = performance.now();
  for (let i = 0; i < sample; i++) ed25519.Point.fromBytes(R.toBytes()).multiplyUnsafe(viewSecrets[i]!);
  const secs = (performance.now() - t) / 1000;
  var baseline = sample / secs; // eslint-disable-line no-var
  log(`baseline (@noble/curves fromBytes + multiplyUnsafe, 1 per check): ${fmt(baseline)} checks/s on one core`);
}

/** One core: each watch count against `block`, repeated until 2 s are measured; checks/s per count. */
function oneCore(label: string, block: ScanTx[], results: Map<number, OwnedOutput[][][]>): Map<number, number> {
  log(`\none core (batch scanner on the calling thread), ${label}:`);
  const rates = new Map<number, number>();
  for (const n of WATCH_COUNTS) {
    if (n === 10_000 && args.has("skip-single-10000")) continue;
    const slice = accounts.slice(0, n);
    scanTxsForAccounts(block.slice(0, 2), slice.slice(0, 50)); // warm up the JIT
    let rounds = 0;
    let found: OwnedOutput[][][] = [];
    const t0 = performance.now();
    do {
      found = scanTxsForAccounts(block, slice);
      rounds++;
    } while (performance.now() - t0 < 2000);
    const secs = (performance.now() - t0) / 1000 / rounds;
    const checks = n * block.length;
    const hits = countHits(found);
    const want = expectedHits(n);
    results.set(n, found);
    rates.set(n, checks / secs);
    log(
      `  ${fmt(n).padStart(6)} watches: ${fmt(checks).padStart(7)} checks in ${secs.toFixed(2).padStart(6)} s = ${fmt(checks / secs).padStart(7)} checks/s` +
        ` (${(checks / secs / baseline).toFixed(1)}× baseline; ${n < BATCH_MIN_ACCOUNTS ? "single-watch path" : `window ${chooseWindow(n)}`}; found ${hits}/${want} payments${hits === want ? "" : " MISMATCH"})`,
    );
    if (hits !== want) process.exitCode = 1;
  }
  return rates;
}

/** The pool: every watch against `block` on THREADS threads; the same results as one core. */
async function onPool(label: string, block: ScanTx[], single: OwnedOutput[][][] | undefined): Promise<number> {
  log(`\nworker pool (${THREADS} threads), ${fmt(MAX_WATCHES)} watches × ${block.length} txs, ${label}:`);
  const pool = new MoneroScanPool({ threads: THREADS });
  let t0 = performance.now();
  await pool.setAccounts(accounts);
  log(`  distributing watches: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  t0 = performance.now();
  const pooled = await pool.scanTxs(block);
  const secs = (performance.now() - t0) / 1000;
  await pool.close();
  const checks = MAX_WATCHES * block.length;
  const hits = countHits(pooled);
  const want = expectedHits(MAX_WATCHES);
  log(`  block scanned in ${secs.toFixed(2)} s = ${fmt(checks / secs)} checks/s (${(checks / secs / baseline).toFixed(1)}× one-core baseline); found ${hits}/${want} payments`);
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
  if (single && json(single) !== json(pooled)) {
    log("  MISMATCH between pool and single-thread results");
    process.exitCode = 1;
  }
  log(`  target: under 30 s → ${secs < 30 ? "met" : "NOT met"}`);
  if (hits !== want) process.exitCode = 1;
  return secs;
}

/**
 * The same block shape in Carrot transactions: 34 two-output sets (payment + the sender's change), 4 paying a
 * subaddress (0,2), 2 four-output sets (one D_e per output); the payees of the legacy block.
 */
function carrotBlock(): ScanTx[] {
  const sender = { viewSecret: randomScalar(rng), spendPublicKey: mulBase(randomScalar(rng)).toBytes(), isSubaddress: false };
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Number(randomScalar(rng) & 0xffn));
  return Array.from({ length: BLOCK_TXS }, (_, k) => {
    const to = payee(k);
    const amount = BigInt(1_000_000 + k);
    const pay = (address: string, a: bigint): CarrotPayment => ({ destination: destinationFromAddress(address), amount: a });
    const payments =
      k < 4
        ? [pay(deriveSubaddress("mainnet", to.viewSecretBytes, to.spendPublicKey, { major: 0, minor: 2 }), amount)]
        : k < 6
          ? [pay(foreign(), 1n), pay(to.address, amount), pay(foreign(), 2n)]
          : [pay(to.address, amount)];
    const keyImage = mulBase(randomScalar(rng)).toBytes();
    const set = buildCarrotOutputSet({ firstKeyImage: keyImage, payments, change: { ...sender, amount: 7n }, rng: bytes });
    const p = parseTransactionBlob(carrotTxBlob({ set, keyImages: [keyImage], fee: 30_000n }));
    if (!p.ok) throw new Error(p.error);
    return p.value;
  });
}

const singleResults = new Map<number, OwnedOutput[][][]>();
const legacyRates = oneCore("legacy block", txs, singleResults);
const legacyPool = await onPool("legacy block", txs, singleResults.get(MAX_WATCHES));

if (!args.has("skip-carrot")) {
  const carrot = carrotBlock();
  const carrotOutputs = carrot.reduce((n, tx) => n + tx.outputs.length, 0);
  log(`\nCarrot block: ${carrot.length} txs (RingCT type 7), ${carrotOutputs} outputs; the legacy block has ${outputs}`);
  const carrotResults = new Map<number, OwnedOutput[][][]>();
  const carrotRates = oneCore("Carrot block", carrot, carrotResults);
  const carrotPool = await onPool("Carrot block", carrot, carrotResults.get(MAX_WATCHES));
  log("\nCarrot against legacy, same run (per output: checks/s × outputs per tx):");
  for (const [n, rate] of carrotRates) {
    const legacy = legacyRates.get(n)!;
    const perOutput = (rate * carrotOutputs) / carrot.length / ((legacy * outputs) / txs.length);
    log(`  ${fmt(n).padStart(6)} watches: Carrot ${fmt(rate)} checks/s vs legacy ${fmt(legacy)} → ${(rate / legacy).toFixed(2)}× per check, ${perOutput.toFixed(2)}× per output`);
  }
  log(`  pool, ${fmt(MAX_WATCHES)} watches: Carrot ${carrotPool.toFixed(2)} s vs legacy ${legacyPool.toFixed(2)} s`);
}

if (!args.has("skip-carrot")) {
  // The view tag H_3[s_sr](input_context ‖ K_o): a 33 + 32-byte transcript with its domain separator, a 32-byte key.
  const message = rng(1 + 15 + 33 + 32);
  const keys = Array.from({ length: 64 }, () => rng(32));
  const calls = 200_000;
  const time = (f: (key: Uint8Array) => Uint8Array): number => {
    for (let i = 0; i < 20_000; i++) f(keys[i & 63]!);
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) f(keys[i & 63]!);
    return ((performance.now() - t0) * 1000) / calls;
  };
  const noble = time((key) => blake2b(message, { dkLen: 3, key, personalization: BLAKE2B_PERSONALIZATION }));
  const own = time((key) => blake2bKeyed(3, message, key, BLAKE2B_PERSONALIZATION));
  log(`\nCarrot view tag hash (keyed BLAKE2b, 3 bytes), per call: @noble/hashes ${noble.toFixed(2)} µs, blake2b.ts ${own.toFixed(2)} µs → ${(noble / own).toFixed(1)}× faster`);
}

log(`\nload average at the end: ${load()}`);
