/**
 * Per-key fixed-window limits over rate-limiter-flexible: PostgreSQL store
 * when several processes share one database, memory otherwise (PGlite means
 * one process). The PostgreSQL limiter keeps a memory insurance limiter so
 * limiting goes on if the database hiccups.
 */
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type pg from "pg";

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window frees a point (when refused). */
  retryAfterSeconds: number;
  remaining: number;
  limit: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitResult>;
}

export type RateLimitStore = { kind: "memory" } | { kind: "postgres"; pool: pg.Pool; schema?: string };

export function createRateLimiter(store: RateLimitStore, name: string, points: number, windowSeconds: number): RateLimiter {
  const memory = new RateLimiterMemory({ keyPrefix: name, points, duration: windowSeconds });
  let limiter: RateLimiterAbstract = memory;
  if (store.kind === "postgres") {
    limiter = new RateLimiterPostgres({
      storeClient: store.pool,
      storeType: "pool",
      tableName: "rate_limits",
      tableCreated: true,
      ...(store.schema ? { schemaName: store.schema } : {}),
      keyPrefix: name,
      points,
      duration: windowSeconds,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${name}-ins`, points, duration: windowSeconds }),
    });
  }
  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key, 1);
        return { allowed: true, retryAfterSeconds: 0, remaining: res.remainingPoints, limit: points };
      } catch (e) {
        if (e instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)), remaining: 0, limit: points };
        }
        throw e;
      }
    },
  };
}
