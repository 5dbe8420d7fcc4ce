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
 * ajv-formats).
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
});
