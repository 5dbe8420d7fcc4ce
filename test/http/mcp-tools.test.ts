import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../src/http/mcp-tools.js";
import { isToolOnly, type AnyToolOnlyDef, type RequestContext } from "../../src/http/route-table.js";
import { ServiceError } from "../../src/core/errors.js";
import { startTestApp, silentLog, type TestApp } from "../helpers/app.js";
import { startTestMonerod } from "../chains/monero/io/helpers.js";

// The spec's MCP tools for the operations that exist today, plus the boards' and checkout's (feed tools come later).
const SPEC_TOOLS_TODAY = [
  "service_health",
  "service_paywall_info",
  "service_flashloan_providers",
  "service_q",
  "service_private_watch_info",
  "service_private_watch_create",
  "service_private_watch_topup",
  "service_private_watch_topup_crypto",
  "service_private_watch_historical",
  "service_private_watch_derive_viewkey",
  "service_private_watch_status",
  "service_private_watch_cancel",
  // Not in the spec's list: the watch's settings (the Monero look-ahead, the invoice account), as its REST route.
  "service_private_watch_update",
  "service_private_watch_test",
  // Boards: named in the spec's style (service_<product>_<operation>).
  "service_board_list",
  "service_board_leaderboard",
  "service_board_read",
  "service_board_post",
  "service_board_notice",
  "service_board_edit",
  "service_board_remove",
  "service_board_boost",
  // Checkout (service_checkout_<operation>); the pay page is HTML, not a tool.
  "service_checkout_info",
  "service_checkout_invoice_create",
  "service_checkout_invoice_list",
  "service_checkout_invoice_status",
  "service_checkout_invoice_cancel",
  "service_checkout_key_create",
  "service_checkout_key_revoke",
  // Feeds (service_feeds_<operation>); CSV tools answer the CSV as text.
  "service_feeds_builder_stats",
  "service_feeds_builder_stats_sample",
  "service_feeds_fee_history_csv",
  "service_feeds_builder_bids_csv",
  "service_feeds_zec_ironwood",
  "service_feeds_zec_ironwood_history",
  // The private relay (service_private_relay_<operation>; the paid relay itself is service_private_relay).
  "service_private_relay_info",
  "service_private_relay_inspect",
  "service_private_relay",
  // Liquidation opportunities: the paid feed and its free sample.
  "service_opportunities",
  "service_opportunities_sample",
  // Counter-MEV: the paid feed and its free summary.
  "service_counter_mev",
  "service_counter_mev_summary",
  // Puzzle risk: the paid watchlist, its free summary and the one-contract lookup.
  "service_puzzle_risk",
  "service_puzzle_risk_summary",
  "service_puzzle_risk_lookup",
];

