/**
 * Every surface that describes payment names the schemes the 402s offer, and
 * only those: an app on the devnet offers `batch-settlement` beside `exact`
 * (its overlay sets the receiver-authorizer key, the payment chain's RPC and a
 * facilitator that settles the scheme), and the same app with
 * BATCH_SETTLEMENT=off offers `exact` alone. GET /v1/paywall's deposit
 * figures are checked against the 402 a route really answers, so the
 * description cannot drift from the terms.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { PaywallInfo } from "../../src/http/meta-routes.js";
import { OpenApiDocument, SECURITY_SCHEME_NAMES } from "../../src/http/openapi.js";
import { startupBanner } from "../../src/banner.js";
import { minDepositFor } from "../../src/x402/channel-terms.js";

const getJson = async (url: string): Promise<unknown> => (await fetch(url)).json();
const getText = async (url: string): Promise<string> => (await fetch(url)).text();

/** Every text surface of a running app that describes how to pay. */
async function paymentTexts(t: TestApp): Promise<Record<string, string>> {
  const openapi = OpenApiDocument.parse(await getJson(`${t.url}/openapi.json`));
  const manifest = (await getJson(`${t.url}/.well-known/x402`)) as { instructions: string };
  const tool = t.app.mcp.tools.find((x) => x.tool.name === "service_private_watch_create")!;
  return {
    llms: await getText(`${t.url}/llms.txt`),
    openapiInfo: openapi.info.description,
    openapiSecurity: JSON.stringify(openapi.components.securitySchemes),
    wellKnown: manifest.instructions,
    mcpTool: tool.tool.description ?? "",
    banner: startupBanner({ role: "api", url: t.url, app: t.app }),
  };
}

