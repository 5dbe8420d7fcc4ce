import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64urlnopad } from "@scure/base";
import { memoTokenOf, moneroUri, newMemoToken, TAG_MODULI, tagOf, taggedAmountFor, walletUri, zip321Uri } from "../../src/checkout/pay-id.js";

describe("payment identification per chain", () => {
  for (const chain of ["monero", "zcash"] as const) {
    it(`${chain}: the tagged amount is at least the base, carries its tag, and distinct tags give distinct amounts`, () => {
      const m = TAG_MODULI[chain];
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: m - 1n }), fc.bigInt({ min: 1n, max: m - 1n }), (base, tag, other) => {
          const a = taggedAmountFor(chain, base, tag);
          expect(a).toBeGreaterThanOrEqual(base);
          expect(a - base).toBeLessThan(2n * m);
          expect(tagOf(chain, a)).toBe(tag);
          if (other !== tag) expect(taggedAmountFor(chain, base, other)).not.toBe(a);
        }),
      );
      expect(() => taggedAmountFor(chain, 5n, 0n)).toThrow(RangeError);
      expect(() => taggedAmountFor(chain, 5n, m)).toThrow(RangeError);
    });
  }

  it("Zcash tags sit in the last three zatoshi digits, Monero's in the last six piconero digits", () => {
    expect(taggedAmountFor("zcash", 123_456_789n, 7n)).toBe(123_457_007n);
    expect(taggedAmountFor("monero", 123_456_789n, 7n)).toBe(124_000_007n);
  });

  it("memo tokens: 80 random bits in base32, read back from a memo with whitespace or in lower case, nothing else", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const t = newMemoToken();
      expect(t).toMatch(/^vigil-[A-Z2-7]{16}$/);
      seen.add(t);
      expect(memoTokenOf(t)).toBe(t);
      expect(memoTokenOf(`  ${t}\n`)).toBe(t);
      expect(memoTokenOf(t.toLowerCase())).toBe(t);
    }
    expect(seen.size).toBe(200);
    for (const bad of [null, undefined, "", "vigil-", "vigil-AAAAAAAAAAAAAAA", "vigil-AAAAAAAAAAAAAAAAA", "vigil-AAAAAAAAAAAAAAA1", "thanks vigil-AAAAAAAAAAAAAAAA", "x".repeat(512)])
      expect(memoTokenOf(bad)).toBeNull();
  });

  it("ZIP 321: amount in ZEC, memo base64url without padding, message percent-encoded", () => {
    const addr = "ztestsapling10yy2ex5dcqkclhc7z7yrnjq2z6feyjad56ptwlfgmy77dmaqqrl9gyhprdx59qgmsnyfska2kez";
    // The shape of ZIP 321's single-payment example.
    expect(zip321Uri(addr, 100_000_000n, "This is a simple memo.", "Thank you for your purchase")).toBe(
      `zcash:${addr}?amount=1&memo=VGhpcyBpcyBhIHNpbXBsZSBtZW1vLg&message=Thank%20you%20for%20your%20purchase`,
    );
    const token = newMemoToken();
    const uri = zip321Uri("u1example", 1_234_567n, token);
    const params = new URL(uri).searchParams;
    expect(uri.startsWith("zcash:u1example?")).toBe(true);
    expect(params.get("amount")).toBe("0.01234567");
    expect(new TextDecoder().decode(base64urlnopad.decode(params.get("memo")!))).toBe(token);
    expect(params.get("memo")).not.toContain("=");
  });

  it("Monero URI: tx_amount in XMR and an optional description; walletUri picks the chain's form", () => {
    expect(moneroUri("4abc", 1_500_000_000_000n, "Two mugs")).toBe("monero:4abc?tx_amount=1.5&tx_description=Two%20mugs");
    expect(walletUri("monero", "4abc", 1_500_000_000_000n, null, null)).toBe("monero:4abc?tx_amount=1.5");
    expect(walletUri("zcash", "u1x", 150_000_000n, null, null)).toBe("zcash:u1x?amount=1.5");
  });
});
