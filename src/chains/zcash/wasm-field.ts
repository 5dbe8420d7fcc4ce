/**
 * Field arithmetic modulo a 255-bit prime in WebAssembly, for the batched
 * affine additions of curve-batch.ts. The module is generated here, byte by
 * byte, for one prime at a time (its limbs are immediates of the unrolled
 * code): there is no toolchain and nothing is fetched or compiled outside this
 * file. Binary format: WebAssembly Core Specification 1.0, §5 (opcodes used:
 * MVP integer and control instructions only).
 *
 * Representation: 9 limbs of 29 bits, one little-endian u32 each, and a zero
 * pad word (ELEM = 40 bytes) in linear memory, Montgomery form a·R mod p with
 * R = 2^261, always fully reduced (in [0, p), every limb < 2^29), so two
 * elements are equal exactly when their bytes are.
 *
 * Multiplication: Montgomery multiplication with 29-bit words and 64-bit
 * products (i64.mul) whose limb accumulators are left unreduced until the end:
 * per product only a multiply and an add, no carry handling. (Measured against
 * 8 × 32-bit CIOS with a carry per product: about 2× faster.)
 *
 * Besides mul/add/sub (exported for setup and checks), the module holds the
 * hot loop itself, `batch`: n independent affine additions (or doublings) on a
 * short Weierstrass curve sharing one inversion (Montgomery's trick), the
 * inversion done by Fermat (an unrolled square-and-multiply chain for p − 2).
 */

import { IV as BLAKE_IV, SIGMA as BLAKE_SIGMA } from "./blake2b-kdf.js";

// ---------------------------------------------------------------------------
// A minimal encoder.

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

const I32 = 0x7f;
const I64 = 0x7e;

/** Instruction emitters (WebAssembly 1.0 opcode numbers). */
const op = {
  block: (): number[] => [0x02, 0x40],
  loop: (): number[] => [0x03, 0x40],
  if_: (): number[] => [0x04, 0x40],
  else_: (): number[] => [0x05],
  end: (): number[] => [0x0b],
  br: (depth: number): number[] => [0x0c, ...uleb(depth)],
  brIf: (depth: number): number[] => [0x0d, ...uleb(depth)],
  call: (f: number): number[] => [0x10, ...uleb(f)],
  select: (): number[] => [0x1b],
  get: (l: number): number[] => [0x20, ...uleb(l)],
  set: (l: number): number[] => [0x21, ...uleb(l)],
  tee: (l: number): number[] => [0x22, ...uleb(l)],
  i32Load: (offset: number): number[] => [0x28, 2, ...uleb(offset)],
  i64Load32U: (offset: number): number[] => [0x35, 2, ...uleb(offset)],
  i32Store: (offset: number): number[] => [0x36, 2, ...uleb(offset)],
  i64Store: (offset: number): number[] => [0x37, 3, ...uleb(offset)],
  i64Load: (offset: number): number[] => [0x29, 3, ...uleb(offset)],
  i32Store8: (offset: number): number[] => [0x3a, 0, ...uleb(offset)],
  i32Load8U: (offset: number): number[] => [0x2d, 0, ...uleb(offset)],
  i64Store32: (offset: number): number[] => [0x3e, 2, ...uleb(offset)],
  i32Const: (v: number): number[] => [0x41, ...sleb(BigInt(v | 0))],
  i64Const: (v: bigint): number[] => [0x42, ...sleb(BigInt.asIntN(64, v))],
  i32Eqz: (): number[] => [0x45],
  i32Eq: (): number[] => [0x46],
  i32Ne: (): number[] => [0x47],
  i32LtS: (): number[] => [0x48],
  i32GtS: (): number[] => [0x4a],
  i64Eqz: (): number[] => [0x50],
  i64Ne: (): number[] => [0x52],
  i32Add: (): number[] => [0x6a],
  i32Sub: (): number[] => [0x6b],
  i32Mul: (): number[] => [0x6c],
  i32Or: (): number[] => [0x72],
  i64Add: (): number[] => [0x7c],
  i64Sub: (): number[] => [0x7d],
  i64Mul: (): number[] => [0x7e],
  i64And: (): number[] => [0x83],
  i64Or: (): number[] => [0x84],
  i64ShrU: (): number[] => [0x88],
  i32Xor: (): number[] => [0x73],
  i32Rotl: (): number[] => [0x77],
  i32And: (): number[] => [0x71],
  i64Xor: (): number[] => [0x85],
  i64Rotr: (): number[] => [0x8a],
  i32WrapI64: (): number[] => [0xa7],
};

interface Func {
  params: number[];
  results: number[];
  locals: number[];
  body: number[];
  export?: string;
}

