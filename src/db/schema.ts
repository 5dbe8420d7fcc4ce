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
  /** Migration 0011: idempotent paid work (docs/idempotency.md). */
  request_hash: string | null;
  valid_before: string | bigint | null;
  payment_identifier: string | null;
  response_status: number | null;
  response_sealed: Buffer | null;
  response_expires_at: Date | null;
  work_done: Generated<boolean>;
  checked_at: Date | null;
}

export interface RateLimitsTable {
  key: string;
  points: number;
  expire: string | null;
  /** What the last claim gave its caller (src/core/rate-limit.ts). */
  granted: Generated<number>;
}

export interface WatchesTable {
  id: string;
  chain: "monero" | "zcash";
  network: string;
  address: string;
  view_key_enc: Buffer;
  webhook_secret_enc: Buffer;
  token_hash: Buffer;
  webhook_url: string;
  status: "active" | "cancelled" | "dead";
  funding: string;
  credit_atomic: string | bigint;
  drained_through_ms: string | bigint;
  drain_remainder: string | bigint;
  low_credit_armed: boolean;
  /** Idle drain taken from the credit but not yet booked in the ledger (migration 0012). */
  drain_unbooked_atomic: Generated<string | bigint>;
  /** Start of the period drain_unbooked_atomic covers (ms since epoch). */
  drain_unbooked_from_ms: Generated<string | bigint>;
  start_height: number;
  scan_state: unknown | null;
  snapshot: unknown | null;
  /** Defaults to NULL; written only by the tick. */
  known_outputs: Generated<unknown | null>;
  initial_scan_done: boolean;
  next_poll_at: Date;
  lease_owner: string | null;
  lease_until: Date | null;
  consecutive_failures: number;
  delivery_count: number;
  last_event_type: string | null;
  last_polled_at: Date | null;
  expires_at: Date;
  created_at: Generated<Date>;
  /** The watch's own Monero look-ahead (migration 0026); both null: the server's default. */
  subaddress_accounts: Generated<number | null>;
  subaddress_minors: Generated<number | null>;
  /** The Monero account whose minors 1, 2, … Checkout hands out, one per invoice. */
  invoice_account: Generated<number>;
}

export interface WatchLedgerTable {
  id: Generated<string>;
  watch_id: string;
  kind: string;
  amount_atomic: string | bigint;
  balance_after: string | bigint;
  reason: string;
  ref: string | null;
  created_at: Generated<Date>;
}

export interface WebhookOutboxTable {
  id: string;
  watch_id: string;
  seq: Generated<string>;
  event: string;
  nonce: string;
  body: string;
  billable: boolean;
  status: Generated<"pending" | "delivered" | "abandoned">;
  attempts: Generated<number>;
  last_error: string | null;
  last_status: number | null;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Generated<Date>;
  delivered_at: Date | null;
}

export interface CoinWalletsTable {
  chain: string;
  address: string;
  watch_id: string;
  created_at: Generated<Date>;
}

export type CoinQuoteStatus = "pending" | "confirming" | "settled" | "expired" | "cancelled";

export interface CoinQuotesTable {
  id: string;
  watch_id: string;
  purpose: "topup" | "watch-crypto";
  chain: "monero" | "zcash";
  pay_to: string;
  amount_atomic: string | bigint;
  memo: string | null;
  usd_cents: number;
  credit_atomic: string | bigint;
  rate_num: string;
  rate_den: string;
  confirmations: number;
  status: Generated<CoinQuoteStatus>;
  seen_txid: string | null;
  seen_index: string | null;
  seen_at: Date | null;
  settled_at: Date | null;
  credited_atomic: string | bigint | null;
  expires_at: Date;
  reserved_until: Date;
  created_at: Generated<Date>;
}

export interface CoinReceiptsTable {
  chain: string;
  txid: string;
  output_index: string;
  address: string;
  amount_atomic: string | bigint;
  quote_id: string | null;
  disposition: "matched" | "unmatched" | "reorged" | "reorged_after_settlement" | "watch_gone";
  note: string | null;
  first_seen_at: Date;
  updated_at: Date;
}

export interface NoticesTable {
  id: string;
  board: string;
  handle: string;
  title: string;
  body: string;
  url: string | null;
  contact: string | null;
  /** jsonb array of strings. */
  tags: string[] | string;
  owner_token_hash: Buffer;
  status: "live" | "removed";
  created_ms: string | bigint;
  updated_ms: string | bigint;
  weight_atomic: string | bigint;
  boosts_count: number;
  score_anchor: number;
  score_anchor_ms: string | bigint;
}

export interface NoticeBoostsTable {
  id: string;
  notice_id: string;
  amount_atomic: string | bigint;
  payer: string;
  payment_nonce: string;
  created_ms: string | bigint;
}

