/**
 * Answers that never change once built (GET /v1/paywall, the oracle
 * catalogue while no question's availability changes) are deep-frozen and
 * serialized once; an answer that changes is built anew.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fixedAnswer } from "../../src/http/respond.js";
import { createOracleRegistry } from "../../src/oracle/registry.js";
import { systemClock } from "../../src/core/clock.js";
import type { QuestionDef } from "../../src/oracle/question.js";

describe("fixed answers", () => {
  it("are frozen all the way down", () => {
    const a = fixedAnswer({ list: [{ x: 1 }], nested: { y: "z" } });
    expect(Object.isFrozen(a) && Object.isFrozen(a.list) && Object.isFrozen(a.list[0]) && Object.isFrozen(a.nested)).toBe(true);
    expect(() => {
      "use strict";
      (a.list as { x: number }[]).push({ x: 2 });
    }).toThrow(TypeError);
  });

  it("the oracle catalogue is the same object until a question's availability changes, and then says so", () => {
    let up = true;
    const q: QuestionDef = {
      path: "xmr/height",
      summary: "tip height",
      source: "internal",
      params: [{ name: "window", required: false, description: "window", allowed: ["1h", "24h"], default: "1h" }],
      answer: z.object({ height: z.number() }),
      available: () => up,
      answerQuestion: async () => ({ height: 1 }),
    };
    const registry = createOracleRegistry([q], systemClock);
    const first = registry.catalogue();
    expect(registry.catalogue()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // The question's own list is copied, never frozen with the answer.
    expect(Object.isFrozen(q.params[0]!.allowed)).toBe(false);
    up = false;
    const after = registry.catalogue();
    expect(after).not.toBe(first);
    expect(after.questions[0]).toMatchObject({ question: "xmr/height", available: false });
    expect(first.questions[0]).toMatchObject({ available: true });
  });
});
