/**
 * GF(2^255 − 19) arithmetic on 12 limbs of 22 bits held in Float64Arrays.
 * A product column is a sum of at most 12 limb products below 2^48, so it
 * stays below 2^53 and plain JS number arithmetic is exact; 144 limb products
 * per multiplication (vs 256 with 16-bit limbs) and no bigint allocation.
 * Reduction: carry the high columns, fold them with 2^264 ≡ 2^9·19 = 9728,
 * then one carry pass and a short second one. feAdd/feSub/feMul/feSqr are
 * unrolled, written by tools/gen-field25519.ts from exactly that schoolbook
 * scheme (the BEGIN/END GENERATED sections; a test checks they match the
 * generator).
 *
 * Limb bounds: feMul/feSqr outputs have limbs in [0, 2^22) (limb 1 may exceed
 * that by < 2^13); inputs may be sums or differences of a few such values (|limb| <
 * 2^24), which keeps every column below 2^53.
 */
import { ed25519 } from "@noble/curves/ed25519.js";

export type Fe = Float64Array;

export const LIMBS = 12;
const R22 = 4194304; // 2^22
const INV22 = 1 / R22; // exact power of two

/**
 * Field elements are views into shared slabs: a 96-byte typed array of its
 * own would get an off-heap backing store each (slow to allocate), and the
 * scanner makes many short-lived ones.
 */
const SLAB_ELEMENTS = 4096;
let slab = new Float64Array(LIMBS * SLAB_ELEMENTS);
let slabNext = 0;
export const fe = (): Fe => {
  if (slabNext === SLAB_ELEMENTS) {
    slab = new Float64Array(LIMBS * SLAB_ELEMENTS);
    slabNext = 0;
  }
  const start = LIMBS * slabNext++;
  return slab.subarray(start, start + LIMBS);
};

/** A fresh copy of a. */
export const feClone = (a: Fe): Fe => {
  const o = fe();
  o.set(a);
  return o;
};

const P = (1n << 255n) - 19n;

export function feFromBigint(o: Fe, v: bigint): Fe {
  let x = ((v % P) + P) % P;
  for (let i = 0; i < LIMBS; i++) {
    o[i] = Number(x & 0x3fffffn);
    x >>= 22n;
  }
  return o;
}

export function feToBigint(a: Fe): bigint {
  let v = 0n;
  for (let i = LIMBS - 1; i >= 0; i--) v = (v << 22n) + BigInt(a[i]!);
  return ((v % P) + P) % P;
}

// BEGIN GENERATED add and subtract (tools/gen-field25519.ts): edit the generator, not this section
export function feAdd(o: Fe, a: Fe, b: Fe): void {
  o[0] = a[0]! + b[0]!; o[1] = a[1]! + b[1]!; o[2] = a[2]! + b[2]!; o[3] = a[3]! + b[3]!;
  o[4] = a[4]! + b[4]!; o[5] = a[5]! + b[5]!; o[6] = a[6]! + b[6]!; o[7] = a[7]! + b[7]!;
  o[8] = a[8]! + b[8]!; o[9] = a[9]! + b[9]!; o[10] = a[10]! + b[10]!; o[11] = a[11]! + b[11]!;
}

export function feSub(o: Fe, a: Fe, b: Fe): void {
  o[0] = a[0]! - b[0]!; o[1] = a[1]! - b[1]!; o[2] = a[2]! - b[2]!; o[3] = a[3]! - b[3]!;
  o[4] = a[4]! - b[4]!; o[5] = a[5]! - b[5]!; o[6] = a[6]! - b[6]!; o[7] = a[7]! - b[7]!;
  o[8] = a[8]! - b[8]!; o[9] = a[9]! - b[9]!; o[10] = a[10]! - b[10]!; o[11] = a[11]! - b[11]!;
}
// END GENERATED add and subtract

const packT = new Float64Array(LIMBS);
const packU = new Float64Array(LIMBS);

/** Carries t so that every limb is in [0, 2^22), folding the top carry (weight 2^264 ≡ 9728). */
function carryFull(t: Float64Array): void {
  for (let pass = 0; pass < 3; pass++) {
    let c = 0;
    for (let i = 0; i < LIMBS; i++) {
      const v = t[i]! + c;
      c = Math.floor(v * INV22);
      t[i] = v - c * R22;
    }
    t[0] = t[0]! + 9728 * c;
  }
}

