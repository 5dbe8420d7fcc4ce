/**
 * Extended twisted-Edwards arithmetic for ed25519 on the 12-limb field
 * (field25519.ts): window tables of a point, table-driven multiplication,
 * batch encoding with one inversion, and a variable-base 8·(a·R) for single
 * derivations. Results are byte-identical to @noble/curves (tests compare them
 * on Monero's vectors, torsion cases included).
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { fe, feAdd, feClone, feFromBigint, feInvert, feMul, fePack, feSqr, feSub, type Fe } from "./field25519.js";

type EdPoint = InstanceType<typeof ed25519.Point>;
const Point = ed25519.Point;

const P = (1n << 255n) - 19n;
function modInv(x: bigint): bigint {
  let r = 1n;
  let b = x % P;
  let e = P - 2n;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return r;
}
const D_BIG = ((-121665n * modInv(121666n)) % P + P) % P;
const D2 = feFromBigint(fe(), (2n * D_BIG) % P);

const SCALAR_BITS = 253; // a < l < 2^253

// ---------------------------------------------------------------------------
// Extended points (X, Y, Z, T) as four field elements.

export interface Ext {
  X: Fe;
  Y: Fe;
  Z: Fe;
  T: Fe;
}
export const ext = (): Ext => ({ X: fe(), Y: fe(), Z: fe(), T: fe() });

// scratch registers (single-threaded module state; no re-entrancy)
const rA = fe();
const rB = fe();
const rC = fe();
const rD = fe();
const rE = fe();
const rF = fe();
const rG = fe();
const rH = fe();

/** Q ← 2·Q (dbl-2008-hwcd with a = −1). */
export function extDouble(Q: Ext): void {
  feSqr(rA, Q.X);
  feSqr(rB, Q.Y);
  feSqr(rC, Q.Z);
  feAdd(rC, rC, rC);
  feAdd(rE, Q.X, Q.Y);
  feSqr(rE, rE);
  feSub(rE, rE, rA);
  feSub(rE, rE, rB); // E = 2XY
  feSub(rG, rB, rA); // G = −A + B
  feSub(rF, rG, rC); // F = G − C
  feSub(rH, rD.fill(0), rA);
  feSub(rH, rH, rB); // H = −A − B
  feMul(Q.X, rE, rF);
  feMul(Q.Y, rG, rH);
  feMul(Q.T, rE, rH);
  feMul(Q.Z, rF, rG);
}

/** Q ← Q + S for an extended S given in cached form (Y+X, Y−X, 2d·T, 2Z) (add-2008-hwcd-3). */
export function extAddCached(Q: Ext, ypx: Fe, ymx: Fe, t2d: Fe, z2: Fe): void {
  feSub(rA, Q.Y, Q.X);
  feMul(rA, rA, ymx);
  feAdd(rB, Q.Y, Q.X);
  feMul(rB, rB, ypx);
  feMul(rC, Q.T, t2d);
  feMul(rD, Q.Z, z2);
  feSub(rE, rB, rA);
  feSub(rF, rD, rC);
  feAdd(rG, rD, rC);
  feAdd(rH, rB, rA);
  feMul(Q.X, rE, rF);
  feMul(Q.Y, rG, rH);
  feMul(Q.T, rE, rH);
  feMul(Q.Z, rF, rG);
}

/** Q ← Q ± N for an affine N in Niels form (y+x, y−x, 2d·x·y): 7 multiplications. */
export function extAddNiels(Q: Ext, ypx: Fe, ymx: Fe, xy2d: Fe, negative: boolean): void {
  feSub(rA, Q.Y, Q.X);
  feMul(rA, rA, negative ? ypx : ymx);
  feAdd(rB, Q.Y, Q.X);
  feMul(rB, rB, negative ? ymx : ypx);
  feMul(rC, Q.T, xy2d);
  feAdd(rD, Q.Z, Q.Z);
  feSub(rE, rB, rA);
  if (negative) {
    feAdd(rF, rD, rC);
    feSub(rG, rD, rC);
  } else {
    feSub(rF, rD, rC);
    feAdd(rG, rD, rC);
  }
  feAdd(rH, rB, rA);
  feMul(Q.X, rE, rF);
  feMul(Q.Y, rG, rH);
  feMul(Q.T, rE, rH);
  feMul(Q.Z, rF, rG);
}

