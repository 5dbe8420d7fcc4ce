/**
 * The lending questions and the opportunities feed end to end on the devnet:
 * before anything is indexed a paid question answers 503 naming `lending`;
 * the indexer then reads the devnet L1's Aave V3 Core and SparkLend markets
 * over loopback, and /v1/q/liquidatable, /v1/q/at-risk-count,
 * /v1/q/recent-liquidations and /v1/premium/opportunities are bought with
 * devnet x402 payments; the free sample is the redaction of the paid rows;
 * bad parameters are refused before payment with the allowed values listed;
 * the catalogue and data-freshness list the `lending` source; stale data and
 * a node that is down answer 503 / show in data-freshness.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { indexLendingOnce } from "../../src/ingest/lending-indexer.js";
import { liquidationsSince, positionsBelow } from "../../src/ingest/lending-store.js";
import { backgroundJobs } from "../../src/workers.js";
import { baseToUsd, LENDING_MARKETS, wadToNumber, WAD } from "../../src/chains/ethereum/lending.js";
import { redactOpportunities, type Opportunities } from "../../src/feeds/opportunities.js";
import { ServiceError } from "../../src/core/errors.js";
import { loadConfig } from "../../src/config.js";
import { tempDir } from "../helpers/app.js";
import fs from "node:fs";
import path from "node:path";

/** One of the devnet's liquidators, put on a sanctions-style list below. */
const LIQUIDATOR = "0x1111111254eeb25477b68fb85ed929f73a960582";

let s: WatchStack;

const index = async () => {
  while ((await indexLendingOnce(s.t.app.lending)).more);
};

