/**
 * Per-IP rate limits: the general limit every request passes (requests per
 * minute, from config) and the limit a route declares with `rateLimit`. The
 * counters live in the store the app passes (memory, or PostgreSQL so that
 * every API process shares them); each limiter's name is its key there.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";
import { ServiceError } from "../core/errors.js";
import { createRateLimiter, type RateLimiter, type RateLimitStore } from "../core/rate-limit.js";
import type { AnyRouteDef } from "./route-table.js";

export interface RateLimitSettings {
  store: RateLimitStore;
  /** General per-IP limit on every request. */
  generalPerMinute: number;
  /** The operator allow-list: its addresses and tokens get their own, higher general limit. */
  allowList?: AllowListSettings;
}

export interface AllowListSettings {
  /** CIDRs, e.g. "203.0.113.0/24". */
  cidrs: readonly string[];
  /** Tokens clients send in `x-allow-token`. */
  tokens: readonly string[];
  perMinute: number;
}

/** The header an allow-listed client sends its token in. */
export const ALLOW_TOKEN_HEADER = "x-allow-token";

/**
 * Who is allow-listed. `keyOf` answers the limiter key of an allow-listed
 * caller (its address, or a digest of its token, never the token) or
 * undefined. Addresses are compared after unmapping IPv4-mapped IPv6.
 */
export interface AllowList {
  perMinute: number;
  enabled: boolean;
  keyOf(ip: string, token: string | undefined): string | undefined;
}

const digest = (v: string) => createHash("sha256").update(v, "utf8").digest();

export function createAllowList(s: AllowListSettings | undefined): AllowList {
  const ranges = (s?.cidrs ?? []).map((c) => ipaddr.parseCIDR(c));
  const tokens = (s?.tokens ?? []).map(digest);
  return {
    perMinute: s?.perMinute ?? 0,
    enabled: ranges.length > 0 || tokens.length > 0,
    keyOf(ip, token) {
      if (token && tokens.length) {
        const d = digest(token);
        if (tokens.some((t) => timingSafeEqual(t, d))) return `token:${d.toString("hex").slice(0, 32)}`;
      }
      if (!ranges.length || !ipaddr.isValid(ip)) return undefined;
      const addr = ipaddr.process(ip);
      return ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match([range, bits] as never)) ? `ip:${addr.toString()}` : undefined;
    },
  };
}

export interface RateLimiters {
  general: RateLimiter;
  /** The general limit of allow-listed callers, shared across processes like the others. */
  allowed: RateLimiter;
  allowList: AllowList;
  /** One limiter per operationId that declares rateLimit. */
  byRoute: ReadonlyMap<string, RateLimiter>;
}

export function createRateLimiters(routes: readonly AnyRouteDef[], settings: RateLimitSettings): RateLimiters {
  const byRoute = new Map<string, RateLimiter>();
  for (const r of routes) {
    if (r.rateLimit) byRoute.set(r.operationId, createRateLimiter(settings.store, `rl_${r.operationId}`, r.rateLimit.points, r.rateLimit.windowSeconds));
  }
  const allowList = createAllowList(settings.allowList);
  return {
    general: createRateLimiter(settings.store, "rl_general", settings.generalPerMinute, 60),
    allowed: createRateLimiter(settings.store, "rl_allowed", Math.max(1, allowList.perMinute), 60),
    allowList,
    byRoute,
  };
}

/** Counts one call of a rate-limited route from `ip`; throws 429 with Retry-After once over the limit. */
export async function enforceRouteLimit(limiters: RateLimiters, route: AnyRouteDef, ip: string): Promise<void> {
  if (!route.rateLimit) return;
  const limiter = limiters.byRoute.get(route.operationId);
  const r = limiter ? await limiter.consume(ip) : undefined;
  if (r && !r.allowed) {
    throw new ServiceError(
      "rate_limited",
      `Too many requests to this route: at most ${route.rateLimit.points} per ${route.rateLimit.windowSeconds} s per IP.`,
      { limit: route.rateLimit.points, window_seconds: route.rateLimit.windowSeconds },
      { "Retry-After": String(r.retryAfterSeconds) },
    );
  }
}