export function extFromNoble(p: EdPoint): Ext {
  const q = ext();
  feFromBigint(q.X, p.X);
  feFromBigint(q.Y, p.Y);
  feFromBigint(q.Z, p.Z);
  feFromBigint(q.T, p.T);
  return q;
}

/** Batch inversion of field elements in place (Montgomery's trick: 3 multiplications each + one inversion). */
export function batchInvert(zs: Fe[]): void {
  const n = zs.length;
  if (n === 0) return;
  const prefix: Fe[] = new Array(n);
  prefix[0] = feClone(zs[0]!);
  for (let i = 1; i < n; i++) {
    prefix[i] = fe();
    feMul(prefix[i]!, prefix[i - 1]!, zs[i]!);
  }
  const inv = fe();
  feInvert(inv, prefix[n - 1]!);
  const tmp = fe();
  for (let i = n - 1; i > 0; i--) {
    feMul(tmp, inv, prefix[i - 1]!); // 1/z_i
    feMul(inv, inv, zs[i]!);
    zs[i]!.set(tmp);
  }
  zs[0]!.set(inv);
}

// ---------------------------------------------------------------------------
// Per-R window tables

export interface PointTable {
  w: number;
  windows: number;
  half: number;
  /** [ypx, ymx, xy2d] per entry, index (j·half + k−1). */
  ypx: Fe[];
  ymx: Fe[];
  xy2d: Fe[];
}

export function windowCount(w: number): number {
  return Math.ceil(SCALAR_BITS / w) + 1;
}

/** Table of k·2^(w·j)·R for k = 1..2^(w−1), every window j, normalised to affine Niels form. */
export function buildPointTable(R: EdPoint, w: number): PointTable {
  const windows = windowCount(w);
  const half = 1 << (w - 1);
  const pts: Ext[] = [];
  let base = extFromNoble(R);
  const cYpX = fe();
  const cYmX = fe();
  const cT2d = fe();
  const cZ2 = fe();
  for (let j = 0; j < windows; j++) {
    feAdd(cYpX, base.Y, base.X);
    feSub(cYmX, base.Y, base.X);
    feMul(cT2d, base.T, D2);
    feAdd(cZ2, base.Z, base.Z);
    const cur = ext();
    cur.X.set(base.X);
    cur.Y.set(base.Y);
    cur.Z.set(base.Z);
    cur.T.set(base.T);
    pts.push(cloneExt(cur));
    for (let k = 2; k <= half; k++) {
      extAddCached(cur, cYpX, cYmX, cT2d, cZ2);
      pts.push(cloneExt(cur));
    }
    extDouble(cur); // 2·half·B_j = 2^w·B_j
    base = cur;
  }
  const zs = pts.map((p) => p.Z);
  batchInvert(zs);
  const ypx: Fe[] = [];
  const ymx: Fe[] = [];
  const xy2d: Fe[] = [];
  const x = fe();
  const y = fe();
  for (const p of pts) {
    feMul(x, p.X, p.Z); // Z now holds 1/Z
    feMul(y, p.Y, p.Z);
    const a = fe();
    const b = fe();
    const c = fe();
    feAdd(a, y, x);
    feSub(b, y, x);
    feMul(c, x, y);
    feMul(c, c, D2);
    ypx.push(a);
    ymx.push(b);
    xy2d.push(c);
  }
  return { w, windows, half, ypx, ymx, xy2d };
}

function cloneExt(p: Ext): Ext {
  return { X: feClone(p.X), Y: feClone(p.Y), Z: feClone(p.Z), T: feClone(p.T) };
}

/** Signed base-2^w digits of a (each in [−2^(w−1), 2^(w−1)]), little-endian. */
export function signedDigits(a: bigint, w: number): Int32Array {
  const windows = windowCount(w);
  const out = new Int32Array(windows);
  const mask = (1n << BigInt(w)) - 1n;
  const half = 1 << (w - 1);
  const full = 1 << w;
  let carry = 0;
  let x = a;
  for (let j = 0; j < windows; j++) {
    let v = Number(x & mask) + carry;
    x >>= BigInt(w);
    if (v > half) {
      v -= full;
      carry = 1;
    } else carry = 0;
    out[j] = v;
  }
  if (carry !== 0 || x !== 0n) throw new RangeError("scalar too large for the window table");
  return out;
}

