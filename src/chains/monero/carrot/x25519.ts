/**
 * X25519 as Carrot uses it: x-only Montgomery-ladder scalar multiplication
 * WITHOUT clamping, and the Edwards→Montgomery map ConvertPointE.
 *
 * Carrot's ECDH is s_sr = k_v · D_e on Curve25519 with the wallet's existing
 * private view key k_v (< ℓ). RFC 7748 X25519 clamps the scalar (clears the
 * three low bits, sets bit 254), which would change k_v, so the reference uses
 * mx25519 with MX25519_UNCLAMP_ALL (monero-project/monero PR #9559 @ c7b6ee45,
 * src/crypto/x25519.cpp x25519_scmul_key_unclamped; tevador/mx25519 @ 2c45ac02,
 * src/portable/scalarmult.c): the scalar's bits 0..254 are used as they are
 * (bit 255 is ignored), the u-coordinate's bit 255 is ignored and a value ≥ p
 * is taken mod p, and the point at infinity comes out as u = 0 (no error).
 * @noble/curves' x25519 clamps and cannot be used here.
 *
 * The ladder runs on the scanner's 12-limb field (field25519.ts). It is
 * variable-time in the scalar's bits (reference swaps, not constant-time
 * conditional swaps), like the rest of the server-side scanner.
 *
 * Many scalars against one u (a transaction's D_e against every watch's k_v)
 * take the Edwards side instead (x25519UnclampedMany): u is mapped to an
 * ed25519 point once, expanded into a window table, and each k·P costs a
 * table multiplication; the results are converted back with one inversion.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { mulBase, type EdPoint } from "../crypto.js";
import { buildPointTable, chooseWindow, encodeMontgomeryBatch, ext, signedDigits, tableMul, type Ext } from "../edwards-fast.js";
import { fe, feAdd, feFromBigint, feInvert, feMul, fePack, feSqr, feSub, feToBigint, type Fe } from "../field25519.js";

const Fp = ed25519.Point.Fp;
const MASK_255 = (1n << 255n) - 1n;
/** RFC 7748 a24 = (486662 − 2) / 4, used as z_2 = E·(AA + a24·E). */
const A24 = feFromBigint(fe(), 121665n);

/** The scalar's bits 0..254, least significant first. */
function scalarBits(k: bigint): Uint8Array {
  const bits = new Uint8Array(255);
  let v = k & MASK_255;
  for (let i = 0; i < 255 && v !== 0n; i++) {
    bits[i] = Number(v & 1n);
    v >>= 1n;
  }
  return bits;
}

/** One ladder step on (x2:z2), (x3:z3) with difference x1 (RFC 7748 §5), in place. */
function ladderStep(x1: Fe, x2: Fe, z2: Fe, x3: Fe, z3: Fe, t: Fe[]): void {
  const [a, aa, b, bb, e, c, d] = t as [Fe, Fe, Fe, Fe, Fe, Fe, Fe];
  feAdd(a, x2, z2);
  feSqr(aa, a);
  feSub(b, x2, z2);
  feSqr(bb, b);
  feSub(e, aa, bb);
  feAdd(c, x3, z3);
  feSub(d, x3, z3);
  feMul(d, d, a); // DA
  feMul(c, c, b); // CB
  feAdd(x3, d, c);
  feSqr(x3, x3);
  feSub(z3, d, c);
  feSqr(z3, z3);
  feMul(z3, z3, x1);
  feMul(x2, aa, bb);
  feMul(z2, e, A24);
  feAdd(z2, z2, aa);
  feMul(z2, z2, e);
}

/**
 * k · u on Curve25519, x-only, unclamped (mx25519_scmul_key_unclamped with
 * MX25519_UNCLAMP_ALL). Returns the 32-byte canonical u-coordinate; the point
 * at infinity (also every low-order input multiplied into it) gives 32 zero bytes.
 */
export function x25519Unclamped(k: bigint, u: Uint8Array): Uint8Array {
  if (u.length !== 32) throw new RangeError("an X25519 u-coordinate is 32 bytes");
  const x1 = feFromBigint(fe(), bytesToNumberLE(u) & MASK_255);
  let x2 = feFromBigint(fe(), 1n);
  let z2 = fe().fill(0);
  let x3 = fe();
  x3.set(x1);
  let z3 = feFromBigint(fe(), 1n);
  const scratch = [fe(), fe(), fe(), fe(), fe(), fe(), fe()];
  const bits = scalarBits(k);
  let swap = 0;
  for (let i = 254; i >= 0; i--) {
    const bit = bits[i]!;
    if (swap ^ bit) [x2, x3, z2, z3] = [x3, x2, z3, z2];
    swap = bit;
    ladderStep(x1, x2, z2, x3, z3, scratch);
  }
  if (swap) [x2, z2] = [x3, z3];
  const out = new Uint8Array(32);
  if (feToBigint(z2) === 0n) return out;
  const inv = fe();
  feInvert(inv, z2);
  feMul(x2, x2, inv);
  fePack(out, 0, x2);
  return out;
}

