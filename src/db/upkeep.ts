/**
 * Vacuum of the tables the service rewrites all the time. Every tick updates
 * each watch row it scans (credit, schedule and expiry are indexed or in an
 * index predicate, so these updates are not HOT) and the outbox gains and
 * loses rows with every event: each pass over N watches leaves N dead row
 * versions behind. PostgreSQL's autovacuum removes them where it runs, but it
 * can be off (a setting, some managed plans), and PGlite (single-user
 * PostgreSQL) has none at all. Without vacuum the table and its indexes only
 * grow: measured with bench:watch at 100,000 watches on a server with
 * autovacuum off, 1.17 M dead versions for 100 k live rows after a few passes
 * (811 MB), the due-watch lease at 380 ms a call and the expiry sweep, planned
 * as a sequential scan, at 196 ms.
 *
 * So the service vacuums them itself when they need it: on PostgreSQL when
 * the dead versions pass autovacuum's own default threshold (50 + 20 % of the
 * live rows), read from the statistics; on PGlite, whose statistics do not
 * count dead versions, on every run. `SKIP_LOCKED` leaves a table that a
 * vacuum (an autovacuum worker, another process) already holds.
 */
import { sql } from "kysely";
import type { Job } from "../core/jobs.js";
import type { DatabaseHandle } from "./connection.js";

/** The tables rewritten all the time (the watch rows and their outbox). */
export const HOT_TABLES = ["watches", "webhook_outbox"] as const;
export type HotTable = (typeof HOT_TABLES)[number];

/** Autovacuum's defaults: vacuum once dead versions pass 50 + 20 % of the live rows. */
export const VACUUM_BASE_THRESHOLD = 50;
export const VACUUM_SCALE_FACTOR = 0.2;

export interface TableCounts {
  live: number;
  dead: number;
}

/** Whether a table with these counts needs a vacuum (autovacuum's rule). */
export function needsVacuum(c: TableCounts): boolean {
  return c.dead > VACUUM_BASE_THRESHOLD + VACUUM_SCALE_FACTOR * c.live;
}

/** Live and dead row versions of a table of the connection's schema, from the statistics (PostgreSQL). */
export async function tableCounts(handle: DatabaseHandle, table: HotTable): Promise<TableCounts> {
  const r = await sql<{ live: string; dead: string }>`
    SELECT n_live_tup::text AS live, n_dead_tup::text AS dead FROM pg_stat_user_tables WHERE relid = to_regclass(${table})`.execute(handle.db);
  const row = r.rows[0];
  return { live: Number(row?.live ?? 0), dead: Number(row?.dead ?? 0) };
}

/** Vacuums (and analyzes) each hot table that needs it; returns the tables vacuumed. */
export async function vacuumHotTables(handle: DatabaseHandle, tables: readonly HotTable[] = HOT_TABLES): Promise<HotTable[]> {
  const done: HotTable[] = [];
  for (const table of tables) {
    if (handle.kind === "postgres" && !needsVacuum(await tableCounts(handle, table))) continue;
    await sql`VACUUM (ANALYZE, SKIP_LOCKED) ${sql.table(table)}`.execute(handle.db);
    done.push(table);
  }
  return done;
}

/** How often the upkeep job looks: every minute on PostgreSQL (a statistics read), every ten on PGlite (a vacuum each time). */
export function upkeepIntervalMs(kind: DatabaseHandle["kind"]): number {
  return kind === "postgres" ? 60_000 : 600_000;
}

/** The background job that keeps the hot tables vacuumed; says what it vacuumed. */
export function tableUpkeepJob(handle: DatabaseHandle, log: { info(obj: object, msg: string): void }): Job {
  return {
    name: "table upkeep",
    intervalMs: upkeepIntervalMs(handle.kind),
    run: async () => {
      const started = Date.now();
      const vacuumed = await vacuumHotTables(handle);
      if (vacuumed.length > 0) log.info({ tables: vacuumed, ms: Date.now() - started }, "vacuumed tables the service rewrites");
      return { more: false };
    },
  };
}