function moduleBytes(funcs: Func[], memoryPages: number): Uint8Array {
  const types = funcs.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec(f.results.map((t) => [t]))]);
  const typeSec = section(1, vec(types));
  const funcSec = section(3, vec(funcs.map((_, i) => uleb(i))));
  const memSec = section(5, vec([[0x00, ...uleb(memoryPages)]]));
  const name = (s: string): number[] => vec([...s].map((c) => [c.charCodeAt(0)]));
  const exports: number[][] = [[...name("memory"), 0x02, 0]];
  funcs.forEach((f, i) => {
    if (f.export) exports.push([...name(f.export), 0x00, ...uleb(i)]);
  });
  const exportSec = section(7, vec(exports));
  const bodies = funcs.map((f) => {
    const locals = f.locals.length === 0 ? [0] : vec(f.locals.map((t) => [1, t]));
    const code = [...locals, ...f.body, 0x0b];
    return [...uleb(code.length), ...code];
  });
  const codeSec = section(10, vec(bodies));
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...typeSec, ...funcSec, ...memSec, ...exportSec, ...codeSec]);
}

// ---------------------------------------------------------------------------
// The field functions.

/** Limbs of 29 bits: 9 of them hold 261 bits; R = 2^261. */
export const LIMBS = 9;
export const LIMB_BITS = 29;
const LMASK = (1n << 29n) - 1n;
/** Bytes of one element in memory: 9 little-endian u32 limbs and a zero pad word. */
export const ELEM = 40;

export const limbsOf = (v: bigint): bigint[] => Array.from({ length: LIMBS }, (_, i) => (v >> BigInt(LIMB_BITS * i)) & LMASK);

/** Function indices in the generated module. */
const F_MUL = 0;
const F_ADD = 1;
const F_SUB = 2;
const F_INV = 3;
const F_BATCH = 4;
const F_PACK = 5;
const F_LEADS = 6;
const F_DBL = 7;
const F_MADD = 8;

/** Fixed memory (byte offsets, 64 apart): constants and the batch loop's temporaries. 0 is never a field element. */
export const MEM = {
  ONE: 64, // R mod p (1 in Montgomery form)
  A: 128, // the curve coefficient a (Montgomery form)
  R2: 192, // R² mod p: toMont(x) = mul(x, R2)
  PLAIN_ONE: 256, // the integer 1: fromMont(x) = mul(x, PLAIN_ONE)
  ZERO: 320,
  INV: 384,
  INVK: 448,
  LAM: 512,
  T: 576,
  U: 640,
  X3: 704,
  Y3: 768,
  /** 32 bytes: the canonical little-endian bytes written by `pack`. */
  PACKED: 832,
  /** Two slots for the caller's constants. */
  C1: 896,
  C2: 960,
  /** Temporaries of the Jacobian doubling. */
  J1: 1024,
  J2: 1088,
  J3: 1152,
  J4: 1216,
  J5: 1280,
  J6: 1344,
  /** One Jacobian point (three elements) and one affine point (two) for a single scalar multiplication. */
  PJ: 1408,
  QA: 1536,
  J7: 1664,
  J8: 1728,
  J9: 1792,
  J10: 1856,
  /** First free byte. */
  FREE: 2048,
} as const;

/**
 * r ← a·b·R⁻¹ mod p. Params (r, a, b); a and b are read before r is written.
 * Montgomery multiplication, operand scanning with unreduced 64-bit limb
 * accumulators: each of the 9 rounds adds a·b_i and m·p (products < 2^58) and
 * shifts one limb down, so an accumulator never exceeds 18·2^58 + 2^36 < 2^64
 * and carries are propagated once, at the end. The result is < 2p before one
 * conditional subtraction.
 */
function mulFunc(p: bigint, pinv: bigint): Func {
  const pl = limbsOf(p);
  // locals: 0 r, 1 a, 2 b (i32); i64: a0..a8 (3..11), t0..t8 (12..20), m 21, bi 22, tmp 23, borrow 24, d0..d8 (25..33)
  const a = (j: number) => 3 + j;
  const t = (j: number) => 12 + j;
  const [M, BI, TMP, BOR] = [21, 22, 23, 24];
  const d = (j: number) => 25 + j;
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  const B = BigInt(LIMB_BITS);
  for (let j = 0; j < LIMBS; j++) e(op.get(1), op.i64Load32U(4 * j), op.set(a(j)));
  for (let i = 0; i < LIMBS; i++) {
    e(op.get(2), op.i64Load32U(4 * i), op.set(BI));
    // tmp = t0 + a0·bi; m = (tmp·pinv) mod 2^29; tmp += m·p0 (≡ 0 mod 2^29)
    e(op.get(a(0)), op.get(BI), op.i64Mul());
    if (i > 0) e(op.get(t(0)), op.i64Add());
    // (p0 = 1, as for both primes here: pinv = −1 and m = −tmp mod 2^29, no multiplication)
    if (pl[0] === 1n) e(op.tee(TMP), op.set(M), op.i64Const(0n), op.get(M), op.i64Sub(), op.i64Const(LMASK), op.i64And(), op.set(M));
    else e(op.tee(TMP), op.i64Const(pinv), op.i64Mul(), op.i64Const(LMASK), op.i64And(), op.set(M));
    e(mulConst(M, pl[0]!), op.get(TMP), op.i64Add(), op.i64Const(B), op.i64ShrU(), op.set(TMP));
    // t(j−1) = t(j) + aj·bi + m·pj (+ the carry out of limb 0 into the new limb 0); limbs of p equal to 0 cost nothing
    for (let j = 1; j < LIMBS; j++) {
      e(op.get(a(j)), op.get(BI), op.i64Mul());
      if (pl[j] !== 0n) e(mulConst(M, pl[j]!), op.i64Add());
      if (i > 0) e(op.get(t(j)), op.i64Add());
      if (j === 1) e(op.get(TMP), op.i64Add());
      e(op.set(t(j - 1)));
    }
    e(op.i64Const(0n), op.set(t(LIMBS - 1)));
  }
  // carries
  for (let j = 0; j < LIMBS - 1; j++) {
    e(op.get(t(j + 1)), op.get(t(j)), op.i64Const(B), op.i64ShrU(), op.i64Add(), op.set(t(j + 1)));
    e(op.get(t(j)), op.i64Const(LMASK), op.i64And(), op.set(t(j)));
  }
  condSubtract(e, t, d, BOR, TMP, pl);
  for (let j = 0; j < LIMBS; j++) e(op.get(0), op.get(d(j)), op.i64Store32(4 * j));
  return {
    params: [I32, I32, I32],
    results: [],
    locals: Array.from({ length: 31 }, () => I64),
    body,
    export: "mul",
  };
}

