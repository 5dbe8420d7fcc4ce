/**
 * The Zcash questions end to end on the devnet: the app reads the simulated
 * zebrad named by the devnet's overlay; /v1/q/zec/height, /mempool,
 * /last-block and /pools are bought with devnet x402 payments and agree with
 * the simulated chain; the catalogue lists them as available; /v1/health has
 * the Zcash line; a service on another network than its node refuses to
 * answer (502, nothing made up, nothing charged), and one without a node
 * lists them unavailable and answers 503.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { ZCASH_POOLS } from "../../src/chains/zcash/zebrad.js";
import { createPayer } from "../../src/x402/payer.js";

let s: WatchStack;

beforeAll(async () => {
  s = await startWatchStack({ https: false });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("Zcash questions on the devnet", () => {
  it("the overlay points the app at the simulated zebrad on testnet", () => {
    expect(s.devnet.zebrad).toBeDefined();
    expect(s.devnet.configOverlay.ZEBRAD_URL).toBe(s.devnet.zebrad!.url);
    expect(s.devnet.configOverlay.ZCASH_NETWORK).toBe("testnet");
  });

  it("the catalogue lists the four questions as available", async () => {
    const r = await s.call("GET", "/v1/q");
    const byPath = new Map((r.json.questions as any[]).map((q) => [q.question, q]));
    for (const q of ["zec/height", "zec/mempool", "zec/last-block", "zec/pools"]) {
      expect(byPath.get(q), q).toMatchObject({ available: true, params: [] });
    }
  });

  it("/v1/health reports the Zcash node", async () => {
    const r = await s.call("GET", "/v1/health");
    expect(r.json.upstreams.zcash).toMatchObject({ configured: true, available: true, network: "testnet", height: s.devnet.zebrad!.height() });
  });

  it("height: 402 unpaid, then a paid answer equal to the simulator's tip", async () => {
    expect((await s.call("GET", "/v1/q/zec/height")).status).toBe(402);
    s.devnet.zebrad!.mine(1);
    const r = await s.paidGet("/v1/q/zec/height");
    expect(r.status).toBe(200);
    const tip = s.devnet.zebrad!.chain.tip();
    expect(r.json).toMatchObject({ height: tip.height, best_block_hash: tip.hash, verification_progress: 1, synchronized: true, network: "test" });
    expect(typeof r.json.as_of_ms).toBe("number");
    expect(r.headers.get("payment-response")).toBeTruthy();
  });

  it("mempool: count and bytes of the simulator's pending transactions", async () => {
    s.devnet.zebrad!.addMempoolTxs(4);
    const pending = s.devnet.zebrad!.chain.mempool;
    const r = await s.paidGet("/v1/q/zec/mempool");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ tx_count: pending.length, bytes: pending.reduce((n, t) => n + t.size, 0) });
    expect(r.json.usage_bytes).toBeGreaterThanOrEqual(r.json.bytes);
  });

  it("last-block: timestamp, age, hash, difficulty, size of the tip", async () => {
    s.devnet.zebrad!.mine(1);
    const r = await s.paidGet("/v1/q/zec/last-block");
    expect(r.status).toBe(200);
    const tip = s.devnet.zebrad!.chain.tip();
    expect(r.json).toMatchObject({ height: tip.height, timestamp: tip.time, hash: tip.hash, size: tip.size, tx_count: tip.txs.length });
    expect(r.json.difficulty).toBeGreaterThan(0);
    expect(r.json.age_s).toBe(Math.max(0, Math.floor(s.clock.now() / 1000) - tip.time));
  });

  it("pools: six value pools in zatoshi and ZEC, totals and the migration readout", async () => {
    s.devnet.zebrad!.mine(1);
    const r = await s.paidGet("/v1/q/zec/pools");
    expect(r.status).toBe(200);
    const tip = s.devnet.zebrad!.chain.tip();
    expect(r.json.height).toBe(tip.height);
    let total = 0n;
    for (const p of ZCASH_POOLS) {
      expect(r.json.pools[p].zatoshi, p).toBe(tip.pools[p].toString());
      expect(r.json.pools[p].zec).toMatch(/^\d+(\.\d{1,8})?$/);
      total += tip.pools[p];
    }
    expect(r.json.total_zatoshi).toBe(total.toString());
    expect(r.json.migration).toMatchObject({
      ironwood_zatoshi: tip.pools.ironwood.toString(),
      orchard_remainder_zatoshi: tip.pools.orchard.toString(),
    });
    // Background migrations move a few ZEC at a time against millions in Orchard,
    // so the readout may round to 0.00 %: it is checked against the exact formula.
    const pct = r.json.migration.migration_percent;
    expect(pct).toBeGreaterThanOrEqual(0);
    expect(pct).toBeLessThan(100);
    expect(pct).toBe(Number((tip.pools.ironwood * 10_000n) / (tip.pools.ironwood + tip.pools.orchard)) / 100);
  });

  it("a mainnet service behind the devnet's testnet zebrad answers 502 chain_network_mismatch, and health says unavailable", async () => {
    const t: TestApp = await startTestApp({}, { devnet: { configOverlay: { ...s.devnet.configOverlay, ZCASH_NETWORK: "mainnet", COIN_ZEC_ADDRESS: undefined, COIN_ZEC_VIEW_KEY: undefined } } });
    try {
      const payer = createPayer(s.devnet.payers[1]!.privateKey, { networks: ["eip155:84532"] });
      const r = await payer.payFetch(`${t.url}/v1/q/zec/height`);
      const body = (await r.json()) as any;
      expect(r.status).toBe(502);
      expect(body.error.code).toBe("chain_network_mismatch");
      expect(r.headers.get("payment-response")).toBeNull();
      const h = (await (await fetch(`${t.url}/v1/health`)).json()) as any;
      expect(h.upstreams.zcash).toMatchObject({ configured: true, available: false });
    } finally {
      await t.close();
    }
  });

  it("without ZEBRAD_URL the questions are listed unavailable and answer 503 chain_not_configured", async () => {
    const overlay = { ...s.devnet.configOverlay } as Record<string, unknown>;
    delete overlay.ZEBRAD_URL;
    const t: TestApp = await startTestApp({}, { devnet: { configOverlay: overlay } });
    try {
      const cat = (await (await fetch(`${t.url}/v1/q`)).json()) as any;
      expect(cat.questions.find((q: any) => q.question === "zec/pools").available).toBe(false);
      await expect(t.app.oracle.ask("zec/pools", {})).rejects.toMatchObject({ status: 503, code: "chain_not_configured" });
      const h = (await (await fetch(`${t.url}/v1/health`)).json()) as any;
      expect(h.upstreams.zcash).toEqual({ configured: false, available: false });
    } finally {
      await t.close();
    }
  });
});
