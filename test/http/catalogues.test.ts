/**
 * Where catalogues and agents look: /openapi.json (and /v1/openapi.json),
 * /.well-known/x402 and /llms.txt each list every paid route of the table,
 * by iterating the table: a paid route added to it (here test routes)
 * appears in all three without any other edit. The manifest lists resources
 * a crawler can call as they are: a templated path is not one (issue 23).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { defineRoute, priceLabel } from "../../src/http/route-table.js";
import { openApiPath as oas, SECURITY_SCHEME_NAMES } from "../../src/http/openapi.js";

describe("/openapi.json, /.well-known/x402 and /llms.txt list every paid route", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(
      { PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" },
      {
        extraRoutes: [
          defineRoute({
            method: "GET",
            path: "/v1/test/catalogued/:thing",
            operationId: "testCatalogued",
            summary: "A paid route that exists only in this test",
            input: z.object({ thing: z.string() }),
            output: z.object({ thing: z.string() }),
            price: 7_000n,
            handler: async ({ thing }) => ({ thing }),
          }),
          defineRoute({
            method: "GET",
            path: "/v1/test/catalogued-plain",
            operationId: "testCataloguedPlain",
            summary: "A paid route without path parameters that exists only in this test",
            input: z.object({}),
            output: z.object({ ok: z.boolean() }),
            price: 3_000n,
            handler: async () => ({ ok: true }),
          }),
        ],
      },
    );
  });
  afterAll(async () => t?.close());

  it("the root OpenAPI document equals /v1/openapi.json; paid operations carry x-payment-info, free ones security: []", async () => {
    const root = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security?: unknown[]; "x-payment-info"?: { price: string; amount?: string } }>>;
      "x-discovery": { llmsTxtUrl: string };
    };
    expect(await (await fetch(`${t.url}/v1/openapi.json`)).json()).toEqual(root);
    expect(root["x-discovery"].llmsTxtUrl).toBe(`${t.url}/llms.txt`);
    const paid = t.app.routes.filter((r) => r.price !== undefined);
    expect(paid.map((r) => r.operationId)).toContain("testCatalogued");
    for (const r of t.app.routes) {
      const op = root.paths[oas(r.path)]?.[r.method.toLowerCase()];
      expect(op?.operationId, `${r.method} ${r.path}`).toBe(r.operationId);
      if (r.price !== undefined) {
        expect(op!["x-payment-info"], r.operationId).toMatchObject({ protocol: "x402", scheme: "exact", schemes: ["exact"], price: priceLabel(r) });
        // Either payment header satisfies a paid operation (alternatives).
        expect(op!.security, r.operationId).toEqual(SECURITY_SCHEME_NAMES.map((name) => ({ [name]: [] })));
      } else {
        expect(op!.security, r.operationId).toEqual([]);
        expect(op!["x-payment-info"], r.operationId).toBeUndefined();
      }
    }
    expect(root.paths["/v1/test/catalogued/{thing}"]!.get!["x-payment-info"]).toMatchObject({ price: "$0.007", amount: "7000" });
  });

  it("/.well-known/x402 lists exactly the paid resources that are not templates", async () => {
    const doc = (await (await fetch(`${t.url}/.well-known/x402`)).json()) as { version: number; resources: string[] };
    expect(doc.version).toBe(1);
    const paid = t.app.routes.filter((r) => r.price !== undefined && !r.path.includes(":"));
    expect([...doc.resources].sort()).toEqual(paid.map((r) => `${t.url}${r.path}`).sort());
    expect(doc.resources).toContain(`${t.url}/v1/test/catalogued-plain`);
    expect(doc.resources.filter((u) => /[{}:]/.test(new URL(u).pathname)), "no templated path is a resource").toEqual([]);
  });

  it("/llms.txt is text with every paid route and its price, the flows, every error code and the limits", async () => {
    const res = await fetch(`${t.url}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text.startsWith("# Vigil\n")).toBe(true);
    for (const r of t.app.routes.filter((x) => x.price !== undefined)) {
      expect(text, r.operationId).toContain(`\`${r.method} ${oas(r.path)}\` ${priceLabel(r)}: ${r.summary}`);
    }
    expect(text).toContain("`GET /v1/test/catalogued/{thing}` $0.007: A paid route that exists only in this test");
    for (const heading of ["## How to pay (x402 v2)", "## Watch flow (Private Watch)", "## Checkout flow (invoices paid in coin)", "## Errors", "## Limits"]) expect(text).toContain(heading);
    expect(text).toContain("`POST /v1/private/watch` ($0.10)");
    expect(text).toContain("`payment_identifier_conflict` 409");
    expect(text).toContain("120 requests per minute per IP");
    // Without channel terms the guide offers exact only (test/http/payment-schemes.test.ts: with them).
    expect(text).toContain("Paid routes use x402 v2 (scheme `exact`, USDC on `eip155:8453`)");
    expect(text).not.toContain("batch-settlement");
  });
});
