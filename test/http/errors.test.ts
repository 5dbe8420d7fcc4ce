import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineRoute } from "../../src/http/route-table.js";
import { badRequest } from "../../src/core/errors.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { knownInputKeys } from "../../src/http/request-input.js";
import { CreateWatchInput } from "../../src/watch/service.js";

// Routes added through the app's own extension point: they join the one table.
const echo = defineRoute({
  method: "POST",
  path: "/v1/test/echo/:id",
  operationId: "testEcho",
  summary: "echo",
  input: z.object({ id: z.string().uuid(), n: z.number().int().min(1).max(10), token: z.string().optional() }),
  headerInputs: { "x-watch-token": "token" },
  output: z.object({}).passthrough(),
  handler: async (input) => ({ echoed: input }),
});
const boom = defineRoute({
  method: "GET",
  path: "/v1/test/boom",
  operationId: "testBoom",
  summary: "throws",
  input: z.object({ kind: z.enum(["service", "crash"]) }),
  output: z.object({}),
  handler: async ({ kind }) => {
    if (kind === "service") throw badRequest("invalid_amount", "A bad thing.");
    throw new Error("secret internal detail");
  },
});
const limited = defineRoute({
  method: "GET",
  path: "/v1/test/limited",
  operationId: "testLimited",
  summary: "limited",
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  rateLimit: { points: 2, windowSeconds: 60 },
  handler: async () => ({ ok: true }),
});
const paid = defineRoute({
  method: "GET",
  path: "/v1/test/paid",
  operationId: "testPaid",
  summary: "paid",
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  price: 1000n,
  handler: async () => ({ ok: true }),
});

const ID = "8f14e45f-ceea-4e67-a1b0-1f0b2c3d4e5f";

function expectErrorShape(body: unknown, code: string): void {
  expect(body).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/); // no stack traces
}

