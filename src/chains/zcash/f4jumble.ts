/** F4Jumble and its inverse (ZIP 316 §"Jumbling"), a 4-round unkeyed Feistel over BLAKE2b. */
import { blake2b } from "@noble/hashes/blake2.js";
import { asciiBytes } from "./bytes.js";

export const F4JUMBLE_MIN = 48;
export const F4JUMBLE_MAX = 4_194_368;

const H_PERS = asciiBytes("UA_F4Jumble_H");
const G_PERS = asciiBytes("UA_F4Jumble_G");

function hRound(i: number, u: Uint8Array, outLen: number): Uint8Array {
  const pers = new Uint8Array(16);
  pers.set(H_PERS);
  pers[13] = i;
  return blake2b(u, { dkLen: outLen, personalization: pers });
}

function gRound(i: number, u: Uint8Array, outLen: number): Uint8Array {
  const out = new Uint8Array(outLen);
  const pers = new Uint8Array(16);
  pers.set(G_PERS);
  pers[13] = i;
  for (let j = 0, off = 0; off < outLen; j++, off += 64) {
    pers[14] = j & 0xff;
    pers[15] = j >> 8;
    const block = blake2b(u, { dkLen: 64, personalization: pers });
    out.set(block.subarray(0, Math.min(64, outLen - off)), off);
  }
  return out;
}

function xorInto(target: Uint8Array, mask: Uint8Array): void {
  for (let k = 0; k < target.length; k++) target[k] ^= mask[k];
}

function checkLength(n: number): void {
  if (n < F4JUMBLE_MIN || n > F4JUMBLE_MAX) throw new RangeError(`F4Jumble input must be ${F4JUMBLE_MIN}..${F4JUMBLE_MAX} bytes`);
}

export function f4jumble(message: Uint8Array): Uint8Array {
  checkLength(message.length);
  const lL = Math.min(64, Math.floor(message.length / 2));
  const lR = message.length - lL;
  const a = message.slice(0, lL);
  const b = message.slice(lL);
  const x = b;
  xorInto(x, gRound(0, a, lR));
  const y = a;
  xorInto(y, hRound(0, x, lL));
  const d = x;
  xorInto(d, gRound(1, y, lR));
  const c = y;
  xorInto(c, hRound(1, d, lL));
  const out = new Uint8Array(message.length);
  out.set(c);
  out.set(d, lL);
  return out;
}

export function f4jumbleInv(jumbled: Uint8Array): Uint8Array {
  checkLength(jumbled.length);
  const lL = Math.min(64, Math.floor(jumbled.length / 2));
  const lR = jumbled.length - lL;
  const c = jumbled.slice(0, lL);
  const d = jumbled.slice(lL);
  const y = c;
  xorInto(y, hRound(1, d, lL));
  const x = d;
  xorInto(x, gRound(1, y, lR));
  const a = y;
  xorInto(a, hRound(0, x, lL));
  const b = x;
  xorInto(b, gRound(0, a, lR));
  const out = new Uint8Array(jumbled.length);
  out.set(a);
  out.set(b, lL);
  return out;
}
