/**
 * The 503s a client meets when the service cannot do a thing now, on the
 * real app over the devnet, each answered before any payment:
 *
 *   - a feature the operator turned off: a second instance on the same
 *     database and devnet runs without MASTER_KEY, LIGHTWALLETD_URL and
 *     PRIVATE_RELAY_BUILDERS, so it creates no watches, takes no Zcash coin
 *     payments or invoices (its Zcash watches stay in the database), and
 *     relays nothing, while the instance with them does all of it;
 *   - no free amount tag: every tag of a wallet is held by an open invoice,
 *     or every amount of a quote's price by an open quote.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { TAG_MODULI } from "../../src/checkout/pay-id.js";
import { silentLog } from "../helpers/app.js";
import { DEVNET_TX } from "../helpers/route-fixtures.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

type Answer = { status: number; json: { error?: { code: string } } & Record<string, unknown>; headers: Headers };

let s: WatchStack;
let xmr: { watchId: string; watchToken: string };
let zec: { watchId: string; watchToken: string };

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  const alice = await s.openMoneroWatch("alice", "/unavailable-xmr");
  xmr = { watchId: alice.watchId, watchToken: alice.watchToken };
  const wallet = s.devnet.zcashWallets()[0]!;
  const created = await s.paid("/v1/private/watch", {
    chain: "zcash",
    address: wallet.address,
    viewKey: wallet.ufvk,
    webhookUrl: s.receiver.hookUrl("/unavailable-zec"),
    birthdayHeight: s.devnet.zcashChain!.tip().height,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  zec = { watchId: created.json.watchId, watchToken: created.json.watchToken };
});
afterAll(async () => s?.close());

/** POSTs JSON to an app's URL, without payment. */
async function post(url: string, path: string, body: unknown): Promise<Answer> {
  const r = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Answer["json"], headers: r.headers };
}

function expectUnavailable(r: Answer, code: string): void {
  expect(r.status, JSON.stringify(r.json)).toBe(503);
  expect(r.json.error!.code).toBe(code);
  expect(r.headers.get("payment-required")).toBeNull();
}

describe("a feature the operator turned off", () => {
  let off: App;
  let offUrl: string;

  beforeAll(async () => {
    off = await createApp({ ...s.t.app.config, MASTER_KEY: undefined, LIGHTWALLETD_URL: undefined, PRIVATE_RELAY_BUILDERS: undefined }, { database: s.t.db, clock: s.clock, log: silentLog });
    offUrl = await off.listen();
  });
  afterAll(async () => off?.close());

  it("no MASTER_KEY: a watch is refused with 503 master_key_not_configured", async () => {
    const alice = s.wallet("alice");
    const body = { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: s.receiver.hookUrl("/never") };
    expectUnavailable(await post(offUrl, "/v1/private/watch", body), "master_key_not_configured");
    expect((await post(s.url, "/v1/private/watch", body)).status).toBe(402);
  });

  it("no Zcash scanner: Zcash coin payments are 503 coin_payments_not_configured, Zcash invoices 503 checkout_chain_unavailable", async () => {
    const quote = { ...xmr, chain: "zcash", amountUsdCents: 200 };
    expectUnavailable(await post(offUrl, "/v1/private/topup-crypto", quote), "coin_payments_not_configured");
    expect((await post(s.url, "/v1/private/topup-crypto", quote)).status).toBe(201);
    const invoice = { ...zec, amountUsdCents: 100 };
    expectUnavailable(await post(offUrl, "/v1/checkout/invoices", invoice), "checkout_chain_unavailable");
    expect((await post(s.url, "/v1/checkout/invoices", invoice)).status).toBe(201);
  });

  it("no private builder: the private relay is 503 private_relay_not_configured", async () => {
    expectUnavailable(await post(offUrl, "/v1/premium/private-relay", { raw_tx: DEVNET_TX }), "private_relay_not_configured");
    expect((await post(s.url, "/v1/premium/private-relay", { raw_tx: DEVNET_TX })).status).toBe(402);
  });
});

describe("no free amount tag", () => {
  const tags = Number(TAG_MODULI.zcash);

  it("every tag of the wallet held by an open invoice: 503 invoice_tag_collision", async () => {
    const first = await post(s.url, "/v1/checkout/invoices", { ...zec, amountUsdCents: 300 });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    // The invoice again under each tag no open invoice of the wallet holds: its whole tag space is taken.
    await sql`
      INSERT INTO checkout_invoices
      SELECT (jsonb_populate_record(i, jsonb_build_object('id', gen_random_uuid(), 'tag', g, 'amount_atomic', i.amount_atomic - i.tag + g, 'memo', NULL))).*
      FROM checkout_invoices i, generate_series(1, ${tags - 1}) AS g
      WHERE i.id = ${first.json.invoiceId as string}
        AND g NOT IN (SELECT tag FROM checkout_invoices WHERE pay_to = i.pay_to AND tag_open)`.execute(s.t.db.db);
    expectUnavailable(await post(s.url, "/v1/checkout/invoices", { ...zec, amountUsdCents: 300 }), "invoice_tag_collision");
  });

  it("every amount of the price held by an open quote: 503 quote_collision", async () => {
    const request = { ...xmr, chain: "zcash", amountUsdCents: 300 };
    const first = await post(s.url, "/v1/private/topup-crypto", request);
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    // The quote again at each amount of its price no open quote holds (the rate is cached, so the next quote's price is the same).
    await sql`
      INSERT INTO coin_quotes
      SELECT (jsonb_populate_record(q, jsonb_build_object('id', gen_random_uuid(), 'amount_atomic', q.amount_atomic - q.amount_atomic % ${tags} + g, 'memo', NULL))).*
      FROM coin_quotes q, generate_series(1, ${tags - 1}) AS g
      WHERE q.id = ${first.json.quoteId as string}
        AND q.amount_atomic - q.amount_atomic % ${tags} + g NOT IN (SELECT amount_atomic FROM coin_quotes WHERE pay_to = q.pay_to AND status IN ('pending', 'confirming'))`.execute(s.t.db.db);
    expectUnavailable(await post(s.url, "/v1/private/topup-crypto", request), "quote_collision");
  });
});
