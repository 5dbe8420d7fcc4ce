/**
 * The lightwalletd gRPC client against the devnet's lightwalletd simulator on
 * loopback (a real grpc-js server): every method, pool filtering, the
 * network and Ironwood-protocol checks, deadlines, retries on UNAVAILABLE and
 * the 502/503 mapping.
 */
import net from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { bytesToHex } from "../../../src/chains/zcash/bytes.js";
import { compareVersions, createLightwalletd, IRONWOOD_PROTOCOL_VERSION, type Lightwalletd } from "../../../src/chains/zcash/lightwalletd.js";
import { startDevnetLightwalletd, type DevnetLightwalletd } from "../../../devnet/lightwalletd.js";
import { DevnetZcashChain, DEVNET_ZCASH_NU63_HEIGHT } from "../../../devnet/zcash-chain.js";
import { deriveDevnetZcashWallets, type DevnetZcashWallet } from "../../../devnet/zcash-wallets.js";
import { buildTx, encryptAction, randomOrchardAddress } from "../../../devnet/zcash-sender.js";
import { encodeTextMemo } from "../../../src/chains/zcash/note-decrypt.js";
import { rejectedServiceError } from "./helpers.js";

let chain: DevnetZcashChain;
let sim: DevnetLightwalletd;
let client: Lightwalletd;
let wallets: DevnetZcashWallet[];
const extra: { close(): unknown }[] = [];

const display = (b: Uint8Array) => bytesToHex(Uint8Array.from(b).reverse());
const protocol = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex")).reverse();

const failure = rejectedServiceError;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

beforeAll(async () => {
  chain = new DevnetZcashChain(systemClock, 0);
  chain.open(16);
  wallets = deriveDevnetZcashWallets("5a".repeat(32));
  sim = await startDevnetLightwalletd({ chain });
  client = createLightwalletd({ url: sim.url, network: "testnet", backoffMs: 1, timeoutMs: 5_000 });
});

afterAll(async () => {
  client.close();
  for (const c of extra) await c.close();
  await sim.close();
});

