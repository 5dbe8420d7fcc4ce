/**
 * Per-IP rate limits: the general limit every request passes (requests per
 * minute, from config) and the limit a route declares with `rateLimit`. The
 * counters live in the store the app passes (memory, or PostgreSQL so that
 * every API process shares them); each limiter's name is its key there.
 */
import { ServiceError } from "../core/errors.js";
import { createRateLimiter, type RateLimiter, type RateLimitStore } from "../core/rate-limit.js";
import type { AnyRouteDef } from "./route-table.js";

export interface RateLimitSettings {
  store: RateLimitStore;
  /** General per-IP limit on every request. */
  generalPerMinute: number;
}

export interface RateLimiters {
  general: RateLimiter;
  /** One limiter per operationId that declares rateLimit. */
  byRoute: ReadonlyMap<string, RateLimiter>;
}

export function createRateLimiters(routes: readonly AnyRouteDef[], settings: RateLimitSettings): RateLimiters {
  const byRoute = new Map<string, RateLimiter>();
  for (const r of routes) {
    if (r.rateLimit) byRoute.set(r.operationId, createRateLimiter(settings.store, `rl_${r.operationId}`, r.rateLimit.points, r.rateLimit.windowSeconds));
  }
  return { general: createRateLimiter(settings.store, "rl_general", settings.generalPerMinute, 60), byRoute };
}

/** Counts one call of a rate-limited route from `ip`; throws 429 with Retry-After once over the limit. */
export async function enforceRouteLimit(limiters: RateLimiters, route: AnyRouteDef, ip: string): Promise<void> {
  if (!route.rateLimit) return;
  const limiter = limiters.byRoute.get(route.operationId);
  const r = limiter ? await limiter.consume(ip) : undefined;
  if (r && !r.allowed) {
    throw new ServiceError(
      429,
      "rate_limited",
      `Too many requests to this route: at most ${route.rateLimit.points} per ${route.rateLimit.windowSeconds} s per IP.`,
      { limit: route.rateLimit.points, window_seconds: route.rateLimit.windowSeconds },
      { "Retry-After": String(r.retryAfterSeconds) },
    );
  }
}
