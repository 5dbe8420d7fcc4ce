/**
 * The MCP server with the official SDK client, over Streamable HTTP (/mcp of
 * the running API) and over stdio (`vigil mcp --url`, a child process relaying
 * to that API), against the whole devnet stack: the same tools, schemas,
 * payments and errors on both transports.
 */
import { validateDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { indexLendingOnce } from "../../src/ingest/lending-indexer.js";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired } from "@x402/core/types";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { mcpTools, toolInput } from "../../src/http/mcp-tools.js";
import { jsonSchemaOf } from "../../src/http/openapi.js";
import { httpRoutes, isToolOnly } from "../../src/http/route-table.js";
import { PaymentRequiredSchema } from "../../src/mcp/tools.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { VIGIL_CLI } from "../helpers/process.js";

const root = path.resolve(import.meta.dirname, "..", "..");
const PHRASE12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

let s: WatchStack;

/** A tool's input schema without the "Give exactly/at least one of: …." sentences its either/or fields carry. */
function withoutAlternativeNotes(schema: Tool["inputSchema"]): Tool["inputSchema"] {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, p]) => {
      const { description, ...rest } = p as { description?: string };
      const left = description?.replace(/ ?Give (exactly|at least) one of: [^.]*\./, "");
      return [name, left ? { description: left, ...rest } : rest];
    }),
  );
  return schema.properties ? { ...schema, properties } : schema;
}

