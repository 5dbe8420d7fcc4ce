/**
 * Issue 23, item 2: MCP tool inputs follow the spec's types.
 *
 * Outside clients listing the tools found `service_flashloan_providers`
 * asking for `max_fee_bps` and `multi_asset` as strings: `{max_fee_bps: 0}`
 * was a 400 "expected string" and only "0" worked, though the spec types
 * them number and boolean. And `watchToken` of the status, test and cancel
 * tools (over HTTP the x-watch-token header) was not in `required`, so an
 * agent that read the schema left it out and got a 401. And
 * `service_private_watch_derive_viewkey` with only `{chain}` was a 400: it
 * needs `seed` or `phrase`, which its schema cannot list in `required`
 * (either will do), and said nowhere. A root `anyOf` of required lists would
 * say it in JSON Schema, but Anthropic's and OpenAI's tool APIs refuse
 * `anyOf`/`oneOf`/`allOf` at the root of a tool's input schema ("input_schema
 * does not support oneOf, allOf, or anyOf at the top level"), so such a rule
 * is written out in the tool's description and in each field it names.
 * Everything here goes through the official MCP client against the real server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { httpRoutes } from "../../src/http/route-table.js";
import { FEE_HISTORY_COLUMNS } from "../../src/feeds/fee-history.js";
import { BUILDER_BIDS_COLUMNS } from "../../src/feeds/csv.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; minimum?: number; maximum?: number; enum?: unknown[] };

const UUID = "6f1c0a52-3a43-4f7e-9f0e-2d5b8c1e7a90";

/** The spec's types of tool arguments (spec/api.md: request tables and the flash-loan catalogue). */
const SPEC_TYPES: Record<string, Record<string, "integer" | "number" | "boolean" | "string">> = {
  service_flashloan_providers: { chain: "string", max_fee_bps: "number", multi_asset: "boolean" },
  service_feeds_zec_ironwood_history: { window_ms: "integer", max_points: "integer" },
  service_private_watch_create: { chain: "string", address: "string", viewKey: "string", webhookUrl: "string", birthdayHeight: "integer" },
  service_private_watch_topup: { watchId: "string", watchToken: "string" },
  service_private_watch_topup_crypto: { watchId: "string", watchToken: "string", chain: "string", amountUsdCents: "integer" },
  service_private_watch_historical: { chain: "string", viewKey: "string", address: "string", birthdayHeight: "integer", toHeight: "integer", includeNotes: "boolean" },
  service_private_watch_derive_viewkey: { chain: "string", seed: "string", account: "integer" },
  service_private_watch_status: { id: "string", watchToken: "string" },
  service_private_watch_cancel: { id: "string", watchToken: "string" },
  service_private_watch_test: { id: "string", watchToken: "string" },
  service_checkout_invoice_create: { amountUsdCents: "integer", checkoutKey: "string", watchId: "string", watchToken: "string", chain: "string", orderId: "string", description: "string", successUrl: "string", ttlMinutes: "integer" },
  service_checkout_invoice_list: { watchId: "string", watchToken: "string", status: "string" },
  service_checkout_key_create: { watchId: "string", watchToken: "string", label: "string", maxAmountUsdCents: "integer" },
  service_q: { question: "string" },
};

/** Arguments without which the call is a 400 or 401: each must be in the tool's `required`. */
const SPEC_REQUIRED: Record<string, string[]> = {
  service_private_watch_create: ["chain", "address", "viewKey", "webhookUrl"],
  service_private_watch_topup: ["watchId", "watchToken"],
  service_private_watch_topup_crypto: ["watchId", "watchToken", "amountUsdCents"],
  service_private_watch_historical: ["chain", "viewKey"],
  service_private_watch_derive_viewkey: ["chain"],
  service_private_watch_status: ["id", "watchToken"],
  service_private_watch_cancel: ["id", "watchToken"],
  service_private_watch_test: ["id", "watchToken"],
  service_checkout_invoice_create: ["amountUsdCents"],
  service_checkout_invoice_list: ["watchId", "watchToken"],
  service_checkout_invoice_status: ["invoiceId"],
  service_checkout_invoice_cancel: ["invoiceId", "watchToken"],
  service_checkout_key_create: ["watchId", "watchToken"],
  service_checkout_key_revoke: ["keyId", "watchToken"],
  service_board_edit: ["board", "id", "ownerToken"],
  service_board_remove: ["board", "id", "ownerToken"],
  service_q: ["question"],
};

