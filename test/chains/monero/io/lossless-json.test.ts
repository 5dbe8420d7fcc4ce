import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonLossless, stringifyJsonLossless, u64 } from "../../../../src/chains/monero/daemon-client.js";

describe("parseJsonLossless", () => {
  it("agrees with JSON.parse on any JSON, except that unsafe integers are exact bigints", () => {
    const rounded = (v: unknown): unknown =>
      typeof v === "bigint"
        ? Number(v)
        : Array.isArray(v)
          ? v.map(rounded)
          : v !== null && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]))
            : v;
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(rounded(parseJsonLossless(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps integers beyond 2^53 exact as bigint and small ones as numbers", () => {
    const v = parseJsonLossless('{"a":18446744073709551615,"b":[9007199254740993,-9007199254740993,42],"c":1.5e3}') as Record<string, unknown>;
    expect(v.a).toBe(18446744073709551615n);
    expect(v.b).toEqual([9007199254740993n, -9007199254740993n, 42]);
    expect(v.c).toBe(1500);
  });

  it("round-trips bigint through stringifyJsonLossless as bare integers", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.string(), (n, s) => {
        const text = stringifyJsonLossless({ n, s, list: [n] });
        // Bare digits where the numbers are (the string s may itself be those digits, quoted).
        expect(text.startsWith(`{"n":${n},"s":`)).toBe(true);
        expect(text.endsWith(`,"list":[${n}]}`)).toBe(true);
        const back = parseJsonLossless(text) as { n: unknown; s: unknown; list: unknown[] };
        expect(u64(back.n)).toBe(n);
        expect(back.s).toBe(s);
        expect(u64(back.list[0])).toBe(n);
      }),
      // A string that spells the number (a counterexample fast-check once found for an earlier form of this test).
      { examples: [[4n, "4"], [18446744073709551615n, "18446744073709551615"]] },
    );
  });

  it("rejects malformed JSON and trailing garbage", () => {
    for (const bad of ["", "{", '{"a":}', "[1,]", "01x", '{"a":1} x', "nul", '"\\x"']) {
      expect(() => parseJsonLossless(bad), bad).toThrow();
    }
  });

  it("does not let __proto__ keys touch the prototype", () => {
    const v = parseJsonLossless('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(v, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("u64 accepts exact forms only", () => {
    expect(u64(5)).toBe(5n);
    expect(u64("18446744073709551615")).toBe(18446744073709551615n);
    expect(() => u64(2 ** 60)).toThrow();
    expect(() => u64(-1)).toThrow();
    expect(() => u64("18446744073709551616")).toThrow();
    expect(() => u64(1.5)).toThrow();
  });
});
