/**
 * Paying for watch credit in XMR, end to end on the devnet: the real app,
 * the devnet's two HTTP price providers, the real Monero scanner watching
 * the service's own receiving wallet, and payments made with real
 * sender-side crypto by the devnet monerod. Quote → exact payment → mined →
 * tick → settled and credited once; a wrong amount is not matched; expiry;
 * reorg; no price → 503; bounds → 400 with nothing written; the coin-created
 * watch on grace credit, then topped up by its own payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../src/http/mcp-tools.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CONFIRMATIONS = 3;
/** The devnet's providers both say 150.25 USD per XMR. */
const RATE_NUM = 15025n;
const RATE_DEN = 100n;

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS) } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const db = () => s.t.db.db;
const wallet = (label: string) => s.wallet(label);

const userWatch = (label: string) => s.openMoneroWatch(label, `/coin-${label}`);

const ledger = (watchId: string) => db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", watchId).orderBy("id").execute();
const coinTopups = async (watchId: string) => (await ledger(watchId)).filter((r) => r.kind === "topup");
const quoteCount = async () => Number((await db().selectFrom("coin_quotes").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
const getQuote = (id: string, token: string) => s.call("GET", `/v1/private/topup-crypto/${id}`, { token });
const quote = (w: { watchId: string; watchToken: string }, amountUsdCents = 200) =>
  s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: w.watchToken, chain: "monero", amountUsdCents } });

/** Independent restatement: USD cents at 150.25 USD/XMR, rounded up to a piconero. */
const baseAmount = (cents: bigint) => (cents * RATE_DEN * 10n ** 12n + 100n * RATE_NUM - 1n) / (100n * RATE_NUM);

