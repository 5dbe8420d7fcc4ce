/**
 * npm run bench:zcash-keys — Zcash key derivation and address-ownership throughput.
 * Prints figures; not a test. The derive-viewkey route allows 6 calls per minute
 * per IP, so one derivation must stay well under 200 ms.
 */
import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { deriveViewingKeys } from "../src/chains/zcash/derive.js";
import { validateZcashWatchKey, TRANSPARENT_SEARCH } from "../src/chains/zcash/ownership.js";
import { orchardAddressAt, orchardIvkParts } from "../src/chains/zcash/orchard-keys.js";
import { encodeP2pkh, p2pkhHashAt } from "../src/chains/zcash/transparent.js";
import { WatchKeys } from "../src/chains/zcash/watch-keys.js";
import { decodeUfvk, encodeUnifiedAddress } from "../src/chains/zcash/zip316.js";

const phrase = (i: number, words: 12 | 24 = 24): string =>
  entropyToMnemonic(sha256(new Uint8Array([i & 0xff, i >> 8, 7])).slice(0, words === 24 ? 32 : 16), wordlist);

function stats(label: string, samples: number[]): void {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const pct = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  console.log(
    `${label.padEnd(44)} n=${String(s.length).padStart(4)}  ${(1000 / mean).toFixed(1).padStart(8)} /s  mean ${mean.toFixed(2)} ms  p50 ${pct(50).toFixed(2)}  p95 ${pct(95).toFixed(2)}  max ${s[s.length - 1].toFixed(2)} ms`,
  );
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

// 1. The very first derivation in a fresh process (builds curve tables and some Sinsemilla S entries).
const first = time(() => deriveViewingKeys({ mnemonic: phrase(0) }));
console.log(`${"first derivation in a cold process".padEnd(44)} ${first.toFixed(1)} ms`);

// 2. Mnemonic → UFVK (and everything else the route returns) for fresh phrases and accounts.
const N = Number(process.env.BENCH_N ?? 60);
const fresh: number[] = [];
for (let i = 1; i <= N; i++) fresh.push(time(() => deriveViewingKeys({ mnemonic: phrase(i, i % 2 ? 12 : 24), account: i % 5, network: i % 3 === 0 ? "testnet" : "mainnet" })));
stats("derive: new phrase each time", fresh);
const repeat: number[] = [];
for (let i = 0; i < N; i++) repeat.push(time(() => deriveViewingKeys({ mnemonic: phrase(1), account: 0 })));
stats("derive: same phrase again (warm caches)", repeat);

// 3. Address-ownership checks (validateZcashWatchKey) against one UFVK.
const r = deriveViewingKeys({ mnemonic: phrase(3), account: 0 });
const ufvk = decodeUfvk(r.ufvk);
const orc = orchardIvkParts(ufvk.orchard!.fvk)!;
const M = Number(process.env.BENCH_M ?? 200);
const ua: number[] = [];
for (let i = 0; i < M; i++) {
  const addr = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc, BigInt(i) * 7919n) });
  ua.push(time(() => validateZcashWatchKey(addr, r.ufvk)));
}
stats("ownership: Orchard UA at a random index", ua);
const def: number[] = [];
for (let i = 0; i < M / 4; i++) def.push(time(() => validateZcashWatchKey(r.defaultAddress, r.ufvk)));
stats("ownership: default UA (Orchard+Sapling+P2PKH)", def);
const sap: number[] = [];
for (let i = 0; i < M / 4; i++) sap.push(time(() => validateZcashWatchKey(r.defaultSaplingAddress, r.ufvk)));
stats("ownership: Sapling zs address", sap);
const tNear = encodeP2pkh(p2pkhHashAt(ufvk.transparent!, 0, 5)!, "mainnet");
const tn: number[] = [];
for (let i = 0; i < M / 4; i++) tn.push(time(() => validateZcashWatchKey(tNear, r.ufvk)));
stats("ownership: t-address at external index 5", tn);
const tFar = encodeP2pkh(p2pkhHashAt(ufvk.transparent!, 1, TRANSPARENT_SEARCH.internal - 1)!, "mainnet");
const tf: number[] = [];
for (let i = 0; i < 10; i++) tf.push(time(() => validateZcashWatchKey(tFar, r.ufvk)));
stats(`ownership: t-address worst case (${TRANSPARENT_SEARCH.external}+${TRANSPARENT_SEARCH.internal} children)`, tf);

// 4. What creating a watch costs in key work, old and new, per receiver kind. Before: the
// ownership check alone at creation, then (after every restart) the first block with outputs
// decoded the UFVK, built the scan keys and derived the 20-hash transparent window again. Now:
// the check runs through the watch's own keys, searching the transparent window the scanner needs
// anyway, and the keys it builds are the material stored with the watch (built once).
const WINDOW = 20;
const cases: [string, string][] = [
  ["default UA (Orchard+Sapling+P2PKH)", r.defaultAddress],
  ["Orchard UA at a random index", encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc, 7919n * 13n) })],
  ["t-address at external index 5", tNear],
  [`t-address worst case (internal ${TRANSPARENT_SEARCH.internal - 1})`, tFar],
];
console.log(`\nkey work per watch created (material = scan keys + ${WINDOW} transparent hashes, built once and stored sealed):`);
for (const [label, addr] of cases) {
  const n = label.includes("worst") ? 5 : 20;
  const oldCheck: number[] = [];
  const oldFirstBlock: number[] = [];
  const now: number[] = [];
  for (let i = 0; i < n; i++) {
    oldCheck.push(time(() => validateZcashWatchKey(addr, r.ufvk)));
    oldFirstBlock.push(
      time(() => {
        const k = new WatchKeys(addr, r.ufvk);
        k.build({ shielded: true, p2pkh: true }, WINDOW);
      }),
    );
    now.push(
      time(() => {
        const k = new WatchKeys(addr, r.ufvk);
        validateZcashWatchKey(addr, r.ufvk, { keys: k, window: WINDOW });
        k.build({ shielded: true, p2pkh: true }, WINDOW);
        k.exportMaterial();
      }),
    );
  }
  stats(`  ${label}: before, ownership check`, oldCheck);
  stats(`  ${label}: before, + keys rebuilt per restart`, oldFirstBlock);
  stats(`  ${label}: now, check + material, once`, now);
}