describe("lightwalletd client on the devnet simulator", () => {
  it("GetLightdInfo: the devnet's chain, height, NU6.3 and an Ironwood-aware protocol version", async () => {
    const info = await client.info();
    expect(info).toMatchObject({ chainName: "test", blockHeight: chain.tip().height, upgradeName: "NU6.3", upgradeHeight: DEVNET_ZCASH_NU63_HEIGHT, consensusBranchId: "37a5165b" });
    expect(compareVersions(info.lightwalletProtocolVersion, IRONWOOD_PROTOCOL_VERSION)).toBeGreaterThanOrEqual(0);
  });

  it("GetLatestBlock: the tip's height and hash (protocol byte order)", async () => {
    const b = await client.latestBlock();
    expect(b.height).toBe(chain.tip().height);
    expect(display(b.hash)).toBe(chain.tip().hash);
  });

  it("GetBlock: every pool including transparent; hashes chain", async () => {
    const tip = chain.tip();
    const b = await client.block(tip.height);
    expect(display(b.hash)).toBe(tip.hash);
    expect(display(b.prevHash)).toBe(tip.previousHash);
    expect(b.vtx.map((t) => display(t.txid))).toEqual(tip.txs.map((t) => t.txid));
    expect(b.vtx[0]!.vout.length).toBe(1); // the coinbase output
    expect(b.vtx[0]!.vin).toEqual([]); // coinbase inputs are not listed
    expect(b.chainMetadata).toEqual({ saplingCommitmentTreeSize: tip.trees.sapling, orchardCommitmentTreeSize: tip.trees.orchard, ironwoodCommitmentTreeSize: tip.trees.ironwood });
  });

  it("GetBlockRange: inclusive, ascending and descending, default pools leave transparent-only transactions out", async () => {
    const sent = chain.send(wallets[0]!.transparentAddress, 7_000n);
    chain.send(wallets[1]!.address, 9_000n, "range");
    chain.mine(1);
    const tip = chain.tip().height;
    const up = await collect(client.blockRange(tip - 3, tip));
    expect(up.map((b) => b.height)).toEqual([tip - 3, tip - 2, tip - 1, tip]);
    const down = await collect(client.blockRange(tip, tip - 2));
    expect(down.map((b) => b.height)).toEqual([tip, tip - 1, tip - 2]);
    const last = up[3]!;
    const ids = last.vtx.map((t) => display(t.txid));
    expect(ids).not.toContain(sent.txid); // transparent only
    expect(ids).not.toContain(chain.tip().txs[0]!.txid); // coinbase: transparent only
    for (const t of last.vtx) expect(t.vin.length + t.vout.length).toBe(0);
    expect(last.vtx.some((t) => t.ironwoodActions.length > 0)).toBe(true);
    for (const t of last.vtx) for (const a of [...t.actions, ...t.ironwoodActions]) expect(a.ciphertext.length).toBe(52);
  });

  it("GetBlockRange pool filtering: transparent adds vin/vout, one pool keeps only that pool", async () => {
    const tip = chain.tip();
    const [t] = await collect(client.blockRange(tip.height, tip.height, ["transparent"]));
    expect(t!.vtx.map((x) => display(x.txid))).toEqual(tip.txs.filter((x) => x.parsed.vin.length + x.parsed.vout.length > 0).map((x) => x.txid));
    for (const x of t!.vtx) expect(x.outputs.length + x.actions.length + x.ironwoodActions.length + x.spends.length).toBe(0);
    const pay = t!.vtx.find((x) => x.vout.length === 1 && x.vout[0]!.value === 7_000n);
    expect(pay).toBeDefined();
    expect(pay!.vin.length).toBe(1);
    const [iw] = await collect(client.blockRange(tip.height, tip.height, ["ironwood"]));
    for (const x of iw!.vtx) {
      expect(x.ironwoodActions.length).toBeGreaterThan(0);
      expect(x.actions.length + x.outputs.length + x.vout.length).toBe(0);
    }
    const [orch] = await collect(client.blockRange(tip.height, tip.height, ["orchard"]));
    for (const x of orch!.vtx) expect(x.ironwoodActions.length).toBe(0);
  });

  it("GetTransaction: raw bytes and height; mempool is height 0; unknown is a 502", async () => {
    const mined = chain.tip().txs[1]!;
    const r = await client.transaction(protocol(mined.txid));
    expect(bytesToHex(r.data)).toBe(bytesToHex(mined.raw));
    expect(r.height).toBe(chain.tip().height);
    const pending = chain.send(wallets[2]!.saplingAddress, 1_000n);
    const p = await client.transaction(protocol(pending.txid));
    expect(p.height).toBe(0);
    const e = await failure(client.transaction(new Uint8Array(32).fill(7)));
    expect(e.status).toBe(502);
    expect(e.code).toBe("chain_rpc_failed");
    expect(e.details).toMatchObject({ call: "GetTransaction", grpcCode: "NOT_FOUND" });
  });

  it("GetMempoolTx: the mempool's compact transactions, filtered by pool", async () => {
    chain.send(wallets[0]!.address, 5_000n);
    const all = await client.mempool();
    const shielded = chain.mempool.filter((t) => t.parsed.sapling.outputs.length + (t.parsed.orchard?.actions.length ?? 0) + (t.parsed.ironwood?.actions.length ?? 0) > 0);
    expect(all.map((t) => display(t.txid)).sort()).toEqual(shielded.map((t) => t.txid).sort());
    const sapling = await client.mempool(["sapling"]);
    expect(sapling.length).toBeGreaterThan(0);
    for (const t of sapling) expect(t.outputs.length).toBeGreaterThan(0);
  });

  it("GetTreeState / GetLatestTreeState: the block's network, height, hash and time", async () => {
    const b = chain.byHeight(chain.tip().height - 1)!;
    const s = await client.treeState(b.height);
    expect(s).toMatchObject({ network: "test", height: b.height, hash: b.hash, time: b.time });
    const latest = await client.latestTreeState();
    expect(latest.height).toBe(chain.tip().height);
  });

  it("SendTransaction: a raw transaction enters the mempool; sending it again is refused", async () => {
    const raw = buildTx(6, { ironwood: { outputs: [encryptAction(randomOrchardAddress(), 0n, encodeTextMemo(""), 0x03)], valueBalance: 10_000n } });
    const r = await client.sendTransaction(raw);
    expect(r.errorCode).toBe(0);
    expect(chain.mempool.some((t) => t.txid === r.errorMessage)).toBe(true);
    const again = await client.sendTransaction(raw);
    expect(again.errorCode).toBe(-27);
    const garbage = await client.sendTransaction(Uint8Array.of(1, 2, 3));
    expect(garbage.errorCode).toBe(-22);
  });

  it("a block past the tip is a 502 naming OUT_OF_RANGE", async () => {
    const e = await failure(collect(client.blockRange(chain.tip().height, chain.tip().height + 5)));
    expect(e.details).toMatchObject({ call: "GetBlockRange", grpcCode: "OUT_OF_RANGE" });
  });
});