/** Canonical little-endian encoding (fully reduced mod p), written to out[off..off+32). */
export function fePack(out: Uint8Array, off: number, a: Fe): void {
  const t = packT;
  t.set(a);
  carryFull(t);
  // Fold bits ≥ 255 (limb 11 holds bits 242..263): 2^255 ≡ 19.
  for (let k = 0; k < 2; k++) {
    const h = Math.floor(t[11]! / 8192);
    t[11] = t[11]! - h * 8192;
    t[0] = t[0]! + 19 * h;
    let c = 0;
    for (let i = 0; i < LIMBS; i++) {
      const v = t[i]! + c;
      c = Math.floor(v * INV22);
      t[i] = v - c * R22;
    }
    t[11] = t[11]! + c * R22; // c is 0 here (value < 2^264); kept for exactness
  }
  // Now 0 ≤ value < 2^255. Subtract p when value ≥ p, i.e. when value + 19 ≥ 2^255.
  const u = packU;
  u.set(t);
  u[0] = u[0]! + 19;
  let c = 0;
  for (let i = 0; i < LIMBS; i++) {
    const v = u[i]! + c;
    c = Math.floor(v * INV22);
    u[i] = v - c * R22;
  }
  if (u[11]! >= 8192) {
    u[11] = u[11]! - 8192;
    t.set(u);
  }
  // Bit-pack 12 × 22 bits into 32 bytes.
  let acc = 0;
  let bits = 0;
  let o = off;
  for (let i = 0; i < LIMBS; i++) {
    acc += t[i]! * 2 ** bits;
    bits += 22;
    while (bits >= 8 && o < off + 32) {
      const byte = acc % 256;
      out[o++] = byte;
      acc = (acc - byte) / 256;
      bits -= 8;
    }
  }
  while (o < off + 32) {
    const byte = acc % 256;
    out[o++] = byte;
    acc = (acc - byte) / 256;
  }
}

/** Inversion (used once per batch): noble's field inverse on the bigint value. */
export function feInvert(o: Fe, a: Fe): void {
  feFromBigint(o, ed25519.Point.Fp.inv(feToBigint(a)));
}

