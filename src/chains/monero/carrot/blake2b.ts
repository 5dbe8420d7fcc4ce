/**
 * BLAKE2b (RFC 7693) with a key, a digest length and a 16-byte
 * personalisation, for Carrot's hashes (hash.ts). The scanner computes a
 * keyed Carrot view tag H_3[s_sr](input_context ‖ K_o) for every (watch,
 * output) pair; @noble/hashes' blake2b spends most of that call setting up a
 * hasher object, so this one keeps its state in preallocated module buffers
 * (64-bit words as lo/hi 32-bit halves) and hashes a whole message at once.
 * The compression F holds its 16 working words and 16 message words in local
 * variables with the 12 rounds unrolled; it and the IV are written by
 * tools/gen-blake2b.ts (the BEGIN/END GENERATED sections; a test checks they
 * match the generator). A short message hashed under many keys (the view tag
 * transcript of one output, under every watch's s_sr) is read into its block
 * once (oneBlockMessage) and hashed without allocation (blake2bKeyedWord0).
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

// BEGIN GENERATED IV (tools/gen-blake2b.ts): edit the generator, not this section
/** RFC 7693 §2.6 IV (the SHA-512 IV), as [lo, hi] halves of each 64-bit word. */
const IV = Uint32Array.of(
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
);
// END GENERATED IV

const BLOCK = 128;
const h = new Uint32Array(16);
const m = new Uint32Array(32);

function le32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

/** Reads data[off, off + len) (len ≤ 128) into the 32 message words `out`, zero-padded. */
function loadBlock(out: Uint32Array, data: Uint8Array, off: number, len: number): void {
  const full = len >> 2;
  let i = 0;
  for (; i < full; i++) out[i] = le32(data, off + 4 * i);
  if (i < 32) {
    let w = 0;
    for (let k = 0; k < (len & 3); k++) w |= data[off + 4 * i + k]! << (8 * k);
    out[i++] = w;
    for (; i < 32; i++) out[i] = 0;
  }
}

// BEGIN GENERATED compression (tools/gen-blake2b.ts): edit the generator, not this section
/**
 * F (RFC 7693 §3.2): compresses the message block `m` (32 lo/hi words) into
 * the state `h` (16 lo/hi words); `count` is the byte count including this block
 * (below 2^53), `last` marks the final block.
 */
