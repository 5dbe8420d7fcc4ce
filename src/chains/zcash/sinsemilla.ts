/**
 * Sinsemilla hash and commitments over Pallas (protocol spec §5.4.1.9, §5.4.8.4).
 * The lookup table S(j) is filled lazily: a derivation needs at most ~51 of
 * the 1024 entries, and each costs one GroupHash^P.
 */
import { asciiBytes, u32le } from "./bytes.js";
import { Fp, PallasPoint, pallasExtract, pallasGroupHash, pallasMul } from "./pallas.js";

const K = 10;
const MAX_CHUNKS = 253;

const sTable: (PallasPoint | undefined)[] = new Array(1 << K);
function S(j: number): PallasPoint {
  let p = sTable[j];
  if (!p) {
    p = pallasGroupHash("z.cash:SinsemillaS", u32le(j));
    sTable[j] = p;
  }
  return p;
}

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