describe("the MCP tool list is derived from the table", () => {
  let monerod: Awaited<ReturnType<typeof startTestMonerod>>;
  let t: TestApp;
  beforeAll(async () => {
    monerod = await startTestMonerod({ initialBlocks: 4 });
    t = await startTestApp({ MONERO_DAEMON_URL: monerod.url, PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
  });
  afterAll(async () => {
    await t?.close();
    await monerod?.close();
  });

  const dispatcher = (): AnyToolOnlyDef => {
    const tool = t.app.table.find((e) => e.mcpTool === "service_q");
    if (!tool || !isToolOnly(tool)) throw new Error("service_q is not a tool-only entry");
    return tool;
  };
  // What an MCP server does with a call: validate the arguments with the tool's schema, then run it.
  const callDispatcher = async (args: unknown): Promise<unknown> => {
    const tool = dispatcher();
    const ctx: RequestContext = { requestId: "mcp-test", ip: "127.0.0.1", db: t.app.database.db, log: silentLog, baseUrl: t.url, surface: "mcp" };
    return tool.handler(tool.input.parse(args), ctx);
  };

  it("has exactly the spec's tool names for today's operations", () => {
    expect(mcpTools(t.app.table).map((tool) => tool.name).sort()).toEqual([...SPEC_TOOLS_TODAY].sort());
  });

  it("docs/mcp.md lists exactly the tools the table publishes", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/mcp.md"), "utf8");
    const section = doc.slice(doc.indexOf("The tools that exist today:"), doc.indexOf("\n\n", doc.indexOf("The tools that exist today:")));
    const listed = [...section.matchAll(/`(service_[a-z_]+)`/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual(mcpTools(t.app.table).map((tool) => tool.name).sort());
  });

  it("operation ids are unique across the whole table, tool-only entries included", () => {
    const ops = t.app.table.map((e) => e.operationId);
    expect(new Set(ops).size).toBe(ops.length);
    expect(t.app.table.filter(isToolOnly).map((e) => e.mcpTool)).toEqual(["service_q"]);
  });

  it("gives every tool a description, object input and output schemas and a price", () => {
    const tools = new Map(mcpTools(t.app.table).map((tool) => [tool.name, tool]));
    for (const tool of tools.values()) {
      expect(tool.description.length, tool.name).toBeGreaterThan(0);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.price, tool.name).toMatch(/^(free|\$\d+\.\d{2,6}(-\$\d+\.\d{2,6})?)$/);
    }
    expect(tools.get("service_q")).toMatchObject({ price: "free" });
    expect(tools.get("service_q")!.inputSchema).toMatchObject({ required: ["question"], properties: { question: { type: "string" } } });
    expect(tools.get("service_health")).toMatchObject({ price: "free" });
    expect(tools.get("service_private_watch_create")).toMatchObject({ price: "$0.10", priceAtomic: "100000" });
    // A precise output schema: the health report names its fields.
    expect(tools.get("service_health")!.outputSchema).toMatchObject({ properties: { status: { enum: ["ok", "degraded"] }, upstreams: { type: "object" } } });
    // Header-borne credentials are plain fields of the tool's input, and required there (a tool has no headers).
    expect(tools.get("service_private_watch_status")!.inputSchema.properties).toHaveProperty("watchToken");
    expect(tools.get("service_private_watch_status")!.inputSchema.required).toEqual(["id", "watchToken"]);
    expect(tools.get("service_board_remove")!.inputSchema.required).toEqual(expect.arrayContaining(["ownerToken"]));
    // Typed as the spec types them, though REST reads them from the query string.
    expect(tools.get("service_flashloan_providers")!.inputSchema.properties).toMatchObject({ max_fee_bps: { type: "number" }, multi_asset: { type: "boolean" } });
  });

  it("the tool-only dispatcher has no HTTP route and no OpenAPI operation", async () => {
    expect(t.app.routes.some((r) => r.operationId === "oracleDispatch")).toBe(false);
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).not.toContain("oracleDispatch");
    expect(ops).toContain("q_xmr_height");
  });

  it("service_q answers a real Monero question through the registry, free", async () => {
    const a = await callDispatcher({ question: "xmr/height" });
    expect(a).toMatchObject({ height: monerod.height(), synchronized: true, network: "testnet", as_of_ms: expect.any(Number) });
    // The same cache as the paid route: the path may carry its /v1/q/ prefix.
    expect(await callDispatcher({ question: "/v1/q/xmr/height", params: {} })).toEqual(a);
    const fee = await callDispatcher({ question: "xmr/fee-estimate" });
    expect(fee).toMatchObject({ tx_size_bytes: 1500, slow: { piconero: "30000000" } });
  });

  it("service_q refuses an unknown question (404) and bad parameters (400), as the routes do", async () => {
    const unknown = await callDispatcher({ question: "xmr/nope" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ServiceError);
    expect(unknown).toMatchObject({ status: 404, code: "unknown_question" });
    const bad = await callDispatcher({ question: "xmr/height", params: { window: "1h" } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ServiceError);
    expect(bad).toMatchObject({ status: 400, code: "invalid_input" });
    expect(() => dispatcher().input.parse({})).toThrow();
    expect(() => dispatcher().input.parse({ question: "xmr/height", extra: 1 })).toThrow();
  });
});