/** local · c for a constant c (c = 1: the local itself). */
const mulConst = (local: number, c: bigint): number[] => (c === 1n ? op.get(local) : [...op.get(local), ...op.i64Const(c), ...op.i64Mul()]);

/** d ← t − p if t ≥ p, else t (t < 2p, limbs normalised), limb by limb, branch-free. */
function condSubtract(e: (...xs: number[][]) => void, t: (j: number) => number, d: (j: number) => number, BOR: number, TMP: number, pl: bigint[]): void {
  for (let j = 0; j < LIMBS; j++) {
    // tmp = tj − pj − borrow (64-bit two's complement); borrow = tmp >> 63; dj = tmp mod 2^29
    e(op.get(t(j)), op.i64Const(pl[j]!), op.i64Sub());
    if (j > 0) e(op.get(BOR), op.i64Sub());
    e(op.tee(TMP), op.i64Const(63n), op.i64ShrU(), op.set(BOR));
    e(op.get(TMP), op.i64Const(LMASK), op.i64And(), op.set(d(j)));
  }
  // borrow = 0: t ≥ p, take t − p; borrow = 1: keep t
  for (let j = 0; j < LIMBS; j++) e(op.get(d(j)), op.get(t(j)), op.get(BOR), op.i64Eqz(), op.select(), op.set(d(j)));
}

/** r ← a + b mod p. */
function addFunc(p: bigint): Func {
  const pl = limbsOf(p);
  // locals: 0 r, 1 a, 2 b; i64: t0..t8 (3..11), carry 12, tmp 13, d0..d8 (14..22)
  const t = (j: number) => 3 + j;
  const [CAR, TMP] = [12, 13];
  const d = (j: number) => 14 + j;
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  for (let j = 0; j < LIMBS; j++) {
    e(op.get(1), op.i64Load32U(4 * j), op.get(2), op.i64Load32U(4 * j), op.i64Add());
    if (j > 0) e(op.get(CAR), op.i64Add());
    e(op.tee(TMP), op.i64Const(BigInt(LIMB_BITS)), op.i64ShrU(), op.set(CAR));
    e(op.get(TMP), op.i64Const(LMASK), op.i64And(), op.set(t(j)));
  }
  condSubtract(e, t, d, CAR, TMP, pl);
  for (let j = 0; j < LIMBS; j++) e(op.get(0), op.get(d(j)), op.i64Store32(4 * j));
  return { params: [I32, I32, I32], results: [], locals: Array.from({ length: 20 }, () => I64), body, export: "add" };
}

/** r ← a − b mod p. */
function subFunc(p: bigint): Func {
  const pl = limbsOf(p);
  // locals: 0 r, 1 a, 2 b; i64: d0..d8 (3..11), borrow 12, tmp 13, carry 14
  const d = (j: number) => 3 + j;
  const [BOR, TMP, CAR] = [12, 13, 14];
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  for (let j = 0; j < LIMBS; j++) {
    e(op.get(1), op.i64Load32U(4 * j), op.get(2), op.i64Load32U(4 * j), op.i64Sub());
    if (j > 0) e(op.get(BOR), op.i64Sub());
    e(op.tee(TMP), op.i64Const(63n), op.i64ShrU(), op.set(BOR));
    e(op.get(TMP), op.i64Const(LMASK), op.i64And(), op.set(d(j)));
  }
  // add borrow·p
  for (let j = 0; j < LIMBS; j++) {
    e(op.get(d(j)), op.get(BOR), op.i64Const(pl[j]!), op.i64Mul(), op.i64Add());
    if (j > 0) e(op.get(CAR), op.i64Add());
    e(op.tee(TMP), op.i64Const(BigInt(LIMB_BITS)), op.i64ShrU(), op.set(CAR));
    e(op.get(0), op.get(TMP), op.i64Const(LMASK), op.i64And(), op.i64Store32(4 * j));
  }
  return { params: [I32, I32, I32], results: [], locals: Array.from({ length: 12 }, () => I64), body, export: "sub" };
}

