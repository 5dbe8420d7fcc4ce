/** Hand-written table types, next to the migrations that create them. */
import type { Generated } from "kysely";

export interface PaymentsTable {
  id: string;
  nonce_key: string;
  status: "pending" | "settled" | "failed";
  payer: string;
  route: string;
  /** int8 comes back as a string; convert with BigInt(). */
  amount_atomic: string | bigint;
  network: string;
  nonce: string;
  tx_hash: string | null;
  error: string | null;
  created_at: Generated<Date>;
  settled_at: Date | null;
}

export interface RateLimitsTable {
  key: string;
  points: number;
  expire: string | null;
}

export interface DB {
  payments: PaymentsTable;
  rate_limits: RateLimitsTable;
}
