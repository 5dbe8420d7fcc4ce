/**
 * The free post limit (6 per hour per IP) is one count for all API processes:
 * two `api` processes on one PostgreSQL share it, so a client cannot post 12
 * times an hour by alternating between them. The notices table holds exactly
 * the posts that were allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startApiProcesses, type ChildService } from "../helpers/process.js";

if (!usingPostgres) console.warn("board-post-limit-multiprocess: skipped, it needs DATABASE_URL (PGlite is one process)");

describe.skipIf(!usingPostgres)("board post limit shared by two API processes on PostgreSQL", () => {
  let db: TestDatabase;
  const children: ChildService[] = [];

  beforeAll(async () => {
    db = await openTestDatabase();
    children.push(...(await startApiProcesses(db.env, 2)));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await db?.close();
  });

  it("allows 6 posts per IP across both processes, then 429 with Retry-After", async () => {
    const [a, b] = children;
    const hits = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${(i % 2 ? a : b)!.url}/v1/board/bounties`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ title: `Post number ${i}`, body: "From one client." }),
        }).then(async (r) => ({ status: r.status, retry: r.headers.get("retry-after"), body: await r.text() })),
      ),
    );
    expect(hits.filter((h) => h.status === 201).length).toBe(6);
    const limited = hits.filter((h) => h.status === 429);
    expect(limited.length).toBe(6);
    for (const h of limited) {
      expect(Number(h.retry)).toBeGreaterThan(0);
      expect(JSON.parse(h.body)).toMatchObject({ error: { code: "rate_limited" } });
    }
    const stored = await sql<{ n: string }>`SELECT count(*)::text AS n FROM notices`.execute(db.db);
    expect(stored.rows[0]!.n).toBe("6");
  });
});
