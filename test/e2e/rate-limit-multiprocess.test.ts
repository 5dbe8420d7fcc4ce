import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startApiProcesses, type ChildService } from "../helpers/process.js";

if (!usingPostgres) console.warn("rate-limit-multiprocess: skipped, it needs DATABASE_URL (PGlite is one process)");

describe.skipIf(!usingPostgres)("per-IP rate limit shared by two API processes on PostgreSQL", () => {
  let db: TestDatabase;
  const children: ChildService[] = [];

  beforeAll(async () => {
    db = await openTestDatabase();
    children.push(...(await startApiProcesses(db.env, 2, { RATE_LIMIT_PER_MINUTE: "10" })));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await db?.close();
  });

  it("allows exactly the limit across both processes and answers 429 with Retry-After past it", async () => {
    const [a, b] = children;
    const hits = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/v1/paywall`).then(async (r) => ({ status: r.status, retry: r.headers.get("retry-after"), body: await r.text() }))),
    );
    const ok = hits.filter((h) => h.status === 200).length;
    const limited = hits.filter((h) => h.status === 429);
    expect(ok).toBe(10);
    expect(limited.length).toBe(10);
    for (const h of limited) {
      expect(Number(h.retry)).toBeGreaterThan(0);
      expect(JSON.parse(h.body)).toMatchObject({ error: { code: "rate_limited" } });
    }
  });
});