describe("HTTP error shape", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "1000" }, { extraRoutes: [echo, boom, limited, paid] });
  });
  afterAll(async () => t?.close());

  it("404 for an unknown route", async () => {
    const r = await fetch(`${t.url}/v1/nope`);
    expect(r.status).toBe(404);
    expectErrorShape(await r.json(), "not_found");
    expect(r.headers.get("x-request-id")).toBeTruthy();
  });

  it("405 with Allow for a known path and another method", async () => {
    const r = await fetch(`${t.url}/v1/paywall`, { method: "DELETE" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET");
    expectErrorShape(await r.json(), "method_not_allowed");
  });

  it("413 for a body over 64 KB", async () => {
    const r = await fetch(`${t.url}/v1/test/echo/${ID}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: 1, pad: "x".repeat(70_000) }),
    });
    expect(r.status).toBe(413);
    expectErrorShape(await r.json(), "payload_too_large");
  });

  it("413 for a chunked body over 64 KB without Content-Length", async () => {
    const chunks = [JSON.stringify({ n: 1, pad: "" }).slice(0, -2), ...Array.from({ length: 80 }, () => "x".repeat(1024)), '"}'];
    const stream = new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    const r = await fetch(`${t.url}/v1/test/echo/${ID}`, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(r.status).toBe(413);
    expectErrorShape(await r.json(), "payload_too_large");
  });

  it("400 invalid_json for a body that is not JSON, or not an object", async () => {
    for (const body of ["{not json", "[1,2]", "42"]) {
      const r = await fetch(`${t.url}/v1/test/echo/${ID}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(r.status).toBe(400);
      expectErrorShape(await r.json(), "invalid_json");
    }
  });

  it("400 invalid_input names the failing fields (body, path and query)", async () => {
    let r = await fetch(`${t.url}/v1/test/echo/not-a-uuid`, { method: "POST", body: JSON.stringify({ n: 99 }) });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { details: { issues: { path: string }[] } } };
    expectErrorShape(body, "invalid_input");
    expect(body.error.details.issues.map((i) => i.path).sort()).toEqual(["id", "n"]);
    r = await fetch(`${t.url}/v1/test/boom?kind=other`);
    expect(r.status).toBe(400);
    expectErrorShape(await r.json(), "invalid_input");
  });

  it("takes header-borne credentials only from their header, never from the query or body", async () => {
    const r = await fetch(`${t.url}/v1/test/echo/${ID}?token=from-query`, { method: "POST", body: JSON.stringify({ n: 3, token: "from-body" }) });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ echoed: { id: ID, n: 3 } });
  });

  it("one rule for unknown names: ignored in the query and in the body alike, and named in Vigil-Ignored-Input", async () => {
    // A cache-buster on a free GET.
    let r = await fetch(`${t.url}/v1/paywall?x=1&_=1700000000`);
    expect(r.status).toBe(200);
    expect(r.headers.get("vigil-ignored-input")).toBe("_, x");
    // An unknown body field next to valid ones: the handler never sees it.
    r = await fetch(`${t.url}/v1/test/echo/${ID}`, { method: "POST", body: JSON.stringify({ n: 3, colour: "red" }) });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ echoed: { id: ID, n: 3 } });
    expect(r.headers.get("vigil-ignored-input")).toBe("colour");
    // A strict schema is no exception: the same rule applies before it runs.
    r = await fetch(`${t.url}/v1/q/xmr/height?cb=2`);
    expect(r.status).not.toBe(400); // past input checks (this app has no payment terms: 503)
    expect(r.headers.get("vigil-ignored-input")).toBe("cb");
    // A paid route: the unknown name is reported on the refusal too.
    r = await fetch(`${t.url}/v1/test/paid?cb=1`);
    expect(r.status).not.toBe(400);
    expect(r.headers.get("vigil-ignored-input")).toBe("cb");
    // Known names are not listed.
    r = await fetch(`${t.url}/v1/test/echo/${ID}`, { method: "POST", body: JSON.stringify({ n: 3 }) });
    expect(r.headers.get("vigil-ignored-input")).toBeNull();
  });

  it("the legacy durationDays stays a known field of watch creation (accepted, ignored, not reported)", () => {
    expect(knownInputKeys(CreateWatchInput)?.has("durationDays")).toBe(true);
    expect(knownInputKeys(z.object({ a: z.string() }).strict())).toEqual(new Set(["a"]));
    expect(knownInputKeys(z.object({}).passthrough())).toBeUndefined();
    expect(knownInputKeys(z.object({ a: z.string() }).transform((v) => v.a))).toEqual(new Set(["a"]));
  });

  it("merges path params and mapped headers into the input", async () => {
    const r = await fetch(`${t.url}/v1/test/echo/${ID}`, {
      method: "POST",
      headers: { "x-watch-token": "tok" },
      body: JSON.stringify({ n: 3 }),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ echoed: { id: ID, n: 3, token: "tok" } });
  });

  it("a ServiceError keeps its status and code; anything else is a bare 500", async () => {
    let r = await fetch(`${t.url}/v1/test/boom?kind=service`);
    expect(r.status).toBe(400);
    expectErrorShape(await r.json(), "invalid_amount");
    r = await fetch(`${t.url}/v1/test/boom?kind=crash`);
    expect(r.status).toBe(500);
    const text = await r.text();
    expect(text).not.toContain("secret internal detail");
    expectErrorShape(JSON.parse(text), "internal_error");
  });

  it("per-route limits answer 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${t.url}/v1/test/limited`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expectErrorShape(await last!.json(), "rate_limited");
  });

  it("without PAY_TO outside the devnet, paid routes answer 503 paywall_not_configured, never free work", async () => {
    const r = await fetch(`${t.url}/v1/test/paid`);
    expect(r.status).toBe(503);
    expectErrorShape(await r.json(), "paywall_not_configured");
  });
});

describe("general per-IP rate limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "5", TRUST_PROXY_HOPS: "1" });
  });
  afterAll(async () => t?.close());

  it("counts per client IP, taken from X-Forwarded-For only behind a trusted proxy", async () => {
    // Our one trusted proxy appends the address it saw; anything before it is the client's own claim.
    const hit = (ip: string) => fetch(`${t.url}/v1/health`, { headers: { "x-forwarded-for": `198.51.100.1, ${ip}` } }).then((r) => r.status);
    const a = [];
    for (let i = 0; i < 6; i++) a.push(await hit("203.0.113.7"));
    expect(a).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await hit("203.0.113.8")).toBe(200);
  });
});
