/**
 * The PostgreSQL rate limiter claims points in chunks (src/core/rate-limit.ts):
 * never past the limit, shared by processes (here: limiters on separate
 * pools, as two processes have), far fewer statements than requests, windows
 * that end, rows of the previous version (one point per request) counted,
 * and a limiter in memory when the database is away. It runs on the
 * machine's PostgreSQL whatever the suite's store (PGlite is one process and
 * counts in memory), in the PostgreSQL pass of CI.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createRateLimiter, type RateLimitResult } from "../../src/core/rate-limit.js";
import { LOCAL_POSTGRES_URL, openTestDatabase, type TestDatabase } from "../helpers/db.js";

let db: TestDatabase;
const pools: pg.Pool[] = [];

/** A pool of its own on the test's schema (another process's connections), counting the statements it runs. */
function processPool(): { pool: pg.Pool; statements: () => number } {
  const pool = new pg.Pool({ connectionString: LOCAL_POSTGRES_URL, max: 4, options: `-c search_path="${db.schema}"` });
  pools.push(pool);
  let n = 0;
  const query = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...a: unknown[]) => Promise<unknown> }).query = (...a: unknown[]) => {
    n++;
    return query(...a);
  };
  return { pool, statements: () => n };
}

const allowed = (rs: RateLimitResult[]) => rs.filter((r) => r.allowed).length;

async function row(key: string): Promise<{ points: number; expire: string } | undefined> {
  const r = await pools[0]!.query<{ points: number; expire: string }>("SELECT points, expire FROM rate_limits WHERE key = $1", [key]);
  return r.rows[0];
}

beforeAll(async () => {
  db = await openTestDatabase({ postgresUrl: LOCAL_POSTGRES_URL });
  processPool();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db?.close();
});

