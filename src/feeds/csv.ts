/**
 * GET /v1/premium/builder-bids.csv (docs/feeds.md): every builder's highest
 * bid per slot over a window, as RFC 4180 CSV (header row, CRLF, fields
 * quoted when they hold a comma, a quote or a line break). The rows are read
 * from the database in keyset-paged chunks of CSV_PAGE rows and written out
 * chunk by chunk with csv-stringify: the file is never held whole.
 */
import { sql } from "kysely";
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { formatAtomic, type MoneyUnit } from "../core/money.js";
import type { Queryable } from "../db/types.js";
import { builderName } from "../chains/ethereum/builders.js";
import { namesWithLearned } from "../ingest/index.js";
import { FEED_WINDOW_NAMES, FEED_WINDOWS, type FeedsDeps } from "./builder-stats.js";

const ETH: MoneyUnit = { symbol: "ETH", decimals: 18, scale: 10n ** 18n };

/** Rows read per database query. */
export const CSV_PAGE = 1_000;
export const CSV_MAX_LIMIT = 100_000;
export const CSV_DEFAULT_LIMIT = 10_000;

export const BUILDER_BIDS_COLUMNS = ["slot", "slot_time", "builder", "builder_pubkey", "value_wei", "value_eth", "won"] as const;

const limitMessage = `limit must be an integer from 1 to ${CSV_MAX_LIMIT}`;
/** The `limit` query parameter of every CSV feed: rows, 1 to CSV_MAX_LIMIT, default CSV_DEFAULT_LIMIT. */
export const csvLimitParam = z
  .string()
  .regex(/^\d{1,6}$/, limitMessage)
  .transform(Number)
  .refine((n) => n >= 1 && n <= CSV_MAX_LIMIT, limitMessage)
  .default(CSV_DEFAULT_LIMIT);
export const BuilderBidsCsvInput = z
  .object({
    window: z.enum(FEED_WINDOW_NAMES, { message: `window must be one of: ${FEED_WINDOW_NAMES.join(", ")}` }).default("24h"),
    limit: csvLimitParam,
  })
  .strict();

/** One CSV text chunk per page of rows, the header row first. */
export async function* builderBidsCsv({
  ctx,
  input,
  pageSize = CSV_PAGE,
}: {
  ctx: FeedsDeps;
  input: z.output<typeof BuilderBidsCsvInput>;
  /** Rows per database query (CSV_PAGE unless a test wants many pages from few rows). */
  pageSize?: number;
}): AsyncGenerator<string> {
  const { db } = ctx;
  // Read once per file: reviewed names, then the names learned from blocks.
  const names = await namesWithLearned(db, ctx.names);
  const since = String(Math.floor(ctx.clock.now() / 1000) - FEED_WINDOWS[input.window]);
  const options = { columns: [...BUILDER_BIDS_COLUMNS], record_delimiter: "\r\n" as const };
  yield stringify([BUILDER_BIDS_COLUMNS.map((c) => c)], { record_delimiter: "\r\n" });
  let left = input.limit;
  let after: { slot: string; key: string } | null = null;
  while (left > 0) {
    const page: { slot: string; slot_time_s: string; builder_pubkey: string; v: string; won: boolean }[] = (
      await builderBidsPage(db, since, after, Math.min(pageSize, left))
    ).rows;
    if (page.length === 0) return;
    left -= page.length;
    const last = page[page.length - 1]!;
    after = { slot: last.slot, key: last.builder_pubkey };
    yield stringify(
      page.map((r) => ({
        slot: r.slot,
        slot_time: new Date(Number(r.slot_time_s) * 1000).toISOString(),
        builder: builderName(names, r.builder_pubkey),
        builder_pubkey: r.builder_pubkey,
        value_wei: r.v,
        value_eth: formatAtomic(BigInt(r.v), ETH),
        won: r.won ? "true" : "false",
      })),
      options,
    );
    if (page.length < pageSize) return;
  }
}

function builderBidsPage(db: Queryable, since: string, after: { slot: string; key: string } | null, size: number) {
  const keyset = after === null ? sql`` : sql`AND (b.slot, b.builder_pubkey) > (${after.slot}::bigint, ${after.key})`;
  return sql<{ slot: string; slot_time_s: string; builder_pubkey: string; v: string; won: boolean }>`
    SELECT b.slot::text AS slot, b.slot_time_s::text AS slot_time_s, b.builder_pubkey, b.value_wei::text AS v,
      EXISTS (SELECT 1 FROM relay_payloads p WHERE p.slot = b.slot AND p.builder_pubkey = b.builder_pubkey) AS won
    FROM relay_bids b
    WHERE b.slot_time_s >= ${since} ${keyset}
    ORDER BY b.slot, b.builder_pubkey
    LIMIT ${size}`.execute(db);
}
