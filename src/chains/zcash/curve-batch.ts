/**
 * Many scalars times one point, for trial decryption: every output's ephemeral
 * key is multiplied by the incoming viewing key of every watch, so the work
 * that depends only on the point (a table of its multiples) is done once per
 * output and shared by all keys.
 *
 * Method: signed fixed windows of w bits. For a point Q the table holds
 * d·2^(w·i)·Q for every window i and 1 ≤ d ≤ 2^(w−1), in affine coordinates of
 * a short Weierstrass curve y² = x³ + a·x + b. A scalar is then a sum of one
 * table entry per window, with no doublings. All scalars advance window by
 * window together, so the affine additions of one window share a single field
 * inversion (Montgomery's trick): about 6 field multiplications per addition.
 * The rare exceptional additions (equal x: a doubling, or a sum that is the
 * identity) are done one by one.
 *
 * Pallas is short Weierstrass already; Jubjub points are carried over to the
 * Weierstrass model of its Montgomery form and back (batch-decrypt.ts). Field elements are bigints kept in [0, p).
 */

export interface WeierstrassCurve {
  /** Base field modulus. */
  readonly p: bigint;
  /** Coefficient a of y² = x³ + a·x + b (only doublings use it). */
  readonly a: bigint;
}

/** An affine point; null is the identity. */
export type Affine = { x: bigint; y: bigint } | null;

/** x⁻¹ mod p for x ≢ 0 (extended Euclid). */
export function modInv(x: bigint, p: bigint): bigint {
  let a = x % p;
  if (a < 0n) a += p;
  if (a === 0n) throw new RangeError("inverse of zero");
  let b = p;
  let u = 1n;
  let v = 0n;
  while (a !== 0n) {
    const q = b / a;
    const r = b - q * a;
    b = a;
    a = r;
    const t = v - q * u;
    v = u;
    u = t;
  }
  // b = gcd = 1, v·x ≡ 1
  v %= p;
  return v < 0n ? v + p : v;
}

/** Inverts every element of xs in place (all non-zero mod p) with one inversion. */
export function batchInvert(xs: bigint[], p: bigint, n = xs.length): void {
  if (n === 0) return;
  const prefix: bigint[] = new Array(n);
  let acc = xs[0]!;
  prefix[0] = acc;
  for (let i = 1; i < n; i++) {
    acc = (acc * xs[i]!) % p;
    prefix[i] = acc;
  }
  let inv = modInv(acc, p);
  for (let i = n - 1; i > 0; i--) {
    const xi = xs[i]!;
    xs[i] = (inv * prefix[i - 1]!) % p;
    inv = (inv * xi) % p;
  }
  xs[0] = inv;
}

/** P + Q (or 2P) in affine coordinates, one at a time (the exceptional path). */
export function addAffine(c: WeierstrassCurve, P: Affine, Q: Affine): Affine {
  if (P === null) return Q;
  if (Q === null) return P;
  const { p } = c;
  let lam: bigint;
  if (P.x === Q.x) {
    if (P.y !== Q.y || P.y === 0n) return null;
    lam = ((((3n * P.x * P.x + c.a) % p) * modInv(2n * P.y, p)) % p + p) % p;
  } else {
    lam = ((((Q.y - P.y) % p) * modInv(Q.x - P.x, p)) % p + p) % p;
  }
  let x = (lam * lam - P.x - Q.x) % p;
  if (x < 0n) x += p;
  let y = (lam * (P.x - x) - P.y) % p;
  if (y < 0n) y += p;
  return { x, y };
}

/**
 * Batched affine additions: for k < n, (x1[k], y1[k]) ← (x1[k], y1[k]) + (x2[k], y2[k]),
 * or the doubling of (x1[k], y1[k]) when dbl[k] is 1. The caller guarantees no
 * exceptional case (x1 ≠ x2 for additions, y1 ≠ 0 for doublings). `den` is scratch of length ≥ n.
 */