describe("PostgreSQL rate limits claimed in chunks", () => {
  it("allows exactly the limit to concurrent requests of one process and refuses the rest with a Retry-After", async () => {
    const { pool } = processPool();
    const limiter = createRateLimiter({ kind: "postgres", pool }, "t_exact", 10, 60);
    const rs = await Promise.all(Array.from({ length: 25 }, () => limiter.consume("1.2.3.4")));
    expect(allowed(rs)).toBe(10);
    for (const r of rs.filter((x) => !x.allowed)) {
      expect(r.retryAfterSeconds).toBeGreaterThan(0);
      expect(r.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    expect((await row("t_exact:1.2.3.4"))?.points).toBe(10);
    // Another key has its own window.
    expect((await limiter.consume("5.6.7.8")).allowed).toBe(true);
  });

  it("shares one window between processes: never past the limit, and short of it by at most the chunks left unspent", async () => {
    const a = processPool();
    const b = processPool();
    const points = 640; // chunks of up to 20 points
    const la = createRateLimiter({ kind: "postgres", pool: a.pool }, "t_shared", points, 60);
    const lb = createRateLimiter({ kind: "postgres", pool: b.pool }, "t_shared", points, 60);
    const rs: RateLimitResult[] = [];
    // Eight callers a process, one request at a time each, alternating processes, well past the limit.
    await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        for (let k = 0; k < 60; k++) rs.push(await (i % 2 ? la : lb).consume("9.9.9.9"));
      }),
    );
    const ok = allowed(rs);
    expect(ok).toBeLessThanOrEqual(points);
    expect(ok).toBeGreaterThanOrEqual(points - 2 * 20);
    expect((await row("t_shared:9.9.9.9"))?.points).toBe(points);
    // Past the limit, a process may still hold points of its last chunk (its callers ended before
    // spending them): it spends them, then asks the database once to learn the window is spent. Then
    // neither process asks again before the window ends, and nothing more is let through.
    const statements = () => a.statements() + b.statements();
    const before = statements();
    const more = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? la : lb).consume("9.9.9.9")));
    expect(ok + allowed(more)).toBeLessThanOrEqual(points);
    expect(statements() - before).toBeLessThanOrEqual(2);
    const learned = statements();
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? la : lb).consume("9.9.9.9")));
    expect(allowed(again)).toBe(0);
    expect(statements()).toBe(learned);
  });

  it("costs a statement per chunk, not per request", async () => {
    const p = processPool();
    const limiter = createRateLimiter({ kind: "postgres", pool: p.pool }, "t_chunks", 6400, 60); // chunks up to 200
    let ok = 0;
    for (let i = 0; i < 1000; i++) if ((await limiter.consume("7.7.7.7")).allowed) ok++;
    expect(ok).toBe(1000);
    // 1 + 2 + … + 128 = 255 points in 8 claims, then 200 at a time: 12 claims for 1,000 requests.
    expect(p.statements()).toBeLessThanOrEqual(12);
    const r = await row("t_chunks:7.7.7.7");
    expect(r!.points).toBeGreaterThanOrEqual(1000);
    expect(r!.points).toBeLessThan(1000 + 200);
  });

  it("answers without waiting from the points it holds, and defers to consume when it holds none", async () => {
    const p = processPool();
    const limiter = createRateLimiter({ kind: "postgres", pool: p.pool }, "t_spend", 64, 60); // chunks up to 2
    // Nothing claimed yet: only consume can answer, and trySpend asks nothing of the database.
    expect(limiter.trySpend("6.6.6.6")).toBeUndefined();
    expect(p.statements()).toBe(0);
    let ok = 0;
    for (let i = 0; i < 64; i++) {
      const r = limiter.trySpend("6.6.6.6") ?? (await limiter.consume("6.6.6.6"));
      if (r.allowed) ok++;
    }
    expect(ok).toBe(64);
    // Half the points came from chunks already held: no statement and no promise for those.
    expect(p.statements()).toBeLessThanOrEqual(33);
    expect((await row("t_spend:6.6.6.6"))?.points).toBe(64);
    // The window is spent: consume learns it once, then trySpend refuses by itself with the window's Retry-After.
    expect((await limiter.consume("6.6.6.6")).allowed).toBe(false);
    const before = p.statements();
    const refused = limiter.trySpend("6.6.6.6");
    expect(refused?.allowed).toBe(false);
    expect(refused?.retryAfterSeconds).toBeGreaterThan(0);
    expect(p.statements()).toBe(before);
  });

  it("while the database is away, answers without waiting from the same count in memory as consume", async () => {
    const away = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    pools.push(away);
    const limiter = createRateLimiter({ kind: "postgres", pool: away }, "t_spend_away", 3, 60);
    expect((await limiter.consume("8.8.8.8")).allowed).toBe(true);
    expect([limiter.trySpend("8.8.8.8")?.allowed, limiter.trySpend("8.8.8.8")?.allowed, limiter.trySpend("8.8.8.8")?.allowed]).toEqual([true, true, false]);
    expect((await limiter.consume("8.8.8.8")).allowed).toBe(false);
  });

  it("a limiter in memory answers without waiting, from the same count as consume", async () => {
    const limiter = createRateLimiter({ kind: "memory" }, "t_spend_mem", 2, 60);
    expect(limiter.trySpend("9.8.7.6")?.allowed).toBe(true);
    expect((await limiter.consume("9.8.7.6")).allowed).toBe(true);
    expect(limiter.trySpend("9.8.7.6")?.allowed).toBe(false);
  });

  it("starts a new window when the old one ends", async () => {
    const { pool } = processPool();
    const limiter = createRateLimiter({ kind: "postgres", pool }, "t_window", 3, 1);
    const first = await Promise.all(Array.from({ length: 5 }, () => limiter.consume("2.2.2.2")));
    expect(allowed(first)).toBe(3);
    await new Promise((r) => setTimeout(r, 1100));
    const second = await Promise.all(Array.from({ length: 5 }, () => limiter.consume("2.2.2.2")));
    expect(allowed(second)).toBe(3);
  });

  it("counts the points a process of the previous version took (one per request) in the same row", async () => {
    const { pool } = processPool();
    await pool.query("INSERT INTO rate_limits (key, points, expire) VALUES ($1, 4, $2)", ["t_compat:3.3.3.3", Date.now() + 60_000]);
    const limiter = createRateLimiter({ kind: "postgres", pool }, "t_compat", 5, 60);
    const rs = await Promise.all(Array.from({ length: 4 }, () => limiter.consume("3.3.3.3")));
    expect(allowed(rs)).toBe(1);
  });

  it("counts in memory while the database is away, and goes back to it", async () => {
    // A pool whose server refuses connections: every claim fails.
    const away = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    pools.push(away);
    const limiter = createRateLimiter({ kind: "postgres", pool: away }, "t_away", 3, 60);
    const rs: RateLimitResult[] = [];
    for (let i = 0; i < 5; i++) rs.push(await limiter.consume("4.4.4.4"));
    expect(rs.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
  });
});
