/**
 * The zebrad client against the devnet's simulated zebrad over real loopback
 * sockets: every method, the facts built on them, the network guard (a node
 * of another network is refused before it answers anything), retries after
 * 5xx, and clear 502/503s for a node that hangs, sends garbage or is absent.
 * Also the simulated chain's own invariants (supply grows by the subsidy
 * only; value flows from Orchard to Ironwood; the mempool empties into the
 * next block).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createZebrad, ZCASH_POOLS, type Zebrad } from "../../../src/chains/zcash/zebrad.js";
import { zcashHealth, zecHeightFacts, zecLastBlockFacts, zecMempoolFacts, zecPoolsFacts } from "../../../src/chains/zcash/facts.js";
import { ManualClock } from "../../../src/core/clock.js";
import { startJsonRpcServer } from "../../../devnet/jsonrpc-server.js";
import { DEVNET_ZCASH_NU63_HEIGHT, DEVNET_ZCASH_START_HEIGHT, DEVNET_ZCASH_SUBSIDY, startDevnetZebrad, type DevnetZebrad } from "../../../devnet/zebrad.js";
import { rejectedServiceError } from "./helpers.js";

let sim: DevnetZebrad;
let client: Zebrad;
const raw: http.Server[] = [];

/** A loopback server that answers every request with `reply` (or never, when reply is null). */
async function rawServer(reply: { status: number; body: string } | null): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    if (reply) res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body);
  });
  raw.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failure = rejectedServiceError;

beforeAll(async () => {
  sim = await startDevnetZebrad({ blockSeconds: 0, initialBlocks: 20 });
  client = createZebrad({ url: sim.url, network: "testnet", backoffMs: 1 });
});

