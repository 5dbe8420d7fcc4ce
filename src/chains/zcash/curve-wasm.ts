/**
 * The method of curve-batch.ts (per-point tables of signed fixed windows,
 * every scalar's window additions batched with one shared inversion) with the
 * field arithmetic and the hot loop in WebAssembly (wasm-field.ts). Field
 * elements live in the module's linear memory in Montgomery form; bigints are
 * only used at the edges (the table's window bases in, the rare exceptional
 * additions) and the results are read as bytes.
 *
 * Memory of one call (byte offsets from MEM.FREE): the table (entry (i, d) is
 * three elements: x, y, −y), the accumulators (two elements per scalar: x, y),
 * the items of the batch kernel (16 bytes each), its den and prefix scratch
 * (one element per item each) and its flags (1 byte per item).
 */
import { addAffine, type Affine, type WeierstrassCurve } from "./curve-batch.js";
import { ELEM, MEM, WasmField } from "./wasm-field.js";

const ENTRY = 3 * ELEM;
const ACC = 2 * ELEM;
const EW = ELEM / 4; // words per element

export interface WasmLayout {
  readonly w: number;
  readonly windows: number;
  readonly scalars: number;
  readonly table: number;
  readonly acc: number;
  readonly items: number;
  readonly den: number;
  readonly prefix: number;
  readonly flags: number;
  /** Per scalar: the 32-byte encoding of its result (filled by the caller), and a lead byte. */
  readonly secrets: number;
  readonly leads: number;
  /** 32 bytes of ephemeral key and 64 of KDF chaining value. */
  readonly epk: number;
  readonly kdf: number;
  /** Jacobian scratch for the window bases: three elements per window. */
  readonly jac: number;
  readonly end: number;
}

export function layout(w: number, windows: number, scalars: number): WasmLayout {
  const half = 1 << (w - 1);
  const maxItems = Math.max(scalars, windows * half);
  const table = MEM.FREE;
  const acc = table + windows * half * ENTRY;
  const items = acc + scalars * ACC;
  const den = items + maxItems * 16;
  const prefix = den + maxItems * ELEM;
  const flags = prefix + maxItems * ELEM;
  const secrets = flags + maxItems + 64 - ((flags + maxItems) % 64);
  const leads = secrets + 32 * scalars;
  const epk = leads + scalars + 64 - ((leads + scalars) % 64);
  const kdf = epk + 64;
  const jac = kdf + 64;
  const end = jac + windows * 3 * ELEM;
  return { w, windows, scalars, table, acc, items, den, prefix, flags, secrets, leads, epk, kdf, jac, end };
}

/** Byte offset of table entry (i, d), 1 ≤ d ≤ 2^(w−1). */
const entryAt = (L: WasmLayout, i: number, d: number): number => L.table + (i * (1 << (L.w - 1)) + d - 1) * ENTRY;

/**
 * The window bases B_i = 2^(w·i)·Q of an affine Q (plain integers), written
 * as the table's entries (i, 1): w Jacobian doublings per window in the
 * module, then all bases to affine with one inversion. Q must have odd prime
 * order larger than 2^(w·windows) (no base is the identity).
 */
export function wasmWindowBases(f: WasmField, L: WasmLayout, q: { x: bigint; y: bigint }): void {
  const { fx } = f;
  f.ensure(L.end);
  const J = (i: number) => L.jac + 3 * ELEM * i;
  f.write(J(0), q.x);
  f.write(J(0) + ELEM, q.y);
  f.fx.add(J(0) + 2 * ELEM, MEM.ONE, MEM.ZERO);
  const words = f.words;
  for (let i = 1; i < L.windows; i++) {
    words.copyWithin(J(i) >> 2, J(i - 1) >> 2, (J(i - 1) + 3 * ELEM) >> 2);
    for (let k = 0; k < L.w; k++) fx.dbl(J(i));
  }
  // 1/Z_i by Montgomery's trick: prefix products in den, then back.
  const Z = (i: number) => J(i) + 2 * ELEM;
  const P = (i: number) => L.den + ELEM * i;
  fx.add(P(0), Z(0), MEM.ZERO);
  for (let i = 1; i < L.windows; i++) fx.mul(P(i), P(i - 1), Z(i));
  fx.inv(MEM.INV, P(L.windows - 1));
  if (f.read(MEM.INV) === 0n) throw new RangeError("a window base is the identity");
  for (let i = L.windows - 1; i >= 0; i--) {
    if (i > 0) {
      fx.mul(MEM.INVK, MEM.INV, P(i - 1));
      fx.mul(MEM.INV, MEM.INV, Z(i));
    } else fx.add(MEM.INVK, MEM.INV, MEM.ZERO);
    const e = entryAt(L, i, 1);
    fx.mul(MEM.U, MEM.INVK, MEM.INVK); // 1/Z²
    fx.mul(e, J(i), MEM.U);
    fx.mul(MEM.U, MEM.U, MEM.INVK); // 1/Z³
    fx.mul(e + ELEM, J(i) + ELEM, MEM.U);
  }
}

/**
 * Fills the table of Q's multiples from the window bases B_i = 2^(w·i)·Q
 * (affine, plain integers; or null: already written by wasmWindowBases; none
 * the identity, Q of odd prime order larger than 2^w·windows, so no entry is
 * the identity and no addition is exceptional).
 */
