/**
 * Standing answers (src/http/standing-answers.ts): the free GETs node's
 * request listener answers in front of Hono give the framework's answer byte
 * for byte (bar the Date and a new request id), keep every check of the
 * middleware, count each request once against the limit and once in the
 * metrics, and leave everything else to the framework.
 *
 * The service runs on the machine's PostgreSQL in both CI passes: its
 * limiter answers without waiting only from points it claimed, so the cases
 * below also cover the requests that wait for a claim (the limiter in memory
 * always answers at once: its own case is at the end). The framework's own answers come from a second
 * server on the same app (same routes, limiters and metrics) without the
 * standing answers in front.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { serve, type ServerType } from "@hono/node-server";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { LOCAL_POSTGRES_URL } from "../helpers/db.js";
import { createRateLimiter, type RateLimiter } from "../../src/core/rate-limit.js";
import { standingAnswers } from "../../src/http/standing-answers.js";
import { instrumentFetch } from "../../src/http/metrics-http.js";
import { createServer, type RequestListener } from "node:http";

const LIMIT = 64;
const ALLOW_TOKEN = "standing-answers-test-token";
let t: TestApp;
let framework: ServerType;
let frameworkUrl: string;

/** One request over a socket of its own, written as given; the whole answer as the bytes came. */
function rawRequest(origin: string, lines: string[]): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write([...lines, "Connection: close", "", ""].join("\r\n")));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}

/** The answer with its Date line blanked, and (when asked) its request id. */
function comparable(answer: string, opts: { requestId?: boolean } = {}): string {
  let s = answer.replace(/^Date: .*$/m, "Date: -");
  if (opts.requestId) s = s.replace(/^x-request-id: .*$/m, "x-request-id: -");
  return s;
}

const get = (path: string, ...headers: string[]) => [`GET ${path} HTTP/1.1`, "Host: vigil.test", ...headers];

/** The same request to the service and to the framework alone; each answer, and whether the standing path answered the first. */
async function both(lines: string[]): Promise<{ standing: string; framework: string; answeredInFront: boolean }> {
  const before = t.app.standing.served;
  const standing = await rawRequest(t.url, lines);
  const answeredInFront = t.app.standing.served === before + 1;
  return { standing, framework: await rawRequest(frameworkUrl, lines), answeredInFront };
}

/**
 * `both`, repeated until the standing path answered (at most 6 times). A client's request waits for a
 * claim from PostgreSQL whenever the points its process holds are spent, and the framework answers
 * those: with a limit of 64 points are claimed 1, 2, 2, … at a time.
 */
async function bothInFront(lines: string[]): Promise<{ standing: string; framework: string }> {
  for (let i = 0; i < 6; i++) {
    const r = await both(lines);
    if (r.answeredInFront) return r;
  }
  throw new Error(`never answered in front: ${lines[0]}`);
}

let ipCounter = 0;
/** A client of its own (TRUST_PROXY_HOPS=1: the address our proxy appended), so cases do not share a window. */
const newClient = () => `X-Forwarded-For: 203.0.113.9, 198.51.100.${++ipCounter}`;

const STANDING_PATHS = ["/v1/q", "/v1/paywall", "/", "/v1/openapi.json", "/openapi.json", "/.well-known/x402"];

beforeAll(async () => {
  t = await startTestApp(
    { RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY_HOPS: "1", METRICS_TOKEN: "metrics-token-of-this-test", RATE_LIMIT_ALLOW_TOKENS: ALLOW_TOKEN, RATE_LIMIT_ALLOW_PER_MINUTE: "500" },
    { postgresUrl: LOCAL_POSTGRES_URL },
  );
  // The framework alone, as the service serves it without the standing answers: the same fetch, counted the same way.
  const fetch = instrumentFetch(t.app.hono.fetch, { metrics: t.app.metrics, routePatterns: t.app.routes.map((r) => r.path), token: t.app.config.METRICS_TOKEN });
  await new Promise<void>((resolve) => {
    framework = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
      frameworkUrl = `http://127.0.0.1:${(info as AddressInfo).port}`;
      resolve();
    });
  });
}, 60_000);

afterAll(async () => {
  if (framework) await new Promise((r) => framework.close(r));
  await t?.close();
});

