/**
 * Pallas (Orchard's curve) built from noble's generic Weierstrass code, plus
 * Zcash's point encoding repr_P and GroupHash^P (RFC 9380 hash-to-curve with
 * BLAKE2b-512, simplified SWU onto iso-Pallas and the 3-isogeny).
 * @noble/curves 2.x does not export Pallas, so the parameters live here.
 */
import { weierstrass } from "@noble/curves/abstract/weierstrass.js";
import { Field } from "@noble/curves/abstract/modular.js";
import { hash_to_field, isogenyMap, mapToCurveSimpleSWU } from "@noble/curves/abstract/hash-to-curve.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { asciiBytes, bigintToLeBytes, leBytesToBigint } from "./bytes.js";
import { PALLAS_P, PALLAS_Q } from "./prf.js";

export const Fp = Field(PALLAS_P);

export const PallasPoint = weierstrass({ p: PALLAS_P, n: PALLAS_Q, h: 1n, a: 0n, b: 5n, Gx: PALLAS_P - 1n, Gy: 2n });
export type PallasPoint = InstanceType<typeof PallasPoint>;

/** repr_P: x little-endian with the parity of y in bit 255; the identity is 32 zero bytes. */
export function pallasToBytes(p: PallasPoint): Uint8Array {
  if (p.is0()) return new Uint8Array(32);
  const { x, y } = p.toAffine();
  return encodeXY(x, y);
}

function encodeXY(x: bigint, y: bigint): Uint8Array {
  const out = bigintToLeBytes(x, 32);
  if (y & 1n) out[31] |= 0x80;
  return out;
}

/** abst_P: decodes repr_P, or null when not the encoding of a point. */
export function pallasFromBytes(bytes: Uint8Array): PallasPoint | null {
  if (bytes.length !== 32) return null;
  const sign = bytes[31] >> 7;
  const xb = bytes.slice();
  xb[31] &= 0x7f;
  const x = leBytesToBigint(xb);
  if (x === 0n && sign === 0) return PallasPoint.ZERO;
  if (x >= PALLAS_P) return null;
  const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 5n);
  let y: bigint;
  try {
    y = Fp.sqrt(rhs);
  } catch {
    return null;
  }
  if (Number(y & 1n) !== sign) y = Fp.neg(y);
  if (Number(y & 1n) !== sign) return null; // y = 0 cannot carry sign 1
  return PallasPoint.fromAffine({ x, y });
}

/** Extract_P: the x-coordinate (0 for the identity), as an integer. */
export const pallasExtract = (p: PallasPoint): bigint => (p.is0() ? 0n : p.toAffine().x);

/** Scalar multiplication that accepts 0 and reduces mod q. */
export function pallasMul(p: PallasPoint, k: bigint): PallasPoint {
  const s = ((k % PALLAS_Q) + PALLAS_Q) % PALLAS_Q;
  return s === 0n ? PallasPoint.ZERO : p.multiply(s);
}

// iso-Pallas: y^2 = x^3 + A·x + B, 3-isogenous to Pallas (zcash-test-vectors orchard/iso_pallas.py).
const ISO_A = 0x18354a2eb0ea8c9c49be2d7258370742b74134581a27a59f92bb4b0b657a014bn;
const ISO_B = 1265n;
const mapToIsoPallas = mapToCurveSimpleSWU(Fp, { A: ISO_A, B: ISO_B, Z: Fp.neg(13n) });

const C = [
  0n,
  0x0e38e38e38e38e38e38e38e38e38e38e4081775473d8375b775f6034aaaaaaabn,
  0x3509afd51872d88e267c7ffa51cf412a0f93b82ee4b994958cf863b02814fb76n,
  0x17329b9ec525375398c7d7ac3d98fd13380af066cfeb6d690eb64faef37ea4f7n,
  0x1c71c71c71c71c71c71c71c71c71c71c8102eea8e7b06eb6eebec06955555580n,
  0x1d572e7ddc099cff5a607fcce0494a799c434ac1c96b6980c47f2ab668bcd71fn,
  0x325669becaecd5d11d13bf2a7f22b105b4abf9fb9a1fc81c2aa3af1eae5b6604n,
  0x1a12f684bda12f684bda12f684bda12f7642b01ad461bad25ad985b5e38e38e4n,
  0x1a84d7ea8c396c47133e3ffd28e7a09507c9dc17725cca4ac67c31d8140a7dbbn,
  0x3fb98ff0d2ddcadd303216cce1db9ff11765e924f745937802e2be87d225b234n,
  0x025ed097b425ed097b425ed097b425ed0ac03e8e134eb3e493e53ab371c71c4fn,
  0x0c02c5bcca0e6b7f0790bfb3506defb65941a3a4a97aa1b35a28279b1d1b42aen,
  0x17033d3c60c68173573b3d7f7d681310d976bbfabbc5661d4d90ab820b12320an,
  0x40000000000000000000000000000000224698fc094cf91b992d30ecfffffde5n,
];
// noble wants ascending coefficients: [xNum, xDen, yNum, yDen].
const isoToPallas = isogenyMap(Fp, [
  [C[4], C[3], C[2], C[1]],
  [C[6], C[5], 1n],
  [C[10], C[9], C[8], C[7]],
  [C[13], C[12], C[11], 1n],
]);

/** Simplified SWU onto iso-Pallas (before the isogeny), encoded like repr_P. Exposed for vectors. */
export function mapToIsoPallasBytes(u: bigint): Uint8Array {
  const { x, y } = mapToIsoPallas(Fp.create(u));
  return encodeXY(x, y);
}

function mapToPallas(u: bigint): PallasPoint {
  const iso = mapToIsoPallas(u);
  const { x, y } = isoToPallas(iso.x, iso.y);
  if (x === 0n && y === 0n) return PallasPoint.ZERO;
  const p = PallasPoint.fromAffine({ x, y });
  p.assertValidity();
  return p;
}

const H2C_SUFFIX = "-pallas_XMD:BLAKE2b_SSWU_RO_";

/** GroupHash^P(D, M) (protocol spec §5.4.9.8). D is an ASCII domain such as "z.cash:Orchard-gd". */
export function pallasGroupHash(domain: string | Uint8Array, msg: Uint8Array): PallasPoint {
  const d = typeof domain === "string" ? asciiBytes(domain) : domain;
  const dst = new Uint8Array(d.length + H2C_SUFFIX.length);
  dst.set(d);
  dst.set(asciiBytes(H2C_SUFFIX), d.length);
  const [[u0], [u1]] = hash_to_field(msg, 2, { DST: dst, p: PALLAS_P, m: 1, k: 256, expand: "xmd", hash: blake2b });
  return mapToPallas(u0).add(mapToPallas(u1));
}

let orchardBases: { G: PallasPoint; K: PallasPoint } | undefined;

/** Orchard fixed bases G (spend authorisation) and K (nullifier). */
export function orchardBasesGK(): { G: PallasPoint; K: PallasPoint } {
  if (!orchardBases) {
    const G = pallasGroupHash("z.cash:Orchard", asciiBytes("G"));
    const K = pallasGroupHash("z.cash:Orchard", asciiBytes("K"));
    G.precompute(4, false);
    orchardBases = { G, K };
  }
  return orchardBases;
}

/** DiversifyHash^Orchard(d): GroupHash^P("z.cash:Orchard-gd", d), or of "" when that is the identity. */
export function orchardDiversifyHash(d: Uint8Array): PallasPoint {
  const p = pallasGroupHash("z.cash:Orchard-gd", d);
  return p.is0() ? pallasGroupHash("z.cash:Orchard-gd", new Uint8Array(0)) : p;
}
