/**
 * Paying in ZEC end to end on the devnet, over lightwalletd gRPC: a coin
 * top-up quote named by its memo token, settled and credited once; a Zcash
 * checkout invoice (ZIP 321 URI, memo) paid with the memo → seen → paid with
 * signed webhooks and the fee debited once; a payment with the memo but
 * short is underpaid; a memo-less payment is matched by the amount's tag.
 */
import { base64urlnopad } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch } from "../../src/watch/service.js";
import { SETTLEMENT_FEE } from "../../src/checkout/invoices.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 2;
let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { ZCASH_CONFIRMATIONS: String(CONFIRMATIONS), MONERO_CONFIRMATIONS: "2" } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const db = () => s.t.db.db;
const chain = () => s.devnet.zcashChain!;
const zwallet = (label: string) => s.devnet.zcashWallets().find((w) => w.label === label)!;

async function zcashMerchant(label: string) {
  const w = zwallet(label);
  const created = await createWatch({
    ctx: { deps: s.t.app.watch, db: db() },
    input: { chain: "zcash", address: w.address, viewKey: w.ufvk, webhookUrl: s.receiver.hookUrl(`/zshop-${label}`), birthdayHeight: chain().tip().height },
    opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
  });
  s.receiver.registerSecret(created.watchId, created.webhookSecret);
  return created;
}
const invoiceHooks = (watchId: string) => s.receiver.deliveries(watchId).filter((d) => d.event?.startsWith("invoice_"));
const status = async (id: string) => (await s.call("GET", `/v1/checkout/invoices/${id}`)).json;

