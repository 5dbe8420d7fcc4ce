/** Bearer credentials: random, shown once, stored only as SHA-256, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** Constant-time comparison of a presented token with a stored hash. */
export function tokenMatches(presented: string | undefined, storedHash: Uint8Array | null | undefined): boolean {
  if (!presented || !storedHash || storedHash.length !== 32) return false;
  return timingSafeEqual(hashToken(presented), Buffer.from(storedHash));
}