beforeAll(async () => {
  s = await startWatchStack({ env: { MCP_Q_PER_MINUTE: "1000", RATE_LIMIT_PER_MINUTE: "600" } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

type Transport = { name: string; connect(): Promise<Client> };

const transports: Transport[] = [
  {
    name: "Streamable HTTP",
    connect: async () => {
      const client = new Client({ name: "vigil-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)));
      return client;
    },
  },
  {
    name: "stdio (vigil mcp --url)",
    connect: async () => {
      const client = new Client({ name: "vigil-test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [...VIGIL_CLI, "mcp", "--url", s.url],
          cwd: root,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn" },
          stderr: "pipe",
        }),
      );
      return client;
    },
  },
];

const errorOf = (r: CallToolResult): { code: string; message: string; details?: Record<string, unknown> } => {
  expect(r.isError).toBe(true);
  const first = r.content[0];
  if (first?.type !== "text") throw new Error("no text content");
  return (JSON.parse(first.text) as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
};

const call = (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;

describe.each(transports)("MCP over $name", (transport) => {
  let client: Client;
  let tools: Tool[];
  beforeAll(async () => {
    client = await transport.connect();
    tools = (await client.listTools()).tools;
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("lists every tool of the table, with the REST input and output schemas", () => {
    const table = s.t.app.table;
    expect(tools.map((t) => t.name).sort()).toEqual(mcpTools(table).map((t) => t.name).sort());
    for (const tool of tools) {
      const entry = table.find((e) => e.mcpTool === tool.name)!;
      // The route's input, with header-borne credentials required and either/or rules written into the fields they name (tool-inputs.test.ts).
      expect(withoutAlternativeNotes(tool.inputSchema), tool.name).toEqual(jsonSchemaOf(toolInput(entry), "input"));
      const rest = jsonSchemaOf(entry.output, "output");
      const paid = !isToolOnly(entry) && entry.price !== undefined && !entry.mcpFree;
      if (!isToolOnly(entry) && (entry.mimeType ?? "application/json") !== "application/json") {
        // A text answer (CSV) is the tool's text content: no structured output to describe.
        expect(tool.outputSchema, tool.name).toBeUndefined();
      } else if (paid) {
        // Paid: the REST answer, or the x402 terms of an unpaid call.
        expect(tool.outputSchema, tool.name).toEqual({ type: "object", anyOf: [rest, jsonSchemaOf(PaymentRequiredSchema, "output")] });
      } else if (rest.type === "object") {
        expect(tool.outputSchema, tool.name).toEqual(rest);
      } else {
        expect(tool.outputSchema, tool.name).toEqual({ type: "object", ...rest });
      }
      expect(tool.description, tool.name).toMatch(paid ? /Costs \$\d+\.\d+(-\$\d+\.\d+)? in USDC/ : /Free/);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(isToolOnly(entry) || entry.method === "GET" || Boolean(entry.readOnly));
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("service_private_watch_cancel")!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.get("service_private_watch_create")!.description).toContain("REST: POST /v1/private/watch");
    // The stack's devnet offers channels: paid tools name both schemes, on both transports (test/http/payment-schemes.test.ts: without).
    expect(s.t.app.paywall.terms?.channel).toBeDefined();
    expect(byName.get("service_private_watch_create")!.description).toContain("(x402, exact or batch-settlement scheme)");
    expect(byName.get("service_private_watch_create")!.description).toContain("batch-settlement for repeated calls");
    expect(byName.get("service_private_watch_status")!.description).toContain("watchToken");
  });

  it("the tool schemas are the OpenAPI schemas of the same routes", async () => {
    const doc = (await (await fetch(`${s.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { "x-mcp-tool"?: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    };
    let compared = 0;
    for (const [, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        const tool = tools.find((t) => t.name === op["x-mcp-tool"]);
        if (!tool) continue;
        const ok = op.responses["200"] ?? op.responses["201"];
        const schema = ok?.content?.["application/json"]?.schema;
        // Text answers (CSV) publish no output schema, as OpenAPI has no JSON schema for them.
        const published = tool.outputSchema === undefined ? undefined : ((tool.outputSchema as { anyOf?: unknown[] }).anyOf?.[0] ?? tool.outputSchema);
        expect(published, tool.name).toEqual(schema);
        compared++;
      }
    }
    expect(compared).toBe(httpRoutes(s.t.app.table).filter((r) => r.mcpTool).length);
  });

  it("answers each free tool as its REST endpoint does", async () => {
    for (const [name, restPath] of [
      ["service_paywall_info", "/v1/paywall"],
      ["service_private_watch_info", "/v1/private/info"],
    ] as const) {
      const r = await call(client, name);
      expect(r.isError, name).toBeFalsy();
      expect(r.structuredContent, name).toEqual((await s.call("GET", restPath)).json);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
    }
    const health = await call(client, "service_health");
    expect(health.isError).toBeFalsy();
    const restHealth = (await s.call("GET", "/v1/health")).json;
    expect(health.structuredContent).toMatchObject({ status: restHealth.status, version: restHealth.version, upstreams: restHealth.upstreams });

    const derived = await call(client, "service_private_watch_derive_viewkey", { chain: "zcash", seed: PHRASE12, network: "testnet" });
    expect(derived.isError).toBeFalsy();
    const rest = await s.call("POST", "/v1/private/derive-viewkey", { body: { chain: "zcash", seed: PHRASE12, network: "testnet" } });
    expect(rest.status).toBe(200);
    expect(derived.structuredContent).toEqual(rest.json);
  });

  it("answers service_q for every catalogued question, free, with the paid route's answer shape", async () => {
    const catalogue = (await s.call("GET", "/v1/q")).json as {
      questions: { question: string; path: string; implemented: boolean; params: { name: string; required: boolean; allowed?: string[]; default?: string }[] }[];
    };
    expect(catalogue.questions.length).toBeGreaterThan(0);
    // The Ethereum answers stand on stored headers: let the follower catch up first.
    await s.followEthereum();
    // The builder answers stand on ingested relay data: let the relay poller catch up too.
    await s.pollRelays();
    // The lending answers stand on the lending indexer's data.
    while ((await indexLendingOnce(s.t.app.lending)).more);
    // A valid value for each required free-form parameter (enumerations take their first allowed value).
    const EXAMPLES: Record<string, string> = { asset: "USDC", builder: "Titan", addr: "0x00000000000000000000000000000000000a11ce" };
    // A question of the contract not implemented here is listed but has no route (catalogue-completeness.test.ts).
    for (const q of catalogue.questions.filter((x) => x.implemented)) {
      const params: Record<string, string> = {};
      for (const p of q.params) if (p.required) params[p.name] = p.allowed?.[0] ?? p.default ?? EXAMPLES[p.name] ?? "";
      const r = await call(client, "service_q", { question: q.question, params });
      expect(r.isError, q.question).toBeFalsy();
      const route = httpRoutes(s.t.app.table).find((x) => x.path === q.path)!;
      expect(route.output.safeParse(r.structuredContent).success, q.question).toBe(true);
    }
  });

  it("answers a bad question with the list of valid ones, and bad parameters with invalid_input", async () => {
    const catalogue = (await s.call("GET", "/v1/q")).json as { questions: { question: string; implemented: boolean }[] };
    const e = errorOf(await call(client, "service_q", { question: "xmr/what-is-the-price" }));
    expect(e.code).toBe("unknown_question");
    // The catalogue lists in the contract's order, the error in declaration order: the same set.
    expect([...(e.details?.valid_questions as string[])].sort()).toEqual(catalogue.questions.filter((q) => q.implemented).map((q) => q.question).sort());
    const bad = errorOf(await call(client, "service_q", { question: "xmr/height", params: { window: "1h" } }));
    expect(bad.code).toBe("invalid_input");
    const missing = errorOf(await call(client, "service_q", {}));
    expect(missing).toMatchObject({ code: "invalid_input", details: { issues: [expect.objectContaining({ path: "question" })] } });
  });

  it("ignores argument names a tool does not read, as HTTP does, and lists them in _meta; a known name with a bad value is still refused", async () => {
    const ok = await call(client, "service_q", { question: "xmr/height", colour: "blue", Question: "x" });
    expect(ok.isError).toBeFalsy();
    expect(ok._meta?.["vigil/ignored_input"]).toEqual(["Question", "colour"]);
    // An unpaid call of a paid tool: the terms, with the dropped names listed too.
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const unpaid = await call(client, "service_private_watch_create", { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/ignored"), webhookURL: "x" });
    expect(unpaid._meta?.["vigil/status"]).toBe(402);
    expect(unpaid._meta?.["vigil/ignored_input"]).toEqual(["webhookURL"]);
    const bad = await call(client, "service_q", { question: 42, extra: true });
    expect(errorOf(bad).code).toBe("invalid_input");
    expect(bad._meta?.["vigil/ignored_input"]).toEqual(["extra"]);
  });

  it("creates, tests and cancels a watch entirely over MCP, paying with a devnet authorisation; the same authorisation replayed over MCP and HTTP gets the stored answer and creates nothing", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const args = { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl(`/mcp-${transport.name.length}`) };

    // Unpaid: the x402 terms as the tool result (structured content, isError), not a schema error.
    const unpaid = await call(client, "service_private_watch_create", args);
    expect(unpaid.isError).toBe(true);
    const terms = PaymentRequiredSchema.parse(unpaid.structuredContent) as PaymentRequired;
    expect(terms).toMatchObject({ x402Version: 2, error: "payment_required", resource: { url: "mcp://tool/service_private_watch_create" } });
    expect(terms.accepts[0]).toMatchObject({ amount: "100000", network: "eip155:84532" });
    expect(unpaid._meta?.["vigil/rest"]).toEqual({ method: "POST", url: `${s.url}/v1/private/watch` });
    // The bazaar extension in its MCP form, valid by the official validator.
    const bazaar = terms.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: "mcp", toolName: "service_private_watch_create", transport: "streamable-http" });
    const watchesBefore = await s.t.db.db.selectFrom("watches").select("id").execute();

    const signed = await s.payer.signFor(terms);
    const paid = await call(client, "service_private_watch_create", args, { "x402/payment": signed.payload });
    expect(paid.isError).toBeFalsy();
    const created = paid.structuredContent as { watchId: string; watchToken: string; webhookSecret: string };
    expect(created).toMatchObject({ watchId: expect.any(String), watchToken: expect.any(String), webhookSecret: expect.any(String) });
    expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true, network: "eip155:84532" });
    s.receiver.registerSecret(created.watchId, created.webhookSecret);
    expect((await s.t.db.db.selectFrom("watches").select("id").execute()).length).toBe(watchesBefore.length + 1);

    // The same authorisation for the same request again: the stored answer over MCP and over HTTP, and nothing is created.
    const replay = await call(client, "service_private_watch_create", args, { "x402/payment": signed.payload });
    expect(replay.isError).toBeFalsy();
    expect(replay.structuredContent).toEqual(paid.structuredContent);
    const http = await fetch(`${s.url}/v1/private/watch`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body: JSON.stringify(args),
    });
    expect(http.status).toBe(200);
    expect(await http.json()).toEqual(paid.structuredContent);
    // For another request the authorisation is spent.
    const other = await fetch(`${s.url}/v1/private/watch`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body: JSON.stringify({ ...args, webhookUrl: s.receiver.hookUrl("/mcp-other") }),
    });
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get("payment-required")!).error).toBe("authorization_already_used");
    expect((await s.t.db.db.selectFrom("watches").select("id").execute()).length).toBe(watchesBefore.length + 1);

    const auth = { id: created.watchId, watchToken: created.watchToken };
    const status = await call(client, "service_private_watch_status", auth);
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ watchId: created.watchId, status: "active" });

    const wrong = errorOf(await call(client, "service_private_watch_status", { ...auth, watchToken: "nope" }));
    expect(wrong.code).toBe("invalid_watch_token");

    const tested = await call(client, "service_private_watch_test", auth);
    expect(tested.isError).toBeFalsy();
    const t = tested.structuredContent as { nonce: string };
    expect(tested.structuredContent).toMatchObject({ watchId: created.watchId, event: "synthetic_test", delivered: true });
    expect(s.receiver.accepted.get(t.nonce)?.signatureValid).toBe(true);

    const cancelled = await call(client, "service_private_watch_cancel", auth);
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ watchId: created.watchId, status: "cancelled" });
    // A cancelled watch answers as an unknown one.
    expect(errorOf(await call(client, "service_private_watch_status", auth)).code).toBe("invalid_watch_token");
  });

  it("answers over MCP an authorisation already settled over HTTP (a top-up) with the stored answer, credited once", async () => {
    const bob = s.wallets.find((w) => w.label === "bob")!;
    const created = await s.paid("/v1/private/watch", { chain: "monero", address: bob.address, viewKey: bob.viewKey!, webhookUrl: s.receiver.hookUrl("/mcp-topup") });
    expect(created.status).toBe(200);
    const body = { watchId: created.json.watchId, watchToken: created.json.watchToken };
    const probe = await s.call("POST", "/v1/private/topup", { body });
    expect(probe.status).toBe(402);
    const signed = await s.payer.signFor(decodePaymentRequiredHeader(probe.headers.get("payment-required")!));
    const http = await fetch(`${s.url}/v1/private/topup`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body: JSON.stringify(body),
    });
    expect(http.status).toBe(200);
    const credit = (await http.json()) as { creditAtomic: string };

    // As a payload object, and as the base64 header string: the stored answer of the HTTP top-up, credited once.
    for (const payment of [signed.payload, signed.header]) {
      const replay = await call(client, "service_private_watch_topup", body, { "x402/payment": payment });
      expect(replay.isError).toBeFalsy();
      expect(replay.structuredContent).toEqual(credit);
    }
    // Credited once: what the HTTP top-up answered is still the balance.
    const status = await call(client, "service_private_watch_status", { id: body.watchId, watchToken: body.watchToken });
    expect((status.structuredContent as { credit: { remaining_atomic: string } }).credit.remaining_atomic).toBe(credit.creditAtomic);
  });

  it("answers a garbage payment with the terms and the reason, and a bad argument before any payment", async () => {
    const garbage = await call(client, "service_private_watch_create", { chain: "monero", address: "x", viewKey: "y", webhookUrl: "https://example.com/h" }, { "x402/payment": { hello: 1 } });
    // The address is refused first (precheck), before any payment is looked at.
    expect(errorOf(garbage).code).toBe("invalid_address");
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const args = { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/garbage") };
    const refused = await call(client, "service_private_watch_create", args, { "x402/payment": { hello: 1 } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ x402Version: 2, error: "invalid_payment_payload" });
    const unknown = errorOf(await call(client, "service_nope"));
    expect(unknown.code).toBe("not_found");
  });
});
