/**
 * One mapping of schema issues to the `details.issues[]` of `invalid_input`
 * (src/core/errors.ts `inputIssues`): the router, the oracle's parameter check
 * and the MCP tool arguments all answer with it, so a client reads the same
 * `{path, message}` list whichever surface refused its input.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inputIssues } from "../../src/core/errors.js";

const SRC = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("inputIssues", () => {
  it("names each failing field by its dotted path, with zod's message", () => {
    const schema = z.object({ watch: z.object({ chain: z.enum(["monero", "zcash"]) }), heights: z.array(z.number().int()) });
    const parsed = schema.safeParse({ watch: { chain: "bitcoin" }, heights: [1, 2.5] });
    expect(parsed.success).toBe(false);
    const issues = inputIssues(parsed.error!);
    expect(issues.map((i) => i.path)).toEqual(["watch.chain", "heights.1"]);
    expect(issues.map((i) => i.message)).toEqual(parsed.error!.issues.map((i) => i.message));
    for (const i of issues) expect(Object.keys(i).sort()).toEqual(["message", "path"]);
  });

  it("gives the input itself the empty path", () => {
    const parsed = z.object({ a: z.string() }).safeParse("not an object");
    expect(inputIssues(parsed.error!)).toEqual([{ path: "", message: parsed.error!.issues[0]!.message }]);
  });

  it("is the only place src/ maps zod issues to {path, message}", () => {
    const handWritten = /issues\.map\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\(\s*\{\s*path:\s*\1\.path\.join/g;
    const found = sourceFiles(SRC)
      .filter((f) => f !== path.join(SRC, "core", "errors.ts") && !f.startsWith(path.join(SRC, "devnet")))
      .flatMap((file) => [...fs.readFileSync(file, "utf8").matchAll(handWritten)].map(() => path.relative(SRC, file)));
    expect(found).toEqual([]);
  });
});
