/**
 * npx tsx bench/hex.ts — the scanner's per-output byte work, hand-written
 * helpers side by side with @noble's, in one run on one core:
 *
 *   bytesToHex(32 bytes)       the spend-key lookup after a view-tag hit (scan.ts),
 *                              right after a P − s·G point multiplication
 *   hex → bytes, 32-byte key   keys and ids from JSON-RPC answers
 *   hex → bytes, 2 KiB blob    every transaction blob the daemon returns (scanner.ts)
 *   concatBytes(32 + 1 bytes)  D ‖ varint(i) for every Hs(D ‖ i)
 *   equalBytes(32 bytes)       commitment and checksum checks
 *
 * The hand-written contenders are the helpers src/chains/monero/encoding.ts
 * carried before it took noble's; encoding.ts keeps whichever these figures
 * favour. Hex → bytes is measured as encoding.ts's hexToBytesStrict does it
 * (null instead of an exception on bad input).
 * Each figure is the best of five rounds (ns per call; lower is better).
 */
import { cpus } from "node:os";
import { bytesToHex as nobleBytesToHex, concatBytes as nobleConcatBytes, hexToBytes as nobleHexToBytes } from "@noble/hashes/utils.js";
import { equalBytes as nobleEqualBytes } from "@noble/curves/utils.js";

// ---- the hand-written helpers (as they were in src/chains/monero/encoding.ts) ----
const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;
function handHexToBytesStrict(hex: string): Uint8Array | null {
  if (typeof hex !== "string" || !HEX_RE.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
const HEX_TABLE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
function handBytesToHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX_TABLE[bytes[i]!];
  return s;
}
function handConcatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
function handEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** noble's decoder behind encoding.ts's null-on-bad-input contract. */
function nobleHexToBytesStrict(hex: string): Uint8Array | null {
  try {
    return nobleHexToBytes(hex);
  } catch {
    return null;
  }
}

// ---- inputs: many distinct values so no call is answered from a cache ----
const N = 4096;
const seed = (i: number, len: number): Uint8Array => Uint8Array.from({ length: len }, (_, j) => (i * 131 + j * 31 + (i >> 3)) & 0xff);
const keys = Array.from({ length: N }, (_, i) => seed(i, 32));
const keys2 = keys.map((k) => Uint8Array.from(k));
const keyHex = keys.map(handBytesToHex);
const blobHex = Array.from({ length: 64 }, (_, i) => handBytesToHex(seed(i, 2048)));
const varint = Uint8Array.of(5);

/** Best-of-5 nanoseconds per call of fn(i) over `calls` calls. */
function nsPerCall(calls: number, fn: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < Math.min(calls, 20_000); i++) if (fn(i)) sink++; // warm-up: let the JIT settle
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) if (fn(i)) sink++;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / calls);
  }
  if (sink < 0) throw new Error("unreachable"); // keeps results alive
  return best;
}

const rows: [string, number, number][] = [
  ["bytesToHex(32 B)", nsPerCall(1_000_000, (i) => handBytesToHex(keys[i % N]!)), nsPerCall(1_000_000, (i) => nobleBytesToHex(keys[i % N]!))],
  [
    "hex → bytes (32 B)",
    nsPerCall(500_000, (i) => handHexToBytesStrict(keyHex[i % N]!)),
    nsPerCall(500_000, (i) => nobleHexToBytesStrict(keyHex[i % N]!)),
  ],
  [
    "hex → bytes (2 KiB)",
    nsPerCall(5_000, (i) => handHexToBytesStrict(blobHex[i % 64]!)),
    nsPerCall(5_000, (i) => nobleHexToBytesStrict(blobHex[i % 64]!)),
  ],
  ["concatBytes(32 B, 1 B)", nsPerCall(1_000_000, (i) => handConcatBytes(keys[i % N]!, varint)), nsPerCall(1_000_000, (i) => nobleConcatBytes(keys[i % N]!, varint))],
  ["equalBytes(32 B)", nsPerCall(1_000_000, (i) => handEqualBytes(keys[i % N]!, keys2[i % N]!)), nsPerCall(1_000_000, (i) => nobleEqualBytes(keys[i % N]!, keys2[i % N]!))],
];

const log = (s: string) => process.stdout.write(`${s}\n`);
log(`hex/bytes helpers — Node ${process.version}, ${cpus()[0]?.model ?? "cpu"}; ns per call, best of 5 (lower is better)`);
log(`${"operation".padEnd(24)}${"hand-written".padStart(14)}${"noble".padStart(12)}${"noble/hand".padStart(13)}`);
for (const [name, hand, noble] of rows) {
  log(`${name.padEnd(24)}${hand.toFixed(1).padStart(14)}${noble.toFixed(1).padStart(12)}${(noble / hand).toFixed(2).padStart(12)}×`);
}
