import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  commit,
  commitmentMask,
  decodeAmountV1,
  decodeAmountV2,
  decryptAmountV2,
  encryptAmountV1,
  encryptAmountV2,
} from "../../../src/chains/monero/amount.js";
import { L, scalarToBytes } from "../../../src/chains/monero/crypto.js";

const scalar = fc.bigInt({ min: 1n, max: L - 1n }).map(scalarToBytes);
const amount = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

describe("RingCT amounts", () => {
  it("v2 (types 4-6): encrypt/decrypt round trip, commitment opens, wrong key or amount does not", () => {
    fc.assert(
      fc.property(scalar, scalar, amount, (k, other, a) => {
        fc.pre(k.some((b, i) => b !== other[i]));
        const enc = encryptAmountV2(a, k);
        expect(decryptAmountV2(enc, k)).toBe(a);
        const C = commit(commitmentMask(k), a).toBytes();
        expect(decodeAmountV2(enc, C, k)).toEqual({ amount: a, mask: commitmentMask(k) });
        expect(decodeAmountV2(enc, C, other)).toBeNull();
        const tampered = Uint8Array.from(enc);
        tampered[7] = tampered[7]! ^ 0x80;
        expect(decodeAmountV2(tampered, C, k)).toBeNull();
      }),
      { numRuns: 20 },
    );
    expect(() => encryptAmountV2(2n ** 64n, new Uint8Array(32))).toThrow();
  });

  it("v1 (types 1-3): 32-byte mask/amount encoding round trip with the commitment check", () => {
    fc.assert(
      fc.property(scalar, fc.bigInt({ min: 1n, max: L - 1n }), amount, (k, mask, a) => {
        const e = encryptAmountV1(a, mask, k);
        const C = commit(mask, a).toBytes();
        expect(decodeAmountV1(e.mask, e.amount, C, k)).toEqual({ amount: a, mask });
        expect(decodeAmountV1(e.mask, e.amount, commit(mask, a + 1n).toBytes(), k)).toBeNull();
      }),
      { numRuns: 15 },
    );
  });
});