/** Q ← a·R from the table and a's digits (projective). */
export function tableMul(table: PointTable, digits: Int32Array, Q: Ext, accumulate = false): void {
  if (!accumulate) {
    Q.X.fill(0);
    Q.Y.fill(0);
    Q.Y[0] = 1;
    Q.Z.fill(0);
    Q.Z[0] = 1;
    Q.T.fill(0);
  }
  const { half, ypx, ymx, xy2d } = table;
  for (let j = 0; j < digits.length; j++) {
    const d = digits[j]!;
    if (d === 0) continue;
    const idx = j * half + (d > 0 ? d : -d) - 1;
    extAddNiels(Q, ypx[idx]!, ymx[idx]!, xy2d[idx]!, d < 0);
  }
}

/** Encodes extended points with one shared inversion. */
export function encodeExtBatch(points: Ext[]): Uint8Array[] {
  batchInvert(points.map((q) => q.Z));
  const x = fe();
  const y = fe();
  const xb = new Uint8Array(32);
  return points.map((q) => {
    feMul(x, q.X, q.Z);
    feMul(y, q.Y, q.Z);
    const out = new Uint8Array(32);
    fePack(out, 0, y);
    fePack(xb, 0, x);
    out[31] = out[31]! | ((xb[0]! & 1) << 7);
    return out;
  });
}

let baseTable: PointTable | null = null;
const BASE_WINDOW = 8;

/**
 * B + m_k·G for many scalars m_k (subaddress spend keys D = B + m·G), with a
 * shared fixed-base table for G and one inversion; byte-identical to noble.
 */
export function batchBasePlusPoint(B: EdPoint, scalars: bigint[]): Uint8Array[] {
  baseTable ??= buildPointTable(Point.BASE, BASE_WINDOW);
  const b = extFromNoble(B);
  const cYpX = fe();
  const cYmX = fe();
  const cT2d = fe();
  const cZ2 = fe();
  feAdd(cYpX, b.Y, b.X);
  feSub(cYmX, b.Y, b.X);
  feMul(cT2d, b.T, D2);
  feAdd(cZ2, b.Z, b.Z);
  const pts = scalars.map((m) => {
    const Q = ext();
    tableMul(baseTable!, signedDigits(m, BASE_WINDOW), Q);
    extAddCached(Q, cYpX, cYmX, cT2d, cZ2);
    return Q;
  });
  return encodeExtBatch(pts);
}

/** Window width minimising table build + per-watch cost (in field multiplications). */
export function chooseWindow(accounts: number): number {
  let best = 4;
  let bestCost = Infinity;
  for (let w = 2; w <= 11; w++) {
    const n = windowCount(w) * (1 << (w - 1));
    // ~24 multiplication-equivalents per table point (addition, normalisation, storage), measured.
    const cost = n * 24 + accounts * (windowCount(w) * 7 + 40);
    if (cost < bestCost) {
      bestCost = cost;
      best = w;
    }
  }
  return best;
}

/** Signed base-16 digits, most significant first use: Q = 16·Q + d·R. */
const VAR_WINDOW = 4;

/**
 * 8·(a·R) encoded, for one scalar (no shared table): R8 = 8·R, a table of
 * k·R8 for k = 1..8, then fixed-window double-and-add over a's signed base-16
 * digits. About 4× faster than a generic bigint variable-base multiplication.
 */
