/**
 * No function of the product (src/) or of the simulators (devnet/, once they
 * live there) has more than 100 lines of its own, measured by the TypeScript
 * compiler's parser (test/helpers/function-lengths.ts: nested functions of
 * five lines or more are counted apart). The exceptions are named here with
 * their reason.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { measureFunctions } from "./helpers/function-lengths.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const MAX_OWN_LINES = 100;

/** file:name → why it may be longer. */
const EXCEPTIONS: Record<string, string> = {
  "src/chains/monero/keccak.ts:keccakF1600": "the Keccak-f[1600] permutation unrolled by hand on the scanner's hot path (bench/monero.ts shows why)",
  "src/chains/monero/carrot/blake2b.ts:compress":
    "BLAKE2b's 12 rounds unrolled in local variables, written by tools/gen-blake2b.ts, on the Carrot scanner's hot path (bench/monero.ts: the view tag's hash against @noble/hashes)",
};

const roots = ["src", "devnet"].map((d) => path.join(ROOT, d)).filter((d) => fs.existsSync(d));

describe("function length", () => {
  const measured = roots.flatMap((r) => measureFunctions(r));

  it("measures what it should (the parser finds functions, nested ones apart)", () => {
    expect(measured.length).toBeGreaterThan(1000);
    expect(measured.some((f) => f.file === "src/app.ts" && f.name === "createApp")).toBe(true);
    // A function with a long nested function: the parent's own lines exclude the child's.
    const parent = measured.find((f) => f.file === "src/app.ts" && f.name === "appServers")!;
    expect(parent.own).toBeLessThan(parent.total);
  });

  it(`no function has more than ${MAX_OWN_LINES} lines of its own`, () => {
    const long = measured
      .filter((f) => f.own > MAX_OWN_LINES && !(`${f.file}:${f.name}` in EXCEPTIONS))
      .map((f) => `${f.file}:${f.line} ${f.name}: ${f.own} own lines`);
    expect(long).toEqual([]);
  });

  it("every exception still names a long function", () => {
    for (const key of Object.keys(EXCEPTIONS)) {
      const [file, name] = key.split(":");
      const f = measured.find((m) => m.file === file && m.name === name);
      expect(f, key).toBeDefined();
      expect(f!.own, key).toBeGreaterThan(MAX_OWN_LINES);
    }
  });
});
