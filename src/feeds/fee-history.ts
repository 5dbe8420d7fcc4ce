/**
 * GET /v1/premium/fee-history.csv (docs/feeds.md): the stored Ethereum
 * headers (eth_headers, written by the follower) as RFC 4180 CSV, one row per
 * block, oldest first, read in keyset-paged chunks and written chunk by chunk
 * with csv-stringify.
 */
import { sql } from "kysely";
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { formatAtomic, type MoneyUnit } from "../core/money.js";
import { unavailable } from "../core/errors.js";
import type { Queryable } from "../db/types.js";
import { latestHeaderAnyChain } from "../ingest/index.js";
import { CSV_PAGE, csvLimitParam } from "./csv.js";

const GWEI: MoneyUnit = { symbol: "gwei", decimals: 9, scale: 10n ** 9n };

export const FEE_HISTORY_COLUMNS = [
  "block",
  "timestamp",
  "base_fee_wei",
  "base_fee_gwei",
  "gas_used",
  "gas_limit",
  "blob_gas_used",
  "excess_blob_gas",
  "hash",
] as const;

const blockMessage = "from_block must be a block number (decimal integer)";
export const FeeHistoryCsvInput = z
  .object({
    from_block: z.string().regex(/^\d{1,12}$/, blockMessage).transform(BigInt).optional(),
    limit: csvLimitParam,
  })
  .strict();
export type FeeHistoryCsvQuery = z.output<typeof FeeHistoryCsvInput>;

/** The chain and first block of the file; 503 source_stale when no header is stored. */
export async function feeHistoryStart(db: Queryable, input: FeeHistoryCsvQuery): Promise<{ chainId: number; from: bigint }> {
  const head = await latestHeaderAnyChain(db);
  if (!head) throw unavailable("source_stale", "No Ethereum header has been ingested yet.", { source: "eth_rpc", age_s: null });
  const newest = head.number;
  const from = input.from_block ?? (newest - BigInt(input.limit) + 1n > 0n ? newest - BigInt(input.limit) + 1n : 0n);
  return { chainId: head.chainId, from };
}

/** One CSV text chunk per page of headers, the header row first. */
export async function* feeHistoryCsv({
  db,
  start,
  limit,
  pageSize = CSV_PAGE,
}: {
  db: Queryable;
  start: { chainId: number; from: bigint };
  limit: number;
  pageSize?: number;
}): AsyncGenerator<string> {
  yield stringify([[...FEE_HISTORY_COLUMNS]], { record_delimiter: "\r\n" });
  let left = limit;
  let next = start.from;
  while (left > 0) {
    const size = Math.min(pageSize, left);
    const page = (
      await sql<{ number: string; timestamp_s: string; base_fee_wei: string; gas_used: string; gas_limit: string; blob_gas_used: string | null; excess_blob_gas: string | null; hash: string }>`
        SELECT number::text AS number, timestamp_s::text AS timestamp_s, base_fee_wei::text AS base_fee_wei, gas_used::text AS gas_used,
          gas_limit::text AS gas_limit, blob_gas_used::text AS blob_gas_used, excess_blob_gas::text AS excess_blob_gas, hash
        FROM eth_headers WHERE chain_id = ${String(start.chainId)} AND number >= ${next.toString()}
        ORDER BY eth_headers.number LIMIT ${size}`.execute(db)
    ).rows;
    if (page.length === 0) return;
    left -= page.length;
    next = BigInt(page[page.length - 1]!.number) + 1n;
    yield stringify(
      page.map((r) => ({
        block: r.number,
        timestamp: new Date(Number(r.timestamp_s) * 1000).toISOString(),
        base_fee_wei: r.base_fee_wei,
        base_fee_gwei: formatAtomic(BigInt(r.base_fee_wei), GWEI),
        gas_used: r.gas_used,
        gas_limit: r.gas_limit,
        blob_gas_used: r.blob_gas_used ?? "",
        excess_blob_gas: r.excess_blob_gas ?? "",
        hash: r.hash,
      })),
      { columns: [...FEE_HISTORY_COLUMNS], record_delimiter: "\r\n" },
    );
    if (page.length < size) return;
  }
}