/** r ← a^(p−2) = a⁻¹ (Montgomery form in, Montgomery form out; 0 ↦ 0). Params (r, a); uses MEM.T. */
function invFunc(p: bigint): Func {
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  const exp = p - 2n;
  const bits = exp.toString(2);
  // acc in MEM.T: starts as a (the leading 1 bit)
  e(op.i32Const(MEM.T), op.get(1), op.i32Const(MEM.ONE), op.call(F_MUL));
  for (let i = 1; i < bits.length; i++) {
    e(op.i32Const(MEM.T), op.i32Const(MEM.T), op.i32Const(MEM.T), op.call(F_MUL));
    if (bits[i] === "1") e(op.i32Const(MEM.T), op.i32Const(MEM.T), op.get(1), op.call(F_MUL));
  }
  e(op.get(0), op.i32Const(MEM.T), op.i32Const(MEM.ONE), op.call(F_MUL));
  return { params: [I32, I32], results: [], locals: [], body, export: "inv" };
}

/** Whether the element at ptr is zero: i32 result (the pad word is always zero). */
function isZeroExpr(ptr: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < ELEM / 8; k++) out.push(...ptr, ...op.i64Load(8 * k), ...(k > 0 ? op.i64Or() : []));
  return [...out, ...op.i64Eqz()];
}

/** Copies one element from src to dst (as i64 words). */
function copyExpr(dst: number[], src: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < ELEM / 8; k++) out.push(...dst, ...src, ...op.i64Load(8 * k), ...op.i64Store(8 * k));
  return out;
}

/**
 * dbl(p): the Jacobian point (X, Y, Z) at p (three elements) doubled in place
 * on y² = x³ + a·x + b (formulas dbl-2007-bl of the Explicit-Formulas
 * Database; with a = 0 the a·ZZ² term is left out). Uses MEM.J1..J6.
 */
function dblFunc(aIsZero: boolean): Func {
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  const c = (v: number) => op.i32Const(v);
  const X = op.get(0);
  const Y = [...op.get(0), ...op.i32Const(ELEM), ...op.i32Add()];
  const Z = [...op.get(0), ...op.i32Const(2 * ELEM), ...op.i32Add()];
  const f3 = (fn: number, r: number[], a: number[], b: number[]) => e(r, a, b, op.call(fn));
  const [XX, YY, YYYY, ZZ, S, M] = [c(MEM.J1), c(MEM.J2), c(MEM.J3), c(MEM.J4), c(MEM.J5), c(MEM.J6)];
  f3(F_MUL, XX, X, X);
  f3(F_MUL, YY, Y, Y);
  f3(F_MUL, YYYY, YY, YY);
  f3(F_MUL, ZZ, Z, Z);
  // S = 2·((X + YY)² − XX − YYYY)
  f3(F_ADD, S, X, YY);
  f3(F_MUL, S, S, S);
  f3(F_SUB, S, S, XX);
  f3(F_SUB, S, S, YYYY);
  f3(F_ADD, S, S, S);
  // M = 3·XX + a·ZZ²
  f3(F_ADD, M, XX, XX);
  f3(F_ADD, M, M, XX);
  if (!aIsZero) {
    f3(F_MUL, XX, ZZ, ZZ);
    f3(F_MUL, XX, XX, c(MEM.A));
    f3(F_ADD, M, M, XX);
  }
  // Z3 = (Y + Z)² − YY − ZZ
  f3(F_ADD, Z, Y, Z);
  f3(F_MUL, Z, Z, Z);
  f3(F_SUB, Z, Z, YY);
  f3(F_SUB, Z, Z, ZZ);
  // X3 = M² − 2·S
  f3(F_MUL, X, M, M);
  f3(F_SUB, X, X, S);
  f3(F_SUB, X, X, S);
  // Y3 = M·(S − X3) − 8·YYYY
  f3(F_SUB, S, S, X);
  f3(F_MUL, S, M, S);
  f3(F_ADD, YYYY, YYYY, YYYY);
  f3(F_ADD, YYYY, YYYY, YYYY);
  f3(F_ADD, YYYY, YYYY, YYYY);
  f3(F_SUB, Y, S, YYYY);
  return { params: [I32], results: [], locals: [], body, export: "dbl" };
}

/**
 * madd(p, q): the Jacobian point at p plus the affine point at q, in place
 * (formulas madd-2007-bl of the Explicit-Formulas Database, any a). Not for
 * P = ±Q nor P the identity (the caller's scalar walk never meets them).
 * Uses MEM.J1..J10.
 */