// BEGIN GENERATED multiply and square (tools/gen-field25519.ts): edit the generator, not this section
export function feMul(o: Fe, a: Fe, b: Fe): void {
  const a0 = a[0]!; const a1 = a[1]!; const a2 = a[2]!; const a3 = a[3]!; const a4 = a[4]!; const a5 = a[5]!; const a6 = a[6]!; const a7 = a[7]!; const a8 = a[8]!; const a9 = a[9]!; const a10 = a[10]!; const a11 = a[11]!;
  const b0 = b[0]!; const b1 = b[1]!; const b2 = b[2]!; const b3 = b[3]!; const b4 = b[4]!; const b5 = b[5]!; const b6 = b[6]!; const b7 = b[7]!; const b8 = b[8]!; const b9 = b[9]!; const b10 = b[10]!; const b11 = b[11]!;
  let t0 = a0 * b0;
  let t1 = a0 * b1 + a1 * b0;
  let t2 = a0 * b2 + a1 * b1 + a2 * b0;
  let t3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  let t4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0;
  let t5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0;
  let t6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0;
  let t7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0;
  let t8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0;
  let t9 = a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0;
  let t10 = a0 * b10 + a1 * b9 + a2 * b8 + a3 * b7 + a4 * b6 + a5 * b5 + a6 * b4 + a7 * b3 + a8 * b2 + a9 * b1 + a10 * b0;
  let t11 = a0 * b11 + a1 * b10 + a2 * b9 + a3 * b8 + a4 * b7 + a5 * b6 + a6 * b5 + a7 * b4 + a8 * b3 + a9 * b2 + a10 * b1 + a11 * b0;
  let t12 = a1 * b11 + a2 * b10 + a3 * b9 + a4 * b8 + a5 * b7 + a6 * b6 + a7 * b5 + a8 * b4 + a9 * b3 + a10 * b2 + a11 * b1;
  let t13 = a2 * b11 + a3 * b10 + a4 * b9 + a5 * b8 + a6 * b7 + a7 * b6 + a8 * b5 + a9 * b4 + a10 * b3 + a11 * b2;
  let t14 = a3 * b11 + a4 * b10 + a5 * b9 + a6 * b8 + a7 * b7 + a8 * b6 + a9 * b5 + a10 * b4 + a11 * b3;
  let t15 = a4 * b11 + a5 * b10 + a6 * b9 + a7 * b8 + a8 * b7 + a9 * b6 + a10 * b5 + a11 * b4;
  let t16 = a5 * b11 + a6 * b10 + a7 * b9 + a8 * b8 + a9 * b7 + a10 * b6 + a11 * b5;
  let t17 = a6 * b11 + a7 * b10 + a8 * b9 + a9 * b8 + a10 * b7 + a11 * b6;
  let t18 = a7 * b11 + a8 * b10 + a9 * b9 + a10 * b8 + a11 * b7;
  let t19 = a8 * b11 + a9 * b10 + a10 * b9 + a11 * b8;
  let t20 = a9 * b11 + a10 * b10 + a11 * b9;
  let t21 = a10 * b11 + a11 * b10;
  let t22 = a11 * b11;
  let c = 0;
  t11 += c; c = Math.floor(t11 * INV22); t11 -= c * R22;
  t12 += c; c = Math.floor(t12 * INV22); t12 -= c * R22;
  t13 += c; c = Math.floor(t13 * INV22); t13 -= c * R22;
  t14 += c; c = Math.floor(t14 * INV22); t14 -= c * R22;
  t15 += c; c = Math.floor(t15 * INV22); t15 -= c * R22;
  t16 += c; c = Math.floor(t16 * INV22); t16 -= c * R22;
  t17 += c; c = Math.floor(t17 * INV22); t17 -= c * R22;
  t18 += c; c = Math.floor(t18 * INV22); t18 -= c * R22;
  t19 += c; c = Math.floor(t19 * INV22); t19 -= c * R22;
  t20 += c; c = Math.floor(t20 * INV22); t20 -= c * R22;
  t21 += c; c = Math.floor(t21 * INV22); t21 -= c * R22;
  t22 += c; c = Math.floor(t22 * INV22); t22 -= c * R22;
  const t23 = c;
  t0 += 9728 * t12;
  t1 += 9728 * t13;
  t2 += 9728 * t14;
  t3 += 9728 * t15;
  t4 += 9728 * t16;
  t5 += 9728 * t17;
  t6 += 9728 * t18;
  t7 += 9728 * t19;
  t8 += 9728 * t20;
  t9 += 9728 * t21;
  t10 += 9728 * t22;
  t11 += 9728 * t23;
  c = 0;
  t0 += c; c = Math.floor(t0 * INV22); t0 -= c * R22;
  t1 += c; c = Math.floor(t1 * INV22); t1 -= c * R22;
  t2 += c; c = Math.floor(t2 * INV22); t2 -= c * R22;
  t3 += c; c = Math.floor(t3 * INV22); t3 -= c * R22;
  t4 += c; c = Math.floor(t4 * INV22); t4 -= c * R22;
  t5 += c; c = Math.floor(t5 * INV22); t5 -= c * R22;
  t6 += c; c = Math.floor(t6 * INV22); t6 -= c * R22;
  t7 += c; c = Math.floor(t7 * INV22); t7 -= c * R22;
  t8 += c; c = Math.floor(t8 * INV22); t8 -= c * R22;
  t9 += c; c = Math.floor(t9 * INV22); t9 -= c * R22;
  t10 += c; c = Math.floor(t10 * INV22); t10 -= c * R22;
  t11 += c; c = Math.floor(t11 * INV22); t11 -= c * R22;
  t0 += 9728 * c; c = 0;
  // Second pass only where the folded carry landed (t0 < 2^35 here): limbs end in [0, 2^22), t1 within 2^13 of it.
  c = Math.floor(t0 * INV22); t0 -= c * R22; t1 += c;
  o[0] = t0;
  o[1] = t1;
  o[2] = t2;
  o[3] = t3;
  o[4] = t4;
  o[5] = t5;
  o[6] = t6;
  o[7] = t7;
  o[8] = t8;
  o[9] = t9;
  o[10] = t10;
  o[11] = t11;
}

