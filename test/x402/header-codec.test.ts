/** Our x402 header encoder gives exactly @x402/core's characters, for any JSON value, non-ASCII included. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { encodeX402Header } from "../../src/x402/header-codec.js";

describe("x402 header codec", () => {
  it("equals @x402/core's encoders on arbitrary JSON (unicode strings, nesting, numbers)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: "small" }), fc.string({ unit: "grapheme" }), (value, text) => {
        const v = { x402Version: 2, text, value };
        expect(encodeX402Header(v)).toBe(encodePaymentRequiredHeader(v as never));
        expect(encodeX402Header(v)).toBe(encodePaymentResponseHeader(v as never));
      }),
      { numRuns: 500 },
    );
  });

  it("round-trips through @x402/core's decoder", () => {
    const pr = { x402Version: 2, error: "payment_required", resource: { url: "http://x/v1/q/xmr/height", description: "Monero tip — height ≤ 10⁹", mimeType: "application/json" }, accepts: [] };
    expect(decodePaymentRequiredHeader(encodeX402Header(pr))).toEqual(pr);
  });
});
