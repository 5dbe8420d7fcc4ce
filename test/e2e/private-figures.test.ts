/**
 * Issue 23, item 7: figures that mean what they say, on the devnet.
 *
 * (a) GET /v1/private/health counted the service's own coin-wallet watches
 *     (opened with SERVICE_WALLET_CREDIT, USD 1 million each) in the
 *     merchants' credit totals: about USD 2 million of "outstanding credit"
 *     on a fresh devnet. The top level now counts merchants' watches only;
 *     the service's own are under `service_watches`.
 * (b) POST /v1/private/derive-viewkey without `network` derived mainnet keys
 *     on a testnet service, so the key did not match the devnet wallet's. It
 *     now defaults to the service's Zcash network; an explicit one still wins.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { SERVICE_WALLET_CREDIT } from "../../src/checkout/quotes.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const db = () => s.t.db.db;

describe("GET /v1/private/health counts the service's own watches apart", () => {
  it("merchants' totals exclude the coin-wallet watch; service_watches holds it", async () => {
    const merchant = await s.openMoneroWatch("alice", "/figures-alice");
    // A coin top-up quote opens the service's own Monero receiving-wallet watch.
    const q = await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: merchant.watchId, watchToken: merchant.watchToken, chain: "monero", amountUsdCents: 200 } });
    expect(q.status, JSON.stringify(q.json)).toBe(201);
    const own = await db().selectFrom("coin_wallets").select("watch_id").where("chain", "=", "monero").executeTakeFirstOrThrow();
    await s.nextTick(); // both scanned; their scan_complete events delivered

    const r = await s.call("GET", "/v1/private/health");
    expect(r.status).toBe(200);
    const schema = s.t.app.routes.find((x) => x.operationId === "privateWatchHealth")!.output;
    expect(schema.parse(r.json)).toEqual(r.json);

    const rows = await db().selectFrom("watches").select(["id", "credit_atomic"]).execute();
    const credit = (id: string) => BigInt(rows.find((w) => w.id === id)!.credit_atomic);
    expect(rows).toHaveLength(2);

    // Merchants: exactly alice's watch, her credit, her ledger, her deliveries.
    expect(r.json.watches).toEqual({ total: 1, active: 1, paused: 0, dead: 0, cancelled: 0, by_chain: { monero: 1 } });
    expect(r.json.credit.outstanding_atomic).toBe(credit(merchant.watchId).toString());
    expect(BigInt(r.json.credit.outstanding_atomic)).toBeLessThanOrEqual(CREATE_CREDIT);
    const ledgerOf = async (id: string) => {
      const out: Record<string, { total_atomic: string; entries: number }> = {};
      for (const l of await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", id).execute()) {
        const e = (out[l.kind] ??= { total_atomic: "0", entries: 0 });
        e.total_atomic = (BigInt(e.total_atomic) + BigInt(l.amount_atomic)).toString();
        e.entries++;
      }
      return out;
    };
    expect(r.json.credit.ledger).toEqual(await ledgerOf(merchant.watchId));
    const deliveredTo = async (id: string) =>
      (await db().selectFrom("webhook_outbox").select("status").where("watch_id", "=", id).execute()).reduce<Record<string, number>>((m, o) => ({ ...m, [o.status]: (m[o.status] ?? 0) + 1 }), {});
    expect(r.json.deliveries).toEqual(await deliveredTo(merchant.watchId));

    // The service's own watch, apart.
    expect(r.json.service_watches.watches).toEqual({ total: 1, active: 1, paused: 0, dead: 0, cancelled: 0, by_chain: { monero: 1 } });
    expect(r.json.service_watches.credit.outstanding_atomic).toBe(credit(own.watch_id).toString());
    expect(BigInt(r.json.service_watches.credit.outstanding_atomic)).toBeGreaterThan(SERVICE_WALLET_CREDIT - 1_000_000n);
    expect(r.json.service_watches.credit.ledger).toEqual(await ledgerOf(own.watch_id));
    expect(r.json.service_watches.deliveries).toEqual(await deliveredTo(own.watch_id));
  }, 120_000);
});

describe("POST /v1/private/derive-viewkey defaults to the service's Zcash network", () => {
  it("no network: the devnet wallet's own UFVK (testnet); an explicit network still wins", async () => {
    const wallet = s.devnet.zcashWallets()[0]!;
    expect(wallet.network).toBe("testnet");
    const r = await s.call("POST", "/v1/private/derive-viewkey", { body: { chain: "zcash", seed: wallet.mnemonic } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ network: "testnet", ufvk: wallet.ufvk, defaultAddress: wallet.address });

    const main = await s.call("POST", "/v1/private/derive-viewkey", { body: { chain: "zcash", seed: wallet.mnemonic, network: "mainnet" } });
    expect(main.status).toBe(200);
    expect(main.json.network).toBe("mainnet");
    expect(main.json.ufvk).toMatch(/^uview1/);
    expect(main.json.ufvk).not.toBe(wallet.ufvk);
  }, 120_000);

  it("the published input schema says so: its default is the service's network", async () => {
    const doc = (await s.call("GET", "/openapi.json")).json;
    const op = doc?.paths?.["/v1/private/derive-viewkey"]?.post;
    expect(op, "derive-viewkey in the OpenAPI document").toBeDefined();
    const body = op.requestBody.content["application/json"].schema;
    const network = (body.properties ?? body.allOf?.[0]?.properties).network;
    expect(network.default).toBe("testnet");
  });
});
