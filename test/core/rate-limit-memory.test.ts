/**
 * The limiter in memory (src/core/rate-limit.ts, the embedded store's and the
 * PostgreSQL limiter's insurance): a fixed window per key from its first
 * request, exactly `points` requests in it, answered without a promise, with
 * the window's remaining time as Retry-After once refused.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createRateLimiter } from "../../src/core/rate-limit.js";

const memory = (points: number, windowSeconds = 60) => createRateLimiter({ kind: "memory" }, "t_memory", points, windowSeconds);

describe("rate limiter in memory", () => {
  it("allows exactly the limit per key in a window, however trySpend and consume are mixed", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 80 }), async (points, viaTrySpend) => {
        const limiter = memory(points);
        const answers = [];
        for (const sync of viaTrySpend) answers.push(sync ? limiter.trySpend("k")! : await limiter.consume("k"));
        const allowed = answers.filter((a) => a.allowed);
        expect(allowed.length).toBe(Math.min(points, viaTrySpend.length));
        // The allowed ones come first, each with what is left; then only refusals.
        expect(answers.slice(0, allowed.length).map((a) => a.remaining)).toEqual(allowed.map((_, i) => points - i - 1));
        for (const a of answers.slice(allowed.length)) {
          expect(a).toMatchObject({ allowed: false, remaining: 0, limit: points });
          expect(a.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          expect(a.retryAfterSeconds).toBeLessThanOrEqual(60);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("counts each key on its own", () => {
    const limiter = memory(2);
    expect([limiter.trySpend("a"), limiter.trySpend("a"), limiter.trySpend("a")].map((r) => r!.allowed)).toEqual([true, true, false]);
    expect(limiter.trySpend("b")!.allowed).toBe(true);
  });

  it("starts a new window when the old one ends, and not before", async () => {
    const limiter = memory(2, 1);
    expect([limiter.trySpend("w"), limiter.trySpend("w"), limiter.trySpend("w")].map((r) => r!.allowed)).toEqual([true, true, false]);
    await new Promise((r) => setTimeout(r, 400));
    expect(limiter.trySpend("w")!.allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 750));
    expect([limiter.trySpend("w"), limiter.trySpend("w"), limiter.trySpend("w")].map((r) => r!.allowed)).toEqual([true, true, false]);
  });
});
