/** Property tests: decoders never crash on hostile input (they return null/false or throw a 400), and codecs round-trip. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../src/core/errors.js";
import { decodeZcashAddress } from "../../../src/chains/zcash/addresses.js";
import { bech32Decode, bech32mEncode } from "../../../src/chains/zcash/bech32.js";
import { bytesToHex, readCompactSize, writeCompactSize } from "../../../src/chains/zcash/bytes.js";
import { f4jumble, f4jumbleInv } from "../../../src/chains/zcash/f4jumble.js";
import { ff1Diversifier, ff1DiversifierIndex } from "../../../src/chains/zcash/ff1.js";
import { jubjubFromBytes, jubjubToBytes } from "../../../src/chains/zcash/jubjub.js";
import { ZCASH_NETWORKS } from "../../../src/chains/zcash/network.js";
import { validateZcashWatchKey } from "../../../src/chains/zcash/ownership.js";
import { pallasFromBytes, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { base58check, decodeTransparentAddress } from "../../../src/chains/zcash/transparent.js";
import { decodeUfvk, decodeUivk, decodeUnified, decodeUnifiedAddress, encodeUnified } from "../../../src/chains/zcash/zip316.js";
import { rawUnified } from "./helpers.js";

const RUNS = 150;
const HRPS = ["u", "utest", "uregtest", "uview", "uviewtest", "uviewregtest", "uivk", "uivktest", "uivkregtest", "zs", "ztestsapling", "secret-extended-key-main", "zxviews", "x"];

/** Runs fn; passes if it returns or throws a 400 ServiceError, fails on anything else. */
function only400(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof ServiceError && e.status === 400) return;
    throw e;
  }
}

const allDecoders = (s: string) => {
  only400(() => decodeUfvk(s));
  only400(() => decodeUivk(s));
  only400(() => decodeUnifiedAddress(s));
  only400(() => decodeZcashAddress(s));
  only400(() => validateZcashWatchKey(s, s));
};

const bytes = (max: number) => fc.uint8Array({ minLength: 0, maxLength: max });

describe("decoders never crash", () => {
  it("on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        allDecoders(s);
        const r = bech32Decode(s);
        expect(typeof r.ok).toBe("boolean");
        expect(decodeTransparentAddress(s).ok === false || s.startsWith("t")).toBe(true);
      }),
      { numRuns: RUNS * 2 },
    );
  });
  it("on valid Bech32m strings with random payloads under every HRP", () => {
    fc.assert(
      fc.property(fc.constantFrom(...HRPS), bytes(400), (hrp, data) => {
        allDecoders(bech32mEncode(hrp, data));
      }),
      { numRuns: RUNS },
    );
  });
  it("on correctly jumbled and padded containers with random items", () => {
    const item = fc.record({
      typecode: fc.oneof(fc.constantFrom(0, 1, 2, 3, 0xe0, 0xfffa), fc.integer({ min: 0, max: 0x10000 })),
      data: fc.oneof(bytes(140), fc.constantFrom(20, 43, 64, 65, 96, 128).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))),
    });
    fc.assert(
      fc.property(fc.constantFrom("u", "uview", "uivk", "utest", "uviewregtest"), fc.array(item, { minLength: 0, maxLength: 4 }), bytes(40), (hrp, items, pad) => {
        let s: string;
        try {
          s = rawUnified(hrp, items, { trailing: pad });
        } catch {
          return; // shorter than F4Jumble's minimum: nothing to decode
        }
        allDecoders(s);
      }),
      { numRuns: RUNS },
    );
  });
  it("on Base58Check strings with random payloads", () => {
    fc.assert(
      fc.property(bytes(30), (data) => {
        const s = base58check.encode(data);
        expect(typeof decodeTransparentAddress(s).ok).toBe("boolean");
        only400(() => decodeZcashAddress(s));
        only400(() => decodeZcashAddress(`t${s}`));
      }),
      { numRuns: RUNS },
    );
  });
  it("point decoders return null or a point that re-encodes identically", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
        const j = jubjubFromBytes(b);
        if (j) expect(bytesToHex(jubjubToBytes(j))).toBe(bytesToHex(b));
        const p = pallasFromBytes(b);
        if (p) expect(bytesToHex(pallasToBytes(p))).toBe(bytesToHex(b));
      }),
      { numRuns: RUNS * 2 },
    );
  });
  it("CompactSize reader never reads past the buffer", () => {
    fc.assert(
      fc.property(bytes(12), fc.nat(12), (b, off) => {
        const r = readCompactSize(b, off);
        if (r) expect(r.next).toBeLessThanOrEqual(b.length);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("round trips", () => {
  it("F4Jumble⁻¹ ∘ F4Jumble = id and F4Jumble ∘ F4Jumble⁻¹ = id", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 48, maxLength: 600 }), (m) => {
        expect(bytesToHex(f4jumbleInv(f4jumble(m)))).toBe(bytesToHex(m));
        expect(bytesToHex(f4jumble(f4jumbleInv(m)))).toBe(bytesToHex(m));
      }),
      { numRuns: RUNS },
    );
  });
  it("FF1 decryption inverts encryption for any key and index", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.bigInt({ min: 0n, max: (1n << 88n) - 1n }), (dk, j) => {
        expect(ff1DiversifierIndex(dk, ff1Diversifier(dk, j))).toBe(j);
      }),
      { numRuns: RUNS },
    );
  });
  it("CompactSize write/read", () => {
    fc.assert(
      fc.property(fc.nat(0xffffffff), (n) => {
        const b = writeCompactSize(n);
        expect(readCompactSize(b, 0)).toEqual({ value: n, next: b.length });
      }),
      { numRuns: RUNS },
    );
  });
  it("unified containers with unknown items decode to the items encoded, on every network", () => {
    // Items of ≥ 32 bytes keep the container above F4Jumble's 48-byte minimum.
    const unknownItem = fc.record({ typecode: fc.integer({ min: 4, max: 0xbf }), data: fc.uint8Array({ minLength: 32, maxLength: 80 }) });
    fc.assert(
      fc.property(fc.constantFrom(...ZCASH_NETWORKS), fc.uniqueArray(unknownItem, { minLength: 1, maxLength: 5, selector: (i) => i.typecode }), (network, items) => {
        const s = encodeUnified("address", network, items);
        const d = decodeUnified(s, "address", network);
        const sorted = [...items].sort((a, b) => a.typecode - b.typecode);
        expect(d.items.map((i) => [i.typecode, bytesToHex(i.data)])).toEqual(sorted.map((i) => [i.typecode, bytesToHex(i.data)]));
        expect(decodeUnifiedAddress(s).unknown.length).toBe(items.length);
      }),
      { numRuns: RUNS },
    );
  });
  it("Bech32m encode/decode", () => {
    fc.assert(
      fc.property(fc.constantFrom(...HRPS), bytes(300), (hrp, data) => {
        const d = bech32Decode(bech32mEncode(hrp, data));
        if (bech32mEncode(hrp, data).length >= 8) expect(d.ok && d.hrp === hrp && bytesToHex(d.data) === bytesToHex(data)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