function maddFunc(): Func {
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  const c = (v: number) => op.i32Const(v);
  const at = (l: number, k: number) => [...op.get(l), ...op.i32Const(k * ELEM), ...op.i32Add()];
  const [X1, Y1, Z1, X2, Y2] = [op.get(0), at(0, 1), at(0, 2), op.get(1), at(1, 1)];
  const f3 = (fn: number, r: number[], a: number[], b: number[]) => e(r, a, b, op.call(fn));
  const [Z1Z1, U2, S2, H, HH, I, J, R, V, T] = [MEM.J1, MEM.J2, MEM.J3, MEM.J4, MEM.J5, MEM.J6, MEM.J7, MEM.J8, MEM.J9, MEM.J10].map(c) as [number[], number[], number[], number[], number[], number[], number[], number[], number[], number[]];
  f3(F_MUL, Z1Z1, Z1, Z1);
  f3(F_MUL, U2, X2, Z1Z1);
  f3(F_MUL, S2, Y2, Z1);
  f3(F_MUL, S2, S2, Z1Z1);
  f3(F_SUB, H, U2, X1);
  f3(F_MUL, HH, H, H);
  f3(F_ADD, I, HH, HH);
  f3(F_ADD, I, I, I);
  f3(F_MUL, J, H, I);
  f3(F_SUB, R, S2, Y1);
  f3(F_ADD, R, R, R);
  f3(F_MUL, V, X1, I);
  // X3 = r² − J − 2V
  f3(F_MUL, X1, R, R);
  f3(F_SUB, X1, X1, J);
  f3(F_SUB, X1, X1, V);
  f3(F_SUB, X1, X1, V);
  // Y3 = r·(V − X3) − 2·Y1·J
  f3(F_SUB, T, V, X1);
  f3(F_MUL, T, R, T);
  f3(F_MUL, U2, Y1, J);
  f3(F_ADD, U2, U2, U2);
  f3(F_SUB, Y1, T, U2);
  // Z3 = (Z1 + H)² − Z1Z1 − HH
  f3(F_ADD, Z1, Z1, H);
  f3(F_MUL, Z1, Z1, Z1);
  f3(F_SUB, Z1, Z1, Z1Z1);
  f3(F_SUB, Z1, Z1, HH);
  return { params: [I32, I32], results: [], locals: [], body, export: "madd" };
}

/**
 * leads(n, secrets, epk, state, c0, out): for each k < n, the KDF of
 * (secret_k ‖ epk) — BLAKE2b-256 of one 64-byte block from the chaining value
 * at `state` (8 little-endian u64: the personalised parameter block, as
 * blake2b-kdf.ts's kdfState) — and byte 0 of the ChaCha20 keystream under that
 * key with counter 1 and the zero nonce, xor c0: the first plaintext byte, at
 * out + k. secret_k is the 32 bytes at secrets + 32k; epk is 32 bytes.
 * (RFC 7693 §3.2 compression, RFC 8439 §2.3 block function.)
 */
function leadsFunc(): Func {
  const [N, SEC, EPK, STATE, C0, OUT] = [0, 1, 2, 3, 4, 5];
  const K = 6;
  // i64 locals: m0..m7 (7..14), h0..h7 (15..22), v0..v15 (23..38); i32 x0..x15 (39..54)
  const m = (i: number) => 7 + i;
  const h = (i: number) => 15 + i;
  const v = (i: number) => 23 + i;
  const x = (i: number) => 39 + i;
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((y) => body.push(...y));
  const iv = (i: number): bigint => (BigInt(BLAKE_IV[2 * i + 1]!) << 32n) | BigInt(BLAKE_IV[2 * i]!);
  for (let i = 0; i < 4; i++) e(op.get(EPK), op.i64Load(8 * i), op.set(m(4 + i)));
  for (let i = 0; i < 8; i++) e(op.get(STATE), op.i64Load(8 * i), op.set(h(i)));
  e(op.i32Const(0), op.set(K));
  e(op.block(), op.loop());
  e(op.get(K), op.get(N), op.i32Eq(), op.brIf(1));
  for (let i = 0; i < 4; i++) e(op.get(SEC), op.get(K), op.i32Const(32), op.i32Mul(), op.i32Add(), op.i64Load(8 * i), op.set(m(i)));
  for (let i = 0; i < 8; i++) e(op.get(h(i)), op.set(v(i)));
  for (let i = 0; i < 8; i++) {
    let c = iv(i);
    if (i === 4) c ^= 64n; // t = 64 bytes
    if (i === 6) c ^= (1n << 64n) - 1n; // last block
    e(op.i64Const(c), op.set(v(8 + i)));
  }
  // G(a, b, c, d, x, y); message words 8..15 are zero
  const addM = (w: number) => (w < 8 ? [...op.get(m(w)), ...op.i64Add()] : []);
  const G = (a: number, b: number, c: number, d: number, mx: number, my: number) => {
    e(op.get(v(a)), op.get(v(b)), op.i64Add(), addM(mx), op.set(v(a)));
    e(op.get(v(d)), op.get(v(a)), op.i64Xor(), op.i64Const(32n), op.i64Rotr(), op.set(v(d)));
    e(op.get(v(c)), op.get(v(d)), op.i64Add(), op.set(v(c)));
    e(op.get(v(b)), op.get(v(c)), op.i64Xor(), op.i64Const(24n), op.i64Rotr(), op.set(v(b)));
    e(op.get(v(a)), op.get(v(b)), op.i64Add(), addM(my), op.set(v(a)));
    e(op.get(v(d)), op.get(v(a)), op.i64Xor(), op.i64Const(16n), op.i64Rotr(), op.set(v(d)));
    e(op.get(v(c)), op.get(v(d)), op.i64Add(), op.set(v(c)));
    e(op.get(v(b)), op.get(v(c)), op.i64Xor(), op.i64Const(63n), op.i64Rotr(), op.set(v(b)));
  };
  for (let r = 0; r < 12; r++) {
    const s = 16 * (r % 10);
    const S = (i: number) => BLAKE_SIGMA[s + i]!;
    G(0, 4, 8, 12, S(0), S(1));
    G(1, 5, 9, 13, S(2), S(3));
    G(2, 6, 10, 14, S(4), S(5));
    G(3, 7, 11, 15, S(6), S(7));
    G(0, 5, 10, 15, S(8), S(9));
    G(1, 6, 11, 12, S(10), S(11));
    G(2, 7, 8, 13, S(12), S(13));
    G(3, 4, 9, 14, S(14), S(15));
  }
  // key word i (64-bit) = h_i ^ v_i ^ v_{i+8}; ChaCha key words 2i, 2i + 1 are its halves
  const CONST = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];
  for (let i = 0; i < 4; i++) e(op.i32Const(CONST[i]!), op.set(x(i)));
  for (let i = 0; i < 4; i++) {
    e(op.get(h(i)), op.get(v(i)), op.i64Xor(), op.get(v(i + 8)), op.i64Xor(), op.set(v(i)));
    e(op.get(v(i)), op.i32WrapI64(), op.set(x(4 + 2 * i)));
    e(op.get(v(i)), op.i64Const(32n), op.i64ShrU(), op.i32WrapI64(), op.set(x(5 + 2 * i)));
  }
  e(op.i32Const(1), op.set(x(12)), op.i32Const(0), op.set(x(13)), op.i32Const(0), op.set(x(14)), op.i32Const(0), op.set(x(15)));
  const QR = (a: number, b: number, c: number, d: number) => {
    const step = (p: number, q: number, r: number, rot: number) => {
      e(op.get(x(p)), op.get(x(q)), op.i32Add(), op.set(x(p)));
      e(op.get(x(r)), op.get(x(p)), op.i32Xor(), op.i32Const(rot), op.i32Rotl(), op.set(x(r)));
    };
    step(a, b, d, 16);
    step(c, d, b, 12);
    step(a, b, d, 8);
    step(c, d, b, 7);
  };
  for (let r = 0; r < 10; r++) {
    QR(0, 4, 8, 12);
    QR(1, 5, 9, 13);
    QR(2, 6, 10, 14);
    QR(3, 7, 11, 15);
    QR(0, 5, 10, 15);
    QR(1, 6, 11, 12);
    QR(2, 7, 8, 13);
    QR(3, 4, 9, 14);
  }
  e(op.get(OUT), op.get(K), op.i32Add(), op.get(x(0)), op.i32Const(CONST[0]!), op.i32Add(), op.get(C0), op.i32Xor(), op.i32Store8(0));
  e(op.get(K), op.i32Const(1), op.i32Add(), op.set(K), op.br(0));
  e(op.end(), op.end());
  return {
    params: [I32, I32, I32, I32, I32, I32],
    results: [],
    locals: [I32, ...Array.from({ length: 32 }, () => I64), ...Array.from({ length: 16 }, () => I32)],
    body,
    export: "leads",
  };
}

