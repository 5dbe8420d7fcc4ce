/**
 * Writes the generated sections of ../field25519.ts: limb-wise feAdd/feSub,
 * and feMul/feSqr on 12 limbs of 22 bits, unrolled from the schoolbook scheme
 * that file's header describes:
 *   1. columns t_k = Σ_{i+j=k} a_i·b_j, k = 0..22 (squaring doubles the
 *      cross terms a_i·a_j, i < j, and keeps each a_i² once);
 *   2. carry the high columns t_11..t_22 into 22-bit limbs, the last carry
 *      becoming t_23;
 *   3. fold t_{12+k} into t_k with 2^264 ≡ 2^9·19 (mod 2^255 − 19);
 *   4. one carry pass over t_0..t_11, its top carry folded into t_0 again, and
 *      a one-limb second pass from t_0 into t_1.
 * Run: npx tsx src/chains/monero/tools/gen-field25519.ts [--write | --check]
 */
import { runWhenMain, type GeneratedSection } from "./generated-section.js";

const LIMBS = 12;
const LIMB_BITS = 22;
/** 2^(LIMBS·LIMB_BITS) mod p, as a small multiplier: 2^264 = 2^255 · 2^9 ≡ 19 · 2^9. */
export const FOLD = 19 * 2 ** (LIMBS * LIMB_BITS - 255);

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const carry = (k: number): string => `  t${k} += c; c = Math.floor(t${k} * INV22); t${k} -= c * R22;`;
const loadLimbs = (v: string): string => `  ${range(0, LIMBS).map((i) => `const ${v}${i} = ${v}[${i}]!;`).join(" ")}`;

/** Column k of a·b (or a² when square): the products with i + j = k, i ascending. */
function column(k: number, square: boolean): string {
  const terms: string[] = [];
  for (let i = Math.max(0, k - LIMBS + 1); i <= Math.min(k, LIMBS - 1); i++) {
    const j = k - i;
    if (!square) terms.push(`a${i} * b${j}`);
    else if (i < j) terms.push(`2 * a${i} * a${j}`);
    else if (i === j) terms.push(`a${i} * a${i}`);
  }
  return terms.join(" + ");
}

/** Steps 2–4 and the store, shared by feMul and feSqr. */
function reduceAndStore(): string[] {
  const top = 2 * LIMBS - 1; // t_23, the carry out of t_22
  return [
    "  let c = 0;",
    ...range(LIMBS - 1, top).map(carry),
    `  const t${top} = c;`,
    ...range(0, LIMBS).map((k) => `  t${k} += ${FOLD} * t${k + LIMBS};`),
    "  c = 0;",
    ...range(0, LIMBS).map(carry),
    `  t0 += ${FOLD} * c; c = 0;`,
    "  // Second pass only where the folded carry landed (t0 < 2^35 here): limbs end in [0, 2^22), t1 within 2^13 of it.",
    "  c = Math.floor(t0 * INV22); t0 -= c * R22; t1 += c;",
    ...range(0, LIMBS).map((k) => `  o[${k}] = t${k};`),
  ];
}

/** feAdd/feSub: limb by limb, no carry (callers keep |limb| < 2^24; feMul/feSqr absorb it). */
function addSubtractSection(): string {
  const limbwise = (name: string, op: string): string[] => [
    `export function ${name}(o: Fe, a: Fe, b: Fe): void {`,
    ...range(0, LIMBS / 4).map((row) => `  ${range(4 * row, 4 * row + 4).map((i) => `o[${i}] = a[${i}]! ${op} b[${i}]!;`).join(" ")}`),
    "}",
  ];
  return [...limbwise("feAdd", "+"), "", ...limbwise("feSub", "-")].map((l) => `${l}\n`).join("");
}

function multiplySquareSection(): string {
  const columns = (square: boolean): string[] => range(0, 2 * LIMBS - 1).map((k) => `  let t${k} = ${column(k, square)};`);
  const lines = [
    "export function feMul(o: Fe, a: Fe, b: Fe): void {",
    loadLimbs("a"),
    loadLimbs("b"),
    ...columns(false),
    ...reduceAndStore(),
    "}",
    "",
    "export function feSqr(o: Fe, a: Fe): void {",
    loadLimbs("a"),
    ...columns(true),
    ...reduceAndStore(),
    "}",
  ];
  return lines.map((l) => `${l}\n`).join("");
}

export function field25519Sections(): GeneratedSection[] {
  return [
    { file: "field25519.ts", name: "add and subtract", text: addSubtractSection() },
    { file: "field25519.ts", name: "multiply and square", text: multiplySquareSection() },
  ];
}

runWhenMain(import.meta.url, field25519Sections);
