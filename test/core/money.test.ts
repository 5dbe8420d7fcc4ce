import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ServiceError } from "../../src/core/errors.js";
import {
  UNITS,
  formatAtomic,
  formatUsd,
  formatUsdCents,
  formatUsdcFixed,
  formatXmr,
  formatZec,
  parseAtomic,
  parseXmr,
  parseZec,
  usdCents,
  usdCentsToAtomicCeil,
} from "../../src/core/money.js";

describe("core/money", () => {
  it("formats each unit exactly", () => {
    expect(formatXmr(1_500_000_000_000n)).toBe("1.5");
    expect(formatXmr(30_000_000n)).toBe("0.00003");
    expect(formatXmr(12_000_000_000_000n)).toBe("12");
    expect(formatXmr(-1n)).toBe("-0.000000000001");
    expect(formatZec(10_000n)).toBe("0.0001");
    expect(formatUsd(100_000n)).toBe("$0.10");
    expect(formatUsd(1_000n)).toBe("$0.001");
    expect(formatUsd(25_000_000n)).toBe("$25.00");
    expect(formatUsd(-50_000n)).toBe("-$0.05");
    expect(formatUsdcFixed(95_000n)).toBe("0.095000");
    expect(formatUsdcFixed(-95_000n)).toBe("-0.095000");
    expect(formatUsdCents(1234)).toBe("$12.34");
    expect(usdCents(10)).toBe(100_000n);
    expect(formatAtomic(100n, UNITS.usdc, { minDecimals: 2 })).toBe("0.0001");
  });

  it("parses exact decimals and refuses anything else with 400 invalid_amount", () => {
    expect(parseXmr("1")).toBe(1_000_000_000_000n);
    expect(parseXmr(".25")).toBe(250_000_000_000n);
    expect(parseXmr("1.000000000001")).toBe(1_000_000_000_001n);
    expect(parseZec("0.00000001")).toBe(1n);
    for (const bad of ["", ".", "-1", "1e3", "1,5", "0x10", "1.0000000000001", " 1 2"]) {
      try {
        parseXmr(bad);
        expect.unreachable(`accepted ${JSON.stringify(bad)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(ServiceError);
        expect((e as ServiceError).status).toBe(400);
        expect((e as ServiceError).code).toBe("invalid_amount");
      }
    }
    expect(() => parseZec("0.000000001")).toThrow(/8 decimal/);
  });

  it("round-trips every unit (property)", () => {
    for (const u of Object.values(UNITS)) {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (a) => {
          expect(parseAtomic(formatAtomic(a, u), u)).toBe(a);
          expect(parseAtomic(formatAtomic(a, u, { fixed: true }), u)).toBe(a);
        }),
      );
    }
  });

  it("converts USD to coin rounding up, never down", () => {
    // $1.50 at $150/XMR = 0.01 XMR exactly
    expect(usdCentsToAtomicCeil(150n, UNITS.xmr, { num: 150n, den: 1n })).toBe(10_000_000_000n);
    // $1.00 at $3/ZEC = 0.333… ZEC → rounded up to 33333334 zatoshi
    expect(usdCentsToAtomicCeil(100n, UNITS.zec, { num: 3n, den: 1n })).toBe(33_333_334n);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 7n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 10n ** 6n }), (cents, num, den) => {
        const a = usdCentsToAtomicCeil(cents, UNITS.zec, { num, den });
        // a coins are worth at least the cents asked, and a-1 less than that
        expect(a * num * 100n >= cents * den * UNITS.zec.scale).toBe(true);
        expect((a - 1n) * num * 100n < cents * den * UNITS.zec.scale).toBe(true);
      }),
    );
  });
});