describe("paying in ZEC", () => {
  it("a coin top-up quote in ZEC carries a memo token; the payment with that memo settles it once", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const w = await createWatch({
      ctx: { deps: s.t.app.watch, db: db() },
      input: { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/zq") },
      opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
    });
    const r = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: w.watchToken, chain: "zcash", amountUsdCents: 300 } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const q = r.json;
    expect(q).toMatchObject({ chain: "zcash", payTo: s.devnet.zcashServiceWallet!.address, amount: { coin: "ZEC" }, confirmations: CONFIRMATIONS });
    expect(q.memo).toMatch(/^vigil-[A-Z2-7]{16}$/);
    expect(q.instructions).toContain(q.memo);
    await s.nextTick(); // the service wallet's watch starts at the tip

    const before = BigInt((await db().selectFrom("watches").select("credit_atomic").where("id", "=", w.watchId).executeTakeFirstOrThrow()).credit_atomic);
    chain().send(q.payTo, BigInt(q.amount.atomic), `${q.memo}\n`);
    chain().mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    const after = await s.call("GET", `/v1/private/topup-crypto/${q.quoteId}`, { token: w.watchToken });
    expect(after.json.status).toBe("settled");
    const credit = BigInt((await db().selectFrom("watches").select("credit_atomic").where("id", "=", w.watchId).executeTakeFirstOrThrow()).credit_atomic);
    expect(credit - before).toBeGreaterThan(2_900_000n); // 3 000 000 less the idle drain of the ticks
    const topups = (await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", w.watchId).execute()).filter((l) => l.kind === "topup");
    expect(topups).toHaveLength(1);
    expect(BigInt(topups[0]!.amount_atomic)).toBe(3_000_000n);
  }, 120_000);

  it("a Zcash invoice: ZIP 321 URI with the memo; paid with the memo → confirming → paid, fee once, signed webhooks", async () => {
    const m = await zcashMerchant("bob");
    await s.nextTick();
    const r = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 1234, orderId: "z-1", description: "Green tea" } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const inv = r.json;
    expect(inv).toMatchObject({ chain: "zcash", payTo: zwallet("bob").address, amount: { coin: "ZEC" } });
    expect(inv.memo).toMatch(/^vigil-[A-Z2-7]{16}$/);
    const uri = new URL(inv.uri);
    expect(inv.uri.startsWith(`zcash:${inv.payTo}?`)).toBe(true);
    expect(uri.searchParams.get("amount")).toBe(inv.amount.display);
    expect(new TextDecoder().decode(base64urlnopad.decode(uri.searchParams.get("memo")!))).toBe(inv.memo);
    expect(uri.searchParams.get("message")).toBe("Green tea");

    const { txid } = chain().send(inv.payTo, BigInt(inv.amount.atomic), inv.memo);
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "confirming" });
    chain().mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "paid", received: { atomic: inv.amount.atomic } });
    const hooks = invoiceHooks(m.watchId);
    expect(hooks.map((h) => h.event)).toEqual(["invoice_seen", "invoice_paid"]);
    expect(hooks.every((h) => h.signatureValid)).toBe(true);
    expect(hooks[1]!.body).toMatchObject({ invoiceId: inv.invoiceId, orderId: "z-1", txid, feeAtomic: SETTLEMENT_FEE.toString() });
    const fees = (await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", m.watchId).execute()).filter((l) => l.kind === "settlement_fee");
    expect(fees).toHaveLength(1);
  }, 120_000);

  it("the memo names the invoice whatever the amount (short → underpaid); without a memo the amount's tag matches", async () => {
    const m = await zcashMerchant("carol");
    await s.nextTick();
    const a = (await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 500 } })).json;
    const b = (await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 500 } })).json;
    expect(a.amount.atomic).not.toBe(b.amount.atomic);
    chain().send(a.payTo, BigInt(a.amount.atomic) - 100_000n, a.memo); // short, with a's memo
    chain().send(b.payTo, BigInt(b.amount.atomic)); // exact, no memo
    chain().mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(a.invoiceId)).toMatchObject({ status: "underpaid" });
    expect(await status(b.invoiceId)).toMatchObject({ status: "paid" });
  }, 120_000);

  it("a coin-created Zcash watch runs on grace credit and is topped up by its own ZEC payment; a checkout key makes Zcash invoices", async () => {
    const alice = zwallet("alice");
    const r = await s.call("POST", "/v1/private/watch-crypto", {
      body: { chain: "zcash", address: alice.address, viewKey: alice.ufvk, webhookUrl: s.receiver.hookUrl("/zcoin"), birthdayHeight: chain().tip().height, amountUsdCents: 250 },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const { watchId, watchToken, payment } = r.json;
    expect(payment.memo).toMatch(/^vigil-[A-Z2-7]{16}$/);
    expect(payment.payTo).toBe(s.devnet.zcashServiceWallet!.address);
    const credit = async () => BigInt((await db().selectFrom("watches").select("credit_atomic").where("id", "=", watchId).executeTakeFirstOrThrow()).credit_atomic);
    const grace = await credit();
    expect(grace).toBeGreaterThan(0n);
    await s.nextTick();
    chain().send(payment.payTo, BigInt(payment.amount.atomic), payment.memo);
    chain().mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    const topups = (await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).execute()).filter((l) => l.kind === "topup");
    expect(topups).toHaveLength(1);
    expect(BigInt(topups[0]!.amount_atomic)).toBe(2_500_000n);
    expect(await credit()).toBeGreaterThan(grace);

    const key = await s.call("POST", "/v1/checkout/keys", { body: { watchId, watchToken, maxAmountUsdCents: 800 } });
    expect(key.status, JSON.stringify(key.json)).toBe(201);
    const inv = await s.call("POST", "/v1/checkout/invoices", { body: { checkoutKey: key.json.checkoutKey, amountUsdCents: 800 } });
    expect(inv.status, JSON.stringify(inv.json)).toBe(201);
    expect(inv.json).toMatchObject({ chain: "zcash", payTo: alice.address });
    expect(inv.json.memo).toMatch(/^vigil-/);
    expect((await s.call("POST", "/v1/checkout/invoices", { body: { checkoutKey: key.json.checkoutKey, amountUsdCents: 801 } })).status).toBe(403);
    chain().send(inv.json.payTo, BigInt(inv.json.amount.atomic), inv.json.memo);
    chain().mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(inv.json.invoiceId)).toMatchObject({ status: "paid" });
  }, 120_000);
});
