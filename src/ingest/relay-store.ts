/**
 * SQL of the relay data (migration 0008): delivered payloads per (slot,
 * relay), each builder's highest bid per slot, and each relay's poll state.
 * The questions count a slot once however many relays delivered it
 * (DISTINCT ON slot, the first relay by id standing for the slot).
 */
import { sql } from "kysely";
import type { Queryable } from "../db/types.js";
import type { BidTrace, ReceivedBid } from "../chains/ethereum/relays.js";
import { slotTime } from "../chains/ethereum/relays.js";

export async function storePayloads(db: Queryable, relay: string, rows: readonly BidTrace[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("relay_payloads")
    .values(
      rows.map((r) => ({
        slot: String(r.slot),
        relay,
        block_number: String(r.blockNumber),
        block_hash: r.blockHash,
        builder_pubkey: r.builderPubkey,
        proposer_fee_recipient: r.proposerFeeRecipient,
        value_wei: r.value.toString(),
        gas_used: r.gasUsed.toString(),
        num_tx: r.numTx,
        slot_time_s: String(slotTime(r.slot)),
      })),
    )
    .onConflict((oc) => oc.columns(["slot", "relay"]).doNothing())
    .execute();
}

/** Keeps each builder's highest bid per slot (over every relay and every poll). */
export async function storeBids(db: Queryable, bids: readonly ReceivedBid[]): Promise<number> {
  const best = new Map<string, ReceivedBid>();
  for (const b of bids) {
    const k = `${b.slot}:${b.builderPubkey}`;
    const cur = best.get(k);
    if (!cur || b.value > cur.value) best.set(k, b);
  }
  if (best.size === 0) return 0;
  await db
    .insertInto("relay_bids")
    .values(
      [...best.values()].map((b) => ({
        slot: String(b.slot),
        builder_pubkey: b.builderPubkey,
        value_wei: b.value.toString(),
        slot_time_s: String(slotTime(b.slot)),
      })),
    )
    .onConflict((oc) => oc.columns(["slot", "builder_pubkey"]).doUpdateSet({ value_wei: sql`greatest(relay_bids.value_wei, excluded.value_wei)` }))
    .execute();
  return best.size;
}

export interface RelaySourceState {
  relay: string;
  lastOkMs: number | null;
  /** Why the last poll failed; null when it succeeded (the relay is up). */
  lastError: string | null;
  lastErrorMs: number | null;
  newestSlot: number | null;
  bidsThroughSlot: number | null;
  walkTop: number | null;
  walkCursor: number | null;
}

const num = (v: string | null) => (v === null ? null : Number(v));

export async function sourceStates(db: Queryable): Promise<Map<string, RelaySourceState>> {
  const rows = await db.selectFrom("relay_sources").selectAll().execute();
  return new Map(
    rows.map((r) => [
      r.relay,
      {
        relay: r.relay,
        lastOkMs: num(r.last_ok_ms),
        lastError: r.last_error,
        lastErrorMs: num(r.last_error_ms),
        newestSlot: num(r.newest_slot),
        bidsThroughSlot: num(r.bids_through_slot),
        walkTop: num(r.walk_top),
        walkCursor: num(r.walk_cursor),
      },
    ]),
  );
}

export interface RelayProgress {
  /** Slot down to which everything is stored (moves only up). */
  newestSlot: number | null;
  bidsThroughSlot: number | null;
  /** A backlog walk in progress (both null when none). */
  walkTop: number | null;
  walkCursor: number | null;
}

const str = (v: number | null) => (v === null ? null : String(v));

export async function noteRelayOk(db: Queryable, relay: string, nowMs: number, p: RelayProgress): Promise<void> {
  const values = {
    last_ok_ms: String(nowMs),
    newest_slot: str(p.newestSlot),
    bids_through_slot: str(p.bidsThroughSlot),
    walk_top: str(p.walkTop),
    walk_cursor: str(p.walkCursor),
  };
  await db
    .insertInto("relay_sources")
    .values({ relay, ...values })
    .onConflict((oc) =>
      oc.column("relay").doUpdateSet({
        last_ok_ms: values.last_ok_ms,
        // A successful poll clears the error: last_error is set only while the relay is down.
        last_error: null,
        newest_slot: sql`greatest(relay_sources.newest_slot, excluded.newest_slot)`,
        bids_through_slot: sql`greatest(relay_sources.bids_through_slot, excluded.bids_through_slot)`,
        walk_top: values.walk_top,
        walk_cursor: values.walk_cursor,
      }),
    )
    .execute();
}

export async function noteRelayError(db: Queryable, relay: string, nowMs: number, error: string): Promise<void> {
  const message = error.slice(0, 300);
  await db
    .insertInto("relay_sources")
    .values({ relay, last_error: message, last_error_ms: String(nowMs) })
    .onConflict((oc) => oc.column("relay").doUpdateSet({ last_error: message, last_error_ms: String(nowMs) }))
    .execute();
}

/** Retention: drops relay data of slots older than `beforeS` (Unix s). */
export async function pruneRelayData(db: Queryable, beforeS: number): Promise<number> {
  const a = await db.deleteFrom("relay_payloads").where("slot_time_s", "<", String(beforeS)).executeTakeFirst();
  const b = await db.deleteFrom("relay_bids").where("slot_time_s", "<", String(beforeS)).executeTakeFirst();
  return Number(a.numDeletedRows) + Number(b.numDeletedRows);
}

/** Newest delivered slot over the given relays (null when none). */
export async function newestSlot(db: Queryable, relays?: readonly string[]): Promise<number | null> {
  let q = db.selectFrom("relay_payloads").select((eb) => eb.fn.max("slot").as("s"));
  if (relays) {
    if (relays.length === 0) return null;
    q = q.where("relay", "in", relays);
  }
  const r = await q.executeTakeFirst();
  return r?.s === null || r?.s === undefined ? null : Number(r.s);
}

export async function countPayloads(db: Queryable, relay: string): Promise<number> {
  const r = await db.selectFrom("relay_payloads").select((eb) => eb.fn.countAll<string>().as("n")).where("relay", "=", relay).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Slots won per builder key in the window (each slot once). */
export async function slotsByBuilder(db: Queryable, sinceS: number): Promise<{ builder: string; slots: number }[]> {
  const r = await sql<{ builder_pubkey: string; n: string }>`
    SELECT builder_pubkey, count(*) AS n FROM (
      SELECT DISTINCT ON (slot) slot, builder_pubkey FROM relay_payloads WHERE slot_time_s >= ${String(sinceS)} ORDER BY slot, relay
    ) d GROUP BY builder_pubkey ORDER BY n DESC, builder_pubkey`.execute(db);
  return r.rows.map((x) => ({ builder: x.builder_pubkey, slots: Number(x.n) }));
}

/** Nearest-rank percentile: the value at rank ceil(p/100 · n) of the n values sorted ascending. */
export function nearestRankIndex(pct: number, n: number): number {
  return Math.max(0, Math.ceil((pct * n) / 100) - 1);
}

/** Delivered values of the window (one per slot): their count and the nearest-rank percentile. */
export async function deliveredValuePercentile(db: Queryable, sinceS: number, pct: number): Promise<{ samples: number; value: bigint | null }> {
  const c = await sql<{ n: string }>`SELECT count(DISTINCT slot) AS n FROM relay_payloads WHERE slot_time_s >= ${String(sinceS)}`.execute(db);
  const n = Number(c.rows[0]?.n ?? 0);
  if (n === 0) return { samples: 0, value: null };
  const r = await sql<{ v: string }>`
    SELECT value_wei::text AS v FROM (
      SELECT DISTINCT ON (slot) slot, value_wei FROM relay_payloads WHERE slot_time_s >= ${String(sinceS)} ORDER BY slot, relay
    ) d ORDER BY value_wei OFFSET ${nearestRankIndex(pct, n)} LIMIT 1`.execute(db);
  return { samples: n, value: BigInt(r.rows[0]!.v) };
}

/** A builder's bids (its highest per slot) in the window: their count and the nearest-rank percentile. */
export async function bidPercentile(db: Queryable, keys: readonly string[], sinceS: number, pct: number): Promise<{ samples: number; value: bigint | null }> {
  if (keys.length === 0) return { samples: 0, value: null };
  const base = db.selectFrom("relay_bids").where("slot_time_s", ">=", String(sinceS)).where("builder_pubkey", "in", keys);
  const c = await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow();
  const n = Number(c.n);
  if (n === 0) return { samples: 0, value: null };
  const r = await base.select(sql<string>`value_wei::text`.as("v")).orderBy("value_wei").offset(nearestRankIndex(pct, n)).limit(1).executeTakeFirstOrThrow();
  return { samples: n, value: BigInt(r.v) };
}

/** Every builder key seen in the window (payloads or bids). */
export async function seenBuilderKeys(db: Queryable, sinceS: number): Promise<string[]> {
  const r = await sql<{ k: string }>`
    SELECT builder_pubkey AS k FROM relay_payloads WHERE slot_time_s >= ${String(sinceS)}
    UNION SELECT builder_pubkey FROM relay_bids WHERE slot_time_s >= ${String(sinceS)}`.execute(db);
  return r.rows.map((x) => x.k);
}

/** The newest delivered slot's payload rows (one per relay that delivered it). */
export interface Delivery {
  slot: number;
  blockNumber: number;
  blockHash: string;
  builder: string;
  feeRecipient: string;
  value: bigint;
  relays: string[];
  hashes: number;
}

/** The delivered block of a slot (the first relay by id standing for it), or null when none is stored. */
export async function deliveryAt(db: Queryable, slot: number): Promise<Delivery | null> {
  const rows = await db.selectFrom("relay_payloads").selectAll().where("slot", "=", String(slot)).orderBy("relay").execute();
  const first = rows[0];
  if (!first) return null;
  return {
    slot,
    blockNumber: Number(first.block_number),
    blockHash: first.block_hash,
    builder: first.builder_pubkey,
    feeRecipient: first.proposer_fee_recipient,
    value: BigInt(first.value_wei),
    relays: rows.filter((r) => r.block_hash === first.block_hash).map((r) => r.relay),
    hashes: new Set(rows.map((r) => r.block_hash)).size,
  };
}

export async function latestDelivery(db: Queryable): Promise<Delivery | null> {
  const top = await newestSlot(db);
  return top === null ? null : deliveryAt(db, top);
}

/** Whether a relay's last poll succeeded. */
export const relayUp = (s: RelaySourceState | undefined): boolean => s?.lastOkMs != null && s.lastError === null;
