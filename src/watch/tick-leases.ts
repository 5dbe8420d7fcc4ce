/**
 * The tick's schedule and leases on the watch table: due watches are leased
 * with FOR UPDATE SKIP LOCKED (so any number of workers share one
 * database), and leases handed back when the tick ends. (Expired watches
 * are deleted by the account, account.ts, as their credit goes with them.)
 * Every write after the lease is guarded by `lease_owner`, so a worker that
 * stalled past its lease writes nothing for a watch another worker took.
 */
import { sql } from "kysely";
import type { WatchesTable } from "../db/schema.js";
import type { Database } from "../db/types.js";
import { renewEventLeases } from "./account.js";

export type ClaimedWatch = Omit<
  WatchesTable,
  "created_at" | "known_outputs" | "drain_unbooked_atomic" | "drain_unbooked_from_ms" | "subaddress_accounts" | "subaddress_minors" | "invoice_account"
> & {
  created_at: Date;
  known_outputs: unknown | null;
  drain_unbooked_atomic: string | bigint;
  drain_unbooked_from_ms: string | bigint;
  subaddress_accounts: number | null;
  subaddress_minors: number | null;
  invoice_account: number;
};

/** Leases up to `batchSize` due watches (active, with credit, not leased), oldest due first. */
export async function claimDueWatches(
  db: Database,
  lease: { owner: string; batchSize: number; now: Date; until: Date },
): Promise<ClaimedWatch[]> {
  const { owner, batchSize, now, until } = lease;
  return (
    await sql<ClaimedWatch>`
      UPDATE watches SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id IN (
        SELECT id FROM watches
        WHERE status = 'active' AND credit_atomic > 0 AND next_poll_at <= ${now}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_poll_at
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED)
      RETURNING *`.execute(db)
  ).rows;
}

/**
 * The rows of `ids` this worker still holds, locked in id order. Every
 * statement that locks several watch rows of a batch locks them in this one
 * order (the release here, the tick's write, tick-write.ts); an UPDATE over
 * `id IN (...)` alone locks in whatever order its plan visits the rows, and
 * two such statements of one worker (a release and a renewal) deadlocked.
 */
export function ownRowsInIdOrder(db: Database, ids: readonly string[], owner: string) {
  return db.selectFrom("watches").select("id").where("id", "in", ids).where("lease_owner", "=", owner).orderBy("id").forUpdate();
}

/** Hands back the leases still ours (one taken over by another worker stays with it). */
export async function releaseLeases(db: Database, ids: readonly string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("watches")
    .set({ lease_owner: null, lease_until: null })
    .where("id", "in", ownRowsInIdOrder(db, ids, owner))
    .where("lease_owner", "=", owner)
    .execute();
}

/**
 * Keeps the leases of the watches a worker is busy with (a tick's batch, a
 * delivery still in flight) from running out: `renew()` pushes their
 * `lease_until`, and that of the outbox rows they have claimed, to
 * now + leaseSeconds. Leases can then be short, so a worker killed mid-tick
 * frees its watches within one lease length, while a live worker never loses
 * a watch to another for being slow. The composition root calls `renew()` on
 * a timer (a few times per lease length). Writes stay guarded by
 * `lease_owner`, so a renewal never takes back a watch another worker holds.
 * A renewal never waits for a row lock: a row locked now is being written
 * or released by this worker's own tick (or by nobody it could take it
 * from), and the next renewal reaches it; so a renewal can be in no
 * deadlock.
 */
export interface LeaseKeeper {
  readonly leaseSeconds: number;
  hold(ids: readonly string[]): void;
  drop(ids: readonly string[]): void;
  /** The ids held now (tests). */
  held(): string[];
  renew(): Promise<void>;
}

export function createLeaseKeeper(db: Database, clock: { now(): number }, owner: string, leaseSeconds: number): LeaseKeeper {
  // A watch can be held twice at once (by the tick's batch and by its delivery); counted.
  const counts = new Map<string, number>();
  return {
    leaseSeconds,
    hold: (ids) => {
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    },
    drop: (ids) => {
      for (const id of ids) {
        const n = (counts.get(id) ?? 0) - 1;
        if (n > 0) counts.set(id, n);
        else counts.delete(id);
      }
    },
    held: () => [...counts.keys()],
    renew: async () => {
      const ids = [...counts.keys()];
      if (ids.length === 0) return;
      const until = new Date(clock.now() + leaseSeconds * 1000);
      await db
        .updateTable("watches")
        .set({ lease_until: until })
        .where("id", "in", ownRowsInIdOrder(db, ids, owner).skipLocked())
        .where("lease_owner", "=", owner)
        .execute();
      await renewEventLeases(db, ids, owner, until);
    },
  };
}
