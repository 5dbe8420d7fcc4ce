/**
 * BLAKE2b-256 of one 64-byte message with a 16-byte personalisation (RFC 7693),
 * the shape of KDF^Sapling and KDF^Orchard (shared secret ‖ ephemeral key):
 * a single compression of a single block, with the 64-bit words held as
 * 32-bit halves. For the batch trial decryption, where the hash runs once per
 * key and output; tests compare it with @noble/hashes.
 */

export const IV = Uint32Array.from([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab,
  0x137e2179, 0x5be0cd19,
]);

// Message word order per round (rounds 10 and 11 repeat 0 and 1).
export const SIGMA = Uint8Array.from([
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3, 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4, 7, 9, 3, 1, 13, 12,
  11, 14, 2, 6, 5, 10, 4, 0, 15, 8, 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13, 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9, 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6,
  3, 9, 2, 8, 11, 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10, 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5, 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0,
]);

const v = new Uint32Array(32);
const m = new Uint32Array(32);

/** The chaining value after the parameter block for a 32-byte digest, no key, this personalisation. */
export function kdfState(personalization: Uint8Array): Uint32Array {
  if (personalization.length !== 16) throw new RangeError("personalisation must be 16 bytes");
  const h = IV.slice();
  h[0]! ^= 0x01010020; // digest length 32, key length 0, fanout 1, depth 1
  for (let i = 0; i < 4; i++) {
    const w = personalization[4 * i]! | (personalization[4 * i + 1]! << 8) | (personalization[4 * i + 2]! << 16) | (personalization[4 * i + 3]! << 24);
    h[12 + i]! ^= w;
  }
  return h;
}

function G(a: number, b: number, c: number, d: number, x: number, y: number): void {
  // a += b + m[x]
  let lo = v[2 * a]! + v[2 * b]!;
  let hi = v[2 * a + 1]! + v[2 * b + 1]! + (lo / 0x100000000 >= 1 ? 1 : 0);
  lo >>>= 0;
  let lo2 = lo + m[2 * x]!;
  hi = (hi + m[2 * x + 1]! + (lo2 / 0x100000000 >= 1 ? 1 : 0)) >>> 0;
  lo = lo2 >>> 0;
  v[2 * a] = lo;
  v[2 * a + 1] = hi;
  // d = rotr64(d ^ a, 32)
  let dl = (v[2 * d]! ^ lo) >>> 0;
  let dh = (v[2 * d + 1]! ^ hi) >>> 0;
  v[2 * d] = dh;
  v[2 * d + 1] = dl;
  // c += d
  lo = v[2 * c]! + dh;
  hi = (v[2 * c + 1]! + dl + (lo / 0x100000000 >= 1 ? 1 : 0)) >>> 0;
  lo >>>= 0;
  v[2 * c] = lo;
  v[2 * c + 1] = hi;
  // b = rotr64(b ^ c, 24)
  let bl = v[2 * b]! ^ lo;
  let bh = v[2 * b + 1]! ^ hi;
  v[2 * b] = (bl >>> 24) | (bh << 8);
  v[2 * b + 1] = (bh >>> 24) | (bl << 8);
  // a += b + m[y]
  lo = v[2 * a]! + v[2 * b]!;
  hi = v[2 * a + 1]! + v[2 * b + 1]! + (lo / 0x100000000 >= 1 ? 1 : 0);
  lo >>>= 0;
  lo2 = lo + m[2 * y]!;
  hi = (hi + m[2 * y + 1]! + (lo2 / 0x100000000 >= 1 ? 1 : 0)) >>> 0;
  lo = lo2 >>> 0;
  v[2 * a] = lo;
  v[2 * a + 1] = hi;
  // d = rotr64(d ^ a, 16)
  dl = v[2 * d]! ^ lo;
  dh = v[2 * d + 1]! ^ hi;
  v[2 * d] = (dl >>> 16) | (dh << 16);
  v[2 * d + 1] = (dh >>> 16) | (dl << 16);
  // c += d
  lo = v[2 * c]! + v[2 * d]!;
  hi = (v[2 * c + 1]! + v[2 * d + 1]! + (lo / 0x100000000 >= 1 ? 1 : 0)) >>> 0;
  lo >>>= 0;
  v[2 * c] = lo;
  v[2 * c + 1] = hi;
  // b = rotr64(b ^ c, 63) = rotl64(b ^ c, 1)
  bl = v[2 * b]! ^ lo;
  bh = v[2 * b + 1]! ^ hi;
  v[2 * b] = (bl << 1) | (bh >>> 31);
  v[2 * b + 1] = (bh << 1) | (bl >>> 31);
}

/** BLAKE2b-256(personalisation; msg) for a 64-byte msg, into out (32 bytes). `state` comes from kdfState. */
export function kdf64(state: Uint32Array, msg: Uint8Array, out: Uint8Array = new Uint8Array(32)): Uint8Array {
  if (msg.length !== 64) throw new RangeError("message must be 64 bytes");
  for (let i = 0; i < 16; i++) m[i] = msg[4 * i]! | (msg[4 * i + 1]! << 8) | (msg[4 * i + 2]! << 16) | (msg[4 * i + 3]! << 24);
  m.fill(0, 16);
  v.set(state, 0);
  v.set(IV, 16);
  v[24]! ^= 64; // t = 64 bytes
  v[28]! ^= 0xffffffff; // last block
  v[29]! ^= 0xffffffff;
  for (let r = 0; r < 12; r++) {
    const s = 16 * (r % 10);
    G(0, 4, 8, 12, SIGMA[s]!, SIGMA[s + 1]!);
    G(1, 5, 9, 13, SIGMA[s + 2]!, SIGMA[s + 3]!);
    G(2, 6, 10, 14, SIGMA[s + 4]!, SIGMA[s + 5]!);
    G(3, 7, 11, 15, SIGMA[s + 6]!, SIGMA[s + 7]!);
    G(0, 5, 10, 15, SIGMA[s + 8]!, SIGMA[s + 9]!);
    G(1, 6, 11, 12, SIGMA[s + 10]!, SIGMA[s + 11]!);
    G(2, 7, 8, 13, SIGMA[s + 12]!, SIGMA[s + 13]!);
    G(3, 4, 9, 14, SIGMA[s + 14]!, SIGMA[s + 15]!);
  }
  for (let i = 0; i < 8; i++) {
    const w = (state[i]! ^ v[i]! ^ v[i + 16]!) >>> 0;
    out[4 * i] = w & 0xff;
    out[4 * i + 1] = (w >>> 8) & 0xff;
    out[4 * i + 2] = (w >>> 16) & 0xff;
    out[4 * i + 3] = w >>> 24;
  }
  return out;
}
