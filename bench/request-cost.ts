/**
 * bench:request-cost — the JS cost of one free GET through the real app, without the kernel.
 *
 * Each request is served by @hono/node-server's request listener (as `serve` does) with node's own
 * IncomingMessage and ServerResponse on a socket that discards what it is sent, so the figure is
 * everything a request costs in user space (node's response path, node-server, Hono, the middleware,
 * the route) and nothing of the kernel's TCP path or of waking the load over loopback (bench:http
 * measures those, with all their noise on a 2-core VM). Baseline, in the same run: Hono with one
 * middleware (request id and CORS) answering the same bytes through the same listener.
 *
 * Rows, in this order (a later one cannot be undone in the process):
 *  - each path, first alone: through the framework, then as the service serves it (a standing answer,
 *    src/http/standing-answers.ts, in front of the framework);
 *  - again after mixed traffic (20,000 requests over other routes: V8's inline caches see more shapes),
 *    both ways;
 *  - again once an AsyncLocalStorage has run in the process (Node 20 then puts promise hooks on
 *    every promise: the service must never leave one behind).
 *
 * Environment: PATHS (comma list, default /v1/q,/v1/paywall), BATCHES (15), PER_BATCH (5000).
 * The devnet runs in this process (blocks every hour, so none is made during the run); the app is
 * the devnet shape (PGlite, memory rate limits). Everything it starts is closed at the end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import pino from "pino";
import { Hono } from "hono";
import { getRequestListener } from "@hono/node-server";
import { applyConfigOverlay, loadConfig } from "../src/config.js";
import { startDevnet } from "../devnet/index.js";
import { createApp } from "../src/app.js";
import { instrumentFetch, requestCounter } from "../src/http/metrics-http.js";
import { machineLine } from "./support.js";

const PATHS = (process.env.PATHS ?? "/v1/q,/v1/paywall").split(",").filter(Boolean);
const BATCHES = Number(process.env.BATCHES ?? 15);
const PER_BATCH = Number(process.env.PER_BATCH ?? 5000);
const MIXED = ["/v1/paywall", "/v1/q", "/v1/q/xmr/height", "/v1/q?unknown=1", "/nowhere", "/v1/q/xmr/fee", "/openapi.json", "/v1/health"];

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** One GET through `listener`, on a socket that takes every byte and sends nothing back. */
function serveOnce(listener: Listener, url: string): Promise<void> {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, done) {
      done();
    },
    writev(_chunks, done) {
      done();
    },
  }) as unknown as Socket;
  Object.defineProperty(socket, "remoteAddress", { value: "127.0.0.1" });
  const req = new IncomingMessage(socket);
  req.method = "GET";
  req.url = url;
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.httpVersion = "1.1";
  req.headers = { host: "127.0.0.1:8080", connection: "keep-alive" };
  req.rawHeaders = ["Host", "127.0.0.1:8080", "Connection", "keep-alive"];
  req.push(null);
  req.complete = true;
  const res = new ServerResponse(req);
  res.assignSocket(socket);
  return new Promise((done, fail) => {
    res.on("finish", () => done());
    res.on("error", fail);
    void listener(req, res);
  });
}

/** CPU µs per request over BATCHES batches: median, least, most. */
async function measure(listener: Listener, url: string): Promise<{ median: number; min: number; max: number }> {
  for (let i = 0; i < PER_BATCH; i++) await serveOnce(listener, url);
  const perRequest: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = process.cpuUsage();
    for (let i = 0; i < PER_BATCH; i++) await serveOnce(listener, url);
    const used = process.cpuUsage(start);
    perRequest.push((used.user + used.system) / PER_BATCH);
  }
  perRequest.sort((a, b) => a - b);
  return { median: perRequest[Math.floor(perRequest.length / 2)]!, min: perRequest[0]!, max: perRequest[perRequest.length - 1]! };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-request-cost-"));
const log = pino({ level: "warn" });
const devnet = await startDevnet({ dataDir: dir, blockSeconds: 3600, log });
const app = await createApp(applyConfigOverlay(loadConfig({ DATA_DIR: dir, DEVNET: "on", LOG_LEVEL: "warn", PORT: "0", RATE_LIMIT_PER_MINUTE: "100000000" }), devnet.configOverlay), {
  log,
});
try {
  // The framework's path as `vigil api` builds it: the metrics wrapper around the router.
  const count = requestCounter(app.metrics, app.routes.map((r) => r.path));
  const service = getRequestListener(instrumentFetch(app.hono.fetch, { metrics: app.metrics, routePatterns: app.routes.map((r) => r.path), token: undefined, count }));
  // And the listener `vigil api` serves: the standing answers in front of it (src/http/standing-answers.ts).
  const served = app.standing.listener(service, count);

  const rows: [string, { median: number; min: number; max: number }][] = [];
  for (const p of PATHS) {
    // The baseline: the same bytes and headers from Hono with one middleware, through the same listener.
    const answer = await app.hono.fetch(new Request(`http://127.0.0.1${p}`));
    const body = new Uint8Array(await answer.arrayBuffer());
    const headers: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (k !== "x-request-id" && k !== "access-control-allow-origin") headers[k] = v;
    });
    const bare = new Hono();
    bare.use("*", async (c, next) => {
      c.header("X-Request-Id", randomUUID());
      c.header("Access-Control-Allow-Origin", "*");
      await next();
    });
    bare.get(p, (c) => c.body(body, 200, headers));
    rows.push([`Hono + one middleware, the bytes of GET ${p} (baseline)`, await measure(getRequestListener(bare.fetch), p)]);
    rows.push([`GET ${p} through the framework`, await measure(service, p)]);
    const before = app.standing.served;
    rows.push([`GET ${p} as served: a standing answer, in front of the framework`, await measure(served, p)]);
    if (app.standing.served === before) throw new Error(`GET ${p} was not answered in front of the framework`);
  }
  for (let i = 0; i < 20_000; i++) await serveOnce(service, MIXED[i % MIXED.length]!);
  for (const p of PATHS) {
    rows.push([`GET ${p} through the framework, after 20,000 requests over ${MIXED.length} routes`, await measure(service, p)]);
    rows.push([`GET ${p} as served, after them`, await measure(served, p)]);
  }
  new AsyncLocalStorage().run({}, () => undefined);
  for (const p of PATHS) rows.push([`GET ${p} through the framework, once an AsyncLocalStorage has run`, await measure(service, p)]);

  console.log(`\n## request-cost — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
  console.log(machineLine("bench:request-cost"));
  console.log(`In process, no kernel: ${BATCHES} batches of ${PER_BATCH} requests each, CPU µs per request (user + system of this process).\n`);
  console.log("| request | median µs | least | most |");
  console.log("|---|---:|---:|---:|");
  for (const [label, r] of rows) console.log(`| ${label} | ${r.median.toFixed(1)} | ${r.min.toFixed(1)} | ${r.max.toFixed(1)} |`);
  console.log(`\nLoad average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
} finally {
  await app.close();
  await devnet.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