/**
 * Tools whose call needs one of several sets of arguments, none of them in `required`: derive-viewkey's `seed`
 * or its alias `phrase` (spec/api.md), invoice creation's `{watchId, watchToken}` or `{checkoutKey}` (spec/api.md,
 * Authentication 3), and a notice edit, which must change something. The sentence each tool and each field states.
 */
const SPEC_ALTERNATIVES: Record<string, { fields: string[]; sentence: string }> = {
  service_private_watch_derive_viewkey: { fields: ["seed", "phrase"], sentence: "Give exactly one of: `seed`, or `phrase`." },
  service_checkout_invoice_create: { fields: ["checkoutKey", "watchId", "watchToken"], sentence: "Give exactly one of: `checkoutKey`, or `watchId` with `watchToken`." },
  service_board_edit: {
    fields: ["title", "body", "handle", "url", "contact", "tags"],
    sentence: "Give at least one of: `title`, `body`, `handle`, `url`, `contact`, `tags`.",
  },
};

/** The BIP-39 test mnemonic (all-zero entropy). */
const PHRASE12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

const errorOf = (r: CallToolResult): { code: string; details?: { issues?: { path: string; message: string }[] } } => {
  expect(r.isError).toBe(true);
  return (JSON.parse((r.content[0] as { text: string }).text) as { error: { code: string } }).error;
};