export interface EthHeadersTable {
  chain_id: string;
  number: string;
  hash: string;
  parent_hash: string;
  timestamp_s: string;
  base_fee_wei: string;
  gas_used: string;
  gas_limit: string;
  blob_gas_used: string | null;
  excess_blob_gas: string | null;
  miner: string;
  stored_at: Generated<Date>;
}

export interface CheckoutKeysTable {
  id: string;
  watch_id: string;
  key_hash: Buffer;
  label: string | null;
  max_amount_usd_cents: number | null;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

export type InvoiceStatusColumn = "pending" | "confirming" | "paid" | "underpaid" | "expired" | "cancelled";

export interface CheckoutInvoicesTable {
  id: string;
  watch_id: string;
  key_id: string | null;
  chain: "monero" | "zcash";
  pay_to: string;
  amount_atomic: string | bigint;
  tag: string | bigint;
  tag_open: Generated<boolean>;
  /** Zcash: the memo token that names the invoice (migration 0017); null on Monero. */
  memo: string | null;
  usd_cents: number;
  rate_num: string;
  rate_den: string;
  order_id: string | null;
  description: string | null;
  success_url: string | null;
  confirmations: number;
  status: Generated<InvoiceStatusColumn>;
  received_atomic: string | bigint | null;
  seen_txid: string | null;
  seen_index: string | null;
  seen_at: Date | null;
  paid_at: Date | null;
  fee_atomic: string | bigint | null;
  expires_at: Date;
  reserved_until: Date;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Monero subaddresses handed out past a watch's look-ahead: minors 0..minors-1 of `major` (migration 0026). */
export interface WatchIssuedSubaddressesTable {
  watch_id: string;
  major: number;
  minors: number;
}

/** A watch's derived key material, sealed like its view key (migration 0018; src/watch/key-material.ts). */
export interface WatchKeyMaterialTable {
  watch_id: string;
  material_enc: Buffer;
  updated_at: Generated<Date>;
}

export interface DB {
  coin_wallets: CoinWalletsTable;
  coin_quotes: CoinQuotesTable;
  coin_receipts: CoinReceiptsTable;
  checkout_keys: CheckoutKeysTable;
  checkout_invoices: CheckoutInvoicesTable;
  payments: PaymentsTable;
  rate_limits: RateLimitsTable;
  watches: WatchesTable;
  watch_key_material: WatchKeyMaterialTable;
  watch_issued_subaddresses: WatchIssuedSubaddressesTable;
  watch_ledger: WatchLedgerTable;
  webhook_outbox: WebhookOutboxTable;
  notices: NoticesTable;
  notice_boosts: NoticeBoostsTable;
  eth_headers: EthHeadersTable;
  relay_payloads: RelayPayloadsTable;
  relay_bids: RelayBidsTable;
  relay_sources: RelaySourcesTable;
  zcash_pool_snapshots: ZcashPoolSnapshotsTable;
  lending_positions: LendingPositionsTable;
  lending_liquidations: LendingLiquidationsTable;
  lending_cursors: LendingCursorsTable;
  lending_market_terms: LendingMarketTermsTable;
  builder_key_names: BuilderKeyNamesTable;
  x402_channels: X402ChannelsTable;
  x402_channel_ops: X402ChannelOpsTable;
  x402_escrow_cursor: X402EscrowCursorTable;
  job_leases: JobLeasesTable;
}

/** int8 comes back from the driver as a string; write it as a string or a bigint. */
type Int8 = string | bigint;

/** x402 batch-settlement channels (migration 0025; src/x402/channel-store.ts is their one writer). */
export interface X402ChannelsTable {
  channel_id: string;
  version: Generated<Int8>;
  network: string;
  payer: string;
  payer_authorizer: string;
  receiver: string;
  receiver_authorizer: string;
  token: string;
  withdraw_delay: number;
  salt: string;
  charged_atomic: Generated<Int8>;
  signed_max_atomic: Generated<Int8>;
  signature: string | null;
  balance_atomic: Generated<Int8>;
  claimed_atomic: Generated<Int8>;
  withdraw_requested_at: Generated<Int8>;
  refund_nonce: Generated<Int8>;
  onchain_synced_at: Date | null;
  last_request_at: Date | null;
  pending_id: string | null;
  pending_max_atomic: Int8 | null;
  pending_until: Date | null;
  deposited_atomic: Generated<Int8>;
  settled_atomic: Generated<Int8>;
  refunded_atomic: Generated<Int8>;
  withdrawn_atomic: Generated<Int8>;
  forfeited_atomic: Generated<Int8>;
  calls: Generated<Int8>;
  answer_request_hash: string | null;
  answer_status: number | null;
  answer_sealed: Buffer | null;
  closed_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Transactions that moved channel money (migration 0025). */
export interface X402ChannelOpsTable {
  id: string;
  kind: "deposit" | "claim" | "settle" | "refund" | "withdrawal";
  status: "sending" | "confirmed" | "failed";
  network: string;
  channel_id: string | null;
  amount_atomic: Int8 | null;
  /** A claim batch's rows as JSON text on the way in; the driver gives it back parsed. */
  entries: unknown;
  tx_hash: string | null;
  error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface X402EscrowCursorTable {
  network: string;
  block: Int8;
  block_hash: string;
  updated_at: Generated<Date>;
}

/** Named leases of background jobs that one process at a time runs (migration 0025; src/db/job-lease.ts). */
export interface JobLeasesTable {
  name: string;
  owner: string;
  until: Date;
}

/** Borrowers with debt per lending market (migration 0013); base = USD with 8 decimals, HF scaled 1e18. */
export interface LendingPositionsTable {
  market: string;
  borrower: string;
  collateral_base: string;
  debt_base: string;
  liquidation_threshold_bps: number;
  health_factor_wad: string;
  /** Morpho Blue market id inside the singleton (migration 0019); '' for pooled markets. */
  sub_market: Generated<string>;
  first_seen_block: string;
  refreshed_block: string;
  refreshed_ms: string;
  /**
   * Aave V3 / SparkLend (migration 0022): the position's collateral reserve with the highest liquidation bonus
   * (its asset, lower-case), that bonus (bps above 100 %) and its liquidation protocol fee (bps); null when not read,
   * and for Compound V3 and Morpho Blue.
   */
  collateral_reserve: string | null;
  reserve_bonus_bps: number | null;
  reserve_protocol_fee_bps: number | null;
  /** Aave V3 / SparkLend (migration 0023): the account's eMode category id when reserve_bonus_bps is that category's bonus; null otherwise. */
  emode_category: Generated<number | null>;
}

/** LiquidationCall events (migration 0013). */
export interface LendingLiquidationsTable {
  market: string;
  block_number: string;
  log_index: number;
  block_hash: string;
  tx_hash: string;
  block_time_s: string;
  borrower: string;
  liquidator: string;
  collateral_asset: string;
  debt_asset: string;
  debt_to_cover: string;
  collateral_amount: string;
  debt_base: string | null;
  /** Morpho Blue market id (migration 0019); '' for pooled markets. */
  sub_market: Generated<string>;
}

/** Liquidation terms per lending market as last read from the chain (migration 0020). */
export interface LendingMarketTermsTable {
  market: string;
  bonus_bps: number;
  protocol_fee_bps: number;
  /** 'aave_reserve' | 'comet_storefront' */
  source: string;
  detail: string;
  read_block: string;
  read_ms: string;
}

/** The lending indexer's state per market (migration 0013). */
export interface LendingCursorsTable {
  market: string;
  chain_id: string;
  last_block: string | null;
  last_block_time_s: string | null;
  last_refresh_ms: string | null;
  last_ok_ms: string | null;
  last_error: string | null;
  last_error_ms: string | null;
  eth_price_base: string | null;
}

/** Zcash value pools every snapshot interval (migration 0010): one row per interval bucket; zatoshi as decimal strings. */
export interface ZcashPoolSnapshotsTable {
  bucket_ms: string;
  t_ms: string;
  height: string;
  transparent_zat: string;
  sprout_zat: string;
  sapling_zat: string;
  orchard_zat: string;
  ironwood_zat: string;
  lockbox_zat: string;
}

/** Winning bids a relay delivered to a proposer (migration 0008): one row per (slot, relay). */
export interface RelayPayloadsTable {
  slot: string;
  relay: string;
  block_number: string;
  block_hash: string;
  builder_pubkey: string;
  proposer_fee_recipient: string;
  value_wei: string;
  gas_used: string;
  num_tx: number;
  slot_time_s: string;
}

/** Each builder's highest bid per slot over every relay (migration 0008). */
export interface RelayBidsTable {
  slot: string;
  builder_pubkey: string;
  value_wei: string;
  slot_time_s: string;
}

/** Builder names learned from the extra-data of a key's delivered block (migration 0021). */
export interface BuilderKeyNamesTable {
  pubkey: string;
  /** The builder the tag names (builders.ts builderFromExtraData); null when it names none known. */
  name: string | null;
  /** The block's extra-data as text (invalid UTF-8 replaced, bounded). */
  tag: string;
  block_number: string;
  block_hash: string;
  learned_ms: string;
}

/** Each relay's poll state (migration 0008): what data-freshness reports. */
export interface RelaySourcesTable {
  relay: string;
  last_ok_ms: string | null;
  last_error: string | null;
  last_error_ms: string | null;
  newest_slot: string | null;
  bids_through_slot: string | null;
  walk_top: string | null;
  walk_cursor: string | null;
}
