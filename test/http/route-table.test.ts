import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { priceOf } from "../../src/http/pipeline.js";
import { openApiPath } from "../../src/http/openapi.js";
import { MCP_PATH } from "../../src/mcp/http.js";

describe("the route table is the only list of routes", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
  });
  afterAll(async () => t?.close());

  it("every route the HTTP router serves is declared in the table, and vice versa", () => {
    const served = new Set(
      t.app.hono.routes
        // The MCP transport endpoint is not a route of its own: it serves the table's tools.
        .filter((r) => r.method !== "ALL" && r.path !== MCP_PATH)
        .map((r) => `${r.method} ${r.path}`),
    );
    expect(t.app.hono.routes.filter((r) => r.path === MCP_PATH).map((r) => r.method).sort()).toEqual(["DELETE", "GET", "POST"]);
    // A path declared with a trailing slash is mounted without it (the router matches either spelling).
    const declared = new Set(t.app.routes.map((r) => `${r.method} ${r.path.length > 1 ? r.path.replace(/\/+$/, "") : r.path}`));
    expect([...served].sort()).toEqual([...declared].sort());
    // Middleware is the only thing registered for ALL methods.
    for (const r of t.app.hono.routes.filter((r) => r.method === "ALL")) expect(r.path).toBe("/*");
  });

  it("operation ids and MCP tool names are unique", () => {
    const ops = t.app.routes.map((r) => r.operationId);
    expect(new Set(ops).size).toBe(ops.length);
    const tools = t.app.routes.flatMap((r) => (r.mcpTool ? [r.mcpTool] : []));
    expect(new Set(tools).size).toBe(tools.length);
  });

  it("GET /v1/paywall lists exactly the priced routes with their prices", async () => {
    const body = (await (await fetch(`${t.url}/v1/paywall`)).json()) as {
      protocol: string;
      network: string;
      facilitator_mode: string;
      payTo: string;
      scheme: string;
      schemes: string[];
      batch_settlement?: unknown;
      routes: { endpoint: string; price: string; description: string; mime_type: string; min_deposit_atomic?: string }[];
    };
    expect(body).toMatchObject({ protocol: "x402", network: "eip155:8453", facilitator_mode: "http", scheme: "exact" });
    // No receiver-authorizer key: exact only, so no channel terms and no deposits (test/http/payment-schemes.test.ts has both).
    expect(body.schemes).toEqual(["exact"]);
    expect(body.batch_settlement).toBeUndefined();
    expect(body.routes.filter((r) => r.min_deposit_atomic !== undefined)).toEqual([]);
    expect(body.payTo).toBe("0x1111111111111111111111111111111111111111");
    const priced = t.app.routes.filter((r) => r.price !== undefined);
    expect(body.routes.map((r) => r.endpoint).sort()).toEqual(
      priced.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`).sort(),
    );
    for (const r of body.routes) {
      expect(r.price).toMatch(/^\$\d+\.\d{2,6}(-\$\d+\.\d{2,6})?$/);
      expect(r.description.length).toBeGreaterThan(0);
    }
  });

  it("the OpenAPI 3.1 document has every route, version 1.0.0, and a 402 on each paid operation", async () => {
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    for (const r of t.app.routes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op.operationId).toBe(r.operationId);
      expect(Boolean(op.responses["402"])).toBe(r.price !== undefined);
    }
  });

  it("the discovery manifest lists the paid resources with version 1", async () => {
    const m = (await (await fetch(`${t.url}/.well-known/x402`)).json()) as { version: number; resources: string[] };
    expect(m.version).toBe(1);
    // Templated paths (a notice's boost) are not resources a crawler can pay for as they are.
    expect(m.resources.length).toBe(t.app.routes.filter((r) => r.price !== undefined && !r.path.includes(":")).length);
  });

  it("fixed prices are positive bigints", () => {
    for (const r of t.app.routes) {
      if (typeof r.price === "bigint") expect(priceOf(r, {})! > 0n).toBe(true);
    }
  });
});