describe("MCP tool inputs, through the official client", () => {
  let t: TestApp;
  let client: Client;
  let tools: Map<string, Tool>;
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
    client = new Client({ name: "vigil-tool-inputs", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    tools = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const input = (name: string): Schema => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.inputSchema as Schema;
  };

  it("publishes each argument with the spec's type", () => {
    for (const [name, fields] of Object.entries(SPEC_TYPES)) {
      for (const [field, type] of Object.entries(fields)) {
        expect(input(name).properties?.[field]?.type, `${name}.${field}`).toBe(type);
      }
    }
    expect(input("service_flashloan_providers").properties).toMatchObject({ max_fee_bps: { type: "number", minimum: 0, maximum: 10_000 }, multi_asset: { type: "boolean" } });
    expect(input("service_feeds_zec_ironwood_history").properties).toMatchObject({ window_ms: { type: "integer", minimum: 3_600_000 }, max_points: { type: "integer", minimum: 10, maximum: 5000 } });
  });

  it("lists in `required` every argument the call cannot do without, header-borne credentials included", () => {
    for (const [name, required] of Object.entries(SPEC_REQUIRED)) {
      expect([...(input(name).required ?? [])].sort(), name).toEqual(expect.arrayContaining(required));
    }
    // Every header-borne credential of every tool, not only the ones named above.
    for (const route of httpRoutes(t.app.table)) {
      if (!route.mcpTool) continue;
      for (const field of Object.values(route.headerInputs ?? {})) expect(input(route.mcpTool).required, `${route.mcpTool}.${field}`).toContain(field);
    }
  });

  it("no tool's input schema has anyOf, oneOf or allOf at its root (the tool APIs of Anthropic and OpenAI refuse them)", () => {
    expect(tools.size).toBeGreaterThan(30);
    for (const [name, tool] of tools) {
      expect(tool.inputSchema.type, name).toBe("object");
      for (const keyword of ["anyOf", "oneOf", "allOf", "not", "if"]) expect(Object.keys(tool.inputSchema), `${name}.${keyword}`).not.toContain(keyword);
    }
  });

  it("an either/or input is written out in the tool's description and in each field it names, none of which is in `required`", () => {
    for (const [name, { fields, sentence }] of Object.entries(SPEC_ALTERNATIVES)) {
      const tool = tools.get(name)!;
      expect(tool.description, name).toContain(sentence);
      const schema = input(name) as Schema & { properties: Record<string, { description?: string }> };
      for (const field of fields) {
        expect(schema.properties[field]?.description, `${name}.${field}`).toContain(sentence);
        expect(schema.required ?? [], `${name}.${field}`).not.toContain(field);
      }
    }
    // No other tool states such a rule: the list above is the whole of it.
    const stating = [...tools.values()].filter((x) => /Give (exactly|at least) one of/.test(x.description ?? "")).map((x) => x.name);
    expect(stating.sort()).toEqual(Object.keys(SPEC_ALTERNATIVES).sort());
  });

  it("the rule the description states is the one the call enforces: none of the alternatives is a 400, each one alone is accepted, two at once are refused", async () => {
    const derive = (args: Record<string, unknown>) => client.callTool({ name: "service_private_watch_derive_viewkey", arguments: { chain: "zcash", network: "testnet", ...args } }) as Promise<CallToolResult>;
    const none = await derive({});
    expect(errorOf(none)).toMatchObject({ code: "invalid_input", details: { issues: [{ path: "seed" }] } });
    expect(none._meta?.["vigil/status"]).toBe(400);
    const bySeed = await derive({ seed: PHRASE12 });
    const byPhrase = await derive({ phrase: PHRASE12 });
    expect(bySeed.isError, JSON.stringify(bySeed.content)).toBeFalsy();
    expect(byPhrase.isError, JSON.stringify(byPhrase.content)).toBeFalsy();
    const ufvk = (bySeed.structuredContent as { ufvk: string }).ufvk;
    expect(ufvk.startsWith("uviewtest1")).toBe(true);
    expect((byPhrase.structuredContent as { ufvk: string }).ufvk).toBe(ufvk);
    expect(errorOf(await derive({ seed: PHRASE12, phrase: PHRASE12 }))).toMatchObject({ code: "invalid_input", details: { issues: [{ path: "phrase" }] } });

    const invoice = (args: Record<string, unknown>) => client.callTool({ name: "service_checkout_invoice_create", arguments: { amountUsdCents: 100, ...args } }) as Promise<CallToolResult>;
    expect(errorOf(await invoice({})).code).toBe("checkout_auth_required");
    expect(errorOf(await invoice({ watchId: UUID })).code).toBe("checkout_auth_required");
    expect(errorOf(await invoice({ checkoutKey: "ck_unknown", watchId: UUID, watchToken: "nope" })).code).toBe("checkout_auth_required");
    // Each set alone gets past that check, to the key's or the watch's own refusal.
    expect(errorOf(await invoice({ checkoutKey: "ck_unknown" })).code).toBe("invalid_checkout_key");
    expect(errorOf(await invoice({ watchId: UUID, watchToken: "nope" })).code).toBe("invalid_watch_token");

    const edit = errorOf((await client.callTool({ name: "service_board_edit", arguments: { board: "bounties", id: UUID, ownerToken: "nope" } })) as CallToolResult);
    expect(edit.code).toBe("invalid_input");
    expect(JSON.stringify(edit.details)).toContain("give at least one of title, body, handle, url, contact, tags");
  });

  it("the CSV tools say they return CSV text and name its columns", () => {
    for (const [name, columns] of [
      ["service_feeds_fee_history_csv", FEE_HISTORY_COLUMNS],
      ["service_feeds_builder_bids_csv", BUILDER_BIDS_COLUMNS],
    ] as const) {
      const tool = tools.get(name)!;
      expect(tool.outputSchema, name).toBeUndefined();
      expect(tool.description, name).toContain("Returns CSV text (text/csv) as the result's text content");
      expect(tool.description, name).toContain(`columns: ${columns.join(", ")}`);
    }
  });

  it("service_flashloan_providers takes {max_fee_bps: 0, multi_asset: true} as a JSON number and boolean and filters by them, as HTTP does with the query string", async () => {
    const all = (await client.callTool({ name: "service_flashloan_providers", arguments: {} })) as CallToolResult;
    expect(all.isError).toBeFalsy();
    const r = (await client.callTool({ name: "service_flashloan_providers", arguments: { max_fee_bps: 0, multi_asset: true } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const answer = r.structuredContent as { count: number; providers: { id: string; fee_bps: number | null; multi_asset: boolean }[] };
    expect(answer.count).toBeGreaterThan(0);
    expect(answer.count).toBeLessThan((all.structuredContent as { count: number }).count);
    for (const p of answer.providers) {
      expect(p.multi_asset, p.id).toBe(true);
      // A fee that could not be read (null) is not known to exceed the bound, so it stays (docs/ethereum.md).
      if (p.fee_bps !== null) expect(p.fee_bps, p.id).toBeLessThanOrEqual(0);
    }
    const ids = answer.providers.map((p) => p.id);
    expect(ids).not.toContain("uniswap-v3"); // multi-asset, 1 bp: out by the fee
    expect(ids).not.toContain("morpho-blue"); // free, one asset: out by multi_asset
    // HTTP spells the same values in the query string and gets the same providers.
    const http = await fetch(`${t.url}/v1/flashloan/providers?max_fee_bps=0&multi_asset=true`);
    expect(http.status).toBe(200);
    expect(((await http.json()) as typeof answer).providers.map((p) => p.id)).toEqual(ids);
    // Wrong types and bounds are refused with the field named.
    for (const bad of [{ max_fee_bps: "cheap" }, { max_fee_bps: -1 }, { max_fee_bps: 10_001 }, { multi_asset: "yes" }, { multi_asset: 1 }]) {
      const e = errorOf((await client.callTool({ name: "service_flashloan_providers", arguments: bad })) as CallToolResult);
      expect(e.code, JSON.stringify(bad)).toBe("invalid_input");
      expect(e.details?.issues?.[0]?.path, JSON.stringify(bad)).toBe(Object.keys(bad)[0]);
    }
  });

  it("service_feeds_zec_ironwood_history takes JSON integers", async () => {
    const r = (await client.callTool({ name: "service_feeds_zec_ironwood_history", arguments: { window_ms: 3_600_000, max_points: 10 } })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ window_ms: 3_600_000, max_points: 10 });
    expect(errorOf((await client.callTool({ name: "service_feeds_zec_ironwood_history", arguments: { max_points: 10.5 } })) as CallToolResult).code).toBe("invalid_input");
  });

  it("a call without watchToken is refused by schema validation (400 invalid_input naming the field), not by the operation (401)", async () => {
    for (const name of ["service_private_watch_status", "service_private_watch_cancel", "service_private_watch_test"]) {
      const r = (await client.callTool({ name, arguments: { id: UUID } })) as CallToolResult;
      const e = errorOf(r);
      expect(e.code, name).toBe("invalid_input");
      expect(r._meta?.["vigil/status"], name).toBe(400);
      expect(e.details?.issues, name).toEqual([{ path: "watchToken", message: "watchToken is required (over HTTP it is the x-watch-token header)" }]);
    }
    for (const [name, args] of [
      ["service_checkout_invoice_list", { watchId: UUID }],
      ["service_checkout_invoice_cancel", { invoiceId: UUID }],
      ["service_checkout_key_revoke", { keyId: UUID }],
    ] as const) {
      expect(errorOf((await client.callTool({ name, arguments: args })) as CallToolResult).code, name).toBe("invalid_input");
    }
    // With a token the operation runs: a token that matches no watch is its 401.
    const wrong = errorOf((await client.callTool({ name: "service_private_watch_status", arguments: { id: UUID, watchToken: "nope" } })) as CallToolResult);
    expect(wrong.code).toBe("invalid_watch_token");
    // Over HTTP the header stays optional in the schema: no header is the route's 401, as before.
    const http = await fetch(`${t.url}/v1/private/watch/${UUID}`);
    expect(http.status).toBe(401);
  });
});
