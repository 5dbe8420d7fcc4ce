/**
 * A Monero watch's own subaddress look-ahead, on the devnet and on both
 * stores: asked for at creation (paid route, x402) and changed later (PATCH,
 * free), shown in the status, passed by the tick to the scanner, and refused
 * where it means nothing (a Zcash watch, a subaddress watch, beyond a
 * wallet's 50 × 200) before any payment and with nothing written. Payments
 * are made by the devnet's monerod with sender-side crypto to subaddresses
 * derived here from the wallet's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddressOrThrow } from "../../src/chains/monero/address.js";
import { hexToBytesStrict } from "../../src/chains/monero/encoding.js";
import { deriveSubaddress } from "../../src/chains/monero/subaddress.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: "2", MONERO_SUBADDRESS_LOOKAHEAD: "10" } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

/** The subaddress (major, minor) of a devnet wallet. */
function sub(label: string, major: number, minor: number): string {
  const w = s.wallet(label);
  const d = decodeAddressOrThrow(w.address);
  return deriveSubaddress(d.network, hexToBytesStrict(w.viewKey!)!, d.spendPublicKey, { major, minor });
}

const outputsOf = async (watchId: string, token: string) => {
  const r = await s.call("GET", `/v1/private/watch/${watchId}`, { token });
  expect(r.status).toBe(200);
  return (r.json.lastSnapshot.outputs as { txid: string; amountAtomic: string; subaddress: { major: number; minor: number } | null }[]).map(
    (o) => `${o.txid}:${o.amountAtomic}:${o.subaddress?.major}/${o.subaddress?.minor}`,
  );
};
const watchRows = async () => Number((await s.t.db.db.selectFrom("watches").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);

describe("a Monero watch's subaddress look-ahead", () => {
  it("created through the paid route with accounts 0–3 it finds a payment to (3,7) that the server's default look-ahead misses; the status says which look-ahead is scanned", async () => {
    const wallet = s.wallet("alice");
    const wide = await s.paid("/v1/private/watch", { chain: "monero", address: wallet.address, viewKey: wallet.viewKey, webhookUrl: s.receiver.hookUrl("/wide"), subaddressLookahead: { accounts: 4, minors: 10 }, invoiceAccount: 2 });
    expect(wide.status, JSON.stringify(wide.json)).toBe(200);
    const small = await s.openMoneroWatch("alice", "/small");
    await s.nextTick();
    const status = await s.call("GET", `/v1/private/watch/${wide.json.watchId}`, { token: wide.json.watchToken });
    expect(status.json.subaddresses).toEqual({ lookahead: { accounts: 4, minors: 10, source: "watch" }, invoiceAccount: 2, issued: [] });
    expect((await s.call("GET", `/v1/private/watch/${small.watchId}`, { token: small.watchToken })).json.subaddresses).toEqual({
      lookahead: { accounts: 2, minors: 10, source: "server" },
      invoiceAccount: 0,
      issued: [],
    });

    const far = s.devnet.monerod.send(sub("alice", 3, 7), 7_000_000_000n);
    const near = s.devnet.monerod.send(sub("alice", 1, 9), 5_000_000_000n);
    s.devnet.monerod.mine(2);
    await s.nextTick();
    expect((await outputsOf(wide.json.watchId, wide.json.watchToken)).sort()).toEqual([`${far}:7000000000:3/7`, `${near}:5000000000:1/9`].sort());
    expect(await outputsOf(small.watchId, small.watchToken)).toEqual([`${near}:5000000000:1/9`]);

    // Widened later: the next payment to (3,7) is found, the earlier one is not scanned again.
    const patched = await s.call("PATCH", `/v1/private/watch/${small.watchId}`, { token: small.watchToken, body: { subaddressLookahead: { accounts: 4, minors: 10 } } });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json).toEqual({ watchId: small.watchId, subaddresses: { lookahead: { accounts: 4, minors: 10, source: "watch" }, invoiceAccount: 0, issued: [] } });
    const again = s.devnet.monerod.send(sub("alice", 3, 7), 3_000_000_000n);
    s.devnet.monerod.mine(2);
    await s.nextTick();
    expect((await outputsOf(small.watchId, small.watchToken)).sort()).toEqual([`${near}:5000000000:1/9`, `${again}:3000000000:3/7`].sort());

    // A watch paid in coin takes the same settings.
    const carol = s.wallet("carol");
    const coin = await s.call("POST", "/v1/private/watch-crypto", { body: { chain: "monero", address: carol.address, viewKey: carol.viewKey, webhookUrl: s.receiver.hookUrl("/coin"), subaddressLookahead: { accounts: 6, minors: 200 }, invoiceAccount: 5 } });
    expect(coin.status, JSON.stringify(coin.json)).toBe(201);
    expect((await s.call("GET", `/v1/private/watch/${coin.json.watchId}`, { token: coin.json.watchToken })).json.subaddresses).toEqual({
      lookahead: { accounts: 6, minors: 200, source: "watch" },
      invoiceAccount: 5,
      issued: [],
    });

    // null goes back to the server's look-ahead.
    const back = await s.call("PATCH", `/v1/private/watch/${small.watchId}`, { token: small.watchToken, body: { subaddressLookahead: null, invoiceAccount: 49 } });
    expect(back.json.subaddresses).toEqual({ lookahead: { accounts: 2, minors: 10, source: "server" }, invoiceAccount: 49, issued: [] });
  }, 120_000);

  it("refuses what a look-ahead cannot be, on a Zcash or a subaddress watch, before payment and with nothing written", async () => {
    const wallet = s.wallet("bob");
    const rows = await watchRows();
    const usdc = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);
    const before = usdc();
    const create = (body: Record<string, unknown>) => s.paid("/v1/private/watch", { chain: "monero", address: wallet.address, viewKey: wallet.viewKey, webhookUrl: s.receiver.hookUrl("/bob"), ...body });
    for (const [body, code] of [
      [{ subaddressLookahead: { accounts: 51, minors: 1 } }, "invalid_input"],
      [{ subaddressLookahead: { accounts: 50, minors: 201 } }, "invalid_input"],
      [{ subaddressLookahead: { accounts: 1, minors: 0 } }, "invalid_input"],
      [{ invoiceAccount: 50 }, "invalid_input"],
      [{ invoiceAccount: -1 }, "invalid_input"],
      [{ address: sub("bob", 0, 3), subaddressLookahead: { accounts: 2, minors: 5 } }, "subaddress_settings_not_applicable"],
    ] as const) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get("payment-response")).toBeNull();
      expect(r.json.error.code, JSON.stringify(body)).toBe(code);
    }
    const zcash = s.devnet.zcashWallets()[0];
    if (zcash) {
      const r = await s.paid("/v1/private/watch", { chain: "zcash", address: zcash.address, viewKey: zcash.ufvk, webhookUrl: s.receiver.hookUrl("/z"), invoiceAccount: 1 });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("subaddress_settings_not_applicable");
    }
    expect(usdc(), "the payer's USDC did not move").toBe(before);
    expect(await watchRows()).toBe(rows);

    const m = await s.openMoneroWatch("bob", "/bob-ok");
    const patch = (body: unknown, token = m.watchToken) => s.call("PATCH", `/v1/private/watch/${m.watchId}`, { token, body });
    expect((await patch({})).json.error.code).toBe("nothing_to_update");
    expect((await patch({ invoiceAccount: 3 }, "wt_nope")).status).toBe(401);
    expect((await patch({ subaddressLookahead: { accounts: 100, minors: 100 } })).json.error.code).toBe("invalid_input");
    expect((await s.call("GET", `/v1/private/watch/${m.watchId}`, { token: m.watchToken })).json.subaddresses.invoiceAccount).toBe(0);
  }, 120_000);
});
