/**
 * The bazaar extension of every paid route, derived from the table: its
 * example input and output are accepted by the route's own schemas, and the
 * declaration the official server extension enriches validates against its
 * own JSON schema and the bazaar spec rules (the 402s themselves are decoded
 * with the official client in test/http/every-route.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { bazaarForHttp, bazaarForMcp, exampleInput, exampleOutput } from "../../src/http/discovery.js";
import type { AnyRouteDef } from "../../src/http/route-table.js";

describe("bazaar discovery derived from the route table", () => {
  let t: TestApp;
  let paid: AnyRouteDef[];
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
    paid = t.app.routes.filter((r) => r.price !== undefined);
  });
  afterAll(async () => t?.close());

  it("every paid route's example input and output are accepted by its own schemas", () => {
    expect(paid.length).toBeGreaterThan(10);
    const bad: string[] = [];
    for (const r of paid) {
      const ex = exampleInput(r);
      const whole = { ...(r.example?.input ?? {}), ...ex.rest, ...ex.pathParams };
      // Header-borne fields (watch tokens) are not in the extension but are part of the input.
      for (const field of Object.values(r.headerInputs ?? {})) if (r.example?.input?.[field] === undefined) whole[field] = "w".repeat(43);
      const inParsed = r.input.safeParse(whole);
      if (!inParsed.success) bad.push(`${r.operationId} input: ${JSON.stringify(inParsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => i.path.join(".") + " " + i.message))}`);
      const outParsed = r.output.safeParse(exampleOutput(r));
      if (!outParsed.success) bad.push(`${r.operationId} output: ${JSON.stringify(outParsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => i.path.join(".") + " " + i.message))}`);
    }
    expect(bad).toEqual([]);
  });

  it("the enriched HTTP declaration and the MCP declaration validate against their schemas and the spec", () => {
    for (const r of paid) {
      const path = r.path.replace(/:([A-Za-z_]+)/g, "3f2504e0-4f89-41d3-9a0c-0305e82c3301");
      const http = bazaarForHttp(r, path).bazaar as DiscoveryExtension & { routeTemplate?: string };
      expect(validateDiscoveryExtension(http), `${r.operationId}: ${JSON.stringify(validateDiscoveryExtension(http).errors)}`).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(http as never).valid, r.operationId).toBe(true);
      expect((http.info.input as { method?: string }).method).toBe(r.method);
      if (r.path.includes(":")) expect(http.routeTemplate, r.operationId).toBe(r.path);
      if (r.mcpTool) {
        const mcp = bazaarForMcp(r, r.mcpTool).bazaar as DiscoveryExtension;
        expect(validateDiscoveryExtension(mcp), `${r.operationId} (MCP): ${JSON.stringify(validateDiscoveryExtension(mcp).errors)}`).toEqual({ valid: true });
        expect((mcp.info.input as { toolName?: string }).toolName).toBe(r.mcpTool);
      }
    }
  });
});
