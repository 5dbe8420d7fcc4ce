/**
 * The Penny Oracle catalogue lists every question of the API contract (21),
 * each once, with its chain, whether this server implements it and whether
 * it can answer now; a question not implemented yet is listed as such,
 * never left out. On the devnet every implemented question is available.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { createOracleRegistry } from "../../src/oracle/registry.js";
import { SPEC_QUESTIONS } from "../../src/oracle/spec-questions.js";
import { ManualClock } from "../../src/core/clock.js";

/** The contract's table (spec/api.md, "Penny Oracle"), written out here on purpose. */
const CONTRACT: [string, "monero" | "zcash" | "ethereum"][] = [
  ["xmr/height", "monero"],
  ["xmr/mempool", "monero"],
  ["xmr/fee", "monero"],
  ["xmr/fee-estimate", "monero"],
  ["xmr/last-block", "monero"],
  ["zec/height", "zcash"],
  ["zec/mempool", "zcash"],
  ["zec/last-block", "zcash"],
  ["zec/pools", "zcash"],
  ["base-fee", "ethereum"],
  ["cheapest-flashloan", "ethereum"],
  ["liquidatable", "ethereum"],
  ["at-risk-count", "ethereum"],
  ["recent-liquidations", "ethereum"],
  ["top-builder", "ethereum"],
  ["builder-share", "ethereum"],
  ["builder-bid", "ethereum"],
  ["block-value", "ethereum"],
  ["data-freshness", "ethereum"],
  ["address-risk", "ethereum"],
  ["proposer-payment", "ethereum"],
];
/** Required parameters per the contract. */
const REQUIRED: Record<string, string[]> = {
  "cheapest-flashloan": ["asset"],
  liquidatable: ["addr"],
  "builder-share": ["builder"],
  "builder-bid": ["builder"],
  "data-freshness": ["source"],
  "address-risk": ["addr"],
};

describe("the oracle catalogue is complete", () => {
  let s: WatchStack;
  beforeAll(async () => {
    s = await startWatchStack({ https: false });
  }, 60_000);
  afterAll(async () => s?.close());

  it("lists all 21 contract questions once, in order, with chain, implementation and availability", async () => {
    expect(CONTRACT).toHaveLength(21);
    const r = await s.call("GET", "/v1/q");
    expect(r.status).toBe(200);
    const qs = r.json.questions as { question: string; path: string; chain: string; implemented: boolean; available: boolean; params: { name: string; required: boolean }[] }[];
    expect(qs.map((q) => q.question)).toEqual(CONTRACT.map(([p]) => p));
    const routes = new Set(s.t.app.routes.map((x) => `${x.method} ${x.path}`));
    for (const [path, chain] of CONTRACT) {
      const q = qs.find((x) => x.question === path)!;
      expect(q.path).toBe(`/v1/q/${path}`);
      expect(q.chain, path).toBe(chain);
      // Implemented means a paid route exists; on the devnet every implemented question can answer.
      expect(routes.has(`GET /v1/q/${path}`), path).toBe(q.implemented);
      if (q.implemented) expect(q.available, path).toBe(true);
      else expect(q.available, path).toBe(false);
      const required = q.params.filter((p) => p.required).map((p) => p.name).sort();
      expect(required, path).toEqual((REQUIRED[path] ?? []).sort());
    }
    // Per-chain availability adds up.
    for (const chain of ["monero", "zcash", "ethereum"]) {
      const mine = qs.filter((q) => q.chain === chain);
      expect(r.json.chains[chain], chain).toEqual({
        questions: mine.length,
        implemented: mine.filter((q) => q.implemented).length,
        available: mine.filter((q) => q.available).length,
      });
    }
    expect(r.json.chains.monero.questions + r.json.chains.zcash.questions + r.json.chains.ethereum.questions).toBe(21);
    // This server implements every contract question, and on the devnet each can answer.
    expect(qs.filter((q) => !q.implemented || !q.available).map((q) => q.question)).toEqual([]);
    expect(r.json.chains).toEqual({
      monero: { questions: 5, implemented: 5, available: 5 },
      zcash: { questions: 4, implemented: 4, available: 4 },
      ethereum: { questions: 12, implemented: 12, available: 12 },
    });
  });

  it("a question not implemented is not a route: asking it is the unknown-question 404, not a 500", async () => {
    const cat = (await s.call("GET", "/v1/q")).json;
    const missing = cat.questions.filter((q: any) => !q.implemented);
    for (const q of missing) {
      const r = await s.call("GET", q.path);
      expect(r.status, q.path).toBe(404);
    }
  });

  it("a declaration takes the place of its planned entry", () => {
    const reg = createOracleRegistry(
      [
        {
          path: "address-risk",
          summary: "declared",
          source: "ethereum",
          params: [{ name: "addr", required: true, description: "0x address" }],
          answer: z.object({ risk: z.string() }),
          available: () => true,
          answerQuestion: async () => ({ risk: "low" }),
        },
      ],
      new ManualClock(),
      SPEC_QUESTIONS,
    );
    const cat = reg.catalogue();
    expect(cat.questions).toHaveLength(21);
    expect(cat.questions.find((q) => q.question === "address-risk")).toMatchObject({ summary: "declared", implemented: true, available: true, source: "ethereum" });
    expect(cat.chains.ethereum).toEqual({ questions: 12, implemented: 1, available: 1 });
  });
});
