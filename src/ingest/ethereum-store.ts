/**
 * The Ethereum follower's SQL: the headers table (migration 0005) written by
 * the follower job and read by the Ethereum questions. Wei and gas are exact
 * decimal strings in the database and bigints here.
 */
import type { Queryable } from "../db/types.js";
import type { EthHeader } from "../chains/ethereum/rpc.js";
import type { EthHeadersTable } from "../db/schema.js";

export interface StoredHeader extends EthHeader {
  chainId: number;
}

/** A stored header as written (stored_at is the database's). */
type Row = Omit<EthHeadersTable, "stored_at">;

const big = (v: string | null): bigint | null => (v === null ? null : BigInt(v));

function fromRow(r: Row): StoredHeader {
  return {
    chainId: Number(r.chain_id),
    number: BigInt(r.number),
    hash: r.hash,
    parentHash: r.parent_hash,
    timestamp: Number(r.timestamp_s),
    baseFeePerGas: BigInt(r.base_fee_wei),
    gasUsed: BigInt(r.gas_used),
    gasLimit: BigInt(r.gas_limit),
    blobGasUsed: big(r.blob_gas_used),
    excessBlobGas: big(r.excess_blob_gas),
    miner: r.miner,
  };
}

const columns = [
  "chain_id",
  "number",
  "hash",
  "parent_hash",
  "timestamp_s",
  "base_fee_wei",
  "gas_used",
  "gas_limit",
  "blob_gas_used",
  "excess_blob_gas",
  "miner",
] as const;

/** The newest stored header of a chain, or null. */
export async function latestHeader(db: Queryable, chainId: number): Promise<StoredHeader | null> {
  const r = await db
    .selectFrom("eth_headers")
    .select(columns)
    .where("chain_id", "=", String(chainId))
    .orderBy("number", "desc")
    .limit(1)
    .executeTakeFirst();
  return r ? fromRow(r as Row) : null;
}

/** The newest stored header of any chain (when the node cannot tell its chain id). */
export async function latestHeaderAnyChain(db: Queryable): Promise<StoredHeader | null> {
  const r = await db.selectFrom("eth_headers").select(columns).orderBy("timestamp_s", "desc").limit(1).executeTakeFirst();
  return r ? fromRow(r as Row) : null;
}

export async function headerAt(db: Queryable, chainId: number, number: bigint): Promise<StoredHeader | null> {
  const r = await db
    .selectFrom("eth_headers")
    .select(columns)
    .where("chain_id", "=", String(chainId))
    .where("number", "=", number.toString())
    .executeTakeFirst();
  return r ? fromRow(r as Row) : null;
}

export async function countHeaders(db: Queryable, chainId: number): Promise<number> {
  const r = await db
    .selectFrom("eth_headers")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("chain_id", "=", String(chainId))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Stores headers (a re-fetched number replaces the row). */
export async function storeHeaders(db: Queryable, chainId: number, headers: readonly EthHeader[]): Promise<void> {
  if (headers.length === 0) return;
  await db
    .insertInto("eth_headers")
    .values(
      headers.map((h) => ({
        chain_id: String(chainId),
        number: h.number.toString(),
        hash: h.hash,
        parent_hash: h.parentHash,
        timestamp_s: String(h.timestamp),
        base_fee_wei: h.baseFeePerGas.toString(),
        gas_used: h.gasUsed.toString(),
        gas_limit: h.gasLimit.toString(),
        blob_gas_used: h.blobGasUsed?.toString() ?? null,
        excess_blob_gas: h.excessBlobGas?.toString() ?? null,
        miner: h.miner,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["chain_id", "number"]).doUpdateSet((eb) => ({
        hash: eb.ref("excluded.hash"),
        parent_hash: eb.ref("excluded.parent_hash"),
        timestamp_s: eb.ref("excluded.timestamp_s"),
        base_fee_wei: eb.ref("excluded.base_fee_wei"),
        gas_used: eb.ref("excluded.gas_used"),
        gas_limit: eb.ref("excluded.gas_limit"),
        blob_gas_used: eb.ref("excluded.blob_gas_used"),
        excess_blob_gas: eb.ref("excluded.excess_blob_gas"),
        miner: eb.ref("excluded.miner"),
      })),
    )
    .execute();
}

/** Drops the stored blocks from `number` up (a reorg replaced them). */
export async function dropFrom(db: Queryable, chainId: number, number: bigint): Promise<void> {
  await db.deleteFrom("eth_headers").where("chain_id", "=", String(chainId)).where("number", ">=", number.toString()).execute();
}

/** Retention: drops the blocks below `number`. */
export async function pruneBefore(db: Queryable, chainId: number, number: bigint): Promise<number> {
  const r = await db.deleteFrom("eth_headers").where("chain_id", "=", String(chainId)).where("number", "<", number.toString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}
