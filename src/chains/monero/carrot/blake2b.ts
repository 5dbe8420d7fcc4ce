/**
 * BLAKE2b (RFC 7693) with a key, a digest length and a 16-byte
 * personalisation, for Carrot's hashes (hash.ts). The scanner computes a
 * keyed Carrot view tag H_3[s_sr](input_context ‖ K_o) for every (watch,
 * output) pair; @noble/hashes' blake2b spends most of that call setting up a
 * hasher object, so this one keeps its state in preallocated module buffers
 * (64-bit words as lo/hi 32-bit halves) and hashes a whole message at once.
 * Checked byte for byte against @noble/hashes (test/chains/monero/carrot/
 * blake2b.property.test.ts) for every key length, digest length and message
 * length class.
 *
 * Parameter block (RFC 7693 §2.5, BLAKE2 paper §2.8): h ← IV ⊕ P with
 * P[0] = 0x0101kknn (fanout 1, depth 1, key length kk, digest length nn),
 * salt zero, personalisation in P[6..7]. A key is a first, zero-padded
 * 128-byte block (its compression is reused while the key stays the same).
 * Single-threaded module state: not re-entrant.
 */

/** The SHA-512 IV, as [lo, hi] halves of each 64-bit word. */
const IV = Uint32Array.of(
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
);

/** Message word permutation per round (RFC 7693 §2.7); rounds 10 and 11 reuse rows 0 and 1. */
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];
/** SIGMA for all 12 rounds as half-word offsets (2·index), flattened. */
const SIGMA2 = Uint8Array.from(Array.from({ length: 12 }, (_, r) => SIGMA[r % 10]!.map((i) => 2 * i)).flat());

const BLOCK = 128;
const h = new Uint32Array(16);
const v = new Uint32Array(32);
const m = new Uint32Array(32);
const block = new Uint8Array(BLOCK);
const TWO32 = 4294967296;

function le32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

/** The mixing function G on words a, b, c, d (half-word offsets) with message words x, y. */
function mix(a: number, b: number, c: number, d: number, x: number, y: number): void {
  // a ← a + b + x
  let lo = v[a]! + v[b]! + m[x]!;
  v[a + 1] = v[a + 1]! + v[b + 1]! + m[x + 1]! + Math.floor(lo / TWO32);
  v[a] = lo;
  // d ← (d ⊕ a) ⋙ 32
  let xl = v[d]! ^ v[a]!;
  let xh = v[d + 1]! ^ v[a + 1]!;
  v[d] = xh;
  v[d + 1] = xl;
  // c ← c + d
  lo = v[c]! + v[d]!;
  v[c + 1] = v[c + 1]! + v[d + 1]! + (lo >= TWO32 ? 1 : 0);
  v[c] = lo;
  // b ← (b ⊕ c) ⋙ 24
  xl = v[b]! ^ v[c]!;
  xh = v[b + 1]! ^ v[c + 1]!;
  v[b] = (xl >>> 24) | (xh << 8);
  v[b + 1] = (xh >>> 24) | (xl << 8);
  // a ← a + b + y
  lo = v[a]! + v[b]! + m[y]!;
  v[a + 1] = v[a + 1]! + v[b + 1]! + m[y + 1]! + Math.floor(lo / TWO32);
  v[a] = lo;
  // d ← (d ⊕ a) ⋙ 16
  xl = v[d]! ^ v[a]!;
  xh = v[d + 1]! ^ v[a + 1]!;
  v[d] = (xl >>> 16) | (xh << 16);
  v[d + 1] = (xh >>> 16) | (xl << 16);
  // c ← c + d
  lo = v[c]! + v[d]!;
  v[c + 1] = v[c + 1]! + v[d + 1]! + (lo >= TWO32 ? 1 : 0);
  v[c] = lo;
  // b ← (b ⊕ c) ⋙ 63, i.e. ⋘ 1
  xl = v[b]! ^ v[c]!;
  xh = v[b + 1]! ^ v[c + 1]!;
  v[b] = (xl << 1) | (xh >>> 31);
  v[b + 1] = (xh << 1) | (xl >>> 31);
}