function batchAdd(c: WeierstrassCurve, n: number, x1: bigint[], y1: bigint[], x2: bigint[], y2: bigint[], dbl: Uint8Array | null, den: bigint[]): void {
  const { p } = c;
  for (let k = 0; k < n; k++) {
    let d = dbl !== null && dbl[k] === 1 ? 2n * y1[k]! : x2[k]! - x1[k]!;
    if (d < 0n) d += p;
    den[k] = d;
  }
  batchInvert(den, p, n);
  for (let k = 0; k < n; k++) {
    const ax = x1[k]!;
    const ay = y1[k]!;
    const lam = dbl !== null && dbl[k] === 1 ? (((3n * ax * ax + c.a) % p) * den[k]!) % p : ((y2[k]! - ay) * den[k]!) % p;
    const ox = dbl !== null && dbl[k] === 1 ? ax : x2[k]!;
    let x = (lam * lam - ax - ox) % p;
    if (x < 0n) x += p;
    let y = (lam * (ax - x) - ay) % p;
    if (y < 0n) y += p;
    x1[k] = x;
    y1[k] = y;
  }
}

/**
 * Batched affine additions without doublings, the hot loop: (x1[k], y1[k]) += (x2[k], y2[k])
 * for k < n, x1[k] ≠ x2[k]. One pass builds the running products of the
 * denominators, the backward pass peels one inverse off per element and
 * finishes its addition at once. `den` and `prefix` are scratch of length ≥ n.
 */
function batchAddDistinct(p: bigint, n: number, x1: bigint[], y1: bigint[], x2: bigint[], y2: bigint[], den: bigint[], prefix: bigint[]): void {
  let acc = 1n;
  for (let k = 0; k < n; k++) {
    let d = x2[k]! - x1[k]!;
    if (d < 0n) d += p;
    den[k] = d;
    acc = k === 0 ? d : (acc * d) % p;
    prefix[k] = acc;
  }
  let inv = modInv(acc, p);
  for (let k = n - 1; k >= 0; k--) {
    let invk = inv;
    if (k > 0) {
      invk = (inv * prefix[k - 1]!) % p;
      inv = (inv * den[k]!) % p;
    }
    const ax = x1[k]!;
    const ay = y1[k]!;
    const lam = ((y2[k]! - ay) * invk) % p;
    let x = (lam * lam - ax - x2[k]!) % p;
    if (x < 0n) x += p;
    let y = (lam * (ax - x) - ay) % p;
    if (y < 0n) y += p;
    x1[k] = x;
    y1[k] = y;
  }
}

// ---------------------------------------------------------------------------
// Signed fixed-window recoding.

/** Number of windows for scalars below 2^bits (one more bit absorbs the final carry). */
export const windowCount = (bits: number, w: number): number => Math.ceil((bits + 1) / w);

/**
 * Signed digits of s (0 ≤ s < 2^bits) in base 2^w, each in [−2^(w−1), 2^(w−1)),
 * the last in [0, 2^(w−1)]: s = Σ d_i·2^(w·i).
 */
export function recode(s: bigint, bits: number, w: number): Int16Array {
  const n = windowCount(bits, w);
  const out = new Int16Array(n);
  const full = 1 << w;
  const half = full >> 1;
  const mask = BigInt(full - 1);
  const wb = BigInt(w);
  let carry = 0;
  for (let i = 0; i < n; i++) {
    let d = Number(s & mask) + carry;
    s >>= wb;
    // The last window keeps d ≤ 2^(w−1) (the table has that entry): no carry out.
    if (d >= half && i + 1 < n) {
      d -= full;
      carry = 1;
    } else carry = 0;
    out[i] = d;
  }
  if (s !== 0n || carry !== 0) throw new RangeError("scalar wider than the recoding");
  return out;
}

/**
 * The window with the least estimated field work for `count` scalars of
 * `bits` bits: (windows − 1) additions per scalar plus the table, 2^(w−1)
 * entries per window, shared by all scalars.
 */
