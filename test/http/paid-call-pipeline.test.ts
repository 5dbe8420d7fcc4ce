/**
 * One pipeline, two transports (src/http/pipeline.ts): the same calls made
 * over HTTP and over MCP (the official SDK client against the app's /mcp)
 * get the same answer, the same refusal, the same terms and, paid with a
 * devnet authorisation, the same paid answer. What each transport adds is
 * its own and left out of the comparison: the 402's resource URL and the
 * form of its bazaar declaration, and the wording of `invalid_input` ("The
 * request input is invalid." / "The tool arguments are invalid.").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ServiceError } from "../../src/core/errors.js";
import { defineRoute } from "../../src/http/route-table.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { DEVNET_MNEMONIC } from "../../devnet/evm.js";
import { createPayer, type Payer } from "../../src/x402/payer.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";

const PRICE = 10_000n;
const PHRASE12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

const free = defineRoute({
  method: "POST",
  path: "/v1/test/pipe-free",
  operationId: "testPipeFree",
  summary: "free test work with a precheck",
  input: z.object({ word: z.string().min(1), times: z.number().int().min(1).max(3).default(1) }),
  output: z.object({ words: z.array(z.string()) }),
  mcpTool: "test_pipe_free",
  precheck: async (input) => {
    if (input.word === "refused") throw new ServiceError("invalid_address", "The precheck refuses this word.", { word: input.word });
  },
  handler: async (input) => ({ words: Array.from({ length: input.times }, () => input.word) }),
});
const paid = defineRoute({
  method: "POST",
  path: "/v1/test/pipe-paid",
  operationId: "testPipePaid",
  summary: "paid test work that names its payment",
  input: z.object({ tag: z.string().default("none") }),
  output: z.object({ tag: z.string(), payer: z.string(), amountAtomic: z.string() }),
  price: PRICE,
  readOnly: true,
  mcpTool: "test_pipe_paid",
  handler: async (input, ctx) => ({ tag: input.tag, payer: ctx.payment!.payer, amountAtomic: ctx.payment!.amountAtomic.toString() }),
});
const priced = defineRoute({
  method: "POST",
  path: "/v1/test/pipe-priced",
  operationId: "testPipePriced",
  summary: "paid test work priced by its input",
  input: z.object({ units: z.number().int().min(1).max(5) }),
  output: z.object({ units: z.number() }),
  price: (input) => BigInt(input.units) * PRICE,
  priceRange: { min: PRICE, max: 5n * PRICE },
  readOnly: true,
  mcpTool: "test_pipe_priced",
  handler: async (input) => ({ units: input.units }),
});
const limited = defineRoute({
  method: "POST",
  path: "/v1/test/pipe-limited",
  operationId: "testPipeLimited",
  summary: "free test work with a route limit",
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  rateLimit: { points: 2, windowSeconds: 60 },
  mcpTool: "test_pipe_limited",
  handler: async () => ({ ok: true }),
});

/** The same call on both transports: an HTTP request and a tool call with the same input. */
interface Fixture {
  http: { method: "GET" | "POST"; path: string; body?: Record<string, unknown> };
  tool: string;
  args: Record<string, unknown>;
}

/** What a caller learns from one call, in the terms both transports share. */
type Answer =
  | { kind: "answer"; body: unknown; settled: boolean | undefined }
  | { kind: "error"; status: number; code: string; message: string | undefined; details: unknown }
  | { kind: "402"; error: string | undefined; accepts: unknown; description: string | undefined; mimeType: string | undefined; extensions: string[]; settled: boolean | undefined };

type ErrorEnvelope = { error: { code: string; message: string; details?: unknown } };

function refusal(status: number, e: ErrorEnvelope["error"]): Answer {
  // The wording of invalid_input names the transport; its issues are compared.
  return { kind: "error", status, code: e.code, message: e.code === "invalid_input" ? undefined : e.message, details: e.details };
}

function terms(p: PaymentRequired, settled: boolean | undefined): Answer {
  // The resource URL and the bazaar declaration's form are the transport's own; which extensions are declared is not.
  const { error, accepts, resource, extensions } = p;
  return { kind: "402", error, accepts, description: resource.description, mimeType: resource.mimeType, extensions: Object.keys(extensions ?? {}).sort(), settled };
}

