/**
 * The upstream client against a real loopback HTTP server whose behaviour
 * each test sets: deadlines, the body cap, retries and their jitter, no
 * retry for non-idempotent calls, the 502/503 mapping, JSON-RPC errors,
 * the caller's abort, and credentials that never reach a message.
 */
import http from "node:http";
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { ServiceError } from "../../src/core/errors.js";
import { UpstreamClient, UpstreamError, backoffDelay, type UpstreamOptions } from "../../src/core/upstream.js";

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const servers: { close: () => Promise<void> }[] = [];
const clients: UpstreamClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function server(handler: (hit: Hit, res: http.ServerResponse) => void): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      hits.push(hit);
      handler(hit, res);
    });
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as AddressInfo;
  servers.push({
    close: async () => {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    },
  });
  return { url: `http://127.0.0.1:${port}`, hits };
}

function client(url: string | undefined, opts: Partial<UpstreamOptions> = {}): UpstreamClient {
  const c = new UpstreamClient({
    url,
    name: "Test node",
    failureCode: "chain_rpc_failed",
    notConfigured: { code: "chain_not_configured", message: "No test node.", details: { chain: "test" } },
    sleep: async () => {},
    ...opts,
  });
  clients.push(c);
  return c;
}

const json = (res: http.ServerResponse, status: number, body: string) =>
  res.writeHead(status, { "content-type": "application/json" }).end(body);

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}

describe("UpstreamClient: answers", () => {
  it("not configured: every call is a 503 with the owner's code, and nothing is sent", async () => {
    const c = client(undefined);
    expect(c.configured).toBe(false);
    const err = await failure(c.json({ path: "/x", idempotent: true }));
    expect(err.status).toBe(503);
    expect(err.code).toBe("chain_not_configured");
    expect(err.details).toEqual({ chain: "test" });
    expect((await failure(c.rpc("m", undefined, { idempotent: true }))).status).toBe(503);
    expect(c.status()).toEqual({ configured: false });
  });

  it("GET and POST a JSON body under the base path; the pluggable parser sees the raw text", async () => {
    const s = await server((hit, res) => json(res, 200, hit.method === "GET" ? '{"n":18446744073709551615}' : hit.body));
    const seen: string[] = [];
    const c = client(`${s.url}/base/`, {
      headers: { "x-api-key": "k1" },
      parseJson: (t) => {
        seen.push(t);
        return JSON.parse(t) as unknown;
      },
    });
    expect(await c.json({ path: "/echo", body: { a: [1, "b"] }, idempotent: false })).toEqual({ a: [1, "b"] });
    await c.json({ path: "/big", idempotent: true });
    expect(seen[1]).toBe('{"n":18446744073709551615}');
    expect(s.hits.map((h) => `${h.method} ${h.url}`)).toEqual(["POST /base/echo", "GET /base/big"]);
    expect(s.hits[0]!.headers["content-type"]).toBe("application/json");
    expect(s.hits.map((h) => h.headers["x-api-key"])).toEqual(["k1", "k1"]);
    expect(c.status()).toMatchObject({ configured: true, lastOk: true });
    expect(c.endpoint).toBe(`${s.url}/base`);
  });

  it("JSON-RPC 2.0: the result, or a 502 that carries the RPC code and leaves the upstream healthy", async () => {
    const s = await server((hit, res) => {
      const req = JSON.parse(hit.body) as { id: string; method: string; params?: unknown };
      if (req.method === "add") json(res, 200, JSON.stringify({ jsonrpc: "2.0", id: req.id, result: (req.params as number[]).reduce((a, b) => a + b) }));
      else json(res, 200, JSON.stringify({ jsonrpc: "2.0", id: req.id, error: { code: -32601, message: "Method not found" } }));
    });
    const c = client(s.url);
    expect(await c.rpc("add", [2, 3], { idempotent: true })).toBe(5);
    const sent = JSON.parse(s.hits[0]!.body) as Record<string, unknown>;
    expect(sent).toMatchObject({ jsonrpc: "2.0", method: "add", params: [2, 3] });
    expect(s.hits[0]!.url).toBe("/json_rpc");
    const err = await failure(c.rpc("nope", undefined, { idempotent: true, path: "/rpc" }));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.status).toBe(502);
    expect(err.code).toBe("chain_rpc_failed");
    expect((err as UpstreamError).rpcCode).toBe(-32601);
    expect(err.details).toEqual({ call: "nope", rpcCode: -32601, rpcMessage: "Method not found" });
    expect(s.hits).toHaveLength(2); // an RPC error is an answer: not retried
    expect(s.hits[1]!.url).toBe("/rpc");
    expect(JSON.parse(s.hits[1]!.body)).not.toHaveProperty("params");
    expect(c.status().lastOk).toBe(true);
  });

  it("a reply without result, malformed JSON and 4xx are 502s, final at once", async () => {
    let mode = "noresult";
    const s = await server((_hit, res) => {
      if (mode === "noresult") json(res, 200, '{"jsonrpc":"2.0","id":"1"}');
      else if (mode === "badjson") json(res, 200, '{"result": ');
      else res.writeHead(404).end("secret body that must not leak");
    });
    const c = client(s.url, { attempts: 5 });
    let err = await failure(c.rpc("m", {}, { idempotent: true }));
    expect(err.message).toBe("Test node sent a malformed answer to m");
    expect(c.status().lastOk).toBe(false);
    mode = "badjson";
    err = await failure(c.json({ path: "/p", idempotent: true, call: "thing" }));
    expect(err.message).toBe("Test node sent a malformed answer to thing");
    mode = "404";
    err = await failure(c.json({ path: "/p", idempotent: true }));
    expect(err.details).toEqual({ httpStatus: 404, path: "/p" });
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain("secret");
    expect(s.hits).toHaveLength(3);
  });

  it("the owner's error subclass is used for every 502", async () => {
    class NodeError extends UpstreamError {}
    const s = await server((_hit, res) => res.writeHead(400).end());
    const c = client(s.url, { makeError: (m, d, code) => new NodeError("chain_rpc_failed", m, d, code) });
    expect(await failure(c.json({ path: "/", idempotent: true }))).toBeInstanceOf(NodeError);
  });
});

