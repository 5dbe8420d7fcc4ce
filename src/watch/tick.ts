/**
 * One poll tick: delete expired watches, lease due ones (FOR UPDATE SKIP
 * LOCKED, so any number of workers can share a database), bill idle drain,
 * scan each chain once for all its due watches, write state + ledger +
 * outbox in one transaction per batch, then deliver and release the leases.
 */
import { sql } from "kysely";
import type { WatchesTable } from "../db/schema.js";
import { applyIdleDrain, isPollable, type LedgerEntry, type MeterState } from "./meter.js";
import {
  balanceChanged,
  eventBody,
  expiresAtFor,
  meterColumns,
  meterOf,
  snapshotOf,
  SQL_ROWS_PER_STATEMENT,
  type WatchRow,
} from "./model.js";
import { deliverPending, insertEvents, type PendingEvent } from "./outbox.js";
import type { WatchDeps } from "./deps.js";
import type { ChainId, ScanState, WatchScanInput, WatchScanOutput, BalanceSnapshot } from "../chains/scanner.js";

export interface TickOptions {
  owner: string;
  batchSize: number;
  /** Lease length; a tick must finish its batch within it. */
  leaseSeconds?: number;
  /** Parallel deliveries across watches. */
  deliveryConcurrency?: number;
}

export interface TickStats {
  expired: number;
  claimed: number;
  scanned: number;
  scanErrors: number;
  events: number;
  deliveries: number;
  deliveryFailures: number;
}


type ClaimedWatch = Omit<WatchesTable, "created_at"> & { created_at: Date };

/** Next poll instant with ±10 % jitter so thousands of watches do not align. */
function nextPoll(nowMs: number, pollSeconds: number): Date {
  const jitter = 0.9 + Math.random() * 0.2;
  return new Date(nowMs + Math.round(pollSeconds * 1000 * jitter));
}

async function mapLimit<T>(items: readonly T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) {
      const item = items[i++];
      await fn(item);
    }
  });
  await Promise.all(workers);
}

