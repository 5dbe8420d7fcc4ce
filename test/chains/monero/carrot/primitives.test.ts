/**
 * The Carrot primitives on their own: the unclamped X25519 ladder (against
 * mx25519's own test vectors and against Edwards-side multiplication), the
 * Edwards→Montgomery map, the Blake2b transcripts, and the constants' shape.
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { L, Point, mulBase, mulPoint } from "../../../../src/chains/monero/crypto.js";
import { bytesToHex, hexToBytes } from "../../../../src/chains/monero/encoding.js";
import {
  BLAKE2B_PERSONALIZATION,
  DOMAIN,
  GENERATOR_T,
  GENERATOR_T_HEX,
  outputKindRule,
} from "../../../../src/chains/monero/carrot/constants.js";
import { inputContextCoinbase, inputContextRingct } from "../../../../src/chains/monero/carrot/enote.js";
import { deriveBytes, deriveScalar, transcript } from "../../../../src/chains/monero/carrot/hash.js";
import { edwardsToMontgomery, x25519BaseUnclamped, x25519Unclamped } from "../../../../src/chains/monero/carrot/x25519.js";
import { blake2b } from "@noble/hashes/blake2.js";

const P = (1n << 255n) - 19n;
const nine = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 9 : 0));

/** The scalar mx25519 multiplies by after its masks (clamp_and_dispatch): low bits & lsbMask, bit 254 | msbBit, bit 255 ignored. */
function maskedScalar(hex: string, lsbMask: number, setBit254: boolean): bigint {
  const e = hexToBytes(hex);
  e[0]! &= lsbMask;
  if (setBit254) e[31]! |= 0x40;
  return bytesToNumberLE(e);
}

describe("x25519Unclamped against tevador/mx25519 @ 2c45ac0245d8bea0cb45a5c85b6a6ea34f84f75b tests/tests.c", () => {
  // Transcribed from that file (rfc7748_*, test_*3, test_*4, inv_1, inv_pubkey).
  const clamped = [
    ["rfc7748 1", "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4", "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c", "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"],
    ["rfc7748 2 (u with bit 255 set)", "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d", "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493", "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"],
    ["u ≥ p (test 3)", "a92b2c3964e188a899d6f74b99679013b0a2510b5a6a0a90739e444b23f7bae6", "f6ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "18b1569101d55e0e7e8527a73e27d43393a2d4ec73e67078064bc2a56dcb5860"],
    ["rfc7748 DH alice·bob", "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"],
  ] as const;
  for (const [name, k, u, r] of clamped) {
    it(`clamped ${name}: the ladder on the clamped scalar`, () => {
      expect(bytesToHex(x25519Unclamped(maskedScalar(k, 248, true), hexToBytes(u)))).toBe(r);
    });
  }

  it("MX25519_UNCLAMP_254 (test 4): bit 254 left at 0, bit 255 set in the input and ignored", () => {
    const k = "abc58a54782e87c7052458c2caa461aa27024fb08801ad4bb376b880e449da88";
    const s = maskedScalar(k, 248, false);
    expect(s >> 254n & 1n).toBe(0n);
    expect(s >> 255n).toBe(1n);
    const r = x25519Unclamped(s, hexToBytes("08558f428dff0dc8ee4bebf2408982cf65538a3ae57dffe4f49f43f5506ccd09"));
    expect(bytesToHex(r)).toBe("cd178e864e4f3dd3f5e945c04b87825b84d8a224b6c240784515c5f87af27647");
  });

  it("MX25519_UNCLAMP_254 with inv_1 = 8·8⁻¹: the point comes back unchanged (test_invert1)", () => {
    const pub = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
    const inv1 = "c87be1164f29370883d6e6e89bed9c3e00000000000000000000000000000030";
    expect(bytesToHex(x25519Unclamped(maskedScalar(inv1, 248, false), hexToBytes(pub)))).toBe(pub);
  });

  it("MX25519_UNCLAMP_ALL base times 1 is B (u = 9)", () => {
    expect(bytesToHex(x25519Unclamped(1n, nine))).toBe(bytesToHex(nine));
    expect(bytesToHex(x25519BaseUnclamped(1n))).toBe(bytesToHex(nine));
  });
});

describe("x25519Unclamped properties", () => {
  const scalarArb = fc.bigInt({ min: 1n, max: L - 1n });

  it("equals the u of k·P computed on the Edwards side, for any k < ℓ (no clamping)", () => {
    fc.assert(
      fc.property(scalarArb, scalarArb, (k, p) => {
        const Pt = mulBase(p);
        const u = edwardsToMontgomery(Pt)!;
        expect(bytesToHex(x25519Unclamped(k, u))).toBe(bytesToHex(edwardsToMontgomery(mulPoint(Pt, k)) ?? new Uint8Array(32)));
      }),
      { numRuns: 25 },
    );
  });

  it("equals @noble/curves x25519 (RFC 7748) once the scalar is clamped, for any u (twist points included)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (k, u) => {
        const clampedK = bytesToNumberLE(k) & ~7n & ((1n << 255n) - 1n) | (1n << 254n);
        expect(bytesToHex(x25519Unclamped(clampedK, u))).toBe(bytesToHex(x25519.scalarMult(k, u)));
      }),
      { numRuns: 25 },
    );
  });

  it("ignores bit 255 of u and reads u ≥ p mod p", () => {
    const k = 0x1234567890abcdefn * 0xfedcba0987654321n;
    const u = numberToBytesLE(123456789n, 32);
    const withTopBit = u.slice();
    withTopBit[31]! |= 0x80;
    expect(x25519Unclamped(k, withTopBit)).toEqual(x25519Unclamped(k, u));
    expect(x25519Unclamped(k, numberToBytesLE(P + 9n, 32))).toEqual(x25519Unclamped(k, nine));
  });

  it("gives 32 zero bytes (never throws) for the point at infinity: u = 0, or an order-4 point times 4", () => {
    expect(x25519Unclamped(12345n, new Uint8Array(32))).toEqual(new Uint8Array(32));
    const one = numberToBytesLE(1n, 32); // u = 1 has order 4
    expect(x25519Unclamped(4n, one)).toEqual(new Uint8Array(32));
    expect(x25519Unclamped(0n, nine)).toEqual(new Uint8Array(32));
    expect(() => x25519Unclamped(1n, new Uint8Array(31))).toThrow(RangeError);
  });

  it("edwardsToMontgomery: G ↦ 9, the identity ↦ null (the reference fails there)", () => {
    expect(bytesToHex(edwardsToMontgomery(Point.BASE)!)).toBe(bytesToHex(nine));
    expect(edwardsToMontgomery(Point.ZERO)).toBeNull();
    expect(x25519BaseUnclamped(0n)).toEqual(new Uint8Array(32));
  });
});

