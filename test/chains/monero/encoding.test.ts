import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytesStrict } from "../../../src/chains/monero/encoding.js";

// hexToBytesStrict is the one hex helper not taken from noble: input from daemons and requests gets null, never an exception.
describe("hexToBytesStrict", () => {
  it("decodes even-length hex of either case", () => {
    expect(hexToBytesStrict("")).toEqual(new Uint8Array(0));
    expect(hexToBytesStrict("00ff7F")).toEqual(Uint8Array.of(0x00, 0xff, 0x7f));
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
      expect(hexToBytesStrict(bytesToHex(b))).toEqual(b);
      expect(hexToBytesStrict(bytesToHex(b).toUpperCase())).toEqual(b);
    }));
  });

  it("answers null on odd length, a non-hex character, a prefix or whitespace", () => {
    for (const bad of ["0", "abc", "0g", "zz", "0x00", " 00", "00 ", "ａａ"]) expect(hexToBytesStrict(bad), bad).toBeNull();
    expect(hexToBytesStrict(42 as unknown as string)).toBeNull();
  });

  it("never throws on arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (s) => {
      const r = hexToBytesStrict(s);
      expect(r === null || r.length * 2 === s.length).toBe(true);
    }));
  });
});
