/**
 * GET /v1/premium/fee-history.csv bought on the devnet: the follower ingests
 * the simulated chain, and the CSV (read back by a strict RFC 4180 reader)
 * holds the stored headers, oldest first, bounded by `from_block` and
 * `limit`; bad bounds are a 400 before payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { readCsv } from "../helpers/csv.js";
import { FEE_HISTORY_COLUMNS, feeHistoryCsv } from "../../src/feeds/fee-history.js";

let s: WatchStack;

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  await s.followEthereum();
}, 60_000);

afterAll(async () => {
  await s?.close();
});

const stored = async () =>
  (
    await sql<{ n: string; b: string; h: string; t: string }>`
      SELECT number::text AS n, base_fee_wei::text AS b, hash AS h, timestamp_s::text AS t FROM eth_headers ORDER BY number`.execute(s.t.db.db)
  ).rows;

describe("GET /v1/premium/fee-history.csv", () => {
  it("is paid, and bad bounds are a 400 before payment", async () => {
    expect((await s.call("GET", "/v1/premium/fee-history.csv")).status).toBe(402);
    for (const q of ["limit=0", "limit=100001", "from_block=-1", "from_block=abc"]) {
      expect((await s.call("GET", `/v1/premium/fee-history.csv?${q}`)).status, q).toBe(400);
    }
    // An unknown parameter is ignored (docs/api.md): the 402 of the route.
    expect((await s.call("GET", "/v1/premium/fee-history.csv?bogus=1")).status).toBe(402);
  });

  it("streams the stored headers as RFC 4180 CSV, the newest `limit` blocks by default", async () => {
    const rows = await stored();
    expect(rows.length).toBeGreaterThan(3);
    const r = await s.payer.payFetch(`${s.url}/v1/premium/fee-history.csv?limit=3`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/csv/);
    const [header, ...body] = readCsv(await r.text());
    expect(header).toEqual([...FEE_HISTORY_COLUMNS]);
    expect(body.map((x) => [x[0], x[2], x[8]])).toEqual(rows.slice(-3).map((x) => [x.n, x.b, x.h]));
    for (const x of body) {
      expect(x[1]).toBe(new Date(Number(rows.find((y) => y.n === x[0])!.t) * 1000).toISOString());
      const [whole, frac = ""] = x[3]!.split(".");
      expect(BigInt(whole!) * 10n ** 9n + BigInt(frac.padEnd(9, "0"))).toBe(BigInt(x[2]!));
    }
  });

  it("from_block and limit bound the rows; small keyset pages give the same file", async () => {
    const rows = await stored();
    const from = rows[1]!.n;
    const r = await s.payer.payFetch(`${s.url}/v1/premium/fee-history.csv?from_block=${from}&limit=100000`);
    expect(r.status).toBe(200);
    const text = await r.text();
    const [, ...body] = readCsv(text);
    expect(body.map((x) => x[0])).toEqual(rows.slice(1).map((x) => x.n));
    const chain = Number((await sql<{ c: string }>`SELECT chain_id::text AS c FROM eth_headers LIMIT 1`.execute(s.t.db.db)).rows[0]!.c);
    let paged = "";
    for await (const chunk of feeHistoryCsv({ db: s.t.db.db, start: { chainId: chain, from: BigInt(from) }, limit: 100_000, pageSize: 2 })) paged += chunk;
    expect(paged).toBe(text);
  });
});