export function wasmBuildTable(f: WasmField, L: WasmLayout, bases: readonly { x: bigint; y: bigint }[] | null): void {
  const { fx } = f;
  const half = 1 << (L.w - 1);
  f.ensure(L.end);
  if (bases !== null) {
    if (bases.length !== L.windows) throw new RangeError("one base per window");
    for (let i = 0; i < L.windows; i++) {
      const e = entryAt(L, i, 1);
      f.write(e, bases[i]!.x);
      f.write(e + ELEM, bases[i]!.y);
    }
  }
  for (let m = 1; m < half; m *= 2) {
    const items = f.words;
    let n = 0;
    for (let i = 0; i < L.windows; i++) {
      const em = entryAt(L, i, m);
      for (let j = 1; j <= m && m + j <= half; j++) {
        const ej = entryAt(L, i, j);
        const at = (L.items >> 2) + 4 * n;
        items[at] = em;
        items[at + 1] = ej;
        items[at + 2] = ej + ELEM;
        items[at + 3] = entryAt(L, i, m + j);
        n++;
      }
    }
    if (fx.batch(n, L.items, L.den, L.prefix, L.flags) !== 0) throw new RangeError("exceptional addition in a table");
  }
  for (let i = 0; i < L.windows; i++) {
    for (let d = 1; d <= half; d++) {
      const e = entryAt(L, i, d);
      fx.sub(e + 2 * ELEM, MEM.ZERO, e + ELEM);
    }
  }
}

/**
 * Σ d_i·T(i) for every scalar's digits, left in the accumulators (x, y
 * Montgomery form at L.acc + 2·ELEM·j). `digits` is window-major: the digit of
 * scalar j in window i at i·L.scalars + j. Returns the identity flags (1: the
 * sum is the identity and the accumulator is meaningless).
 */
export function wasmMultiplyMany(f: WasmField, L: WasmLayout, curve: WeierstrassCurve, digits: Int16Array): Uint8Array {
  const { fx } = f;
  const S = L.scalars;
  const half = 1 << (L.w - 1);
  f.ensure(L.end);
  const isZero = new Uint8Array(S).fill(1);
  const words = f.words;
  const bytes = f.bytes;
  const itemsAt = L.items >> 2;
  for (let i = 0; i < L.windows; i++) {
    let n = 0;
    const base = L.table + (i * half - 1) * ENTRY;
    const row = i * S;
    for (let j = 0; j < S; j++) {
      const d = digits[row + j]!;
      if (d === 0) continue;
      const e = base + (d < 0 ? -d : d) * ENTRY;
      const a = L.acc + j * ACC;
      if (isZero[j] === 1) {
        words.copyWithin(a >> 2, e >> 2, (e >> 2) + EW);
        const y = d < 0 ? e + 2 * ELEM : e + ELEM;
        words.copyWithin((a >> 2) + EW, y >> 2, (y >> 2) + EW);
        isZero[j] = 0;
        continue;
      }
      const at = itemsAt + 4 * n;
      words[at] = a;
      words[at + 1] = e;
      words[at + 2] = d < 0 ? e + 2 * ELEM : e + ELEM;
      words[at + 3] = a;
      n++;
    }
    if (n === 0) continue;
    if (fx.batch(n, L.items, L.den, L.prefix, L.flags) === 0) continue;
    // Exceptional (equal x: a doubling, or the identity): one by one, in plain integers.
    for (let k = 0; k < n; k++) {
      if (bytes[L.flags + k] !== 1) continue;
      const at = itemsAt + 4 * k;
      const a = words[at]!;
      const j = (a - L.acc) / ACC;
      const r: Affine = addAffine(curve, { x: f.read(a), y: f.read(a + ELEM) }, { x: f.read(words[at + 1]!), y: f.read(words[at + 2]!) });
      if (r === null) isZero[j] = 1;
      else {
        f.write(a, r.x);
        f.write(a + ELEM, r.y);
      }
    }
  }
  return isZero;
}

/**
 * [k]·Q for one affine Q (plain integers) of odd prime order n and
 * 1 ≤ k < n, by double-and-add in Jacobian coordinates in the module
 * (partial sums j·Q with 2 ≤ j < n never meet ±Q, so no addition is
 * exceptional). Returns the affine result as plain integers.
 */
export function wasmScalarMul(f: WasmField, q: { x: bigint; y: bigint }, k: bigint): { x: bigint; y: bigint } {
  if (k <= 0n) throw new RangeError("scalar must be positive");
  const { fx } = f;
  const P = MEM.PJ;
  f.write(MEM.QA, q.x);
  f.write(MEM.QA + ELEM, q.y);
  f.words.copyWithin(P >> 2, MEM.QA >> 2, (MEM.QA + 2 * ELEM) >> 2);
  fx.add(P + 2 * ELEM, MEM.ONE, MEM.ZERO);
  const bits = k.toString(2);
  for (let i = 1; i < bits.length; i++) {
    fx.dbl(P);
    if (bits.charCodeAt(i) === 49) fx.madd(P, MEM.QA);
  }
  fx.inv(MEM.INV, P + 2 * ELEM);
  fx.mul(MEM.U, MEM.INV, MEM.INV);
  fx.mul(MEM.X3, P, MEM.U);
  fx.mul(MEM.U, MEM.U, MEM.INV);
  fx.mul(MEM.Y3, P + ELEM, MEM.U);
  return { x: f.read(MEM.X3), y: f.read(MEM.Y3) };
}