/**
 * pack(dst, a): the canonical value of the element at a (out of Montgomery
 * form) as 32 little-endian bytes at dst. Uses MEM.T.
 */
function packFunc(): Func {
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  e(op.i32Const(MEM.T), op.get(1), op.i32Const(MEM.PLAIN_ONE), op.call(F_MUL));
  for (let k = 0; k < 8; k++) {
    // output word k holds bits [32k, 32k + 32): from every limb overlapping them
    let first = true;
    e(op.get(0));
    for (let i = 0; i < LIMBS; i++) {
      const lo = LIMB_BITS * i;
      if (lo + LIMB_BITS <= 32 * k || lo >= 32 * k + 32) continue;
      e(op.i32Const(MEM.T), op.i64Load32U(4 * i));
      const shift = lo - 32 * k;
      if (shift > 0) e(op.i64Const(BigInt(shift)), [0x86]); // i64.shl
      else if (shift < 0) e(op.i64Const(BigInt(-shift)), op.i64ShrU());
      if (!first) e(op.i64Or());
      first = false;
    }
    e(op.i64Store32(4 * k));
  }
  return { params: [I32, I32], results: [], locals: [], body, export: "pack" };
}

/**
 * batch(n, items, den, prefix, flags) → number of exceptional items.
 *
 * Item k is four i32 at items + 16k: s1, s2x, s2y, dst — pointers to P = (x1, y1)
 * (y1 at s1 + ELEM), to x2 and to y2, and where P + (x2, y2) goes (x at dst, y
 * at dst + ELEM; dst may be s1). s2x = s1 asks for the doubling of P. An item whose
 * denominator is zero (x1 = x2, or y1 = 0 for a doubling) is exceptional: it is
 * left untouched, flags[k] is set to 1 (0 otherwise), and the caller handles it.
 * den and prefix are scratch of ELEM·n bytes each.
 */
