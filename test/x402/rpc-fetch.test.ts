/**
 * The local facilitator's fetch for viem (src/x402/rpc-fetch.ts): viem reads
 * answers, JSON-RPC errors, HTTP failures, hangs and refused connections
 * through it exactly as through the global fetch, and an oversized answer is
 * refused while it streams.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http as viemHttp, HttpRequestError, TimeoutError } from "viem";
import { baseSepolia } from "viem/chains";
import { createRpcFetch } from "../../src/x402/rpc-fetch.js";

type Handler = (body: { method: string; id: number }, res: http.ServerResponse) => void;

let server: http.Server;
let url: string;
let handler: Handler;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => handler(JSON.parse(raw) as { method: string; id: number }, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/** The same question through the global fetch and through createRpcFetch. */
const make = (options: { timeout?: number }, fetchFn?: typeof fetch) =>
  createPublicClient({ chain: baseSepolia, transport: viemHttp(url, { retryCount: 0, timeout: options.timeout ?? 5_000, ...(fetchFn ? { fetchFn } : {}) }) });

function clients(options: { timeout?: number; maxBodyBytes?: number } = {}): [string, ReturnType<typeof make>][] {
  return [
    ["global fetch", make(options)],
    ["rpc fetch", make(options, createRpcFetch(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}))],
  ];
}

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await p };
  } catch (e) {
    const err = e as Error & { code?: number; status?: number };
    return { error: err.constructor.name, code: err.code, status: err.status, short: (err as { shortMessage?: string }).shortMessage };
  }
}

describe("the local facilitator's fetch", () => {
  it("answers, JSON-RPC errors and HTTP failures read as through the global fetch", async () => {
    const seen: string[] = [];
    handler = (body, res) => {
      seen.push(body.method);
      if (body.method === "eth_blockNumber") return json(res, 200, { jsonrpc: "2.0", id: body.id, result: "0x1234" });
      if (body.method === "eth_getCode") return json(res, 200, { jsonrpc: "2.0", id: body.id, error: { code: -32000, message: "header not found" } });
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>502 Bad Gateway</html>");
    };
    const results = [];
    for (const [name, c] of clients()) {
      const r = {
        block: await outcome(c.getBlockNumber({ cacheTime: 0 })),
        code: await outcome(c.getCode({ address: "0x0000000000000000000000000000000000000001" })),
        chain: await outcome(c.getChainId()),
      };
      results.push(r);
      expect(r.block, name).toEqual({ value: 0x1234n });
      expect(r.code, name).toMatchObject({ error: "InvalidInputRpcError", code: -32000 });
      expect(r.chain, name).toMatchObject({ error: expect.any(String), status: 502 });
    }
    expect(results[1]).toEqual(results[0]);
    expect(seen).toEqual(["eth_blockNumber", "eth_getCode", "eth_chainId", "eth_blockNumber", "eth_getCode", "eth_chainId"]);
  });

  it("a hang ends at viem's timeout, a refused connection is an HttpRequestError, as with fetch", async () => {
    handler = () => undefined; // never answers
    for (const [name, c] of clients({ timeout: 300 })) {
      const started = Date.now();
      const e = await c.getBlockNumber({ cacheTime: 0 }).catch((err: unknown) => err);
      expect(e, name).toBeInstanceOf(TimeoutError);
      expect(Date.now() - started, name).toBeLessThan(3_000);
    }
    const closed = createPublicClient({ chain: baseSepolia, transport: viemHttp("http://127.0.0.1:9", { retryCount: 0, fetchFn: createRpcFetch() }) });
    expect(await closed.getBlockNumber().catch((e: unknown) => e)).toBeInstanceOf(HttpRequestError);
  });

  it("refuses an answer larger than its limit while it streams", async () => {
    handler = (body, res) => json(res, 200, { jsonrpc: "2.0", id: body.id, result: `0x${"ab".repeat(50_000)}` });
    const [, [, c]] = clients({ maxBodyBytes: 10_000 });
    const e = await c.getCode({ address: "0x0000000000000000000000000000000000000001" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(HttpRequestError);
    expect(String((e as Error & { cause?: Error }).cause?.message ?? (e as Error).message)).toMatch(/larger than 10000 bytes/);
    // Within the limit the same answer is read whole.
    const [, [, roomy]] = clients({ maxBodyBytes: 200_000 });
    expect(await roomy.getCode({ address: "0x0000000000000000000000000000000000000001" })).toHaveLength(2 + 100_000);
  });
});
