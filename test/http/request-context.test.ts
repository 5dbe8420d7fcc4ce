/**
 * What the first middleware gives every request, over a real socket (the
 * service reads its headers from Node's parsed request, not a web Headers
 * object): the request id (the caller's when well-formed, else a UUID) on
 * every answer, including refusals, errors, 402s and MCP; the client IP; a
 * child logger bound to the request id and made only when something logs.
 * And a fixed answer sent as its kept bytes equals its JSON.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import pino from "pino";
import { Writable } from "node:stream";
import { defineRoute } from "../../src/http/route-table.js";
import { lazyChildLogger } from "../../src/http/middleware.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs } from "../helpers/log-capture.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const logs = defineRoute({
  method: "GET",
  path: "/v1/test/logs",
  operationId: "testLogs",
  summary: "logs one line",
  input: z.object({}),
  output: z.object({ ip: z.string() }),
  handler: async (_input, ctx) => {
    ctx.log.info({ marker: "from-the-handler" }, "handler line");
    return { ip: ctx.ip };
  },
});
const paid = defineRoute({
  method: "GET",
  path: "/v1/test/paid",
  operationId: "testPaidContext",
  summary: "paid",
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  price: 1000n,
  handler: async () => ({ ok: true }),
});
const crash = defineRoute({
  method: "GET",
  path: "/v1/test/crash",
  operationId: "testCrash",
  summary: "throws",
  input: z.object({}),
  output: z.object({}),
  handler: async () => {
    throw new Error("internal detail");
  },
});

describe("the request context over HTTP", () => {
  let t: TestApp;
  const captured = captureLogs();
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "1000" }, { log: captured.log, extraRoutes: [logs, crash, paid] });
  });
  afterAll(async () => t?.close());

  it("echoes a well-formed X-Request-Id and replaces a malformed one with a UUID", async () => {
    const given = await fetch(`${t.url}/v1/paywall`, { headers: { "X-Request-Id": "caller.id-42_x" } });
    expect(given.headers.get("x-request-id")).toBe("caller.id-42_x");
    const bad = await fetch(`${t.url}/v1/paywall`, { headers: { "X-Request-Id": "no spaces allowed" } });
    expect(bad.headers.get("x-request-id")).toMatch(UUID);
    const none = await fetch(`${t.url}/v1/paywall`);
    expect(none.headers.get("x-request-id")).toMatch(UUID);
    expect(none.headers.get("x-request-id")).not.toBe(bad.headers.get("x-request-id"));
  });

  it("puts the request id and the CORS headers on every kind of answer", async () => {
    const answers = await Promise.all([
      fetch(`${t.url}/v1/paywall`),
      fetch(`${t.url}/v1/nope`),
      fetch(`${t.url}/v1/paywall`, { method: "DELETE" }),
      fetch(`${t.url}/v1/test/crash`),
      fetch(`${t.url}/v1/test/paid`),
      fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    ]);
    // The paid route without PAY_TO: 503 paywall_not_configured (a 402 is made through the context the same way as a 200).
    expect(answers.map((r) => r.status)).toEqual([200, 404, 405, 500, 503, 200]);
    for (const r of answers) {
      expect(r.headers.get("x-request-id"), `${r.url} ${r.status}`).toMatch(UUID);
      expect(r.headers.get("access-control-allow-origin"), `${r.url} ${r.status}`).toBe("*");
      await r.arrayBuffer();
    }
  });

  it("a fixed answer's bytes are its JSON, with the right length", async () => {
    const r = await fetch(`${t.url}/v1/paywall`);
    const text = await r.text();
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(r.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toMatchObject({ x402Version: 2 });
    const again = await (await fetch(`${t.url}/v1/paywall`)).text();
    expect(again).toBe(text);
  });

  it("the handler's log line carries the request id; the client IP is the socket's", async () => {
    const r = await fetch(`${t.url}/v1/test/logs`, { headers: { "X-Request-Id": "trace-me-1" } });
    expect(await r.json()).toEqual({ ip: "127.0.0.1" });
    const line = captured.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.marker === "from-the-handler");
    expect(line).toMatchObject({ requestId: "trace-me-1", msg: "handler line" });
  });
});

describe("the request's headers on every kind of answer, with a paywall", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(
      { RATE_LIMIT_PER_MINUTE: "1000", PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" },
      { extraRoutes: [paid] },
    );
  });
  afterAll(async () => t?.close());

  const carries = (r: Response, what: string) => {
    expect(r.headers.get("x-request-id"), what).toMatch(UUID);
    expect(r.headers.get("access-control-allow-origin"), what).toBe("*");
    expect(r.headers.get("access-control-expose-headers"), what).toContain("Vigil-Ignored-Input");
  };

  it("a 402, a 304, a HEAD, a 413 and a preflight carry them; the ignored input is named on a 200 and on a 402", async () => {
    const unpaid = await fetch(`${t.url}/v1/test/paid?junk=1`);
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("payment-required")).toBeTruthy();
    expect(unpaid.headers.get("vigil-ignored-input")).toBe("junk");
    carries(unpaid, "402");
    await unpaid.arrayBuffer();

    const first = await fetch(`${t.url}/v1/board?x=2&a=1`);
    expect(first.status).toBe(200);
    expect(first.headers.get("vigil-ignored-input")).toBe("a, x");
    expect(first.headers.get("content-type")).toBe("application/json");
    carries(first, "200");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    await first.arrayBuffer();
    const again = await fetch(`${t.url}/v1/board`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("vigil-ignored-input")).toBeNull();
    carries(again, "304");

    const head = await fetch(`${t.url}/v1/paywall`, { method: "HEAD" });
    expect(head.status).toBe(200);
    carries(head, "HEAD");

    const big = await fetch(`${t.url}/v1/board/general/notices`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "x".repeat(70_000) }) });
    expect(big.status).toBe(413);
    carries(big, "413");
    await big.arrayBuffer();

    const preflight = await fetch(`${t.url}/v1/paywall`, { method: "OPTIONS", headers: { Origin: "https://agent.example", "Access-Control-Request-Method": "GET" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("x-request-id")).toMatch(UUID);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("the request line at debug level", () => {
  let t: TestApp;
  const captured = captureLogs();
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "2" }, { log: captured.log, extraRoutes: [logs] });
  });
  afterAll(async () => t?.close());

  const requestLine = (id: string) =>
    captured.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === "request" && l.requestId === id);

  it("carries the status of the answer: the route's, a 404's, and the limit's own 429", async () => {
    expect((await fetch(`${t.url}/v1/test/logs`, { headers: { "X-Request-Id": "line-200" } })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/no-such-route`, { headers: { "X-Request-Id": "line-404" } })).status).toBe(404);
    expect((await fetch(`${t.url}/v1/test/logs`, { headers: { "X-Request-Id": "line-429" } })).status).toBe(429);
    expect(requestLine("line-200")).toMatchObject({ method: "GET", path: "/v1/test/logs", status: 200 });
    expect(requestLine("line-404")).toMatchObject({ status: 404 });
    expect(requestLine("line-429")).toMatchObject({ status: 429 });
    // The limit's own refusal carries the request's headers too.
    const refused = await fetch(`${t.url}/v1/test/logs`, { headers: { "X-Request-Id": "refused-1" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-request-id")).toBe("refused-1");
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(typeof requestLine("line-200")?.ms).toBe("number");
  });
});

describe("lazyChildLogger", () => {
  it("makes the child on first use only, with the bindings, and behaves as the child", () => {
    const lines: string[] = [];
    const parent = pino({ level: "info" }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
    const child = vi.spyOn(parent, "child");
    const log = lazyChildLogger(parent, { requestId: "r-1" });
    expect(child).not.toHaveBeenCalled();
    expect(log.isLevelEnabled("debug")).toBe(false);
    expect(log.level).toBe("info");
    log.info({ a: 1 }, "one");
    log.warn("two");
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { requestId: "r-1", a: 1, msg: "one" },
      { requestId: "r-1", msg: "two" },
    ]);
    const grandchild = log.child({ step: "x" });
    grandchild.info("three");
    expect(JSON.parse(lines[2]!)).toMatchObject({ requestId: "r-1", step: "x", msg: "three" });
  });

  it("a request that logs nothing makes no child", () => {
    const parent = pino({ level: "silent" });
    const child = vi.spyOn(parent, "child");
    lazyChildLogger(parent, { requestId: "r-2" });
    expect(child).not.toHaveBeenCalled();
  });
});
