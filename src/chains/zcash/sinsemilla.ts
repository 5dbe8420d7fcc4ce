/**
 * Sinsemilla hash and commitments over Pallas (protocol spec §5.4.1.9, §5.4.8.4).
 * The lookup table S(j) ships precomputed (sinsemilla-s.ts): computing it costs
 * one GroupHash^P per entry (~1 s in all), which a first derivation should not pay.
 */
import { asciiBytes, hexToBytes, leBytesToBigint, u32le } from "./bytes.js";
import { SINSEMILLA_S_XY } from "./sinsemilla-s.js";
import { Fp, PallasPoint, pallasExtract, pallasGroupHash, pallasMul } from "./pallas.js";

const K = 10;
const MAX_CHUNKS = 253;

const sTable: (PallasPoint | undefined)[] = new Array(1 << K);

/** S(j) from the generated table (checked against GroupHash^P in the tests), decoded on first use. */
function S(j: number): PallasPoint {
  let p = sTable[j];
  if (!p) {
    const xy = SINSEMILLA_S_XY[j];
    const x = leBytesToBigint(hexToBytes(xy.slice(0, 64)));
    const y = leBytesToBigint(hexToBytes(xy.slice(64)));
    // A cheap guard against a corrupted table: the point must satisfy y² = x³ + 5.
    if (!Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), 5n))) throw new Error(`Sinsemilla table entry ${j} is not on Pallas`);
    p = PallasPoint.fromAffine({ x, y });
    sTable[j] = p;
  }
  return p;
}

/** S(j) computed from its definition, GroupHash^P("z.cash:SinsemillaS", I2LEOSP_32(j)). */
export const sinsemillaSFromDefinition = (j: number): PallasPoint => pallasGroupHash("z.cash:SinsemillaS", u32le(j));
/** S(j) as used by the hash (from the table). */
export const sinsemillaS = (j: number): PallasPoint => S(j);

const qCache = new Map<string, PallasPoint>();
function Q(domain: string): PallasPoint {
  let p = qCache.get(domain);
  if (!p) {
    p = pallasGroupHash("z.cash:SinsemillaQ", asciiBytes(domain));
    qCache.set(domain, p);
  }
  return p;
}

const rCache = new Map<string, PallasPoint>();
function R(domain: string): PallasPoint {
  let p = rCache.get(domain);
  if (!p) {
    p = pallasGroupHash(domain + "-r", new Uint8Array(0));
    p.precompute(4, false); // fixed per domain: CommitIvk multiplies it once per key
    rCache.set(domain, p);
  }
  return p;
}

/** x(a) = x(b) on projective (X:Y:Z) points, without an inversion. */
function sameX(a: PallasPoint, b: PallasPoint): boolean {
  return Fp.eql(Fp.mul(a.X, b.Z), Fp.mul(b.X, a.Z));
}

/**
 * SinsemillaHashToPoint(D, M) with M a list of bits (0/1). Returns null (⊥)
 * on the incomplete-addition exceptional cases, as the spec does.
 */
export function sinsemillaHashToPoint(domain: string, bits: readonly number[]): PallasPoint | null {
  const n = Math.ceil(bits.length / K);
  if (n > MAX_CHUNKS) throw new Error("Sinsemilla message too long");
  let acc = Q(domain);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let j = 0; j < K; j++) {
      const bit = bits[i * K + j] ?? 0;
      if (bit !== 0 && bit !== 1) throw new Error("Sinsemilla message must be bits");
      m |= bit << j;
    }
    const s = S(m);
    if (acc.is0() || sameX(acc, s)) return null;
    const t = acc.add(s);
    if (t.is0() || sameX(t, acc)) return null;
    acc = t.add(acc);
  }
  return acc;
}

/** SinsemillaHash = Extract_P(HashToPoint); null on ⊥. */
export function sinsemillaHash(domain: string, bits: readonly number[]): bigint | null {
  const p = sinsemillaHashToPoint(domain, bits);
  return p ? pallasExtract(p) : null;
}

/** SinsemillaCommit_r(D, M) = HashToPoint(D‖"-M", M) + [r]·GroupHash^P(D‖"-r", ""). */
export function sinsemillaCommit(domain: string, bits: readonly number[], r: bigint): PallasPoint | null {
  const h = sinsemillaHashToPoint(domain + "-M", bits);
  if (!h) return null;
  return h.add(pallasMul(R(domain), r));
}

export function sinsemillaShortCommit(domain: string, bits: readonly number[], r: bigint): bigint | null {
  const c = sinsemillaCommit(domain, bits, r);
  return c ? pallasExtract(c) : null;
}
