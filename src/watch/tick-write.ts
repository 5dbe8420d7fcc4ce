/**
 * The tick's one transaction per batch: ledger rows, outbox events and the
 * watch rows (written by the account, account.ts), then the scan findings
 * handed to the subscribers. Only watches still leased to this worker are
 * written: they are locked first, so no other worker can lease them between
 * the check and the writes (and a top-up waits for the commit). A
 * subscriber that throws rolls it all back.
 *
 * Round trips: one locking SELECT, then multi-row statements of at most
 * SQL_ROWS_PER_STATEMENT rows (the 65535 bind-parameter limit) for the
 * ledger, the outbox and the watch rows (with the findings memory of the
 * watches whose outputs changed, and the leases of the watches with nothing
 * to deliver handed back: account.ts).
 */
import type { Database } from "../db/types.js";
import type { Clock } from "../core/clock.js";
import { hasFindings, type KnownOutput, type ScanSubscriber, type WatchFindings } from "./findings.js";
import { writeKeyMaterial } from "./key-material.js";
import { writeTickAccounts, type LedgerRow, type PendingEvent, type WatchUpdate } from "./account.js";
import type { ClaimedWatch } from "./tick-leases.js";
import { planWatch, type DrainedMeter } from "./tick-plan.js";
import type { WatchScanOutput } from "../chains/scanner.js";

/** Next poll instant with ±10 % jitter so thousands of watches do not align. */
function nextPoll(nowMs: number, pollSeconds: number): Date {
  const jitter = 0.9 + Math.random() * 0.2;
  return new Date(nowMs + Math.round(pollSeconds * 1000 * jitter));
}

export interface BatchInput {
  owner: string;
  nowMs: number;
  claimed: readonly ClaimedWatch[];
  drained: ReadonlyMap<string, DrainedMeter>;
  results: ReadonlyMap<string, WatchScanOutput>;
  /** Sealed key material to store for some of the watches (key-material.ts). */
  keyMaterial?: ReadonlyMap<string, Uint8Array>;
}

/** Writes the batch; returns how many events it queued and the watches whose leases it handed back (none when it fails). */
export async function writeTickBatch(
  deps: { db: Database; clock: Clock; pollSeconds: number; scanSubscribers?: readonly ScanSubscriber[] },
  batch: BatchInput,
): Promise<{ events: number; released: string[] }> {
  const { owner, nowMs, claimed } = batch;
  const now = new Date(nowMs);
  return deps.db.transaction().execute(async (trx) => {
    // A stall longer than the lease lets another worker take a watch over; its ledger rows and
    // events would then be booked twice. Locked here, so the check holds until commit.
    const heldRows = await trx
      .selectFrom("watches")
      .select(["id", "credit_atomic", "drained_through_ms", "drain_remainder", "low_credit_armed", "drain_unbooked_atomic", "drain_unbooked_from_ms"])
      .where("id", "in", claimed.map((w) => w.id))
      .where("lease_owner", "=", owner)
      // In id order, as every statement that locks a batch's rows (tick-leases.ts, ownRowsInIdOrder).
      .orderBy("id")
      .forUpdate()
      .execute();
    const byId = new Map(claimed.map((w) => [w.id, w]));
    const events: PendingEvent[] = [];
    const ledger: LedgerRow[] = [];
    const updates: WatchUpdate[] = [];
    const memory: { id: string; known: KnownOutput[] }[] = [];
    const found: WatchFindings[] = [];
    for (const row of heldRows) {
      const w = byId.get(row.id)!;
      const p = planWatch({ watch: w, locked: row, drained: batch.drained.get(w.id)!, scan: batch.results.get(w.id), nowMs, clock: deps.clock });
      events.push(...p.events);
      ledger.push(...p.ledger);
      updates.push(p.update);
      if (p.found?.changed) memory.push({ id: w.id, known: p.found.known });
      if (p.found && hasFindings(p.found.findings)) found.push({ watchId: w.id, chain: w.chain, address: w.address, ...p.found.findings });
    }

    // The account's part (account.ts): ledger, outbox, then the watch rows with their meters and
    // findings memory, handing back the leases of the watches with nothing to deliver.
    const known = new Map(memory.map((m) => [m.id, m.known]));
    const released = await writeTickAccounts(trx, {
      owner,
      now,
      ledger,
      events,
      updates: updates.map((u) => ({ ...u, nextPollAt: u.dueNow ? now : nextPoll(nowMs, deps.pollSeconds), ...(known.has(u.id) ? { knownOutputs: known.get(u.id) } : {}) })),
    });
    // Key material only for rows held (and so locked): a watch deleted meanwhile gets none.
    const material = heldRows.flatMap((r) => {
      const sealed = batch.keyMaterial?.get(r.id);
      return sealed ? [{ watchId: r.id, sealed }] : [];
    });
    if (material.length > 0) await writeKeyMaterial(trx, material);
    // Subscribers settle on what was found, in the same transaction as the rows that say so.
    if (found.length > 0) for (const s of deps.scanSubscribers ?? []) await s.onScan(trx, found);
    return { events: events.length, released };
  });
}
