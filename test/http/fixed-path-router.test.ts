/** The trie router with each fixed path's match kept (src/http/fixed-path-router.ts). */
import { describe, expect, it } from "vitest";
import { TrieRouter } from "hono/router/trie-router";
import { FixedPathRouter } from "../../src/http/fixed-path-router.js";

const build = <R extends { add(m: string, p: string, h: string): void }>(r: R): R => {
  r.add("ALL", "*", "middleware");
  r.add("GET", "/v1/q", "catalogue");
  r.add("GET", "/v1/board/leaderboard", "leaderboard");
  r.add("GET", "/v1/board/:board", "board");
  return r;
};

describe("FixedPathRouter", () => {
  it("answers every path as the trie router does", () => {
    const kept = build(new FixedPathRouter<string>());
    const trie = build(new TrieRouter<string>());
    for (const [m, p] of [["GET", "/v1/q"], ["HEAD", "/v1/q"], ["POST", "/v1/q"], ["GET", "/v1/board/leaderboard"], ["GET", "/v1/board/main"], ["GET", "/nowhere"]] as const) {
      expect(kept.match(m, p)).toEqual(trie.match(m, p));
      // Asked again (a kept match for fixed paths), still the same answer.
      expect(kept.match(m, p)).toEqual(trie.match(m, p));
    }
  });

  it("keeps the match of a fixed path only, and forgets kept matches when a route is added", () => {
    const r = build(new FixedPathRouter<string>());
    const first = r.match("GET", "/v1/q");
    expect(r.match("GET", "/v1/q")).toBe(first);
    expect(r.match("GET", "/v1/board/main")).not.toBe(r.match("GET", "/v1/board/main"));
    expect(r.match("GET", "/nowhere")).not.toBe(r.match("GET", "/nowhere"));
    r.add("GET", "/v1/q", "another");
    const after = r.match("GET", "/v1/q");
    expect(after).not.toBe(first);
    expect(after[0].map(([h]) => h)).toEqual(["middleware", "catalogue", "another"]);
  });
});
