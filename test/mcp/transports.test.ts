/**
 * The MCP transports and their edges: stateless JSON at /mcp with CORS, the
 * server card, the MCP server on its own port (MCP_PORT), `vigil mcp` serving
 * in-process over stdio, and the per-client limit of the free dispatcher.
 */
import path from "node:path";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { mcpTools } from "../../src/http/mcp-tools.js";
import { ServerCard } from "../../src/mcp/card.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { startTestMonerod } from "../chains/monero/io/helpers.js";
import { VIGIL_CLI } from "../helpers/process.js";

const root = path.resolve(import.meta.dirname, "..", "..");
const PAY_TO = "0x1111111111111111111111111111111111111111";
const Q_PER_MINUTE = 3;

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: "vigil-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const errorCode = (r: CallToolResult): string => {
  expect(r.isError).toBe(true);
  return (JSON.parse((r.content[0] as { text: string }).text) as { error: { code: string } }).error.code;
};

describe("MCP transports", () => {
  let monerod: Awaited<ReturnType<typeof startTestMonerod>>;
  let t: TestApp;
  let tools: Tool[];
  beforeAll(async () => {
    monerod = await startTestMonerod({ initialBlocks: 4 });
    t = await startTestApp({
      MONERO_DAEMON_URL: monerod.url,
      PAY_TO,
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: "http://127.0.0.1:9",
      MCP_PORT: "0",
      MCP_PUBLIC_URL: "https://mcp.vigil.test/",
      MCP_Q_PER_MINUTE: String(Q_PER_MINUTE),
      // A hosted browser agent's origin, allowed by the operator (origin.test.ts: refused by default).
      MCP_ALLOWED_ORIGINS: "https://agent.example",
    });
    const client = await httpClient(`${t.url}/mcp`);
    tools = (await client.listTools()).tools;
    await client.close();
  });
  afterAll(async () => {
    await t?.close();
    await monerod?.close();
  });

  it("is stateless JSON-RPC over POST /mcp: tools/list needs no session, answers application/json with CORS and no-store", async () => {
    const r = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", origin: "https://agent.example" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("mcp-session-id")).toBeNull();
    const body = (await r.json()) as { id: number; result: { tools: Tool[] } };
    expect(body.id).toBe(7);
    expect(body.result.tools.map((x) => x.name)).toEqual(tools.map((x) => x.name));

    const preflight = await fetch(`${t.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://agent.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type,mcp-protocol-version" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");

    // No server-sent event stream in stateless mode.
    const get = await fetch(`${t.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("publishes a server card with the endpoint and every tool and its price", async () => {
    const r = await fetch(`${t.url}/.well-known/mcp/server-card.json`);
    expect(r.status).toBe(200);
    const card = ServerCard.parse(await r.json());
    expect(card.transport).toEqual({ type: "streamable-http", url: `${t.url}/mcp` });
    const prices = new Map(mcpTools(t.app.table).map((d) => [d.name, d.price]));
    expect(card.tools.map((x) => x.name)).toEqual(tools.map((x) => x.name));
    for (const tool of card.tools) expect(tool.price, tool.name).toBe(prices.get(tool.name));
    expect(card.tools.find((x) => x.name === "service_private_watch_create")?.price).toBe("$0.10");
  });

  it("serves the same tools on its own port (MCP_PORT) at / and /mcp, with a card naming MCP_PUBLIC_URL", async () => {
    const base = t.app.mcpSite.baseUrl!;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(base).not.toBe(t.url);
    for (const p of ["/", "/mcp"]) {
      const client = await httpClient(`${base}${p}`);
      expect((await client.listTools()).tools).toEqual(tools);
      const health = await client.callTool({ name: "service_health", arguments: {} });
      expect(health.isError).toBeFalsy();
      await client.close();
    }
    const card = ServerCard.parse(await (await fetch(`${base}/.well-known/mcp/server-card.json`)).json());
    // Its card names the public address (MCP_PUBLIC_URL); the API's card names the API's /mcp.
    expect(card.transport.url).toBe("https://mcp.vigil.test/mcp");
    expect((await fetch(`${base}/v1/health`)).status).toBe(404);
  });

  it("limits the free service_q per client, and only service_q", async () => {
    const client = await httpClient(`${t.url}/mcp`);
    for (let i = 0; i < Q_PER_MINUTE; i++) {
      const r = (await client.callTool({ name: "service_q", arguments: { question: "xmr/height" } })) as CallToolResult;
      expect(r.isError, `call ${i + 1}`).toBeFalsy();
    }
    const over = (await client.callTool({ name: "service_q", arguments: { question: "xmr/height" } })) as CallToolResult;
    expect(errorCode(over)).toBe("rate_limited");
    expect(over._meta?.["vigil/status"]).toBe(429);
    // Other tools are not counted against it.
    expect(((await client.callTool({ name: "service_private_watch_info", arguments: {} })) as CallToolResult).isError).toBeFalsy();
    await client.close();
  });

  it("applies a route's own rate limit to its tool (derive-viewkey)", async () => {
    const route = t.app.routes.find((r) => r.mcpTool === "service_private_watch_derive_viewkey")!;
    const points = route.rateLimit!.points;
    const client = await httpClient(`${t.url}/mcp`);
    const derive = () =>
      client.callTool({ name: "service_private_watch_derive_viewkey", arguments: { chain: "zcash", seed: "abandon ".repeat(11) + "about", network: "testnet" } }) as Promise<CallToolResult>;
    for (let i = 0; i < points; i++) expect((await derive()).isError, `call ${i + 1}`).toBeFalsy();
    const over = await derive();
    expect(errorCode(over)).toBe("rate_limited");
    expect(over._meta?.["vigil/status"]).toBe(429);
    await client.close();
  });

  it("vigil mcp serves the same tools over stdio in-process", async () => {
    const dataDir = tempDir("vigil-mcp-stdio-");
    const client = new Client({ name: "vigil-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...VIGIL_CLI, "mcp"],
        cwd: root,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          DEVNET: "off",
          DATA_DIR: dataDir,
          // No port to find a running service on: this is the in-process path.
          PORT: "0",
          LOG_LEVEL: "warn",
          MONERO_DAEMON_URL: monerod.url,
          PAY_TO,
          FACILITATOR_MODE: "http",
          FACILITATOR_URL: "http://127.0.0.1:9",
          MCP_Q_PER_MINUTE: String(Q_PER_MINUTE),
          // With PostgreSQL the child shares the test's schema (PGlite: its own database under DATA_DIR).
          ...t.db.env,
        },
        stderr: "pipe",
      }),
    );
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.map((x) => x.name)).toEqual(tools.map((x) => x.name));
      expect(listed.map((x) => x.inputSchema)).toEqual(tools.map((x) => x.inputSchema));
      const height = (await client.callTool({ name: "service_q", arguments: { question: "xmr/height" } })) as CallToolResult;
      expect(height.isError).toBeFalsy();
      expect(height.structuredContent).toMatchObject({ height: monerod.height() });
      const unknown = (await client.callTool({ name: "service_q", arguments: { question: "xmr/nope" } })) as CallToolResult;
      expect(errorCode(unknown)).toBe("unknown_question");
    } finally {
      await client.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
