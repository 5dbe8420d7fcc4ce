/**
 * Background clean-up of notices nobody can see any more: unboosted notices
 * that expired (NOTICE_TTL_MS after posting) or were removed by their owner.
 * Boosted notices are kept even when removed: their boost rows are the record
 * of payments. Deleting is idempotent, so any number of workers may run it.
 */
import { sql } from "kysely";
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import type { Queryable } from "../db/types.js";
import { NOTICE_TTL_MS } from "./service.js";

export const PURGE_BATCH = 1000;

/** Deletes at most `limit` purgeable notices; answers how many went. */
export async function purgeNotices({ ctx, input }: { ctx: { db: Queryable; clock: Clock }; input: { limit: number } }): Promise<number> {
  const expiredBefore = String(ctx.clock.now() - NOTICE_TTL_MS);
  const r = await sql`
    DELETE FROM notices WHERE id IN (
      SELECT id FROM notices
      WHERE weight_atomic = 0 AND (status = 'removed' OR created_ms <= ${expiredBefore})
      LIMIT ${input.limit})`.execute(ctx.db);
  return Number(r.numAffectedRows ?? 0n);
}

export function boardPurgeJob(deps: { db: Queryable; clock: Clock }, intervalMs = 3600_000): Job {
  return {
    name: "board purge",
    intervalMs,
    run: async () => {
      const n = await purgeNotices({ ctx: deps, input: { limit: PURGE_BATCH } });
      return { more: n >= PURGE_BATCH };
    },
  };
}