/**
 * ConvertPointE: the Montgomery u = (1 + y)/(1 − y) = (Z + Y)/(Z − Y) of an
 * Edwards point (crypto-ops.c edwardsYZ_to_x25519). Null for the identity
 * (y = 1), where the reference fails.
 */
export function edwardsToMontgomery(P: EdPoint): Uint8Array | null {
  const den = Fp.sub(P.Z, P.Y);
  if (Fp.is0(den)) return null;
  return numberToBytesLE(Fp.mul(Fp.add(P.Z, P.Y), Fp.inv(den)), 32);
}

/**
 * d · B for the X25519 base point u = 9 (x25519_scmul_base_unclamped), for
 * 0 ≤ d < ℓ: the u of d·G on the Edwards side, which is the same point; the
 * identity (d = 0) gives 32 zero bytes as the ladder does.
 */
export function x25519BaseUnclamped(d: bigint): Uint8Array {
  return edwardsToMontgomery(mulBase(d)) ?? new Uint8Array(32);
}

const MAX_TABLE_SCALAR = 1n << 253n; // signedDigits' range for the window tables

/**
 * An ed25519 point whose Montgomery u-coordinate is u (read as the ladder
 * reads it: bit 255 ignored, taken mod p), or null when there is none: u = −1
 * (y would be infinite) and u on the quadratic twist (x² = (y² − 1)/(d·y² + 1)
 * is not a square). Of the two points ±P with that u, the one with x's sign
 * bit clear; u(k·(−P)) = u(k·P) for every k, so either serves. Torsion
 * components are kept (u = 0 gives (0, −1), of order 2).
 */
export function montgomeryToEdwards(u: Uint8Array): EdPoint | null {
  if (u.length !== 32) return null;
  const x = Fp.create(bytesToNumberLE(u) & MASK_255);
  const den = Fp.add(x, Fp.ONE);
  if (Fp.is0(den)) return null;
  const y = Fp.mul(Fp.sub(x, Fp.ONE), Fp.inv(den));
  try {
    return ed25519.Point.fromBytes(numberToBytesLE(y, 32), false);
  } catch {
    return null; // not on the curve: a twist point
  }
}

export interface X25519ManyOptions {
  /** Window width of the shared table (default: edwards-fast chooseWindow for the number of scalars). */
  window?: number;
  /** signedDigits(scalars[i], w), when the caller caches them (each watch's k_v is reused for every transaction). */
  digits?: (index: number, w: number) => Int32Array;
}

/**
 * x25519Unclamped(k, u) for every k in `scalars`, byte for byte, sharing the
 * work for u: when u is the u-coordinate of a curve point P, one window table
 * of P (no cofactor clearing: k·P for the full integer k, as the ladder
 * computes it, torsion included), a table multiplication per scalar, and one
 * batch inversion for all the u = (Z + Y)/(Z − Y). The ladder itself is used
 * for a u with no curve point (u = −1, twist points) and for a scalar outside
 * the table's range [0, 2^253) (a k_v < ℓ never is).
 */
export function x25519UnclampedMany(u: Uint8Array, scalars: readonly bigint[], opts: X25519ManyOptions = {}): Uint8Array[] {
  if (u.length !== 32) throw new RangeError("an X25519 u-coordinate is 32 bytes");
  const point = montgomeryToEdwards(u);
  if (!point) return scalars.map((k) => x25519Unclamped(k, u));
  const inRange = scalars.map((k) => k >= 0n && k < MAX_TABLE_SCALAR);
  const count = inRange.filter(Boolean).length;
  if (count === 0) return scalars.map((k) => x25519Unclamped(k, u));
  const w = opts.window ?? chooseWindow(count);
  const table = buildPointTable(point, w);
  const products: Ext[] = [];
  scalars.forEach((k, i) => {
    if (!inRange[i]) return;
    const Q = ext();
    tableMul(table, opts.digits ? opts.digits(i, w) : signedDigits(k, w), Q);
    products.push(Q);
  });
  const encoded = encodeMontgomeryBatch(products);
  let next = 0;
  return scalars.map((k, i) => (inRange[i] ? encoded[next++]! : x25519Unclamped(k, u)));
}