beforeAll(async () => {
  const dir = tempDir("vigil-lists-");
  const csv = path.join(dir, "sanctioned.csv");
  fs.writeFileSync(csv, `address,name\n${LIQUIDATOR.toUpperCase().replace("0X", "0x")},sample entry\n0x000000000000000000000000000000000000dead,other\n`);
  s = await startWatchStack({ https: false, env: { RISK_LISTS: `ofac=${csv}:sanctioned` } });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("lending questions on the devnet", () => {
  it("before the indexer has run, a paid question answers 503 naming the lending source", async () => {
    const r = await s.paidGet("/v1/q/at-risk-count?max_hf=1.2");
    expect(r.status).toBe(503);
    expect(r.json.error).toMatchObject({ code: "source_stale", details: { source: "lending", age_s: null } });
  });

  it("the indexer finds the devnet's borrowers and liquidations; the worker runs it", async () => {
    await index();
    await s.followEthereum();
    const all = await positionsBelow(s.t.app.database.db, { markets: LENDING_MARKETS.map((m) => m.id), maxHfWad: 10n ** 40n, minDebtBase: 0n });
    expect(all.length).toBeGreaterThan(100);
    expect(backgroundJobs(s.t.app, async () => ({}) as never, 1000).some((j) => j.name === "lending indexer")).toBe(true);
  });

  it("the catalogue lists the questions with allowed values and units, and data-freshness a lending source", async () => {
    const r = await s.call("GET", "/v1/q");
    const byPath = new Map((r.json.questions as any[]).map((q) => [q.question, q]));
    for (const q of ["liquidatable", "at-risk-count", "recent-liquidations"]) {
      expect(byPath.get(q)?.available, q).toBe(true);
      expect(byPath.get(q)?.source, q).toBe("lending");
    }
    expect(byPath.get("at-risk-count").params).toEqual([
      expect.objectContaining({ name: "max_hf", default: "1.05", format: "decimal health factor" }),
      expect.objectContaining({ name: "min_debt_usd", default: "0", format: "USD" }),
      expect.objectContaining({ name: "protocol", allowed: ["all", "aave", "spark", "compound", "morpho"], default: "all" }),
    ]);
    expect(byPath.get("recent-liquidations").params[0]).toMatchObject({ name: "since_min", default: "60", format: "minutes" });
    expect(byPath.get("liquidatable").params[0]).toMatchObject({ name: "addr", required: true, format: "0x-address" });
    expect(byPath.get("data-freshness").params[0].allowed).toContain("lending");
  });

  it("bad parameters are a 400 listing the allowed values, before any payment", async () => {
    const cases: [string, string][] = [
      ["/v1/q/liquidatable?addr=0x123", "0x-address"],
      ["/v1/q/liquidatable?protocol=aave", "addr"],
      ["/v1/q/liquidatable?addr=0x00000000000000000000000000000000000a11ce&protocol=euler", "all, aave, spark, compound, morpho"],
      ["/v1/q/at-risk-count?protocol=compound-v2", "all, aave, spark, compound, morpho"],
      ["/v1/q/recent-liquidations?protocol=MORPHO", "all, aave, spark, compound, morpho"],
      ["/v1/q/at-risk-count?max_hf=abc", "from 0 to 1000"],
      ["/v1/q/at-risk-count?max_hf=1001", "from 0 to 1000"],
      ["/v1/q/at-risk-count?min_debt_usd=-5", "non-negative"],
      ["/v1/q/recent-liquidations?since_min=0", "1 to 1440"],
      ["/v1/q/recent-liquidations?since_min=1441", "1 to 1440"],
      ["/v1/premium/opportunities?limit=501", "1 to 500"],
      ["/v1/premium/opportunities?protocol=euler", "all, aave, spark, compound, morpho"],
    ];
    // No input at all is a discovery probe: the 402 (nothing done or charged), whose terms say `addr` is needed.
    expect((await s.call("GET", "/v1/q/liquidatable")).status).toBe(402);
    for (const [path, hint] of cases) {
      const r = await s.call("GET", path);
      expect(r.status, path).toBe(400);
      expect(r.json.error.code, path).toBe("invalid_input");
      expect(JSON.stringify(r.json), path).toContain(hint);
    }
  });

  it("liquidatable: the lowest-HF position of a borrower, paid", async () => {
    const [worst] = await positionsBelow(s.t.app.database.db, { markets: LENDING_MARKETS.map((m) => m.id), maxHfWad: 10n ** 40n, minDebtBase: 0n, limit: 1 });
    expect((await s.call("GET", `/v1/q/liquidatable?addr=${worst!.borrower}`)).status).toBe(402);
    const r = await s.paidGet(`/v1/q/liquidatable?addr=${worst!.borrower.toUpperCase().replace("0X", "0x")}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      found: true,
      addr: worst!.borrower,
      market: worst!.market,
      liquidatable: worst!.healthFactorWad < WAD,
      health_factor: wadToNumber(worst!.healthFactorWad),
      debt_usd: baseToUsd(worst!.debtBase),
      protocol_filter: "all",
    });
    expect(r.json.source_age_s).toBeLessThan(120);
    expect(typeof r.json.as_of_ms).toBe("number");
    const nobody = await s.paidGet("/v1/q/liquidatable?addr=0x00000000000000000000000000000000000b0b00&protocol=spark");
    expect(nobody.json).toMatchObject({ found: false, liquidatable: false, health_factor: null, debt_usd: null, positions: 0, protocol_filter: "spark" });
  });

  it("at-risk-count: counts by HF, debt and protocol, paid", async () => {
    const all = await s.paidGet("/v1/q/at-risk-count?max_hf=1000");
    expect(all.status).toBe(200);
    expect(all.json.count).toBe(all.json.universe_size);
    const risky = await s.paidGet("/v1/q/at-risk-count?max_hf=1.1");
    expect(risky.json.count).toBeGreaterThan(0);
    expect(risky.json.count).toBeLessThan(all.json.count);
    const big = await s.paidGet("/v1/q/at-risk-count?max_hf=1.1&min_debt_usd=100000");
    expect(big.json.count).toBeLessThanOrEqual(risky.json.count);
    const aave = await s.paidGet("/v1/q/at-risk-count?max_hf=1000&protocol=aave");
    const spark = await s.paidGet("/v1/q/at-risk-count?max_hf=1000&protocol=spark");
    const compound = await s.paidGet("/v1/q/at-risk-count?max_hf=1000&protocol=compound");
    const morpho = await s.paidGet("/v1/q/at-risk-count?max_hf=1000&protocol=morpho");
    expect(compound.json).toMatchObject({ protocol: "compound" });
    expect(compound.json.count).toBeGreaterThan(0);
    expect(morpho.json.count).toBeGreaterThan(0);
    expect(aave.json.count + spark.json.count + compound.json.count + morpho.json.count).toBe(all.json.count);
    expect(spark.json).toMatchObject({ protocol: "spark", max_hf: "1000", min_debt_usd: "0" });
  });

  it("recent-liquidations: the devnet's liquidations in the window, paid", async () => {
    const day = await s.paidGet("/v1/q/recent-liquidations?since_min=1440");
    expect(day.status).toBe(200);
    expect(day.json.count).toBeGreaterThan(3);
    expect(day.json.distinct_liquidators).toBeGreaterThanOrEqual(2);
    expect(Number(day.json.total_debt_usd)).toBeGreaterThan(0);
    expect(day.json.newest).toMatchObject({ borrower: expect.stringMatching(/^0x[0-9a-f]{40}$/), tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const spark = await s.paidGet("/v1/q/recent-liquidations?since_min=1440&protocol=spark");
    expect(spark.json.count).toBeLessThan(day.json.count);
    const byProtocol = await Promise.all(["aave", "spark", "compound", "morpho"].map((p) => s.paidGet(`/v1/q/recent-liquidations?since_min=1440&protocol=${p}`)));
    expect(byProtocol.reduce((a, r) => a + r.json.count, 0)).toBe(day.json.count);
  });

  it("opportunities: paid rows ranked by expected value; the free sample is their redaction", async () => {
    expect((await s.call("GET", "/v1/premium/opportunities")).status).toBe(402);
    const paid = await s.paidGet("/v1/premium/opportunities?max_hf=1.1&limit=3");
    expect(paid.status).toBe(200);
    const body = paid.json as Opportunities;
    expect(body.opportunities.length).toBe(3);
    const evs = body.opportunities.map((r) => Number(r.expected_value_usd));
    expect([...evs].sort((a, b) => b - a)).toEqual(evs);
    expect(body.totals.at_risk).toBeGreaterThanOrEqual(3);
    expect(body.assumptions.base_fee_gwei).not.toBeNull();
    expect(Number(body.opportunities[0]!.gas_usd)).toBeGreaterThan(0);
    expect(body.stale).toBe(false);
    // Each row says the bonus it was valued with: its protocol's own unless bonus_bps is given.
    expect(body.filters.bonus_bps).toBeNull();
    const sources: Record<string, string[]> = { aave: ["aave_position_reserve", "aave_emode"], spark: ["aave_position_reserve", "aave_emode"], compound: ["comet_storefront"], morpho: ["morpho_lltv"] };
    for (const r of body.opportunities) expect(sources[r.protocol], r.protocol).toContain(r.bonus_source);
    const all = (await s.paidGet("/v1/premium/opportunities?max_hf=1000&limit=500")).json as Opportunities;
    const bonuses = new Map(all.opportunities.map((r) => [`${r.protocol} ${r.bonus_source}`, new Set<number>()]));
    for (const r of all.opportunities) bonuses.get(`${r.protocol} ${r.bonus_source}`)!.add(r.bonus_bps);
    // The devnet's Morpho markets (LLTV 86 %, 94.5 %) pay 4.38 % and 1.67 %; the Comets' storefront discounts as the
    // indexer read them (storefront factor × (1 − lowest-discount liquidationFactor), as d / (1 − d)): cUSDCv3
    // 0.5 × 0.1 → 5.26 %, cWETHv3 0.5 × 0.04 → 2.04 %, cUSDTv3 0.5 × 0.05 → 2.56 %, cWstETHv3 0.7 × 0.04 → 2.88 %;
    // Aave Core and Spark each position's own collateral reserve's: 5 % (WETH, WBTC liquidationBonus 105 %) or 6 % (wstETH 106 %),
    // or for those in the devnet's eMode category 1 backed by WETH or wstETH the category's 1 % (liquidationBonus 101 %).
    const COMET_BPS: Record<string, number> = { "compound-v3-usdc": 526, "compound-v3-weth": 204, "compound-v3-usdt": 256, "compound-v3-wsteth": 288 };
    const comet = new Map(all.opportunities.filter((r) => r.protocol === "compound").map((r) => [r.market, r.bonus_bps]));
    expect(comet.size).toBeGreaterThan(0);
    for (const [m, bps] of comet) expect(bps, m).toBe(COMET_BPS[m]);
    bonuses.delete("compound comet_storefront");
    expect(Object.fromEntries([...bonuses].map(([k, v]) => [k, [...v].sort((a, b) => a - b)]))).toEqual({
      "aave aave_position_reserve": [500, 600],
      "aave aave_emode": [100],
      "spark aave_position_reserve": [500, 600],
      "spark aave_emode": [100],
      "morpho morpho_lltv": [167, 438],
    });
    const forced = (await s.paidGet("/v1/premium/opportunities?max_hf=1.1&limit=3&bonus_bps=1000")).json as Opportunities;
    expect(forced.filters.bonus_bps).toBe(1_000);
    for (const r of forced.opportunities) expect(r).toMatchObject({ bonus_bps: 1_000, bonus_source: "query" });

    const sample = await s.call("GET", "/v1/premium/opportunities/sample");
    expect(sample.status).toBe(200);
    expect(sample.json).toEqual(redactOpportunities(body));
    expect(sample.json.top[0].borrower).toMatch(/^0x[0-9a-f]{4}…[0-9a-f]{4}$/);
    expect(sample.json.top[0].debt_usd).toMatch(/^-?[1-9]0*$/);
    expect(sample.json).toMatchObject({ premium_endpoint: "/v1/premium/opportunities", present: true, freshness: { stale: false } });
  });

  it("address-risk: list hits, liquidations suffered and made, builder roles, paid", async () => {
    expect((await s.call("GET", "/v1/q/address-risk?addr=nope")).status).toBe(400);
    const liq = await s.paidGet(`/v1/q/address-risk?addr=${LIQUIDATOR}`);
    expect(liq.status).toBe(200);
    expect(liq.json).toMatchObject({ addr: LIQUIDATOR, risk_score: 100, risk_band: "critical", lending_fresh: true });
    expect(liq.json.flags).toContainEqual(expect.objectContaining({ flag: "sanctioned", weight: 100, detail: "listed on ofac" }));
    // The set RISK_LISTS names (here only ofac: a setting given wins over the devnet's own list) beside the built-in list.
    expect(liq.json.lists).toEqual([
      expect.objectContaining({ list: "approval-exploits", factor: "per_entry", listed: false }),
      expect.objectContaining({ list: "ofac", factor: "sanctioned", listed: true }),
    ]);
    expect(liq.json.lending.liquidations_as_liquidator).toBeGreaterThan(0);
    // The account kind is what the node's eth_getCode says (unknown when it does not serve the method).
    const code = (await (await fetch(s.devnet.ethereum!.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getCode", params: [LIQUIDATOR, "latest"] }) })).json()) as any;
    expect(liq.json.account_kind).toBe(code.error ? "unknown" : code.result === "0x" ? "eoa" : "contract");

    const [victim] = await liquidationsSince(s.t.app.database.db, LENDING_MARKETS.map((m) => m.id), 0);
    const v = await s.paidGet(`/v1/q/address-risk?addr=${victim!.borrower}`);
    expect(v.json.flags).toContainEqual(expect.objectContaining({ flag: "liquidated", weight: 20 }));
    expect(v.json.risk_score).toBeGreaterThanOrEqual(20);
    expect(v.json.lending.liquidated_as_borrower).toBeGreaterThan(0);
    expect(v.json.lists.every((l: any) => !l.listed)).toBe(true);

    // The newest block the follower stored (the devnet's head may be a block ahead of it).
    const { miner } = await s.t.app.database.db.selectFrom("eth_headers").select("miner").orderBy("number", "desc").limit(1).executeTakeFirstOrThrow();
    const m = await s.paidGet(`/v1/q/address-risk?addr=${miner}`);
    expect(m.json.builder.fee_recipient_blocks).toBeGreaterThan(0);
    expect(m.json).toMatchObject({ risk_score: 0, risk_band: "low", flags: [] });
  });

  it("data-freshness: the lending source, fresh, then the node down", async () => {
    const r = await s.paidGet("/v1/q/data-freshness?source=lending");
    expect(r.json).toMatchObject({ source: "lending", configured: true, fresh: true, node_reachable: true, last_error: null });
    expect(r.json.stored_blocks).toBeGreaterThan(100);
    s.devnet.ethereum!.setFailure("http503");
    try {
      await expect(indexLendingOnce(s.t.app.lending)).rejects.toThrow();
      s.advance(11_000);
      const down = await s.t.app.oracle.ask("data-freshness", { source: "lending" });
      expect(down).toMatchObject({ source: "lending", node_reachable: false });
      expect(down.last_error).toMatch(/Ethereum node/);
    } finally {
      s.devnet.ethereum!.setFailure(null);
    }
  });

  it("stale data answers 503 source_stale naming lending", async () => {
    s.advance(10 * 60_000);
    for (const [q, p] of [
      ["liquidatable", { addr: "0x00000000000000000000000000000000000a11ce" }],
      ["at-risk-count", {}],
      ["recent-liquidations", {}],
    ] as const) {
      const err = await s.t.app.oracle.ask(q, p).catch((e: unknown) => e);
      expect(err, q).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(503);
      expect((err as ServiceError).details).toMatchObject({ source: "lending" });
    }
  });

  it("settings: defaults", () => {
    expect(loadConfig({ DEVNET: "off" })).toMatchObject({ LENDING_BACKFILL_BLOCKS: 50_400, LENDING_RETENTION_HOURS: 168 });
  });
});
