/**
 * The relay poller: a background job that ingests every configured MEV-Boost
 * relay's data API into the database (migration 0008). One run polls the
 * relays at once, each on its own (a relay that fails, times out or answers
 * garbage is recorded as down in `relay_sources` and the others go on):
 *   1. proposer_payload_delivered, newest page first, paging back with the
 *      cursor until it meets the slots already stored or the retention
 *      floor; a walk longer than `maxPages` pages goes on in the next run
 *      from where it stopped (its cursor is kept), and only a finished walk
 *      moves the relay's stored-through slot up, so no gap is left;
 *   2. builder_blocks_received for the newest new delivered slots (at most
 *      `bidSlots` a run), reduced to each builder's highest bid per slot;
 *   3. stores both (a slot delivered by several relays is one row per relay,
 *      counted once by the questions) and the relay's state, in one
 *      transaction; prunes what fell out of the retention;
 *   4. learns the names of builder keys no reviewed table names from their
 *      newest delivered block's extra-data (builder-names.ts), when an
 *      Ethereum node is configured; a failing node is logged, the poll is
 *      still ok.
 * Writes are idempotent, so several workers may run it at once.
 */
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import { describeError } from "../core/upstream.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import { slotTime, type BidTrace, type ReceivedBid, type RelayClient } from "../chains/ethereum/relays.js";
import { learnBuilderNames, type BuilderNameLearning } from "./builder-names.js";
import { noteRelayError, noteRelayOk, pruneRelayData, sourceStates, storeBids, storePayloads, type RelayProgress, type RelaySourceState } from "./relay-store.js";

export interface RelayPollerDeps {
  db: Queryable;
  relays: readonly RelayClient[];
  clock: Clock;
  /** Relay data kept, seconds. */
  retentionSeconds: number;
  /** Delivered pages read per relay per run (default 5). */
  maxPages?: number;
  /** Slots whose received bids are read per relay per run (default 8). */
  bidSlots?: number;
  warn?: (info: Record<string, unknown>, message: string) => void;
  /** Learning builder names from their blocks (absent: no learning). */
  learnNames?: BuilderNameLearning;
}

export interface RelayPollResult {
  relay: string;
  ok: boolean;
  delivered: number;
  bids: number;
  error?: string;
  more: boolean;
}

async function pollOne(deps: RelayPollerDeps, relay: RelayClient, known: RelaySourceState | undefined, floorS: number, signal?: AbortSignal) {
  const maxPages = deps.maxPages ?? 5;
  const stored = known?.newestSlot ?? null;
  const fresh: BidTrace[] = [];
  // A walk left unfinished by the last run goes on below its cursor.
  let cursor = known?.walkCursor ?? undefined;
  let top = known?.walkTop ?? null;
  let done = false;
  for (let page = 0; page < maxPages; page++) {
    const rows = await relay.delivered({ cursor }, signal);
    const wanted = rows.filter((r) => (stored === null || r.slot > stored) && slotTime(r.slot) >= floorS);
    fresh.push(...wanted);
    for (const r of wanted) if (top === null || r.slot > top) top = r.slot;
    // Met the stored slots, the retention floor, or the relay's oldest row.
    if (rows.length === 0 || wanted.length < rows.length) {
      done = true;
      break;
    }
    cursor = rows.reduce((m, r) => Math.min(m, r.slot), Number.POSITIVE_INFINITY);
  }
  const progress: RelayProgress = done
    ? { newestSlot: top ?? stored, bidsThroughSlot: null, walkTop: null, walkCursor: null }
    : { newestSlot: stored, bidsThroughSlot: null, walkTop: top, walkCursor: cursor ?? null };
  const bidSlots = [...new Set(fresh.map((r) => r.slot))]
    .filter((s) => known?.bidsThroughSlot == null || s > known.bidsThroughSlot)
    .sort((a, b) => b - a)
    .slice(0, deps.bidSlots ?? 8);
  const bids: ReceivedBid[] = [];
  for (const s of bidSlots) bids.push(...(await relay.received(s, signal)));
  progress.bidsThroughSlot = bidSlots.length ? Math.max(...bidSlots) : null;
  return { fresh, bids, progress, more: !done };
}

/** Polls every relay once; never throws for a relay's failure (it is recorded). */
export async function pollRelaysOnce(deps: RelayPollerDeps, signal?: AbortSignal): Promise<RelayPollResult[]> {
  const { db, clock } = deps;
  const states = await sourceStates(db);
  const floorS = Math.floor(clock.now() / 1000) - deps.retentionSeconds;
  const results = await Promise.all(
    deps.relays.map(async (relay): Promise<RelayPollResult> => {
      const st = states.get(relay.id);
      try {
        const got = await pollOne(deps, relay, st, floorS, signal);
        const bidsStored = await withTransaction(db, async (trx) => {
          await storePayloads(trx, relay.id, got.fresh);
          const n = await storeBids(trx, got.bids);
          await noteRelayOk(trx, relay.id, clock.now(), got.progress);
          return n;
        });
        return { relay: relay.id, ok: true, delivered: got.fresh.length, bids: bidsStored, more: got.more };
      } catch (e) {
        if (signal?.aborted) throw e;
        const error = describeError(e);
        await noteRelayError(db, relay.id, clock.now(), error);
        deps.warn?.({ relay: relay.id, error }, "relay poll failed");
        return { relay: relay.id, ok: false, delivered: 0, bids: 0, error, more: false };
      }
    }),
  );
  await pruneRelayData(db, floorS);
  if (deps.learnNames) {
    try {
      await learnBuilderNames({ ...deps.learnNames, db, clock, ...(deps.warn ? { warn: deps.warn } : {}) }, signal);
    } catch (e) {
      if (signal?.aborted) throw e;
      deps.warn?.({ error: describeError(e) }, "learning builder names failed");
    }
  }
  return results;
}

/** The poller as a background job (one entry of `backgroundJobs`). */
export function relayPollerJob(deps: RelayPollerDeps, intervalMs: number): Job {
  return {
    name: "relay poller",
    intervalMs,
    leaseSeconds: 60,
    run: async (signal) => ({ more: (await pollRelaysOnce(deps, signal)).some((r) => r.more) }),
  };
}
