/**
 * Issue 23, item 7c: the payment reconciler left pending rows younger than
 * its grace period alone (they may still be in flight) but warned at once
 * that they "need attention" — an operator was paged for every payment that
 * happened to be mid-settlement when the job ran. The warning now waits for
 * the same grace; a settled-without-work row is named at once.
 *
 * Real database, the service's own logger writing into memory; no chain
 * reader (no EVM_RPC_URL), so old pending rows stay pending and are listed.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { RECONCILE_GRACE_SECONDS, reconcilePayments } from "../../src/x402/reconcile.js";
import { captureLogs } from "../helpers/log-capture.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

const clock = new ManualClock(Date.UTC(2026, 5, 1));

async function insertPayment(fields: { status: "pending" | "settled"; workDone: boolean; createdAt: Date }) {
  const id = randomUUID();
  const nonce = `0x${randomUUID().replace(/-/g, "").padEnd(64, "0")}`;
  const payer = "0x000000000000000000000000000000000000dEaD";
  await db.db
    .insertInto("payments")
    .values({
      id,
      nonce_key: `eip155:84532:usdc:${payer}:${nonce}`.toLowerCase(),
      status: fields.status,
      payer,
      route: "POST /v1/private/watch",
      amount_atomic: "100000",
      network: "eip155:84532",
      nonce,
      valid_before: String(Math.floor(clock.now() / 1000) + 600),
      work_done: fields.workDone,
      created_at: fields.createdAt,
    } as never)
    .execute();
  return id;
}

/** The ids the "need attention" warnings of one run name. */
async function warned(): Promise<string[]> {
  const { log, lines } = captureLogs();
  await reconcilePayments({ db: db.db, chain: null, clock, log });
  return lines
    .map((l) => JSON.parse(l) as { msg: string; open?: { id: string }[] })
    .filter((l) => l.msg.includes("need attention"))
    .flatMap((l) => (l.open ?? []).map((o) => o.id));
}

describe("payment reconciler: the attention warning honours the grace period", () => {
  it("names a settled-without-work payment at once, a pending one only past the grace", async () => {
    const inFlight = await insertPayment({ status: "pending", workDone: false, createdAt: new Date(clock.now() - 5_000) });
    const orphan = await insertPayment({ status: "settled", workDone: false, createdAt: new Date(clock.now() - 1_000) });
    expect(await warned()).toEqual([orphan]);

    clock.advance(RECONCILE_GRACE_SECONDS * 1000);
    expect((await warned()).sort()).toEqual([inFlight, orphan].sort());
  });
});
