/**
 * Regressions of paid work whose commit was cut after the settlement, on the
 * real app over the devnet (EVM + USDC + local facilitator), POST
 * /v1/private/watch ($0.10). The database handle the app is given fails a
 * named statement as a terminated connection does (test/helpers/cutting-database.ts),
 * so every cut lands at a chosen step.
 *
 * 1. Money lost (seen once under test/e2e/database-outage.test.ts's
 *    terminations): a payment settled on chain, the transaction committing
 *    the work was cut, the client's first retry with the same signed payment
 *    was cut again, and the next retry was refused `authorization_already_used`:
 *    the row was marked `failed` with `authorization_used_elsewhere`, the
 *    payer's USDC had moved and no watch existed. An identical sequence for
 *    another payment a moment earlier had resumed correctly, and that was the
 *    cause: the authorisation reader (src/x402/authorization-state.ts) read
 *    `authorizationState` at the chain's head but searched the
 *    AuthorizationUsed log only up to viem's cached head (eth_blockNumber is
 *    cached per client for 4 s). The earlier resume had cached a head from
 *    before this settlement's block; the log was out of range, and "used, no
 *    log found" was read as "used elsewhere". Here the process clock stands
 *    still (the cache never expires), so the sequence fails every time
 *    without the fix, in both forms: with the row settled and its tx hash
 *    recorded, and with the settled mark cut too (the row still pending).
 * 2. A commit that landed but whose answer was lost (the connection died
 *    after the server committed): the paywall then wrote the row back to
 *    `settled` without work, and the retry resumed it and did the work a
 *    second time (two watches for one payment).
 * 3. "Used, no log found" is no verdict: a row whose settlement the reader
 *    cannot find (beyond its search window) stays pending and listed, for
 *    the reconciler and for the client's retry alike.
 *
 * Cases 1 and 2 end the same way: the work exists once, the USDC moved once,
 * the row is settled with the settlement's transaction.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { cuttingDatabase, type CuttingDatabase } from "../helpers/cutting-database.js";
import { reconcilePayments } from "../../src/x402/reconcile.js";
import { readAnswer } from "../helpers/http.js";

const PRICE = 100_000n;

let s: WatchStack;
let cut: CuttingDatabase;
beforeAll(async () => {
  // Date stands still: no cache of the app's chain reader expires between the steps (no timing luck).
  vi.useFakeTimers({ toFake: ["Date"] });
  s = await startWatchStack({
    https: false,
    onTime: (ms) => vi.setSystemTime(ms),
    wrapDatabase: (db) => {
      cut = cuttingDatabase(db);
      return cut.db;
    },
  });
}, 120_000);
afterAll(async () => {
  // Real time first: a close path that waits with a deadline must see the clock move.
  vi.useRealTimers();
  await s?.close();
});

type Answer = { status: number; json: any; headers: Headers };

/** One paid watch create: its body, and the signed payment a client sends again on every retry. */
async function purchase(hook: string): Promise<{ send(): Promise<Answer>; nonce: string }> {
  const alice = s.wallet("alice");
  const body = JSON.stringify({ chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: s.receiver.hookUrl(hook) });
  const url = `${s.url}/v1/private/watch`;
  const unpaid = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  expect(unpaid.status).toBe(402);
  const signed = await s.payer.signFor(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!));
  const nonce = (signed.payload.payload as { authorization: { nonce: string } }).authorization.nonce.toLowerCase();
  return {
    nonce,
    send: async () => {
      return readAnswer(await fetch(url, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header }, body }));
    },
  };
}

const row = (nonce: string) => s.t.db.db.selectFrom("payments").selectAll().where("nonce", "=", nonce).executeTakeFirstOrThrow();
const watchesFor = async (hook: string) => (await s.t.db.db.selectFrom("watches").select(["id", "webhook_url"]).execute()).filter((w) => w.webhook_url === s.receiver.hookUrl(hook));
const payerAddress = () => s.devnet.payers[0]!.address;

function expectCut(r: Answer): void {
  expect(r.status, JSON.stringify(r.json)).toBe(503);
  expect(r.json.error.code).toBe("database_unavailable");
}

/** The answer the work gave, and the book: one watch, one settlement of the price, the row settled with its transaction. */
async function expectDoneOnce(r: Answer, hook: string, nonce: string, usdc0: bigint): Promise<void> {
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  const watches = await watchesFor(hook);
  expect(watches.map((w) => w.id)).toEqual([r.json.watchId]);
  expect(s.devnet.evm.usdcBalanceOf(payerAddress())).toBe(usdc0 - PRICE);
  const tx = decodePaymentResponseHeader(r.headers.get("payment-response")!).transaction as `0x${string}`;
  const mined = s.devnet.evm.chain.getTransaction(tx);
  expect(mined?.status).toBe("success");
  expect(await row(nonce)).toMatchObject({ status: "settled", work_done: true, tx_hash: tx, error: null });
  expect(cut.armed).toBe(0);
}

