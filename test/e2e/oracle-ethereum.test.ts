/**
 * The Ethereum questions end to end on the devnet: the follower ingests the
 * simulated L1 over loopback, then /v1/q/base-fee, /v1/q/cheapest-flashloan
 * and /v1/q/data-freshness are bought with devnet x402 payments, bad
 * parameters are refused before payment with the allowed values listed, the
 * catalogue lists the questions, the free flash-loan catalogue shows Aave's
 * premium read on chain, and stale data answers 503 rather than passing for
 * fresh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { baseFeeFacts } from "../../src/chains/ethereum/facts.js";
import { forkSchedule } from "../../src/chains/ethereum/fees.js";
import { AAVE_V3_CORE_POOL } from "../../src/chains/ethereum/flashloans.js";
import { startDevnet } from "../../devnet/index.js";
import { tempDir } from "../helpers/app.js";
import { ServiceError } from "../../src/core/errors.js";
import { backgroundJobs } from "../../src/workers.js";

let s: WatchStack;

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  await s.followEthereum();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("Ethereum questions on the devnet", () => {
  it("the catalogue lists them as available, with allowed values", async () => {
    const r = await s.call("GET", "/v1/q");
    const byPath = new Map((r.json.questions as any[]).map((q) => [q.question, q]));
    for (const q of ["base-fee", "cheapest-flashloan", "data-freshness"]) expect(byPath.get(q)?.available, q).toBe(true);
    expect(byPath.get("cheapest-flashloan").params).toEqual([
      expect.objectContaining({ name: "asset", required: true }),
      expect.objectContaining({ name: "chain", allowed: ["ethereum"], default: "ethereum" }),
    ]);
    expect(byPath.get("data-freshness").params[0]).toMatchObject({ name: "source" });
    expect(byPath.get("data-freshness").params[0].allowed[0]).toBe("eth_rpc");
  });

  it("the worker's job list carries the follower, which catches up with a new block", async () => {
    const job = backgroundJobs(s.t.app, async () => ({}) as never, 1000).find((j) => j.name === "ethereum follower");
    expect(job).toBeDefined();
    const head = s.devnet.ethereum!.mine(1);
    while ((await job!.run(new AbortController().signal)).more);
    const r = await s.t.app.oracle.ask("data-freshness", { source: "eth_rpc" });
    expect(r.head_block).toBeGreaterThanOrEqual(Number(head.number));
  });

  it("/v1/health reports the Ethereum node", async () => {
    const r = await s.call("GET", "/v1/health");
    expect(r.json.upstreams.ethereum).toMatchObject({ configured: true, available: true, network: "eip155:1337" });
  });

  it("base-fee: 402 unpaid, then a paid answer equal to the fee math on the simulator's head", async () => {
    expect((await s.call("GET", "/v1/q/base-fee")).status).toBe(402);
    const r = await s.paidGet("/v1/q/base-fee");
    expect(r.status).toBe(200);
    const head = s.devnet.ethereum!.block(BigInt(r.json.block))!;
    const want = baseFeeFacts(head, forkSchedule(1337)!);
    expect(r.json).toMatchObject({
      block: want.block,
      base_fee_gwei: want.base_fee_gwei,
      blob_base_fee_gwei: want.blob_base_fee_gwei,
      gas_used_ratio: want.gas_used_ratio,
      next_base_fee_gwei: want.next_base_fee_gwei,
      next_blob_base_fee_gwei: want.next_blob_base_fee_gwei,
      chain_id: 1337,
      fork: "bpo2",
    });
    expect(r.json.base_fee_gwei).toMatch(/^\d+(\.\d{1,9})?$/);
    expect(typeof r.json.as_of_ms).toBe("number");
    expect(r.headers.get("payment-response")).toBeTruthy();
  });

  it("cheapest-flashloan: zero-fee depth wins; an asset only Aave lends pays Aave's on-chain premium", async () => {
    const weth = await s.paidGet("/v1/q/cheapest-flashloan?asset=weth");
    expect(weth.status).toBe(200);
    expect(weth.json).toMatchObject({ found: true, asset: "WETH", provider_id: "morpho-blue", fee_bps: 0, address: "0xbbbbbbbbbb9cc5e90e3b3af64bdaf62c37eeffcb" });
    s.devnet.ethereum!.setPremium(AAVE_V3_CORE_POOL, 7);
    const gho = await s.paidGet("/v1/q/cheapest-flashloan?asset=0x40D16FC0246aD3160Ccc09B8D0D3A2cD28aE6C2f");
    expect(gho.json).toMatchObject({ found: true, asset: "GHO", provider_id: "aave-v3-core", fee_bps: 7, address: AAVE_V3_CORE_POOL });
    const dai = await s.paidGet("/v1/q/cheapest-flashloan?asset=DAI&chain=ethereum");
    expect(dai.json).toMatchObject({ found: true, provider_id: "maker-dss-flash", fee_bps: 0 });
  });

  it("bad parameters are a 400 listing the allowed values, before any payment is asked", async () => {
    const unknown = await s.call("GET", "/v1/q/cheapest-flashloan?asset=PEPE");
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe("invalid_input");
    expect(JSON.stringify(unknown.json.error.details)).toContain("WETH, WSTETH, WBTC, USDC, DAI");
    const chain = await s.call("GET", "/v1/q/cheapest-flashloan?asset=WETH&chain=base");
    expect(chain.status).toBe(400);
    expect(JSON.stringify(chain.json.error.details)).toContain("chain must be one of: ethereum");
    // A missing required parameter is a 400 once any input is given; no input at all is a discovery probe (402).
    expect((await s.call("GET", "/v1/q/cheapest-flashloan?chain=ethereum")).status).toBe(400);
    expect((await s.call("GET", "/v1/q/cheapest-flashloan")).status).toBe(402);
    const source = await s.call("GET", "/v1/q/data-freshness?source=relays");
    expect(source.status).toBe(400);
    expect(JSON.stringify(source.json.error.details)).toContain("eth_rpc");
  });

  it("data-freshness: paid, fresh after ingestion", async () => {
    const r = await s.paidGet("/v1/q/data-freshness?source=eth_rpc");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ source: "eth_rpc", configured: true, fresh: true, stored_blocks: expect.any(Number), node_reachable: true });
    expect(r.json.node_head - r.json.head_block).toBeLessThanOrEqual(1);
    expect(r.json.age_s).toBeLessThanOrEqual(r.json.max_age_s);
  });

  it("flash-loan catalogue (free): Aave's premium read on chain, filters applied, 400 on a bad filter", async () => {
    s.devnet.ethereum!.setPremium(AAVE_V3_CORE_POOL, 5);
    const all = await s.call("GET", "/v1/flashloan/providers");
    expect(all.status).toBe(200);
    const aave = (all.json.providers as any[]).find((p) => p.id === "aave-v3-core");
    expect(aave).toMatchObject({ fee_source: "onchain", address: AAVE_V3_CORE_POOL, multi_asset: true });
    expect([5, 7]).toContain(aave.fee_bps); // read within the last minute
    expect((all.json.providers as any[]).every((p) => p.source.length > 0)).toBe(true);
    const free = await s.call("GET", "/v1/flashloan/providers?max_fee_bps=0&multi_asset=true");
    const ids = (free.json.providers as any[]).map((p) => p.id);
    expect(ids).toContain("balancer-v2");
    expect(ids).not.toContain("aave-v3-core");
    expect(ids).not.toContain("morpho-blue");
    const bad = await s.call("GET", "/v1/flashloan/providers?chain=solana");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json.error.details)).toContain("chain must be one of: ethereum");
  });

  it("answers are cached 10 s on the injected clock, then recomputed from the newer head", async () => {
    s.advance(11_000); // past any answer cached by the tests above
    const first = await s.t.app.oracle.ask("base-fee", {});
    const mined = s.devnet.ethereum!.mine(1);
    await s.followEthereum();
    s.advance(9_000);
    const cached = await s.t.app.oracle.ask("base-fee", {});
    expect(cached).toEqual(first);
    s.advance(1_000);
    const fresh = await s.t.app.oracle.ask("base-fee", {});
    expect(fresh.as_of_ms).toBe((first.as_of_ms as number) + 10_000);
    expect(fresh.block).toBeGreaterThanOrEqual(Number(mined.number));
    expect(first.block).toBeLessThan(Number(mined.number));
  });

  it("stale data answers 503 source_stale, never an old fee passed off as fresh", async () => {
    s.advance(10 * 60_000);
    const err = await s.t.app.oracle.ask("base-fee", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(503);
    expect((err as ServiceError).code).toBe("source_stale");
    expect((err as ServiceError).details).toMatchObject({ source: "eth_rpc" });
    // The node goes down too: freshness still answers from the stored data and says the node is unreachable.
    s.devnet.ethereum!.setFailure("http503");
    const fresh = await s.t.app.oracle.ask("data-freshness", { source: "eth_rpc" });
    expect(fresh).toMatchObject({ fresh: false, node_reachable: false, node_head: null });
    expect(fresh.age_s).toBeGreaterThan(fresh.max_age_s as number);
    s.devnet.ethereum!.setFailure(null);
  });
});

describe("devnet with a real ETH_RPC_URL", () => {
  it("replaces only the Ethereum simulator", async () => {
    const dir = tempDir("vigil-devnet-eth-");
    const d = await startDevnet({ dataDir: dir, blockSeconds: 0, ethRpcUrl: "http://10.0.0.1:8545" });
    try {
      expect(d.ethereum).toBeUndefined();
      expect(d.configOverlay.ETH_RPC_URL).toBe("http://10.0.0.1:8545");
      expect(d.configOverlay.EVM_RPC_URL).toBe(d.evmUrl);
      expect(d.configOverlay.MONERO_DAEMON_URL).toBe(d.moneroUrl);
    } finally {
      await d.close();
    }
  });
});
