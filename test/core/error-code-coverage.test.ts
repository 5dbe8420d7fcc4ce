/**
 * Every registered error code is produced by at least one test: a refusal of
 * the route fixtures (test/helpers/route-fixtures.ts, each sent to the live app
 * by test/http/every-route.test.ts), or a code a test file asserts where it
 * makes the error happen (what counts as asserting is in
 * test/helpers/asserted-error-codes.ts). A registered code that no test
 * produces is named here; one that truly cannot be produced is listed in
 * EXCEPTIONS with the reason.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../src/core/errors.js";
import { FIXTURES } from "../helpers/route-fixtures.js";
import { assertedCodesIn, assertedCodesUnder } from "../helpers/asserted-error-codes.js";

const TEST_ROOT = path.resolve(import.meta.dirname, "..");

/** Test files whose expectations produce no code of the service. */
const NOT_PRODUCERS: Record<string, string> = {
  "test/core/errors-registry.test.ts": "builds errors by hand and reads src/ for the codes it throws",
  "test/core/error-code-coverage.test.ts": "this file: the scanner's examples below",
};
/** Skipped unless real nodes are configured (test/helpers/real-nodes.ts): an ordinary run produces nothing there. */
const REAL_NODE_TESTS = "test/real/";

/** Codes no test can produce, each with why. */
const EXCEPTIONS: Partial<Record<ErrorCode, string>> = {
  private_relay_failed:
    "thrown inside BuilderClient and always caught by its submit(), which reports the builder's message per builder " +
    "(builders[].error, accepted false); no surface answers with the code, and submit() is covered by test/relay/private-relay.test.ts",
};

const REGISTERED = new Set<string>(Object.keys(ERROR_CODES));

let produced: Set<string> | undefined;
/** The codes the fixtures' refusals and the test files' assertions produce (read once). */
function producedCodes(): Set<string> {
  if (produced) return produced;
  const refused = Object.values(FIXTURES).flatMap((f) => f.refusals.map((r) => r.code));
  const asserted = assertedCodesUnder(TEST_ROOT, REGISTERED, (file) => file.startsWith(REAL_NODE_TESTS) || file in NOT_PRODUCERS);
  produced = new Set<string>([...refused, ...asserted.map((a) => a.code)]);
  return produced;
}

describe("every registered error code is produced by a test", () => {
  it("the scanner counts the ways tests assert a code, and nothing else", () => {
    const codes = new Set(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"]);
    const source = `
      // "n1" in a comment
      it("answers n2 to a stranger", async () => {
        expect(r.json.error.code).toBe("c1");
        expect(errorCode(res), "label").toBe("c2");
        await expect(p).rejects.toMatchObject({ status: 400, code: "c3" });
        expect(() => f()).toThrow(expect.objectContaining({ code: "c4" }));
        expect([e.status, e.code]).toEqual([400, "c5"]);
        expect(r.json.error.code).not.toBe("n3");
        if (r.json.error.code === "n6") return;
        expect(r.json.error.message).toBe("n7");
        expect(text).toContain("n8");
      });
      function refused(path: string, code: string) {
        expect(r.json.error.code).toBe(code);
      }
      refused("/x", "c6");
      const bad: [unknown, string][] = [[{}, "c7"]];
      for (const [body, code] of bad) expect(r.json.error.code).toBe(code);
      const cases = [{ body: {}, code: "c8" }];
      for (const c of cases) expect(r.json.error.code, c.body).toBe(c.code);
      const expected = "c9";
      expect(r.json.error.code).toBe(expected);
      // A code the file makes itself (a stub's answer, an error it throws) is read back, not produced.
      const stub = () => ({ error: { code: "n5" } });
      expect(r.json.error.code).toBe("n5");
      throw badRequest("n4", "made here");
      expect(r.json).toMatchObject({ error: { code: "n4" } });
    `;
    const found = assertedCodesIn("example.test.ts", source, codes).map((a) => a.code);
    expect([...new Set(found)].sort()).toEqual(["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"]);
  });

  it("names every registered code no test produces", () => {
    const unproduced = [...REGISTERED].filter((c) => !producedCodes().has(c) && !(c in EXCEPTIONS));
    expect(unproduced, "registered codes no test produces: make each happen in a test, or list it in EXCEPTIONS with why").toEqual([]);
  });

  it("lists as exceptions only registered codes that no test produces", () => {
    const stale = Object.keys(EXCEPTIONS).filter((c) => !REGISTERED.has(c) || producedCodes().has(c));
    expect(stale, "exceptions that are not registered, or that a test now produces: remove them").toEqual([]);
  });
});
