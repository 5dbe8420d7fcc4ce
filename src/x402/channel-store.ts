/**
 * The x402 batch-settlement channels in the database, and the one writer of
 * their tables (`x402_channels`, `x402_channel_ops`, `x402_escrow_cursor`;
 * DESIGN.md "Ownership", held by test/x402/channel-store-owner.test.ts).
 *
 * `channelStorage(db)` is @x402/evm's `ChannelStorage` over PostgreSQL or
 * PGlite: `updateChannel(id, update)` is atomic across every process that
 * shares the database, without a lock held between statements. Each row has
 * a `version`; a write names the version its `current` was read at
 * (compare-and-swap), and a write that lost the race reads the row again and
 * runs `update` again, so no concurrent change can come between the read and
 * the write of one call. `update` must therefore be a pure function of
 * `current` (the official callbacks are). Inside a transaction the write
 * joins it and holds the row's lock until the transaction ends: a request
 * whose work and charge commit together makes every other writer of that
 * channel wait, then retry against what it committed.
 *
 * Cost: the last version seen of each channel is kept in the process, so an
 * update of a channel this process wrote last is one UPDATE statement; a
 * stale copy only costs the retry. An update whose callback declines to
 * write on a kept copy is checked against a fresh read before it is
 * believed, so a decision never rests on a stale copy.
 *
 * A record the protocol deletes (a channel refunded to the end) is kept
 * with `closed_at` set, for its history; get() and list() no longer see it,
 * and a later write reopens it.
 *
 * The other statements (the ledger of channel transactions, bookkeeping
 * totals, the keeper's work lists and the operator's listing) are named
 * below; every function runs on the handle it is given and opens no
 * transaction of its own.
 */
import { randomUUID } from "node:crypto";
import { sql, type Selectable } from "kysely";
import { LRUCache } from "lru-cache";
import type { Channel, ChannelStorage, ChannelUpdateResult } from "@x402/evm/batch-settlement/server";
import type { X402ChannelOpsTable, X402ChannelsTable } from "../db/schema.js";
import type { Queryable } from "../db/types.js";

/** The latest charged call's answer, sealed, kept for a retry of the same voucher (docs/idempotency.md). */
export interface ChannelAnswer {
  requestHash: string;
  status: number;
  sealed: Buffer;
}

/** The official record plus the answer of its latest charge (carried along by official callbacks' spreads). */
export interface StoredChannel extends Channel {
  answer?: ChannelAnswer | null;
}

export type ChannelRow = Selectable<X402ChannelsTable>;
export type ChannelOpRow = Selectable<X402ChannelOpsTable>;

/** What a row is to the storage: its version, and the record unless the channel is closed. */
interface Versioned {
  version: bigint;
  channel: StoredChannel | undefined;
}

const INT8_MAX = (1n << 63n) - 1n;
/** An update that keeps losing races this many times in a row is reported, not retried forever. */
const MAX_ATTEMPTS = 16;

/** A channel id as stored: lower case, 32 bytes of hex. */
export function channelKey(channelId: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(channelId)) throw new Error("invalid channel id");
  return channelId.toLowerCase();
}

/** An amount of the official record (a decimal string) as an int8 column value. */
function int8(value: string | number, field: string): string {
  const v = BigInt(value);
  if (v < 0n || v > INT8_MAX) throw new Error(`${field} is out of range`);
  return v.toString();
}

const ms = (d: Date | null) => (d ? d.getTime() : undefined);

