/**
 * Issue 23, item 4: the bazaar `info.output.example` of 25 of the 27 paid GET
 * routes was sampled from schema minimums (`/v1/q/xmr/height` advertised
 * `"height": -9007199254740991`), and /.well-known/x402 listed the template
 * `/v1/board/{board}/{id}/boost` as a resource.
 *
 * Now every paid route declares a realistic example with the route
 * (`RouteDef.example`; the oracle's in its question, the feeds' in
 * src/feeds/examples.ts, the watch's in src/watch/examples.ts), which must:
 * parse with the route's own input and output schemas; hold no absurd value
 * (no ±2^53−1, no negative number, heights, blocks and slots above zero,
 * times between 2020 and 2100, no placeholder "example" strings); and be what
 * the running service's 402 carries in `extensions.bazaar.info.output`. Each
 * 402's extension is checked with @x402/extensions (validateDiscoveryExtension,
 * validateDiscoveryExtensionSpec), and every resource of the manifest with
 * the catalogue side of the same package (extractDiscoveryInfo): probing it
 * as the manifest says yields a discovered resource at exactly that URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { extractDiscoveryInfo, validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { startTestApp, type TestApp } from "../helpers/app.js";
import type { AnyRouteDef } from "../../src/http/route-table.js";
import { MAX_PAYMENT_HEADER_BYTES } from "../../src/x402/paywall.js";

const MS_2020 = Date.UTC(2020, 0, 1);
const MS_2100 = Date.UTC(2100, 0, 1);

/** Every value in a JSON-like tree that no real answer would hold, as "path: why". */
function absurdities(value: unknown, path = "$"): string[] {
  if (typeof value === "number") {
    const key = path.slice(path.lastIndexOf(".") + 1).replace(/\[\d+\]$/, "");
    if (!Number.isFinite(value)) return [`${path}: ${value} is not finite`];
    if (Math.abs(value) >= Number.MAX_SAFE_INTEGER) return [`${path}: ${value} is a type bound, not a value`];
    if (value < 0) return [`${path}: ${value} is negative`];
    if (/(^|_)(height|block|slot)$|^(block|height|slot|head_block|indexed_block|refreshed_block|from_block|to_block|approved_block)$/.test(key) && value <= 0)
      return [`${path}: a ${key} of ${value}`];
    if (/_ms$/.test(key) && (value < MS_2020 || value > MS_2100)) return [`${path}: ${value} ms is not a time between 2020 and 2100`];
    if (/^(timestamp|block_timestamp|slot_time|block_time_s|from_s)$/.test(key) && (value * 1000 < MS_2020 || value * 1000 > MS_2100))
      return [`${path}: ${value} s is not a time between 2020 and 2100`];
    return [];
  }
  if (typeof value === "string") return /^(example|EXAMPLE|example-1)$/.test(value) ? [`${path}: the placeholder "${value}"`] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => absurdities(v, `${path}[${i}]`));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => absurdities(v, `${path}.${k}`));
  return [];
}

const isJson = (r: AnyRouteDef) => (r.mimeType ?? "application/json") === "application/json";