describe("coin top-up quotes (Monero)", () => {
  it("quote → exact payment → confirming → settled after the confirmations, credited exactly once", async () => {
    const w = await userWatch("alice");
    const r = await quote(w, 200);
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const q = r.json;
    expect(q).toMatchObject({
      watchId: w.watchId,
      chain: "monero",
      status: "pending",
      payTo: s.devnet.serviceWallet.address,
      memo: null,
      confirmations: CONFIRMATIONS,
      credit: { usdCents: 200, atomic: "2000000" },
      rate: { usdPerCoin: "150.25" },
    });
    expect(q.amount.coin).toBe("XMR");
    expect(Date.parse(q.expiresAt) - s.clock.now()).toBe(15 * 60_000);
    // The amount: the USD's worth rounded up to a whole 10^6 piconero, plus a tag of 1..999999.
    const amount = BigInt(q.amount.atomic);
    const rounded = ((baseAmount(200n) + 999_999n) / 1_000_000n) * 1_000_000n;
    expect(amount).toBeGreaterThan(rounded);
    expect(amount).toBeLessThan(rounded + 1_000_000n);
    expect(q.amount.display).toBe(`${amount / 10n ** 12n}.${(amount % 10n ** 12n).toString().padStart(12, "0")}`.replace(/0+$/, ""));

    const txid = s.devnet.monerod.send(q.payTo, amount);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json).toMatchObject({ status: "confirming", seenTxid: txid });
    expect(await coinTopups(w.watchId)).toEqual([]);

    s.devnet.monerod.mine(CONFIRMATIONS - 1);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("confirming");

    s.devnet.monerod.mine(1);
    await s.nextTick();
    const settled = (await getQuote(q.quoteId, w.watchToken)).json;
    expect(settled).toMatchObject({ status: "settled", seenTxid: txid, settledAt: new Date(s.clock.now()).toISOString() });
    const topups = await coinTopups(w.watchId);
    expect(topups).toHaveLength(1);
    expect(topups[0]).toMatchObject({ amount_atomic: "2000000", ref: expect.stringContaining(txid) });

    // More ticks and blocks change nothing: credited once.
    s.devnet.monerod.mine(2);
    await s.nextTick();
    await s.nextTick();
    expect(await coinTopups(w.watchId)).toHaveLength(1);
    const rows = await ledger(w.watchId);
    const row = await db().selectFrom("watches").select(["credit_atomic", "drain_unbooked_atomic"]).where("id", "=", w.watchId).executeTakeFirstOrThrow();
    // The ledger holds the credit plus the idle drain not booked yet (one row per UTC day).
    expect(rows.reduce((a, l) => a + BigInt(l.amount_atomic), 0n)).toBe(BigInt(row.credit_atomic) + BigInt(row.drain_unbooked_atomic));
    expect(await db().selectFrom("coin_receipts").selectAll().where("txid", "=", txid).execute()).toEqual([
      expect.objectContaining({ disposition: "matched", quote_id: q.quoteId, amount_atomic: amount.toString() }),
    ]);
  }, 120_000);

  it("a payment of another amount matches no quote: the quote waits, the payment is listed for the operator", async () => {
    const w = await userWatch("bob");
    const q = (await quote(w, 500)).json;
    const wrong = BigInt(q.amount.atomic) + 1n;
    const txid = s.devnet.monerod.send(q.payTo, wrong);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("pending");
    expect(await coinTopups(w.watchId)).toEqual([]);
    expect(await db().selectFrom("coin_receipts").select(["disposition", "quote_id", "amount_atomic"]).where("txid", "=", txid).execute()).toEqual([
      { disposition: "unmatched", quote_id: null, amount_atomic: wrong.toString() },
    ]);
  }, 120_000);

  it("two open quotes never share an amount", async () => {
    const w = await userWatch("carol");
    const amounts = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await quote(w, 300);
      expect(r.status).toBe(201);
      amounts.add(r.json.amount.atomic);
    }
    expect(amounts.size).toBe(6);
  });

  it("a reorg while confirming sends the quote back to pending; mined again, it settles", async () => {
    const w = await userWatch("miner");
    const q = (await quote(w, 250)).json;
    const amount = BigInt(q.amount.atomic);
    s.devnet.monerod.send(q.payTo, amount);
    s.devnet.monerod.mine(1);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("confirming");
    s.devnet.monerod.reorg(1); // the payment's block goes; the devnet drops its transaction
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json).toMatchObject({ status: "pending", seenTxid: null });
    expect(await coinTopups(w.watchId)).toEqual([]);

    const again = s.devnet.monerod.send(q.payTo, amount);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json).toMatchObject({ status: "settled", seenTxid: again });
    expect(await coinTopups(w.watchId)).toHaveLength(1);
  }, 120_000);

  it("expires after 15 minutes; a payment after the late-payment grace is not matched", async () => {
    const w = await userWatch("alice");
    const q = (await quote(w, 200)).json;
    s.advance(15 * 60_000);
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("expired");
    s.advance(24 * 3_600_000);
    const txid = s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("expired");
    expect(await coinTopups(w.watchId)).toEqual([]);
    expect((await db().selectFrom("coin_receipts").select("disposition").where("txid", "=", txid).executeTakeFirstOrThrow()).disposition).toBe("unmatched");
  }, 120_000);

  it("a payment up to a day after expiry still settles; a second payment of the amount is not credited again", async () => {
    const w = await userWatch("bob");
    const q = (await quote(w, 400)).json;
    s.advance(15 * 60_000 + 3_600_000); // an hour late
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("expired");
    s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("settled");
    expect((await coinTopups(w.watchId)).map((t) => t.amount_atomic)).toEqual(["4000000"]);

    const twice = s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect(await coinTopups(w.watchId)).toHaveLength(1);
    expect((await db().selectFrom("coin_receipts").select("disposition").where("txid", "=", twice).executeTakeFirstOrThrow()).disposition).toBe("unmatched");
  }, 120_000);

  it("an underpayment is not matched; the exact payment that follows settles the quote", async () => {
    const w = await userWatch("carol");
    const q = (await quote(w, 200)).json;
    const short = s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic) - 1_000_000n);
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("pending");
    expect((await db().selectFrom("coin_receipts").select("disposition").where("txid", "=", short).executeTakeFirstOrThrow()).disposition).toBe("unmatched");
    s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("settled");
    expect(await coinTopups(w.watchId)).toHaveLength(1);
  }, 120_000);

  it("a settled payment reorged out stays credited and is listed for the operator", async () => {
    const w = await userWatch("alice");
    const q = (await quote(w, 200)).json;
    const txid = s.devnet.monerod.send(q.payTo, BigInt(q.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("settled");
    s.devnet.monerod.reorg(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(q.quoteId, w.watchToken)).json.status).toBe("settled");
    expect(await coinTopups(w.watchId)).toHaveLength(1);
    expect(await db().selectFrom("coin_receipts").select(["disposition", "quote_id"]).where("txid", "=", txid).execute()).toEqual([
      { disposition: "reorged_after_settlement", quote_id: q.quoteId },
    ]);
  }, 120_000);

  it("refuses out-of-bounds amounts and bad credentials with nothing written", async () => {
    const w = await userWatch("bob");
    const before = await quoteCount();
    for (const amountUsdCents of [199, 50_001, 0, -200, 2.5, "300", null]) {
      const r = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: w.watchToken, chain: "monero", amountUsdCents } });
      expect(r.status, `${amountUsdCents}`).toBe(400);
      expect(r.json.error.code).toBe("invalid_input");
    }
    const wrongToken = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: "wt_nope", amountUsdCents: 200 } });
    expect(wrongToken.status).toBe(401);
    const unknownChain = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: w.watchToken, chain: "bitcoin", amountUsdCents: 200 } });
    expect(unknownChain.status).toBe(400);
    expect(await quoteCount()).toBe(before);
    // The bounds themselves are accepted.
    expect((await quote(w, 200)).status).toBe(201);
    expect((await quote(w, 50_000)).status).toBe(201);
    // Another watch's token does not open a quote.
    const q = (await quote(w, 200)).json;
    const other = await userWatch("carol");
    const r = await getQuote(q.quoteId, other.watchToken);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("quote_not_found");
  });

  it("answers 503 price_unavailable when no provider gives a fresh price, and writes nothing", async () => {
    const w = await userWatch("alice");
    s.devnet.prices.down("both");
    try {
      s.advance(61_000); // past the price cache
      const before = await quoteCount();
      const r = await quote(w, 200);
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("price_unavailable");
      expect(await quoteCount()).toBe(before);
      // One provider back is enough.
      s.devnet.prices.down("a", false);
      const ok = await quote(w, 200);
      expect(ok.status).toBe(201);
      expect(ok.json.rate.usdPerCoin).toBe("150.25");
    } finally {
      s.devnet.prices.down("both", false);
    }
  });

  it("is offered by the info guide (crypto_topup) and the snippets guide", async () => {
    const info = await s.call("GET", "/v1/private/info");
    expect(info.json.crypto_topup).toMatchObject({ available: true, min_usd_cents: 200, max_usd_cents: 50_000 });
    const snippets = await s.call("GET", "/v1/private/snippets");
    expect(snippets.json.create.pay_in_coin.available).toBe(true);
  });

  it("is an MCP tool (service_private_watch_topup_crypto) on the topup-crypto route", () => {
    const tools = mcpTools(s.t.app.table);
    const tool = tools.find((t) => t.name === "service_private_watch_topup_crypto");
    expect(tool).toBeDefined();
    const route = s.t.app.routes.find((r) => r.mcpTool === "service_private_watch_topup_crypto")!;
    expect(`${route.method} ${route.path}`).toBe("POST /v1/private/topup-crypto");
  });
});