describe("standing answers in front of the framework", () => {
  it("are the routes made with defineStandingRoute, and only those", () => {
    const standing = t.app.routes.filter((r) => r.standingAnswer).map((r) => r.path);
    expect(standing.sort()).toEqual([...STANDING_PATHS].sort());
    for (const r of t.app.routes.filter((r) => r.standingAnswer)) {
      expect(r.method).toBe("GET");
      expect(r.price).toBeUndefined();
      expect(r.rateLimit).toBeUndefined();
      expect(r.etag).toBeUndefined();
    }
  });

  it.each(STANDING_PATHS)("GET %s: the framework's answer, byte for byte, with the caller's request id", async (path) => {
    const r = await bothInFront(get(path, newClient(), "X-Request-Id: caller-id.1_A"));
    expect(r.standing).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.standing).toContain("\r\nx-request-id: caller-id.1_A\r\n");
    expect(comparable(r.standing)).toBe(comparable(r.framework));
  });

  it("a request id that is not a safe token is replaced by a new UUID, as the middleware does", async () => {
    const client = newClient();
    for (const id of ["has space", "x".repeat(65), "semi;colon"]) {
      const r = await bothInFront(get("/v1/q", client, `X-Request-Id: ${id}`));
      const sent = /^x-request-id: (.*)\r$/m.exec(r.standing)?.[1];
      expect(sent).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(comparable(r.standing, { requestId: true })).toBe(comparable(r.framework, { requestId: true }));
    }
  });

  it("leaves to the framework what it does not take, and the answers stay the framework's", async () => {
    const client = newClient();
    await rawRequest(t.url, get("/v1/q", client));
    const cases: string[][] = [
      get("/v1/q?unknown=1", client, "X-Request-Id: r1"), // ignored input: Vigil-Ignored-Input
      get("/v1/q/", client, "X-Request-Id: r2"), // trailing slash
      [`HEAD /v1/q HTTP/1.1`, "Host: vigil.test", client, "X-Request-Id: r3"],
      ["OPTIONS /v1/q HTTP/1.1", "Host: vigil.test", client, "Origin: https://example.com", "Access-Control-Request-Method: GET", "X-Request-Id: r4"],
      get("/v1/q", client, "PAYMENT-SIGNATURE: e30=", "X-Request-Id: r5"),
      get("/v1/q/xmr/height", client, "X-Request-Id: r6"), // a paid route: the 402
      get("/v1/health", client, "X-Request-Id: r7"), // free but not standing
      get("/nowhere", client, "X-Request-Id: r8"),
      [`POST /v1/q HTTP/1.1`, "Host: vigil.test", client, "X-Request-Id: r9", "Content-Length: 0"], // 405
    ];
    for (const lines of cases) {
      const r = await both(lines);
      expect(r.answeredInFront, lines[0]).toBe(false);
      // /v1/health carries the uptime and the upstreams' state: compare its status line and headers only.
      const cut = (s: string) => (lines[0]!.includes("/v1/health") ? s.split("\r\n\r\n")[0]!.replace(/^Content-Length: .*$/m, "") : s);
      expect(cut(comparable(r.standing)), lines[0]).toBe(cut(comparable(r.framework)));
    }
  });

  it("counts each request once against the general limit: exactly the limit answered, then the framework's 429", async () => {
    const client = newClient();
    const statuses: number[] = [];
    const before = t.app.standing.served;
    for (let i = 0; i < LIMIT + 6; i++) statuses.push(Number(/^HTTP\/1\.1 (\d+)/.exec(await rawRequest(t.url, get("/v1/q", client)))![1]));
    const inFront = t.app.standing.served - before;
    expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429, 429, 429]);
    // Points are claimed in chunks (1, 2, 2, …): most requests are answered in front, every claim's first in the framework.
    expect(inFront).toBeGreaterThan(LIMIT / 3);
    expect(inFront).toBeLessThan(LIMIT);
    // The refusal is the framework's, the same as the framework alone gives the same client.
    const refusal = await both(get("/v1/q", client, "X-Request-Id: refused"));
    expect(refusal.answeredInFront).toBe(false);
    expect(refusal.standing).toMatch(/^HTTP\/1\.1 429 /);
    expect(comparable(refusal.standing).replace(/^Retry-After: .*$/im, "")).toBe(comparable(refusal.framework).replace(/^Retry-After: .*$/im, ""));
  });

  it("an allow-listed token counts against the allow-list's limit, in front as in the framework", async () => {
    const client = newClient();
    const token = `x-allow-token: ${ALLOW_TOKEN}`;
    const statuses: number[] = [];
    // Past the general limit of the client's address: only the allow-list's limit applies to the token.
    for (let i = 0; i < LIMIT + 10; i++) statuses.push(Number(/^HTTP\/1\.1 (\d+)/.exec(await rawRequest(t.url, get("/v1/paywall", client, token)))![1]));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const r = await bothInFront(get("/v1/paywall", client, token, "X-Request-Id: listed"));
    expect(comparable(r.standing)).toBe(comparable(r.framework));
    // The address itself was not charged for the token's requests.
    const unlisted = await rawRequest(t.url, get("/v1/paywall", client));
    expect(unlisted, unlisted.slice(0, 600)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("counts what it answers in the HTTP metrics, as the framework's requests are counted", async () => {
    const counted = async () => {
      const text = await rawRequest(t.url, get("/metrics", "Authorization: Bearer metrics-token-of-this-test"));
      const line = text.split("\n").find((l) => l.startsWith("vigil_http_requests_total{") && l.includes('route="/v1/paywall"') && l.includes('status="200"'));
      return Number(line?.split(" ").pop() ?? 0);
    };
    const client = newClient();
    await rawRequest(t.url, get("/v1/paywall", client));
    const before = await counted();
    const servedBefore = t.app.standing.served;
    for (let i = 0; i < 10; i++) await rawRequest(t.url, get("/v1/paywall", client));
    expect(t.app.standing.served - servedBefore).toBeGreaterThan(0);
    expect((await counted()) - before).toBe(10);
  });
});

describe("standingAnswers() on its own", () => {
  const log = pino({ level: "silent" });
  const route = (answer: () => unknown) => [{ method: "GET", path: "/s", standingAnswer: answer }] as never;
  // The test app's PostgreSQL schema, where the rate_limits table is.
  const pool = () => (t.db as unknown as { pool: import("pg").Pool }).pool;

  /**
   * Serves `front` in front of a listener that spends a point of `limiter` as the middleware does and
   * answers 299 (the framework's answer); returns the status of each GET /s.
   */
  async function statuses(front: ReturnType<typeof standingAnswers>, limiter: RateLimiter, n: number, headers: Record<string, string> = {}): Promise<number[]> {
    const next: RequestListener = (_req, res) => void limiter.consume("127.0.0.1").then((r) => res.writeHead(r.allowed ? 299 : 429).end());
    const server = createServer(front.listener(next, () => {}));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/s`;
    try {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await fetch(url, { headers })).status);
      return out;
    } finally {
      await new Promise((r) => server.close(r));
    }
  }

  it("on the limiter in memory (the embedded store's), answers every request up to the limit, then leaves the refusals to the framework", async () => {
    const limiter = createRateLimiter({ kind: "memory" }, "rl_standing_mem", 4, 60);
    const front = standingAnswers(route(() => ({ a: 1 })), { log, trustProxyHops: 0, generalLimiter: limiter });
    expect(await statuses(front, limiter, 6)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(front.served).toBe(4);
  });

  it("an answer that throws goes to the framework, which gives the route's own answer or error", async () => {
    const limiter = createRateLimiter({ kind: "postgres", pool: pool() }, `rl_standing_${process.pid}_${Date.now()}`, 1000, 60);
    let calls = 0;
    const front = standingAnswers(
      route(() => {
        calls++;
        throw new Error("not ready");
      }),
      { log, trustProxyHops: 0, generalLimiter: limiter },
    );
    expect(await statuses(front, limiter, 6)).toEqual([299, 299, 299, 299, 299, 299]);
    expect(front.served).toBe(0);
    expect(calls).toBeGreaterThan(0);
  });

  it("an answer that is no JSON value goes to the framework too, and the process stays up", async () => {
    const limiter = createRateLimiter({ kind: "memory" }, "rl_standing_undefined", 100, 60);
    const front = standingAnswers(route(() => undefined), { log, trustProxyHops: 0, generalLimiter: limiter });
    expect(await statuses(front, limiter, 3)).toEqual([299, 299, 299]);
    expect(front.served).toBe(0);
  });

  it("leaves every request to the framework while the log is at debug (the middleware logs a line per request)", async () => {
    const limiter = createRateLimiter({ kind: "postgres", pool: pool() }, `rl_standing_dbg_${process.pid}_${Date.now()}`, 1000, 60);
    const front = standingAnswers(route(() => ({ a: 1 })), { log: pino({ level: "debug" }, { write: () => {} }), trustProxyHops: 0, generalLimiter: limiter });
    expect(await statuses(front, limiter, 6)).toEqual([299, 299, 299, 299, 299, 299]);
    expect(front.served).toBe(0);
  });
});
