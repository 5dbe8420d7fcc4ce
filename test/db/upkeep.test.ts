/**
 * The hot tables are vacuumed where nothing else does it (src/db/upkeep.ts):
 * on PostgreSQL once the statistics show dead row versions past autovacuum's
 * threshold, on PGlite (no autovacuum, no dead-version counts) on every run;
 * and the job is among every worker's jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { HOT_TABLES, needsVacuum, tableCounts, vacuumHotTables, VACUUM_BASE_THRESHOLD } from "../../src/db/upkeep.js";
import { backgroundJobs } from "../../src/workers.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { startTestApp } from "../helpers/app.js";

let db: TestDatabase;
const ROWS = 2_000;

beforeAll(async () => {
  db = await openTestDatabase();
  const now = Date.now();
  await sql`INSERT INTO watches (id, chain, network, address, view_key_enc, webhook_secret_enc, token_hash, webhook_url, credit_atomic, drained_through_ms, start_height, next_poll_at, expires_at)
    SELECT gen_random_uuid(), 'monero', 'mainnet', 'addr' || g, '\\x00'::bytea, '\\x00'::bytea, '\\x00'::bytea, 'https://example.com/hook', 100000, ${now}, 1,
      now(), now() + interval '30 days'
    FROM generate_series(1, ${ROWS}) g`.execute(db.db);
});

afterAll(async () => {
  await db?.close();
});

/** What a pass of ticks does to every row: a new schedule, credit and expiry (not a HOT update). */
const tickEveryRow = () =>
  sql`UPDATE watches SET next_poll_at = next_poll_at + interval '3 minutes', credit_atomic = credit_atomic - 1, expires_at = expires_at - interval '1 second'`.execute(db.db);

describe("vacuum of the hot tables", () => {
  it("autovacuum's rule: dead versions past 50 + 20 % of the live rows", () => {
    expect(needsVacuum({ live: 100_000, dead: 20_050 })).toBe(false);
    expect(needsVacuum({ live: 100_000, dead: 20_051 })).toBe(true);
    expect(needsVacuum({ live: 0, dead: VACUUM_BASE_THRESHOLD })).toBe(false);
    expect(needsVacuum({ live: 0, dead: VACUUM_BASE_THRESHOLD + 1 })).toBe(true);
  });

  it("vacuums a table rewritten by passes of ticks, and then leaves it alone", async () => {
    for (let i = 0; i < 3; i++) await tickEveryRow();
    if (db.kind === "postgres") {
      // The statistics reach the shared counters within seconds of the updates.
      let counts = await tableCounts(db, "watches");
      for (let i = 0; i < 40 && !needsVacuum(counts); i++) {
        await new Promise((r) => setTimeout(r, 500));
        counts = await tableCounts(db, "watches");
      }
      expect(counts.dead).toBeGreaterThanOrEqual(ROWS);
      expect(await vacuumHotTables(db, ["watches"])).toEqual(["watches"]);
      const after = await tableCounts(db, "watches");
      expect(after.dead).toBe(0);
      expect(after.live).toBe(ROWS);
      // Nothing new to clean: left alone.
      expect(await vacuumHotTables(db, ["watches"])).toEqual([]);
    } else {
      // PGlite counts no dead versions: every run vacuums every hot table, which its statistics record.
      expect(await vacuumHotTables(db)).toEqual([...HOT_TABLES]);
      for (const table of HOT_TABLES) {
        const r = await sql<{ at: Date | null }>`SELECT last_vacuum AS at FROM pg_stat_user_tables WHERE relid = to_regclass(${table})`.execute(db.db);
        expect(r.rows[0]?.at, table).toBeInstanceOf(Date);
      }
    }
    // The rows are all still there, unchanged by the vacuum.
    const n = await sql<{ n: string }>`SELECT count(*)::text AS n FROM watches WHERE credit_atomic = 99997`.execute(db.db);
    expect(Number(n.rows[0]!.n)).toBe(ROWS);
  });

  it("every worker runs the table upkeep job", async () => {
    const t = await startTestApp({});
    try {
      expect(backgroundJobs(t.app, async () => ({}) as never, 1000).map((j) => j.name)).toContain("table upkeep");
    } finally {
      await t.close();
    }
  });
});
