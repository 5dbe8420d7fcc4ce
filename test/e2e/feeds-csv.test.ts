/**
 * GET /v1/premium/builder-bids.csv bought on the devnet: RFC 4180 CSV (read
 * back here by a small strict reader) whose rows are the stored bids in
 * (slot, key) order, the same when read in many small keyset pages; a builder name with a
 * comma and quotes comes back quoted (the CSV writer called with such a name); `limit` and `window` bound it and bad
 * values are a 400 before payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired } from "@x402/core/types";
import { sql } from "kysely";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { readCsv } from "../helpers/csv.js";
import { DEVNET_BUILDERS } from "../../devnet/relays.js";
import { BUILDER_BIDS_COLUMNS, builderBidsCsv } from "../../src/feeds/csv.js";

const ODD_NAME = 'Quasar, "Q" Ltd';
let s: WatchStack;

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  await s.pollRelays();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("GET /v1/premium/builder-bids.csv", () => {
  it("is paid, and bad bounds are a 400 before payment", async () => {
    expect((await s.call("GET", "/v1/premium/builder-bids.csv")).status).toBe(402);
    for (const q of ["limit=0", "limit=100001", "limit=ten", "window=1y"]) {
      expect((await s.call("GET", `/v1/premium/builder-bids.csv?${q}`)).status, q).toBe(400);
    }
    // An unknown parameter is ignored (docs/api.md): the 402 of the route.
    expect((await s.call("GET", "/v1/premium/builder-bids.csv?bogus=1")).status).toBe(402);
  });

  it("streams RFC 4180 CSV equal to the stored bids, the same when read in small keyset pages", async () => {
    const r = await s.payer.payFetch(`${s.url}/v1/premium/builder-bids.csv?window=24h&limit=100000`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(r.headers.get("payment-response")).toBeTruthy();
    const text = await r.text();
    const [header, ...rows] = readCsv(text);
    expect(header).toEqual([...BUILDER_BIDS_COLUMNS]);
    const since = Math.floor(s.clock.now() / 1000) - 86_400;
    const db = await sql<{ slot: string; k: string; v: string }>`
      SELECT slot::text AS slot, builder_pubkey AS k, value_wei::text AS v FROM relay_bids WHERE slot_time_s >= ${String(since)} ORDER BY slot, builder_pubkey`.execute(s.t.db.db);
    expect(db.rows.length).toBeGreaterThan(20);
    expect(rows.map((x) => [x[0], x[3], x[4]])).toEqual(db.rows.map((x) => [x.slot, x.k, x.v]));
    const names = new Map(DEVNET_BUILDERS.map((b) => [b.pubkey, b.name]));
    for (const row of rows.slice(0, 50)) {
      expect(row[2]).toBe(names.get(row[3]!));
      expect(new Date(row[1]!).toISOString()).toBe(row[1]);
      expect(["true", "false"]).toContain(row[6]);
    }
    expect(new Set(rows.map((x) => x[2]))).toEqual(new Set(DEVNET_BUILDERS.map((b) => b.name)));
    // `won` marks the bids whose block a relay delivered.
    const won = await sql<{ slot: string; k: string }>`
      SELECT DISTINCT b.slot::text AS slot, b.builder_pubkey AS k FROM relay_bids b JOIN relay_payloads p ON p.slot = b.slot AND p.builder_pubkey = b.builder_pubkey
      WHERE b.slot_time_s >= ${String(since)}`.execute(s.t.db.db);
    expect(won.rows.length).toBeGreaterThan(5);
    // Read in pages of 7 rows (keyset paging across many queries), the file is the same.
    const ctx = { db: s.t.db.db, clock: s.clock, relays: [], names: new Map(DEVNET_BUILDERS.map((b) => [b.pubkey, b.name])), maxAgeSeconds: 600 };
    const chunks: string[] = [];
    for await (const chunk of builderBidsCsv({ ctx, input: { window: "24h", limit: 100_000 }, pageSize: 7 })) chunks.push(chunk);
    expect(chunks.length).toBe(1 + Math.ceil(rows.length / 7));
    expect(chunks.join("")).toBe(text);
    expect(new Set(rows.filter((x) => x[6] === "true").map((x) => `${x[0]}:${x[3]}`))).toEqual(new Set(won.rows.map((x) => `${x.slot}:${x.k}`)));
  });

  it("quotes a builder name holding a comma and quotes", async () => {
    const quasar = DEVNET_BUILDERS.find((b) => b.name === "Quasar")!;
    const ctx = { db: s.t.db.db, clock: s.clock, relays: [], names: new Map([[quasar.pubkey, ODD_NAME]]), maxAgeSeconds: 600 };
    let text = "";
    for await (const chunk of builderBidsCsv({ ctx, input: { window: "1h", limit: 2000 } })) text += chunk;
    expect(text).toContain(`,"Quasar, ""Q"" Ltd",${quasar.pubkey},`);
    const [, ...rows] = readCsv(text);
    expect(rows.filter((x) => x[3] === quasar.pubkey).every((x) => x[2] === ODD_NAME)).toBe(true);
    expect(rows.some((x) => x[2] === ODD_NAME)).toBe(true);
  });

  it("limit bounds the rows", async () => {
    const r = await s.payer.payFetch(`${s.url}/v1/premium/builder-bids.csv?window=1h&limit=7`);
    expect(r.status).toBe(200);
    const [header, ...rows] = readCsv(await r.text());
    expect(header).toEqual([...BUILDER_BIDS_COLUMNS]);
    expect(rows).toHaveLength(7);
  });

  it("is an MCP tool too: paid in _meta, the CSV comes back as the tool's text", async () => {
    const client = new Client({ name: "csv-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "service_feeds_builder_bids_csv")!;
      expect(tool.outputSchema).toBeUndefined();
      const args = { window: "1h", limit: "5" };
      const unpaid = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
      expect(unpaid.isError).toBe(true);
      const terms = unpaid.structuredContent as unknown as PaymentRequired;
      const paid = (await client.callTool({ name: tool.name, arguments: args, _meta: { "x402/payment": (await s.payer.signFor(terms)).payload } })) as CallToolResult;
      expect(paid.isError ?? false).toBe(false);
      const text = (paid.content[0] as { text: string }).text;
      const [header, ...rows] = readCsv(text);
      expect(header).toEqual([...BUILDER_BIDS_COLUMNS]);
      expect(rows).toHaveLength(5);
      expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true });
    } finally {
      await client.close();
    }
  });
});
