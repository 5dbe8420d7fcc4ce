/**
 * docs/api.md's route list is generated from the route table, and this test
 * holds them equal: a route added, removed, repriced or renamed fails here
 * until the doc follows. `UPDATE_DOCS=1 npx vitest run test/http/api-doc.test.ts`
 * rewrites the generated section.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceLabel, type AnyRouteDef } from "../../src/http/route-table.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOC = path.join(ROOT, "docs/api.md");
const BEGIN = "<!-- routes:begin (generated from the route table; see test/http/api-doc.test.ts) -->";
const END = "<!-- routes:end -->";

const oasPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, "{$1}");
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

function renderRoutes(routes: readonly AnyRouteDef[]): string {
  const groups = new Map<string, AnyRouteDef[]>();
  for (const r of routes) {
    const tag = r.tags?.[0] ?? "service";
    groups.set(tag, [...(groups.get(tag) ?? []), r]);
  }
  const out: string[] = [BEGIN];
  for (const [tag, list] of groups) {
    out.push("", `### ${tag}`, "", "| method | path | price | what | MCP tool |", "|---|---|---|---|---|");
    for (const r of list) {
      out.push(`| ${r.method} | \`${oasPath(r.path)}\` | ${priceLabel(r) ?? "free"} | ${cell(r.summary)} | ${r.mcpTool ? `\`${r.mcpTool}\`` : ""} |`);
    }
  }
  out.push("", END);
  return out.join("\n");
}

describe("docs/api.md", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({});
  });
  afterAll(async () => t?.close());

  it("lists exactly the routes of the table, with their prices and tools", () => {
    const doc = fs.readFileSync(DOC, "utf8");
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start, "docs/api.md has the generated section").toBeGreaterThanOrEqual(0);
    const current = doc.slice(start, end + END.length);
    const expected = renderRoutes(t.app.routes);
    if (process.env.UPDATE_DOCS && current !== expected) fs.writeFileSync(DOC, doc.replace(current, expected));
    else expect(current).toBe(expected);
  });
});