export function feSqr(o: Fe, a: Fe): void {
  const a0 = a[0]!; const a1 = a[1]!; const a2 = a[2]!; const a3 = a[3]!; const a4 = a[4]!; const a5 = a[5]!; const a6 = a[6]!; const a7 = a[7]!; const a8 = a[8]!; const a9 = a[9]!; const a10 = a[10]!; const a11 = a[11]!;
  let t0 = a0 * a0;
  let t1 = 2 * a0 * a1;
  let t2 = 2 * a0 * a2 + a1 * a1;
  let t3 = 2 * a0 * a3 + 2 * a1 * a2;
  let t4 = 2 * a0 * a4 + 2 * a1 * a3 + a2 * a2;
  let t5 = 2 * a0 * a5 + 2 * a1 * a4 + 2 * a2 * a3;
  let t6 = 2 * a0 * a6 + 2 * a1 * a5 + 2 * a2 * a4 + a3 * a3;
  let t7 = 2 * a0 * a7 + 2 * a1 * a6 + 2 * a2 * a5 + 2 * a3 * a4;
  let t8 = 2 * a0 * a8 + 2 * a1 * a7 + 2 * a2 * a6 + 2 * a3 * a5 + a4 * a4;
  let t9 = 2 * a0 * a9 + 2 * a1 * a8 + 2 * a2 * a7 + 2 * a3 * a6 + 2 * a4 * a5;
  let t10 = 2 * a0 * a10 + 2 * a1 * a9 + 2 * a2 * a8 + 2 * a3 * a7 + 2 * a4 * a6 + a5 * a5;
  let t11 = 2 * a0 * a11 + 2 * a1 * a10 + 2 * a2 * a9 + 2 * a3 * a8 + 2 * a4 * a7 + 2 * a5 * a6;
  let t12 = 2 * a1 * a11 + 2 * a2 * a10 + 2 * a3 * a9 + 2 * a4 * a8 + 2 * a5 * a7 + a6 * a6;
  let t13 = 2 * a2 * a11 + 2 * a3 * a10 + 2 * a4 * a9 + 2 * a5 * a8 + 2 * a6 * a7;
  let t14 = 2 * a3 * a11 + 2 * a4 * a10 + 2 * a5 * a9 + 2 * a6 * a8 + a7 * a7;
  let t15 = 2 * a4 * a11 + 2 * a5 * a10 + 2 * a6 * a9 + 2 * a7 * a8;
  let t16 = 2 * a5 * a11 + 2 * a6 * a10 + 2 * a7 * a9 + a8 * a8;
  let t17 = 2 * a6 * a11 + 2 * a7 * a10 + 2 * a8 * a9;
  let t18 = 2 * a7 * a11 + 2 * a8 * a10 + a9 * a9;
  let t19 = 2 * a8 * a11 + 2 * a9 * a10;
  let t20 = 2 * a9 * a11 + a10 * a10;
  let t21 = 2 * a10 * a11;
  let t22 = a11 * a11;
  let c = 0;
  t11 += c; c = Math.floor(t11 * INV22); t11 -= c * R22;
  t12 += c; c = Math.floor(t12 * INV22); t12 -= c * R22;
  t13 += c; c = Math.floor(t13 * INV22); t13 -= c * R22;
  t14 += c; c = Math.floor(t14 * INV22); t14 -= c * R22;
  t15 += c; c = Math.floor(t15 * INV22); t15 -= c * R22;
  t16 += c; c = Math.floor(t16 * INV22); t16 -= c * R22;
  t17 += c; c = Math.floor(t17 * INV22); t17 -= c * R22;
  t18 += c; c = Math.floor(t18 * INV22); t18 -= c * R22;
  t19 += c; c = Math.floor(t19 * INV22); t19 -= c * R22;
  t20 += c; c = Math.floor(t20 * INV22); t20 -= c * R22;
  t21 += c; c = Math.floor(t21 * INV22); t21 -= c * R22;
  t22 += c; c = Math.floor(t22 * INV22); t22 -= c * R22;
  const t23 = c;
  t0 += 9728 * t12;
  t1 += 9728 * t13;
  t2 += 9728 * t14;
  t3 += 9728 * t15;
  t4 += 9728 * t16;
  t5 += 9728 * t17;
  t6 += 9728 * t18;
  t7 += 9728 * t19;
  t8 += 9728 * t20;
  t9 += 9728 * t21;
  t10 += 9728 * t22;
  t11 += 9728 * t23;
  c = 0;
  t0 += c; c = Math.floor(t0 * INV22); t0 -= c * R22;
  t1 += c; c = Math.floor(t1 * INV22); t1 -= c * R22;
  t2 += c; c = Math.floor(t2 * INV22); t2 -= c * R22;
  t3 += c; c = Math.floor(t3 * INV22); t3 -= c * R22;
  t4 += c; c = Math.floor(t4 * INV22); t4 -= c * R22;
  t5 += c; c = Math.floor(t5 * INV22); t5 -= c * R22;
  t6 += c; c = Math.floor(t6 * INV22); t6 -= c * R22;
  t7 += c; c = Math.floor(t7 * INV22); t7 -= c * R22;
  t8 += c; c = Math.floor(t8 * INV22); t8 -= c * R22;
  t9 += c; c = Math.floor(t9 * INV22); t9 -= c * R22;
  t10 += c; c = Math.floor(t10 * INV22); t10 -= c * R22;
  t11 += c; c = Math.floor(t11 * INV22); t11 -= c * R22;
  t0 += 9728 * c; c = 0;
  // Second pass only where the folded carry landed (t0 < 2^35 here): limbs end in [0, 2^22), t1 within 2^13 of it.
  c = Math.floor(t0 * INV22); t0 -= c * R22; t1 += c;
  o[0] = t0;
  o[1] = t1;
  o[2] = t2;
  o[3] = t3;
  o[4] = t4;
  o[5] = t5;
  o[6] = t6;
  o[7] = t7;
  o[8] = t8;
  o[9] = t9;
  o[10] = t10;
  o[11] = t11;
}
// END GENERATED multiply and square
