/**
 * The shared checks every route gets for free, driven by the route table on
 * the real app over the devnet: OpenAPI has the operation; bad input (invalid
 * JSON, a wrong-typed field) is a 400 error envelope, never a 500 or a stack;
 * each refusal a route can make from its input (a wrong credential, an id
 * that names nothing, keys that do not fit) is the one error envelope with its
 * code and the status the registry gives it, before any payment; paid routes
 * answer 402 with a decodable PAYMENT-REQUIRED header for valid input without
 * payment; free rate-limited routes answer 429 with Retry-After after `points`
 * calls; free GET routes answer 2xx with a body their own output schema
 * accepts. Inputs come from FIXTURES (test/helpers/route-fixtures.ts), keyed
 * by operationId: a route without one fails here, so a new route comes with one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import type { AnyRouteDef } from "../../src/http/route-table.js";
import { priceOf } from "../../src/http/pipeline.js";
import { openApiPath } from "../../src/http/openapi.js";
import { MAX_PAYMENT_HEADER_BYTES } from "../../src/x402/paywall.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { boardCatalogue } from "../../src/board/boards.js";
import { postNotice } from "../../src/board/service.js";
import { statusOf } from "../../src/core/errors.js";
import { FIXTURES, type Fixture, type Input, type State } from "../helpers/route-fixtures.js";

function fixtureOf(route: AnyRouteDef): Fixture {
  const f = FIXTURES[route.operationId];
  if (!f) throw new Error(`no fixture for ${route.operationId} (${route.method} ${route.path}): add one to FIXTURES`);
  return f;
}

describe("every route in the table gets the shared checks", () => {
  let s: WatchStack;
  let st: State;
  let routes: readonly AnyRouteDef[];

  /** Sends a route's input the way a client would: path params in the URL, mapped headers, the rest as JSON body or query. */
  async function send(route: AnyRouteDef, input: Input, opts: { rawBody?: string; clientIp?: string } = {}): Promise<Response> {
    const rest: Input = { ...input };
    const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
      const v = rest[name];
      delete rest[name];
      return encodeURIComponent(String(v));
    });
    const headers: Record<string, string> = opts.clientIp ? { "x-forwarded-for": opts.clientIp } : {};
    for (const [header, field] of Object.entries(route.headerInputs ?? {})) {
      if (rest[field] !== undefined) headers[header] = String(rest[field]);
      delete rest[field];
    }
    if (route.method === "POST" || route.method === "PATCH") {
      headers["content-type"] = "application/json";
      return fetch(`${s.url}${path}`, { method: route.method, headers, body: opts.rawBody ?? JSON.stringify(rest) });
    }
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return fetch(`${s.url}${path}${query ? `?${query}` : ""}`, { method: route.method, headers });
  }

  /** The one error envelope, with no stack trace anywhere in it. */
  async function expectEnvelope(r: Response, status: number, label: string): Promise<{ error: { code: string; message: string } }> {
    const text = await r.text();
    expect(r.status, `${label}: ${text}`).toBe(status);
    const body = JSON.parse(text) as { error: { code: string; message: string } };
    expect(body, label).toMatchObject({ error: { code: expect.stringMatching(/^[a-z0-9_]+$/), message: expect.any(String) } });
    expect(text, label).not.toMatch(/at .*\.[jt]s:\d+|node_modules/);
    return body;
  }

  beforeAll(async () => {
    // One trusted proxy hop: a request with X-Forwarded-For counts as that client's, so the refusals
    // (each from its own address) leave the per-IP route limits whole for the 429 check.
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000", TRUST_PROXY_HOPS: "1" } });
    routes = s.t.app.routes;
    const alice = s.wallets[0]!;
    const hookUrl = s.receiver.hookUrl("/every-route");
    const created = await s.paid("/v1/private/watch", { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: hookUrl });
    expect(created.status, JSON.stringify(created.json)).toBeLessThan(300);
    s.receiver.registerSecret(created.json.watchId, created.json.webhookSecret);
    const quoted = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: created.json.watchId, watchToken: created.json.watchToken, amountUsdCents: 200 } });
    expect(quoted.status, JSON.stringify(quoted.json)).toBe(201);
    const invoiced = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: created.json.watchId, watchToken: created.json.watchToken, amountUsdCents: 100 } });
    expect(invoiced.status, JSON.stringify(invoiced.json)).toBe(201);
    const keyed = await s.call("POST", "/v1/checkout/keys", { body: { watchId: created.json.watchId, watchToken: created.json.watchToken } });
    expect(keyed.status, JSON.stringify(keyed.json)).toBe(201);
    // The fixture notice is written by the operation itself, so the post route's per-IP limit stays whole for its own check.
    const notice = await postNotice({
      ctx: { deps: { clock: s.clock, boards: boardCatalogue(s.t.app.config.BOARDS) }, db: s.t.db.db },
      input: { board: "bounties", title: "Fixture notice", body: "For the shared checks." },
    });
    const zcash = s.devnet.zcashWallets()[0]!;
    st = {
      alice: { address: alice.address, viewKey: alice.viewKey! },
      otherViewKey: s.wallets[1]!.viewKey!,
      zcash: { address: zcash.address, ufvk: zcash.ufvk, uivk: zcash.uivk },
      hookUrl,
      watchId: created.json.watchId,
      watchToken: created.json.watchToken,
      quoteId: quoted.json.quoteId,
      invoiceId: invoiced.json.invoiceId,
      keyId: keyed.json.keyId,
      noticeId: notice.id,
      noticeToken: notice.ownerToken,
    };
  });
  afterAll(async () => s?.close());

  it("every route has a fixture, and every fixture a route", () => {
    const ops = routes.map((r) => r.operationId);
    expect(ops.filter((op) => !FIXTURES[op]), "routes without a fixture in FIXTURES").toEqual([]);
    expect(Object.keys(FIXTURES).filter((op) => !ops.includes(op)), "fixtures without a route").toEqual([]);
    // The fixtures are valid inputs by the route's own schema, and the invalid ones are not; a refusal passes the schema.
    for (const r of routes) {
      const f = fixtureOf(r);
      expect(r.input.safeParse(f.valid(st)).success, `${r.operationId} valid fixture`).toBe(true);
      for (const x of f.refusals) expect(r.input.safeParse(x.input(st)).success, `${r.operationId} refusal ${x.code}`).toBe(true);
      if (f.invalid) expect(r.input.safeParse(f.invalid(st)).success, `${r.operationId} invalid fixture`).toBe(false);
      else expect(r.input.safeParse({}).success, `${r.operationId} takes no required input`).toBe(true);
    }
  });

  it("OpenAPI has each operation under its method and path", async () => {
    const doc = (await (await fetch(`${s.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    for (const r of routes) {
      expect(doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()]?.operationId, `${r.method} ${r.path}`).toBe(r.operationId);
    }
  });

  it("bad input is a 400 error envelope: invalid JSON on POST, a wrong-typed field anywhere", async () => {
    for (const r of routes) {
      const f = fixtureOf(r);
      if (r.method === "POST") {
        const body = await expectEnvelope(await send(r, f.valid(st), { rawBody: "{not json" }), 400, `${r.operationId} invalid JSON`);
        expect(body.error.code).toBe("invalid_json");
      }
      if (f.invalid) {
        const body = await expectEnvelope(await send(r, f.invalid(st)), 400, `${r.operationId} wrong-typed field`);
        expect(body.error.code).toBe("invalid_input");
      }
    }
  });

  it("each refusal a route makes from its input is the error envelope with its code and registered status, before any payment", async () => {
    let client = 0;
    for (const r of routes) {
      for (const x of fixtureOf(r).refusals) {
        const res = await send(r, x.input(st), { clientIp: `198.51.100.${++client}` });
        const body = await expectEnvelope(res, statusOf(x.code), `${r.operationId} refusal ${x.code}`);
        expect(body.error.code, r.operationId).toBe(x.code);
        expect(res.headers.get("payment-required"), `${r.operationId} refusal ${x.code}`).toBeNull();
      }
    }
    expect(client, "every fixture's refusals were sent").toBe(Object.values(FIXTURES).flatMap((f) => f.refusals).length);
  });

  it("paid routes answer valid input without payment with 402 and a decodable PAYMENT-REQUIRED", async () => {
    const paid = routes.filter((r) => r.price !== undefined);
    expect(paid.length).toBeGreaterThan(0);
    for (const r of paid) {
      const input = fixtureOf(r).valid(st);
      const res = await send(r, input);
      expect(res.status, `${r.operationId}: ${await res.clone().text()}`).toBe(402);
      const header = res.headers.get("payment-required");
      expect(header, r.operationId).toBeTruthy();
      const required = decodePaymentRequiredHeader(header!);
      expect(required.x402Version).toBe(2);
      expect(required.accepts[0]!.amount, r.operationId).toBe(priceOf(r, r.input.parse(input))!.toString());
      expect(required.resource.url, r.operationId).toContain(r.path.replace(/:.*$/, ""));
      // The official client reads the same 402, and its bazaar extension is valid by the official validators.
      // Clients echo the extensions in their payment header, which must stay under the size the paywall decodes.
      expect(header!.length, `${r.operationId}: PAYMENT-REQUIRED is small enough to be echoed back`).toBeLessThan(MAX_PAYMENT_HEADER_BYTES - 2048);
      const official = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
      const bazaar = official.extensions?.bazaar as DiscoveryExtension | undefined;
      expect(bazaar, `${r.operationId} has a bazaar extension`).toBeDefined();
      expect(validateDiscoveryExtension(bazaar!), `${r.operationId}: ${JSON.stringify(validateDiscoveryExtension(bazaar!).errors)}`).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(bazaar as never).valid, r.operationId).toBe(true);
      expect((bazaar!.info.input as { method?: string }).method, r.operationId).toBe(r.method);
    }
  });

  it("free rate-limited routes answer 429 with Retry-After after `points` calls", async () => {
    const limited = routes.filter((r) => r.price === undefined && r.rateLimit);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      const input = fixtureOf(r).valid(st);
      for (let i = 0; i < r.rateLimit!.points; i++) {
        const ok = await send(r, input);
        expect(ok.status, `${r.operationId} call ${i + 1}: ${await ok.text()}`).toBeLessThan(400);
      }
      const res = await send(r, input);
      const body = await expectEnvelope(res, 429, `${r.operationId} after ${r.rateLimit!.points} calls`);
      expect(body.error.code).toBe("rate_limited");
      expect(Number(res.headers.get("retry-after")), r.operationId).toBeGreaterThan(0);
    }
  });

  it("free GET routes answer 2xx with a body their own output schema accepts", async () => {
    const freeGets = routes.filter((r) => r.method === "GET" && r.price === undefined);
    expect(freeGets.length).toBeGreaterThan(0);
    for (const r of freeGets) {
      const res = await send(r, fixtureOf(r).valid(st));
      const text = await res.text();
      expect(res.status, `${r.operationId}: ${text}`).toBe(r.successStatus ?? 200);
      if ((r.mimeType ?? "application/json") !== "application/json") continue;
      const parsed = r.output.safeParse(JSON.parse(text));
      expect(parsed.success, `${r.operationId}: ${parsed.success ? "" : JSON.stringify(parsed.error.issues)}`).toBe(true);
    }
  });

  it("a trailing slash names the same route: served, never 404 or a 405 that names the method it refuses", async () => {
    for (const r of routes) {
      const f = fixtureOf(r);
      // The other spelling: with a trailing slash, or without the one the route is declared with.
      const slashed = { ...r, path: r.path.length > 1 && r.path.endsWith("/") ? r.path.slice(0, -1) : `${r.path}/` };
      if (r.method === "POST" || r.method === "PATCH") {
        // Invalid JSON reaches the route's own input check and does nothing else.
        const body = await expectEnvelope(await send(slashed, f.valid(st), { rawBody: "{not json" }), 400, `${r.operationId} with a trailing slash`);
        expect(body.error.code).toBe("invalid_json");
      } else if (f.invalid) {
        const body = await expectEnvelope(await send(slashed, f.invalid(st)), 400, `${r.operationId} with a trailing slash`);
        expect(body.error.code).toBe("invalid_input");
      } else {
        const [plain, withSlash] = [await send(r, f.valid(st)), await send(slashed, f.valid(st))];
        expect(withSlash.status, `${r.operationId} with a trailing slash: ${await withSlash.clone().text()}`).toBe(plain.status);
        expect([404, 405]).not.toContain(withSlash.status);
      }
    }
  });

  it("another method on a known path is a 405 whose Allow and message never include the method refused", async () => {
    // PUT is no route's method, so every known path (with or without its trailing slash) must refuse it with 405.
    const other = "PUT";
    for (const r of routes) {
      for (const path of [r.path, r.path.length > 1 && r.path.endsWith("/") ? r.path.slice(0, -1) : `${r.path}/`]) {
        const res = await send({ ...r, method: other as AnyRouteDef["method"], path }, fixtureOf(r).valid(st));
        const body = await expectEnvelope(res, 405, `${other} ${path}`);
        const allow = (res.headers.get("allow") ?? "").split(", ");
        expect(allow, `${other} ${path}`).not.toContain(other);
        expect(body.error.message, `${other} ${path}`).not.toMatch(new RegExp(`use .*\\b${other}\\b`));
      }
    }
  });

  it("unknown query parameters and body fields are ignored on every route and named in Vigil-Ignored-Input", async () => {
    for (const r of routes) {
      const f = fixtureOf(r);
      if (r.method !== "GET" && r.method !== "POST") continue;
      // Invalid input plus an unknown name: the answer is the same 400 as without it, and names the unknown field;
      // routes without invalid input take valid input (free GETs) or invalid JSON is not useful here, so they use a cache-buster GET.
      if (f.invalid) {
        const res = await send(r, { ...f.invalid(st), _cacheBuster: "123" });
        const body = await expectEnvelope(res, 400, `${r.operationId} invalid input + unknown name`);
        expect(body.error.code).toBe("invalid_input");
        expect(JSON.stringify(body), r.operationId).not.toContain("_cacheBuster");
        expect(res.headers.get("vigil-ignored-input"), r.operationId).toBe("_cacheBuster");
      } else if (r.method === "GET") {
        const [plain, busted] = [await send(r, f.valid(st)), await send(r, { ...f.valid(st), _cacheBuster: "123" })];
        expect(busted.status, `${r.operationId} with ?_cacheBuster: ${await busted.clone().text()}`).toBe(plain.status);
        expect(busted.headers.get("vigil-ignored-input"), r.operationId).toBe("_cacheBuster");
      }
    }
  });
});
