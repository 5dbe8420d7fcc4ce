/**
 * The tick's scan subscribers, on the real app with the real Monero scanner
 * and the devnet chain (payments made with real sender-side crypto): a
 * subscriber hears of a payment as new, then as confirmed once it is past
 * the confirmation depth, then as reorged when a reorg takes it away — inside
 * the batch transaction, after the watch rows are written. A subscriber that
 * throws rolls the whole batch back and the watch is retried at the next tick.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScanSubscriber, WatchFindings } from "../../src/watch/findings.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 3;
let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS) } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

type Wallet = WatchStack["wallets"][number];
const watchOn = (wallet: Wallet, path: string) => s.openMoneroWatch(wallet, path);
const wallet = (label: string) => s.wallet(label);

/** Records what it is told about one watch, and what the watch row said inside the same transaction. */
function recorder(watchId: string) {
  const seen: { findings: WatchFindings; pendingInRow: string | undefined }[] = [];
  const subscriber: ScanSubscriber = {
    name: "recorder",
    onScan: async (trx, found) => {
      for (const f of found.filter((x) => x.watchId === watchId)) {
        const row = await trx.selectFrom("watches").select("snapshot").where("id", "=", watchId).executeTakeFirstOrThrow();
        seen.push({ findings: f, pendingInRow: (row.snapshot as { pendingAtomic?: string } | null)?.pendingAtomic });
      }
    },
  };
  return { seen, subscriber };
}

/** One poll interval later (60 s ± 10 %), one tick. */

