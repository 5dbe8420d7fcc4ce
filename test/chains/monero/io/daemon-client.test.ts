import http from "node:http";
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../../../../src/core/errors.js";
import {
  MoneroDaemonClient,
  MoneroDaemonError,
  NotConfiguredMoneroDaemon,
  RPC_ERR_TOO_BIG_HEIGHT,
  createMoneroDaemon,
} from "../../../../src/chains/monero/daemon-client.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../../src/chains/monero/tx-binary.js";
import { hexToBytes } from "../../../../src/chains/monero/encoding.js";
import { startTestMonerod } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;

/** A raw loopback server whose behaviour each test sets. */
async function rawServer(
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void,
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hits++;
      handler(req, Buffer.concat(chunks).toString("utf8"), res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const noSleep = async () => {};

describe("MoneroDaemonClient against the simulated monerod", () => {
  let d: Monerod;
  let client: MoneroDaemonClient;

  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 4 });
    client = new MoneroDaemonClient({ url: d.url, sleep: noSleep });
  });
  afterAll(async () => {
    await client.close();
    await d.close();
  });

  it("reads get_info: block count, sync state, network", async () => {
    const info = await client.getInfo();
    expect(info.height).toBe(d.height() + 1);
    expect(info.synchronized).toBe(true);
    expect(info.targetHeight).toBe(0);
    expect(info.nettype).toBe("testnet");
    expect(typeof info.difficulty).toBe("bigint");
    expect(await client.getBlockCount()).toBe(d.height() + 1);
    expect(client.status()).toMatchObject({ configured: true, lastOk: true });
  });

  it("reads headers by height, as a range and the last one, all consistent", async () => {
    const last = await client.getLastBlockHeader();
    expect(last.height).toBe(d.height());
    const byHeight = await client.getBlockHeaderByHeight(last.height);
    expect(byHeight.hash).toBe(last.hash);
    const range = await client.getBlockHeadersRange(0, last.height);
    expect(range.map((h) => h.height)).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < range.length; i++) expect(range[i]!.prevHash).toBe(range[i - 1]!.hash);
    expect(range[3]!.hash).toBe(last.hash);
    expect(last.reward).toBe(600_000_000_000n);
  });

  it("gets a block whose blob, JSON coinbase and header agree", async () => {
    d.send(d.wallets[1]!.address, 123_456_789n);
    d.mine(1);
    const b = await client.getBlock({ height: d.height() });
    expect(b.txHashes).toHaveLength(1);
    const parsed = parseBlockBlob(hexToBytes(b.blob));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.hash).toBe(b.header.hash);
    expect(parsed.value.txHashes).toEqual(b.txHashes);
    const coinbase = txFromDaemonJson(b.minerTxJson, b.minerTxHash);
    expect(coinbase.ok && coinbase.value.isCoinbase).toBe(true);
    expect(parsed.value.minerTx.txid).toBe(b.minerTxHash);
    const byHash = await client.getBlock({ hash: b.header.hash });
    expect(byHash.header.height).toBe(b.header.height);
  });

  it("a block without transactions has tx_hashes omitted (epee) and reads as []", async () => {
    d.mine(1);
    const b = await client.getBlock({ height: d.height() });
    expect(b.txHashes).toEqual([]);
  });

  it("/get_transactions: pruned JSON for scanning, full hex that re-hashes to the txid, pool and mined states", async () => {
    const txid = d.send(d.wallets[2]!.address, 5_000_000n);
    let r = await client.getTransactions([txid]);
    expect(r.txs[0]!.inPool).toBe(true);
    expect(r.txs[0]!.blockHeight).toBeNull();
    const pruned = txFromDaemonJson(r.txs[0]!.json, txid);
    expect(pruned.ok && pruned.value.outputs.length).toBe(1);
    d.mine(2);
    r = await client.getTransactions([txid], { prune: false });
    const e = r.txs[0]!;
    expect(e.inPool).toBe(false);
    expect(e.blockHeight).toBe(d.height() - 1);
    expect(e.confirmations).toBe(2);
    expect(e.outputIndices).toHaveLength(1);
    const full = parseTransactionBlob(hexToBytes(e.hex));
    expect(full.ok && full.value.txid).toBe(txid);
  });

  it("/get_transactions reports unknown hashes as missed and splits more than 100 hashes into several requests", async () => {
    d.resetRequestCounts();
    const unknown = Array.from({ length: 150 }, (_, i) => createHash("sha256").update(String(i)).digest("hex"));
    const r = await client.getTransactions(unknown);
    expect(r.txs).toEqual([]);
    expect(r.missed).toHaveLength(150);
    expect(d.requestCounts()["/get_transactions"]).toBe(2);
  });

  it("pool hashes and the full pool agree", async () => {
    const txid = d.send(d.wallets[0]!.address, 1n);
    expect(await client.getTransactionPoolHashes()).toContain(txid);
    const pool = await client.getTransactionPool();
    const entry = pool.find((p) => p.idHash === txid)!;
    expect(entry.fee).toBe(30_000_000n);
    expect(txFromDaemonJson(entry.json, txid).ok).toBe(true);
    d.mine(1);
    expect(await client.getTransactionPoolHashes()).toEqual([]);
    expect(await client.getTransactionPool()).toEqual([]);
  });

  it("fee estimate: per-byte fees for four priorities and the quantization mask, as bigint", async () => {
    const f = await client.getFeeEstimate();
    expect(f.fee).toBe(20_000n);
    expect(f.fees).toEqual([20_000n, 80_000n, 320_000n, 4_000_000n]);
    expect(f.quantizationMask).toBe(10_000n);
  });

  it("a height above the tip is JSON-RPC error −2, a 502 that carries the code, and is not retried", async () => {
    d.resetRequestCounts();
    const err = await client.getBlock({ height: d.height() + 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MoneroDaemonError);
    expect((err as MoneroDaemonError).status).toBe(502);
    expect((err as MoneroDaemonError).code).toBe("chain_rpc_failed");
    expect((err as MoneroDaemonError).rpcCode).toBe(RPC_ERR_TOO_BIG_HEIGHT);
    expect(d.requestCounts().get_block).toBe(1);
    // The daemon answered: it still counts as up.
    expect(client.status().lastOk).toBe(true);
  });

  it("retries 5xx with backoff and succeeds when the daemon recovers", async () => {
    const sleeps: number[] = [];
    const retrying = new MoneroDaemonClient({
      url: d.url,
      attempts: 4,
      backoffMs: 100,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    d.failNext(2, 503);
    d.resetRequestCounts();
    const info = await retrying.getInfo();
    expect(info.height).toBe(d.height() + 1);
    // Exponential backoff with jitter: 0.5 × 100, 0.5 × 200.
    expect(sleeps).toEqual([50, 100]);
    expect(d.requestCounts().get_info).toBe(1); // the two failures were answered before routing
    await retrying.close();
  });

  it("gives up after the configured attempts with 502 chain_rpc_failed", async () => {
    const c = new MoneroDaemonClient({ url: d.url, attempts: 3, sleep: noSleep });
    d.failNext(3, 500);
    const err = await c.getInfo().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(502);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    expect((err as ServiceError).details).toMatchObject({ attempts: 3, reason: "HTTP 500" });
    expect(c.status()).toMatchObject({ configured: true, lastOk: false });
    // And works again once the daemon is back.
    await expect(c.getInfo()).resolves.toMatchObject({ synchronized: true });
    await c.close();
  });
});

describe("MoneroDaemonClient failure modes", () => {
  it("a daemon that is not listening: 502 chain_rpc_failed after every attempt", async () => {
    const s = await rawServer(() => {});
    const url = s.url;
    await s.close(); // the port is now closed
    const c = new MoneroDaemonClient({ url, attempts: 2, sleep: noSleep });
    const err = await c.getInfo().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MoneroDaemonError);
    expect((err as ServiceError).status).toBe(502);
    expect(String((err as ServiceError).details?.reason)).toMatch(/ECONNREFUSED/);
    await c.close();
  });

  it("a daemon that hangs: each attempt times out, then 502", async () => {
    const s = await rawServer(() => {
      /* never answers */
    });
    const c = new MoneroDaemonClient({ url: s.url, attempts: 2, timeoutMs: 150, sleep: noSleep });
    const started = Date.now();
    const err = await c.getLastBlockHeader().catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    expect(String((err as ServiceError).details?.reason)).toMatch(/timed out/);
    expect(s.hits()).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    await c.close();
    await s.close();
  });

  it("HTTP 4xx is not retried; malformed JSON is a 502", async () => {
    const s = await rawServer((_req, _b, res) => {
      res.writeHead(403).end("forbidden");
    });
    const c = new MoneroDaemonClient({ url: s.url, attempts: 3, sleep: noSleep });
    const err = await c.getInfo().catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe("chain_rpc_failed");
    expect(s.hits()).toBe(1);
    await c.close();
    await s.close();

    const bad = await rawServer((_req, _b, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"result": {"status": "OK", "fee": ');
    });
    const c2 = new MoneroDaemonClient({ url: bad.url, attempts: 3, sleep: noSleep });
    const err2 = await c2.getFeeEstimate().catch((e: unknown) => e);
    expect((err2 as ServiceError).code).toBe("chain_rpc_failed");
    expect(bad.hits()).toBe(1);
    await c2.close();
    await bad.close();
  });

  it("u64 amounts above 2^53 are read exactly", async () => {
    const s = await rawServer((_req, _b, res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(
          '{"jsonrpc":"2.0","id":"1","result":{"fee":18446744073709551615,"fees":[9007199254740993,18446744073709551615],"quantization_mask":10000,"status":"OK"}}',
        );
    });
    const c = new MoneroDaemonClient({ url: s.url });
    const f = await c.getFeeEstimate();
    expect(f.fee).toBe(18446744073709551615n);
    expect(f.fees).toEqual([9007199254740993n, 18446744073709551615n]);
    await c.close();
    await s.close();
  });

  it("status BUSY is retried, then reported", async () => {
    let n = 0;
    const s = await rawServer((_req, _b, res) => {
      n++;
      const status = n < 3 ? "BUSY" : "OK";
      res.writeHead(200, { "content-type": "application/json" }).end(`{"jsonrpc":"2.0","id":"1","result":{"count":7,"status":"${status}"}}`);
    });
    const c = new MoneroDaemonClient({ url: s.url, attempts: 3, sleep: noSleep });
    expect(await c.getBlockCount()).toBe(7);
    n = -10;
    const err = await c.getBlockCount().catch((e: unknown) => e);
    expect((err as ServiceError).details).toMatchObject({ status: "BUSY" });
    await c.close();
    await s.close();
  });

  it("answers monerod's HTTP digest challenge (--rpc-login)", async () => {
    const realm = "monero-rpc";
    const nonce = "abc123";
    const md5 = (x: string) => createHash("md5").update(x).digest("hex");
    let authorized = 0;
    const s = await rawServer((req, _b, res) => {
      const h = req.headers.authorization ?? "";
      const p: Record<string, string> = {};
      for (const m of h.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) p[m[1]!] = m[2] ?? m[3] ?? "";
      const ha1 = md5(`alice:${realm}:s3cret`);
      const ha2 = md5(`POST:${p.uri}`);
      const ok = h.startsWith("Digest ") && p.response === md5(`${ha1}:${nonce}:${p.nc}:${p.cnonce}:auth:${ha2}`) && p.uri === "/json_rpc";
      if (!ok) {
        res.writeHead(401, { "www-authenticate": `Digest qop="auth",algorithm=MD5,realm="${realm}",nonce="${nonce}"` }).end();
        return;
      }
      authorized++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":"1","result":{"count":42,"status":"OK"}}');
    });
    const port = new URL(s.url).port;
    const c = new MoneroDaemonClient({ url: `http://alice:s3cret@127.0.0.1:${port}`, attempts: 1 });
    expect(await c.getBlockCount()).toBe(42);
    expect(await c.getBlockCount()).toBe(42);
    expect(authorized).toBe(2);
    expect(c.endpoint).not.toContain("s3cret");
    const wrong = new MoneroDaemonClient({ url: `http://alice:nope@127.0.0.1:${port}`, attempts: 1 });
    await expect(wrong.getBlockCount()).rejects.toMatchObject({ code: "chain_rpc_failed", details: { httpStatus: 401 } });
    await c.close();
    await wrong.close();
    await s.close();
  });
});

describe("MoneroDaemonClient retry reports", () => {
  it("onRetry names the path and the RPC method, never the credentials of the URL", async () => {
    const s = await rawServer((_req, _b, res) => {
      res.writeHead(503).end("busy");
    });
    const port = new URL(s.url).port;
    const reports: unknown[] = [];
    const c = new MoneroDaemonClient({ url: `http://carol:pa55@127.0.0.1:${port}`, attempts: 3, sleep: noSleep, onRetry: (i) => reports.push(i) });
    const err = await c.getInfo().catch((e: unknown) => e);
    expect((err as ServiceError).details).toMatchObject({ call: "get_info", attempts: 3, reason: "HTTP 503" });
    expect(reports).toEqual([
      { path: "/json_rpc", method: "get_info", attempt: 1, error: "HTTP 503" },
      { path: "/json_rpc", method: "get_info", attempt: 2, error: "HTTP 503" },
    ]);
    expect(JSON.stringify([reports, (err as ServiceError).message, (err as ServiceError).details])).not.toMatch(/carol|pa55/);
    await c.close();
    await s.close();
  });
});

describe("not configured", () => {
  it("every call is 503 chain_not_configured", async () => {
    const c = createMoneroDaemon(undefined);
    expect(c).toBeInstanceOf(NotConfiguredMoneroDaemon);
    expect(c.configured).toBe(false);
    for (const call of [() => c.getInfo(), () => c.getBlock({ height: 1 }), () => c.getTransactions([]), () => c.getFeeEstimate()]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(503);
      expect((err as ServiceError).code).toBe("chain_not_configured");
    }
  });
});
