/**
 * The loopback JSON-RPC server shared by the simulated EVM node and monerod,
 * driven over real HTTP: dispatch, batches and notifications, every error
 * object, plain routes, interception, body limits and close().
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpReply, JsonRpcError, startJsonRpcServer, type JsonRpcServer } from "../../devnet/jsonrpc-server.js";

const post = async (url: string, body: string, path = "/") => {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined, headers: res.headers };
};

describe("positional JSON-RPC with batches (the EVM dialect)", () => {
  let server: JsonRpcServer;
  const seen: string[] = [];
  let counter = 0;
  let running = 0;
  let maxRunning = 0;

  beforeAll(async () => {
    server = await startJsonRpcServer({
      maxBodyBytes: 1024,
      cors: true,
      rpc: {
        maxBatch: 3,
        unknownMethodMessage: (m) => `the method ${m} does not exist/is not available`,
        onCall: (m) => {
          seen.push(m);
          if (m === "boom_observer") throw new Error("observer failure");
        },
        run: async (call) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          try {
            return await call();
          } finally {
            running--;
          }
        },
        methods: {
          params: "positional",
          table: {
            add: (p) => (p as number[]).reduce((a, b) => a + b, 0),
            bump: () => ++counter,
            slow: async () => new Promise((r) => setTimeout(() => r("done"), 20)),
            fail: () => {
              throw new JsonRpcError(3, "execution reverted", "0x08c379a0");
            },
            crash: () => {
              throw new Error("disk on fire");
            },
            boom_observer: () => "still answered",
          },
        },
      },
    });
  });
  afterAll(() => server.close());

  it("binds loopback on a free port", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers a call with its id and result, on any path", async () => {
    expect((await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "add", params: [2, 3] }))).json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: 5,
    });
    expect((await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: "x", method: "add", params: [1] }), "/any/path")).json).toMatchObject({ id: "x", result: 1 });
  });

  it("answers every kind of failure with the JSON-RPC error object on HTTP 200", async () => {
    const cases: [string, number, RegExp][] = [
      ["{not json", -32700, /parse error/],
      [JSON.stringify("a string"), -32600, /invalid request/],
      [JSON.stringify({ id: 1 }), -32600, /missing method/],
      [JSON.stringify({ id: 1, method: "add", params: { a: 1 } }), -32602, /array/],
      [JSON.stringify({ id: 1, method: "nope" }), -32601, /the method nope does not exist/],
      [JSON.stringify({ id: 1, method: "crash" }), -32603, /internal error: disk on fire/],
      [JSON.stringify([]), -32600, /batch must hold 1\.\.3/],
      [JSON.stringify([1, 2, 3, 4].map((id) => ({ id, method: "bump" }))), -32600, /batch must hold/],
    ];
    for (const [body, code, message] of cases) {
      const r = await post(server.url, body);
      expect(r.status, body).toBe(200);
      expect(r.json.error.code, body).toBe(code);
      expect(r.json.error.message, body).toMatch(message);
    }
    const reverted = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "fail" }));
    expect(reverted.json).toEqual({ jsonrpc: "2.0", id: 2, error: { code: 3, message: "execution reverted", data: "0x08c379a0" } });
  });

  it("answers a batch in order, runs its calls one after another, and leaves notifications out", async () => {
    const before = counter;
    const r = await post(
      server.url,
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "slow" },
        { jsonrpc: "2.0", method: "bump" },
        { jsonrpc: "2.0", id: 3, method: "bump" },
      ]),
    );
    expect(r.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: "done" },
      { jsonrpc: "2.0", id: 3, result: before + 2 },
    ]);
    expect(maxRunning).toBe(1);
  });

  it("owes nothing for notifications: 204 without a body, even for unknown methods", async () => {
    const before = counter;
    const one = await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "bump" }));
    expect(one.status).toBe(204);
    const batch = await post(server.url, JSON.stringify([{ jsonrpc: "2.0", method: "bump" }, { jsonrpc: "2.0", method: "nope" }]));
    expect(batch.status).toBe(204);
    expect(counter).toBe(before + 2);
  });

  it("lets an observer see each call without changing the answer when it throws", async () => {
    const r = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "boom_observer" }));
    expect(r.json).toMatchObject({ result: "still answered" });
    expect(seen).toContain("boom_observer");
  });

  it("refuses bodies over the limit with 413, other methods with 405, and answers CORS preflights", async () => {
    const big = await post(server.url, JSON.stringify({ id: 1, method: "add", params: ["x".repeat(2000)] }));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ error: { code: -32600, message: /too large/ } });
    const get = await fetch(server.url);
    expect(get.status).toBe(405);
    await get.body?.cancel();
    const pre = await fetch(server.url, { method: "OPTIONS" });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("named JSON-RPC on one path with plain routes (the monerod dialect)", () => {
  let server: JsonRpcServer;
  let failures = 0;

  beforeAll(async () => {
    server = await startJsonRpcServer({
      maxBodyBytes: 1024,
      // Stands in for a lossless writer: proves answers go through the given serialiser.
      stringify: (b) => JSON.stringify(b, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)),
      intercept: () => (failures > 0 ? (failures--, { status: 503, body: { error: "injected failure" } }) : undefined),
      rpc: {
        path: "/json_rpc",
        idWhenMissing: "0",
        methods: {
          params: "named",
          table: {
            get_block: (p) => ({ height: p.height ?? null, reward: 600_000_000_000n }),
          },
        },
      },
      routes: {
        "POST /get_height": () => ({ height: 42 }),
        "POST /echo": (body) => ({ got: body }),
        "GET /wallets": (_b, url) => ({ q: url.searchParams.get("q") }),
        "POST /refuse": () => {
          throw new HttpReply(400, { error: { code: "invalid_amount" } });
        },
        "POST /crash": () => {
          throw new Error("bug");
        },
      },
    });
  });
  afterAll(() => server.close());

  it("passes named params, answers a missing id with the default id, and serialises with the given writer", async () => {
    const r = await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "get_block", params: { height: 5 } }), "/json_rpc");
    expect(r.json).toEqual({ jsonrpc: "2.0", id: "0", result: { height: 5, reward: "600000000000n" } });
    const arrayParams = await post(server.url, JSON.stringify({ id: "1", method: "get_block", params: [5] }), "/json_rpc");
    expect(arrayParams.json.result.height).toBeNull();
    const unknown = await post(server.url, JSON.stringify({ id: "7", method: "nope" }), "/json_rpc");
    expect(unknown.json).toEqual({ jsonrpc: "2.0", id: "7", error: { code: -32601, message: "Method not found" } });
    const batch = await post(server.url, JSON.stringify([{ id: "1", method: "get_block" }]), "/json_rpc");
    expect(batch.json.error.code).toBe(-32600);
    const bad = await post(server.url, "{", "/json_rpc");
    expect(bad.json).toEqual({ jsonrpc: "2.0", id: "0", error: { code: -32700, message: "parse error" } });
  });

  it("serves plain routes with their JSON body, and 404 for other paths", async () => {
    expect((await post(server.url, "", "/get_height")).json).toEqual({ height: 42 });
    expect((await post(server.url, JSON.stringify({ a: 1 }), "/echo")).json).toEqual({ got: { a: 1 } });
    expect((await post(server.url, JSON.stringify([1]), "/echo")).json).toEqual({ got: {} });
    const invalid = await post(server.url, "{", "/echo");
    expect(invalid).toMatchObject({ status: 400, json: { error: "invalid JSON" } });
    expect(await (await fetch(`${server.url}/wallets?q=x`)).json()).toEqual({ q: "x" });
    expect((await post(server.url, "{}", "/elsewhere")).status).toBe(404);
    expect((await fetch(`${server.url}/get_height`)).status).toBe(405);
    expect((await post(server.url, "x".repeat(2000), "/echo"))).toMatchObject({ status: 413, json: { error: "body too large" } });
  });

  it("answers a route's HttpReply with its status and any other failure with 500", async () => {
    expect(await post(server.url, "{}", "/refuse")).toMatchObject({ status: 400, json: { error: { code: "invalid_amount" } } });
    expect(await post(server.url, "{}", "/crash")).toMatchObject({ status: 500, json: { error: "internal error" } });
  });

  it("lets intercept answer before anything else", async () => {
    failures = 2;
    expect((await post(server.url, "{}", "/get_height")).status).toBe(503);
    expect((await post(server.url, "{}", "/json_rpc")).status).toBe(503);
    expect((await post(server.url, "{}", "/get_height")).json).toEqual({ height: 42 });
  });

  it("closes: the port stops answering", async () => {
    const extra = await startJsonRpcServer({ maxBodyBytes: 10, rpc: { methods: { params: "positional", table: {} } } });
    await extra.close();
    await expect(fetch(extra.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});