/** F: compresses `block` into h, t bytes hashed so far (this block included), `last` for the final block. */
function compress(t: number, last: boolean): void {
  for (let i = 0; i < 32; i++) m[i] = le32(block, 4 * i);
  v.set(h, 0);
  v.set(IV, 16);
  v[24] = v[24]! ^ t % TWO32;
  v[25] = v[25]! ^ Math.floor(t / TWO32);
  if (last) {
    v[28] = ~v[28]!;
    v[29] = ~v[29]!;
  }
  for (let r = 0; r < 12; r++) {
    const s = r * 16;
    mix(0, 8, 16, 24, SIGMA2[s]!, SIGMA2[s + 1]!);
    mix(2, 10, 18, 26, SIGMA2[s + 2]!, SIGMA2[s + 3]!);
    mix(4, 12, 20, 28, SIGMA2[s + 4]!, SIGMA2[s + 5]!);
    mix(6, 14, 22, 30, SIGMA2[s + 6]!, SIGMA2[s + 7]!);
    mix(0, 10, 20, 30, SIGMA2[s + 8]!, SIGMA2[s + 9]!);
    mix(2, 12, 22, 24, SIGMA2[s + 10]!, SIGMA2[s + 11]!);
    mix(4, 14, 16, 26, SIGMA2[s + 12]!, SIGMA2[s + 13]!);
    mix(6, 8, 18, 28, SIGMA2[s + 14]!, SIGMA2[s + 15]!);
  }
  for (let i = 0; i < 16; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 16]!;
}

/**
 * The state after the key block depends only on (digest length, key,
 * personalisation): the last one is kept, so consecutive hashes under one
 * key (a watch's view tags for the outputs sharing a D_e) compress it once.
 * Compared by content, never by reference.
 */
const keyedState = new Uint32Array(16);
const keyedKey = new Uint8Array(64);
const keyedPers = new Uint8Array(16);
let keyedKeyLen = -1;
let keyedOutLen = 0;
let keyedHasPers = false;

function sameKeyedStart(outLen: number, key: Uint8Array, pers: Uint8Array | undefined): boolean {
  if (keyedKeyLen !== key.length || keyedOutLen !== outLen || keyedHasPers !== (pers !== undefined)) return false;
  for (let i = 0; i < key.length; i++) if (keyedKey[i] !== key[i]) return false;
  if (pers) for (let i = 0; i < 16; i++) if (keyedPers[i] !== pers[i]) return false;
  return true;
}

function rememberKeyedStart(outLen: number, key: Uint8Array, pers: Uint8Array | undefined): void {
  keyedState.set(h);
  keyedKey.set(key);
  keyedKeyLen = key.length;
  keyedOutLen = outLen;
  keyedHasPers = pers !== undefined;
  if (pers) keyedPers.set(pers);
}

/**
 * BLAKE2b(data) with digest length `outLen` (1..64), an optional key (0..64
 * bytes; none and an empty key are the same) and a 16-byte personalisation
 * (zero when absent).
 */
export function blake2bKeyed(outLen: number, data: Uint8Array, key?: Uint8Array, personalization?: Uint8Array): Uint8Array {
  const keyLen = key?.length ?? 0;
  if (!Number.isInteger(outLen) || outLen < 1 || outLen > 64) throw new RangeError("BLAKE2b digest length is 1..64 bytes");
  if (keyLen > 64) throw new RangeError("BLAKE2b key is at most 64 bytes");
  if (personalization !== undefined && personalization.length !== 16) throw new RangeError("BLAKE2b personalisation is 16 bytes");
  let t = 0;
  if (keyLen > 0 && data.length > 0 && sameKeyedStart(outLen, key!, personalization)) {
    h.set(keyedState);
    t = BLOCK;
  } else {
    h.set(IV);
    h[0] = h[0]! ^ 0x01010000 ^ (keyLen << 8) ^ outLen;
    if (personalization) {
      h[12] = h[12]! ^ le32(personalization, 0);
      h[13] = h[13]! ^ le32(personalization, 4);
      h[14] = h[14]! ^ le32(personalization, 8);
      h[15] = h[15]! ^ le32(personalization, 12);
    }
    if (keyLen > 0) {
      block.fill(0);
      block.set(key!);
      t = BLOCK;
      compress(t, data.length === 0);
      if (data.length > 0) rememberKeyedStart(outLen, key!, personalization);
    }
  }
  // Every full block but the last goes in as it is; the last (1..128 bytes, or the empty message unkeyed) is zero-padded and final.
  let off = 0;
  while (data.length - off > BLOCK) {
    block.set(data.subarray(off, off + BLOCK));
    t += BLOCK;
    compress(t, false);
    off += BLOCK;
  }
  if (data.length > 0 || keyLen === 0) {
    block.fill(0);
    block.set(data.subarray(off));
    t += data.length - off;
    compress(t, true);
  }
  const out = new Uint8Array(outLen);
  for (let i = 0; i < outLen; i++) out[i] = (h[i >> 2]! >>> (8 * (i & 3))) & 0xff;
  return out;
}