function channelOfRow(r: ChannelRow): StoredChannel {
  const channel: StoredChannel = {
    channelId: r.channel_id,
    channelConfig: {
      payer: r.payer as `0x${string}`,
      payerAuthorizer: r.payer_authorizer as `0x${string}`,
      receiver: r.receiver as `0x${string}`,
      receiverAuthorizer: r.receiver_authorizer as `0x${string}`,
      token: r.token as `0x${string}`,
      withdrawDelay: r.withdraw_delay,
      salt: r.salt as `0x${string}`,
    },
    chargedCumulativeAmount: String(r.charged_atomic),
    signedMaxClaimable: String(r.signed_max_atomic),
    signature: r.signature ?? "",
    balance: String(r.balance_atomic),
    totalClaimed: String(r.claimed_atomic),
    withdrawRequestedAt: Number(r.withdraw_requested_at),
    refundNonce: Number(r.refund_nonce),
    lastRequestTimestamp: ms(r.last_request_at) ?? 0,
  };
  const synced = ms(r.onchain_synced_at);
  if (synced !== undefined) channel.onchainSyncedAt = synced;
  if (r.pending_id && r.pending_until) {
    channel.pendingRequest = { pendingId: r.pending_id, signedMaxClaimable: String(r.pending_max_atomic ?? 0), expiresAt: r.pending_until.getTime() };
  }
  channel.answer =
    r.answer_request_hash && r.answer_sealed && r.answer_status !== null
      ? { requestHash: r.answer_request_hash, status: r.answer_status, sealed: r.answer_sealed }
      : null;
  return channel;
}

/** The columns a record writes (everything of the official record, and the answer). */
function columnsOf(c: StoredChannel, network: string) {
  const cfg = c.channelConfig;
  const pending = c.pendingRequest;
  return {
    network,
    payer: cfg.payer,
    payer_authorizer: cfg.payerAuthorizer,
    receiver: cfg.receiver,
    receiver_authorizer: cfg.receiverAuthorizer,
    token: cfg.token,
    withdraw_delay: cfg.withdrawDelay,
    salt: cfg.salt,
    charged_atomic: int8(c.chargedCumulativeAmount, "chargedCumulativeAmount"),
    signed_max_atomic: int8(c.signedMaxClaimable, "signedMaxClaimable"),
    signature: c.signature || null,
    balance_atomic: int8(c.balance, "balance"),
    claimed_atomic: int8(c.totalClaimed, "totalClaimed"),
    withdraw_requested_at: String(c.withdrawRequestedAt),
    refund_nonce: String(c.refundNonce),
    onchain_synced_at: c.onchainSyncedAt !== undefined ? new Date(c.onchainSyncedAt) : null,
    last_request_at: c.lastRequestTimestamp ? new Date(c.lastRequestTimestamp) : null,
    pending_id: pending?.pendingId ?? null,
    pending_max_atomic: pending ? int8(pending.signedMaxClaimable, "pendingRequest.signedMaxClaimable") : null,
    pending_until: pending ? new Date(pending.expiresAt) : null,
    answer_request_hash: c.answer?.requestHash ?? null,
    answer_status: c.answer?.status ?? null,
    answer_sealed: c.answer?.sealed ?? null,
    closed_at: null,
  };
}

async function readVersioned(db: Queryable, key: string): Promise<Versioned | undefined> {
  const row = await db.selectFrom("x402_channels").selectAll().where("channel_id", "=", key).executeTakeFirst();
  if (!row) return undefined;
  return { version: BigInt(row.version), channel: row.closed_at ? undefined : channelOfRow(row) };
}

export interface ChannelStorageOptions {
  /** The CAIP-2 network the channels are on (stored with each row). */
  network: string;
  /** The process's copies of recently written channels; share one per process (default: a new one). */
  cache?: ChannelCache;
}

/** Recently seen versions of channels, kept per process. */
export type ChannelCache = LRUCache<string, Versioned>;
export const newChannelCache = (): ChannelCache => new LRUCache<string, Versioned>({ max: 10_000 });

/** @x402/evm's ChannelStorage over the database (see the header). `on(trx)` is the same storage inside a transaction. */
export interface DbChannelStorage extends ChannelStorage {
  get(channelId: string): Promise<StoredChannel | undefined>;
  list(): Promise<StoredChannel[]>;
  updateChannel(channelId: string, update: (current: StoredChannel | undefined) => StoredChannel | undefined): Promise<ChannelUpdateResult & { channel: StoredChannel | undefined }>;
  /** The record as this process last wrote or read it (`kept`), else as read now; a copy may be stale. */
  peek(channelId: string): Promise<{ channel: StoredChannel | undefined; kept: boolean }>;
  on(db: Queryable): DbChannelStorage;
}

