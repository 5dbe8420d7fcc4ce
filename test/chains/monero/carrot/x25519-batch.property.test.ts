/**
 * The batch X25519 (x25519.ts x25519UnclampedMany: one D_e, many k_v, on the
 * Edwards side with a shared window table and one inversion) against the
 * ladder (x25519Unclamped), byte for byte, for every kind of u the chain can
 * carry: points of the prime-order subgroup, points with a torsion component,
 * twist points (no curve point: the batch must fall back to the ladder), the
 * low-order u's (0, 1, −1, the two of order 8), and non-canonical encodings
 * (u ≥ p, bit 255 set), which the ladder reads mod p with bit 255 ignored.
 * Scalars: below ℓ (every k_v), up to 2^253 (the table's range), and beyond
 * it (the ladder again). carrotSharedSecrets is checked against
 * carrotSharedSecret the same way (null for the point at infinity).
 */
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { L, Point, mulBase, mulPoint } from "../../../../src/chains/monero/crypto.js";
import { bytesToHex } from "../../../../src/chains/monero/encoding.js";
import { carrotSharedSecret, carrotSharedSecrets } from "../../../../src/chains/monero/carrot/scan.js";
import { edwardsToMontgomery, montgomeryToEdwards, x25519Unclamped, x25519UnclampedMany } from "../../../../src/chains/monero/carrot/x25519.js";

const p = (1n << 255n) - 19n;
const RUNS = { numRuns: 40, seed: 2605 };
/** An ed25519 point of order 8 (the 8-torsion is cyclic: its multiples are all of it). */
const T8 = Point.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");

const le = (v: bigint): Uint8Array => numberToBytesLE(v, 32);
const hexAll = (xs: Uint8Array[]) => xs.map(bytesToHex);
const ladderAll = (u: Uint8Array, ks: bigint[]) => hexAll(ks.map((k) => x25519Unclamped(k, u)));

/** Scalars: mostly k_v-like (below ℓ), some up to the table's limit, some the ladder alone takes. */
const scalar = fc.oneof(
  { weight: 6, arbitrary: fc.bigInt({ min: 0n, max: L - 1n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: (1n << 253n) - 1n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 2n, 7n, 8n, L - 1n, L, L + 1n, 8n * L, (1n << 253n) - 1n, 1n << 253n, (1n << 255n) - 1n, (1n << 256n) - 1n) },
);
const scalars = fc.array(scalar, { minLength: 1, maxLength: 5 });
const window = fc.integer({ min: 2, max: 6 });

function expectBatchEqualsLadder(u: Uint8Array, ks: bigint[], w: number): void {
  expect(hexAll(x25519UnclampedMany(u, ks, { window: w }))).toEqual(ladderAll(u, ks));
  expect(carrotSharedSecrets(ks, u, { window: w }).map((s) => (s ? bytesToHex(s) : null))).toEqual(ks.map((k) => {
    const s = carrotSharedSecret(k, u);
    return s ? bytesToHex(s) : null;
  }));
}

describe("x25519UnclampedMany equals the ladder byte for byte", () => {
  it("points of the prime-order subgroup (u of s·G), and with a torsion component added", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: L - 1n }), fc.integer({ min: 0, max: 7 }), scalars, window, (s, t, ks, w) => {
        const P = mulBase(s).add(mulPoint(T8, BigInt(t)));
        const u = edwardsToMontgomery(P)!;
        expect(montgomeryToEdwards(u)).not.toBeNull(); // the table path, not the fallback
        expectBatchEqualsLadder(u, ks, w);
      }),
      RUNS,
    );
  });

  it("the same u with bit 255 set, and written as u + p when that still fits 255 bits", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: L - 1n }), scalars, (s, ks) => {
        const uv = bytesToNumberLE(edwardsToMontgomery(mulBase(s))!);
        const forms = [uv | (1n << 255n), ...(uv + p < 1n << 255n ? [uv + p] : [])];
        for (const f of forms) {
          expectBatchEqualsLadder(le(f), ks, 4);
          expect(hexAll(x25519UnclampedMany(le(f), ks))).toEqual(hexAll(x25519UnclampedMany(le(uv), ks)));
        }
      }),
      { numRuns: 15, seed: 2606 },
    );
  });

  it("any 32 bytes, on the curve or on the twist (the twist falls back to the ladder)", () => {
    let twist = 0;
    let curve = 0;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), scalars, window, (u, ks, w) => {
        if (montgomeryToEdwards(u)) curve++;
        else twist++;
        expectBatchEqualsLadder(u, ks, w);
      }),
      RUNS,
    );
    expect(twist).toBeGreaterThan(5); // about half of all u are twist points
    expect(curve).toBeGreaterThan(5);
  });

  it("low-order and special u: 0, 1, −1, the order-8 ones, their non-canonical forms", () => {
    const order8 = [1, 3, 5, 7].map((j) => edwardsToMontgomery(mulPoint(T8, BigInt(j)))!);
    const order4 = edwardsToMontgomery(mulPoint(T8, 2n))!;
    expect(bytesToNumberLE(order4)).toBe(1n); // (±√−1, 0) ↔ u = 1
    const values = [0n, 1n, p - 1n, p, p + 1n, p + 18n, ...order8.map(bytesToNumberLE)];
    const special = values.flatMap((v) => [v, v | (1n << 255n)]);
    expect(montgomeryToEdwards(le(p - 1n))).toBeNull(); // u = −1: no Edwards point
    expect(montgomeryToEdwards(le(0n))!.equals(Point.ZERO)).toBe(false);
    fc.assert(
      fc.property(fc.constantFrom(...special), scalars, window, (v, ks, w) => {
        expectBatchEqualsLadder(le(v), ks, w);
      }),
      RUNS,
    );
    // Every multiple of a low-order point is low order: the secrets the scan refuses (null) come out null here too.
    const ks = [0n, 1n, 2n, 4n, 8n, L - 1n, 12345678901234567890n];
    for (const v of [0n, p - 1n, p, ...order8.map(bytesToNumberLE)]) expectBatchEqualsLadder(le(v), ks, 3);
    expect(carrotSharedSecrets([8n, 16n], order8[0]!)).toEqual([null, null]);
  });

  it("any window width gives the same bytes; a u of the wrong length is refused", () => {
    const u = edwardsToMontgomery(mulBase(987654321n).add(T8))!;
    const ks = [1n, 5n, L - 2n, 3n * 2n ** 200n];
    const expected = ladderAll(u, ks);
    for (const w of [2, 5, 9]) expect(hexAll(x25519UnclampedMany(u, ks, { window: w }))).toEqual(expected);
    expect(carrotSharedSecrets(ks, u.subarray(0, 31))).toEqual([null, null, null, null]);
    expect(() => x25519UnclampedMany(u.subarray(0, 31), ks)).toThrow(RangeError);
    expect(x25519UnclampedMany(u, [])).toEqual([]);
  });
});
