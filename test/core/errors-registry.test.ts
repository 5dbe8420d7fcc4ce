/**
 * The error registry is complete and documented: every code thrown in src/
 * (found by reading the source text, so a new throw cannot slip past) is
 * registered with the status it is thrown with, no ServiceError is built
 * with a status by hand (the registry is the one place a status is written),
 * every registered code is thrown somewhere, and docs/errors.md lists
 * exactly the registry.
 * `UPDATE_DOCS=1 npx vitest run test/core/errors-registry.test.ts` rewrites
 * the generated section of the doc from the registry.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { badRequest, ERROR_CODES, ServiceError, unavailable, type ErrorCode } from "../../src/core/errors.js";
import { UpstreamError } from "../../src/core/upstream.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOC = path.join(ROOT, "docs/errors.md");
const BEGIN = "<!-- error-codes:begin (generated from ERROR_CODES in src/core/errors.ts; see test/core/errors-registry.test.ts) -->";
const END = "<!-- error-codes:end -->";

const HELPER_STATUS: Record<string, number> = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  upstreamFailed: 502,
  unavailable: 503,
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

function registeredStatus(code: string): number {
  return (ERROR_CODES as Record<string, { status: number } | undefined>)[code]?.status ?? 0;
}

/** Every (code, status, file) the source throws with a literal code. */
function thrownCodes(): { code: string; status: number; file: string }[] {
  const found: { code: string; status: number; file: string }[] = [];
  const helper = /\b(badRequest|unauthorized|forbidden|notFound|conflict|upstreamFailed|unavailable)\(\s*(["'`])([^"'`$]*)\2/g;
  // The constructor takes its status from the registry, so a literal code there is thrown with its registered status.
  const ctor = /new ServiceError\(\s*(["'`])([^"'`$]*)\1/g;
  // An UpstreamError is a 502 (its constructor admits only codes registered as 502).
  const upstreamCtor = /new UpstreamError\(\s*(["'])([a-z_]+)\1/g;
  // Upstream clients (core/upstream.ts) are given the codes they throw: failures are 502, a missing URL is 503.
  const upstreamFailure = /\bfailureCode:\s*(["'])([a-z_]+)\1/g;
  const upstreamAbsent = /:\s*NotConfigured\s*=\s*\{\s*code:\s*(["'])([a-z_]+)\1/g;
  for (const file of sourceFiles(path.join(ROOT, "src"))) {
    if (file.endsWith(path.join("core", "errors.ts"))) continue;
    const text = fs.readFileSync(file, "utf8");
    const rel = path.relative(ROOT, file);
    for (const m of text.matchAll(helper)) found.push({ code: m[3]!, status: HELPER_STATUS[m[1]!]!, file: rel });
    for (const m of text.matchAll(ctor)) found.push({ code: m[2]!, status: registeredStatus(m[2]!), file: rel });
    for (const m of text.matchAll(upstreamCtor)) found.push({ code: m[2]!, status: 502, file: rel });
    for (const m of text.matchAll(upstreamFailure)) found.push({ code: m[2]!, status: 502, file: rel });
    for (const m of text.matchAll(upstreamAbsent)) found.push({ code: m[2]!, status: 503, file: rel });
  }
  return found;
}

/** Codes built at run time: zip316's `<found>_not_<expected>` for two different unified kinds. */
const UNIFIED_KINDS = ["address", "ufvk", "uivk"] as const;
const WRONG_KIND_CODES = UNIFIED_KINDS.flatMap((a) => UNIFIED_KINDS.filter((b) => b !== a).map((b) => `${a}_not_${b}`));

function renderErrorCodes(): string {
  const rows = (Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][])
    .map(([code, info], order) => ({ code, ...info, order }))
    .sort((a, b) => a.status - b.status || a.order - b.order)
    .map((r) => `| \`${r.code}\` | ${r.status} | ${r.description} |`);
  return [BEGIN, "| Code | Status | Meaning |", "|---|---|---|", ...rows, END].join("\n");
}

describe("the error registry", () => {
  const thrown = thrownCodes();

  it("the scan sees the throws (it is not vacuous)", () => {
    expect(thrown.length).toBeGreaterThan(50);
    expect(thrown).toContainEqual({ code: "invalid_watch_token", status: 401, file: path.join("src", "watch", "service.ts") });
    expect(thrown.some((t) => t.code === "rate_limited" && t.status === 429)).toBe(true);
    expect(thrown.some((t) => t.code === "chain_rpc_failed" && t.file.endsWith("daemon-transport.ts"))).toBe(true);
  });

  it("holds every code thrown in src/, with the status it is thrown with", () => {
    const problems = thrown.flatMap((t) => {
      const info = (ERROR_CODES as Record<string, { status: number } | undefined>)[t.code];
      if (!info) return [`${t.file}: ${t.code} is not registered`];
      if (info.status !== t.status) return [`${t.file}: ${t.code} thrown as ${t.status}, registered as ${info.status}`];
      return [];
    });
    expect(problems).toEqual([]);
    for (const code of WRONG_KIND_CODES) expect(ERROR_CODES).toHaveProperty(code);
  });

  it("is the only place a status is written: no ServiceError in src/ is built with a status by hand", () => {
    // The constructor reads the status from ERROR_CODES; a number before the code is a second source of truth.
    const handWritten = /\bnew (?:ServiceError|UpstreamError)\(\s*\d+\s*,/g;
    const subclassSuper = /\bsuper\(\s*\d{3}\s*,/g;
    const problems = sourceFiles(path.join(ROOT, "src")).flatMap((file) => {
      const text = fs.readFileSync(file, "utf8");
      const rel = path.relative(ROOT, file);
      const lineOf = (index: number) => text.slice(0, index).split("\n").length;
      const ctorHits = [...text.matchAll(handWritten)].map((m) => `${rel}:${lineOf(m.index!)}: ${m[0]}`);
      const extendsServiceError = /\bextends (?:ServiceError|UpstreamError)\b/.test(text);
      const superHits = extendsServiceError ? [...text.matchAll(subclassSuper)].map((m) => `${rel}:${lineOf(m.index!)}: ${m[0]}`) : [];
      return [...ctorHits, ...superHits];
    });
    expect(problems).toEqual([]);
  });

  it("gives every error the status registered for its code, whichever way it is built", () => {
    for (const [code, info] of Object.entries(ERROR_CODES) as [ErrorCode, { status: number }][]) {
      expect(new ServiceError(code, "m").status, code).toBe(info.status);
    }
    const tooMany = new ServiceError("rate_limited", "slow down", { limit: 1 }, { "Retry-After": "7" });
    expect([tooMany.status, tooMany.code, tooMany.message, tooMany.details, tooMany.headers]).toEqual([429, "rate_limited", "slow down", { limit: 1 }, { "Retry-After": "7" }]);
    expect(badRequest("invalid_amount", "m").status).toBe(400);
    expect(unavailable("database_unavailable", "m", undefined, { "Retry-After": "2" }).headers).toEqual({ "Retry-After": "2" });
    expect(new UpstreamError("chain_rpc_failed", "m", {}).status).toBe(502);
  });

  it("holds no code that nothing throws", () => {
    const used = new Set([...thrown.map((t) => t.code), ...WRONG_KIND_CODES]);
    expect(Object.keys(ERROR_CODES).filter((c) => !used.has(c))).toEqual([]);
  });

  it("is what docs/errors.md lists", () => {
    const doc = fs.readFileSync(DOC, "utf8");
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start, "docs/errors.md has the generated section").toBeGreaterThanOrEqual(0);
    const current = doc.slice(start, end + END.length);
    const expected = renderErrorCodes();
    if (process.env.UPDATE_DOCS && current !== expected) fs.writeFileSync(DOC, doc.replace(current, expected));
    else expect(current).toBe(expected);
  });
});
