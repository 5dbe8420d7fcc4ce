/**
 * Writes the generated sections of ../carrot/blake2b.ts from RFC 7693:
 *   - the IV (§2.6, the SHA-512 IV: the first 64 bits of the fractional parts
 *     of the square roots of the first eight primes, computed below);
 *   - the compression function F (§3.2) with its 16 working words and 16
 *     message words in local variables (lo/hi 32-bit halves), the 12 rounds
 *     unrolled with the message schedule SIGMA (§2.7) resolved per round, and
 *     the mixing function G (§3.1, rotations 32, 24, 16, 63) written inline.
 * Run: npx tsx src/chains/monero/tools/gen-blake2b.ts [--write | --check]
 */
import { runWhenMain, type GeneratedSection } from "./generated-section.js";

const ROUNDS = 12;

/** RFC 7693 §2.7: the message word order of rounds 0..9 (rounds 10 and 11 repeat rows 0 and 1). */
export const SIGMA: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** IV[i] = ⌊frac(√p_i) · 2^64⌋ for the first eight primes. */
export function blake2bIV(): bigint[] {
  return [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n].map((p) => isqrt(p << 128n) & ((1n << 64n) - 1n));
}

const hex32 = (x: bigint | number): string => `0x${x.toString(16).padStart(8, "0")}`;
const lo = (x: bigint): bigint => x & 0xffffffffn;
const hi = (x: bigint): bigint => x >> 32n;

function ivSection(): string {
  const halves = blake2bIV().flatMap((x) => [hex32(lo(x)), hex32(hi(x))]);
  return [
    "/** RFC 7693 §2.6 IV (the SHA-512 IV), as [lo, hi] halves of each 64-bit word. */",
    "const IV = Uint32Array.of(",
    `  ${halves.slice(0, 8).join(", ")},`,
    `  ${halves.slice(8).join(", ")},`,
    ");",
  ]
    .map((l) => `${l}\n`)
    .join("");
}

/** The four word indices of each G call in a round: columns, then diagonals (RFC 7693 §3.2). */
const G_WORDS = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
];

/** `al, ah ← (a + b [+ m]) mod 2^64`; the low sum is exact in a double (< 3·2^32), its carry is ⌊sum / 2^32⌋. */
function add64(a: number, b: string, m: string | null): string {
  const mLo = m ? ` + (${m}l >>> 0)` : "";
  const mHi = m ? ` + ${m}h` : "";
  return `t = (v${a}l >>> 0) + (${b}l >>> 0)${mLo}; v${a}h = (v${a}h + ${b}h${mHi} + ((t / 4294967296) | 0)) | 0; v${a}l = t | 0;`;
}

function mixLines(a: number, b: number, c: number, d: number, x: number, y: number): string[] {
  return [
    add64(a, `v${b}`, `m${x}`),
    `t = v${d}l ^ v${a}l; v${d}l = v${d}h ^ v${a}h; v${d}h = t;`, // (d ⊕ a) ⋙ 32: swap the halves
    add64(c, `v${d}`, null),
    `xl = v${b}l ^ v${c}l; xh = v${b}h ^ v${c}h; v${b}l = (xl >>> 24) | (xh << 8); v${b}h = (xh >>> 24) | (xl << 8);`,
    add64(a, `v${b}`, `m${y}`),
    `xl = v${d}l ^ v${a}l; xh = v${d}h ^ v${a}h; v${d}l = (xl >>> 16) | (xh << 16); v${d}h = (xh >>> 16) | (xl << 16);`,
    add64(c, `v${d}`, null),
    `xl = v${b}l ^ v${c}l; xh = v${b}h ^ v${c}h; v${b}l = (xl << 1) | (xh >>> 31); v${b}h = (xh << 1) | (xl >>> 31);`, // ⋙ 63 = ⋘ 1
  ];
}

function compressionSection(): string {
  const L: string[] = [];
  const line = (s: string): void => void L.push(s);
  const iv = blake2bIV();
  line("/**");
  line(" * F (RFC 7693 §3.2): compresses the message block `m` (32 lo/hi words) into");
  line(" * the state `h` (16 lo/hi words); `count` is the byte count including this block");
  line(" * (below 2^53), `last` marks the final block.");
  line(" */");
  line("function compress(h: Uint32Array, m: Uint32Array, count: number, last: boolean): void {");
  for (let i = 0; i < 8; i++) line(`  let v${i}l = h[${2 * i}]! | 0, v${i}h = h[${2 * i + 1}]! | 0;`);
  for (let i = 0; i < 8; i++) {
    const l = `${hex32(lo(iv[i]!))} | 0`;
    const h = `${hex32(hi(iv[i]!))} | 0`;
    if (i === 4) line(`  let v12l = (${l}) ^ (count % 4294967296), v12h = (${h}) ^ ((count / 4294967296) | 0);`);
    else if (i === 6) line(`  let v14l = last ? ~(${l}) : ${l}, v14h = last ? ~(${h}) : ${h};`);
    else line(`  let v${8 + i}l = ${l}, v${8 + i}h = ${h};`);
  }
  for (let i = 0; i < 16; i++) line(`  const m${i}l = m[${2 * i}]! | 0, m${i}h = m[${2 * i + 1}]! | 0;`);
  line("  let t = 0, xl = 0, xh = 0;");
  for (let r = 0; r < ROUNDS; r++) {
    const s = SIGMA[r % 10]!;
    G_WORDS.forEach(([a, b, c, d], g) => {
      line(`  // round ${r}, G(v${a}, v${b}, v${c}, v${d}; m${s[2 * g]}, m${s[2 * g + 1]})`);
      for (const l of mixLines(a!, b!, c!, d!, s[2 * g]!, s[2 * g + 1]!)) line(`  ${l}`);
    });
  }
  for (let i = 0; i < 8; i++) {
    line(`  h[${2 * i}] = h[${2 * i}]! ^ v${i}l ^ v${i + 8}l; h[${2 * i + 1}] = h[${2 * i + 1}]! ^ v${i}h ^ v${i + 8}h;`);
  }
  line("}");
  return L.map((l) => `${l}\n`).join("");
}

export function blake2bSections(): GeneratedSection[] {
  return [
    { file: "carrot/blake2b.ts", name: "IV", text: ivSection() },
    { file: "carrot/blake2b.ts", name: "compression", text: compressionSection() },
  ];
}

runWhenMain(import.meta.url, blake2bSections);