export function chooseWindow(count: number, bits: number): number {
  let best = 4;
  let bestCost = Infinity;
  for (let w = 4; w <= 12; w++) {
    const n = windowCount(bits, w);
    const cost = (n - 1) * count + n * (1 << (w - 1));
    if (cost < bestCost) {
      bestCost = cost;
      best = w;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Tables.

export interface FixedTable {
  readonly w: number;
  readonly windows: number;
  /** Entry (i, d) at i·2^(w−1) + d − 1. */
  readonly x: bigint[];
  readonly y: bigint[];
}

/**
 * The table of Q's multiples, given the window bases B_i = 2^(w·i)·Q in affine
 * form (none the identity, and Q of odd prime order larger than 2^w·windows so
 * that no entry is the identity).
 */
export function buildTable(c: WeierstrassCurve, bases: readonly { x: bigint; y: bigint }[], w: number): FixedTable {
  const windows = bases.length;
  const half = 1 << (w - 1);
  const x: bigint[] = new Array(windows * half);
  const y: bigint[] = new Array(windows * half);
  for (let i = 0; i < windows; i++) {
    x[i * half] = bases[i]!.x;
    y[i * half] = bases[i]!.y;
  }
  // Round by round: with entries 1..m known, entries m+1..2m are m·B + j·B (j < m) and 2·(m·B).
  const cap = windows * half;
  const ax: bigint[] = new Array(cap);
  const ay: bigint[] = new Array(cap);
  const bx: bigint[] = new Array(cap);
  const by: bigint[] = new Array(cap);
  const dbl = new Uint8Array(cap);
  const den: bigint[] = new Array(cap);
  const dest: number[] = new Array(cap);
  for (let m = 1; m < half; m *= 2) {
    let n = 0;
    for (let i = 0; i < windows; i++) {
      const base = i * half;
      for (let j = 1; j <= m && m + j <= half; j++) {
        ax[n] = x[base + m - 1]!;
        ay[n] = y[base + m - 1]!;
        bx[n] = x[base + j - 1]!;
        by[n] = y[base + j - 1]!;
        dbl[n] = j === m ? 1 : 0;
        dest[n] = base + m + j - 1;
        n++;
      }
    }
    batchAdd(c, n, ax, ay, bx, by, dbl, den);
    for (let k = 0; k < n; k++) {
      x[dest[k]!] = ax[k]!;
      y[dest[k]!] = ay[k]!;
    }
  }
  return { w, windows, x, y };
}

/**
 * Σ d_i·T(i) for every digit vector: the scalar multiples of the table's
 * point, in affine form (null for the identity). Digit vectors must have
 * exactly `table.windows` entries.
 */
export function multiplyMany(c: WeierstrassCurve, table: FixedTable, digits: readonly Int16Array[]): Affine[] {
  const { p } = c;
  const S = digits.length;
  const half = 1 << (table.w - 1);
  const accX: bigint[] = new Array(S).fill(0n);
  const accY: bigint[] = new Array(S).fill(0n);
  const isZero = new Uint8Array(S).fill(1);
  const ax: bigint[] = new Array(S);
  const ay: bigint[] = new Array(S);
  const bx: bigint[] = new Array(S);
  const by: bigint[] = new Array(S);
  const den: bigint[] = new Array(S);
  const prefix: bigint[] = new Array(S);
  const who = new Int32Array(S);
  for (let i = 0; i < table.windows; i++) {
    let n = 0;
    const base = i * half - 1;
    for (let j = 0; j < S; j++) {
      const d = digits[j]![i]!;
      if (d === 0) continue;
      const tx = table.x[base + (d < 0 ? -d : d)]!;
      let ty = table.y[base + (d < 0 ? -d : d)]!;
      if (d < 0 && ty !== 0n) ty = p - ty;
      if (isZero[j] === 1) {
        accX[j] = tx;
        accY[j] = ty;
        isZero[j] = 0;
        continue;
      }
      if (tx === accX[j]) {
        // Exceptional: a doubling or the identity; rare enough to do alone.
        const r = addAffine(c, { x: accX[j]!, y: accY[j]! }, { x: tx, y: ty });
        if (r === null) isZero[j] = 1;
        else {
          accX[j] = r.x;
          accY[j] = r.y;
        }
        continue;
      }
      ax[n] = accX[j]!;
      ay[n] = accY[j]!;
      bx[n] = tx;
      by[n] = ty;
      who[n] = j;
      n++;
    }
    if (n === 0) continue;
    batchAddDistinct(p, n, ax, ay, bx, by, den, prefix);
    for (let k = 0; k < n; k++) {
      const j = who[k]!;
      accX[j] = ax[k]!;
      accY[j] = ay[k]!;
    }
  }
  const out: Affine[] = new Array(S);
  for (let j = 0; j < S; j++) out[j] = isZero[j] === 1 ? null : { x: accX[j]!, y: accY[j]! };
  return out;
}
