/**
 * Issue 23, item 1: MCP over HTTP checks Origin and Host.
 *
 * Outside clients found that `POST /mcp` with `Host: evil.example.com` and
 * `Origin: http://evil.example.com` answered `initialize` and `tools/call`:
 * a page on a domain its owner re-points at 127.0.0.1 could drive the
 * service on loopback from a visitor's browser (DNS rebinding). The
 * Streamable HTTP transport says servers MUST validate Origin and refuse an
 * invalid one with 403. The official conformance suite's
 * `dns-rebinding-protection` scenario (which does not run on Node 20) sends
 * `initialize` with a foreign Host and expects a 4xx, and with the server's
 * own loopback Host expects success; the first block below is that scenario,
 * on the real server.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../../src/config.js";
import { mcpAccessCheck } from "../../src/mcp/origin-guard.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const EVIL = "evil.example.com";
const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "rebinding-test", version: "1.0.0" } } };
const TOOLS_CALL = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "service_private_watch_info", arguments: {} } };

/** One raw HTTP request with exactly the Host and Origin given (fetch cannot set Host). */
function send(url: string, opts: { method: "POST" | "GET" | "DELETE"; host?: string; origin?: string; body?: unknown }): Promise<{ status: number; json: any }> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        method: opts.method,
        // setHost false: the Host header is only what the test says (none when it says none).
        setHost: false,
        headers: {
          ...(opts.host !== undefined ? { host: opts.host } : {}),
          ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
          accept: "application/json, text/event-stream",
          ...(body !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          let json: unknown = text;
          try {
            json = JSON.parse(text);
          } catch {
            // kept as text for the assertion message
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function expectRefused(r: { status: number; json: any }, reason: "origin_not_allowed" | "host_not_allowed", label: string): void {
  expect(r.status, `${label}: ${JSON.stringify(r.json)}`).toBe(403);
  expect(r.json, label).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringMatching(/^Forbidden: /), data: { reason } } });
  expect(r.json.result, label).toBeUndefined();
}

async function sdkClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "vigil-origin-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe("MCP over HTTP on loopback (the default HOST): DNS-rebinding protection", () => {
  let t: TestApp;
  let mcpUrl: string;
  let port: string;
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9", MCP_PORT: "0" });
    mcpUrl = `${t.url}/mcp`;
    port = new URL(t.url).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("conformance dns-rebinding-protection: initialize with Host evil.example.com is refused with 403, with the server's own loopback Host it succeeds", async () => {
    expectRefused(await send(mcpUrl, { method: "POST", host: EVIL, body: INITIALIZE }), "host_not_allowed", "Host evil");
    expectRefused(await send(mcpUrl, { method: "POST", host: `${EVIL}:${port}`, body: INITIALIZE }), "host_not_allowed", "Host evil:port");
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "localhost", "[::1]:1"]) {
      const ok = await send(mcpUrl, { method: "POST", host, body: INITIALIZE });
      expect(ok.status, host).toBe(200);
      expect(ok.json, host).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "vigil" } } });
    }
  });

  it("refuses a foreign Origin with 403 and a JSON-RPC error (id null) for initialize, tools/call, GET and DELETE, even with the right Host", async () => {
    const host = `127.0.0.1:${port}`;
    for (const origin of [`http://${EVIL}`, `http://${EVIL}:${port}`, "https://agent.example", "null"]) {
      expectRefused(await send(mcpUrl, { method: "POST", host, origin, body: INITIALIZE }), "origin_not_allowed", `initialize from ${origin}`);
      expectRefused(await send(mcpUrl, { method: "POST", host, origin, body: TOOLS_CALL }), "origin_not_allowed", `tools/call from ${origin}`);
      // Refused before the stateless 405: the method does not matter.
      expectRefused(await send(mcpUrl, { method: "GET", host, origin }), "origin_not_allowed", `GET from ${origin}`);
      expectRefused(await send(mcpUrl, { method: "DELETE", host, origin }), "origin_not_allowed", `DELETE from ${origin}`);
    }
    // The rebinding request as a browser sends it: both headers foreign.
    expectRefused(await send(mcpUrl, { method: "POST", host: EVIL, origin: `http://${EVIL}`, body: TOOLS_CALL }), "origin_not_allowed", "both foreign");
    // Allowed headers on GET reach the stateless answer (405), not the guard.
    expect((await send(mcpUrl, { method: "GET", host })).status).toBe(405);
  });

  it("the MCP port (MCP_PORT) applies the same check at / and /mcp", async () => {
    const base = t.app.mcpSite.baseUrl!;
    for (const p of ["/", "/mcp"]) {
      expectRefused(await send(`${base}${p}`, { method: "POST", host: EVIL, body: INITIALIZE }), "host_not_allowed", `${p} Host evil`);
      expectRefused(await send(`${base}${p}`, { method: "POST", host: new URL(base).host, origin: `http://${EVIL}`, body: TOOLS_CALL }), "origin_not_allowed", `${p} Origin evil`);
      expect((await send(`${base}${p}`, { method: "POST", host: new URL(base).host, body: INITIALIZE })).status, p).toBe(200);
    }
  });

  it("serves the official MCP client without Origin (an agent) and with a loopback Origin (a local browser tool), and refuses it with a foreign one", async () => {
    for (const headers of [{} as Record<string, string>, { Origin: "http://localhost:6274" }, { Origin: `http://127.0.0.1:${port}` }, { Origin: "https://[::1]:8443" }]) {
      const client = await sdkClient(mcpUrl, headers);
      expect((await client.listTools()).tools.length, JSON.stringify(headers)).toBeGreaterThan(0);
      const r = (await client.callTool({ name: "service_private_watch_info", arguments: {} })) as CallToolResult;
      expect(r.isError, JSON.stringify(headers)).toBeFalsy();
      await client.close();
    }
    const refused = await sdkClient(mcpUrl, { Origin: `http://${EVIL}` }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/403|Forbidden/);
  });
});

