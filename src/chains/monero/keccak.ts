/**
 * Keccak-256 (original padding, Monero's cn_fast_hash) for short inputs, with
 * the Keccak-f[1600] permutation's 25 lanes held in local variables (hi/lo
 * 32-bit halves). The permutation and its round constants are written by
 * tools/gen-keccak.ts from the standard ρ offsets, π lane mapping and ι LFSR
 * (the BEGIN/END GENERATED sections; a test checks they match the generator),
 * and checked against Monero's hash vectors and @noble/hashes. Used on the
 * scanner's hot path (view tags, Hs), where a view tag is computed for every
 * (watch, output) pair.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";

// BEGIN GENERATED round constants (tools/gen-keccak.ts): edit the generator, not this section
const RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn, 0x0000000080000001n,
  0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n,
  0x000000000000800an, 0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];
// END GENERATED round constants
const RC_LO = Int32Array.from(RC.map((x) => Number(x & 0xffffffffn) | 0));
const RC_HI = Int32Array.from(RC.map((x) => Number(x >> 32n) | 0));

/** Keccak-256 rate in bytes. */
const RATE = 136;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const state = new Uint32Array(50);
const stateBytes = new Uint8Array(state.buffer);

/** Absorbs `len` bytes already written at stateBytes[0..len) (len < 136), pads, permutes. */
function permuteSingleBlock(len: number): void {
  stateBytes[len] = stateBytes[len]! ^ 0x01;
  stateBytes[RATE - 1] = stateBytes[RATE - 1]! ^ 0x80;
  keccakF1600(state);
}