function batchFunc(): Func {
  const [N, ITEMS, DEN, PRE, FLAGS] = [0, 1, 2, 3, 4];
  const [K, IT, S1, S2X, S2Y, DST, DK, PK, CNT] = [5, 6, 7, 8, 9, 10, 11, 12, 13];
  const body: number[] = [];
  const e = (...xs: number[][]) => xs.forEach((x) => body.push(...x));
  const call3 = (r: number[], a: number[], b: number[], f: number) => e(r, a, b, op.call(f));
  const c = (v: number) => op.i32Const(v);
  const g = (l: number) => op.get(l);
  const off = (l: number, v: number) => [...op.get(l), ...op.i32Const(v), ...op.i32Add()];

  // ---- forward: den[k], prefix[k] = Π den[0..k]
  e(c(0), op.set(K), c(0), op.set(CNT));
  e(op.block(), op.loop());
  e(g(K), g(N), op.i32Eq(), op.brIf(1));
  e(g(ITEMS), g(K), c(16), op.i32Mul(), op.i32Add(), op.set(IT));
  e(g(IT), op.i32Load(0), op.set(S1), g(IT), op.i32Load(4), op.set(S2X));
  e(g(DEN), g(K), c(ELEM), op.i32Mul(), op.i32Add(), op.set(DK));
  e(g(PRE), g(K), c(ELEM), op.i32Mul(), op.i32Add(), op.set(PK));
  // den = s2x == s1 ? 2·y1 : x2 − x1
  e(g(S2X), g(S1), op.i32Eq(), op.if_());
  call3(g(DK), off(S1, ELEM), off(S1, ELEM), F_ADD);
  e(op.else_());
  call3(g(DK), g(S2X), g(S1), F_SUB);
  e(op.end());
  // exceptional: flag, den = 1
  e(isZeroExpr(g(DK)), op.if_());
  e(g(FLAGS), g(K), op.i32Add(), c(1), op.i32Store8(0));
  e(copyExpr(g(DK), c(MEM.ONE)));
  e(g(CNT), c(1), op.i32Add(), op.set(CNT));
  e(op.else_());
  e(g(FLAGS), g(K), op.i32Add(), c(0), op.i32Store8(0));
  e(op.end());
  e(g(K), op.i32Eqz(), op.if_());
  e(copyExpr(g(PK), g(DK)));
  e(op.else_());
  call3(g(PK), [...g(PK), ...c(ELEM), ...op.i32Sub()], g(DK), F_MUL);
  e(op.end());
  e(g(K), c(1), op.i32Add(), op.set(K), op.br(0));
  e(op.end(), op.end());
  // n = 0: nothing to do
  e(g(N), op.i32Eqz(), op.if_(), c(0), op.set(CNT), op.end());
  e(g(N), op.i32Eqz(), op.i32Eqz(), op.if_());
  // ---- inversion of the product
  e(c(MEM.INV), g(PRE), g(N), c(1), op.i32Sub(), c(ELEM), op.i32Mul(), op.i32Add(), op.call(F_INV));
  // ---- backward
  e(g(N), c(1), op.i32Sub(), op.set(K));
  e(op.block(), op.loop());
  e(g(K), c(0), op.i32LtS(), op.brIf(1));
  e(g(DEN), g(K), c(ELEM), op.i32Mul(), op.i32Add(), op.set(DK));
  e(g(PRE), g(K), c(ELEM), op.i32Mul(), op.i32Add(), op.set(PK));
  // invk = inv·prefix[k−1]; inv = inv·den[k]  (k > 0); else invk = inv
  e(g(K), op.i32Eqz(), op.if_());
  e(copyExpr(c(MEM.INVK), c(MEM.INV)));
  e(op.else_());
  call3(c(MEM.INVK), c(MEM.INV), [...g(PK), ...c(ELEM), ...op.i32Sub()], F_MUL);
  call3(c(MEM.INV), c(MEM.INV), g(DK), F_MUL);
  e(op.end());
  e(g(FLAGS), g(K), op.i32Add(), op.i32Load8U(0), op.i32Eqz(), op.if_());
  e(g(ITEMS), g(K), c(16), op.i32Mul(), op.i32Add(), op.set(IT));
  e(g(IT), op.i32Load(0), op.set(S1), g(IT), op.i32Load(4), op.set(S2X), g(IT), op.i32Load(8), op.set(S2Y), g(IT), op.i32Load(12), op.set(DST));
  e(g(S2X), g(S1), op.i32Eq(), op.if_());
  // λ = (3x1² + a)/(2y1)
  call3(c(MEM.T), g(S1), g(S1), F_MUL);
  call3(c(MEM.U), c(MEM.T), c(MEM.T), F_ADD);
  call3(c(MEM.U), c(MEM.U), c(MEM.T), F_ADD);
  call3(c(MEM.U), c(MEM.U), c(MEM.A), F_ADD);
  call3(c(MEM.LAM), c(MEM.U), c(MEM.INVK), F_MUL);
  e(op.else_());
  // λ = (y2 − y1)/(x2 − x1)
  call3(c(MEM.T), g(S2Y), off(S1, ELEM), F_SUB);
  call3(c(MEM.LAM), c(MEM.T), c(MEM.INVK), F_MUL);
  e(op.end());
  // x3 = λ² − x1 − x2; y3 = λ(x1 − x3) − y1
  call3(c(MEM.T), c(MEM.LAM), c(MEM.LAM), F_MUL);
  call3(c(MEM.T), c(MEM.T), g(S1), F_SUB);
  call3(c(MEM.X3), c(MEM.T), g(S2X), F_SUB);
  call3(c(MEM.U), g(S1), c(MEM.X3), F_SUB);
  call3(c(MEM.U), c(MEM.LAM), c(MEM.U), F_MUL);
  call3(off(DST, ELEM), c(MEM.U), off(S1, ELEM), F_SUB);
  e(copyExpr(g(DST), c(MEM.X3)));
  e(op.end());
  e(g(K), c(1), op.i32Sub(), op.set(K), op.br(0));
  e(op.end(), op.end());
  e(op.end());
  e(g(CNT));
  return { params: [I32, I32, I32, I32, I32], results: [I32], locals: Array.from({ length: 9 }, () => I32), body, export: "batch" };
}