export function channelStorage(db: Queryable, options: ChannelStorageOptions): DbChannelStorage {
  const cache = options.cache ?? newChannelCache();
  const write = (handle: Queryable, key: string, seen: Versioned | undefined, next: StoredChannel | undefined) => writeVersion(handle, options.network, key, seen, next);
  /** One try of an update against `seen`: the outcome, "retry" when another write came first, "recheck" when a kept copy declined. */
  const attempt = async (handle: Queryable, key: string, seen: Versioned | undefined, kept: boolean, update: Update) => {
    const next = update(seen?.channel);
    if (next === seen?.channel || (!next && !seen?.channel)) {
      return kept ? ("recheck" as const) : { channel: seen?.channel, status: "unchanged" as const };
    }
    const version = await write(handle, key, seen, next);
    if (version === undefined) {
      cache.delete(key);
      return "retry" as const;
    }
    cache.set(key, { version, channel: next });
    return { channel: next, status: next ? ("updated" as const) : ("deleted" as const) };
  };
  return {
    async get(channelId) {
      return (await readVersioned(db, channelKey(channelId)))?.channel;
    },
    async list() {
      const rows = await db.selectFrom("x402_channels").selectAll().where("closed_at", "is", null).where("network", "=", options.network).execute();
      return rows.map(channelOfRow);
    },
    async updateChannel(channelId, update) {
      const key = channelKey(channelId);
      // Optimistic: the kept copy, then a fresh read (no lock held between statements).
      const kept = cache.get(key);
      const first = await attempt(db, key, kept ?? (await readVersioned(db, key)), kept !== undefined, update);
      if (typeof first === "object") return first;
      const second = await attempt(db, key, await readVersioned(db, key), false, update);
      if (typeof second === "object") return second;
      // Contended: read under the row's lock, so concurrent writers take turns instead of retrying without end.
      return lockedUpdate(db, key, (handle, seen) => attempt(handle, key, seen, false, update));
    },
    async peek(channelId) {
      const key = channelKey(channelId);
      const kept = cache.get(key);
      if (kept) return { channel: kept.channel, kept: true };
      const read = await readVersioned(db, key);
      if (read) cache.set(key, read);
      return { channel: read?.channel, kept: false };
    },
    on: (other) => channelStorage(other, { ...options, cache }),
  };
}

type Update = (current: StoredChannel | undefined) => StoredChannel | undefined;
type Attempt = (handle: Queryable, seen: Versioned | undefined) => Promise<"retry" | "recheck" | { channel: StoredChannel | undefined; status: "updated" | "unchanged" | "deleted" }>;

/** The update with the row read FOR UPDATE in a transaction (joining the caller's, if it has one). */
async function lockedUpdate(db: Queryable, key: string, tryOnce: Attempt) {
  for (let round = 0; round < MAX_ATTEMPTS; round++) {
    const run = async (trx: Queryable) => {
      const row = await trx.selectFrom("x402_channels").selectAll().where("channel_id", "=", key).forUpdate().executeTakeFirst();
      return tryOnce(trx, row ? { version: BigInt(row.version), channel: row.closed_at ? undefined : channelOfRow(row) } : undefined);
    };
    const outcome = db.isTransaction ? await run(db) : await db.transaction().execute(run);
    // A row inserted by another writer meanwhile (nothing was there to lock) is locked on the next round.
    if (typeof outcome === "object") return outcome;
  }
  throw new Error(`channel ${key}: the update kept losing to concurrent writes`);
}

/**
 * Writes `next` over the version `seen` was read at (a new row when there was none; `undefined` closes
 * the row); the new version, or undefined when another write came first.
 */
async function writeVersion(db: Queryable, network: string, key: string, seen: Versioned | undefined, next: StoredChannel | undefined): Promise<bigint | undefined> {
  if (!seen) {
    if (!next) return undefined;
    const row = await db
      .insertInto("x402_channels")
      .values({ channel_id: key, ...columnsOf(next, network), calls: String(callsAdded(undefined, next)) })
      .onConflict((oc) => oc.column("channel_id").doNothing())
      .returning("version")
      .executeTakeFirst();
    return row ? BigInt(row.version) : undefined;
  }
  if (!next) {
    const row = await db
      .updateTable("x402_channels")
      .set({ closed_at: new Date(), pending_id: null, pending_max_atomic: null, pending_until: null, version: sql<string>`version + 1`, updated_at: new Date() })
      .where("channel_id", "=", key)
      .where("version", "=", seen.version.toString())
      .returning("version")
      .executeTakeFirst();
    return row ? BigInt(row.version) : undefined;
  }
  return updateRecord(db, key, seen, next, network);
}