afterAll(async () => {
  await client.close();
  await sim.close();
  for (const s of raw) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

describe("zebrad client on the simulator", () => {
  it("getblockchaininfo: testnet chain past NU6.3 with six pools", async () => {
    const i = await client.getBlockchainInfo();
    expect(i.chain).toBe("test");
    expect(i.blocks).toBe(sim.height());
    expect(i.blocks).toBe(DEVNET_ZCASH_START_HEIGHT + 19);
    expect(i.consensusChainTip).toBe("37a5165b");
    expect(i.upgrades.find((u) => u.name === "NU6.3")).toMatchObject({ activationHeight: 4_134_000, status: "active" });
    for (const p of ZCASH_POOLS) expect(i.valuePools[p].monitored).toBe(true);
    expect(i.valuePools.ironwood.zatoshi).toBeGreaterThan(0n);
  });

  it("getinfo, getblock by height and by hash, getrawmempool and getmempoolinfo", async () => {
    const info = await client.getInfo();
    expect(info.subversion).toContain("Zebra");
    expect(info.testnet).toBe(true);
    const tip = await client.getBlockchainInfo();
    const byHash = await client.getBlock(tip.bestBlockHash);
    const byHeight = await client.getBlock(tip.blocks);
    expect(byHash).toEqual(byHeight);
    expect(byHash.confirmations).toBe(1);
    const parent = await client.getBlock(byHash.previousBlockHash!);
    expect(parent.height).toBe(tip.blocks - 1);
    const added = sim.addMempoolTxs(2);
    const pool = await client.getRawMempool();
    expect(pool).toEqual(expect.arrayContaining(added));
    const m = await client.getMempoolInfo();
    expect(m.size).toBe(pool.length);
    expect(m.bytes).toBe(sim.chain.mempool.reduce((s, t) => s + t.size, 0));
  });

  it("an unknown block is a 502 carrying zebrad's RPC error", async () => {
    const e = await failure(client.getBlock(1));
    expect(e.status).toBe(502);
    expect(e.code).toBe("chain_rpc_failed");
    expect(e.details).toMatchObject({ call: "getblock", rpcCode: -8 });
  });

  it("facts: height, mempool, last block (age on the injected clock) and pools", async () => {
    const h = await zecHeightFacts(client);
    expect(h).toMatchObject({ height: sim.height(), synchronized: true, verification_progress: 1, network: "test" });
    const m = await zecMempoolFacts(client);
    expect(m.tx_count).toBe(sim.chain.mempool.length);
    const tip = sim.chain.tip();
    const clock = new ManualClock((tip.time + 42) * 1000);
    const last = await zecLastBlockFacts(client, clock);
    expect(last).toEqual({ height: tip.height, timestamp: tip.time, age_s: 42, hash: tip.hash, difficulty: expect.any(Number), size: tip.size, tx_count: tip.txs.length });
    const pools = await zecPoolsFacts(client);
    expect(pools.migration.ironwood_zatoshi).toBe(tip.pools.ironwood.toString());
    expect(pools.migration.orchard_remainder_zatoshi).toBe(tip.pools.orchard.toString());
    const want = Number((tip.pools.ironwood * 10_000n) / (tip.pools.ironwood + tip.pools.orchard)) / 100;
    expect(pools.migration.migration_percent).toBe(want);
  });

  it("mining: the mempool goes into the next block and the pools move by the block's deltas", async () => {
    const before = await client.getBlockchainInfo();
    const pending = sim.addMempoolTxs(3);
    const [hash] = sim.mine(1);
    const b = await client.getBlock(hash!);
    expect(b.txids.slice(1)).toEqual(expect.arrayContaining(pending));
    expect(b.height).toBe(before.blocks + 1);
    const after = await client.getBlockchainInfo();
    for (const p of ZCASH_POOLS) {
      expect(after.valuePools[p].zatoshi - before.valuePools[p].zatoshi).toBe(b.valuePools![p].deltaZatoshi);
    }
  });
});

describe("the simulated chain", () => {
  it("grows the supply by the subsidy only, drains Orchard into Ironwood, and keeps pools non-negative", () => {
    const blocks = sim.chain.blocks;
    sim.mine(40);
    let moved = 0n;
    for (let i = 1; i < blocks.length; i++) {
      const a = blocks[i - 1]!;
      const b = blocks[i]!;
      const total = (x: typeof a) => ZCASH_POOLS.reduce((s, p) => s + x.pools[p], 0n);
      expect(total(b) - total(a)).toBe(DEVNET_ZCASH_SUBSIDY);
      // From NU6.3 no value enters Orchard; before it, background traffic shields into Orchard.
      if (b.height >= DEVNET_ZCASH_NU63_HEIGHT) expect(b.pools.orchard).toBeLessThanOrEqual(a.pools.orchard);
      expect(b.pools.ironwood).toBeGreaterThanOrEqual(a.pools.ironwood);
      expect(b.pools.lockbox - a.pools.lockbox).toBe((DEVNET_ZCASH_SUBSIDY * 12n) / 100n);
      expect(b.previousHash).toBe(a.hash);
      for (const p of ZCASH_POOLS) expect(b.pools[p]).toBeGreaterThanOrEqual(0n);
      if (b.height >= DEVNET_ZCASH_NU63_HEIGHT) moved += a.pools.orchard - b.pools.orchard;
    }
    expect(moved).toBeGreaterThan(0n);
  });
});

describe("failures", () => {
  it("a node of another network is refused before it answers a question", async () => {
    const mainnetNode = await startDevnetZebrad({ blockSeconds: 0, initialBlocks: 2, network: "mainnet" });
    const c = createZebrad({ url: mainnetNode.url, network: "testnet", backoffMs: 1 });
    try {
      for (const call of [() => c.getBlockchainInfo(), () => c.getMempoolInfo(), () => c.getRawMempool(), () => c.getInfo()]) {
        const e = await failure(call());
        expect(e.status).toBe(502);
        expect(e.code).toBe("chain_network_mismatch");
        expect(e.details).toMatchObject({ expected: "test", actual: "main" });
      }
      expect(mainnetNode.requestCounts().getmempoolinfo).toBeUndefined();
      expect(await zcashHealth(c)).toMatchObject({ configured: true, available: false });
      expect(c.status().lastOk).toBe(false);
    } finally {
      await c.close();
      await mainnetNode.close();
    }
  });

  it("a testnet node behind a mainnet service is refused too", async () => {
    const c = createZebrad({ url: sim.url, network: "mainnet", backoffMs: 1 });
    try {
      const e = await failure(zecHeightFacts(c));
      expect(e.code).toBe("chain_network_mismatch");
      expect(e.message).toContain("mainnet");
    } finally {
      await c.close();
    }
  });

  it("5xx answers are retried; a node that keeps failing is a 502 after 3 attempts", async () => {
    const c = createZebrad({ url: sim.url, network: "testnet", backoffMs: 1 });
    try {
      sim.failNext(2, 503);
      expect((await c.getBlockchainInfo()).chain).toBe("test");
      sim.failNext(3, 500);
      const e = await failure(c.getBlockchainInfo());
      expect(e.status).toBe(502);
      expect(e.code).toBe("chain_rpc_failed");
      expect(e.details).toMatchObject({ attempts: 3, chain: "zcash" });
    } finally {
      sim.failNext(0);
      await c.close();
    }
  });

  it("a node that never answers times out into a 502", async () => {
    const url = await rawServer(null);
    const c = createZebrad({ url, network: "testnet", timeoutMs: 150, attempts: 2, backoffMs: 1 });
    try {
      const started = Date.now();
      const e = await failure(c.getBlockchainInfo());
      expect(e.status).toBe(502);
      expect(String(e.details?.reason)).toContain("timed out");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await c.close();
    }
  });

  it("garbage and wrong-shaped answers are 502s, never crashes or made-up facts", async () => {
    for (const body of ["<html>502 Bad Gateway</html>", JSON.stringify({ jsonrpc: "2.0", id: "1", result: { chain: "test", blocks: "many" } }), JSON.stringify([1, 2])]) {
      const url = await rawServer({ status: 200, body });
      const c = createZebrad({ url, network: "testnet", attempts: 1 });
      try {
        const e = await failure(zecPoolsFacts(c));
        expect(e.status).toBe(502);
        expect(e.code).toBe("chain_rpc_failed");
        expect(e.message).toContain("malformed");
      } finally {
        await c.close();
      }
    }
  });

  it("a node answering getblock with another block than asked is a 502", async () => {
    const rpc = async (method: string, params: unknown[]) => {
      const r = await fetch(sim.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
      return ((await r.json()) as { result: unknown }).result;
    };
    const info = await rpc("getblockchaininfo", []);
    const parent = await rpc("getblock", [String(sim.height() - 1), 1]);
    const liar = await startJsonRpcServer({
      maxBodyBytes: 65_536,
      rpc: { methods: { params: "positional", table: { getblockchaininfo: () => info, getblock: () => parent } } },
    });
    const c = createZebrad({ url: liar.url, network: "testnet", attempts: 1 });
    try {
      for (const ask of [sim.chain.tip().hash, sim.height()]) {
        const e = await failure(c.getBlock(ask));
        expect(e.status).toBe(502);
        expect(e.message).toContain("another block");
      }
      expect(await c.getBlock(sim.height() - 1)).toMatchObject({ height: sim.height() - 1 });
    } finally {
      await c.close();
      await liar.close();
    }
  });

  it("no URL: 503 chain_not_configured without I/O, and a health line saying so", async () => {
    const c = createZebrad({ url: undefined, network: "mainnet" });
    const e = await failure(c.getBlockchainInfo());
    expect(e.status).toBe(503);
    expect(e.code).toBe("chain_not_configured");
    expect(await zcashHealth(c)).toEqual({ configured: false, available: false });
  });

  it("the health line of a good node names height and network", async () => {
    expect(await zcashHealth(client)).toEqual({ configured: true, available: true, height: sim.height(), synchronized: true, network: "testnet" });
  });
});
