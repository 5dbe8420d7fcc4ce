/**
 * The product across the Monero FCMP++/Carrot fork, end to end on the devnet
 * (DEVNET_MONERO_CARROT_HEIGHT): the real app and scanner, the devnet monerod
 * building legacy transactions below the fork and Carrot ones (RingCT type 7,
 * Carrot coinbase, v17 blocks) from it. One watch receives before the fork,
 * in the fork block and after it (main address and subaddresses, Carrot and
 * a legacy transfer in v17) with signed balance_change webhooks of exact
 * amounts; a checkout invoice paid with a Carrot transfer becomes paid; a
 * coin top-up paid with one credits the watch; a historical scan over the
 * range spanning the fork finds every payment. A scanner that ignored Carrot
 * outputs fails each of these.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { makeIntegratedAddress } from "../../src/chains/monero/address.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const FORK = 5;

let s: WatchStack;
beforeAll(async () => {
  // The historical scan is paid with x402 after the ticks moved the app clock: the process clock moves with it.
  vi.useFakeTimers({ toFake: ["Date"] });
  s = await startWatchStack({ https: false, moneroCarrotHeight: FORK, env: { MONERO_CONFIRMATIONS: "1" }, onTime: (ms) => vi.setSystemTime(ms) });
}, 120_000);
afterAll(async () => {
  await s?.close();
  vi.useRealTimers();
});

const monerod = () => s.devnet.monerod;
const db = () => s.t.db.db;

/** What the devnet monerod says a transaction is: "carrot" when its as_json has carrot_v1 targets and RingCT type 7. */
async function kindOf(txid: string): Promise<"carrot" | "legacy"> {
  const r = await fetch(`${monerod().url}/get_transactions`, { method: "POST", body: JSON.stringify({ txs_hashes: [txid], decode_as_json: true }) });
  const tx = JSON.parse(((await r.json()) as { txs: { as_json: string }[] }).txs[0]!.as_json) as { vout: { target: Record<string, unknown> }[]; rct_signatures: { type: number } };
  const carrot = tx.vout.every((o) => "carrot_v1" in o.target) && tx.rct_signatures.type === 7;
  return carrot ? "carrot" : "legacy";
}

const balanceChanges = (watchId: string) => s.receiver.deliveries(watchId, "balance_change");
let aliceWatchId = "";
const paidAt: { txid: string; amount: bigint; height: number; subaddress: { major: number; minor: number } }[] = [];