describe("payment descriptions follow the offered schemes", () => {
  let devnet: SimulatedDevnet;
  let channels: TestApp;
  let exactOnly: TestApp;

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    channels = await startTestApp({}, { devnet });
    exactOnly = await startTestApp({ BATCH_SETTLEMENT: "off" }, { devnet });
  }, 120_000);
  afterAll(async () => {
    await channels?.close();
    await exactOnly?.close();
    await devnet?.close();
  });

  it("the devnet app offers channels; the BATCH_SETTLEMENT=off app does not", () => {
    expect(channels.app.paywall.terms?.channel).toBeDefined();
    expect(exactOnly.app.paywall.terms).not.toBeNull();
    expect(exactOnly.app.paywall.terms?.channel).toBeUndefined();
  });

  it("GET /v1/paywall with channels: both schemes, the channel's terms, the deposit policy and each fixed price's deposit", async () => {
    const body = PaywallInfo.parse(await getJson(`${channels.url}/v1/paywall`));
    const channel = channels.app.paywall.terms!.channel!;
    expect(body.scheme).toBe("exact");
    expect(body.schemes).toEqual(["exact", "batch-settlement"]);
    // The escrow and collector are x402's CREATE2 addresses (the same on every chain); the policy's figures, as docs/api.md states them.
    expect(body.batch_settlement).toMatchObject({
      escrow: "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003",
      deposit_collector: "0x4020806089470a89826cB9fB1f4059150b550004",
      receiverAuthorizer: channel.receiverAuthorizer,
      withdraw_delay_seconds: channel.withdrawDelaySeconds,
    });
    expect(body.batch_settlement!.deposit_policy).toMatchObject({ calls_per_deposit: 100, floor_atomic: "100000", floor_usd: "$0.10", ceiling_atomic: "5000000", ceiling_usd: "$5.00" });
    const how = body.batch_settlement!.how;
    for (const words of ["ERC-3009 ReceiveWithAuthorization", "Voucher(bytes32 channelId, uint128 maxClaimableAmount)", '"x402 Batch Settlement" version 1', "refunded", `${channel.withdrawDelaySeconds} s`]) {
      expect(how).toContain(words);
    }
    expect(body.batch_settlement!.deposit_policy.reason.length).toBeGreaterThan(40);
    for (const r of channels.app.routes.filter((x) => x.price !== undefined)) {
      const entry = body.routes.find((e) => e.endpoint === `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`)!;
      // A price function has no single deposit, as it has no single price_atomic.
      expect(entry.min_deposit_atomic, r.operationId).toBe(typeof r.price === "bigint" ? minDepositFor(r.price).toString() : undefined);
    }
  });

  it("a route's min_deposit_atomic and the channel terms are what its 402 asks for", async () => {
    const body = PaywallInfo.parse(await getJson(`${channels.url}/v1/paywall`));
    const r = await fetch(`${channels.url}/v1/q/xmr/height`);
    expect(r.status).toBe(402);
    const pr = decodePaymentRequiredHeader(r.headers.get("payment-required")!);
    expect(pr.accepts.map((a) => a.scheme)).toEqual(body.schemes);
    const batch = pr.accepts[1]!;
    expect(batch.extra).toMatchObject({
      receiverAuthorizer: body.batch_settlement!.receiverAuthorizer,
      withdrawDelay: body.batch_settlement!.withdraw_delay_seconds,
      minDeposit: body.routes.find((e) => e.endpoint === "GET /v1/q/xmr/height")!.min_deposit_atomic,
    });
  });

  it("GET /v1/paywall without channels: exact alone, no channel block, no deposits", async () => {
    const body = PaywallInfo.parse(await getJson(`${exactOnly.url}/v1/paywall`));
    expect(body.scheme).toBe("exact");
    expect(body.schemes).toEqual(["exact"]);
    expect(body.batch_settlement).toBeUndefined();
    expect(body.routes.length).toBeGreaterThan(0);
    expect(body.routes.filter((e) => e.min_deposit_atomic !== undefined)).toEqual([]);
    const r = await fetch(`${exactOnly.url}/v1/q/xmr/height`);
    expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).accepts.map((a) => a.scheme)).toEqual(["exact"]);
  });

  it("with channels, llms.txt, OpenAPI, /.well-known/x402, the MCP tools and the banner name both schemes and who should use which", async () => {
    const texts = await paymentTexts(channels);
    for (const [where, text] of Object.entries(texts)) expect(text, where).toContain("batch-settlement");
    for (const where of ["llms", "openapiInfo", "wellKnown", "mcpTool"]) {
      expect(texts[where], where).toMatch(/exact`? for a one-off call/);
      expect(texts[where], where).toMatch(/batch-settlement`? for repeated calls/);
    }
    expect(texts.openapiSecurity).toContain("a one-off call: no deposit");
    expect(texts.llms).toContain("### Repeated calls: `batch-settlement`");
    expect(texts.llms).toContain("Voucher(bytes32 channelId, uint128 maxClaimableAmount)");
    expect(texts.mcpTool).toMatch(/^.*Costs \$0\.10 in USDC \(x402, exact or batch-settlement scheme\)\..*_meta\["x402\/payment"\]/);
    expect(texts.banner).toContain(`payments  x402 exact and batch-settlement, USDC on eip155:84532, payTo ${devnet.payTo}`);
    expect(texts.banner).toContain(`channels  receiver authorizer ${channels.app.paywall.terms!.channel!.receiverAuthorizer}`);
  });

  it("with channels, each paid operation's x-payment-info lists both schemes and the deposit of a fixed price", async () => {
    const doc = OpenApiDocument.parse(await getJson(`${channels.url}/openapi.json`));
    expect(Object.keys(doc.components.securitySchemes)).toEqual(SECURITY_SCHEME_NAMES);
    const info = doc.paths["/v1/private/watch"]!.post!["x-payment-info"]!;
    expect(info).toMatchObject({ scheme: "exact", schemes: ["exact", "batch-settlement"], amount: "100000", minDeposit: minDepositFor(100_000n).toString() });
    const custom = doc.paths["/v1/private/topup-custom"]!.post!["x-payment-info"]!;
    expect(custom).toMatchObject({ pricingMode: "range", schemes: ["exact", "batch-settlement"] });
    expect(custom.minDeposit).toBeUndefined();
  });

  it("without channels, no surface mentions batch-settlement, and the exact wording stays", async () => {
    const texts = await paymentTexts(exactOnly);
    for (const [where, text] of Object.entries(texts)) expect(text, where).not.toContain("batch-settlement");
    expect(texts.llms).toContain("Paid routes use x402 v2 (scheme `exact`, USDC on `eip155:84532`)");
    expect(texts.mcpTool).toContain("Costs $0.10 in USDC (x402, exact scheme).");
    expect(texts.mcpTool).toContain("sign an EIP-3009 authorisation for them");
    expect(texts.banner).toContain(`payments  x402 exact, USDC on eip155:84532, payTo ${devnet.payTo}`);
    expect(texts.banner).not.toContain("channels  ");
    const doc = OpenApiDocument.parse(await getJson(`${exactOnly.url}/openapi.json`));
    expect(doc.paths["/v1/private/watch"]!.post!["x-payment-info"]).toMatchObject({ scheme: "exact", schemes: ["exact"] });
    expect(doc.paths["/v1/private/watch"]!.post!["x-payment-info"]!.minDeposit).toBeUndefined();
  });
});
