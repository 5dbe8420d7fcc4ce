/**
 * Issue 23, item 4: a crawler that probes a paid POST with an empty body
 * (the way /.well-known/x402 tells it to) got 400 invalid_input and never saw
 * a price. The probe rule (src/x402/paywall.ts header, docs/discovery.md): a
 * paid route called with no payment and no input at all (no body or `{}`;
 * a GET without a query string) answers its 402 with PAYMENT-REQUIRED and the
 * bazaar extension describing the input it needs, and does nothing: no
 * precheck, no work, no payment row. Input that was sent is still checked
 * first (a non-empty invalid body is a 400 without a 402), and a paying
 * client that sends an empty body gets a 400 and is charged nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { boardCatalogue } from "../../src/board/boards.js";
import { postNotice } from "../../src/board/service.js";
import type { AnyRouteDef } from "../../src/http/route-table.js";

describe("an empty probe of a paid route gets its 402", () => {
  let s: WatchStack;
  let noticeId: string;
  const balance = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);
  const count = async (table: "payments" | "watches" | "notice_boosts") =>
    Number((await s.t.db.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
  const pathOf = (r: AnyRouteDef) => r.path.replace(":board", "bounties").replace(":id", noticeId);
  const paidPosts = () => s.t.app.routes.filter((r) => r.price !== undefined && r.method === "POST");

  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
    const notice = await postNotice({
      ctx: { deps: { clock: s.clock, boards: boardCatalogue(s.t.app.config.BOARDS) }, db: s.t.db.db },
      input: { board: "bounties", title: "Probe target", body: "A notice to boost." },
    });
    noticeId = notice.id;
  });
  afterAll(async () => s?.close());

  async function expectProbe402(r: Response, route: AnyRouteDef, label: string): Promise<void> {
    const text = await r.text();
    expect(r.status, `${label}: ${text}`).toBe(402);
    const header = r.headers.get("payment-required");
    expect(header, label).toBeTruthy();
    const required = decodePaymentRequiredHeader(header!);
    expect(required.error, label).toBe("payment_required");
    const quoted = typeof route.price === "bigint" ? route.price : route.priceRange!.min;
    expect(required.accepts[0]!.amount, label).toBe(quoted.toString());
    expect(JSON.parse(text), label).toEqual(required);
    // The extension says what to send: a JSON body with the route's required fields.
    const bazaar = required.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar), `${label}: ${JSON.stringify(validateDiscoveryExtension(bazaar).errors)}`).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as never).valid, label).toBe(true);
    const input = bazaar.info.input as { method: string; bodyType?: string };
    expect(input.method, label).toBe("POST");
    expect(input.bodyType, label).toBe("json");
    const bodySchema = (bazaar.schema as { properties: { input: { properties: { body: { required?: string[] } } } } }).properties.input.properties.body;
    expect(bodySchema.required?.length, `${label}: the extension names the required body fields`).toBeGreaterThan(0);
  }

  it("every paid POST answers no body and `{}` with its 402 and does nothing; a body that was sent is checked first", async () => {
    expect(paidPosts().length).toBeGreaterThanOrEqual(7);
    const [payments, watches, boosts, usdc] = [await count("payments"), await count("watches"), await count("notice_boosts"), balance()];
    for (const r of paidPosts()) {
      const url = `${s.url}${pathOf(r)}`;
      await expectProbe402(await fetch(url, { method: "POST" }), r, `${r.operationId} without a body`);
      await expectProbe402(await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), r, `${r.operationId} with {}`);
      await expectProbe402(await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: " { } \n" }), r, `${r.operationId} with { }`);
    }
    expect([await count("payments"), await count("watches"), await count("notice_boosts"), balance()]).toEqual([payments, watches, boosts, usdc]);

    // Input that was sent is still refused before any 402: a non-empty invalid body, a wrong path parameter.
    const alice = s.wallets[0]!;
    for (const [path, body] of [
      ["/v1/private/watch", { chain: "monero" }],
      ["/v1/private/watch", { chain: "monero", address: alice.address, viewKey: alice.viewKey }],
      ["/v1/private/topup", { watchId: "not-a-uuid" }],
      ["/v1/private/historical", { chain: "litecoin", viewKey: "x" }],
      [`/v1/board/bounties/${noticeId}/boost`, { amountAtomic: "5" }],
      [`/v1/board/${"b".repeat(65)}/${noticeId}/boost`, {}],
    ] as const) {
      const r = await s.call("POST", path, { body });
      expect(r.status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(r.json.error.code).toBe("invalid_input");
      expect(r.headers.get("payment-required"), path).toBeNull();
    }
  });

  it("a paid GET whose input is required answers a bare probe with its 402; a query that was sent is checked first", async () => {
    for (const path of ["/v1/q/builder-share", "/v1/q/cheapest-flashloan", "/v1/q/address-risk"]) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status, `${path}: ${await r.clone().text()}`).toBe(402);
      expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).accepts[0]!.amount).toBe("1000");
    }
    const bad = await s.call("GET", "/v1/q/builder-share?window=1y");
    expect(bad.status, JSON.stringify(bad.json)).toBe(400);
    expect(bad.headers.get("payment-required")).toBeNull();
  });

  it("a client that pays the probe's 402 and sends the empty body again gets a 400 and is charged nothing", async () => {
    const [payments, usdc] = [await count("payments"), balance()];
    for (const body of [undefined, "{}"]) {
      const init = { method: "POST", headers: { "content-type": "application/json" }, ...(body ? { body } : {}) };
      const probe = await fetch(`${s.url}/v1/private/watch`, init);
      expect(probe.status, await probe.clone().text()).toBe(402);
      const signed = await s.payer.signFor(decodePaymentRequiredHeader(probe.headers.get("payment-required")!));
      const r = await fetch(`${s.url}/v1/private/watch`, { ...init, headers: { ...init.headers, [signed.headerName]: signed.header } });
      const json = (await r.json()) as { error: { code: string } };
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(json.error.code).toBe("invalid_input");
      expect(r.headers.get("payment-response")).toBeNull();
    }
    expect(balance()).toBe(usdc);
    expect(await count("payments")).toBe(payments);
  });
});
