import { describe, expect, it } from "vitest";
import { historicalInput, historicalRoute, type HistoricalInput, type HistoricalOutput } from "../../src/watch/historical-route.js";
import type { RequestContext } from "../../src/http/route-table.js";

// The route is a lookup in a chain → scan map: a chain plugs in by adding its entry, nothing else.
describe("POST /v1/private/historical over the map of chain scans", () => {
  const ctx = {} as RequestContext;
  const answer: HistoricalOutput = {
    chain: "zcash",
    network: "mainnet",
    from_height: 1,
    to_height: 2,
    tip_height: 2,
    scanned_blocks: 2,
    received_atomic: "5",
    spent_atomic: "0",
    spendable_atomic: "5",
    spent_visibility: "visible",
    output_count: 1,
    notes: [],
  };

  it("hands the validated input to the chain's scan and returns its answer", async () => {
    const seen: HistoricalInput[] = [];
    const route = historicalRoute({ zcash: async (input) => (seen.push(input), answer) });
    const input = historicalInput.parse({ chain: "zcash", viewKey: "uview1x", birthdayHeight: 1 });
    await expect(route.handler(input, ctx)).resolves.toEqual(answer);
    expect(seen).toEqual([input]);
  });

  it("a chain without a scan is 503 chain_not_configured naming the chain", async () => {
    const route = historicalRoute({});
    for (const chain of ["monero", "zcash"] as const) {
      await expect(route.handler(historicalInput.parse({ chain, viewKey: "k", address: "a" }), ctx)).rejects.toMatchObject({
        status: 503,
        code: "chain_not_configured",
        details: { chain },
      });
    }
  });
});