// ---------------------------------------------------------------------------
// The instance.

/** The little of the WebAssembly JavaScript API used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface FieldExports {
  memory: WasmMemory;
  mul(r: number, a: number, b: number): void;
  add(r: number, a: number, b: number): void;
  sub(r: number, a: number, b: number): void;
  inv(r: number, a: number): void;
  batch(n: number, items: number, den: number, prefix: number, flags: number): number;
  pack(dst: number, a: number): void;
  leads(n: number, secrets: number, epk: number, state: number, c0: number, out: number): void;
  dbl(p: number): void;
  madd(p: number, q: number): void;
}

/** −p⁻¹ mod 2^29. */
function negInvLimb(p: bigint): bigint {
  let x = 1n; // Newton: x ← x(2 − p·x) doubles the correct bits
  for (let i = 0; i < 6; i++) x = (x * (2n - p * x)) & LMASK;
  return (-x) & LMASK;
}

/** One prime's module, instantiated with its constants written to memory. */
export class WasmField {
  readonly p: bigint;
  readonly fx: FieldExports;
  private u32: Uint32Array;
  private u8: Uint8Array;
  private readonly R: bigint;
  private readonly Rinv: bigint;

  constructor(p: bigint, a: bigint) {
    if (p >> 255n !== 0n || p >> 224n >= 0x7ffffffen || (p & 1n) === 0n) throw new RangeError("unsupported modulus");
    this.p = p;
    const funcs = [mulFunc(p, negInvLimb(p)), addFunc(p), subFunc(p), invFunc(p), batchFunc(), packFunc(), leadsFunc(), dblFunc(((a % p) + p) % p === 0n), maddFunc()];
    if (funcs.length !== F_MADD + 1) throw new Error("function table");
    const module = new Wasm.Module(moduleBytes(funcs, 2));
    this.fx = new Wasm.Instance(module, {}).exports as FieldExports;
    this.u32 = new Uint32Array(this.fx.memory.buffer);
    this.u8 = new Uint8Array(this.fx.memory.buffer);
    this.R = (1n << BigInt(LIMBS * LIMB_BITS)) % p;
    this.Rinv = powMod(this.R, p - 2n, p);
    this.writePlain(MEM.ONE, this.R);
    this.writePlain(MEM.R2, (this.R * this.R) % p);
    this.writePlain(MEM.PLAIN_ONE, 1n);
    this.writePlain(MEM.ZERO, 0n);
    this.write(MEM.A, ((a % p) + p) % p);
  }

  /** Makes at least `bytes` of memory addressable; views are refreshed. */
  ensure(bytes: number): void {
    const have = this.fx.memory.buffer.byteLength;
    if (bytes > have) this.fx.memory.grow(Math.ceil((bytes - have) / 65536));
    if (this.u32.buffer !== this.fx.memory.buffer) {
      this.u32 = new Uint32Array(this.fx.memory.buffer);
      this.u8 = new Uint8Array(this.fx.memory.buffer);
    }
  }

  get words(): Uint32Array {
    if (this.u32.buffer !== this.fx.memory.buffer) this.ensure(0);
    return this.u32;
  }

  get bytes(): Uint8Array {
    if (this.u8.buffer !== this.fx.memory.buffer) this.ensure(0);
    return this.u8;
  }

  /** Writes the integer v (0 ≤ v < 2^256) as limbs, no conversion. */
  writePlain(ptr: number, v: bigint): void {
    const w = this.words;
    for (let j = 0; j < LIMBS; j++) {
      w[(ptr >> 2) + j] = Number(v & LMASK);
      v >>= BigInt(LIMB_BITS);
    }
  }

  readPlain(ptr: number): bigint {
    const w = this.words;
    let v = 0n;
    for (let j = LIMBS - 1; j >= 0; j--) v = (v << BigInt(LIMB_BITS)) | BigInt(w[(ptr >> 2) + j]!);
    return v;
  }

  /** Writes the field element v ∈ [0, p) in Montgomery form. */
  write(ptr: number, v: bigint): void {
    this.writePlain(ptr, (v * this.R) % this.p);
  }

  /** Reads the field element at ptr (Montgomery form) as an integer in [0, p). */
  read(ptr: number): bigint {
    return (this.readPlain(ptr) * this.Rinv) % this.p;
  }
}

function powMod(b: bigint, e: bigint, p: bigint): bigint {
  let r = 1n;
  b %= p;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % p;
    b = (b * b) % p;
    e >>= 1n;
  }
  return r;
}