describe("a watch created in coin", () => {
  it("is live at once on about one day of grace credit, then topped up by its own payment", async () => {
    const carol = wallet("carol");
    const r = await s.call("POST", "/v1/private/watch-crypto", {
      body: { chain: "monero", address: carol.address, viewKey: carol.viewKey, webhookUrl: s.receiver.hookUrl("/coin-created") },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const c = r.json;
    expect(c).toMatchObject({
      watchId: expect.any(String),
      watchToken: expect.stringMatching(/^wt_/),
      webhookSecret: expect.any(String),
      creditAtomic: "20000",
      payment: { payTo: s.devnet.serviceWallet.address, memo: null, confirmations: CONFIRMATIONS, amount: { coin: "XMR" } },
    });
    s.receiver.registerSecret(c.watchId, c.webhookSecret);
    const status = await s.call("GET", `/v1/private/watch/${c.watchId}`, { token: c.watchToken });
    expect(status.json.status).toBe("active");
    const q = (await getQuote(c.payment.quoteId, c.watchToken)).json;
    expect(q).toMatchObject({ status: "pending", credit: { usdCents: 200, atomic: "2000000" }, watchId: c.watchId });
    expect((await ledger(c.watchId)).map((l) => [l.kind, l.amount_atomic])).toEqual([["create", "20000"]]);

    s.devnet.monerod.send(c.payment.payTo, BigInt(c.payment.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    expect((await getQuote(c.payment.quoteId, c.watchToken)).json.status).toBe("settled");
    const topups = await coinTopups(c.watchId);
    expect(topups.map((t) => t.amount_atomic)).toEqual(["2000000"]);
  }, 120_000);

  it("unpaid, stops when its grace credit runs out, like any watch at zero", async () => {
    const alice = wallet("alice");
    const r = await s.call("POST", "/v1/private/watch-crypto", {
      body: { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: s.receiver.hookUrl("/coin-unpaid"), amountUsdCents: 300 },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    s.receiver.registerSecret(r.json.watchId, r.json.webhookSecret);
    const q = (await getQuote(r.json.payment.quoteId, r.json.watchToken)).json;
    expect(q.credit).toEqual({ usdCents: 300, atomic: "3000000" });
    s.advance(2 * 86_400_000);
    await s.tick();
    const status = await s.call("GET", `/v1/private/watch/${r.json.watchId}`, { token: r.json.watchToken });
    expect(status.json).toMatchObject({ status: "paused", credit: { remaining_atomic: "0" } });
    expect((await getQuote(q.quoteId, r.json.watchToken)).json.status).toBe("expired");
  }, 120_000);

  it("refuses out-of-bounds amounts with nothing written", async () => {
    const bob = wallet("bob");
    const watches = async () => (await db().selectFrom("watches").select("id").execute()).length;
    const before = await watches();
    const r = await s.call("POST", "/v1/private/watch-crypto", {
      body: { chain: "monero", address: bob.address, viewKey: bob.viewKey, webhookUrl: s.receiver.hookUrl("/x"), amountUsdCents: 150 },
    });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_input");
    expect(await watches()).toBe(before);
  });
});
