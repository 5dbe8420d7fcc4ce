/**
 * The Ethereum JSON-RPC client and the follower job against the devnet L1
 * simulator over real loopback sockets: headers stored with bounded
 * retention, a backlog drained in batches, a node that fails (HTTP 503,
 * garbage, connection refused) handed over to the next URL, the stored head
 * answering base-fee with what the next block then really charges.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import net from "node:net";
import { EthRpc, splitRpcUrls } from "../../src/chains/ethereum/rpc.js";
import { forkSchedule } from "../../src/chains/ethereum/fees.js";
import { baseFeeFacts } from "../../src/chains/ethereum/facts.js";
import { startDevnetEthereum, type DevnetEthereum } from "../../devnet/ethereum.js";
import { followEthereumOnce } from "../../src/ingest/ethereum-follower.js";
import { countHeaders, headerAt, latestHeader } from "../../src/ingest/ethereum-store.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { ServiceError } from "../../src/core/errors.js";

/** A loopback port nothing listens on. */
async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

let db: TestDatabase;
let sim: DevnetEthereum;
let broken: DevnetEthereum;

beforeAll(async () => {
  db = await openTestDatabase();
  sim = await startDevnetEthereum({ autoMine: false, history: 300 });
  broken = await startDevnetEthereum({ autoMine: false, history: 10, seed: 7 });
});

afterAll(async () => {
  await sim.close();
  await broken.close();
  await db.close();
});

describe("EthRpc", () => {
  it("reads the chain id and parses headers exactly", async () => {
    const rpc = new EthRpc({ urls: [sim.url] });
    expect(await rpc.chainId()).toBe(1337);
    const head = await rpc.header("latest");
    const want = sim.head();
    expect(head).toMatchObject({ number: want.number, hash: want.hash, baseFeePerGas: want.baseFeePerGas, excessBlobGas: want.excessBlobGas });
    expect(await rpc.header(want.number + 100n)).toBeNull();
    await rpc.close();
  });

  it("splits ETH_RPC_URL on commas", () => {
    expect(splitRpcUrls(" http://a:1 , http://b:2,")).toEqual(["http://a:1", "http://b:2"]);
    expect(splitRpcUrls(undefined)).toEqual([]);
  });

  it.each(["http503", "garbage"] as const)("fails over to the second URL when the first answers %s, and stays there", async (mode) => {
    broken.setFailure(mode);
    const failovers: string[] = [];
    const rpc = new EthRpc({ urls: [broken.url, sim.url], attemptsPerUrl: 1, onFailover: (f) => failovers.push(f.to) });
    expect(await rpc.blockNumber()).toBe(sim.head().number);
    expect(failovers).toEqual([sim.url]);
    expect(await rpc.blockNumber()).toBe(sim.head().number);
    expect(failovers).toHaveLength(1);
    broken.setFailure(null);
    await rpc.close();
  });

  it("fails over from a refused connection; with every URL down it is a 502 chain_rpc_failed", async () => {
    const dead = await deadUrl();
    const rpc = new EthRpc({ urls: [dead, sim.url], attemptsPerUrl: 1 });
    expect(await rpc.chainId()).toBe(1337);
    await rpc.close();
    const none = new EthRpc({ urls: [dead], attemptsPerUrl: 1 });
    const err = await none.blockNumber().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(502);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    await none.close();
  });

  it("a JSON-RPC error is the node's answer: no fail-over", async () => {
    const failovers: string[] = [];
    const rpc = new EthRpc({ urls: [sim.url, broken.url], onFailover: (f) => failovers.push(f.to) });
    const err = await rpc.call("eth_getBlockByNumber", ["nonsense", false]).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    expect(failovers).toEqual([]);
    await rpc.close();
  });

  it("no URL: 503 chain_not_configured without I/O", async () => {
    const rpc = new EthRpc({ urls: [] });
    expect(rpc.configured).toBe(false);
    const err = await rpc.blockNumber().catch((e: unknown) => e);
    expect((err as ServiceError).status).toBe(503);
    expect((err as ServiceError).code).toBe("chain_not_configured");
  });
});

