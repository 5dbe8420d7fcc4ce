/**
 * /v1/zec/ironwood and /v1/zec/ironwood/history end to end on the devnet:
 * the app reads the simulated zebrad named by the devnet's overlay over a
 * loopback socket; the free readout carries the very numbers the paid
 * /v1/q/zec/pools answers and is kept about 60 s on the injected clock; the
 * worker's snapshot job (from backgroundJobs) runs across intervals while
 * blocks are mined, and the history reads those snapshots back, downsampled
 * within max_points with the first and last kept; bounds answer 400.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { backgroundJobs } from "../../src/workers.js";
import { ZCASH_POOLS } from "../../src/chains/zcash/zebrad.js";
import { formatZec } from "../../src/core/money.js";
import type { Job } from "../../src/core/jobs.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let s: WatchStack;
let job: Job;

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  job = backgroundJobs(s.t.app, () => s.tick(), 1000).find((j) => j.name === "zcash pool snapshots")!;
}, 60_000);

afterAll(async () => {
  await s?.close();
});

const { signal } = new AbortController();

describe("Zcash pools on the devnet", () => {
  it("/v1/zec/ironwood: every pool and the migration readout, the same numbers as the paid /v1/q/zec/pools", async () => {
    s.devnet.zebrad!.mine(2);
    const free = await s.call("GET", "/v1/zec/ironwood");
    expect(free.status).toBe(200);
    const paid = await s.payer.payFetch(`${s.url}/v1/q/zec/pools`);
    expect(paid.status).toBe(200);
    const q = (await paid.json()) as any;
    const tip = s.devnet.zebrad!.chain.tip();
    expect(free.json.height).toBe(tip.height);
    for (const k of ["height", "best_block_hash", "pools", "total_zatoshi", "total_zec", "shielded_percent", "migration"]) expect(free.json[k], k).toEqual(q[k]);
    for (const p of ZCASH_POOLS) expect(free.json.pools[p].zatoshi, p).toBe(tip.pools[p].toString());
    expect(free.json.migration.ironwood_zatoshi).toBe(tip.pools.ironwood.toString());
    expect(free.json).toMatchObject({
      as_of_ms: s.clock.now(),
      generated_at_ms: s.clock.now(),
      freshness: { age_s: 0, stale_after_s: 120, stale: false },
      present: true,
      source_freshness_s: 0,
      premium_endpoint: "/v1/q/zec/pools",
    });
  });

  it("is kept about 60 s: a new block shows only once the minute has passed", async () => {
    const first = (await s.call("GET", "/v1/zec/ironwood")).json;
    s.devnet.zebrad!.mine(1);
    s.advance(59_000);
    const cached = (await s.call("GET", "/v1/zec/ironwood")).json;
    expect(cached.height).toBe(first.height);
    expect(cached.as_of_ms).toBe(first.as_of_ms);
    expect(cached.freshness.age_s).toBe(59);
    s.advance(1_000);
    const fresh = (await s.call("GET", "/v1/zec/ironwood")).json;
    expect(fresh.height).toBe(first.height + 1);
    expect(fresh.freshness.age_s).toBe(0);
  });

  it("history bounds: 400 with the error envelope outside them, writes nothing", async () => {
    for (const q of ["window_ms=3599999", "window_ms=7776000001", "max_points=9", "max_points=5001", "max_points=ten", "window_ms=-5"]) {
      const r = await s.call("GET", `/v1/zec/ironwood/history?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.error.code, q).toBe("invalid_input");
      expect(typeof r.json.error.message, q).toBe("string");
    }
    const r = await s.call("GET", "/v1/zec/ironwood/history");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ window_ms: 90 * 86_400_000, max_points: 2000, interval_s: 900, snapshots_in_window: 0, rows: [], as_of_ms: null });
  });

  it("the worker's job snapshots each 15-minute interval; the history reads them back", async () => {
    expect(job).toBeDefined();
    const taken: { t: number; height: number; pools: Record<string, bigint> }[] = [];
    for (let i = 0; i < 24; i++) {
      s.devnet.zebrad!.mine(1 + (i % 3));
      await job.run(signal);
      await job.run(signal); // a second run in the same interval adds nothing
      const tip = s.devnet.zebrad!.chain.tip();
      taken.push({ t: s.clock.now(), height: tip.height, pools: { ...tip.pools } });
      s.advance(15 * 60_000);
    }
    const all = await s.call("GET", "/v1/zec/ironwood/history?window_ms=86400000&max_points=100");
    expect(all.status).toBe(200);
    expect(all.json.snapshots_in_window).toBe(24);
    expect(all.json.rows).toHaveLength(24);
    for (const [i, row] of (all.json.rows as any[]).entries()) {
      expect(row.t_ms).toBe(taken[i]!.t);
      expect(row.height).toBe(taken[i]!.height);
      for (const p of ZCASH_POOLS) expect(row.pools_zec[p]).toBe(formatZec(taken[i]!.pools[p]!));
      expect(row.shielded_percent).toBeGreaterThan(0);
      expect(row.migration_percent).toBeGreaterThanOrEqual(0);
    }
    const heights = (all.json.rows as any[]).map((r) => r.height);
    expect([...heights].sort((a, b) => a - b)).toEqual(heights);

    const small = await s.call("GET", "/v1/zec/ironwood/history?window_ms=86400000&max_points=10");
    expect(small.json.snapshots_in_window).toBe(24);
    expect(small.json.rows).toHaveLength(10);
    expect(small.json.rows[0]).toEqual(all.json.rows[0]);
    expect(small.json.rows[9]).toEqual(all.json.rows[23]);
    expect(small.json.as_of_ms).toBe(taken[23]!.t);

    // The window is respected: the last 3 hours hold the last 12 snapshots (t ≥ now − 3 h).
    const recent = await s.call("GET", "/v1/zec/ironwood/history?window_ms=10800000");
    const from = s.clock.now() - 10_800_000;
    expect(recent.json.rows.map((r: any) => r.t_ms)).toEqual(taken.filter((x) => x.t >= from).map((x) => x.t));
  });

  it("without ZEBRAD_URL: no snapshot job, /v1/zec/ironwood answers 503 chain_not_configured, the history answers from stored rows", async () => {
    const overlay = { ...s.devnet.configOverlay } as Record<string, unknown>;
    delete overlay.ZEBRAD_URL;
    const t: TestApp = await startTestApp({}, { devnet: { configOverlay: overlay } });
    try {
      expect(backgroundJobs(t.app, async () => ({}) as never, 1000).map((j) => j.name)).not.toContain("zcash pool snapshots");
      const r = await fetch(`${t.url}/v1/zec/ironwood`);
      expect(r.status).toBe(503);
      expect(((await r.json()) as any).error.code).toBe("chain_not_configured");
      const h = await fetch(`${t.url}/v1/zec/ironwood/history?window_ms=3600000`);
      expect(h.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("a zebrad on another network: 502 chain_network_mismatch, and the job stores nothing", async () => {
    const t: TestApp = await startTestApp({}, { devnet: { configOverlay: { ...s.devnet.configOverlay, ZCASH_NETWORK: "mainnet", COIN_ZEC_ADDRESS: undefined, COIN_ZEC_VIEW_KEY: undefined } } });
    try {
      const r = await fetch(`${t.url}/v1/zec/ironwood`);
      expect(r.status).toBe(502);
      expect(((await r.json()) as any).error.code).toBe("chain_network_mismatch");
      const j = backgroundJobs(t.app, async () => ({}) as never, 1000).find((x) => x.name === "zcash pool snapshots")!;
      await expect(j.run(signal)).rejects.toMatchObject({ code: "chain_network_mismatch" });
      const h = (await (await fetch(`${t.url}/v1/zec/ironwood/history?window_ms=3600000`)).json()) as any;
      expect(h.snapshots_in_window).toBe(0);
    } finally {
      await t.close();
    }
  });
});
