import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ManualClock } from "../../src/core/clock.js";
import { unavailable } from "../../src/core/errors.js";
import { createOracleRegistry, ORACLE_CACHE_ENTRIES, ORACLE_PRICE_ATOMIC } from "../../src/oracle/registry.js";
import type { QuestionDef } from "../../src/oracle/question.js";

function question(overrides: Partial<QuestionDef> = {}): QuestionDef & { calls: number } {
  const q: QuestionDef & { calls: number } = {
    calls: 0,
    path: "test/echo",
    summary: "echo",
    source: "internal" as const,
    params: [
      { name: "window", required: false, description: "window", allowed: ["1h", "24h"], default: "1h" },
      { name: "addr", required: true, description: "address", format: "0x-address" },
    ],
    answer: z.object({ n: z.number() }),
    available: () => true,
    async answerQuestion(params: Record<string, string | undefined>): Promise<Record<string, unknown>> {
      q.calls++;
      return { n: q.calls, window: params.window, addr: params.addr };
    },
    ...overrides,
  };
  return q;
}

describe("oracle question registry", () => {
  it("turns each question into a $0.001 GET route under /v1/q", () => {
    const reg = createOracleRegistry([question()], new ManualClock());
    expect(reg.routes).toHaveLength(1);
    expect(reg.routes[0]).toMatchObject({ method: "GET", path: "/v1/q/test/echo", price: ORACLE_PRICE_ATOMIC });
    expect(ORACLE_PRICE_ATOMIC).toBe(1000n);
  });

  it("caches an answer 10 s per (question, params) and stamps as_of_ms when it was computed", async () => {
    const clock = new ManualClock(1_000_000);
    const q = question();
    const reg = createOracleRegistry([q], clock);
    const a = await reg.ask("test/echo", { addr: "0x1" });
    expect(a).toEqual({ n: 1, window: "1h", addr: "0x1", as_of_ms: 1_000_000 });
    clock.advance(9_999);
    expect(await reg.ask("test/echo", { addr: "0x1" })).toEqual(a);
    expect((await reg.ask("test/echo", { addr: "0x2" })).n).toBe(2); // other params: own entry
    clock.advance(1);
    const c = await reg.ask("test/echo", { addr: "0x1" });
    expect(c).toMatchObject({ n: 3, as_of_ms: 1_010_000 });
  });

  it("computes a burst of identical questions once", async () => {
    const q = question();
    const reg = createOracleRegistry([q], new ManualClock());
    await Promise.all(Array.from({ length: 20 }, () => reg.ask("test/echo", { addr: "0x1" })));
    expect(q.calls).toBe(1);
  });

  it("keeps a bounded number of answers: the least recently used falls out first", async () => {
    const q = question();
    const reg = createOracleRegistry([q], new ManualClock());
    await reg.ask("test/echo", { addr: "first" });
    for (let i = 0; i < ORACLE_CACHE_ENTRIES; i++) await reg.ask("test/echo", { addr: `a${i}` });
    expect(q.calls).toBe(ORACLE_CACHE_ENTRIES + 1);
    await reg.ask("test/echo", { addr: `a${ORACLE_CACHE_ENTRIES - 1}` }); // still cached
    expect(q.calls).toBe(ORACLE_CACHE_ENTRIES + 1);
    await reg.ask("test/echo", { addr: "first" }); // evicted: computed again
    expect(q.calls).toBe(ORACLE_CACHE_ENTRIES + 2);
  });

  it("never caches a failure: a source that is down answers its error each time", async () => {
    let down = true;
    const q = question({
      answerQuestion: async () => {
        if (down) throw unavailable("chain_not_configured", "down");
        return { n: 7 };
      },
    });
    const reg = createOracleRegistry([q], new ManualClock());
    await expect(reg.ask("test/echo", { addr: "0x1" })).rejects.toMatchObject({ status: 503, code: "chain_not_configured" });
    down = false;
    expect(await reg.ask("test/echo", { addr: "0x1" })).toMatchObject({ n: 7 });
  });

  it("validates parameters against their allowed values and requiredness", async () => {
    const reg = createOracleRegistry([question()], new ManualClock());
    await expect(reg.ask("test/echo", { addr: "0x1", window: "7d" })).rejects.toMatchObject({ status: 400, code: "invalid_input" });
    await expect(reg.ask("test/echo", {})).rejects.toMatchObject({ status: 400 });
    await expect(reg.ask("test/echo", { addr: "0x1", extra: "x" })).rejects.toMatchObject({ status: 400 });
    await expect(reg.ask("nope", {})).rejects.toMatchObject({ status: 404, code: "unknown_question" });
  });

  it("lists inputs, allowed values, price and availability in the free catalogue", () => {
    let up = false;
    const reg = createOracleRegistry([question({ available: () => up })], new ManualClock());
    const cat = reg.catalogue();
    expect(cat.price).toBe("$0.001");
    expect(cat.questions[0]).toMatchObject({
      path: "/v1/q/test/echo",
      available: false,
      params: [
        { name: "window", required: false, allowed: ["1h", "24h"], default: "1h" },
        { name: "addr", required: true, format: "0x-address" },
      ],
    });
    up = true;
    expect(reg.catalogue().questions[0]!.available).toBe(true);
  });
});
