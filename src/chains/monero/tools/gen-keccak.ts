/**
 * Writes the generated sections of ../keccak.ts from the Keccak reference
 * (FIPS 202 §3.2, Keccak team's reference code):
 *   - the 24 round constants, from the degree-8 LFSR x^8 + x^6 + x^5 + x^4 + 1;
 *   - keccakF1600 with its 25 lanes in local variables (lo/hi 32-bit halves):
 *     θ, then ρ offsets and the π lane mapping computed below, χ and ι, unrolled.
 * Run: npx tsx src/chains/monero/tools/gen-keccak.ts [--write | --check]
 */
import { runWhenMain, type GeneratedSection } from "./generated-section.js";

const LANES = 25;
const ROUNDS = 24;

/** ρ rotation offset of lane x + 5y: offset (t+1)(t+2)/2 along the walk (x, y) → (y, 2x + 3y). */
export function rhoOffsets(): number[] {
  const r = new Array<number>(LANES).fill(0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    r[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return r;
}

/** π: lane (x, y) moves to (y, 2x + 3y). */
const piTarget = (x: number, y: number): number => y + 5 * ((2 * x + 3 * y) % 5);

/** ι round constants: bit 2^j − 1 of RC[i] is output 7i + j of the LFSR started at 1. */
export function roundConstants(): bigint[] {
  let lfsr = 1;
  const rc: bigint[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let c = 0n;
    for (let j = 0; j < 7; j++) {
      if (lfsr & 1) c |= 1n << BigInt((1 << j) - 1);
      lfsr = lfsr & 0x80 ? ((lfsr << 1) ^ 0x71) & 0xff : lfsr << 1;
    }
    rc.push(c);
  }
  return rc;
}

function roundConstantsSection(): string {
  const hex = roundConstants().map((c) => `0x${c.toString(16).padStart(16, "0")}n`);
  const lines = ["const RC = ["];
  for (let i = 0; i < hex.length; i += 6) lines.push(`  ${hex.slice(i, i + 6).join(", ")},`);
  lines.push("];");
  return lines.map((l) => `${l}\n`).join("");
}

/** `(a << n) | (b >>> 32 − n)`: one 32-bit half of a 64-bit rotation by n < 32. */
const rot = (a: string, b: string, n: number): string => `(${a} << ${n}) | (${b} >>> ${32 - n})`;

function permutationSection(): string {
  const L: string[] = [];
  const line = (s: string): void => void L.push(s);
  const rho = rhoOffsets();
  line("export function keccakF1600(s: Uint32Array): void {");
  for (let i = 0; i < LANES; i++) line(`  let l${i} = s[${2 * i}]! | 0, h${i} = s[${2 * i + 1}]! | 0;`);
  line(`  for (let round = 0; round < ${ROUNDS}; round++) {`);
  // θ: column parities C[x], then D[x] = C[x−1] ^ rot(C[x+1], 1), added to every lane of column x.
  for (let x = 0; x < 5; x++) {
    const col = [0, 1, 2, 3, 4].map((y) => x + 5 * y);
    line(`    const cl${x} = ${col.map((i) => `l${i}`).join(" ^ ")};`);
    line(`    const ch${x} = ${col.map((i) => `h${i}`).join(" ^ ")};`);
  }
  for (let x = 0; x < 5; x++) {
    const prev = (x + 4) % 5;
    const next = (x + 1) % 5;
    line(`    const dl${x} = cl${prev} ^ (${rot(`cl${next}`, `ch${next}`, 1)});`);
    line(`    const dh${x} = ch${prev} ^ (${rot(`ch${next}`, `cl${next}`, 1)});`);
  }
  for (let i = 0; i < LANES; i++) line(`    l${i} ^= dl${i % 5}; h${i} ^= dh${i % 5};`);
  // ρ and π: B[π(x, y)] = rot(A[x, y], ρ[x, y]); an offset ≥ 32 swaps the halves first.
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      const src = x + 5 * y;
      const dst = piTarget(x, y);
      const r = rho[src]!;
      if (r === 0) line(`    const bl${dst} = l${src}, bh${dst} = h${src};`);
      else if (r < 32) line(`    const bl${dst} = ${rot(`l${src}`, `h${src}`, r)}, bh${dst} = ${rot(`h${src}`, `l${src}`, r)};`);
      else line(`    const bl${dst} = ${rot(`h${src}`, `l${src}`, r - 32)}, bh${dst} = ${rot(`l${src}`, `h${src}`, r - 32)};`);
    }
  }
  // χ: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y]).
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      const i = x + 5 * y;
      const b1 = ((x + 1) % 5) + 5 * y;
      const b2 = ((x + 2) % 5) + 5 * y;
      line(`    l${i} = bl${i} ^ (~bl${b1} & bl${b2}); h${i} = bh${i} ^ (~bh${b1} & bh${b2});`);
    }
  }
  // ι
  line("    l0 ^= RC_LO[round]!; h0 ^= RC_HI[round]!;");
  line("  }");
  for (let i = 0; i < LANES; i++) line(`  s[${2 * i}] = l${i}; s[${2 * i + 1}] = h${i};`);
  line("}");
  return L.map((l) => `${l}\n`).join("");
}

export function keccakSections(): GeneratedSection[] {
  return [
    { file: "keccak.ts", name: "round constants", text: roundConstantsSection() },
    { file: "keccak.ts", name: "permutation", text: permutationSection() },
  ];
}

runWhenMain(import.meta.url, keccakSections);
