/**
 * Checkout invoices end to end on the devnet: the real app, the devnet's
 * price providers, the real Monero scanner watching the merchant's wallet,
 * and payments made by the devnet monerod. Invoice by watch token and by
 * checkout key; seen → paid with signed webhooks in order and the fee
 * debited once; underpaid; expired; paid after expiry; two open invoices on
 * one wallet; key cap and revocation; the spec's bounds rejected with
 * nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { creditWatch } from "../../src/watch/service.js";
import { expireInvoices, SETTLEMENT_FEE } from "../../src/checkout/invoices.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 2;

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS) } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const db = () => s.t.db.db;
const wallet = (label: string) => s.wallet(label);

const merchant = (label: string, credit = CREATE_CREDIT) => s.openMoneroWatch(label, `/shop-${label}`, { credit });

const invoice = (body: Record<string, unknown>) => s.call("POST", "/v1/checkout/invoices", { body });
const status = async (id: string) => (await s.call("GET", `/v1/checkout/invoices/${id}`)).json;
const fees = async (watchId: string) =>
  (await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).orderBy("id").execute()).filter((l) => l.kind === "settlement_fee");
const invoiceCount = async () => Number((await db().selectFrom("checkout_invoices").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
const keyCount = async () => Number((await db().selectFrom("checkout_keys").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
const invoiceHooks = (watchId: string) => s.receiver.deliveries(watchId).filter((d) => d.event?.startsWith("invoice_"));

describe("checkout invoices (Monero)", () => {
  it("invoice by watch token → exact payment → confirming (invoice_seen) → paid (invoice_paid), fee debited once", async () => {
    const m = await merchant("alice");
    const r = await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 1234, orderId: "order-42", description: "Two mugs", successUrl: "https://shop.example/thanks" });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const inv = r.json;
    expect(inv).toMatchObject({ status: "pending", chain: "monero", payTo: wallet("alice").address, memo: null, orderId: "order-42", amountUsdCents: 1234, rate: { usdPerCoin: "150.25" } });
    expect(inv.payUrl).toBe(`${s.t.url}/pay/#${inv.invoiceId}`);
    expect(inv.uri).toBe(`monero:${inv.payTo}?tx_amount=${inv.amount.display}&tx_description=Two%20mugs`);
    expect(Date.parse(inv.expiresAt) - s.clock.now()).toBe(30 * 60_000);
    expect(JSON.stringify(inv)).not.toContain(m.watchToken);
    expect(inv).not.toHaveProperty("watchId");
    const amount = BigInt(inv.amount.atomic);
    expect(amount % 1_000_000n).not.toBe(0n);

    const txid = s.devnet.monerod.send(inv.payTo, amount);
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "confirming", received: { atomic: amount.toString() }, confirmations: { required: CONFIRMATIONS } });
    expect(await fees(m.watchId)).toEqual([]);

    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    const paid = await status(inv.invoiceId);
    expect(paid).toMatchObject({ status: "paid", paidAt: expect.any(String) });
    const f = await fees(m.watchId);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ amount_atomic: (-SETTLEMENT_FEE).toString(), ref: `invoice:${inv.invoiceId}` });

    s.devnet.monerod.mine(2);
    await s.nextTick();
    await s.nextTick();
    expect(await fees(m.watchId)).toHaveLength(1);

    const hooks = invoiceHooks(m.watchId);
    expect(hooks.map((h) => h.event)).toEqual(["invoice_seen", "invoice_paid"]);
    for (const h of hooks) {
      expect(h.signatureValid).toBe(true);
      expect(h.body).toMatchObject({ invoiceId: inv.invoiceId, orderId: "order-42", txid, expected: { atomic: amount.toString() }, received: { atomic: amount.toString() } });
    }
    expect(hooks[1]!.body).toMatchObject({ status: "paid", feeAtomic: SETTLEMENT_FEE.toString() });

    const list = await s.call("GET", `/v1/checkout/invoices?watchId=${m.watchId}&status=paid`, { token: m.watchToken });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    expect(list.json.invoices).toHaveLength(1);
    expect(list.json.invoices[0]).toMatchObject({ invoiceId: inv.invoiceId, feeAtomic: SETTLEMENT_FEE.toString() });
    expect(list.json.invoices[0].webhooks.map((w: { event: string; status: string }) => [w.event, w.status])).toEqual([
      ["invoice_seen", "delivered"],
      ["invoice_paid", "delivered"],
    ]);
    expect((await s.call("GET", `/v1/checkout/invoices?watchId=${m.watchId}`, { token: "wrong" })).status).toBe(401);
  }, 120_000);

  it("less than the amount (same tag) confirms as underpaid, with no fee; two open invoices are matched to the right one", async () => {
    const m = await merchant("bob");
    const a = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 500 })).json;
    const b = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 500 })).json;
    expect(a.amount.atomic).not.toBe(b.amount.atomic);
    s.devnet.monerod.send(a.payTo, BigInt(a.amount.atomic) - 1_000_000n);
    s.devnet.monerod.send(b.payTo, BigInt(b.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(a.invoiceId)).toMatchObject({ status: "underpaid", received: { atomic: (BigInt(a.amount.atomic) - 1_000_000n).toString() } });
    expect(await status(b.invoiceId)).toMatchObject({ status: "paid" });
    expect(await fees(m.watchId)).toHaveLength(1);
    const events = invoiceHooks(m.watchId).map((h) => `${h.event}:${(h.body as { invoiceId: string }).invoiceId === a.invoiceId ? "a" : "b"}`);
    expect(events.filter((e) => e.endsWith(":a"))).toEqual(["invoice_seen:a", "invoice_underpaid:a"]);
    expect(events.filter((e) => e.endsWith(":b"))).toEqual(["invoice_seen:b", "invoice_paid:b"]);
  }, 120_000);

  it("while confirming, the public view counts confirmations; a reorg sends the invoice back to pending, and mined again it is paid once", async () => {
    const m = await merchant("carol");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 700 })).json;
    const amount = BigInt(inv.amount.atomic);
    s.devnet.monerod.send(inv.payTo, amount);
    s.devnet.monerod.mine(1);
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "confirming", confirmations: { required: CONFIRMATIONS, seen: 1 } });
    s.devnet.monerod.reorg(1); // the payment's block goes; the devnet drops its transaction
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "pending", received: null, confirmations: { seen: null } });
    expect(await fees(m.watchId)).toEqual([]);
    s.devnet.monerod.send(inv.payTo, amount);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect((await status(inv.invoiceId)).status).toBe("paid");
    expect(await fees(m.watchId)).toHaveLength(1);
    expect(invoiceHooks(m.watchId).map((h) => h.event)).toEqual(["invoice_seen", "invoice_seen", "invoice_paid"]);
  }, 120_000);

  it("TTL elapsed unpaid → expired with invoice_expired; a payment within the late day still pays it", async () => {
    const m = await merchant("carol");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 300, ttlMinutes: 5, orderId: "late-1" })).json;
    s.advance(5 * 60_000);
    expect((await status(inv.invoiceId)).status).toBe("expired");
    expect((await expireInvoices(s.t.app.checkout, db())).expired).toBeGreaterThanOrEqual(1);
    expect((await expireInvoices(s.t.app.checkout, db())).expired).toBe(0);
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "paid" });
    expect(invoiceHooks(m.watchId).map((h) => h.event)).toEqual(["invoice_expired", "invoice_seen", "invoice_paid"]);
    expect(invoiceHooks(m.watchId).every((h) => (h.body as { orderId: string }).orderId === "late-1")).toBe(true);
  }, 120_000);

  it("a watch paused at zero credit does not scan: its invoice waits, and is paid (fee charged once) when credit returns", async () => {
    const m = await merchant("miner");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 25 })).json;
    await db().updateTable("watches").set({ credit_atomic: "0" }).where("id", "=", m.watchId).execute();
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await status(inv.invoiceId)).status).toBe("pending");
    await creditWatch({ ctx: { deps: s.t.app.watch, db: db() }, input: { watchId: m.watchId, amountAtomic: 100_000n, reason: "test top-up" } });
    await s.nextTick();
    await s.nextTick();
    expect((await status(inv.invoiceId)).status).toBe("paid");
    expect(await fees(m.watchId)).toHaveLength(1);
    expect(invoiceHooks(m.watchId).map((h) => h.event)).toEqual(["invoice_seen", "invoice_paid"]);
  }, 120_000);

  it("an overpayment (same tag) is paid, with what arrived shown as received and the fee charged once", async () => {
    const m = await merchant("bob");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 400 })).json;
    const extra = 1_000_000_000n; // 0.001 XMR more: the low six digits (the tag) are unchanged
    const sent = BigInt(inv.amount.atomic) + extra;
    s.devnet.monerod.send(inv.payTo, sent);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "paid", received: { atomic: sent.toString() } });
    expect(await fees(m.watchId)).toHaveLength(1);
    const paidHook = invoiceHooks(m.watchId).find((h) => h.event === "invoice_paid")!;
    expect(paidHook.body).toMatchObject({ expected: { atomic: inv.amount.atomic }, received: { atomic: sent.toString() } });
  }, 120_000);

  it("a watch with less credit than the fee pays what it has: the fee is capped at the balance, never below zero", async () => {
    const m = await merchant("carol");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 100 })).json;
    await db().updateTable("watches").set({ credit_atomic: "5000" }).where("id", "=", m.watchId).execute();
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    const paid = await status(inv.invoiceId);
    expect(paid.status).toBe("paid");
    const f = await fees(m.watchId);
    expect(f).toHaveLength(1);
    const charged = -BigInt(f[0]!.amount_atomic);
    expect(charged).toBeGreaterThan(0n);
    expect(charged).toBeLessThan(SETTLEMENT_FEE);
    expect(BigInt(f[0]!.balance_after)).toBe(0n);
    const w = await db().selectFrom("watches").select(["credit_atomic"]).where("id", "=", m.watchId).executeTakeFirstOrThrow();
    expect(BigInt(w.credit_atomic)).toBe(0n);
    const row = await db().selectFrom("checkout_invoices").select(["fee_atomic"]).where("id", "=", inv.invoiceId).executeTakeFirstOrThrow();
    expect(BigInt(row.fee_atomic!)).toBe(charged);
  }, 120_000);

  it("cancel: a pending invoice only, with the watch token; no webhook; its tag is freed and a later payment is not the invoice's", async () => {
    const m = await merchant("alice");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 350 })).json;
    expect((await s.call("DELETE", `/v1/checkout/invoices/${inv.invoiceId}`, { token: "wrong" })).status).toBe(404);
    expect((await status(inv.invoiceId)).status).toBe("pending");
    const del = await s.call("DELETE", `/v1/checkout/invoices/${inv.invoiceId}`, { token: m.watchToken });
    expect(del.status, JSON.stringify(del.json)).toBe(200);
    expect(del.json).toMatchObject({ invoiceId: inv.invoiceId, status: "cancelled" });
    const again = await s.call("DELETE", `/v1/checkout/invoices/${inv.invoiceId}`, { token: m.watchToken });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("invoice_not_cancellable");
    const row = await db().selectFrom("checkout_invoices").select(["tag_open"]).where("id", "=", inv.invoiceId).executeTakeFirstOrThrow();
    expect(row.tag_open).toBe(false);

    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    expect(await status(inv.invoiceId)).toMatchObject({ status: "cancelled", received: null });
    expect(invoiceHooks(m.watchId)).toEqual([]);
    expect(await fees(m.watchId)).toEqual([]);

    // A confirming invoice cannot be cancelled.
    const b = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 360 })).json;
    s.devnet.monerod.send(b.payTo, BigInt(b.amount.atomic));
    await s.nextTick();
    expect((await status(b.invoiceId)).status).toBe("confirming");
    const late = await s.call("DELETE", `/v1/checkout/invoices/${b.invoiceId}`, { token: m.watchToken });
    expect(late.status).toBe(409);
    expect((await status(b.invoiceId)).status).toBe("confirming");
  }, 120_000);

  it("the QR code of an invoice is an SVG of its wallet URI, drawn by the service", async () => {
    const m = await merchant("bob");
    const inv = (await invoice({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 200 })).json;
    const r = await fetch(`${s.t.url}/v1/checkout/invoices/${inv.invoiceId}/qr.svg`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("image/svg+xml");
    const svg = await r.text();
    expect(svg).toMatch(/^<svg[^>]*viewBox/);
    expect((await fetch(`${s.t.url}/v1/checkout/invoices/00000000-0000-4000-8000-000000000000/qr.svg`)).status).toBe(404);
  });

  it("checkout keys: shown once, stored hashed, cap enforced, revocation immediate", async () => {
    const m = await merchant("alice");
    const k = await s.call("POST", "/v1/checkout/keys", { body: { watchId: m.watchId, watchToken: m.watchToken, label: "storefront", maxAmountUsdCents: 1000 } });
    expect(k.status, JSON.stringify(k.json)).toBe(201);
    expect(k.json.checkoutKey).toMatch(/^ck_/);
    const row = await db().selectFrom("checkout_keys").selectAll().where("id", "=", k.json.keyId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(k.json.checkoutKey);

    const ok = await invoice({ checkoutKey: k.json.checkoutKey, amountUsdCents: 1000 });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    expect(ok.json.payTo).toBe(wallet("alice").address);
    const before = await invoiceCount();
    const over = await invoice({ checkoutKey: k.json.checkoutKey, amountUsdCents: 1001 });
    expect(over.status).toBe(403);
    expect(over.json.error.code).toBe("checkout_key_cap_exceeded");

    expect((await s.call("DELETE", `/v1/checkout/keys/${k.json.keyId}`, { token: "wrong" })).status).toBe(404);
    const del = await s.call("DELETE", `/v1/checkout/keys/${k.json.keyId}`, { token: m.watchToken });
    expect(del.status, JSON.stringify(del.json)).toBe(200);
    const revoked = await invoice({ checkoutKey: k.json.checkoutKey, amountUsdCents: 100 });
    expect(revoked.status).toBe(401);
    expect(revoked.json.error.code).toBe("invalid_checkout_key");
    expect(await invoiceCount()).toBe(before);
  }, 120_000);

  it("every bound of the spec is a 400 that writes nothing", async () => {
    const m = await merchant("bob");
    const auth = { watchId: m.watchId, watchToken: m.watchToken };
    const invoices = await invoiceCount();
    const keys = await keyCount();
    const bad: [Record<string, unknown>, string][] = [
      [{ ...auth, amountUsdCents: 24 }, "invalid_input"],
      [{ ...auth, amountUsdCents: 25.5 }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, ttlMinutes: 4 }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, ttlMinutes: 1441 }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, orderId: "x".repeat(121) }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, description: "x".repeat(201) }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, successUrl: "javascript:alert(1)" }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, successUrl: "ftp://shop.example/" }, "invalid_input"],
      [{ ...auth, amountUsdCents: 100, chain: "zcash" }, "checkout_chain_mismatch"],
      [{ amountUsdCents: 100 }, "checkout_auth_required"],
      [{ ...auth, checkoutKey: "ck_x", amountUsdCents: 100 }, "checkout_auth_required"],
      [{ checkoutKey: "nope", amountUsdCents: 100 }, "invalid_input"],
    ];
    for (const [body, code] of bad) {
      const r = await invoice(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.code, JSON.stringify(body)).toBe(code);
    }
    for (const body of [
      { ...auth, label: "x".repeat(81) },
      { ...auth, maxAmountUsdCents: 0 },
    ]) {
      const r = await s.call("POST", "/v1/checkout/keys", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await invoice({ watchId: m.watchId, watchToken: "wrong", amountUsdCents: 100 })).status).toBe(401);
    expect(await invoiceCount()).toBe(invoices);
    expect(await keyCount()).toBe(keys);
    expect((await s.call("GET", "/v1/checkout/invoices/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  }, 120_000);

  it("GET /v1/checkout summarises endpoints, fees and limits; /pay/ serves the page", async () => {
    const r = await s.call("GET", "/v1/checkout");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ product: "checkout", fees: { settlementFeeAtomic: "20000" }, limits: { amountUsdCents: { min: 25 }, ttlMinutes: { min: 5, max: 1440, default: 30 } } });
    const snippets = await s.call("GET", "/v1/private/snippets");
    expect(snippets.json.checkout).toMatchObject({ available: true, events: ["invoice_seen", "invoice_paid", "invoice_underpaid", "invoice_expired"] });
    const page = await fetch(`${s.t.url}/pay/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain(`<meta name="vigil-api" content="${s.t.url}">`);
  });
});