describe("follower", () => {
  it("drains a backlog in batches, keeps only the retention, then follows new blocks (through a failing first URL)", async () => {
    broken.setFailure("http503");
    const rpc = new EthRpc({ urls: [broken.url, sim.url], attemptsPerUrl: 1 });
    const deps = { db: db.db, rpc, retention: 100, batch: 32 };
    let runs = 0;
    let r;
    do {
      r = await followEthereumOnce(deps);
      runs++;
    } while (r.more && runs < 20);
    expect(runs).toBe(4); // 100 blocks in batches of 32
    expect(await countHeaders(db.db, 1337)).toBe(100);
    expect((await latestHeader(db.db, 1337))?.hash).toBe(sim.head().hash);

    sim.mine(40);
    do r = await followEthereumOnce(deps);
    while (r.more);
    expect(await countHeaders(db.db, 1337)).toBe(100);
    const tip = await latestHeader(db.db, 1337);
    expect(tip?.number).toBe(sim.head().number);
    expect(tip?.baseFeePerGas).toBe(sim.head().baseFeePerGas);
    broken.setFailure(null);
    await rpc.close();
  });

  it("checks its projection against the node's eth_feeHistory and warns when a fork is missing from the table", async () => {
    const warnings: string[] = [];
    const rpc = new EthRpc({ urls: [sim.url] });
    const deps = { db: db.db, rpc, retention: 100, batch: 64, warn: (_i: Record<string, unknown>, m: string) => warnings.push(m) };
    sim.mine(1);
    let r;
    do r = await followEthereumOnce(deps);
    while (r.more);
    expect(r.scheduleCheck).toBe("match");
    expect(warnings).toEqual([]);
    sim.setFeeHistorySkew(1n);
    sim.mine(1);
    do r = await followEthereumOnce(deps);
    while (r.more);
    expect(r.scheduleCheck).toBe("mismatch");
    expect(warnings[0]).toContain("fork schedule table");
    sim.setFeeHistorySkew(0n);
    await rpc.close();
  });

  it("a reorg replaces the stored blocks from the fork point", async () => {
    const rpc = new EthRpc({ urls: [sim.url] });
    const deps = { db: db.db, rpc, retention: 100, batch: 64 };
    while ((await followEthereumOnce(deps)).more);
    const before = (await latestHeader(db.db, 1337))!;
    const head = sim.reorg(3);
    expect(head.number).toBe(before.number + 1n);
    const results = [];
    let r;
    do {
      r = await followEthereumOnce(deps);
      results.push(r);
    } while (r.more && results.length < 20);
    expect(results.some((x) => x.reorgFrom !== null)).toBe(true);
    const tip = (await latestHeader(db.db, 1337))!;
    expect(tip.hash).toBe(head.hash);
    // Every stored block links to the one below it.
    for (let n = tip.number; n > tip.number - 10n; n--) {
      const [a, b] = await Promise.all([headerAt(db.db, 1337, n), headerAt(db.db, 1337, n - 1n)]);
      expect(a!.parentHash).toBe(b!.hash);
      expect(a!.hash).toBe(sim.block(n)!.hash);
    }
    await rpc.close();
  });

  it("the projection from the stored head is what the next block charges", async () => {
    const rpc = new EthRpc({ urls: [sim.url] });
    const deps = { db: db.db, rpc, retention: 100, batch: 64 };
    for (let i = 0; i < 20; i++) {
      while ((await followEthereumOnce(deps)).more);
      const head = (await latestHeader(db.db, 1337))!;
      const facts = baseFeeFacts(head, forkSchedule(1337)!);
      const child = sim.mine(1);
      expect(facts.next_base_fee_wei).toBe(child.baseFeePerGas.toString());
      expect(facts.next_blob_base_fee_wei).not.toBeNull();
      const childFacts = baseFeeFacts(child, forkSchedule(1337)!);
      expect(childFacts.blob_base_fee_wei).toBe(facts.next_blob_base_fee_wei);
    }
    await rpc.close();
  });

  it("the devnet's fees move like mainnet's: the base fee changes and blobs stay near the reserve floor", () => {
    const fees = new Set<bigint>();
    let aboveFloor = 0;
    for (let n = sim.head().number - 99n; n <= sim.head().number; n++) {
      const b = sim.block(n)!;
      fees.add(b.baseFeePerGas);
      const blob = BigInt(baseFeeFacts(b, forkSchedule(1337)!).blob_base_fee_wei!);
      if (blob * 16n >= b.baseFeePerGas / 2n) aboveFloor++;
    }
    expect(fees.size).toBeGreaterThan(50);
    expect(aboveFloor).toBeGreaterThan(90);
  });
});
