import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WEBHOOK_SECRET_PATTERN, generateWebhookSecret, signBody, verifySignature } from "../../src/webhooks/sign.js";

describe("webhook signatures", () => {
  it("is HMAC-SHA256 keyed by the UTF-8 bytes of the secret string, over the raw body", () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?"
    expect(signBody("Jefe", "what do ya want for nothing?")).toBe(
      "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
    const secret = "whsec_" + "ab".repeat(32);
    const body = '{"event":"synthetic_test","note":"café"}';
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(Buffer.from(body, "utf8")).digest("hex");
    expect(signBody(secret, body)).toBe(`sha256=${expected}`);
    // the key is the string, not its hex-decoded bytes
    const hexDecodedKey = createHmac("sha256", Buffer.from("ab".repeat(32), "hex")).update(body).digest("hex");
    expect(signBody(secret, body)).not.toBe(`sha256=${hexDecodedKey}`);
  });

  it("signs strings and bytes identically", () => {
    const body = '{"a":"ü€𝄞"}';
    expect(signBody("k", new TextEncoder().encode(body))).toBe(signBody("k", body));
    const buf = Buffer.from("xx" + body + "yy");
    expect(signBody("k", buf.subarray(2, buf.length - 2))).toBe(signBody("k", body));
  });

  it("verifies its own signatures and rejects tampering, wrong keys and malformed headers", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.uint8Array({ maxLength: 512 }), fc.nat(), (secret, body, flip) => {
        const sig = signBody(secret, body);
        expect(verifySignature(secret, body, sig)).toBe(true);
        expect(verifySignature(secret, body, `  ${sig.toUpperCase().replace("SHA256=", "sha256=")} `)).toBe(true);
        expect(verifySignature(secret + "x", body, sig)).toBe(false);
        if (body.length > 0) {
          const tampered = Uint8Array.from(body);
          tampered[flip % body.length] ^= 1 << flip % 8;
          expect(verifySignature(secret, tampered, sig)).toBe(false);
        }
        expect(verifySignature(secret, body, sig.slice(7))).toBe(false);
        expect(verifySignature(secret, body, sig.slice(0, -2))).toBe(false);
        expect(verifySignature(secret, body, sig.replace("sha256=", "sha1="))).toBe(false);
      }),
      { numRuns: 200 },
    );
    expect(verifySignature("k", "b", undefined)).toBe(false);
    expect(verifySignature("k", "b", null)).toBe(false);
    expect(verifySignature("k", "b", "")).toBe(false);
    expect(verifySignature("k", "b", "sha256=" + "z".repeat(64))).toBe(false);
  });

  it("generates distinct whsec_ secrets with 32 random bytes", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const s = generateWebhookSecret();
      expect(s).toMatch(WEBHOOK_SECRET_PATTERN);
      expect(s).toHaveLength(70);
      seen.add(s);
    }
    expect(seen.size).toBe(200);
  });
});