describe("UpstreamClient: deadlines and the body cap", () => {
  it("an upstream that hangs: each attempt ends at the deadline, then 502", async () => {
    const s = await server(() => {
      /* never answers */
    });
    const c = client(s.url, { attempts: 2, timeoutMs: 150 });
    const started = Date.now();
    const err = await failure(c.json({ path: "/slow", idempotent: true }));
    expect(err.status).toBe(502);
    expect(err.details).toMatchObject({ attempts: 2, reason: "timed out after 150 ms" });
    expect(s.hits).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a declared body over the cap is refused before reading it, and not retried", async () => {
    const body = JSON.stringify({ pad: "x".repeat(2000) });
    const s = await server((_hit, res) => res.writeHead(200, { "content-length": String(body.length) }).end(body));
    const c = client(s.url, { maxResponseBytes: 1000 });
    const err = await failure(c.json({ path: "/", idempotent: true }));
    expect(err.message).toBe("Test node answer too large");
    expect(err.details).toMatchObject({ limit: 1000 });
    expect(err.details?.bytes).toBe(body.length);
    expect(s.hits).toHaveLength(1);
  });

  it("an undeclared (chunked) body is cut off while it streams past the cap", async () => {
    let written = 0;
    const s = await server((_hit, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"pad":"');
      // Far more than the cap, in chunks: the client must stop reading, not buffer it all.
      const timer = setInterval(() => {
        if (res.destroyed || written > 8 * 1024 * 1024) {
          clearInterval(timer);
          res.destroy();
          return;
        }
        res.write("y".repeat(16 * 1024));
        written += 16 * 1024;
      }, 1);
    });
    const c = client(s.url, { maxResponseBytes: 64 * 1024 });
    const err = await failure(c.json({ path: "/", idempotent: true }));
    expect(err.details).toEqual({ limit: 64 * 1024 });
    expect(written).toBeLessThan(8 * 1024 * 1024);
  });
});

describe("UpstreamClient: retries", () => {
  it("idempotent calls: 5xx retried attempts−1 times with full-jitter exponential backoff, then 502", async () => {
    const s = await server((_hit, res) => res.writeHead(503).end());
    const sleeps: number[] = [];
    const retries: unknown[] = [];
    const c = client(s.url, {
      attempts: 5,
      backoffMs: 100,
      maxBackoffMs: 300,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onRetry: (info) => retries.push(info),
    });
    const err = await failure(c.json({ path: "/p", idempotent: true, call: "get_thing" }));
    expect(s.hits).toHaveLength(5);
    expect(err.message).toBe("Test node did not answer get_thing after 5 attempts");
    expect(err.details).toEqual({ call: "get_thing", attempts: 5, reason: "HTTP 503" });
    expect(sleeps).toHaveLength(4);
    // Caps 100, 200, 300, 300 (doubling, then held at maxBackoffMs); each delay is uniform below its cap.
    [100, 200, 300, 300].forEach((cap, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(0);
      expect(sleeps[i]).toBeLessThan(cap);
    });
    expect(retries[0]).toEqual({ path: "/p", call: "get_thing", attempt: 1, error: "HTTP 503" });
    expect(c.status()).toMatchObject({ lastOk: false, lastError: "HTTP 503" });
  });

  it("recovers when the upstream comes back within the attempts", async () => {
    const s = await server((_hit, res) => (s.hits.length < 3 ? res.writeHead(502).end() : json(res, 200, '{"ok":true}')));
    const c = client(s.url, { attempts: 3 });
    expect(await c.json({ path: "/", idempotent: true })).toEqual({ ok: true });
    expect(s.hits).toHaveLength(3);
  });

  it("a non-idempotent call is sent once, whatever happens", async () => {
    const s = await server((_hit, res) => res.writeHead(500).end());
    const c = client(s.url, { attempts: 4 });
    const err = await failure(c.json({ path: "/send", body: { tx: "…" }, idempotent: false }));
    expect(s.hits).toHaveLength(1);
    expect(err.details).toMatchObject({ attempts: 1, reason: "HTTP 500" });
    const refused = await server(() => {});
    const url = refused.url;
    await servers.pop()!.close();
    const c2 = client(url, { attempts: 4 });
    const e2 = await failure(c2.rpc("send_raw_transaction", ["00"], { idempotent: false }));
    expect(String(e2.details?.reason)).toMatch(/ECONNREFUSED/);
    expect(e2.details).toMatchObject({ attempts: 1 });
  });

  it("backoffDelay stays in [0, min(max, base·2^(n−1))) for any random draw", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, base, r) => {
        const cap = Math.min(30_000, base * 2 ** (n - 1));
        const d = backoffDelay(n, base, 30_000, () => r);
        return Number.isInteger(d) && d >= 0 && d < cap;
      }),
    );
    expect(backoffDelay(3, 100, 10_000, () => 0.5)).toBe(200);
  });
});