/**
 * The update of a record over the version it was read at: the paid call's hot write (one statement a call), as one
 * SQL text rather than a query builder's (bench:http, voucher scenario: the builder's work was a tenth of a call).
 */
async function updateRecord(db: Queryable, key: string, seen: Versioned, next: StoredChannel, network: string): Promise<bigint | undefined> {
  const c = columnsOf(next, network);
  const { rows } = await sql<{ version: string }>`
    UPDATE x402_channels SET
      network = ${c.network}, payer = ${c.payer}, payer_authorizer = ${c.payer_authorizer}, receiver = ${c.receiver},
      receiver_authorizer = ${c.receiver_authorizer}, token = ${c.token}, withdraw_delay = ${c.withdraw_delay}, salt = ${c.salt},
      charged_atomic = ${c.charged_atomic}, signed_max_atomic = ${c.signed_max_atomic}, signature = ${c.signature},
      balance_atomic = ${c.balance_atomic}, claimed_atomic = ${c.claimed_atomic}, withdraw_requested_at = ${c.withdraw_requested_at},
      refund_nonce = ${c.refund_nonce}, onchain_synced_at = ${c.onchain_synced_at}, last_request_at = ${c.last_request_at},
      pending_id = ${c.pending_id}, pending_max_atomic = ${c.pending_max_atomic}, pending_until = ${c.pending_until},
      answer_request_hash = ${c.answer_request_hash}, answer_status = ${c.answer_status}, answer_sealed = ${c.answer_sealed},
      closed_at = NULL, calls = calls + ${callsAdded(seen.channel, next)}, version = version + 1, updated_at = now()
    WHERE channel_id = ${key} AND version = ${seen.version.toString()}
    RETURNING version`.execute(db);
  return rows[0] ? BigInt(rows[0].version) : undefined;
}

/** A write that raises the charged amount is one more paid call. */
function callsAdded(before: StoredChannel | undefined, next: StoredChannel): number {
  return BigInt(next.chargedCumulativeAmount) > BigInt(before?.chargedCumulativeAmount ?? "0") ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Bookkeeping beside the official record.

export type Tally = "deposited_atomic" | "settled_atomic" | "refunded_atomic" | "withdrawn_atomic" | "forfeited_atomic";

/** Adds to one of a channel's bookkeeping totals (a deposit made, a refund, a withdrawal, a forfeited charge). */
export async function addToTally(db: Queryable, channelId: string, tally: Tally, amount: bigint): Promise<void> {
  if (amount <= 0n) return;
  await db
    .updateTable("x402_channels")
    .set({ [tally]: sql`${sql.ref(tally)} + ${amount.toString()}`, updated_at: new Date() })
    .where("channel_id", "=", channelKey(channelId))
    .execute();
}

/** What of a channel's charges the chain can no longer pay (the payer withdrew before they were claimed), as the keeper last saw it. */
export async function setForfeited(db: Queryable, channelId: string, amount: bigint): Promise<void> {
  await db
    .updateTable("x402_channels")
    .set({ forfeited_atomic: amount.toString(), updated_at: new Date() })
    .where("channel_id", "=", channelKey(channelId))
    .where("forfeited_atomic", "!=", amount.toString())
    .execute();
}

/** After a settlement to `receiver`: everything claimed of its channels in `token` has been swept to it. */
export async function markSettled(db: Queryable, network: string, receiver: string, token: string): Promise<void> {
  await db
    .updateTable("x402_channels")
    .set({ settled_atomic: sql`claimed_atomic`, updated_at: new Date() })
    .where("network", "=", network)
    .where(sql<boolean>`lower(receiver) = ${receiver.toLowerCase()} AND lower(token) = ${token.toLowerCase()}`)
    .where(sql<boolean>`settled_atomic < claimed_atomic`)
    .execute();
}

// ---------------------------------------------------------------------------
// The ledger of channel transactions.

export interface NewOp {
  kind: ChannelOpRow["kind"];
  network: string;
  channelId?: string;
  amount?: bigint;
  entries?: unknown;
  txHash?: string;
  status?: ChannelOpRow["status"];
  error?: string;
}

/** Records a transaction (by default `sending`: about to be handed to the facilitator); returns its id. */
export async function insertOp(db: Queryable, op: NewOp): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto("x402_channel_ops")
    .values({
      id,
      kind: op.kind,
      status: op.status ?? "sending",
      network: op.network,
      channel_id: op.channelId ? channelKey(op.channelId) : null,
      amount_atomic: op.amount?.toString() ?? null,
      entries: op.entries === undefined ? null : JSON.stringify(op.entries),
      tx_hash: op.txHash ?? null,
      error: op.error ?? null,
    })
    .execute();
  return id;
}