/** Keccak-256 of data; a single-block fast path for inputs shorter than 136 bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (!LITTLE_ENDIAN || data.length >= RATE) return keccak_256(data);
  state.fill(0);
  stateBytes.set(data);
  permuteSingleBlock(data.length);
  return stateBytes.slice(0, 32);
}

const VIEW_TAG_SALT = new TextEncoder().encode("view_tag");

/** First byte of Keccak("view_tag" ‖ D ‖ varint(i)) without intermediate allocations. */
export function viewTagByte(derivation: Uint8Array, outputIndex: number): number {
  if (!LITTLE_ENDIAN) {
    const v: number[] = [];
    let n = outputIndex;
    while (n >= 0x80) {
      v.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    v.push(n);
    return keccak_256(Uint8Array.from([...VIEW_TAG_SALT, ...derivation, ...v]))[0]!;
  }
  state.fill(0);
  stateBytes.set(VIEW_TAG_SALT, 0);
  stateBytes.set(derivation, 8);
  let p = 8 + derivation.length;
  let n = outputIndex;
  while (n >= 0x80) {
    stateBytes[p++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  stateBytes[p++] = n;
  permuteSingleBlock(p);
  return stateBytes[0]!;
}

// BEGIN GENERATED permutation (tools/gen-keccak.ts): edit the generator, not this section
export function keccakF1600(s: Uint32Array): void {
  let l0 = s[0]! | 0, h0 = s[1]! | 0;
  let l1 = s[2]! | 0, h1 = s[3]! | 0;
  let l2 = s[4]! | 0, h2 = s[5]! | 0;
  let l3 = s[6]! | 0, h3 = s[7]! | 0;
  let l4 = s[8]! | 0, h4 = s[9]! | 0;
  let l5 = s[10]! | 0, h5 = s[11]! | 0;
  let l6 = s[12]! | 0, h6 = s[13]! | 0;
  let l7 = s[14]! | 0, h7 = s[15]! | 0;
  let l8 = s[16]! | 0, h8 = s[17]! | 0;
  let l9 = s[18]! | 0, h9 = s[19]! | 0;
  let l10 = s[20]! | 0, h10 = s[21]! | 0;
  let l11 = s[22]! | 0, h11 = s[23]! | 0;
  let l12 = s[24]! | 0, h12 = s[25]! | 0;
  let l13 = s[26]! | 0, h13 = s[27]! | 0;
  let l14 = s[28]! | 0, h14 = s[29]! | 0;
  let l15 = s[30]! | 0, h15 = s[31]! | 0;
  let l16 = s[32]! | 0, h16 = s[33]! | 0;
  let l17 = s[34]! | 0, h17 = s[35]! | 0;
  let l18 = s[36]! | 0, h18 = s[37]! | 0;
  let l19 = s[38]! | 0, h19 = s[39]! | 0;
  let l20 = s[40]! | 0, h20 = s[41]! | 0;
  let l21 = s[42]! | 0, h21 = s[43]! | 0;
  let l22 = s[44]! | 0, h22 = s[45]! | 0;
  let l23 = s[46]! | 0, h23 = s[47]! | 0;
  let l24 = s[48]! | 0, h24 = s[49]! | 0;
  for (let round = 0; round < 24; round++) {
    const cl0 = l0 ^ l5 ^ l10 ^ l15 ^ l20;
    const ch0 = h0 ^ h5 ^ h10 ^ h15 ^ h20;
    const cl1 = l1 ^ l6 ^ l11 ^ l16 ^ l21;
    const ch1 = h1 ^ h6 ^ h11 ^ h16 ^ h21;
    const cl2 = l2 ^ l7 ^ l12 ^ l17 ^ l22;
    const ch2 = h2 ^ h7 ^ h12 ^ h17 ^ h22;
    const cl3 = l3 ^ l8 ^ l13 ^ l18 ^ l23;
    const ch3 = h3 ^ h8 ^ h13 ^ h18 ^ h23;
    const cl4 = l4 ^ l9 ^ l14 ^ l19 ^ l24;
    const ch4 = h4 ^ h9 ^ h14 ^ h19 ^ h24;
    const dl0 = cl4 ^ ((cl1 << 1) | (ch1 >>> 31));
    const dh0 = ch4 ^ ((ch1 << 1) | (cl1 >>> 31));
    const dl1 = cl0 ^ ((cl2 << 1) | (ch2 >>> 31));
    const dh1 = ch0 ^ ((ch2 << 1) | (cl2 >>> 31));
    const dl2 = cl1 ^ ((cl3 << 1) | (ch3 >>> 31));
    const dh2 = ch1 ^ ((ch3 << 1) | (cl3 >>> 31));
    const dl3 = cl2 ^ ((cl4 << 1) | (ch4 >>> 31));
    const dh3 = ch2 ^ ((ch4 << 1) | (cl4 >>> 31));
    const dl4 = cl3 ^ ((cl0 << 1) | (ch0 >>> 31));
    const dh4 = ch3 ^ ((ch0 << 1) | (cl0 >>> 31));
    l0 ^= dl0; h0 ^= dh0;
    l1 ^= dl1; h1 ^= dh1;
    l2 ^= dl2; h2 ^= dh2;
    l3 ^= dl3; h3 ^= dh3;
    l4 ^= dl4; h4 ^= dh4;
    l5 ^= dl0; h5 ^= dh0;
    l6 ^= dl1; h6 ^= dh1;
    l7 ^= dl2; h7 ^= dh2;
    l8 ^= dl3; h8 ^= dh3;
    l9 ^= dl4; h9 ^= dh4;
    l10 ^= dl0; h10 ^= dh0;
    l11 ^= dl1; h11 ^= dh1;
    l12 ^= dl2; h12 ^= dh2;
    l13 ^= dl3; h13 ^= dh3;
    l14 ^= dl4; h14 ^= dh4;
    l15 ^= dl0; h15 ^= dh0;
    l16 ^= dl1; h16 ^= dh1;
    l17 ^= dl2; h17 ^= dh2;
    l18 ^= dl3; h18 ^= dh3;
    l19 ^= dl4; h19 ^= dh4;
    l20 ^= dl0; h20 ^= dh0;
    l21 ^= dl1; h21 ^= dh1;
    l22 ^= dl2; h22 ^= dh2;
    l23 ^= dl3; h23 ^= dh3;
    l24 ^= dl4; h24 ^= dh4;
    const bl0 = l0, bh0 = h0;
    const bl16 = (h5 << 4) | (l5 >>> 28), bh16 = (l5 << 4) | (h5 >>> 28);
    const bl7 = (l10 << 3) | (h10 >>> 29), bh7 = (h10 << 3) | (l10 >>> 29);
    const bl23 = (h15 << 9) | (l15 >>> 23), bh23 = (l15 << 9) | (h15 >>> 23);
    const bl14 = (l20 << 18) | (h20 >>> 14), bh14 = (h20 << 18) | (l20 >>> 14);
    const bl10 = (l1 << 1) | (h1 >>> 31), bh10 = (h1 << 1) | (l1 >>> 31);
    const bl1 = (h6 << 12) | (l6 >>> 20), bh1 = (l6 << 12) | (h6 >>> 20);
    const bl17 = (l11 << 10) | (h11 >>> 22), bh17 = (h11 << 10) | (l11 >>> 22);
    const bl8 = (h16 << 13) | (l16 >>> 19), bh8 = (l16 << 13) | (h16 >>> 19);
    const bl24 = (l21 << 2) | (h21 >>> 30), bh24 = (h21 << 2) | (l21 >>> 30);
    const bl20 = (h2 << 30) | (l2 >>> 2), bh20 = (l2 << 30) | (h2 >>> 2);
    const bl11 = (l7 << 6) | (h7 >>> 26), bh11 = (h7 << 6) | (l7 >>> 26);
    const bl2 = (h12 << 11) | (l12 >>> 21), bh2 = (l12 << 11) | (h12 >>> 21);
    const bl18 = (l17 << 15) | (h17 >>> 17), bh18 = (h17 << 15) | (l17 >>> 17);
    const bl9 = (h22 << 29) | (l22 >>> 3), bh9 = (l22 << 29) | (h22 >>> 3);
    const bl5 = (l3 << 28) | (h3 >>> 4), bh5 = (h3 << 28) | (l3 >>> 4);
    const bl21 = (h8 << 23) | (l8 >>> 9), bh21 = (l8 << 23) | (h8 >>> 9);
    const bl12 = (l13 << 25) | (h13 >>> 7), bh12 = (h13 << 25) | (l13 >>> 7);
    const bl3 = (l18 << 21) | (h18 >>> 11), bh3 = (h18 << 21) | (l18 >>> 11);
    const bl19 = (h23 << 24) | (l23 >>> 8), bh19 = (l23 << 24) | (h23 >>> 8);
    const bl15 = (l4 << 27) | (h4 >>> 5), bh15 = (h4 << 27) | (l4 >>> 5);
    const bl6 = (l9 << 20) | (h9 >>> 12), bh6 = (h9 << 20) | (l9 >>> 12);
    const bl22 = (h14 << 7) | (l14 >>> 25), bh22 = (l14 << 7) | (h14 >>> 25);
    const bl13 = (l19 << 8) | (h19 >>> 24), bh13 = (h19 << 8) | (l19 >>> 24);
    const bl4 = (l24 << 14) | (h24 >>> 18), bh4 = (h24 << 14) | (l24 >>> 18);
    l0 = bl0 ^ (~bl1 & bl2); h0 = bh0 ^ (~bh1 & bh2);
    l1 = bl1 ^ (~bl2 & bl3); h1 = bh1 ^ (~bh2 & bh3);
    l2 = bl2 ^ (~bl3 & bl4); h2 = bh2 ^ (~bh3 & bh4);
    l3 = bl3 ^ (~bl4 & bl0); h3 = bh3 ^ (~bh4 & bh0);
    l4 = bl4 ^ (~bl0 & bl1); h4 = bh4 ^ (~bh0 & bh1);
    l5 = bl5 ^ (~bl6 & bl7); h5 = bh5 ^ (~bh6 & bh7);
    l6 = bl6 ^ (~bl7 & bl8); h6 = bh6 ^ (~bh7 & bh8);
    l7 = bl7 ^ (~bl8 & bl9); h7 = bh7 ^ (~bh8 & bh9);
    l8 = bl8 ^ (~bl9 & bl5); h8 = bh8 ^ (~bh9 & bh5);
    l9 = bl9 ^ (~bl5 & bl6); h9 = bh9 ^ (~bh5 & bh6);
    l10 = bl10 ^ (~bl11 & bl12); h10 = bh10 ^ (~bh11 & bh12);
    l11 = bl11 ^ (~bl12 & bl13); h11 = bh11 ^ (~bh12 & bh13);
    l12 = bl12 ^ (~bl13 & bl14); h12 = bh12 ^ (~bh13 & bh14);
    l13 = bl13 ^ (~bl14 & bl10); h13 = bh13 ^ (~bh14 & bh10);
    l14 = bl14 ^ (~bl10 & bl11); h14 = bh14 ^ (~bh10 & bh11);
    l15 = bl15 ^ (~bl16 & bl17); h15 = bh15 ^ (~bh16 & bh17);
    l16 = bl16 ^ (~bl17 & bl18); h16 = bh16 ^ (~bh17 & bh18);
    l17 = bl17 ^ (~bl18 & bl19); h17 = bh17 ^ (~bh18 & bh19);
    l18 = bl18 ^ (~bl19 & bl15); h18 = bh18 ^ (~bh19 & bh15);
    l19 = bl19 ^ (~bl15 & bl16); h19 = bh19 ^ (~bh15 & bh16);
    l20 = bl20 ^ (~bl21 & bl22); h20 = bh20 ^ (~bh21 & bh22);
    l21 = bl21 ^ (~bl22 & bl23); h21 = bh21 ^ (~bh22 & bh23);
    l22 = bl22 ^ (~bl23 & bl24); h22 = bh22 ^ (~bh23 & bh24);
    l23 = bl23 ^ (~bl24 & bl20); h23 = bh23 ^ (~bh24 & bh20);
    l24 = bl24 ^ (~bl20 & bl21); h24 = bh24 ^ (~bh20 & bh21);
    l0 ^= RC_LO[round]!; h0 ^= RC_HI[round]!;
  }
  s[0] = l0; s[1] = h0;
  s[2] = l1; s[3] = h1;
  s[4] = l2; s[5] = h2;
  s[6] = l3; s[7] = h3;
  s[8] = l4; s[9] = h4;
  s[10] = l5; s[11] = h5;
  s[12] = l6; s[13] = h6;
  s[14] = l7; s[15] = h7;
  s[16] = l8; s[17] = h8;
  s[18] = l9; s[19] = h9;
  s[20] = l10; s[21] = h10;
  s[22] = l11; s[23] = h11;
  s[24] = l12; s[25] = h12;
  s[26] = l13; s[27] = h13;
  s[28] = l14; s[29] = h14;
  s[30] = l15; s[31] = h15;
  s[32] = l16; s[33] = h16;
  s[34] = l17; s[35] = h17;
  s[36] = l18; s[37] = h18;
  s[38] = l19; s[39] = h19;
  s[40] = l20; s[41] = h20;
  s[42] = l21; s[43] = h21;
  s[44] = l22; s[45] = h22;
  s[46] = l23; s[47] = h23;
  s[48] = l24; s[49] = h24;
}
// END GENERATED permutation
