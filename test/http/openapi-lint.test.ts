/**
 * Issue 23, item 4: the OpenAPI document as independent tools read it.
 * Redocly's `recommended` rules reported 35 `security-defined` errors (the
 * x402 payment was no security scheme), a `/pay/` path with a trailing slash
 * and no licence; ajv in strict mode rejected the non-standard
 * `format: starts_with`; and GET /v1/board/{board}/feed.json declared
 * `{"type": "string"}`, so every JSON Feed failed validation.
 *
 * Here the document a running devnet service serves is linted by
 * @redocly/openapi-core with the `recommended` ruleset (no error, no warning),
 * its security is checked against the headers the paywall reads, and every
 * free GET answer of that service, with real data in it (Ethereum followed,
 * relays polled, lending indexed, approvals scanned, a watch, a quote, an
 * invoice, a checkout key and a notice made), is validated against the
 * document's own response schema by ajv (JSON Schema 2020-12, strict mode,
 * ajv-formats). So is every free POST, PATCH and DELETE (read off the
 * document, so a new one fails until it is called here): a success and at
 * least one refusal of each, each against the response the document declares
 * for its status (the status itself, else its class, 4XX or 5XX).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { openApiPath } from "../../src/http/openapi.js";
import type { AnyRouteDef } from "../../src/http/route-table.js";
import { indexLendingOnce } from "../../src/ingest/lending-indexer.js";
import { scanApprovalsOnce } from "../../src/feeds/approval-scan.js";
import { boardCatalogue } from "../../src/board/boards.js";
import { postNotice } from "../../src/board/service.js";

// ajv-formats is CommonJS: its function is the default export's default under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  "x-payment-info"?: unknown;
}
interface Document {
  info: { license?: { name: string; identifier?: string } };
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
  paths: Record<string, Record<string, Operation>>;
}

/** The EIP-155 example transaction (chain 1): inspect decodes it. */
const EIP155_VECTOR =
  "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

