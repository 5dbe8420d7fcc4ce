/**
 * A named lease for a background job that must run in one process at a time
 * (the x402 channel keeper: two processes claiming the same vouchers would
 * each pay for a transaction). Taking it and renewing it are the same single
 * statement, so it holds no session state and works behind a transaction-mode
 * pooler: the row is written when it is free (absent, expired, or already
 * this owner's) and left alone otherwise. A holder that dies loses it when
 * `until` passes; its successor's work must therefore be safe to repeat.
 */
import { sql } from "kysely";
import type { Queryable } from "./types.js";

/** Takes or renews `name` for `owner` until `now + seconds`; false while another owner holds it. */
export async function takeJobLease(db: Queryable, name: string, owner: string, now: Date, seconds: number): Promise<boolean> {
  const until = new Date(now.getTime() + seconds * 1000);
  const { rows } = await sql<{ owner: string }>`
    INSERT INTO job_leases (name, owner, until) VALUES (${name}, ${owner}, ${until})
    ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
      WHERE job_leases.owner = excluded.owner OR job_leases.until < ${now}
    RETURNING owner`.execute(db);
  return rows.length === 1;
}

/** Gives the lease up at once (a clean stop), if `owner` still holds it. */
export async function releaseJobLease(db: Queryable, name: string, owner: string): Promise<void> {
  await sql`DELETE FROM job_leases WHERE name = ${name} AND owner = ${owner}`.execute(db);
}
