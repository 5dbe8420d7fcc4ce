/**
 * FF1-AES-256 specialised to Zcash diversifiers (NIST SP 800-38G, radix 2,
 * n = 88 bits, empty tweak, 10 rounds): d_j = LEBS2OSP_88(FF1.Encrypt(dk, I2LEBSP_88(j))).
 * Half-blocks are kept as their FF1 numeral value NUM(·), which reads the bit
 * list most-significant-first in list order; since the list comes from
 * I2LEBSP (LSB of j first), NUM of a half is that half's 44 bits reversed.
 */
import { createCipheriv, type Cipher } from "node:crypto";

const HALF = 44;
const HALF_MASK = (1n << 44n) - 1n;
export const DIVERSIFIER_INDEX_LIMIT = 1n << 88n;

// P = [1, 2, 1] ‖ radix (3 bytes) ‖ rounds ‖ u mod 256 ‖ n (4 bytes) ‖ t (4 bytes)
const P = Uint8Array.of(1, 2, 1, 0, 0, 2, 10, HALF, 0, 0, 0, 88, 0, 0, 0, 0);

function reverseBits44(x: bigint): bigint {
  let r = 0n;
  let v = x;
  for (let i = 0; i < HALF; i++) {
    r = (r << 1n) | (v & 1n);
    v >>= 1n;
  }
  return r;
}

class Ff1Key {
  private readonly aes: Cipher;
  private readonly encP: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error("FF1-AES-256 key must be 32 bytes");
    this.aes = createCipheriv("aes-256-ecb", key, null);
    this.aes.setAutoPadding(false);
    this.encP = this.block(P);
  }

  private block(b: Uint8Array): Uint8Array {
    return this.aes.update(b);
  }

  /** Round function: first 12 bytes of CBC-MAC(P ‖ Q) as a big-endian integer. */
  round(i: number, num: bigint): bigint {
    const q = new Uint8Array(16);
    q[9] = i;
    let v = num;
    for (let k = 15; k >= 10; k--) {
      q[k] = Number(v & 0xffn);
      v >>= 8n;
    }
    for (let k = 0; k < 16; k++) q[k] ^= this.encP[k];
    const r = this.block(q);
    let y = 0n;
    for (let k = 0; k < 12; k++) y = (y << 8n) | BigInt(r[k]);
    return y;
  }
}

function toIndexBytes(j: bigint): Uint8Array {
  const out = new Uint8Array(11);
  let v = j;
  for (let i = 0; i < 11; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function fromIndexBytes(d: Uint8Array): bigint {
  let x = 0n;
  for (let i = 10; i >= 0; i--) x = (x << 8n) | BigInt(d[i]);
  return x;
}

/** A diversifier key bound to its AES key schedule, for deriving many diversifiers. */
export class DiversifierKey {
  private readonly ff1: Ff1Key;
  constructor(dk: Uint8Array) {
    this.ff1 = new Ff1Key(dk);
  }

  /** d_j (11 bytes) for diversifier index j ∈ [0, 2^88). */
  diversifier(j: bigint): Uint8Array {
    if (j < 0n || j >= DIVERSIFIER_INDEX_LIMIT) throw new Error("diversifier index out of range");
    let a = reverseBits44(j & HALF_MASK);
    let b = reverseBits44(j >> 44n);
    for (let i = 0; i < 10; i++) {
      const c = (a + this.ff1.round(i, b)) & HALF_MASK;
      a = b;
      b = c;
    }
    return toIndexBytes(reverseBits44(a) | (reverseBits44(b) << 44n));
  }

  /** The index j with d_j = d (FF1 decryption); every 11-byte string has exactly one. */
  index(d: Uint8Array): bigint {
    if (d.length !== 11) throw new Error("diversifier must be 11 bytes");
    const x = fromIndexBytes(d);
    let a = reverseBits44(x & HALF_MASK);
    let b = reverseBits44(x >> 44n);
    for (let i = 9; i >= 0; i--) {
      const c = (b - this.ff1.round(i, a)) & HALF_MASK;
      b = a;
      a = c;
    }
    return reverseBits44(a) | (reverseBits44(b) << 44n);
  }
}

export const ff1Diversifier = (dk: Uint8Array, j: bigint): Uint8Array => new DiversifierKey(dk).diversifier(j);
export const ff1DiversifierIndex = (dk: Uint8Array, d: Uint8Array): bigint => new DiversifierKey(dk).index(d);