/**
 * Finishes a `sending` row with its outcome; false when it was finished already (by the process that sent it, or
 * by the keeper from the chain): whoever finishes a row does what its outcome asks for (a deposit's tally), once.
 */
export async function finishOp(db: Queryable, id: string, outcome: { status: "confirmed" | "failed"; txHash?: string; amount?: bigint; error?: string; entries?: unknown }): Promise<boolean> {
  const r = await db
    .updateTable("x402_channel_ops")
    .set({
      status: outcome.status,
      ...(outcome.txHash !== undefined ? { tx_hash: outcome.txHash } : {}),
      ...(outcome.amount !== undefined ? { amount_atomic: outcome.amount.toString() } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...(outcome.entries !== undefined ? { entries: JSON.stringify(outcome.entries) } : {}),
      updated_at: new Date(),
    })
    .where("id", "=", id)
    .where("status", "=", "sending")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Notes the transaction of a row still `sending` (its outcome unknown: the keeper settles it from the chain). */
export async function noteOpTx(db: Queryable, id: string, txHash: string): Promise<void> {
  await db.updateTable("x402_channel_ops").set({ tx_hash: txHash, updated_at: new Date() }).where("id", "=", id).execute();
}

/** Rows still `sending` of one kind whose transaction's hash was never noted (their process died before the facilitator answered), oldest first. */
export function opsWithoutTx(db: Queryable, network: string, kind: ChannelOpRow["kind"]): Promise<ChannelOpRow[]> {
  return db.selectFrom("x402_channel_ops").selectAll().where("status", "=", "sending").where("tx_hash", "is", null).where("kind", "=", kind).where("network", "=", network).orderBy("created_at").execute();
}

/** Whether a transaction is already the hash of a ledger row (a transaction is one row's). */
export async function opOfTx(db: Queryable, txHash: string): Promise<boolean> {
  return (await db.selectFrom("x402_channel_ops").select("id").where("tx_hash", "=", txHash).executeTakeFirst()) !== undefined;
}

/** Rows still `sending`: in flight, left by a process that died, or with an outcome not known (the keeper reconciles them). */
export function openOps(db: Queryable, network: string): Promise<ChannelOpRow[]> {
  return db.selectFrom("x402_channel_ops").selectAll().where("status", "=", "sending").where("network", "=", network).orderBy("created_at").execute();
}

/** A channel's transactions, newest first. */
export function opsOf(db: Queryable, channelId: string, limit = 50): Promise<ChannelOpRow[]> {
  return db.selectFrom("x402_channel_ops").selectAll().where("channel_id", "=", channelKey(channelId)).orderBy("created_at", "desc").limit(limit).execute();
}

// ---------------------------------------------------------------------------
// The keeper's reading and the escrow cursor.

/** Open channels with charges not yet claimed, least recently used first. */
export function unclaimedChannels(db: Queryable, network: string, limit: number): Promise<ChannelRow[]> {
  return db
    .selectFrom("x402_channels")
    .selectAll()
    .where("network", "=", network)
    .where(sql<boolean>`charged_atomic > claimed_atomic`)
    .orderBy("last_request_at")
    .limit(limit)
    .execute();
}

/** Open channels holding unspent money whose last call is older than `idleSince` (cooperative refund candidates). */
export function idleChannels(db: Queryable, network: string, idleSince: Date, limit: number): Promise<ChannelRow[]> {
  return db
    .selectFrom("x402_channels")
    .selectAll()
    .where("network", "=", network)
    .where("closed_at", "is", null)
    .where(sql<boolean>`balance_atomic > charged_atomic`)
    .where("withdraw_requested_at", "=", "0")
    .where((eb) => eb.or([eb("last_request_at", "<", idleSince), eb("last_request_at", "is", null)]))
    .orderBy("last_request_at")
    .limit(limit)
    .execute();
}

/** Every open channel of a network (the keeper's first sync). */
export function openChannelRows(db: Queryable, network: string): Promise<ChannelRow[]> {
  return db.selectFrom("x402_channels").selectAll().where("network", "=", network).where("closed_at", "is", null).execute();
}

/** Channels by id (the keeper matches the escrow's events against them). */
export function channelsByIds(db: Queryable, ids: readonly string[]): Promise<ChannelRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("x402_channels").selectAll().where("channel_id", "in", ids.map(channelKey)).execute();
}

export async function escrowCursor(db: Queryable, network: string): Promise<{ block: bigint; hash: string } | undefined> {
  const row = await db.selectFrom("x402_escrow_cursor").select(["block", "block_hash"]).where("network", "=", network).executeTakeFirst();
  return row ? { block: BigInt(row.block), hash: row.block_hash } : undefined;
}

export async function setEscrowCursor(db: Queryable, network: string, block: bigint, hash: string): Promise<void> {
  await db
    .insertInto("x402_escrow_cursor")
    .values({ network, block: block.toString(), block_hash: hash })
    .onConflict((oc) => oc.column("network").doUpdateSet({ block: block.toString(), block_hash: hash, updated_at: new Date() }))
    .execute();
}

// ---------------------------------------------------------------------------
// The operator's view.

/** Every channel (open or closed, of every network), newest first, for `vigil payments channels`. */
export function allChannels(db: Queryable, limit = 10_000): Promise<ChannelRow[]> {
  return db.selectFrom("x402_channels").selectAll().orderBy("created_at", "desc").limit(limit).execute();
}

/** Sums over every channel of a network, for /metrics and the listing's footer. */
export async function channelTotals(db: Queryable, network: string) {
  const row = await db
    .selectFrom("x402_channels")
    .select((eb) => [
      eb.fn.countAll<string>().as("channels"),
      sql<string>`count(*) FILTER (WHERE closed_at IS NULL)`.as("open"),
      sql<string>`coalesce(sum(deposited_atomic), 0)`.as("deposited"),
      sql<string>`coalesce(sum(balance_atomic), 0)`.as("balance"),
      sql<string>`coalesce(sum(charged_atomic), 0)`.as("charged"),
      sql<string>`coalesce(sum(claimed_atomic), 0)`.as("claimed"),
      sql<string>`coalesce(sum(settled_atomic), 0)`.as("settled"),
      sql<string>`coalesce(sum(refunded_atomic), 0)`.as("refunded"),
      sql<string>`coalesce(sum(withdrawn_atomic), 0)`.as("withdrawn"),
      sql<string>`coalesce(sum(forfeited_atomic), 0)`.as("forfeited"),
      sql<string>`coalesce(sum(greatest(charged_atomic - claimed_atomic - forfeited_atomic, 0)), 0)`.as("unclaimed"),
    ])
    .where("network", "=", network)
    .executeTakeFirstOrThrow();
  const big = (v: string | number | bigint) => BigInt(v);
  return {
    channels: Number(row.channels),
    open: Number(row.open),
    deposited: big(row.deposited),
    balance: big(row.balance),
    charged: big(row.charged),
    claimed: big(row.claimed),
    settled: big(row.settled),
    refunded: big(row.refunded),
    withdrawn: big(row.withdrawn),
    forfeited: big(row.forfeited),
    unclaimed: big(row.unclaimed),
  };
}
