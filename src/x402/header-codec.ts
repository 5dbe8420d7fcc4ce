/**
 * The x402 v2 headers PAYMENT-REQUIRED and PAYMENT-RESPONSE: base64 of the
 * object's JSON in UTF-8. @x402/core's encoders build the base64 through a
 * per-byte string and btoa, which was a third of the CPU of every 402 answer
 * (bench:http's profile); Buffer gives the same characters natively, checked
 * against @x402/core's own encoder in test/x402/header-codec.test.ts.
 */

/** Base64 of a JSON text's UTF-8 bytes (standard alphabet, padded), as the x402 headers carry it. */
export function base64OfJson(json: string): string {
  return Buffer.from(json, "utf8").toString("base64");
}

/** The header value of an x402 object (PaymentRequired or a settlement's response). */
export function encodeX402Header(value: unknown): string {
  return base64OfJson(JSON.stringify(value));
}
