/**
 * The pure parts of paying in coin: exact decimal rates, the agreed rate of
 * several providers, the rate source's cache, and the quote amount's tag.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ManualClock } from "../../src/core/clock.js";
import { ServiceError } from "../../src/core/errors.js";
import { agreedRate, createRateSource, fixedProviders, formatRate, parseDecimalRate, type PriceProvider, type Rate } from "../../src/checkout/prices.js";
import { taggedAmount, TAG_MODULUS } from "../../src/checkout/quotes.js";

const r = (text: string) => parseDecimalRate(text);
const same = (a: Rate | null, b: Rate) => expect(a && a.num * b.den).toBe(b.num * a!.den);

describe("rates", () => {
  it("parses plain decimals exactly and refuses anything else", () => {
    expect(r("163.27")).toEqual({ num: 16327n, den: 100n });
    expect(r("150.50")).toEqual({ num: 301n, den: 2n });
    for (const bad of ["-1", "1e3", "0", "0.000", "", "1,5", " 12.3.4"]) expect(() => r(bad), bad).toThrow();
    expect(formatRate(r("150.25"))).toBe("150.25");
    expect(formatRate({ num: 1n, den: 3n })).toBe("0.333333");
  });

  it("takes the median, drops a provider that strays more than 5 % from it, and trusts nobody when all disagree", () => {
    same(agreedRate([r("150"), r("151"), r("400")]), r("150.5"));
    same(agreedRate([r("150"), r("152"), r("149"), r("10")]), r("150"));
    same(agreedRate([r("150.25")]), r("150.25"));
    expect(agreedRate([r("100"), r("300")])).toBeNull();
    expect(agreedRate([])).toBeNull();
  });

  it("caches the agreed rate for cacheSeconds on the clock, and answers 503 price_unavailable without one", async () => {
    const clock = new ManualClock(1_000_000);
    let calls = 0;
    let fail = false;
    const counting: PriceProvider = {
      name: "counting",
      coin: "xmr",
      fetch: async () => {
        calls++;
        if (fail) throw new Error("down");
        return r("150.25");
      },
    };
    const source = createRateSource({ providers: [counting, ...fixedProviders("zec=32.1")], clock, cacheSeconds: 60 });
    expect((await source.usdRate("xmr")).display).toBe("150.25");
    clock.advance(59_000);
    await source.usdRate("xmr");
    expect(calls).toBe(1);
    fail = true;
    clock.advance(2_000);
    const err = await source.usdRate("xmr").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 503, code: "price_unavailable" });
    expect(calls).toBe(2);
    expect((await source.usdRate("zec")).rate).toEqual({ num: 321n, den: 10n });
  });
});

describe("the amount tag", () => {
  it("asks at least the base, keeps the tag in the last six digits, and differs for every tag", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: TAG_MODULUS - 1n }), (base, tag) => {
        const a = taggedAmount(base, tag);
        expect(a).toBeGreaterThan(base);
        expect(a - base).toBeLessThan(2n * TAG_MODULUS);
        expect(a % TAG_MODULUS).toBe(tag);
        // Same base, another tag: another amount.
        const other = tag === 1n ? 2n : tag - 1n;
        expect(taggedAmount(base, other)).not.toBe(a);
      }),
    );
    expect(() => taggedAmount(5n, 0n)).toThrow(RangeError);
    expect(() => taggedAmount(5n, TAG_MODULUS)).toThrow(RangeError);
  });
});
