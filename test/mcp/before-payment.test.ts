/**
 * Issue 23, item 5, over MCP: bad input is refused before any payment is
 * asked for or taken, with the same error code as over HTTP
 * (test/watch/birthday-before-payment.test.ts and
 * test/oracle/builder-param-before-payment.test.ts are the HTTP versions).
 *
 * Through the official SDK client over Streamable HTTP against the devnet
 * stack: `service_private_watch_create` ($0.10) with a `birthdayHeight` far
 * above the Monero tip answers `invalid_height`, not the x402 terms; with a
 * valid payment attached it still does, and the payer's USDC, the payments
 * and the watches are unchanged; the same payment then buys a watch with a
 * valid birthday, so it was a payment the service would have taken.
 * `service_q` (free over MCP) refuses a `builder` that cannot name a builder
 * with `invalid_input` naming `builder`, as `GET /v1/q/builder-share` does,
 * without terms and without a payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired } from "@x402/core/types";
import { BIRTHDAY_MARGIN_BLOCKS } from "../../src/watch/service.js";
import { PaymentRequiredSchema } from "../../src/mcp/tools.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

type ToolError = { code: string; message: string; details?: Record<string, unknown> & { issues?: { path: string }[] } };

const errorOf = (r: CallToolResult): ToolError => {
  expect(r.isError, JSON.stringify(r.content)).toBe(true);
  const first = r.content[0];
  if (first?.type !== "text") throw new Error("no text content");
  return (JSON.parse(first.text) as { error: ToolError }).error;
};

describe("MCP refuses bad input before any payment, with the HTTP route's error code", () => {
  let s: WatchStack;
  let client: Client;
  const balance = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);
  const count = async (table: "payments" | "watches") =>
    Number((await s.t.db.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
  const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;

  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000", MCP_Q_PER_MINUTE: "1000" } });
    s.devnet.monerod.mine(3);
    await s.pollRelays();
    client = new Client({ name: "vigil-before-payment", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await s?.close();
  });

  const watchArgs = (birthdayHeight: number) => {
    const alice = s.wallet("alice");
    return { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/mcp-birthday"), birthdayHeight };
  };

  it("service_private_watch_create: birthdayHeight 99,999,999 is invalid_height without terms, and a paying client is charged nothing", async () => {
    const tip = s.devnet.monerod.height();
    const margin = BIRTHDAY_MARGIN_BLOCKS.monero;
    const http = await s.call("POST", "/v1/private/watch", { body: watchArgs(99_999_999) });
    expect(http.status).toBe(400);

    // Unpaid: the refusal, not the x402 terms.
    const unpaid = await call("service_private_watch_create", watchArgs(99_999_999));
    const refused = errorOf(unpaid);
    expect(refused.code).toBe(http.json.error.code);
    expect(refused.code).toBe("invalid_height");
    expect(refused.details).toEqual(http.json.error.details);
    expect(refused.details).toMatchObject({ birthday_height: 99_999_999, max_height: tip + margin, tip_height: tip });
    expect(unpaid._meta?.["vigil/status"]).toBe(400);
    expect(PaymentRequiredSchema.safeParse(unpaid.structuredContent).success).toBe(false);
    // One block past the margin is refused the same way; the margin itself gets the terms.
    expect(errorOf(await call("service_private_watch_create", watchArgs(tip + margin + 1))).code).toBe("invalid_height");
    const within = await call("service_private_watch_create", watchArgs(tip + margin));
    expect(within.isError).toBe(true);
    const terms = PaymentRequiredSchema.parse(within.structuredContent) as PaymentRequired;
    expect(terms).toMatchObject({ x402Version: 2, error: "payment_required" });
    expect(terms.accepts[0]).toMatchObject({ amount: "100000" });

    // Paying: the same refusal, no settlement, nothing charged, nothing made.
    const signed = await s.payer.signFor(terms);
    const [usdc, payments, watches] = [balance(), await count("payments"), await count("watches")];
    const paying = await call("service_private_watch_create", watchArgs(99_999_999), { "x402/payment": signed.payload });
    expect(errorOf(paying).code).toBe("invalid_height");
    expect(paying._meta?.["x402/payment-response"]).toBeUndefined();
    expect(balance()).toBe(usdc);
    expect(await count("payments")).toBe(payments);
    expect(await count("watches")).toBe(watches);

    // The payment was good: it buys the watch with a birthday at the tip.
    const bought = await call("service_private_watch_create", watchArgs(tip), { "x402/payment": signed.payload });
    expect(bought.isError, JSON.stringify(bought.content)).toBeFalsy();
    expect(bought._meta?.["x402/payment-response"]).toMatchObject({ success: true });
    expect(balance()).toBe(usdc - 100_000n);
    expect(await count("payments")).toBe(payments + 1);
    expect(await count("watches")).toBe(watches + 1);
  });

  it("service_q: a builder that cannot name a builder is invalid_input naming `builder`, as GET /v1/q/builder-share answers, and asks no payment", async () => {
    const payments = await count("payments");
    for (const [question, extra] of [
      ["builder-share", {}],
      ["builder-bid", { pct: "90" }],
    ] as const) {
      for (const builder of ["Titan\u0000", "\u001b[31mTitan", "x".repeat(200), "<script>alert(1)</script>"]) {
        const label = `${question} ${JSON.stringify(builder)}`;
        const http = await s.call("GET", `/v1/q/${question}?${new URLSearchParams({ ...extra, builder })}`);
        expect(http.status, label).toBe(400);
        expect(http.headers.get("payment-required"), label).toBeNull();
        const r = await call("service_q", { question, params: { ...extra, builder } });
        const e = errorOf(r);
        expect(e.code, label).toBe(http.json.error.code);
        expect(e.code, label).toBe("invalid_input");
        expect(e.details?.issues?.map((i) => i.path), label).toContain("builder");
        expect(r._meta?.["vigil/status"], label).toBe(400);
        expect(PaymentRequiredSchema.safeParse(r.structuredContent).success, label).toBe(false);
      }
      // A real builder name is answered (free over MCP; over HTTP it reaches the 402).
      const good = await call("service_q", { question, params: { ...extra, builder: "Titan" } });
      expect(good.isError, JSON.stringify(good.content)).toBeFalsy();
      expect(good.structuredContent).toMatchObject({ as_of_ms: expect.any(Number) });
      expect((await s.call("GET", `/v1/q/${question}?${new URLSearchParams({ ...extra, builder: "Titan" })}`)).status).toBe(402);
    }
    expect(await count("payments")).toBe(payments);
  });
});
