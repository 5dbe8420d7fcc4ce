/**
 * The route label of the request metrics: the first pattern of the table
 * that matches, else `unmatched`. The paths of patterns without parameters
 * are labelled up front; every answer must be the one the scan of the whole
 * table gives, including where a parameter pattern listed earlier also
 * matches a fixed path.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { routeLabeller } from "../../src/core/metrics.js";

const PATTERNS = [
  "/v1/health",
  "/v1/q",
  "/v1/q/:chain/:question",
  "/v1/q/xmr/height",
  "/v1/private/watch",
  "/v1/private/watch/:id",
  "/v1/private/watch/:id/events",
  "/v1/openapi.json",
  "/v1/board/{board}/notices",
  "/",
];

/** The table scanned in order, pattern by pattern: what the label must always equal. */
function scanned(path: string): string {
  for (const p of PATTERNS) {
    const a = p.split("/");
    const b = path.endsWith("/") && path !== "/" ? path.slice(0, -1).split("/") : path.split("/");
    if (a.length === b.length && a.every((seg, i) => (seg.startsWith(":") || seg.startsWith("{") ? b[i] !== "" : seg === b[i]))) return p;
  }
  return "unmatched";
}

describe("routeLabeller", () => {
  const label = routeLabeller(PATTERNS);

  it("labels fixed paths, with or without a trailing slash, and parameter paths by their pattern", () => {
    expect(label("/v1/q")).toBe("/v1/q");
    expect(label("/v1/q/")).toBe("/v1/q");
    expect(label("/v1/health")).toBe("/v1/health");
    expect(label("/v1/openapi.json")).toBe("/v1/openapi.json");
    expect(label("/v1/openapiXjson")).toBe("unmatched");
    expect(label("/v1/private/watch/3f1c/events")).toBe("/v1/private/watch/:id/events");
    expect(label("/v1/board/general/notices")).toBe("/v1/board/{board}/notices");
    expect(label("/")).toBe("/");
  });

  it("a fixed path that an earlier parameter pattern matches keeps the earlier pattern, as the scan gives", () => {
    expect(label("/v1/q/xmr/height")).toBe("/v1/q/:chain/:question");
    expect(label("/v1/q/xmr/height/")).toBe("/v1/q/:chain/:question");
  });

  it("answers what the scan of the whole table answers, for any path", () => {
    const segment = fc.constantFrom("v1", "q", "xmr", "height", "private", "watch", "events", "health", "openapi.json", "board", "notices", "x", "");
    const path = fc.array(segment, { minLength: 0, maxLength: 5 }).map((s) => `/${s.join("/")}`);
    fc.assert(
      fc.property(path, (p) => {
        expect(label(p)).toBe(scanned(p));
      }),
      { numRuns: 2000 },
    );
  });
});
