/**
 * Regression: a tick over more watches than one SQL statement can carry.
 * WORKER_BATCH_SIZE may be up to 10,000, but the tick wrote all claimed
 * watch rows in one UPDATE … FROM (VALUES …) with 11 bind parameters per
 * row, and PostgreSQL's protocol caps a statement at 65535 parameters: any
 * batch above 5957 watches failed ("bind message has … parameter formats"),
 * every tick, forever. Same for an outbox insert of more than 5957 events.
 * Real app, real Monero scanner on the devnet (watches already at the tip).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { hashToken, newToken } from "../../src/core/tokens.js";
import { generateWebhookSecret } from "../../src/webhooks/sign.js";
import { eventBody, meterOf, snapshotOf } from "../../src/watch/model.js";
import { insertEvents } from "../../src/watch/account.js";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch } from "../../src/watch/service.js";
import { runWatchTick } from "../../src/watch/tick.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const N = 6_000; // 6,000 × 11 parameters = 66,000 > 65,535

describe("a tick larger than one SQL statement", () => {
  let s: WatchStack;
  let template: string;

  beforeAll(async () => {
    s = await startWatchStack({ https: false });
    const box = s.t.app.watch.secretBox!;
    const db = s.t.db.db;
    const wallets = s.wallets.filter((w) => w.label !== "miner");
    // One watch through the service, then N copies of its row, each with its own id, sealed key and token.
    const first = await createWatch({
      ctx: { deps: s.t.app.watch, db: db },
      input: { chain: "monero", address: wallets[0]!.address, viewKey: wallets[0]!.viewKey!, webhookUrl: s.receiver.hookUrl("/scale"), birthdayHeight: s.devnet.monerod.height() + 1 },
      opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
    });
    template = first.watchId;
    const row = await db.selectFrom("watches").selectAll().where("id", "=", template).executeTakeFirstOrThrow();
    const rows = Array.from({ length: N - 1 }, (_, i) => {
      const id = randomUUID();
      const w = wallets[i % wallets.length]!;
      return {
        ...row,
        id,
        address: w.address,
        view_key_enc: box.seal(w.viewKey!, `viewkey:${id}`),
        webhook_secret_enc: box.seal(generateWebhookSecret(), `webhook:${id}`),
        token_hash: hashToken(newToken("wt_")),
        initial_scan_done: true,
      };
    });
    for (let i = 0; i < rows.length; i += 500) await db.insertInto("watches").values(rows.slice(i, i + 500)).execute();
    await db.updateTable("watches").set({ initial_scan_done: true }).execute();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it(`one tick leases, bills, scans and writes back ${N} watches`, async () => {
    const before = s.clock.now();
    s.advance(3_600_000);
    const stats = await runWatchTick(s.t.app.watch, { owner: "scale-test", batchSize: N });
    expect(stats).toMatchObject({ claimed: N, scanned: N, scanErrors: 0, events: 0, deliveries: 0 });
    const db = s.t.db.db;
    const polled = await db.selectFrom("watches").select("id").where("last_polled_at", "=", new Date(s.clock.now())).execute();
    expect(polled).toHaveLength(N);
    const drained = await db.selectFrom("watch_ledger").select("id").where("kind", "=", "idle_drain").execute();
    // 833 atomic each for the hour: booked as a row only when the hour crossed a UTC midnight, else carried.
    const crossed = Math.floor(before / 86_400_000) !== Math.floor(s.clock.now() / 86_400_000);
    expect(drained).toHaveLength(crossed ? N : 0);
    const carried = await db.selectFrom("watches").select("id").where("drain_unbooked_atomic", "!=", crossed ? "0" : "833").execute();
    expect(carried).toHaveLength(0);
    const left = await db.selectFrom("watches").select("id").where("credit_atomic", "!=", String(100_000 - 833)).execute();
    expect(left).toHaveLength(0);
    const leased = await db.selectFrom("watches").select("id").where("lease_owner", "is not", null).execute();
    expect(leased).toHaveLength(0);
  }, 120_000);

  it(`the outbox takes ${N} events in one call`, async () => {
    const db = s.t.db.db;
    const w = await db.selectFrom("watches").selectAll().where("id", "=", template).executeTakeFirstOrThrow();
    const snap = snapshotOf(w.snapshot, w.start_height);
    const events = Array.from({ length: N }, () => ({
      watchId: w.id,
      billable: false,
      body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "synthetic_test", snap, snap, meterOf(w), s.clock),
    }));
    await db.transaction().execute((trx) => insertEvents(trx, events));
    const rows = await db.selectFrom("webhook_outbox").select("nonce").where("watch_id", "=", w.id).execute();
    expect(new Set(rows.map((r) => r.nonce))).toEqual(new Set(events.map((e) => e.body.nonce)));
  }, 60_000);
});
