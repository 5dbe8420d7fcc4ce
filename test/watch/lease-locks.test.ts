/**
 * Row locks of a worker's lease statements (src/watch/tick-leases.ts) on
 * PostgreSQL, where a worker's statements run on several connections at once.
 * The lease keeper's renewal and the tick's release of the same worker each
 * locked a batch's rows in the order their plans visited them, and deadlocked
 * (bench/README.md, "workers"). Now a renewal never waits for a row lock, and
 * a release locks the rows in id order, as the tick's write does.
 * Runs in the PostgreSQL pass (vitest.config.ts OWN_STORE_TESTS): PGlite has
 * one connection, so no statement ever waits for another.
 */
import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeaseKeeper, releaseLeases } from "../../src/watch/tick-leases.js";
import { LOCAL_POSTGRES_URL, openTestDatabase, type TestDatabase } from "../helpers/db.js";

const OWNER = "worker-a";
const N = 40;

describe("lease statements and row locks", () => {
  let t: TestDatabase;
  const clients: pg.Client[] = [];

  /** A connection of its own on the test's schema (another worker, or a statement of this one). */
  async function connection(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: LOCAL_POSTGRES_URL, options: `-c search_path="${t.schema}"` });
    await c.connect();
    clients.push(c);
    return c;
  }

  const leases = async () =>
    new Map((await t.db.selectFrom("watches").select(["id", "lease_owner", "lease_until"]).execute()).map((r) => [r.id, r]));

  /** N watches leased by OWNER, their sorted ids inserted in descending order: a plan that visits the heap in physical order meets them last id first, the opposite of id order. */
  async function seed(): Promise<string[]> {
    const ids = Array.from({ length: N }, () => randomUUID()).sort();
    const until = new Date(Date.now() + 60_000);
    for (const id of [...ids].reverse()) {
      await t.db
        .insertInto("watches")
        .values({
          id,
          chain: "monero",
          network: "mainnet",
          address: `addr-${id}`,
          view_key_enc: randomBytes(48),
          webhook_secret_enc: randomBytes(48),
          token_hash: randomBytes(32),
          webhook_url: "https://example.invalid/hook",
          status: "active",
          funding: "usdc",
          credit_atomic: 1_000_000n,
          drained_through_ms: BigInt(Date.now()),
          drain_remainder: 0n,
          low_credit_armed: true,
          start_height: 1,
          scan_state: null,
          snapshot: null,
          initial_scan_done: true,
          next_poll_at: new Date(),
          lease_owner: OWNER,
          lease_until: until,
          consecutive_failures: 0,
          delivery_count: 0,
          last_event_type: null,
          last_polled_at: null,
          expires_at: new Date(Date.now() + 86_400_000),
        })
        .execute();
    }
    return ids;
  }

  beforeAll(async () => {
    t = await openTestDatabase({ postgresUrl: process.env.DATABASE_URL ?? LOCAL_POSTGRES_URL });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await t?.close();
  });

  it("a renewal does not wait for a row locked by another statement, and renews every other row it holds", async () => {
    const ids = await seed();
    const before = await leases();
    const locker = await connection();
    const locked = ids[N >> 1]!;
    await locker.query("BEGIN");
    await locker.query("SELECT id FROM watches WHERE id = $1 FOR UPDATE", [locked]);
    try {
      const keeper = createLeaseKeeper(t.db, { now: () => Date.now() + 600_000 }, OWNER, 30);
      keeper.hold(ids);
      // Would hang here (and fail on the test timeout) if the renewal waited for `locked`.
      await keeper.renew();
      const after = await leases();
      expect(after.get(locked)!.lease_until).toEqual(before.get(locked)!.lease_until);
      for (const id of ids.filter((i) => i !== locked)) expect(after.get(id)!.lease_until!.getTime()).toBeGreaterThan(before.get(id)!.lease_until!.getTime());
    } finally {
      await locker.query("COMMIT");
    }
  });

  it("a release locks its rows in id order: waiting at the first id, it holds none of the later ones", async () => {
    const ids = await seed();
    const first = await connection();
    const other = await connection();
    const firstPid = (await first.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    await first.query("BEGIN");
    await first.query("SELECT id FROM watches WHERE id = $1 FOR UPDATE", [ids[0]]);
    const release = releaseLeases(t.db, ids, OWNER);
    try {
      // Until the release waits on the row `first` holds.
      for (let i = 0; i < 200; i++) {
        const { rows } = await other.query("SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [firstPid]);
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const { rows: waiting } = await other.query("SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", [firstPid]);
      expect(waiting).toHaveLength(1);
      // Every later row is free: another statement locks them all without waiting.
      await other.query("BEGIN");
      const { rows: got } = await other.query("SELECT id FROM watches WHERE id = ANY($1::uuid[]) FOR UPDATE NOWAIT", [ids.slice(1)]);
      expect(got).toHaveLength(N - 1);
      await other.query("COMMIT");
    } finally {
      await first.query("COMMIT");
    }
    await release;
    const after = await leases();
    for (const id of ids) expect([after.get(id)!.lease_owner, after.get(id)!.lease_until]).toEqual([null, null]);
  });
});