function compress(h: Uint32Array, m: Uint32Array, count: number, last: boolean): void {
  let v0l = h[0]! | 0, v0h = h[1]! | 0;
  let v1l = h[2]! | 0, v1h = h[3]! | 0;
  let v2l = h[4]! | 0, v2h = h[5]! | 0;
  let v3l = h[6]! | 0, v3h = h[7]! | 0;
  let v4l = h[8]! | 0, v4h = h[9]! | 0;
  let v5l = h[10]! | 0, v5h = h[11]! | 0;
  let v6l = h[12]! | 0, v6h = h[13]! | 0;
  let v7l = h[14]! | 0, v7h = h[15]! | 0;
  let v8l = 0xf3bcc908 | 0, v8h = 0x6a09e667 | 0;
  let v9l = 0x84caa73b | 0, v9h = 0xbb67ae85 | 0;
  let v10l = 0xfe94f82b | 0, v10h = 0x3c6ef372 | 0;
  let v11l = 0x5f1d36f1 | 0, v11h = 0xa54ff53a | 0;
  let v12l = (0xade682d1 | 0) ^ (count % 4294967296), v12h = (0x510e527f | 0) ^ ((count / 4294967296) | 0);
  let v13l = 0x2b3e6c1f | 0, v13h = 0x9b05688c | 0;
  let v14l = last ? ~(0xfb41bd6b | 0) : 0xfb41bd6b | 0, v14h = last ? ~(0x1f83d9ab | 0) : 0x1f83d9ab | 0;
  let v15l = 0x137e2179 | 0, v15h = 0x5be0cd19 | 0;
  const m0l = m[0]! | 0, m0h = m[1]! | 0;
  const m1l = m[2]! | 0, m1h = m[3]! | 0;
  const m2l = m[4]! | 0, m2h = m[5]! | 0;
  const m3l = m[6]! | 0, m3h = m[7]! | 0;
  const m4l = m[8]! | 0, m4h = m[9]! | 0;
  const m5l = m[10]! | 0, m5h = m[11]! | 0;
  const m6l = m[12]! | 0, m6h = m[13]! | 0;
  const m7l = m[14]! | 0, m7h = m[15]! | 0;
  const m8l = m[16]! | 0, m8h = m[17]! | 0;
  const m9l = m[18]! | 0, m9h = m[19]! | 0;
  const m10l = m[20]! | 0, m10h = m[21]! | 0;
  const m11l = m[22]! | 0, m11h = m[23]! | 0;
  const m12l = m[24]! | 0, m12h = m[25]! | 0;
  const m13l = m[26]! | 0, m13h = m[27]! | 0;
  const m14l = m[28]! | 0, m14h = m[29]! | 0;
  const m15l = m[30]! | 0, m15h = m[31]! | 0;
  let t = 0, xl = 0, xh = 0;
  // round 0, G(v0, v4, v8, v12; m0, m1)
  t = (v0l >>> 0) + (v4l >>> 0) + (m0l >>> 0); v0h = (v0h + v4h + m0h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m1l >>> 0); v0h = (v0h + v4h + m1h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 0, G(v1, v5, v9, v13; m2, m3)
  t = (v1l >>> 0) + (v5l >>> 0) + (m2l >>> 0); v1h = (v1h + v5h + m2h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m3l >>> 0); v1h = (v1h + v5h + m3h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 0, G(v2, v6, v10, v14; m4, m5)
  t = (v2l >>> 0) + (v6l >>> 0) + (m4l >>> 0); v2h = (v2h + v6h + m4h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m5l >>> 0); v2h = (v2h + v6h + m5h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 0, G(v3, v7, v11, v15; m6, m7)
  t = (v3l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v3h = (v3h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m7l >>> 0); v3h = (v3h + v7h + m7h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 0, G(v0, v5, v10, v15; m8, m9)
  t = (v0l >>> 0) + (v5l >>> 0) + (m8l >>> 0); v0h = (v0h + v5h + m8h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m9l >>> 0); v0h = (v0h + v5h + m9h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 0, G(v1, v6, v11, v12; m10, m11)
  t = (v1l >>> 0) + (v6l >>> 0) + (m10l >>> 0); v1h = (v1h + v6h + m10h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m11l >>> 0); v1h = (v1h + v6h + m11h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 0, G(v2, v7, v8, v13; m12, m13)
  t = (v2l >>> 0) + (v7l >>> 0) + (m12l >>> 0); v2h = (v2h + v7h + m12h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m13l >>> 0); v2h = (v2h + v7h + m13h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 0, G(v3, v4, v9, v14; m14, m15)
  t = (v3l >>> 0) + (v4l >>> 0) + (m14l >>> 0); v3h = (v3h + v4h + m14h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m15l >>> 0); v3h = (v3h + v4h + m15h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 1, G(v0, v4, v8, v12; m14, m10)
  t = (v0l >>> 0) + (v4l >>> 0) + (m14l >>> 0); v0h = (v0h + v4h + m14h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m10l >>> 0); v0h = (v0h + v4h + m10h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 1, G(v1, v5, v9, v13; m4, m8)
  t = (v1l >>> 0) + (v5l >>> 0) + (m4l >>> 0); v1h = (v1h + v5h + m4h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m8l >>> 0); v1h = (v1h + v5h + m8h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 1, G(v2, v6, v10, v14; m9, m15)
  t = (v2l >>> 0) + (v6l >>> 0) + (m9l >>> 0); v2h = (v2h + v6h + m9h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m15l >>> 0); v2h = (v2h + v6h + m15h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 1, G(v3, v7, v11, v15; m13, m6)
  t = (v3l >>> 0) + (v7l >>> 0) + (m13l >>> 0); v3h = (v3h + v7h + m13h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v3h = (v3h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 1, G(v0, v5, v10, v15; m1, m12)
  t = (v0l >>> 0) + (v5l >>> 0) + (m1l >>> 0); v0h = (v0h + v5h + m1h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m12l >>> 0); v0h = (v0h + v5h + m12h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 1, G(v1, v6, v11, v12; m0, m2)
  t = (v1l >>> 0) + (v6l >>> 0) + (m0l >>> 0); v1h = (v1h + v6h + m0h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m2l >>> 0); v1h = (v1h + v6h + m2h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 1, G(v2, v7, v8, v13; m11, m7)
  t = (v2l >>> 0) + (v7l >>> 0) + (m11l >>> 0); v2h = (v2h + v7h + m11h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m7l >>> 0); v2h = (v2h + v7h + m7h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 1, G(v3, v4, v9, v14; m5, m3)
  t = (v3l >>> 0) + (v4l >>> 0) + (m5l >>> 0); v3h = (v3h + v4h + m5h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m3l >>> 0); v3h = (v3h + v4h + m3h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 2, G(v0, v4, v8, v12; m11, m8)
  t = (v0l >>> 0) + (v4l >>> 0) + (m11l >>> 0); v0h = (v0h + v4h + m11h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m8l >>> 0); v0h = (v0h + v4h + m8h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 2, G(v1, v5, v9, v13; m12, m0)
  t = (v1l >>> 0) + (v5l >>> 0) + (m12l >>> 0); v1h = (v1h + v5h + m12h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m0l >>> 0); v1h = (v1h + v5h + m0h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 2, G(v2, v6, v10, v14; m5, m2)
  t = (v2l >>> 0) + (v6l >>> 0) + (m5l >>> 0); v2h = (v2h + v6h + m5h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m2l >>> 0); v2h = (v2h + v6h + m2h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 2, G(v3, v7, v11, v15; m15, m13)
  t = (v3l >>> 0) + (v7l >>> 0) + (m15l >>> 0); v3h = (v3h + v7h + m15h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m13l >>> 0); v3h = (v3h + v7h + m13h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 2, G(v0, v5, v10, v15; m10, m14)
  t = (v0l >>> 0) + (v5l >>> 0) + (m10l >>> 0); v0h = (v0h + v5h + m10h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m14l >>> 0); v0h = (v0h + v5h + m14h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 2, G(v1, v6, v11, v12; m3, m6)
  t = (v1l >>> 0) + (v6l >>> 0) + (m3l >>> 0); v1h = (v1h + v6h + m3h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m6l >>> 0); v1h = (v1h + v6h + m6h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 2, G(v2, v7, v8, v13; m7, m1)
  t = (v2l >>> 0) + (v7l >>> 0) + (m7l >>> 0); v2h = (v2h + v7h + m7h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m1l >>> 0); v2h = (v2h + v7h + m1h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 2, G(v3, v4, v9, v14; m9, m4)
  t = (v3l >>> 0) + (v4l >>> 0) + (m9l >>> 0); v3h = (v3h + v4h + m9h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m4l >>> 0); v3h = (v3h + v4h + m4h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 3, G(v0, v4, v8, v12; m7, m9)
  t = (v0l >>> 0) + (v4l >>> 0) + (m7l >>> 0); v0h = (v0h + v4h + m7h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m9l >>> 0); v0h = (v0h + v4h + m9h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 3, G(v1, v5, v9, v13; m3, m1)
  t = (v1l >>> 0) + (v5l >>> 0) + (m3l >>> 0); v1h = (v1h + v5h + m3h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m1l >>> 0); v1h = (v1h + v5h + m1h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 3, G(v2, v6, v10, v14; m13, m12)
  t = (v2l >>> 0) + (v6l >>> 0) + (m13l >>> 0); v2h = (v2h + v6h + m13h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m12l >>> 0); v2h = (v2h + v6h + m12h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 3, G(v3, v7, v11, v15; m11, m14)
  t = (v3l >>> 0) + (v7l >>> 0) + (m11l >>> 0); v3h = (v3h + v7h + m11h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m14l >>> 0); v3h = (v3h + v7h + m14h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 3, G(v0, v5, v10, v15; m2, m6)
  t = (v0l >>> 0) + (v5l >>> 0) + (m2l >>> 0); v0h = (v0h + v5h + m2h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m6l >>> 0); v0h = (v0h + v5h + m6h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 3, G(v1, v6, v11, v12; m5, m10)
  t = (v1l >>> 0) + (v6l >>> 0) + (m5l >>> 0); v1h = (v1h + v6h + m5h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m10l >>> 0); v1h = (v1h + v6h + m10h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 3, G(v2, v7, v8, v13; m4, m0)
  t = (v2l >>> 0) + (v7l >>> 0) + (m4l >>> 0); v2h = (v2h + v7h + m4h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m0l >>> 0); v2h = (v2h + v7h + m0h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 3, G(v3, v4, v9, v14; m15, m8)
  t = (v3l >>> 0) + (v4l >>> 0) + (m15l >>> 0); v3h = (v3h + v4h + m15h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m8l >>> 0); v3h = (v3h + v4h + m8h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 4, G(v0, v4, v8, v12; m9, m0)
  t = (v0l >>> 0) + (v4l >>> 0) + (m9l >>> 0); v0h = (v0h + v4h + m9h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m0l >>> 0); v0h = (v0h + v4h + m0h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 4, G(v1, v5, v9, v13; m5, m7)
  t = (v1l >>> 0) + (v5l >>> 0) + (m5l >>> 0); v1h = (v1h + v5h + m5h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m7l >>> 0); v1h = (v1h + v5h + m7h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 4, G(v2, v6, v10, v14; m2, m4)
  t = (v2l >>> 0) + (v6l >>> 0) + (m2l >>> 0); v2h = (v2h + v6h + m2h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m4l >>> 0); v2h = (v2h + v6h + m4h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 4, G(v3, v7, v11, v15; m10, m15)
  t = (v3l >>> 0) + (v7l >>> 0) + (m10l >>> 0); v3h = (v3h + v7h + m10h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m15l >>> 0); v3h = (v3h + v7h + m15h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 4, G(v0, v5, v10, v15; m14, m1)
  t = (v0l >>> 0) + (v5l >>> 0) + (m14l >>> 0); v0h = (v0h + v5h + m14h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m1l >>> 0); v0h = (v0h + v5h + m1h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 4, G(v1, v6, v11, v12; m11, m12)
  t = (v1l >>> 0) + (v6l >>> 0) + (m11l >>> 0); v1h = (v1h + v6h + m11h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m12l >>> 0); v1h = (v1h + v6h + m12h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 4, G(v2, v7, v8, v13; m6, m8)
  t = (v2l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v2h = (v2h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m8l >>> 0); v2h = (v2h + v7h + m8h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 4, G(v3, v4, v9, v14; m3, m13)
  t = (v3l >>> 0) + (v4l >>> 0) + (m3l >>> 0); v3h = (v3h + v4h + m3h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m13l >>> 0); v3h = (v3h + v4h + m13h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 5, G(v0, v4, v8, v12; m2, m12)
  t = (v0l >>> 0) + (v4l >>> 0) + (m2l >>> 0); v0h = (v0h + v4h + m2h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m12l >>> 0); v0h = (v0h + v4h + m12h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 5, G(v1, v5, v9, v13; m6, m10)
  t = (v1l >>> 0) + (v5l >>> 0) + (m6l >>> 0); v1h = (v1h + v5h + m6h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m10l >>> 0); v1h = (v1h + v5h + m10h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 5, G(v2, v6, v10, v14; m0, m11)
  t = (v2l >>> 0) + (v6l >>> 0) + (m0l >>> 0); v2h = (v2h + v6h + m0h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m11l >>> 0); v2h = (v2h + v6h + m11h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 5, G(v3, v7, v11, v15; m8, m3)
  t = (v3l >>> 0) + (v7l >>> 0) + (m8l >>> 0); v3h = (v3h + v7h + m8h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m3l >>> 0); v3h = (v3h + v7h + m3h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 5, G(v0, v5, v10, v15; m4, m13)
  t = (v0l >>> 0) + (v5l >>> 0) + (m4l >>> 0); v0h = (v0h + v5h + m4h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m13l >>> 0); v0h = (v0h + v5h + m13h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 5, G(v1, v6, v11, v12; m7, m5)
  t = (v1l >>> 0) + (v6l >>> 0) + (m7l >>> 0); v1h = (v1h + v6h + m7h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m5l >>> 0); v1h = (v1h + v6h + m5h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 5, G(v2, v7, v8, v13; m15, m14)
  t = (v2l >>> 0) + (v7l >>> 0) + (m15l >>> 0); v2h = (v2h + v7h + m15h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m14l >>> 0); v2h = (v2h + v7h + m14h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 5, G(v3, v4, v9, v14; m1, m9)
  t = (v3l >>> 0) + (v4l >>> 0) + (m1l >>> 0); v3h = (v3h + v4h + m1h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m9l >>> 0); v3h = (v3h + v4h + m9h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 6, G(v0, v4, v8, v12; m12, m5)
  t = (v0l >>> 0) + (v4l >>> 0) + (m12l >>> 0); v0h = (v0h + v4h + m12h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m5l >>> 0); v0h = (v0h + v4h + m5h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 6, G(v1, v5, v9, v13; m1, m15)
  t = (v1l >>> 0) + (v5l >>> 0) + (m1l >>> 0); v1h = (v1h + v5h + m1h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m15l >>> 0); v1h = (v1h + v5h + m15h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 6, G(v2, v6, v10, v14; m14, m13)
  t = (v2l >>> 0) + (v6l >>> 0) + (m14l >>> 0); v2h = (v2h + v6h + m14h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m13l >>> 0); v2h = (v2h + v6h + m13h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 6, G(v3, v7, v11, v15; m4, m10)
  t = (v3l >>> 0) + (v7l >>> 0) + (m4l >>> 0); v3h = (v3h + v7h + m4h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m10l >>> 0); v3h = (v3h + v7h + m10h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 6, G(v0, v5, v10, v15; m0, m7)
  t = (v0l >>> 0) + (v5l >>> 0) + (m0l >>> 0); v0h = (v0h + v5h + m0h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m7l >>> 0); v0h = (v0h + v5h + m7h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 6, G(v1, v6, v11, v12; m6, m3)
  t = (v1l >>> 0) + (v6l >>> 0) + (m6l >>> 0); v1h = (v1h + v6h + m6h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m3l >>> 0); v1h = (v1h + v6h + m3h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 6, G(v2, v7, v8, v13; m9, m2)
  t = (v2l >>> 0) + (v7l >>> 0) + (m9l >>> 0); v2h = (v2h + v7h + m9h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m2l >>> 0); v2h = (v2h + v7h + m2h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 6, G(v3, v4, v9, v14; m8, m11)
  t = (v3l >>> 0) + (v4l >>> 0) + (m8l >>> 0); v3h = (v3h + v4h + m8h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m11l >>> 0); v3h = (v3h + v4h + m11h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 7, G(v0, v4, v8, v12; m13, m11)
  t = (v0l >>> 0) + (v4l >>> 0) + (m13l >>> 0); v0h = (v0h + v4h + m13h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m11l >>> 0); v0h = (v0h + v4h + m11h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 7, G(v1, v5, v9, v13; m7, m14)
  t = (v1l >>> 0) + (v5l >>> 0) + (m7l >>> 0); v1h = (v1h + v5h + m7h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m14l >>> 0); v1h = (v1h + v5h + m14h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 7, G(v2, v6, v10, v14; m12, m1)
  t = (v2l >>> 0) + (v6l >>> 0) + (m12l >>> 0); v2h = (v2h + v6h + m12h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m1l >>> 0); v2h = (v2h + v6h + m1h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 7, G(v3, v7, v11, v15; m3, m9)
  t = (v3l >>> 0) + (v7l >>> 0) + (m3l >>> 0); v3h = (v3h + v7h + m3h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m9l >>> 0); v3h = (v3h + v7h + m9h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 7, G(v0, v5, v10, v15; m5, m0)
  t = (v0l >>> 0) + (v5l >>> 0) + (m5l >>> 0); v0h = (v0h + v5h + m5h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m0l >>> 0); v0h = (v0h + v5h + m0h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 7, G(v1, v6, v11, v12; m15, m4)
  t = (v1l >>> 0) + (v6l >>> 0) + (m15l >>> 0); v1h = (v1h + v6h + m15h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m4l >>> 0); v1h = (v1h + v6h + m4h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 7, G(v2, v7, v8, v13; m8, m6)
  t = (v2l >>> 0) + (v7l >>> 0) + (m8l >>> 0); v2h = (v2h + v7h + m8h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v2h = (v2h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 7, G(v3, v4, v9, v14; m2, m10)
  t = (v3l >>> 0) + (v4l >>> 0) + (m2l >>> 0); v3h = (v3h + v4h + m2h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m10l >>> 0); v3h = (v3h + v4h + m10h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 8, G(v0, v4, v8, v12; m6, m15)
  t = (v0l >>> 0) + (v4l >>> 0) + (m6l >>> 0); v0h = (v0h + v4h + m6h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m15l >>> 0); v0h = (v0h + v4h + m15h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 8, G(v1, v5, v9, v13; m14, m9)
  t = (v1l >>> 0) + (v5l >>> 0) + (m14l >>> 0); v1h = (v1h + v5h + m14h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m9l >>> 0); v1h = (v1h + v5h + m9h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 8, G(v2, v6, v10, v14; m11, m3)
  t = (v2l >>> 0) + (v6l >>> 0) + (m11l >>> 0); v2h = (v2h + v6h + m11h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m3l >>> 0); v2h = (v2h + v6h + m3h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 8, G(v3, v7, v11, v15; m0, m8)
  t = (v3l >>> 0) + (v7l >>> 0) + (m0l >>> 0); v3h = (v3h + v7h + m0h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m8l >>> 0); v3h = (v3h + v7h + m8h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 8, G(v0, v5, v10, v15; m12, m2)
  t = (v0l >>> 0) + (v5l >>> 0) + (m12l >>> 0); v0h = (v0h + v5h + m12h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m2l >>> 0); v0h = (v0h + v5h + m2h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 8, G(v1, v6, v11, v12; m13, m7)
  t = (v1l >>> 0) + (v6l >>> 0) + (m13l >>> 0); v1h = (v1h + v6h + m13h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m7l >>> 0); v1h = (v1h + v6h + m7h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 8, G(v2, v7, v8, v13; m1, m4)
  t = (v2l >>> 0) + (v7l >>> 0) + (m1l >>> 0); v2h = (v2h + v7h + m1h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m4l >>> 0); v2h = (v2h + v7h + m4h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 8, G(v3, v4, v9, v14; m10, m5)
  t = (v3l >>> 0) + (v4l >>> 0) + (m10l >>> 0); v3h = (v3h + v4h + m10h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m5l >>> 0); v3h = (v3h + v4h + m5h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 9, G(v0, v4, v8, v12; m10, m2)
  t = (v0l >>> 0) + (v4l >>> 0) + (m10l >>> 0); v0h = (v0h + v4h + m10h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m2l >>> 0); v0h = (v0h + v4h + m2h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 9, G(v1, v5, v9, v13; m8, m4)
  t = (v1l >>> 0) + (v5l >>> 0) + (m8l >>> 0); v1h = (v1h + v5h + m8h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m4l >>> 0); v1h = (v1h + v5h + m4h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 9, G(v2, v6, v10, v14; m7, m6)
  t = (v2l >>> 0) + (v6l >>> 0) + (m7l >>> 0); v2h = (v2h + v6h + m7h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m6l >>> 0); v2h = (v2h + v6h + m6h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 9, G(v3, v7, v11, v15; m1, m5)
  t = (v3l >>> 0) + (v7l >>> 0) + (m1l >>> 0); v3h = (v3h + v7h + m1h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m5l >>> 0); v3h = (v3h + v7h + m5h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 9, G(v0, v5, v10, v15; m15, m11)
  t = (v0l >>> 0) + (v5l >>> 0) + (m15l >>> 0); v0h = (v0h + v5h + m15h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m11l >>> 0); v0h = (v0h + v5h + m11h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 9, G(v1, v6, v11, v12; m9, m14)
  t = (v1l >>> 0) + (v6l >>> 0) + (m9l >>> 0); v1h = (v1h + v6h + m9h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m14l >>> 0); v1h = (v1h + v6h + m14h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 9, G(v2, v7, v8, v13; m3, m12)
  t = (v2l >>> 0) + (v7l >>> 0) + (m3l >>> 0); v2h = (v2h + v7h + m3h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m12l >>> 0); v2h = (v2h + v7h + m12h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 9, G(v3, v4, v9, v14; m13, m0)
  t = (v3l >>> 0) + (v4l >>> 0) + (m13l >>> 0); v3h = (v3h + v4h + m13h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m0l >>> 0); v3h = (v3h + v4h + m0h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 10, G(v0, v4, v8, v12; m0, m1)
  t = (v0l >>> 0) + (v4l >>> 0) + (m0l >>> 0); v0h = (v0h + v4h + m0h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m1l >>> 0); v0h = (v0h + v4h + m1h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 10, G(v1, v5, v9, v13; m2, m3)
  t = (v1l >>> 0) + (v5l >>> 0) + (m2l >>> 0); v1h = (v1h + v5h + m2h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m3l >>> 0); v1h = (v1h + v5h + m3h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 10, G(v2, v6, v10, v14; m4, m5)
  t = (v2l >>> 0) + (v6l >>> 0) + (m4l >>> 0); v2h = (v2h + v6h + m4h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m5l >>> 0); v2h = (v2h + v6h + m5h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 10, G(v3, v7, v11, v15; m6, m7)
  t = (v3l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v3h = (v3h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m7l >>> 0); v3h = (v3h + v7h + m7h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 10, G(v0, v5, v10, v15; m8, m9)
  t = (v0l >>> 0) + (v5l >>> 0) + (m8l >>> 0); v0h = (v0h + v5h + m8h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m9l >>> 0); v0h = (v0h + v5h + m9h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 10, G(v1, v6, v11, v12; m10, m11)
  t = (v1l >>> 0) + (v6l >>> 0) + (m10l >>> 0); v1h = (v1h + v6h + m10h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m11l >>> 0); v1h = (v1h + v6h + m11h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 10, G(v2, v7, v8, v13; m12, m13)
  t = (v2l >>> 0) + (v7l >>> 0) + (m12l >>> 0); v2h = (v2h + v7h + m12h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m13l >>> 0); v2h = (v2h + v7h + m13h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 10, G(v3, v4, v9, v14; m14, m15)
  t = (v3l >>> 0) + (v4l >>> 0) + (m14l >>> 0); v3h = (v3h + v4h + m14h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m15l >>> 0); v3h = (v3h + v4h + m15h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 11, G(v0, v4, v8, v12; m14, m10)
  t = (v0l >>> 0) + (v4l >>> 0) + (m14l >>> 0); v0h = (v0h + v4h + m14h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v4l >>> 0) + (m10l >>> 0); v0h = (v0h + v4h + m10h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v12l >>> 0); v8h = (v8h + v12h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  // round 11, G(v1, v5, v9, v13; m4, m8)
  t = (v1l >>> 0) + (v5l >>> 0) + (m4l >>> 0); v1h = (v1h + v5h + m4h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v5l >>> 0) + (m8l >>> 0); v1h = (v1h + v5h + m8h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v13l >>> 0); v9h = (v9h + v13h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 11, G(v2, v6, v10, v14; m9, m15)
  t = (v2l >>> 0) + (v6l >>> 0) + (m9l >>> 0); v2h = (v2h + v6h + m9h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v6l >>> 0) + (m15l >>> 0); v2h = (v2h + v6h + m15h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v14l >>> 0); v10h = (v10h + v14h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 11, G(v3, v7, v11, v15; m13, m6)
  t = (v3l >>> 0) + (v7l >>> 0) + (m13l >>> 0); v3h = (v3h + v7h + m13h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v7l >>> 0) + (m6l >>> 0); v3h = (v3h + v7h + m6h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v15l >>> 0); v11h = (v11h + v15h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 11, G(v0, v5, v10, v15; m1, m12)
  t = (v0l >>> 0) + (v5l >>> 0) + (m1l >>> 0); v0h = (v0h + v5h + m1h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
  t = (v0l >>> 0) + (v5l >>> 0) + (m12l >>> 0); v0h = (v0h + v5h + m12h + ((t / 4294967296) | 0)) | 0; v0l = t | 0;
  xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
  t = (v10l >>> 0) + (v15l >>> 0); v10h = (v10h + v15h + ((t / 4294967296) | 0)) | 0; v10l = t | 0;
  xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
  // round 11, G(v1, v6, v11, v12; m0, m2)
  t = (v1l >>> 0) + (v6l >>> 0) + (m0l >>> 0); v1h = (v1h + v6h + m0h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
  t = (v1l >>> 0) + (v6l >>> 0) + (m2l >>> 0); v1h = (v1h + v6h + m2h + ((t / 4294967296) | 0)) | 0; v1l = t | 0;
  xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
  t = (v11l >>> 0) + (v12l >>> 0); v11h = (v11h + v12h + ((t / 4294967296) | 0)) | 0; v11l = t | 0;
  xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
  // round 11, G(v2, v7, v8, v13; m11, m7)
  t = (v2l >>> 0) + (v7l >>> 0) + (m11l >>> 0); v2h = (v2h + v7h + m11h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
  t = (v2l >>> 0) + (v7l >>> 0) + (m7l >>> 0); v2h = (v2h + v7h + m7h + ((t / 4294967296) | 0)) | 0; v2l = t | 0;
  xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
  t = (v8l >>> 0) + (v13l >>> 0); v8h = (v8h + v13h + ((t / 4294967296) | 0)) | 0; v8l = t | 0;
  xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
  // round 11, G(v3, v4, v9, v14; m5, m3)
  t = (v3l >>> 0) + (v4l >>> 0) + (m5l >>> 0); v3h = (v3h + v4h + m5h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
  t = (v3l >>> 0) + (v4l >>> 0) + (m3l >>> 0); v3h = (v3h + v4h + m3h + ((t / 4294967296) | 0)) | 0; v3l = t | 0;
  xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
  t = (v9l >>> 0) + (v14l >>> 0); v9h = (v9h + v14h + ((t / 4294967296) | 0)) | 0; v9l = t | 0;
  xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
  h[0] = h[0]! ^ v0l ^ v8l; h[1] = h[1]! ^ v0h ^ v8h;
  h[2] = h[2]! ^ v1l ^ v9l; h[3] = h[3]! ^ v1h ^ v9h;
  h[4] = h[4]! ^ v2l ^ v10l; h[5] = h[5]! ^ v2h ^ v10h;
  h[6] = h[6]! ^ v3l ^ v11l; h[7] = h[7]! ^ v3h ^ v11h;
  h[8] = h[8]! ^ v4l ^ v12l; h[9] = h[9]! ^ v4h ^ v12h;
  h[10] = h[10]! ^ v5l ^ v13l; h[11] = h[11]! ^ v5h ^ v13h;
  h[12] = h[12]! ^ v6l ^ v14l; h[13] = h[13]! ^ v6h ^ v14h;
  h[14] = h[14]! ^ v7l ^ v15l; h[15] = h[15]! ^ v7h ^ v15h;
}
// END GENERATED compression

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

function checkParameters(outLen: number, keyLen: number, personalization: Uint8Array | undefined): void {
  if (!Number.isInteger(outLen) || outLen < 1 || outLen > 64) throw new RangeError("BLAKE2b digest length is 1..64 bytes");
  if (keyLen > 64) throw new RangeError("BLAKE2b key is at most 64 bytes");
  if (personalization !== undefined && personalization.length !== 16) throw new RangeError("BLAKE2b personalisation is 16 bytes");
}

/**
 * Sets h to the state before the first message block: the parameter block,
 * then the key block when there is a key. Returns the byte count so far (128
 * with a key, else 0). The key block is final only for an empty message.
 */
function start(outLen: number, key: Uint8Array | undefined, personalization: Uint8Array | undefined, emptyMessage: boolean): number {
  const keyLen = key?.length ?? 0;
  if (keyLen > 0 && !emptyMessage && sameKeyedStart(outLen, key!, personalization)) {
    h.set(keyedState);
    return BLOCK;
  }
  h.set(IV);
  h[0] = h[0]! ^ 0x01010000 ^ (keyLen << 8) ^ outLen;
  if (personalization) {
    h[12] = h[12]! ^ le32(personalization, 0);
    h[13] = h[13]! ^ le32(personalization, 4);
    h[14] = h[14]! ^ le32(personalization, 8);
    h[15] = h[15]! ^ le32(personalization, 12);
  }
  if (keyLen === 0) return 0;
  loadBlock(m, key!, 0, keyLen);
  compress(h, m, BLOCK, emptyMessage);
  if (!emptyMessage) rememberKeyedStart(outLen, key!, personalization);
  return BLOCK;
}

/**
 * BLAKE2b(data) with digest length `outLen` (1..64), an optional key (0..64
 * bytes; none and an empty key are the same) and a 16-byte personalisation
 * (zero when absent).
 */
export function blake2bKeyed(outLen: number, data: Uint8Array, key?: Uint8Array, personalization?: Uint8Array): Uint8Array {
  const keyLen = key?.length ?? 0;
  checkParameters(outLen, keyLen, personalization);
  let t = start(outLen, key, personalization, data.length === 0);
  // Every full block but the last goes in as it is; the last (1..128 bytes, or the empty message unkeyed) is zero-padded and final.
  let off = 0;
  while (data.length - off > BLOCK) {
    loadBlock(m, data, off, BLOCK);
    t += BLOCK;
    compress(h, m, t, false);
    off += BLOCK;
  }
  if (data.length > 0 || keyLen === 0) {
    loadBlock(m, data, off, data.length - off);
    t += data.length - off;
    compress(h, m, t, true);
  }
  const out = new Uint8Array(outLen);
  for (let i = 0; i < outLen; i++) out[i] = (h[i >> 2]! >>> (8 * (i & 3))) & 0xff;
  return out;
}

/** A message of 1..128 bytes read once into its single (final) block, for hashing it under many keys. */
export interface OneBlockMessage {
  readonly words: Uint32Array;
  readonly length: number;
}

export function oneBlockMessage(data: Uint8Array): OneBlockMessage {
  if (data.length < 1 || data.length > BLOCK) throw new RangeError("a one-block BLAKE2b message is 1..128 bytes");
  const words = new Uint32Array(32);
  loadBlock(words, data, 0, data.length);
  return { words, length: data.length };
}

/**
 * The first four bytes, little-endian, of blake2bKeyed(outLen, message, key,
 * personalization) (bytes past outLen included: callers mask), with no
 * allocation: what the scanner compares a 3-byte view tag against.
 */
export function blake2bKeyedWord0(outLen: number, message: OneBlockMessage, key: Uint8Array | undefined, personalization?: Uint8Array): number {
  checkParameters(outLen, key?.length ?? 0, personalization);
  const t = start(outLen, key, personalization, false);
  compress(h, message.words, t + message.length, true);
  return h[0]!;
}