describe("a scan subscriber", () => {
  it("sees a payment as new, then confirmed at the confirmation depth, then reorged", async () => {
    const alice = wallet("alice");
    const w = await watchOn(alice, "/subscriber");
    const { seen, subscriber } = recorder(w.watchId);
    s.t.app.watch.scanSubscribers = [subscriber];
    try {
      await s.nextTick(); // first scan: nothing received, nothing to tell
      expect(seen).toEqual([]);

      const amount = 1_250_000_000_000n;
      const txid = s.devnet.monerod.send(alice.address, amount);
      await s.nextTick();
      expect(seen).toHaveLength(1);
      const arrived = seen[0]!;
      expect(arrived.findings).toMatchObject({ watchId: w.watchId, chain: "monero", address: alice.address, confirmed: [], reorged: [] });
      expect(arrived.findings.new).toEqual([
        { txid, index: expect.any(String), amountAtomic: amount.toString(), height: null, confirmations: 0, subaddress: { major: 0, minor: 0 } },
      ]);
      // Called after the watch row is written: the snapshot in the transaction already shows the payment.
      expect(arrived.pendingInRow).toBe(amount.toString());

      s.devnet.monerod.mine(1); // mined, one confirmation: not news yet
      await s.nextTick();
      expect(seen).toHaveLength(1);

      s.devnet.monerod.mine(CONFIRMATIONS - 1);
      await s.nextTick();
      expect(seen).toHaveLength(2);
      const height = s.devnet.monerod.height() - CONFIRMATIONS + 1;
      expect(seen[1]!.findings).toMatchObject({ new: [], reorged: [] });
      expect(seen[1]!.findings.confirmed).toEqual([
        { ...arrived.findings.new[0]!, height, confirmations: CONFIRMATIONS },
      ]);

      await s.nextTick(); // nothing changed: not called
      expect(seen).toHaveLength(2);

      s.devnet.monerod.reorg(CONFIRMATIONS); // the payment's block and the ones after it; the tx is dropped
      await s.nextTick();
      expect(seen).toHaveLength(3);
      expect(seen[2]!.findings).toMatchObject({ new: [], confirmed: [] });
      expect(seen[2]!.findings.reorged).toEqual([{ ...arrived.findings.new[0]!, height, confirmations: 0 }]);
      expect(s.receiver.deliveries(w.watchId, "balance_change").map((d) => (d.body!.delta as { balance_atomic: string }).balance_atomic)).toEqual([
        "0",
        amount.toString(),
        (-amount).toString(),
      ]);
    } finally {
      s.t.app.watch.scanSubscribers = [];
    }
  }, 120_000);

  it("that throws rolls the batch back: nothing written, leases released, the watch scanned again at the next tick", async () => {
    const bob = wallet("bob");
    const w = await watchOn(bob, "/subscriber-throws");
    const db = s.t.db.db;
    const before = await db.selectFrom("watches").selectAll().where("id", "=", w.watchId).executeTakeFirstOrThrow();
    const amount = 310_000_000n;
    s.devnet.monerod.send(bob.address, amount);
    s.devnet.monerod.mine(CONFIRMATIONS);
    const { seen, subscriber } = recorder(w.watchId);
    let calls = 0;
    const failing: ScanSubscriber = {
      name: "failing",
      onScan: async () => {
        calls++;
        throw new Error("invoice store unavailable");
      },
    };
    s.t.app.watch.scanSubscribers = [subscriber, failing];
    try {
      s.advance(1000);
      await expect(s.tick()).rejects.toThrow("invoice store unavailable");
      expect(calls).toBe(1);
      const after = await db.selectFrom("watches").selectAll().where("id", "=", w.watchId).executeTakeFirstOrThrow();
      expect(after).toMatchObject({
        credit_atomic: before.credit_atomic,
        drained_through_ms: before.drained_through_ms,
        snapshot: null,
        scan_state: null,
        known_outputs: null,
        initial_scan_done: false,
        lease_owner: null,
        lease_until: null,
        next_poll_at: before.next_poll_at,
      });
      expect(await db.selectFrom("watch_ledger").select("kind").where("watch_id", "=", w.watchId).execute()).toEqual([{ kind: "create" }]);
      expect(await db.selectFrom("webhook_outbox").select("id").where("watch_id", "=", w.watchId).execute()).toEqual([]);
      expect(s.receiver.deliveries(w.watchId)).toEqual([]);

      // The subscriber recovers: the next tick (no poll interval later) does it all, once.
      s.t.app.watch.scanSubscribers = [subscriber];
      s.advance(1000);
      const stats = await s.tick();
      expect(stats.claimed).toBeGreaterThanOrEqual(1);
      // The rolled-back call and the retry were told the same thing (hence: subscribers key on txid + index).
      expect(seen).toHaveLength(2);
      expect(seen[1]!.findings).toEqual(seen[0]!.findings);
      expect(seen[1]!.findings.new.map((o) => o.amountAtomic)).toEqual([amount.toString()]);
      expect(seen[1]!.findings.confirmed.map((o) => o.amountAtomic)).toEqual([amount.toString()]);
      expect(s.receiver.deliveries(w.watchId).map((d) => d.event)).toEqual(["balance_change", "scan_complete"]);
      // Billed once: two seconds of idle drain stay in the remainder, two deliveries.
      const ledger = await db.selectFrom("watch_ledger").selectAll().where("watch_id", "=", w.watchId).orderBy("id").execute();
      expect(ledger.map((l) => l.kind)).toEqual(["create", "delivery", "delivery"]);
      const row = await db.selectFrom("watches").select("credit_atomic").where("id", "=", w.watchId).executeTakeFirstOrThrow();
      expect(ledger.reduce((a, l) => a + BigInt(l.amount_atomic), 0n)).toBe(BigInt(row.credit_atomic));
    } finally {
      s.t.app.watch.scanSubscribers = [];
    }
  }, 120_000);

  it("is not told old payments as new when a watch predates the output memory (migrated database)", async () => {
    // The story: a watch created and scanned by an earlier version has outputs but no
    // known_outputs. Its next scan must record them as the baseline, not announce them,
    // or a checkout subscriber would settle an invoice with a payment made long before it.
    const carol = wallet("carol");
    const w = await watchOn(carol, "/subscriber-migrated");
    const db = s.t.db.db;
    const old = 420_000_000n;
    s.devnet.monerod.send(carol.address, old);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick(); // scanned with no subscriber: the payment is in the watch's state
    await db.updateTable("watches").set({ known_outputs: null }).where("id", "=", w.watchId).execute();

    const { seen, subscriber } = recorder(w.watchId);
    s.t.app.watch.scanSubscribers = [subscriber];
    try {
      await s.nextTick();
      expect(seen).toEqual([]);
      const row = await db.selectFrom("watches").select("known_outputs").where("id", "=", w.watchId).executeTakeFirstOrThrow();
      expect(row.known_outputs).toEqual([expect.objectContaining({ amountAtomic: old.toString(), confirmed: true })]);

      const fresh = 170_000_000n;
      s.devnet.monerod.send(carol.address, fresh);
      await s.nextTick();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.findings.new.map((o) => o.amountAtomic)).toEqual([fresh.toString()]);
    } finally {
      s.t.app.watch.scanSubscribers = [];
    }
  }, 120_000);
});
