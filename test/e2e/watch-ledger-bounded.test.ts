/**
 * The ledger is exact, append-only and bounded: ticks every 30 minutes for
 * two and a half days write one idle-drain row per UTC day (plus one before
 * each other ledger row), not one per tick; after every tick the ledger sums
 * to the credit plus the drain carried on the watch row, and to the credit
 * exactly right after any booked row; rows are never updated.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CREDIT, DAY_MS } from "../../src/watch/meter.js";
import { cancelWatch } from "../../src/watch/service.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { WATCH_POLL_SECONDS: "1800" } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe("the bounded ledger", () => {
  it("books the idle drain once per UTC day and stays exact", async () => {
    const db = s.t.db.db;
    // Start at 20:00 UTC, so the run crosses midnight three times.
    const day0 = Math.floor(s.clock.now() / DAY_MS) * DAY_MS + DAY_MS;
    s.setTime(day0 + 20 * 3_600_000);
    const created = await s.openMoneroWatch("alice", "/ledger", { birthdayHeight: 0 });
    const watchId = created.watchId;

    const ledger = () => db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).orderBy("id").execute();
    const row = () => db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
    const sum = (rows: { amount_atomic: string | bigint }[]) => rows.reduce((a, l) => a + BigInt(l.amount_atomic), 0n);

    let ticks = 0;
    const seen = new Map<string, string>();
    const end = day0 + 20 * 3_600_000 + 2.5 * DAY_MS;
    let paid = false;
    while (s.clock.now() < end) {
      // A little over the poll interval, so the ±10 % jitter always leaves the watch due.
      s.advance(2_000_000);
      if (!paid && s.clock.now() > day0 + DAY_MS + 12 * 3_600_000) {
        // A payment mid-run: its balance_change delivery is a credit event with its own row.
        s.devnet.monerod.send(s.wallet("alice").address, 1_000_000_000_000n);
        s.devnet.monerod.mine(1);
        paid = true;
      }
      const st = await s.tick();
      expect(st.claimed).toBe(1);
      ticks++;
      const rows = await ledger();
      const w = await row();
      expect(sum(rows)).toBe(BigInt(w.credit_atomic) + BigInt(w.drain_unbooked_atomic));
      // Each row's balance_after is the running sum at that row.
      let running = 0n;
      for (const l of rows) {
        running += BigInt(l.amount_atomic);
        expect(BigInt(l.balance_after)).toBe(running);
      }
      // Append-only: a row once written never changes.
      for (const l of rows) {
        const key = String(l.id);
        const value = `${l.kind}|${l.amount_atomic}|${l.balance_after}|${l.reason}`;
        if (seen.has(key)) expect(seen.get(key)).toBe(value);
        else seen.set(key, value);
      }
    }
    expect(ticks).toBeGreaterThanOrEqual(100);

    const rows = await ledger();
    const drains = rows.filter((l) => l.kind === "idle_drain");
    const deliveries = rows.filter((l) => l.kind === "delivery");
    expect(deliveries.length).toBeGreaterThanOrEqual(2); // scan_complete, balance_change
    // Three UTC midnights crossed, plus at most one booking before each delivery; one per tick before.
    expect(drains.length).toBeLessThanOrEqual(3 + deliveries.length);
    expect(drains.length).toBeGreaterThanOrEqual(3);
    // Each booked drain row's amount is exactly the drain of its period: 20000 per day, floors carried.
    const w = await row();
    const drainedTotal = CREATE_CREDIT - BigInt(w.credit_atomic) + deliveries.reduce((a, l) => a + BigInt(l.amount_atomic), 0n);
    expect(-drains.reduce((a, l) => a + BigInt(l.amount_atomic), 0n) + BigInt(w.drain_unbooked_atomic)).toBe(drainedTotal);

    // Cancelling books the carried drain before the forfeit: the ledger then sums to the final credit, 0.
    const cancelled = await cancelWatch({ ctx: { deps: s.t.app.watch, db }, input: { id: watchId, watchToken: created.watchToken } });
    expect(cancelled).toBeTruthy();
    const final = await ledger();
    const after = await row();
    expect(BigInt(after.credit_atomic)).toBe(0n);
    expect(BigInt(after.drain_unbooked_atomic)).toBe(0n);
    expect(sum(final)).toBe(0n);
  }, 180_000);

  it("books the carried drain when an expired watch is deleted", async () => {
    const db = s.t.db.db;
    const created = await s.openMoneroWatch("bob", "/expiry", { birthdayHeight: 0 });
    const watchId = created.watchId;
    s.advance(2_000_000);
    await s.tick(); // first scan: scan_complete delivered (the carried drain is booked before its row)
    s.advance(2_000_000);
    await s.tick(); // nothing new: the drain is carried
    const carried = await db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
    const rowsBefore = await db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).execute();
    // Make sure something is carried (book it into the row if the tick happened to cross midnight).
    if (BigInt(carried.drain_unbooked_atomic) === 0n) return expect(rowsBefore.some((l) => l.kind === "idle_drain")).toBe(true);
    await db.updateTable("watches").set({ status: "dead", expires_at: new Date(s.clock.now() - 1000) }).where("id", "=", watchId).execute();
    s.advance(1000);
    await s.tick();
    expect(await db.selectFrom("watches").select("id").where("id", "=", watchId).executeTakeFirst()).toBeUndefined();
    const rows = await db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).orderBy("id").execute();
    expect(rows.length).toBe(rowsBefore.length + 1);
    expect(rows.at(-1)).toMatchObject({ kind: "idle_drain", amount_atomic: String(-BigInt(carried.drain_unbooked_atomic)), balance_after: String(carried.credit_atomic) });
    expect(rows.reduce((a, l) => a + BigInt(l.amount_atomic), 0n)).toBe(BigInt(carried.credit_atomic));
  }, 60_000);
});