describe("Blake2b transcripts (transcript_fixed.h, hash_functions.cpp)", () => {
  it("transcript = length byte ‖ domain separator (no NUL) ‖ fields; u64 little-endian, u8 one byte", () => {
    const t = transcript(DOMAIN.viewTag, Uint8Array.of(0xaa, 0xbb), { u64: 0x0102030405060708n }, { u8: 1 });
    expect(t[0]).toBe(15);
    expect(new TextDecoder().decode(t.subarray(1, 16))).toBe("Carrot view tag");
    expect(bytesToHex(t.subarray(16))).toBe("aabb" + "0807060504030201" + "01");
  });

  it("the digest length is a Blake2b parameter: H_3 is not a prefix of H_32", () => {
    const data = transcript(DOMAIN.viewTag, new Uint8Array(33), new Uint8Array(32));
    const key = new Uint8Array(32).fill(7);
    expect(bytesToHex(deriveBytes(3, data, key))).not.toBe(bytesToHex(deriveBytes(32, data, key).subarray(0, 3)));
    expect(deriveBytes(3, data, key)).toEqual(blake2b(data, { dkLen: 3, key, personalization: BLAKE2B_PERSONALIZATION }));
  });

  it("the secret is the Blake2b key, not part of the message; the personalisation is \"Monero\" padded to 16", () => {
    const data = Uint8Array.of(1, 2, 3);
    const key = new Uint8Array(32).fill(9);
    expect(deriveBytes(32, data, key)).not.toEqual(deriveBytes(32, Uint8Array.from([...key, ...data])));
    expect(bytesToHex(BLAKE2B_PERSONALIZATION)).toBe("4d6f6e65726f" + "00".repeat(10));
    expect(deriveBytes(8, data)).not.toEqual(blake2b(data, { dkLen: 8 }));
    expect(() => deriveBytes(8, data, new Uint8Array(16))).toThrow(RangeError);
  });

  it("derive_scalar: the 64-byte digest mod ℓ", () => {
    const data = Uint8Array.of(5);
    expect(deriveScalar(data)).toBe(bytesToNumberLE(deriveBytes(64, data)) % L);
    expect(deriveScalar(data)).toBeLessThan(L);
  });

  it("input contexts: 'R' ‖ key image, 'C' ‖ LE64(block index) ‖ 24 zero bytes", () => {
    const ki = new Uint8Array(32).fill(0xab);
    expect(bytesToHex(inputContextRingct(ki))).toBe("52" + "ab".repeat(32));
    expect(bytesToHex(inputContextCoinbase(0x0102n))).toBe("43" + "0201" + "00".repeat(30));
    expect(() => inputContextCoinbase(-1n)).toThrow(RangeError);
  });
});

describe("constants", () => {
  it("T is a prime-order point", () => {
    expect(bytesToHex(GENERATOR_T)).toBe(GENERATOR_T_HEX);
    const T = Point.fromBytes(GENERATOR_T);
    expect(T.isTorsionFree()).toBe(true);
    expect(T.is0()).toBe(false);
  });

  it("every domain separator is short enough for its one-byte length prefix and has no NUL", () => {
    for (const d of Object.values(DOMAIN)) {
      expect(d.length).toBeGreaterThan(0);
      expect(d.length).toBeLessThanOrEqual(255);
      expect(d.includes(0)).toBe(false);
    }
  });

  it("output kinds per fork: legacy only before v17, either in v17, Carrot only from v18", () => {
    expect(outputKindRule(16)).toBe("legacy-only");
    expect(outputKindRule(17)).toBe("legacy-or-carrot");
    expect(outputKindRule(18)).toBe("carrot-only");
    expect(outputKindRule(19)).toBe("carrot-only");
  });
});