export async function runWatchTick(deps: WatchDeps, opts: TickOptions): Promise<TickStats> {
  const { db, clock, log } = deps;
  const stats: TickStats = { expired: 0, claimed: 0, scanned: 0, scanErrors: 0, events: 0, deliveries: 0, deliveryFailures: 0 };
  const nowMs = clock.now();
  const now = new Date(nowMs);

  // Expiry: hard delete (the outbox cascades; the ledger is kept).
  const expired = await db.deleteFrom("watches").where("expires_at", "<=", now).executeTakeFirst();
  stats.expired = Number(expired.numDeletedRows);

  const leaseUntil = new Date(nowMs + (opts.leaseSeconds ?? 120) * 1000);
  const claimed = (
    await sql<ClaimedWatch>`
      UPDATE watches SET lease_owner = ${opts.owner}, lease_until = ${leaseUntil}
      WHERE id IN (
        SELECT id FROM watches
        WHERE status = 'active' AND credit_atomic > 0 AND next_poll_at <= ${now}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_poll_at
        LIMIT ${opts.batchSize}
        FOR UPDATE SKIP LOCKED)
      RETURNING *`.execute(db)
  ).rows;
  stats.claimed = claimed.length;
  if (claimed.length === 0) return stats;

  const sameMeter = (a: WatchRow, b: WatchRow) =>
    String(a.credit_atomic) === String(b.credit_atomic) &&
    String(a.drained_through_ms) === String(b.drained_through_ms) &&
    String(a.drain_remainder) === String(b.drain_remainder) &&
    a.low_credit_armed === b.low_credit_armed;

  // Idle drain up to now, for every claimed watch (recomputed in the transaction if a top-up intervened).
  const meters = new Map<string, { state: MeterState; entries: LedgerEntry[]; lowCredit: boolean }>();
  for (const w of claimed) {
    const r = applyIdleDrain(meterOf(w), nowMs);
    meters.set(w.id, { state: r.state, entries: r.entries, lowCredit: r.emitLowCredit });
  }

  // Scan: one call per chain for all of its watches that still have credit.
  const results = new Map<string, WatchScanOutput>();
  const byChain = new Map<ChainId, ClaimedWatch[]>();
  for (const w of claimed) {
    if (!isPollable(meters.get(w.id)!.state)) continue;
    const list = byChain.get(w.chain) ?? [];
    list.push(w);
    byChain.set(w.chain, list);
  }
  for (const [chain, watches] of byChain) {
    const scanner = deps.scanners[chain];
    if (!scanner || !deps.secretBox) {
      stats.scanErrors += watches.length;
      continue;
    }
    // A key that does not open (corrupted row, wrong MASTER_KEY) skips that watch only.
    const inputs: WatchScanInput[] = [];
    for (const w of watches) {
      try {
        inputs.push({
          watchId: w.id,
          address: w.address,
          viewKey: deps.secretBox.open(w.view_key_enc, `viewkey:${w.id}`),
          state: (w.scan_state as ScanState | null) ?? null,
          startHeight: w.start_height,
        });
      } catch (e) {
        stats.scanErrors++;
        log.error({ watchId: w.id, err: (e as Error).message }, "view key does not decrypt; watch skipped");
      }
    }
    try {
      for (const out of await scanner.scanWatches(inputs)) results.set(out.watchId, out);
      stats.scanned += inputs.length;
    } catch (e) {
      stats.scanErrors += inputs.length;
      log.warn({ chain, err: (e as Error).message }, "chain scan failed; watches retried next tick");
    }
  }

  // One transaction for the batch: ledger, outbox, and the watch rows (guarded by our lease).
  type Update = {
    id: string;
    meter: ReturnType<typeof meterColumns>;
    scanState: ScanState | null;
    snapshot: BalanceSnapshot | null;
    initialDone: boolean;
    expiresAt: Date;
    polled: boolean;
    /** Still catching up from the start height, or resumed by a top-up during the tick: due again at once. */
    dueNow: boolean;
  };
  type LedgerRow = { watch_id: string; kind: string; amount_atomic: string; balance_after: string; reason: string; ref: null };

  /** Everything this tick writes for one watch, from its meter as locked in the batch transaction. */
  const plan = (w: ClaimedWatch, locked: WatchRow, events: PendingEvent[], ledger: LedgerRow[]): Update => {
    // A top-up that committed since the lease changed the meter: bill from the fresh row, not the stale copy.
    const m = sameMeter(locked, w) ? meters.get(w.id)! : (({ state, entries, emitLowCredit }) => ({ state, entries, lowCredit: emitLowCredit }))(applyIdleDrain(meterOf(locked), nowMs));
    const identity = { id: w.id, chain: w.chain, address: w.address };
    for (const e of m.entries) {
      ledger.push({ watch_id: w.id, kind: e.kind, amount_atomic: e.amountAtomic.toString(), balance_after: e.balanceAfter.toString(), reason: e.reason, ref: null });
    }
    const previous = snapshotOf(w.snapshot, w.start_height);
    const out = results.get(w.id);
    if (m.lowCredit) {
      events.push({ watchId: w.id, billable: true, body: eventBody(identity, "low_credit", previous, previous, m.state, clock) });
    }
    let initialDone = w.initial_scan_done;
    if (out) {
      if (balanceChanged(previous, out.snapshot)) {
        events.push({ watchId: w.id, billable: true, body: eventBody(identity, "balance_change", previous, out.snapshot, m.state, clock) });
      }
      if (!initialDone && (out.caughtUp ?? true)) {
        initialDone = true;
        events.push({
          watchId: w.id,
          billable: true,
          body: eventBody(identity, "scan_complete", out.snapshot, out.snapshot, m.state, clock, {
            scan: { fromHeight: w.start_height, toHeight: out.snapshot.scannedHeight },
          }),
        });
      }
    }
    return {
      id: w.id,
      meter: meterColumns(m.state),
      scanState: out?.state ?? (w.scan_state as ScanState | null),
      snapshot: out?.snapshot ?? (w.snapshot as BalanceSnapshot | null),
      initialDone,
      expiresAt: expiresAtFor(m.state, nowMs),
      polled: Boolean(out),
      dueNow: out?.caughtUp === false || (!isPollable(meters.get(w.id)!.state) && isPollable(m.state)),
    };
  };

  await db.transaction().execute(async (trx) => {
    // Write only for watches still leased to us: a stall longer than the lease lets another worker
    // take a watch over, and its ledger rows and events would then be booked twice. Locked here, so
    // no other worker can lease them between this check and the writes (and a top-up waits for us).
    const heldRows = await trx
      .selectFrom("watches")
      .select(["id", "credit_atomic", "drained_through_ms", "drain_remainder", "low_credit_armed"])
      .where("id", "in", claimed.map((w) => w.id))
      .where("lease_owner", "=", opts.owner)
      .forUpdate()
      .execute();
    const byId = new Map(claimed.map((w) => [w.id, w]));
    const heldEvents: PendingEvent[] = [];
    const heldLedger: LedgerRow[] = [];
    const updates = heldRows.map((row) => plan(byId.get(row.id)!, row, heldEvents, heldLedger));
    stats.events = heldEvents.length;
    // In chunks: one statement may carry at most 65535 bind parameters (PostgreSQL protocol).
    for (let i = 0; i < heldLedger.length; i += SQL_ROWS_PER_STATEMENT) {
      await trx.insertInto("watch_ledger").values(heldLedger.slice(i, i + SQL_ROWS_PER_STATEMENT)).execute();
    }
    await insertEvents(trx, heldEvents);
    const values = updates.map(
      (u) =>
        sql`(${u.id}::uuid, ${u.meter.credit_atomic}::bigint, ${u.meter.drained_through_ms}::bigint, ${u.meter.drain_remainder}::bigint,
             ${u.meter.low_credit_armed}::boolean, ${u.scanState === null ? null : JSON.stringify(u.scanState)}::jsonb,
             ${u.snapshot === null ? null : JSON.stringify(u.snapshot)}::jsonb, ${u.initialDone}::boolean,
             ${u.expiresAt}::timestamptz, ${u.dueNow ? now : nextPoll(nowMs, deps.pollSeconds)}::timestamptz, ${u.polled}::boolean)`,
    );
    for (let i = 0; i < values.length; i += SQL_ROWS_PER_STATEMENT) {
      await sql`
        UPDATE watches AS w SET
          credit_atomic = v.credit, drained_through_ms = v.drained, drain_remainder = v.remainder,
          low_credit_armed = v.armed, scan_state = v.scan_state, snapshot = v.snapshot,
          initial_scan_done = v.initial_done, expires_at = v.expires_at, next_poll_at = v.next_poll,
          last_polled_at = CASE WHEN v.polled THEN ${now}::timestamptz ELSE w.last_polled_at END
        FROM (VALUES ${sql.join(values.slice(i, i + SQL_ROWS_PER_STATEMENT))}) AS v(id, credit, drained, remainder, armed, scan_state, snapshot, initial_done, expires_at, next_poll, polled)
        WHERE w.id = v.id AND w.lease_owner = ${opts.owner}`.execute(trx);
    }
  });

  // Deliver under the watch lease, then release it.
  const claimedIds = claimed.map((w) => w.id);
  const withEvents = (
    await db
      .selectFrom("webhook_outbox")
      .select("watch_id")
      .distinct()
      .where("watch_id", "in", claimedIds)
      .where("status", "=", "pending")
      .execute()
  ).map((r) => r.watch_id);
  await mapLimit(withEvents, opts.deliveryConcurrency ?? 16, async (id) => {
    const outcomes = await deliverPending(deps, id, opts.owner);
    for (const o of outcomes) {
      if (o.ok) stats.deliveries++;
      else stats.deliveryFailures++;
    }
  });
  await db
    .updateTable("watches")
    .set({ lease_owner: null, lease_until: null })
    .where("id", "in", claimedIds)
    .where("lease_owner", "=", opts.owner)
    .execute();
  return stats;
}
