/**
 * The devnet is a development collaborator, not part of the service: only
 * the CLI starts it (and lays its settings over the config), so no other
 * production module may import `src/devnet/`. A new import of it elsewhere
 * would make the app behave differently on a devnet than in production.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const src = path.resolve(import.meta.dirname, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

/** Every module specifier a file imports, statically or dynamically. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g)) specs.push(m[1]!);
  return specs;
}

describe("the devnet boundary", () => {
  it("finds imports of every kind (the check itself works)", () => {
    const cli = path.join(src, "cli.ts");
    const seen = importsOf(cli).map((s) => path.resolve(path.dirname(cli), s));
    expect(seen).toContain(path.join(src, "devnet", "index.js"));
  });

  it("no production module outside src/devnet/ imports it, except the CLI", () => {
    const devnetDir = path.join(src, "devnet") + path.sep;
    const offenders: string[] = [];
    for (const file of sourceFiles(src)) {
      if (file.startsWith(devnetDir) || file === path.join(src, "cli.ts")) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (target.startsWith(devnetDir)) offenders.push(`${path.relative(src, file)} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