/** "An identical sequence for another payment resumed correctly": settled, commit cut, the retry does the work. */
async function resumedCorrectly(hook: string): Promise<void> {
  // Past any cache of the reader's (viem keeps eth_blockNumber 4 s): this resume reads the head afresh.
  s.advance(5_000);
  const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress());
  const p = await purchase(hook);
  cut.failWritesTo("payments", 1);
  expectCut(await p.send());
  expect(await row(p.nonce)).toMatchObject({ status: "settled", work_done: false, error: "work_not_committed" });
  await expectDoneOnce(await p.send(), hook, p.nonce, usdc0);
}

describe("a settlement whose commit was cut, resumed on the chain's word", () => {
  it("settled, commit cut, resume cut, resume again: the work is done once (not 'authorization_used_elsewhere')", async () => {
    await resumedCorrectly("/cut/earlier");

    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress());
    const payee0 = s.devnet.evm.usdcBalanceOf(s.devnet.payTo);
    const p = await purchase("/cut/story");
    // Settled on chain; the transaction committing the work is cut (its last statement fails).
    cut.failWritesTo("payments", 1);
    expectCut(await p.send());
    expect(s.devnet.evm.usdcBalanceOf(payerAddress())).toBe(usdc0 - PRICE);
    const left = await row(p.nonce);
    expect(left).toMatchObject({ status: "settled", work_done: false, error: "work_not_committed", tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await watchesFor("/cut/story")).toEqual([]);

    // The client's first retry resumes, and its transaction is cut again.
    cut.failWritesTo("payments", 1);
    expectCut(await p.send());
    expect(await row(p.nonce)).toMatchObject({ status: "settled", work_done: false });

    // The next retry: the chain says the authorisation paid us; the work is done now, once.
    const r = await p.send();
    await expectDoneOnce(r, "/cut/story", p.nonce, usdc0);
    expect((await row(p.nonce)).tx_hash).toBe(left.tx_hash);
    expect(s.devnet.evm.usdcBalanceOf(s.devnet.payTo)).toBe(payee0 + PRICE);

    // And again: the stored answer, nothing more.
    const again = await p.send();
    expect(again.status).toBe(200);
    expect(again.json).toEqual(r.json);
    expect((await watchesFor("/cut/story")).length).toBe(1);
  });

  it("the same when the cut also took the row's settled mark: pending, no tx hash, found by the AuthorizationUsed log", async () => {
    await resumedCorrectly("/cut/earlier-2");

    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress());
    const p = await purchase("/cut/pending");
    // The work's transaction is cut, and so is the paywall's write that marks the row settled after it.
    cut.failWritesTo("payments", 2);
    expectCut(await p.send());
    expect(s.devnet.evm.usdcBalanceOf(payerAddress())).toBe(usdc0 - PRICE);
    expect(await row(p.nonce)).toMatchObject({ status: "pending", tx_hash: null, work_done: false });

    cut.failWritesTo("payments", 1);
    expectCut(await p.send());
    expect(await row(p.nonce)).toMatchObject({ status: "pending", work_done: false });

    await expectDoneOnce(await p.send(), "/cut/pending", p.nonce, usdc0);
  });

  it("a commit that landed but whose answer was lost is not written back to 'without work', nor done again", async () => {
    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress());
    const p = await purchase("/cut/landed");
    cut.loseNextCommitAnswer("payments");
    expectCut(await p.send());
    // The work committed with its settlement; the error after it changed nothing.
    expect(await row(p.nonce)).toMatchObject({ status: "settled", work_done: true, error: null });
    expect((await watchesFor("/cut/landed")).length).toBe(1);

    // The retry gets the stored answer of that work.
    const r = await p.send();
    await expectDoneOnce(r, "/cut/landed", p.nonce, usdc0);
    expect(r.json.watchToken).toEqual(expect.any(String));
  });

  it("a used authorisation whose transaction is not found is left pending and listed, never failed", async () => {
    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress());
    const p = await purchase("/cut/unfound");
    cut.failWritesTo("payments", 2);
    expectCut(await p.send());
    expect(await row(p.nonce)).toMatchObject({ status: "pending", tx_hash: null });
    // The settlement's log falls out of the reader's search window (10,000 blocks).
    for (let i = 0; i < 10_001; i++) s.devnet.evm.chain.mine();

    // Past the row's created_at whichever clock stamped it (PostgreSQL's own, or PGlite's under the standing Date).
    s.advance(60_000);
    const findings: string[] = [];
    const r = await reconcilePayments({ db: s.t.db.db, chain: s.t.app.payments.chain, clock: s.clock, log: s.t.app.log, graceSeconds: 0, onFinding: (f) => findings.push(f) });
    expect(findings).toEqual(["used_unattributed"]);
    expect(r.failed).toBe(0);
    expect(r.open.map((o) => [o.nonce, o.state])).toContainEqual([p.nonce, "pending_unresolved"]);
    // The client's retry gets no verdict either: try again later, nothing failed, nothing done twice.
    const retry = await p.send();
    expect(retry.status, JSON.stringify(retry.json)).toBe(502);
    // Its own code: facilitator_unavailable promises "nothing was charged", and here the payer's money has moved.
    expect(retry.json.error.code).toBe("payment_unresolved");
    expect(await row(p.nonce)).toMatchObject({ status: "pending", work_done: false, error: null });
    expect(await watchesFor("/cut/unfound")).toEqual([]);
    expect(s.devnet.evm.usdcBalanceOf(payerAddress())).toBe(usdc0 - PRICE);
  });
});