interface Call {
  path?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

describe("the OpenAPI document passes independent tools", () => {
  let s: WatchStack;
  let docText: string;
  let doc: Document;
  /** The inputs of free GET routes that need some; every other free GET is called without input. */
  let calls: Record<string, Call>;

  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
    await s.followEthereum();
    await s.pollRelays();
    while ((await indexLendingOnce(s.t.app.lending)).more);
    for (let i = 0; i < 20 && (await scanApprovalsOnce(s.t.app.approvalScan)).more; i++);
    const alice = s.wallets[0]!;
    const watch = await s.openMoneroWatch(alice, "/openapi-lint");
    const token = { "x-watch-token": watch.watchToken };
    const quote = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: watch.watchId, watchToken: watch.watchToken, amountUsdCents: 200 } });
    expect(quote.status, JSON.stringify(quote.json)).toBe(201);
    const invoice = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: watch.watchId, watchToken: watch.watchToken, amountUsdCents: 100, orderId: "lint-1" } });
    expect(invoice.status, JSON.stringify(invoice.json)).toBe(201);
    const key = await s.call("POST", "/v1/checkout/keys", { body: { watchId: watch.watchId, watchToken: watch.watchToken, label: "lint" } });
    expect(key.status, JSON.stringify(key.json)).toBe(201);
    const notice = await postNotice({
      ctx: { deps: { clock: s.clock, boards: boardCatalogue(s.t.app.config.BOARDS) }, db: s.t.db.db },
      input: { board: "bounties", title: "Index the Ironwood pool", body: "Paid in ZEC.\nDetails inside.", url: "https://example.org/task", tags: ["zcash", "data"] },
    });
    calls = {
      privateWatchStatus: { path: { id: watch.watchId }, headers: token },
      coinTopupQuoteStatus: { path: { quoteId: quote.json.quoteId }, headers: token },
      checkoutInvoiceList: { query: { watchId: watch.watchId }, headers: token },
      checkoutInvoiceStatus: { path: { invoiceId: invoice.json.invoiceId } },
      checkoutInvoiceQr: { path: { invoiceId: invoice.json.invoiceId } },
      puzzleRiskLookup: { query: { address: `0x${"12".repeat(20)}` } },
      privateRelayInspect: { query: { raw_tx: EIP155_VECTOR } },
      boardFeedRss: { path: { board: "bounties" } },
      boardFeedJson: { path: { board: "bounties" } },
      boardRead: { path: { board: "bounties" } },
      boardNotice: { path: { board: "bounties", id: notice.id } },
      zecIronwoodHistory: { query: { window_ms: "86400000" } },
    };
    const res = await fetch(`${s.url}/openapi.json`);
    docText = await res.text();
    doc = JSON.parse(docText) as Document;
  });
  afterAll(async () => s?.close());

  it("Redocly's recommended ruleset finds no error and no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: docText, absoluteRef: `${s.url}/openapi.json`, config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
    expect(listed).toEqual([]);
  });

  it("the x402 payment is a security scheme on every paid operation, the licence is MIT, no path ends in a slash", () => {
    // The headers the paywall reads (src/http/router.ts): PAYMENT-SIGNATURE, or X-PAYMENT.
    const schemes = Object.entries(doc.components.securitySchemes);
    expect(schemes.map(([, v]) => [v.type, v.in, v.name.toLowerCase()]).sort()).toEqual([
      ["apiKey", "header", "payment-signature"],
      ["apiKey", "header", "x-payment"],
    ]);
    expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    let paid = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      expect(path === "/" || !path.endsWith("/"), path).toBe(true);
      for (const op of Object.values(methods)) {
        if (op["x-payment-info"]) {
          paid++;
          expect(op.security, op.operationId).toEqual(schemes.map(([name]) => ({ [name]: [] })));
        } else expect(op.security, op.operationId).toEqual([]);
      }
    }
    expect(paid).toBe(s.t.app.routes.filter((r) => r.price !== undefined).length);
  });

  it("every schema in the document (bodies, parameters, answers) compiles under ajv strict: standard formats only", () => {
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    const failures: string[] = [];
    let compiled = 0;
    const compile = (where: string, schema: Schema | undefined) => {
      if (!schema) return;
      try {
        ajv.compile(schema);
        compiled++;
      } catch (e) {
        failures.push(`${where}: ${(e as Error).message}`);
      }
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods) as [string, Operation & { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: { name: string; schema: Schema }[] }][]) {
        for (const [mime, c] of Object.entries(op.requestBody?.content ?? {})) compile(`${method} ${path} body ${mime}`, c.schema);
        for (const p of op.parameters ?? []) compile(`${method} ${path} parameter ${p.name}`, p.schema);
        for (const [status, r] of Object.entries(op.responses)) for (const [mime, c] of Object.entries(r.content ?? {})) compile(`${method} ${path} ${status} ${mime}`, c.schema);
      }
    }
    expect(failures).toEqual([]);
    expect(compiled).toBeGreaterThan(200);
  });

  it("every free GET answer of the running service is valid against the document's schema (ajv strict)", async () => {
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    const freeGets = s.t.app.routes.filter((r: AnyRouteDef) => r.method === "GET" && r.price === undefined);
    expect(freeGets.length).toBeGreaterThan(25);
    const checked: string[] = [];
    for (const r of freeGets) {
      const call = calls[r.operationId] ?? {};
      const path = r.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
        const v = call.path?.[name];
        if (v === undefined) throw new Error(`${r.operationId}: add its input to \`calls\``);
        return encodeURIComponent(v);
      });
      const query = call.query ? `?${new URLSearchParams(call.query)}` : "";
      const res = await fetch(`${s.url}${path}${query}`, { headers: call.headers ?? {} });
      const text = await res.text();
      const status = String(r.successStatus ?? 200);
      expect(res.status, `${r.operationId}: ${text.slice(0, 300)}`).toBe(Number(status));
      const mime = r.mimeType ?? "application/json";
      expect(res.headers.get("content-type"), r.operationId).toContain(mime);
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      const schema = op?.responses[status]?.content?.[mime]?.schema;
      expect(schema, `${r.operationId}: the document describes its ${status} ${mime}`).toBeDefined();
      if (!/^application\/([\w.-]+\+)?json$/.test(mime)) continue;
      const validate = ajv.compile(schema!);
      const body = JSON.parse(text) as unknown;
      const ok = validate(body);
      expect(ok, `${r.operationId}: ${ajv.errorsText(validate.errors, { separator: "\n" })}`).toBe(true);
      checked.push(r.operationId);
    }
    // The answers the issue names are among them, the JSON Feed (with an item) included.
    for (const op of ["oracleCatalogue", "privateWatchInfo", "health", "counterMevSummary", "puzzleRiskSummary", "premiumOpportunitiesSample", "premiumBuilderStatsSample", "boardList", "boardRead", "boardFeedJson", "privateWatchSnippets", "openapi", "x402Discovery"])
      expect(checked, op).toContain(op);
    const feed = (await (await fetch(`${s.url}/v1/board/bounties/feed.json`)).json()) as { items: unknown[] };
    expect(feed.items.length).toBeGreaterThan(0);
  });

  it("every free POST, PATCH and DELETE answer, successes and errors, is valid against the document's schema for its status (ajv strict)", async () => {
    const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    // The free operations that are no GET, read off the document: a new one fails below until it has its calls here.
    const freeWrites = new Map<string, { path: string; method: string; op: Operation }>();
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods)) if (method !== "get" && !op["x-payment-info"]) freeWrites.set(op.operationId, { path, method, op });
    expect(freeWrites.size).toBeGreaterThan(10);
    const seen = new Map<string, Set<"success" | "error">>();
    const send = async (c: WriteCall): Promise<any> => {
      const declared = freeWrites.get(c.op);
      if (!declared) throw new Error(`${c.op} is not a free POST/PATCH/DELETE operation of the document`);
      expect(c.method.toLowerCase(), c.op).toBe(declared.method);
      const headers: Record<string, string> = { ...c.headers };
      if (c.body !== undefined) headers["content-type"] = "application/json";
      const body = c.body === undefined ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
      const res = await fetch(`${s.url}${c.path}`, { method: c.method, headers, body });
      const text = await res.text();
      const label = `${c.op} ${c.method} ${c.path} → ${res.status}: ${text.slice(0, 300)}`;
      expect(res.status, label).toBe(c.status);
      const json = JSON.parse(text) as { error?: { code: string } };
      if (c.code !== undefined) expect(json.error?.code, label).toBe(c.code);
      // The response the document declares for this status: the status itself, else its class (4XX, 5XX).
      const responses = declared.op.responses;
      const response = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`];
      expect(response, `${label}: the document declares no ${res.status}`).toBeDefined();
      expect(res.headers.get("content-type"), label).toContain("application/json");
      const schema = response!.content?.["application/json"]?.schema;
      expect(schema, `${label}: the document describes its JSON`).toBeDefined();
      const validate = ajv.compile(schema!);
      expect(validate(json), `${label}\n${ajv.errorsText(validate.errors, { separator: "\n" })}`).toBe(true);
      const kind = res.status < 400 ? "success" : "error";
      if (!seen.has(c.op)) seen.set(c.op, new Set());
      seen.get(c.op)!.add(kind);
      return json;
    };
    await callEveryFreeWrite(s, send);
    const missing = [...freeWrites.keys()].flatMap((op) => (["success", "error"] as const).filter((k) => !seen.get(op)?.has(k)).map((k) => `${op}: no ${k} answer checked`));
    expect(missing).toEqual([]);
  });
});

/** One call of a free write operation, the status it must answer and, for an error, its code. */
interface WriteCall {
  op: string;
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  /** A JSON value, or a string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code?: string;
}

/** The BIP-39 test mnemonic (all-zero entropy). */
const TEST_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** A success and at least one refusal of each free POST, PATCH and DELETE of the devnet service, in an order in which each finds what it needs. */
async function callEveryFreeWrite(s: WatchStack, send: (c: WriteCall) => Promise<any>): Promise<void> {
  const bob = s.wallet("bob");
  const watch = await s.openMoneroWatch(bob, "/openapi-lint-writes");
  const auth = { watchId: watch.watchId, watchToken: watch.watchToken };
  const token = { "x-watch-token": watch.watchToken };
  const wrongToken = { "x-watch-token": "wt_not-this-one" };

  // The watch's own operations.
  await send({ op: "privateWatchTest", method: "POST", path: `/v1/private/watch/${watch.watchId}/test`, headers: token, status: 200 });
  await send({ op: "privateWatchTest", method: "POST", path: `/v1/private/watch/${watch.watchId}/test`, headers: wrongToken, status: 401, code: "invalid_watch_token" });

  // Paying in coin.
  await send({ op: "coinTopupQuote", method: "POST", path: "/v1/private/topup-crypto", body: { ...auth, amountUsdCents: 250 }, status: 201 });
  await send({ op: "coinTopupQuote", method: "POST", path: "/v1/private/topup-crypto", body: { ...auth, amountUsdCents: 100 }, status: 400, code: "invalid_input" });
  await send({ op: "coinTopupQuote", method: "POST", path: "/v1/private/topup-crypto", body: { ...auth, watchToken: "wt_not-this-one", amountUsdCents: 250 }, status: 401, code: "invalid_watch_token" });
  const carol = s.wallet("carol");
  const coinWatch = { chain: "monero", address: carol.address, viewKey: carol.viewKey, webhookUrl: s.receiver.hookUrl("/openapi-lint-coin") };
  const coinCreated = await send({ op: "coinWatchCreate", method: "POST", path: "/v1/private/watch-crypto", body: coinWatch, status: 201 });
  await send({ op: "coinWatchCreate", method: "POST", path: "/v1/private/watch-crypto", body: { ...coinWatch, viewKey: bob.viewKey }, status: 400, code: "view_key_mismatch" });
  await send({ op: "coinWalletEvents", method: "POST", path: "/v1/private/coin-wallet/events", body: { event: "synthetic_test" }, status: 200 });
  await send({ op: "coinWalletEvents", method: "POST", path: "/v1/private/coin-wallet/events", body: "[1, 2]", status: 400, code: "invalid_json" });

  // Checkout: a key, an invoice by the watch token and one by the key, their cancellation and revocation.
  const key = await send({ op: "checkoutKeyCreate", method: "POST", path: "/v1/checkout/keys", body: { ...auth, label: "lint writes", maxAmountUsdCents: 5000 }, status: 201 });
  await send({ op: "checkoutKeyCreate", method: "POST", path: "/v1/checkout/keys", body: { ...auth, watchToken: "wt_not-this-one" }, status: 401, code: "invalid_watch_token" });
  const invoice = await send({ op: "checkoutInvoiceCreate", method: "POST", path: "/v1/checkout/invoices", body: { ...auth, amountUsdCents: 125, orderId: "lint-writes-1", description: "Lint" }, status: 201 });
  await send({ op: "checkoutInvoiceCreate", method: "POST", path: "/v1/checkout/invoices", body: { checkoutKey: key.checkoutKey, amountUsdCents: 300 }, status: 201 });
  await send({ op: "checkoutInvoiceCreate", method: "POST", path: "/v1/checkout/invoices", body: { checkoutKey: key.checkoutKey, amountUsdCents: 9000 }, status: 403, code: "checkout_key_cap_exceeded" });
  await send({ op: "checkoutInvoiceCreate", method: "POST", path: "/v1/checkout/invoices", body: { amountUsdCents: 10 }, status: 400, code: "invalid_input" });
  await send({ op: "checkoutInvoiceCancel", method: "DELETE", path: `/v1/checkout/invoices/${invoice.invoiceId}`, headers: wrongToken, status: 404, code: "invoice_not_found" });
  await send({ op: "checkoutInvoiceCancel", method: "DELETE", path: `/v1/checkout/invoices/${invoice.invoiceId}`, headers: token, status: 200 });
  await send({ op: "checkoutInvoiceCancel", method: "DELETE", path: `/v1/checkout/invoices/${invoice.invoiceId}`, headers: token, status: 409, code: "invoice_not_cancellable" });
  await send({ op: "checkoutKeyRevoke", method: "DELETE", path: `/v1/checkout/keys/${key.keyId}`, headers: token, status: 200 });
  await send({ op: "checkoutKeyRevoke", method: "DELETE", path: `/v1/checkout/keys/${key.keyId}`, headers: token, status: 404, code: "checkout_key_not_found" });

  // The Zcash key derivation (6 a minute: two calls).
  await send({ op: "deriveViewkey", method: "POST", path: "/v1/private/derive-viewkey", body: { chain: "zcash", seed: TEST_MNEMONIC }, status: 200 });
  await send({ op: "deriveViewkey", method: "POST", path: "/v1/private/derive-viewkey", body: { chain: "zcash" }, status: 400, code: "invalid_input" });

  // The board: post, edit, remove, each refused once too.
  const notice = { title: "Parse Vec<u8> & Map<K, V>", body: "A lint of the write answers.", tags: ["lint"] };
  const posted = await send({ op: "boardPost", method: "POST", path: "/v1/board/bounties", body: notice, status: 201 });
  await send({ op: "boardPost", method: "POST", path: "/v1/board/bounties", body: { ...notice, title: "" }, status: 400, code: "invalid_input" });
  await send({ op: "boardPost", method: "POST", path: "/v1/board/no-such-board", body: notice, status: 404, code: "unknown_board" });
  const noticePath = `/v1/board/bounties/${posted.id}`;
  await send({ op: "boardEdit", method: "PATCH", path: noticePath, headers: { "x-notice-token": posted.ownerToken }, body: { title: "Parse Vec<u8>, edited" }, status: 200 });
  await send({ op: "boardEdit", method: "PATCH", path: noticePath, headers: { "x-notice-token": "not-the-owner" }, body: { title: "Not mine" }, status: 401, code: "invalid_notice_token" });
  await send({ op: "boardRemove", method: "DELETE", path: noticePath, headers: { "x-notice-token": "not-the-owner" }, status: 401, code: "invalid_notice_token" });
  await send({ op: "boardRemove", method: "DELETE", path: noticePath, headers: { "x-notice-token": posted.ownerToken }, status: 200 });

  // The watch's settings: changed, then refused.
  await send({ op: "privateWatchUpdate", method: "PATCH", path: `/v1/private/watch/${coinCreated.watchId}`, headers: { "x-watch-token": coinCreated.watchToken }, body: { subaddressLookahead: { accounts: 3, minors: 20 }, invoiceAccount: 1 }, status: 200 });
  await send({ op: "privateWatchUpdate", method: "PATCH", path: `/v1/private/watch/${coinCreated.watchId}`, headers: { "x-watch-token": coinCreated.watchToken }, body: {}, status: 400, code: "nothing_to_update" });

  // Last, the cancellation of the coin-created watch.
  await send({ op: "privateWatchCancel", method: "DELETE", path: `/v1/private/watch/${coinCreated.watchId}`, headers: { "x-watch-token": "wt_not-this-one" }, status: 401, code: "invalid_watch_token" });
  await send({ op: "privateWatchCancel", method: "DELETE", path: "/v1/private/watch/not-a-uuid", headers: { "x-watch-token": coinCreated.watchToken }, status: 400, code: "invalid_input" });
  await send({ op: "privateWatchCancel", method: "DELETE", path: `/v1/private/watch/${coinCreated.watchId}`, headers: { "x-watch-token": coinCreated.watchToken }, status: 200 });
}