describe("one call pipeline over HTTP and MCP", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;
  let client: Client;
  let payer: Payer;

  async function overHttp(f: Fixture, paymentHeader?: string): Promise<Answer> {
    const res = await fetch(`${t.url}${f.http.path}`, {
      method: f.http.method,
      headers: { "content-type": "application/json", ...(paymentHeader ? { "PAYMENT-SIGNATURE": paymentHeader } : {}) },
      ...(f.http.body ? { body: JSON.stringify(f.http.body) } : {}),
    });
    const body = await res.json();
    const response = res.headers.get("payment-response");
    const settled = response ? decodePaymentResponseHeader(response).success : undefined;
    if (res.status === 402) return terms(body as PaymentRequired, settled);
    if (res.status >= 400) return refusal(res.status, (body as ErrorEnvelope).error);
    return { kind: "answer", body, settled };
  }

  async function overMcp(f: Fixture, payment?: unknown): Promise<Answer> {
    const r = (await client.callTool({ name: f.tool, arguments: f.args, ...(payment ? { _meta: { "x402/payment": payment } } : {}) })) as CallToolResult;
    const settled = (r._meta?.["x402/payment-response"] as { success?: boolean } | undefined)?.success;
    const status = r._meta?.["vigil/status"] as number | undefined;
    if (status === 402) return terms(r.structuredContent as unknown as PaymentRequired, settled);
    if (r.isError) return refusal(status!, (JSON.parse((r.content[0] as { text: string }).text) as ErrorEnvelope).error);
    return { kind: "answer", body: r.structuredContent, settled };
  }

  /** Calls a fixture both ways and expects one answer; returns it. */
  async function agree(f: Fixture): Promise<Answer> {
    const http = await overHttp(f);
    expect(await overMcp(f), `${f.tool} over MCP answers as ${f.http.method} ${f.http.path}`).toEqual(http);
    return http;
  }

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: "600" }, { devnet, extraRoutes: [free, paid, priced, limited] });
    payer = createPayer(keyAt(3), { networks: ["eip155:84532"] });
    client = new Client({ name: "vigil-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await devnet?.close();
  });

  it("answers free routes alike", async () => {
    const fixtures: Fixture[] = [
      { http: { method: "GET", path: "/v1/paywall" }, tool: "service_paywall_info", args: {} },
      { http: { method: "GET", path: "/v1/private/info" }, tool: "service_private_watch_info", args: {} },
      {
        http: { method: "POST", path: "/v1/private/derive-viewkey", body: { chain: "zcash", seed: PHRASE12, network: "testnet" } },
        tool: "service_private_watch_derive_viewkey",
        args: { chain: "zcash", seed: PHRASE12, network: "testnet" },
      },
      { http: { method: "POST", path: "/v1/test/pipe-free", body: { word: "same", times: 2 } }, tool: "test_pipe_free", args: { word: "same", times: 2 } },
    ];
    for (const f of fixtures) expect((await agree(f)).kind, f.tool).toBe("answer");
    expect(await overHttp(fixtures[3]!)).toEqual({ kind: "answer", body: { words: ["same", "same"] }, settled: undefined });
  });

  it("refuses alike: bad input, a precheck, a paid route's precheck before any payment", async () => {
    const invalid = await agree({ http: { method: "POST", path: "/v1/test/pipe-free", body: { word: "", times: 9 } }, tool: "test_pipe_free", args: { word: "", times: 9 } });
    expect(invalid).toMatchObject({ status: 400, code: "invalid_input", details: { issues: [{ path: "word" }, { path: "times" }] } });
    const prechecked = await agree({ http: { method: "POST", path: "/v1/test/pipe-free", body: { word: "refused" } }, tool: "test_pipe_free", args: { word: "refused" } });
    expect(prechecked).toEqual({ kind: "error", status: 400, code: "invalid_address", message: "The precheck refuses this word.", details: { word: "refused" } });
    const watch = { chain: "monero", address: "x", viewKey: "y", webhookUrl: "https://example.com/h" };
    const paidPrecheck = await agree({ http: { method: "POST", path: "/v1/private/watch", body: watch }, tool: "service_private_watch_create", args: watch });
    expect(paidPrecheck).toMatchObject({ kind: "error", status: 400, code: "invalid_address" });
    const paidInvalid = await agree({ http: { method: "POST", path: "/v1/test/pipe-priced", body: { units: 9 } }, tool: "test_pipe_priced", args: { units: 9 } });
    expect(paidInvalid).toMatchObject({ status: 400, code: "invalid_input" });
  });

  it("enforces a route's own limit on both transports and refuses past it alike", async () => {
    const f: Fixture = { http: { method: "POST", path: "/v1/test/pipe-limited", body: {} }, tool: "test_pipe_limited", args: {} };
    // Up to the limit on each transport: the two count together only where the limiters' store is shared (PostgreSQL).
    expect(await overHttp(f)).toMatchObject({ kind: "answer" });
    expect(await overHttp(f)).toMatchObject({ kind: "answer" });
    for (let i = 0; i < 2; i++) await overMcp(f);
    expect(await agree(f)).toMatchObject({ kind: "error", status: 429, code: "rate_limited", details: { limit: 2, window_seconds: 60 } });
  });

  it("quotes the same terms to an unpaid call, the probe included, and refuses a garbage payment alike", async () => {
    const probe = await agree({ http: { method: "POST", path: "/v1/test/pipe-paid" }, tool: "test_pipe_paid", args: {} });
    // exact, then batch-settlement (the devnet offers payment channels), at the same price.
    expect(probe).toMatchObject({
      kind: "402",
      error: "payment_required",
      accepts: [
        { scheme: "exact", amount: PRICE.toString(), network: "eip155:84532" },
        { scheme: "batch-settlement", amount: PRICE.toString(), network: "eip155:84532" },
      ],
      extensions: expect.arrayContaining(["bazaar"]),
    });
    const quoted = await agree({ http: { method: "POST", path: "/v1/test/pipe-priced", body: { units: 3 } }, tool: "test_pipe_priced", args: { units: 3 } });
    expect(quoted).toMatchObject({ kind: "402", error: "payment_required", accepts: [{ amount: (3n * PRICE).toString() }, { amount: (3n * PRICE).toString() }] });

    const garbage = { hello: 1 };
    const f: Fixture = { http: { method: "POST", path: "/v1/test/pipe-paid", body: { tag: "g" } }, tool: "test_pipe_paid", args: { tag: "g" } };
    const http = await overHttp(f, encodePaymentSignatureHeader(garbage as unknown as PaymentPayload));
    expect(http).toMatchObject({ kind: "402", error: "invalid_payment_payload" });
    expect(await overMcp(f, garbage)).toEqual(http);
  });

  it("the one difference, HTTP's probe: a paid route called with nothing gets the 402 over HTTP, the 400 over MCP", async () => {
    const http = await overHttp({ http: { method: "POST", path: "/v1/test/pipe-priced" }, tool: "test_pipe_priced", args: {} });
    expect(http).toMatchObject({ kind: "402", error: "payment_required", accepts: [{ amount: PRICE.toString() }, { amount: PRICE.toString() }] });
    const mcp = await overMcp({ http: { method: "POST", path: "/v1/test/pipe-priced" }, tool: "test_pipe_priced", args: {} });
    expect(mcp).toMatchObject({ kind: "error", status: 400, code: "invalid_input" });
  });

  it("serves the same paid answer to the devnet payer on both transports, settled", async () => {
    const f: Fixture = { http: { method: "POST", path: "/v1/test/pipe-paid", body: { tag: "both" } }, tool: "test_pipe_paid", args: { tag: "both" } };
    const httpTerms = (await (await fetch(`${t.url}${f.http.path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(f.http.body) })).json()) as PaymentRequired;
    const mcpTerms = (await client.callTool({ name: f.tool, arguments: f.args })).structuredContent as unknown as PaymentRequired;
    const overHttpPaid = await overHttp(f, (await payer.signFor(httpTerms)).header);
    const overMcpPaid = await overMcp(f, (await payer.signFor(mcpTerms)).payload);
    expect(overHttpPaid).toEqual({ kind: "answer", body: { tag: "both", payer: payer.address.toLowerCase(), amountAtomic: PRICE.toString() }, settled: true });
    expect(overMcpPaid).toEqual(overHttpPaid);
  });
});