export function mul8Single(R: EdPoint, a: bigint): Uint8Array {
  const R8 = extFromNoble(R);
  extDouble(R8);
  extDouble(R8);
  extDouble(R8);
  const cYpX = fe();
  const cYmX = fe();
  const cT2d = fe();
  const cZ2 = fe();
  feAdd(cYpX, R8.Y, R8.X);
  feSub(cYmX, R8.Y, R8.X);
  feMul(cT2d, R8.T, D2);
  feAdd(cZ2, R8.Z, R8.Z);
  const half = 1 << (VAR_WINDOW - 1);
  const pts: Ext[] = [];
  const cur = ext();
  cur.X.set(R8.X);
  cur.Y.set(R8.Y);
  cur.Z.set(R8.Z);
  cur.T.set(R8.T);
  pts.push(cloneExt(cur));
  for (let k = 2; k <= half; k++) {
    extAddCached(cur, cYpX, cYmX, cT2d, cZ2);
    pts.push(cloneExt(cur));
  }
  batchInvert(pts.map((p) => p.Z));
  const ypx: Fe[] = [];
  const ymx: Fe[] = [];
  const xy2d: Fe[] = [];
  const x = fe();
  const y = fe();
  for (const p of pts) {
    feMul(x, p.X, p.Z);
    feMul(y, p.Y, p.Z);
    const u = fe();
    const v = fe();
    const w = fe();
    feAdd(u, y, x);
    feSub(v, y, x);
    feMul(w, x, y);
    feMul(w, w, D2);
    ypx.push(u);
    ymx.push(v);
    xy2d.push(w);
  }
  const digits = signedDigits(a, VAR_WINDOW);
  const Q = ext();
  Q.Y[0] = 1;
  Q.Z[0] = 1;
  for (let j = digits.length - 1; j >= 0; j--) {
    if (j !== digits.length - 1) {
      extDouble(Q);
      extDouble(Q);
      extDouble(Q);
      extDouble(Q);
    }
    const d = digits[j]!;
    if (d !== 0) {
      const idx = (d > 0 ? d : -d) - 1;
      extAddNiels(Q, ypx[idx]!, ymx[idx]!, xy2d[idx]!, d < 0);
    }
  }
  return encodeExtBatch([Q])[0]!;
}

/** Encoded P − s·G (the candidate spend key of an output), with the shared fixed-base table for G. */
export function pointMinusBaseMul(P: EdPoint, s: bigint): Uint8Array {
  baseTable ??= buildPointTable(Point.BASE, BASE_WINDOW);
  const Q = ext();
  Q.Y[0] = 1;
  Q.Z[0] = 1;
  tableMul(baseTable, signedDigits(s, BASE_WINDOW), Q);
  // Q ← −Q, then Q + P.
  feSub(Q.X, fe(), Q.X);
  feSub(Q.T, fe(), Q.T);
  const p = extFromNoble(P);
  const cYpX = fe();
  const cYmX = fe();
  const cT2d = fe();
  const cZ2 = fe();
  feAdd(cYpX, p.Y, p.X);
  feSub(cYmX, p.Y, p.X);
  feMul(cT2d, p.T, D2);
  feAdd(cZ2, p.Z, p.Z);
  extAddCached(Q, cYpX, cYmX, cT2d, cZ2);
  return encodeExtBatch([Q])[0]!;
}

/** Encoded mask·G + amount·H (a RingCT commitment), with shared fixed-base tables for G and H. */
export function commitFast(mask: bigint, amount: bigint, H: EdPoint): Uint8Array {
  baseTable ??= buildPointTable(Point.BASE, BASE_WINDOW);
  hTable ??= buildPointTable(H, BASE_WINDOW);
  const Q = ext();
  Q.Y[0] = 1;
  Q.Z[0] = 1;
  if (mask !== 0n) tableMul(baseTable, signedDigits(mask, BASE_WINDOW), Q, true);
  if (amount !== 0n) tableMul(hTable, signedDigits(amount, BASE_WINDOW), Q, true);
  return encodeExtBatch([Q])[0]!;
}
let hTable: PointTable | null = null;

/**
 * The Montgomery u-coordinates u = (Z + Y)/(Z − Y) of extended points, as 32
 * canonical bytes, with one shared inversion (Montgomery's trick). The
 * identity (Z = Y) comes out as 32 zero bytes, as the X25519 ladder gives the
 * point at infinity; (0, −1) has Z + Y = 0 and gives zero bytes too. The
 * points' Z are overwritten.
 */
export function encodeMontgomeryBatch(points: Ext[]): Uint8Array[] {
  const den = points.map((q) => {
    const d = fe();
    feSub(d, q.Z, q.Y);
    return d;
  });
  // A zero denominator (the identity) would zero the shared product: leave it out of the batch.
  const zero = den.map((d) => {
    fePack(zeroCheck, 0, d);
    return zeroCheck.every((b) => b === 0);
  });
  batchInvert(den.filter((_, i) => !zero[i]));
  const u = fe();
  return points.map((q, i) => {
    const out = new Uint8Array(32);
    if (zero[i]) return out;
    feAdd(u, q.Z, q.Y);
    feMul(u, u, den[i]!);
    fePack(out, 0, u);
    return out;
  });
}
const zeroCheck = new Uint8Array(32);
