/**
 * GET /metrics: the Prometheus text format, scraped after real traffic (free
 * and paid requests through the devnet's x402 payer, a 402, a watch tick and
 * its webhook deliveries); refused without the configured token; served
 * without a token on its own port; not served at all without either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const TOKEN = "metrics-token-0123456789abcdef";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A small parser of the text exposition format (version 0.0.4): HELP/TYPE lines and samples. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      types.set(name!, type!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[3]) for (const l of m[3].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const value = m[4] === "+Inf" ? Infinity : m[4] === "-Inf" ? -Infinity : Number(m[4]);
    if (Number.isNaN(value)) throw new Error(`bad value: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

const pick = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) => pick(samples, name, labels).reduce((a, x) => a + x.value, 0);

describe("GET /metrics behind METRICS_TOKEN", () => {
  let s: WatchStack;
  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { METRICS_TOKEN: TOKEN } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("refuses a scrape without the token, or with a wrong one, in the one error shape", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong-token-wrong-token-00" }, { authorization: TOKEN }] as Record<string, string>[]) {
      const r = await fetch(`${s.url}/metrics`, { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toContain("Bearer");
      const body = await r.json();
      expect(body).toEqual({ error: { code: "invalid_metrics_token", message: expect.any(String) } });
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
  });

  it("counts requests per route, 402s, settlements, ticks, scans and deliveries", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    expect((await s.call("GET", "/v1/paywall")).status).toBe(200);
    const body = { chain: "monero", address: alice.address, viewKey: alice.viewKey, birthdayHeight: 0, webhookUrl: s.receiver.hookUrl("/m") };
    expect((await s.call("POST", "/v1/private/watch", { body })).status).toBe(402);
    const paid = await s.paid("/v1/private/watch", body);
    expect(paid.status).toBe(200);
    expect((await s.call("GET", `/v1/private/watch/${paid.json.watchId}`, { token: paid.json.watchToken })).status).toBe(200);
    expect((await s.call("GET", "/no/such/path/12345")).status).toBe(404);
    s.receiver.registerSecret(paid.json.watchId, paid.json.webhookSecret);
    const st = await s.tick();
    expect(st.deliveries).toBeGreaterThanOrEqual(1);

    const r = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/plain; version=0.0.4");
    const { samples, types } = parseExposition(await r.text());

    expect(types.get("vigil_http_requests_total")).toBe("counter");
    expect(total(samples, "vigil_http_requests_total", { route: "/v1/paywall", method: "GET", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_http_requests_total", { route: "/v1/private/watch", method: "POST", status: "402" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_http_requests_total", { route: "/v1/private/watch", method: "POST", status: "200" })).toBeGreaterThanOrEqual(1);
    // Path parameters are folded into the route pattern; unknown paths share one label.
    expect(total(samples, "vigil_http_requests_total", { route: "/v1/private/watch/:id", method: "GET", status: "200" })).toBe(1);
    expect(total(samples, "vigil_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(samples.some((x) => x.labels.route?.includes(paid.json.watchId))).toBe(false);
    expect(types.get("vigil_http_request_duration_seconds")).toBe("histogram");
    expect(total(samples, "vigil_http_request_duration_seconds_count", { route: "/v1/paywall", method: "GET" })).toBeGreaterThanOrEqual(1);

    expect(total(samples, "vigil_http_payment_required_total", { route: "/v1/private/watch" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_x402_settlements_total", { outcome: "settled" })).toBe(1);

    expect(total(samples, "vigil_watch_tick_duration_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_watch_scan_duration_seconds_count", { chain: "monero" })).toBeGreaterThanOrEqual(1);
    expect(pick(samples, "vigil_watch_scan_lag_seconds", { chain: "monero" })).toHaveLength(1);
    expect(total(samples, "vigil_webhook_deliveries_total", { outcome: "delivered" })).toBe(st.deliveries);
    expect(total(samples, "vigil_webhook_delivery_duration_seconds_count", { outcome: "delivered" })).toBe(st.deliveries);
    expect(pick(samples, "vigil_webhook_outbox_depth")).toEqual([{ name: "vigil_webhook_outbox_depth", labels: {}, value: 0 }]);
    expect(pick(samples, "vigil_webhook_outbox_oldest_age_seconds")).toHaveLength(1);
    expect(types.get("vigil_reconciler_findings_total")).toBe("counter");
  });

  it("shows pending outbox events with their age, and settlement failures", async () => {
    // A payment presented that does not verify is a failed settlement.
    const bad = await fetch(`${s.url}/v1/private/watch`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString("base64") },
      body: JSON.stringify({ chain: "monero" }),
    });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const alice = s.wallets.find((w) => w.label === "alice")!;
    s.receiver.failPath("/pending", 500);
    const paid = await s.paid("/v1/private/watch", { chain: "monero", address: alice.address, viewKey: alice.viewKey, birthdayHeight: 0, webhookUrl: s.receiver.hookUrl("/pending") });
    expect(paid.status).toBe(200);
    await s.tick();
    s.advance(90_000);
    const { samples } = parseExposition(await (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text());
    expect(total(samples, "vigil_x402_settlements_total", { outcome: "failed" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_webhook_deliveries_total", { outcome: "http_error" })).toBeGreaterThanOrEqual(1);
    expect(total(samples, "vigil_webhook_outbox_depth")).toBeGreaterThanOrEqual(1);
    const oldest = await s.t.db.db.selectFrom("webhook_outbox").select("created_at").where("status", "=", "pending").orderBy("created_at").executeTakeFirstOrThrow();
    const age = total(samples, "vigil_webhook_outbox_oldest_age_seconds");
    expect(Math.abs(age - (s.clock.now() - new Date(oldest.created_at).getTime()) / 1000)).toBeLessThan(1);
    expect(age).toBeGreaterThanOrEqual(60);
    s.receiver.failPath("/pending", null);
  });
});

describe("GET /metrics on METRICS_PORT, and not at all without configuration", () => {
  let withPort: TestApp;
  let plain: TestApp;
  beforeAll(async () => {
    withPort = await startTestApp({ METRICS_PORT: "0" });
    plain = await startTestApp({});
  }, 60_000);
  afterAll(async () => {
    await withPort?.close();
    await plain?.close();
  });

  it("serves the metrics port without a token, and not on the API port", async () => {
    await fetch(`${withPort.url}/v1/paywall`);
    const base = withPort.app.metricsSite.baseUrl!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await fetch(`${base}/metrics`);
    expect(r.status).toBe(200);
    const { samples } = parseExposition(await r.text());
    expect(total(samples, "vigil_http_requests_total", { route: "/v1/paywall" })).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${base}/other`)).status).toBe(404);
    expect((await fetch(`${withPort.url}/metrics`)).status).toBe(404);
  });

  it("is not served without METRICS_TOKEN or METRICS_PORT", async () => {
    const r = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(plain.app.metricsSite.baseUrl).toBeUndefined();
  });
});

describe("settlement outcomes", () => {
  it("a 402 that carries PAYMENT-RESPONSE (a settlement failed or still pending) counts as failed, not settled", async () => {
    const { createMetrics } = await import("../../src/core/metrics.js");
    const { instrumentFetch } = await import("../../src/http/metrics-http.js");
    const metrics = createMetrics({ defaultMetrics: false });
    const answers = [
      new Response("{}", { status: 402, headers: { "payment-response": "e30=" } }),
      new Response("{}", { status: 200, headers: { "payment-response": "e30=" } }),
    ];
    const fetch = instrumentFetch(async () => answers.shift()!, { metrics, routePatterns: ["/v1/q/xmr/height"], token: undefined });
    const paid = () => new Request("http://127.0.0.1/v1/q/xmr/height", { headers: { "payment-signature": "x" } });
    await fetch(paid());
    await fetch(paid());
    const { samples } = parseExposition(await metrics.registry.metrics());
    expect(total(samples, "vigil_x402_settlements_total", { outcome: "failed" })).toBe(1);
    expect(total(samples, "vigil_x402_settlements_total", { outcome: "settled" })).toBe(1);
  });
});