describe("server checks", () => {
  it("a server on another network is refused before it answers a question", async () => {
    const mainnetServer = await startDevnetLightwalletd({ chain, chainName: "main" });
    extra.push(mainnetServer);
    const c = createLightwalletd({ url: mainnetServer.url, network: "testnet" });
    const e = await failure(c.latestBlock());
    expect(e.status).toBe(502);
    expect(e.code).toBe("chain_network_mismatch");
    expect(e.details).toMatchObject({ expected: "test", actual: "main" });
    expect(mainnetServer.requestCounts().GetLatestBlock).toBeUndefined();
    c.close();
    // A mainnet service behind the testnet simulator is refused the same way.
    const m = createLightwalletd({ url: sim.url, network: "mainnet" });
    expect((await failure(m.info())).code).toBe("chain_network_mismatch");
    m.close();
  });

  it("once NU6.3 is active, a server older than the Ironwood protocol is refused; before it, it is accepted", async () => {
    for (const version of ["0.3.9", ""]) {
      const old = await startDevnetLightwalletd({ chain, protocolVersion: version });
      extra.push(old);
      const c = createLightwalletd({ url: old.url, network: "testnet" });
      const e = await failure(c.blockRange(chain.tip().height, chain.tip().height)[Symbol.asyncIterator]().next());
      expect(e.status).toBe(502);
      expect(e.code).toBe("chain_server_outdated");
      expect(old.requestCounts().GetBlockRange).toBeUndefined();
      c.close();
    }
    const early = new DevnetZcashChain(systemClock, 0);
    early.open(3); // tip before NU6.3
    const oldEarly = await startDevnetLightwalletd({ chain: early, protocolVersion: "0.3.9" });
    extra.push(oldEarly);
    const c = createLightwalletd({ url: oldEarly.url, network: "testnet" });
    expect((await c.latestBlock()).height).toBe(early.tip().height);
    c.close();
  });

  it("compareVersions compares dotted numbers numerically", () => {
    expect(compareVersions("0.10.0", "0.4.0")).toBe(1);
    expect(compareVersions("v0.4.0", "0.4")).toBe(0);
    expect(compareVersions("0.3.99", "0.4.0")).toBe(-1);
  });
});

describe("failures", () => {
  it("no URL is 503 chain_not_configured, without I/O", async () => {
    const c = createLightwalletd({ url: undefined, network: "testnet" });
    const e = await failure(c.latestBlock());
    expect(e.status).toBe(503);
    expect(e.code).toBe("chain_not_configured");
  });

  it("UNAVAILABLE is retried within the attempt budget, then mapped to a 502", async () => {
    const c = createLightwalletd({ url: sim.url, network: "testnet", attempts: 3, backoffMs: 1 });
    await c.info();
    const before = sim.requestCounts().GetLatestBlock ?? 0;
    sim.failNext(2);
    expect((await c.latestBlock()).height).toBe(chain.tip().height);
    expect(sim.requestCounts().GetLatestBlock).toBe(before + 3);
    sim.failNext(3);
    const e = await failure(c.latestBlock());
    expect(e.status).toBe(502);
    expect(e.details).toMatchObject({ call: "GetLatestBlock", grpcCode: "UNAVAILABLE", reason: "unavailable", attempts: 3 });
    // Other codes are not retried.
    sim.failNext(1, grpc.status.INTERNAL);
    const once = sim.requestCounts().GetLatestBlock ?? 0;
    expect((await failure(c.latestBlock())).details).toMatchObject({ grpcCode: "INTERNAL", attempts: 1 });
    expect(sim.requestCounts().GetLatestBlock).toBe(once + 1);
    c.close();
  });

  it("a call past its deadline is a 502 timeout; a silent stream is cancelled", async () => {
    const c = createLightwalletd({ url: sim.url, network: "testnet", timeoutMs: 300, attempts: 1 });
    await c.info();
    sim.delayNext(1, 1_200);
    const e = await failure(c.latestBlock());
    expect(e.details).toMatchObject({ call: "GetLatestBlock", grpcCode: "DEADLINE_EXCEEDED", reason: "timeout" });
    sim.delayNext(1, 1_200);
    const s = await failure(collect(c.blockRange(chain.tip().height, chain.tip().height)));
    expect(s.details).toMatchObject({ call: "GetBlockRange", reason: "timeout" });
    c.close();
  });

  it("a closed port is UNAVAILABLE, retried, then a 502", async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const c = createLightwalletd({ url: `http://127.0.0.1:${port}`, network: "testnet", attempts: 2, backoffMs: 1, timeoutMs: 2_000 });
    const e = await failure(c.info());
    expect(e.status).toBe(502);
    expect(e.details).toMatchObject({ grpcCode: "UNAVAILABLE", attempts: 2 });
    c.close();
  });

  it("a caller's abort is its own reason, not a 502", async () => {
    const c = createLightwalletd({ url: sim.url, network: "testnet" });
    const ac = new AbortController();
    sim.delayNext(1, 500);
    const p = c.info(ac.signal);
    ac.abort(new Error("caller gave up"));
    await expect(p).rejects.toThrow("caller gave up");
    c.close();
  });

  it("a URL that is not http(s) is refused at construction", () => {
    expect(() => createLightwalletd({ url: "ftp://127.0.0.1:1", network: "testnet" })).toThrow(RangeError);
  });
});
