/**
 * A paid tool whose settlement fails after its work ran: over MCP, as over
 * HTTP, the answer is withheld (or the work rolled back) and the caller gets
 * the payment terms with the failure, never free paid work. The payer empties
 * its USDC balance while the work runs, on the devnet chain, so the local
 * facilitator's settle really fails.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sql } from "kysely";
import { bytesToHex, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { authorizationTypes } from "@x402/evm";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defineRoute } from "../../src/http/route-table.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { DEVNET_MNEMONIC } from "../../devnet/evm.js";
import { createPayer } from "../../src/x402/payer.js";
import { createLocalFacilitator } from "../../src/x402/local-facilitator.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";

const PRICE = 10_000n;
const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

describe("settlement failure over MCP", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;
  let client: Client;
  let drain: (payerKey: Hex) => Promise<void>;

  const read = defineRoute({
    method: "POST",
    path: "/v1/test/mcp-read",
    operationId: "testMcpRead",
    summary: "paid read-only test work",
    input: z.object({ drainWith: z.string().optional() }),
    output: z.object({ secret: z.string() }),
    price: PRICE,
    readOnly: true,
    mcpTool: "test_paid_read",
    handler: async (input) => {
      if (input.drainWith) await drain(input.drainWith as Hex);
      return { secret: "the paid answer" };
    },
  });
  const write = defineRoute({
    method: "POST",
    path: "/v1/test/mcp-write",
    operationId: "testMcpWrite",
    summary: "paid test work that writes a row",
    input: z.object({ tag: z.string(), drainWith: z.string().optional() }),
    output: z.object({ tag: z.string() }),
    price: PRICE,
    mcpTool: "test_paid_write",
    handler: async (input, ctx) => {
      await sql`INSERT INTO test_mcp_work (tag) VALUES (${input.tag})`.execute(ctx.db);
      if (input.drainWith) await drain(input.drainWith as Hex);
      return { tag: input.tag };
    },
  });

  const call = (name: string, args: Record<string, unknown>, payment?: PaymentPayload) =>
    client.callTool({ name, arguments: args, ...(payment ? { _meta: { "x402/payment": payment } } : {}) }) as Promise<CallToolResult>;
  const workRows = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_mcp_work`.execute(t.db.db)).rows[0]!.n);

  /** Pays `name` with `key`: the unpaid call's terms, signed, sent in _meta. */
  async function pay(name: string, args: Record<string, unknown>, key: Hex): Promise<CallToolResult> {
    const terms = (await call(name, args)).structuredContent as unknown as PaymentRequired;
    const payer = createPayer(key, { networks: ["eip155:84532"] });
    return call(name, args, (await payer.signFor(terms)).payload);
  }

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    t = await startTestApp({}, { devnet, extraRoutes: [read, write] });
    await sql`CREATE TABLE test_mcp_work (tag text NOT NULL)`.execute(t.db.db);
    const side = createLocalFacilitator({ rpcUrl: devnet.evmUrl, privateKey: keyAt(17), network: "eip155:84532" });
    const sink = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 16 }).address;
    drain = async (payerKey) => {
      // Another authorisation of the whole balance, settled first: the payer can no longer pay us.
      const account = privateKeyToAccount(payerKey);
      const balance = devnet.evm.usdcBalanceOf(account.address);
      const terms = (await call("test_paid_read", {})).structuredContent as unknown as PaymentRequired;
      const req: PaymentRequirements = { ...terms.accepts[0]!, amount: balance.toString(), payTo: sink };
      const authorization = {
        from: account.address,
        to: sink,
        value: balance.toString(),
        validAfter: "0",
        validBefore: String(Math.floor(Date.now() / 1000) + 120),
        nonce: bytesToHex(randomBytes(32)),
      };
      const signature = await account.signTypedData({
        domain: { name: String(req.extra.name), version: String(req.extra.version), chainId: 84532, verifyingContract: req.asset as Hex },
        types: authorizationTypes,
        primaryType: "TransferWithAuthorization",
        message: { ...authorization, value: balance, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
      });
      const s = await side.settle({ x402Version: 2, accepted: req, payload: { authorization, signature } } as PaymentPayload, req);
      if (!s.success) throw new Error(`drain failed: ${s.errorReason}`);
    };
    client = new Client({ name: "vigil-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    await client.listTools();
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await devnet?.close();
  });

  it("serves a read-only tool's answer when it settles, and withholds it when settlement fails", async () => {
    const ok = await pay("test_paid_read", {}, keyAt(3));
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual({ secret: "the paid answer" });

    const drained = keyAt(4);
    const failed = await pay("test_paid_read", { drainWith: drained }, drained);
    expect(failed.isError).toBe(true);
    expect((failed.structuredContent as { error: string }).error).toMatch(/^settlement_failed/);
    expect(failed._meta?.["x402/payment-response"]).toMatchObject({ success: false });
    expect(JSON.stringify(failed)).not.toContain("the paid answer");
  });

  it("rolls a writing tool's work back when settlement fails, and keeps it when it settles", async () => {
    const before = await workRows();
    const ok = await pay("test_paid_write", { tag: "settled" }, keyAt(5));
    expect(ok.structuredContent).toEqual({ tag: "settled" });
    expect(await workRows()).toBe(before + 1);

    const drained = keyAt(6);
    const failed = await pay("test_paid_write", { tag: "drained", drainWith: drained }, drained);
    expect(failed.isError).toBe(true);
    expect((failed.structuredContent as { error: string }).error).toMatch(/^settlement_failed/);
    expect(await workRows()).toBe(before + 1);
  });
});