describe("Monero across the Carrot fork (devnet)", () => {
  it("one watch: balance_change webhooks before the fork, in the fork block and after it, with exact amounts", async () => {
    const alice = monerod().wallets.find((x) => x.label === "alice")!;
    const sub11 = alice.subaddresses.find((x) => x.major === 1 && x.minor === 1)!;
    const sub01 = alice.subaddresses.find((x) => x.major === 0 && x.minor === 1)!;
    const w = await s.openMoneroWatch("alice", "/fork-alice");
    aliceWatchId = w.watchId;
    await s.nextTick();
    const pay = async (address: string, amount: bigint, subaddress: { major: number; minor: number }, kind?: "legacy" | "carrot") => {
      const txid = monerod().send(address, amount, kind);
      paidAt.push({ txid, amount, height: monerod().height() + 1, subaddress });
      return txid;
    };

    // Before the fork: a legacy transfer in a v16 block.
    expect(monerod().hfVersionAt(monerod().height() + 1)).toBe(16);
    const before = await pay(alice.address, 1_100_000_000_000n, { major: 0, minor: 0 });
    monerod().mine(1);
    await s.nextTick();
    expect(await kindOf(before)).toBe("legacy");

    // The fork block: two Carrot transfers, to a subaddress and to the main address.
    monerod().mine(FORK - 1 - monerod().height());
    expect(monerod().hfVersionAt(monerod().height() + 1)).toBe(17);
    const atForkSub = await pay(sub11.address, 220_000_000_000n, { major: 1, minor: 1 });
    const atForkMain = await pay(alice.address, 330_000_000_000n, { major: 0, minor: 0 });
    monerod().mine(1);
    expect(monerod().height()).toBe(FORK);
    await s.nextTick();
    expect([await kindOf(atForkSub), await kindOf(atForkMain)]).toEqual(["carrot", "carrot"]);

    // After the fork: Carrot to an integrated address of the main one, and a legacy transfer (v17 still takes one) to a subaddress.
    const after = await pay(makeIntegratedAddress(alice.address, "feedfacecafebeef"), 44_000_000_001n, { major: 0, minor: 0 });
    const afterLegacy = await pay(sub01.address, 5_000_000_007n, { major: 0, minor: 1 }, "legacy");
    monerod().mine(1);
    await s.nextTick();
    expect([await kindOf(after), await kindOf(afterLegacy)]).toEqual(["carrot", "legacy"]);

    const hooks = balanceChanges(w.watchId);
    expect(hooks.every((h) => h.signatureValid === true)).toBe(true);
    const deltas = hooks.map((h) => (h.body as { delta: { balance_atomic: string } }).delta.balance_atomic);
    expect(deltas).toEqual(["1100000000000", "550000000000", "49000000008"]);
    const last = hooks.at(-1)!.body as { current: { balanceAtomic: string; outputs: { txid: string; amountAtomic?: string; subaddress: unknown }[] } };
    expect(last.current.balanceAtomic).toBe((1_100_000_000_000n + 550_000_000_000n + 49_000_000_008n).toString());
    const byTx = new Map(last.current.outputs.map((o) => [o.txid, o.subaddress]));
    expect([before, atForkSub, atForkMain, after, afterLegacy].map((t) => byTx.get(t))).toEqual([
      { major: 0, minor: 0 },
      { major: 1, minor: 1 },
      { major: 0, minor: 0 },
      { major: 0, minor: 0 },
      { major: 0, minor: 1 },
    ]);
  }, 120_000);

  it("a checkout invoice paid with a Carrot transfer after the fork becomes paid", async () => {
    const m = await s.openMoneroWatch("bob", "/fork-shop");
    const r = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 1234, orderId: "fork-1" } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const inv = r.json;
    const amount = BigInt(inv.amount.atomic);
    const txid = monerod().send(inv.payTo, amount);
    expect(await kindOf(txid)).toBe("carrot");
    await s.nextTick();
    expect((await s.call("GET", `/v1/checkout/invoices/${inv.invoiceId}`)).json).toMatchObject({ status: "confirming", received: { atomic: amount.toString() } });
    monerod().mine(1);
    await s.nextTick();
    await s.nextTick();
    expect((await s.call("GET", `/v1/checkout/invoices/${inv.invoiceId}`)).json).toMatchObject({ status: "paid" });
    const hooks = s.receiver.deliveries(m.watchId).filter((d) => d.event?.startsWith("invoice_"));
    expect(hooks.map((h) => h.event)).toEqual(["invoice_seen", "invoice_paid"]);
    expect(hooks.every((h) => h.signatureValid === true && (h.body as { txid: string }).txid === txid)).toBe(true);
  }, 120_000);

  it("a coin top-up in XMR paid with a Carrot transfer credits the watch", async () => {
    const w = await s.openMoneroWatch("carol", "/fork-topup");
    const q = (await s.call("POST", "/v1/private/topup-crypto", { body: { watchId: w.watchId, watchToken: w.watchToken, chain: "monero", amountUsdCents: 200 } })).json;
    expect(q).toMatchObject({ status: "pending", payTo: s.devnet.serviceWallet.address, credit: { atomic: "2000000" } });
    const txid = monerod().send(q.payTo, BigInt(q.amount.atomic));
    expect(await kindOf(txid)).toBe("carrot");
    monerod().mine(1);
    await s.nextTick();
    await s.nextTick();
    expect((await s.call("GET", `/v1/private/topup-crypto/${q.quoteId}`, { token: w.watchToken })).json).toMatchObject({ status: "settled", seenTxid: txid });
    const topups = (await db().selectFrom("watch_ledger").selectAll().where("watch_id", "=", w.watchId).execute()).filter((l) => l.kind === "topup");
    expect(topups).toEqual([expect.objectContaining({ amount_atomic: "2000000", ref: expect.stringContaining(txid) })]);
  }, 120_000);

  it("a historical scan over a range spanning the fork finds every payment", async () => {
    const alice = s.wallet("alice");
    const r = await s.paid("/v1/private/historical", { chain: "monero", address: alice.address, viewKey: alice.viewKey, birthdayHeight: 0, includeNotes: true });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ from_height: 0, to_height: monerod().height(), received_atomic: paidAt.reduce((a, p) => a + p.amount, 0n).toString(), output_count: paidAt.length });
    const found = (r.json.outputs as { txid: string; amount_atomic: string; height: number; subaddress: unknown }[]).map((o) => [o.txid, o.amount_atomic, o.height, o.subaddress]);
    expect(found.sort()).toEqual(paidAt.map((p) => [p.txid, p.amount.toString(), p.height, p.subaddress]).sort());
    expect(new Set(paidAt.map((p) => p.height < FORK))).toEqual(new Set([true, false]));
  }, 120_000);

  it("a reorg across the fork height takes the Carrot payments away again: a signed negative balance_change", async () => {
    const before = balanceChanges(aliceWatchId).length;
    const depth = monerod().height() - (FORK - 1) + 1; // heights FORK-1 .. tip: one v16 block and every v17 one
    const dropped = monerod().reorg(depth);
    const lost = paidAt.filter((p) => p.height >= FORK);
    expect(lost.every((p) => dropped.includes(p.txid))).toBe(true);
    // The re-mined blocks are v16 below the fork height and v17 from it, as monerod's headers say.
    const r = await fetch(`${monerod().url}/json_rpc`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: "0", method: "get_block_headers_range", params: { start_height: FORK - 1, end_height: monerod().height() } }),
    });
    const versions = ((await r.json()) as { result: { headers: { major_version: number }[] } }).result.headers.map((h) => h.major_version);
    expect(versions).toEqual([16, ...new Array<number>(monerod().height() - FORK + 1).fill(17)]);
    await s.nextTick();
    const hooks = balanceChanges(aliceWatchId).slice(before);
    expect(hooks.map((h) => (h.body as { delta: { balance_atomic: string } }).delta.balance_atomic)).toEqual([(-lost.reduce((a, p) => a + p.amount, 0n)).toString()]);
    expect(hooks[0]!.signatureValid).toBe(true);
  }, 120_000);
});