describe("UpstreamClient: the caller's abort", () => {
  it("an abort during a request rejects with the caller's reason, not a 502, and stops retrying", async () => {
    const ac = new AbortController();
    const reason = new Error("tick cancelled");
    // Never answers; the caller aborts once the request has arrived (a fixed delay could fire before it, on a busy machine).
    const s = await server(() => void setTimeout(() => ac.abort(reason), 20));
    const c = client(s.url, { attempts: 3, timeoutMs: 10_000 });
    await expect(c.json({ path: "/", idempotent: true, signal: ac.signal })).rejects.toBe(reason);
    expect(s.hits).toHaveLength(1);
  });

  it("an abort during the backoff ends the wait at once", async () => {
    const s = await server((_hit, res) => res.writeHead(503).end());
    const c = new UpstreamClient({
      url: s.url,
      name: "Test node",
      failureCode: "chain_rpc_failed",
      notConfigured: { code: "chain_not_configured", message: "x" },
      attempts: 3,
      backoffMs: 60_000,
      maxBackoffMs: 60_000,
      random: () => 0.99,
    });
    clients.push(c);
    const ac = new AbortController();
    const reason = new Error("shutdown");
    setTimeout(() => ac.abort(reason), 100);
    const started = Date.now();
    await expect(c.json({ path: "/", idempotent: true, signal: ac.signal })).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(s.hits).toHaveLength(1);
  });
});

describe("UpstreamClient: credentials", () => {
  it("credentials in the URL answer a digest challenge and never appear in messages, details or the endpoint", async () => {
    const md5 = (x: string) => createHash("md5").update(x).digest("hex");
    const s = await server((hit, res) => {
      const h = hit.headers.authorization ?? "";
      const p: Record<string, string> = {};
      for (const m of h.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) p[m[1]!] = m[2] ?? m[3] ?? "";
      const ha1 = md5(`bob:node:hunter2`);
      const ok = h.startsWith("Digest ") && p.response === md5(`${ha1}:n1:${p.nc}:${p.cnonce}:auth:${md5(`POST:${p.uri}`)}`);
      if (!ok) return res.writeHead(401, { "www-authenticate": 'Digest realm="node", qop="auth", nonce="n1"' }).end();
      if (hit.url === "/root/down") return res.writeHead(503).end();
      json(res, 200, '{"ok":1}');
    });
    const port = new URL(s.url).port;
    const c = client(`http://bob:hunter2@127.0.0.1:${port}/root`, { attempts: 2 });
    expect(await c.json({ path: "/x", body: {}, idempotent: true })).toEqual({ ok: 1 });
    // Over plain http nothing is sent before the challenge: no basic credentials in clear.
    expect(s.hits[0]!.headers.authorization).toBeUndefined();
    expect(s.hits[1]!.headers.authorization).toMatch(/uri="\/root\/x"/);
    const down = await failure(c.json({ path: "/down", body: {}, idempotent: true }));
    const wrong = client(`http://bob:nope@127.0.0.1:${port}`, { attempts: 1 });
    const refused = await failure(wrong.json({ path: "/x", body: {}, idempotent: true }));
    expect(refused.details).toEqual({ httpStatus: 401 });
    for (const e of [down, refused]) expect(JSON.stringify({ m: e.message, d: e.details })).not.toMatch(/hunter2|nope|bob/);
    expect(c.endpoint).toBe(`http://127.0.0.1:${port}/root`);
  });

  it("a server that challenges with a fresh nonce every time ends in a 502 after the attempts, not a loop", async () => {
    let n = 0;
    const s = await server((_hit, res) => res.writeHead(401, { "www-authenticate": `Digest realm="node", qop="auth", nonce="n${++n}"` }).end());
    const port = new URL(s.url).port;
    const c = client(`http://bob:hunter2@127.0.0.1:${port}`, { attempts: 2 });
    const err = await failure(c.json({ path: "/x", body: {}, idempotent: true }));
    expect(err.details).toMatchObject({ attempts: 2, reason: "authentication challenge repeated" });
    // Per attempt: the first request, then one answer to the challenge.
    expect(s.hits).toHaveLength(4);
  });
});