describe("MCP_ALLOWED_ORIGINS and MCP_ALLOWED_HOSTS, and PUBLIC_URL's own origin", () => {
  let t: TestApp;
  let mcpUrl: string;
  beforeAll(async () => {
    t = await startTestApp({
      PAY_TO: "0x1111111111111111111111111111111111111111",
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: "http://127.0.0.1:9",
      PUBLIC_URL: "https://vigil.example/",
      MCP_ALLOWED_ORIGINS: "https://agent.example, http://tools.example:8080",
      MCP_ALLOWED_HOSTS: "mcp.internal:9000",
    });
    mcpUrl = `${t.url}/mcp`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("allows the listed origins and the public origin, refuses others", async () => {
    const host = new URL(t.url).host;
    for (const origin of ["https://agent.example", "HTTPS://AGENT.EXAMPLE", "http://tools.example:8080", "https://vigil.example", "http://localhost:3000"]) {
      const r = await send(mcpUrl, { method: "POST", host, origin, body: TOOLS_CALL });
      expect(r.status, origin).toBe(200);
      expect(r.json.result.isError, origin).toBeFalsy();
    }
    for (const origin of ["https://agent.example:444", "http://agent.example", "http://tools.example", "https://evil.example"]) {
      expectRefused(await send(mcpUrl, { method: "POST", host, origin, body: TOOLS_CALL }), "origin_not_allowed", origin);
    }
  });

  it("allows the listed host names and the public URL's, any port; refuses others", async () => {
    for (const host of ["mcp.internal", "mcp.internal:1", "vigil.example", "VIGIL.example:443"]) {
      expect((await send(mcpUrl, { method: "POST", host, body: INITIALIZE })).status, host).toBe(200);
    }
    expectRefused(await send(mcpUrl, { method: "POST", host: "other.internal", body: INITIALIZE }), "host_not_allowed", "other.internal");
  });

  it("refuses a malformed list at start-up, naming the setting", () => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: "agent.example" })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: "https://agent.example/path" })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ MCP_ALLOWED_HOSTS: "https://api.example.com" })).toThrow(/MCP_ALLOWED_HOSTS/);
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: "*", MCP_ALLOWED_HOSTS: "*" })).toMatchObject({ MCP_ALLOWED_ORIGINS: "*", MCP_ALLOWED_HOSTS: "*" });
  });
});

describe("the policy of a public deployment (HOST 0.0.0.0), decided from the same settings", () => {
  const publicCheck = (extra: { allowedOrigins?: string; allowedHosts?: string } = {}) =>
    mcpAccessCheck({ listenHost: "0.0.0.0", publicUrls: () => ["https://api.example.com", undefined], ...extra });

  it("serves any Host and agents without Origin, its own origin, and refuses loopback and foreign origins", () => {
    const check = publicCheck();
    expect(check({ origin: undefined, host: "api.example.com" })).toEqual({ allowed: true });
    expect(check({ origin: undefined, host: "10.0.0.7:8402" })).toEqual({ allowed: true });
    expect(check({ origin: "https://api.example.com", host: "api.example.com" })).toEqual({ allowed: true });
    expect(check({ origin: "http://localhost:6274", host: "api.example.com" })).toMatchObject({ allowed: false, reason: "origin_not_allowed" });
    expect(check({ origin: "https://agent.example", host: "api.example.com" })).toMatchObject({ allowed: false, reason: "origin_not_allowed" });
  });

  it("MCP_ALLOWED_ORIGINS=* opens it to every page; MCP_ALLOWED_HOSTS turns the Host check on", () => {
    expect(publicCheck({ allowedOrigins: "*" })({ origin: "https://agent.example", host: "x" })).toEqual({ allowed: true });
    const hosts = publicCheck({ allowedHosts: "mcp.example.com" });
    expect(hosts({ origin: undefined, host: "mcp.example.com:443" })).toEqual({ allowed: true });
    expect(hosts({ origin: undefined, host: "api.example.com" })).toEqual({ allowed: true });
    expect(hosts({ origin: undefined, host: "localhost:8402" })).toEqual({ allowed: true });
    expect(hosts({ origin: undefined, host: EVIL })).toMatchObject({ allowed: false, reason: "host_not_allowed" });
    // No Host at all cannot be vouched for while the check is on (Node's server refuses HTTP/1.1 without Host before the app anyway).
    expect(hosts({ origin: undefined, host: undefined })).toMatchObject({ allowed: false, reason: "host_not_allowed" });
    expect(publicCheck()({ origin: undefined, host: undefined })).toEqual({ allowed: true });
  });
});