describe("every paid route carries a realistic example, and the discovery documents are honest", () => {
  let t: TestApp;
  let paid: AnyRouteDef[];
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
    paid = t.app.routes.filter((r) => r.price !== undefined);
  });
  afterAll(async () => t?.close());

  it("each paid route declares its example, accepted by its own input and output schemas", () => {
    expect(paid.length).toBeGreaterThanOrEqual(35);
    const problems: string[] = [];
    for (const r of paid) {
      if (!r.example || r.example.output === undefined) {
        problems.push(`${r.operationId}: no example output declared`);
        continue;
      }
      const input = r.input.safeParse(r.example.input ?? {});
      if (!input.success) problems.push(`${r.operationId} input: ${JSON.stringify(input.error.issues)}`);
      if (isJson(r)) {
        const output = r.output.safeParse(r.example.output);
        if (!output.success) problems.push(`${r.operationId} output: ${JSON.stringify(output.error.issues)}`);
      } else {
        // Text answers (CSV): a header row and at least one data row, RFC 4180 line ends.
        const lines = String(r.example.output).split("\r\n").filter(Boolean);
        if (lines.length < 2 || lines.some((l) => l.split(",").length !== lines[0]!.split(",").length)) problems.push(`${r.operationId}: not a CSV with a header and rows`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("no example holds a type bound, a negative number, a zero height or a placeholder", () => {
    const problems = paid.flatMap((r) => [...absurdities(r.example?.input, `${r.operationId}.input`), ...absurdities(r.example?.output, `${r.operationId}.output`)]);
    expect(problems).toEqual([]);
    // The checker itself finds what the sampled examples held.
    expect(absurdities({ height: -9007199254740991, as_of_ms: 1, top_block_hash: "example", block: 0 })).toHaveLength(4);
  });

  it("each 402 carries the declared example in a bazaar extension that @x402/extensions validates", async () => {
    const problems: string[] = [];
    for (const r of paid) {
      const path = r.path.replace(":board", "bounties").replace(/:([A-Za-z_]+)/g, "3f2504e0-4f89-41d3-9a0c-0305e82c3301");
      // The probe (no input, no payment): what a crawler that follows the manifest sees.
      const res = await fetch(`${t.url}${path}`, { method: r.method });
      expect(res.status, `${r.operationId}: ${await res.clone().text()}`).toBe(402);
      const header = res.headers.get("payment-required")!;
      expect(header.length, `${r.operationId}: the 402 stays small enough to be echoed back`).toBeLessThan(MAX_PAYMENT_HEADER_BYTES - 2048);
      const required = decodePaymentRequiredHeader(header);
      const bazaar = required.extensions?.bazaar as DiscoveryExtension & { info: { output?: { example?: unknown } } };
      const valid = validateDiscoveryExtension(bazaar);
      if (!valid.valid) problems.push(`${r.operationId}: ${JSON.stringify(valid.errors)}`);
      if (!validateDiscoveryExtensionSpec(bazaar as never).valid) problems.push(`${r.operationId}: the spec rules refuse the extension`);
      expect(bazaar.info.output?.example, r.operationId).toEqual(r.example?.output);
      problems.push(...absurdities(bazaar.info, `${r.operationId} 402 info`));
    }
    expect(problems).toEqual([]);
    expect(JSON.stringify(paid.map((r) => r.example))).not.toContain("9007199254740991");
  });

  it("/.well-known/x402: every resource is a URL a catalogue discovers as itself by following the instructions", async () => {
    const manifest = (await (await fetch(`${t.url}/.well-known/x402`)).json()) as { resources: string[]; instructions: string };
    expect(manifest.resources.length).toBe(paid.filter((r) => !r.path.includes(":")).length);
    expect(manifest.instructions).toMatch(/POST it with no body or \{\}/);
    for (const url of manifest.resources) {
      expect(new URL(url).pathname, url).not.toMatch(/[{}:]/);
      const route = paid.find((r) => `${t.url}${r.path}` === url)!;
      const res = await fetch(url, { method: route.method });
      expect(res.status, `${url}: ${await res.clone().text()}`).toBe(402);
      const required = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
      // What a facilitator's catalogue does with the payment a client builds from this 402.
      const payload = { x402Version: 2, resource: required.resource, accepted: required.accepts[0]!, payload: {}, extensions: required.extensions } as unknown as PaymentPayload;
      const discovered = extractDiscoveryInfo(payload, required.accepts[0]!);
      expect(discovered, url).not.toBeNull();
      expect(discovered!.resourceUrl, url).toBe(url);
      expect((discovered!.discoveryInfo.input as { method?: string }).method, url).toBe(route.method);
    }
    expect(manifest.resources.some((u) => u.includes("/boost"))).toBe(false);
  });
});
