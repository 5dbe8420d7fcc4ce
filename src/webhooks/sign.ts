/**
 * Webhook signatures.
 *
 * Scheme: `X-Service-Signature: sha256=<hex>` where `<hex>` is the lowercase
 * hex HMAC-SHA256 of the exact raw request body, keyed by the UTF-8 bytes of
 * the `webhookSecret` string exactly as returned at watch creation (prefix
 * included, no hex- or base64-decoding). This differs deliberately from the
 * original service, which hex-decoded its secret: a receiver that pastes the
 * secret into any HMAC API as a string gets the right key.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_PREFIX = "sha256=";
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** `whsec_` followed by 64 lowercase hex characters (32 random bytes): 70 characters. */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[0-9a-f]{64}$/;

/** One sentence for the info route, the snippets guide and the docs. */
export const SIGNATURE_SCHEME_DESCRIPTION =
  "X-Service-Signature: sha256=<hex> where <hex> is the lowercase hex HMAC-SHA256 of the exact raw request body, " +
  "keyed by the UTF-8 bytes of the webhookSecret string exactly as returned at creation (including the whsec_ prefix; " +
  "do not hex-decode it). Compare in constant time against the raw bytes, never against re-serialised JSON.";

function toBytes(data: string | Uint8Array): Buffer {
  return typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function hmac(secret: string, rawBody: string | Uint8Array): Buffer {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(toBytes(rawBody)).digest();
}

/** `sha256=<64 lowercase hex>` for the raw body. A string body is taken as its UTF-8 bytes. */
export function signBody(secret: string, rawBody: string | Uint8Array): string {
  return SIGNATURE_PREFIX + hmac(secret, rawBody).toString("hex");
}

const HEADER_PATTERN = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * True when `header` is a valid signature of `rawBody` under `secret`.
 * Tolerates surrounding whitespace and upper-case hex; anything malformed is
 * false. The digest comparison is constant-time.
 */
export function verifySignature(secret: string, rawBody: string | Uint8Array, header: string | null | undefined): boolean {
  if (typeof header !== "string") return false;
  const m = HEADER_PATTERN.exec(header.trim());
  if (!m) return false;
  const given = Buffer.from(m[1], "hex");
  const expected = hmac(secret, rawBody);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A fresh per-watch secret: `whsec_` + 32 random bytes as lowercase hex. Never reused, never logged. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("hex");
}
