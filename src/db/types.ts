import type { Kysely, Transaction } from "kysely";
import type { DB } from "./schema.js";

/** Either the pool-backed handle or a transaction's handle. */
export type Queryable = Kysely<DB> | Transaction<DB>;
export type Database = Kysely<DB>;
