/**
 * carrot/blake2b.ts against @noble/hashes' blake2b, byte for byte: random
 * messages around the block boundaries (0, 1..127, 128, 129, 256, 257 bytes),
 * keys of every length class (none, 1..64 bytes, the 32-byte Carrot keys),
 * every digest length 1..64, with and without a personalisation; and Carrot's
 * own calls (hash.ts deriveBytes, deriveScalar) with the "Monero"
 * personalisation; and the scanner's one-block form (oneBlockMessage,
 * blake2bKeyedWord0) against the first four bytes of the same hash.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex } from "../../../../src/chains/monero/encoding.js";
import { blake2bKeyed, blake2bKeyedWord0, oneBlockMessage } from "../../../../src/chains/monero/carrot/blake2b.js";
import { BLAKE2B_PERSONALIZATION } from "../../../../src/chains/monero/carrot/constants.js";
import { deriveBytes, deriveScalar, type DigestLength } from "../../../../src/chains/monero/carrot/hash.js";
import { L } from "../../../../src/chains/monero/crypto.js";
import { bytesToNumberLE } from "@noble/curves/utils.js";

const RUNS = { numRuns: 300, seed: 7693 };
const lengths = fc.oneof(fc.constantFrom(0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300), fc.integer({ min: 0, max: 400 }));
const message = lengths.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const key = fc.option(fc.oneof(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 1, maxLength: 64 })), { nil: undefined });
const personalization = fc.option(fc.uint8Array({ minLength: 16, maxLength: 16 }), { nil: undefined });

const noble = (outLen: number, data: Uint8Array, k?: Uint8Array, pers?: Uint8Array) =>
  bytesToHex(blake2b(data, { dkLen: outLen, ...(k ? { key: k } : {}), ...(pers ? { personalization: pers } : {}) }));

describe("blake2bKeyed equals @noble/hashes blake2b", () => {
  it("any message, key, digest length and personalisation", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), message, key, personalization, (outLen, data, k, pers) => {
        expect(bytesToHex(blake2bKeyed(outLen, data, k, pers))).toBe(noble(outLen, data, k, pers));
      }),
      RUNS,
    );
  });

  it("sequences of calls that repeat or change the key, digest length or personalisation (the key-block state is reused)", () => {
    const call = fc.record({ outLen: fc.constantFrom(3, 16, 32, 64), data: message, key: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined }), pers: fc.option(fc.constantFrom(0, 1), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(call, { minLength: 2, maxLength: 12 }), fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { minLength: 3, maxLength: 3 }), (calls, keys) => {
        // Same-content keys in fresh arrays, and one key array mutated in place between calls.
        const shared = new Uint8Array(keys[0]!);
        const persValues = [new Uint8Array(16), Uint8Array.from({ length: 16 }, (_, i) => i + 1)];
        for (const [n, c] of calls.entries()) {
          if (n % 3 === 2) shared[0] = shared[0]! ^ 1;
          const k = c.key === undefined ? undefined : c.key === 0 ? shared : new Uint8Array(keys[c.key]!);
          const pers = c.pers === undefined ? undefined : persValues[c.pers]!;
          expect(bytesToHex(blake2bKeyed(c.outLen, c.data, k, pers))).toBe(noble(c.outLen, c.data, k, pers));
        }
      }),
      { numRuns: 150, seed: 7695 },
    );
  });

  it("the RFC 7693 Appendix A vector: BLAKE2b-512(\"abc\")", () => {
    expect(bytesToHex(blake2bKeyed(64, new TextEncoder().encode("abc")))).toBe(
      "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
    );
  });

  it("Carrot's hashes (deriveBytes, deriveScalar) are noble's with the Monero personalisation", () => {
    fc.assert(
      fc.property(fc.constantFrom<DigestLength>(3, 8, 16, 32, 64), message, fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 }), { nil: undefined }), (b, data, k) => {
        expect(bytesToHex(deriveBytes(b, data, k))).toBe(noble(b, data, k, BLAKE2B_PERSONALIZATION));
        expect(deriveScalar(data, k)).toBe(bytesToNumberLE(blake2b(data, { dkLen: 64, personalization: BLAKE2B_PERSONALIZATION, ...(k ? { key: k } : {}) })) % L);
      }),
      { numRuns: 100, seed: 7694 },
    );
  });

  it("blake2bKeyedWord0 of a one-block message is the first four digest bytes, interleaved with blake2bKeyed under the same and other keys", () => {
    const oneBlock = fc.integer({ min: 1, max: 128 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
    const call = fc.record({ outLen: fc.constantFrom(3, 4, 8, 32, 64), data: oneBlock, key: fc.option(fc.constantFrom(0, 1), { nil: undefined }), other: message });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 8 }), fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 2, maxLength: 2 }), (calls, keys) => {
        for (const c of calls) {
          const k = c.key === undefined ? undefined : keys[c.key]!;
          const digest = blake2b(c.data, { dkLen: c.outLen, personalization: BLAKE2B_PERSONALIZATION, ...(k ? { key: k } : {}) });
          const word = blake2bKeyedWord0(c.outLen, oneBlockMessage(c.data), k, BLAKE2B_PERSONALIZATION);
          const n = Math.min(4, c.outLen);
          const want = digest.subarray(0, n).reduce((w, b, i) => w + b * 2 ** (8 * i), 0);
          expect(word % 2 ** (8 * n)).toBe(want);
          expect(bytesToHex(blake2bKeyed(c.outLen, c.other, k, BLAKE2B_PERSONALIZATION))).toBe(noble(c.outLen, c.other, k, BLAKE2B_PERSONALIZATION));
        }
      }),
      { numRuns: 150, seed: 7696 },
    );
    expect(() => oneBlockMessage(new Uint8Array(0))).toThrow(RangeError);
    expect(() => oneBlockMessage(new Uint8Array(129))).toThrow(RangeError);
  });

  it("refuses parameters outside BLAKE2b's", () => {
    expect(() => blake2bKeyed(0, new Uint8Array(1))).toThrow(RangeError);
    expect(() => blake2bKeyed(65, new Uint8Array(1))).toThrow(RangeError);
    expect(() => blake2bKeyed(32, new Uint8Array(1), new Uint8Array(65))).toThrow(RangeError);
    expect(() => blake2bKeyed(32, new Uint8Array(1), undefined, new Uint8Array(15))).toThrow(RangeError);
  });
});
