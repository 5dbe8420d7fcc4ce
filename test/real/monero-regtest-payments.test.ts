/**
 * Vigil against a real Monero node: Debian's monerod on a private regtest
 * chain and monero-wallet-rpc wallets sending real transactions (CLSAG,
 * Bulletproofs+, view tags: today's mainnet format). One daemon and its
 * wallets for the file; the cases run in order on the growing chain.
 *
 * Every figure Vigil reports is compared with what the real wallet says
 * (`get_balance`, `incoming_transfers`, `get_transfers`) or what the node
 * says, read in the test; amounts sent are random, so no expected amount is
 * written here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runMoneroCli } from "../../src/chains/monero/scan-tx-cli.js";
import { historicalOutput } from "../../src/watch/historical-route.js";
import { silentLog } from "../helpers/app.js";
import { runOnStreams } from "../helpers/cli-streams.js";
import { realNodesRun, moneroNeeds } from "../helpers/real-nodes.js";
import {
  atomic,
  expectAgrees,
  headerSchema,
  killAllNodes,
  RegtestDaemon,
  RegtestWallet,
  someAmount,
  startRegtestVigil,
  type RegtestVigil,
} from "../helpers/monero-regtest.js";

const runs = realNodesRun("Monero regtest suite (payments)", moneroNeeds);

const XMR = 1_000_000_000_000n;

const invoiceSchema = z.object({
  invoiceId: z.string(),
  status: z.string(),
  payTo: z.string(),
  amount: z.object({ atomic: atomic }),
  received: z.object({ atomic: atomic }).nullable(),
});

const scanTxOutput = z.object({
  kind: z.enum(["tx", "block"]),
  txid: z.string(),
  outputs: z.array(z.object({ publicKey: z.string(), amount: z.string(), subaddress: z.object({ major: z.number(), minor: z.number() }) })),
});

/** `vigil monero scan-tx` in-process, on its stdin/stdout. */
async function scanTx(input: Record<string, unknown>): Promise<z.infer<typeof scanTxOutput>> {
  const r = await runOnStreams((io) => runMoneroCli(["scan-tx"], io), JSON.stringify(input));
  expect(r.code, r.err).toBe(0);
  return scanTxOutput.parse(JSON.parse(r.out));
}

describe.skipIf(!runs)("Vigil on a real monerod regtest chain: payments", () => {
  let d: RegtestDaemon;
  let miner: RegtestWallet;
  let r1: RegtestWallet;
  let shop: RegtestWallet;
  let v: RegtestVigil;

  beforeAll(async () => {
    d = await RegtestDaemon.start();
    [miner, r1, shop] = await Promise.all([RegtestWallet.create(d, "miner"), RegtestWallet.create(d, "r1"), RegtestWallet.create(d, "shop")]);
    // 80 coinbase outputs to the miner; the first 20 are past their 60-block lock (each later
    // mined block unlocks one more).
    await d.mine(80, miner.address);
    await miner.refresh();
    v = await startRegtestVigil(d.vigilUrl, { PRICE_FIXED_USD: "xmr=150.25" });
  }, 120_000);

  afterAll(async () => {
    // The nodes go whatever happens to the app's close: a failed close must not leave them running.
    try {
      await v?.close();
    } finally {
      await killAllNodes();
    }
  });

  /** Mines `n` blocks to the miner (coinbase only adds to the miner's wallet). */
  const mine = (n: number) => d.mine(n, miner.address);

  let primary: Awaited<ReturnType<RegtestVigil["openWatch"]>>;
  let subWatch: Awaited<ReturnType<RegtestVigil["openWatch"]>>;
  let sub01: Awaited<ReturnType<RegtestWallet["newSubaddress"]>>;

  it("a primary-address watch and a watch of one subaddress follow the wallet: 0-conf pending, then confirmed, over two accounts and one multi-destination transaction", async () => {
    sub01 = await r1.newSubaddress(0);
    const account1 = await r1.newAccount();
    const sub11 = await r1.newSubaddress(1);
    primary = await v.openWatch(r1.address, r1.viewKey, "/r1");
    subWatch = await v.openWatch(sub01.address, r1.viewKey, "/r1-sub01");
    await v.nextTick();
    expect(v.receiver.deliveries(primary.watchId).map((x) => x.event)).toEqual(["scan_complete"]);
    expect(v.receiver.deliveries(subWatch.watchId).map((x) => x.event)).toEqual(["scan_complete"]);

    const { txid } = await miner.transfer([
      { address: r1.address, amount: someAmount(XMR, XMR) },
      { address: sub01.address, amount: someAmount(XMR / 2n, XMR) },
      { address: account1.address, amount: someAmount(XMR / 4n, XMR) },
      { address: sub11.address, amount: someAmount(XMR / 8n, XMR) },
    ]);
    expect(await d.poolHashes()).toContain(txid);

    // 0-conf: pending only, on both watches.
    await v.nextTick();
    const poolAll = await r1.figures();
    const poolSub = await r1.figures(sub01.index);
    expect(poolAll.outputs.filter((o) => o.inPool)).toHaveLength(4);
    expectAgrees(v.balanceChanges(primary.watchId).at(-1)!, poolAll, { subaddresses: true });
    expectAgrees(v.balanceChanges(subWatch.watchId).at(-1)!, poolSub, { subaddresses: false });

    // One confirmation: mined, still below the 10 the wallet (and Vigil) want before it counts.
    await mine(1);
    await v.nextTick();
    expectAgrees(await v.snapshot(primary.watchId, primary.watchToken), await r1.figures(), { subaddresses: true });
    expectAgrees(await v.snapshot(subWatch.watchId, subWatch.watchToken), await r1.figures(sub01.index), { subaddresses: false });

    // Ten: confirmed balance.
    await mine(9);
    await v.nextTick();
    const doneAll = await r1.figures();
    const doneSub = await r1.figures(sub01.index);
    expect(doneAll.unlocked).toBe(poolAll.pool);
    expectAgrees(v.balanceChanges(primary.watchId).at(-1)!, doneAll, { subaddresses: true });
    expectAgrees(v.balanceChanges(subWatch.watchId).at(-1)!, doneSub, { subaddresses: false });

    // The webhooks told the story: pending (the pool amounts), then confirmed (the unlocked amounts).
    for (const [watchId, pool, done] of [
      [primary.watchId, poolAll, doneAll],
      [subWatch.watchId, poolSub, doneSub],
    ] as const) {
      const changes = v.balanceChanges(watchId);
      expect(changes[0]).toMatchObject({ balanceAtomic: 0n, pendingAtomic: pool.pool });
      expect(changes.at(-1)).toMatchObject({ balanceAtomic: done.unlocked, pendingAtomic: 0n });
      for (const x of v.receiver.deliveries(watchId)) expect(x.signatureValid).toBe(true);
    }
  });

  it("a sweep_all of the miner's second account lands on the watched subaddress; both watches agree with the wallet", async () => {
    const hold = await miner.newAccount();
    for (let i = 0; i < 2; i++) await miner.transfer([{ address: hold.address, amount: someAmount(XMR / 2n, XMR) }]);
    await mine(10);
    await miner.refresh();
    const swept = await miner.sweepAll(sub01.address, hold.index.major);
    expect(swept.length).toBeGreaterThan(0);

    await v.nextTick();
    const pending = await r1.figures(sub01.index);
    expect(pending.outputs.filter((o) => o.inPool).map((o) => o.txid).sort()).toEqual([...swept].sort());
    expectAgrees(v.balanceChanges(subWatch.watchId).at(-1)!, pending, { subaddresses: false });
    expectAgrees(await v.snapshot(primary.watchId, primary.watchToken), await r1.figures(), { subaddresses: true });

    await d.mineIn(swept, miner.address, 9);
    await v.nextTick();
    expectAgrees(v.balanceChanges(subWatch.watchId).at(-1)!, await r1.figures(sub01.index), { subaddresses: false });
    expectAgrees(v.balanceChanges(primary.watchId).at(-1)!, await r1.figures(), { subaddresses: true });
  });

  it("checkout invoices on the shop's watch: one paid exactly (confirming → paid), one underpaid (confirming → underpaid), as the wallet received them", async () => {
    const m = await v.openWatch(shop.address, shop.viewKey, "/shop");
    await v.nextTick();
    const invoice = async (amountUsdCents: number, orderId: string) => {
      const r = await fetch(`${v.t.url}/v1/checkout/invoices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ watchId: m.watchId, watchToken: m.watchToken, amountUsdCents, orderId }),
      });
      expect(r.status).toBe(201);
      return invoiceSchema.parse(await r.json());
    };
    const status = async (id: string) => invoiceSchema.parse(await (await fetch(`${v.t.url}/v1/checkout/invoices/${id}`)).json());
    const exact = await invoice(1234, "exact");
    const short = await invoice(999, "short");
    expect(exact.payTo).toBe(shop.address);

    const paidTx = await miner.transfer([{ address: exact.payTo, amount: exact.amount.atomic }]);
    // A million piconero short: the tag (the last six digits) still names the invoice.
    const shortTx = await miner.transfer([{ address: short.payTo, amount: short.amount.atomic - 1_000_000n }]);
    await v.nextTick();
    const seen = await shop.transfers();
    const poolAmount = (txid: string) => seen.pool.filter((p) => p.txid === txid).reduce((a, p) => a + p.amount, 0n);
    expect(await status(exact.invoiceId)).toMatchObject({ status: "confirming", received: { atomic: poolAmount(paidTx.txid) } });
    expect(await status(short.invoiceId)).toMatchObject({ status: "confirming", received: { atomic: poolAmount(shortTx.txid) } });

    await d.mineIn([paidTx.txid, shortTx.txid], miner.address, 9);
    await v.nextTick();
    const got = await shop.figures();
    const minedAmount = (txid: string) => got.outputs.filter((o) => o.txid === txid && !o.inPool).reduce((a, o) => a + o.amount, 0n);
    expect(await status(exact.invoiceId)).toMatchObject({ status: "paid", received: { atomic: minedAmount(paidTx.txid) } });
    expect(minedAmount(paidTx.txid)).toBe(exact.amount.atomic);
    expect(await status(short.invoiceId)).toMatchObject({ status: "underpaid", received: { atomic: minedAmount(shortTx.txid) } });
    expect(minedAmount(shortTx.txid)).toBeLessThan(short.amount.atomic);
    expectAgrees(await v.snapshot(m.watchId, m.watchToken), got, { subaddresses: true });

    const hooks = v.receiver.deliveries(m.watchId).filter((x) => x.event?.startsWith("invoice_"));
    const story = (id: string) => hooks.filter((h) => (h.body as { invoiceId: string }).invoiceId === id);
    expect(story(exact.invoiceId).map((h) => [h.event, (h.body as { txid: string }).txid])).toEqual([
      ["invoice_seen", paidTx.txid],
      ["invoice_paid", paidTx.txid],
    ]);
    expect(story(short.invoiceId).map((h) => [h.event, (h.body as { txid: string }).txid])).toEqual([
      ["invoice_seen", shortTx.txid],
      ["invoice_underpaid", shortTx.txid],
    ]);
    for (const h of hooks) expect(h.signatureValid).toBe(true);
  });

  it("the historical scan (POST /v1/private/historical's handler) finds what the wallet holds, for the whole wallet and for one subaddress", async () => {
    const route = v.t.app.routes.find((r) => r.operationId === "privateHistorical")!;
    const ctx = { requestId: "real-node", ip: "127.0.0.1", db: v.t.db.db, log: silentLog, baseUrl: v.t.url, surface: "http" as const };
    const scan = async (address: string) => {
      const input = route.input.parse({ chain: "monero", viewKey: r1.viewKey, address, birthdayHeight: 0, includeNotes: true });
      await route.precheck?.(input, ctx);
      return historicalOutput.parse(await route.handler(input, ctx));
    };
    for (const [address, only] of [
      [r1.address, undefined],
      [sub01.address, sub01.index],
    ] as const) {
      const out = await scan(address);
      const w = await r1.figures(only);
      expect(w.pool).toBe(0n);
      expect(BigInt(out.received_atomic)).toBe(w.balance);
      expect(BigInt(out.spendable_atomic)).toBe(w.unlocked);
      expect(out.tip_height).toBe(await d.tip());
      expect(out.output_count).toBe(w.outputs.length);
      const mine = out.outputs!.map((o) => `${o.txid}:${o.public_key}:${o.amount_atomic}:${only ? "-" : `${o.subaddress!.major}/${o.subaddress!.minor}`}`);
      const theirs = w.outputs.map((o) => `${o.txid}:${o.publicKey}:${o.amount}:${only ? "-" : `${o.subaddress.major}/${o.subaddress.minor}`}`);
      expect(mine.sort()).toEqual(theirs.sort());
    }
  });

  it("vigil monero scan-tx on the real blobs: each transaction r1 received, and a coinbase block of the miner", async () => {
    const w = await r1.figures();
    const txids = [...new Set(w.outputs.map((o) => o.txid))];
    const blobs = await d.transactions(txids);
    expect(blobs.map((b) => b.txid).sort()).toEqual([...txids].sort());
    for (const b of blobs) {
      const r = await scanTx({ hex: b.hex, address: r1.address, viewKey: r1.viewKey });
      expect(r.kind).toBe("tx");
      expect(r.txid).toBe(b.txid);
      const found = r.outputs.map((o) => `${o.publicKey}:${o.amount}:${o.subaddress.major}/${o.subaddress.minor}`);
      const wallet = w.outputs.filter((o) => o.txid === b.txid).map((o) => `${o.publicKey}:${o.amount}:${o.subaddress.major}/${o.subaddress.minor}`);
      expect(found.sort()).toEqual(wallet.sort());
    }

    const height = (await d.tip()) - 70;
    const block = await d.block(height);
    const r = await scanTx({ hex: block.hex, address: miner.address, viewKey: miner.viewKey, kind: "block" });
    expect([r.kind, r.txid]).toEqual(["block", block.minerTxid]);
    const coinbase = await miner.rpc.rpc("get_transfer_by_txid", { txid: block.minerTxid }, z.object({ transfer: z.object({ amount: atomic, height: z.number() }) }));
    expect(coinbase.transfer.height).toBe(height);
    expect(r.outputs.map((o) => BigInt(o.amount))).toEqual([coinbase.transfer.amount]);
  });

  it("the five /v1/q/xmr facts are the daemon's own answers", async () => {
    // A transaction in the newest block and one in the pool, so neither count is trivially 0.
    const self = await miner.newSubaddress(0);
    const mined = await miner.transfer([{ address: self.address, amount: someAmount(XMR / 10n, XMR) }]);
    await d.mineIn([mined.txid], miner.address);
    await miner.refresh();
    await miner.transfer([{ address: self.address, amount: someAmount(XMR / 10n, XMR) }]);
    v.clock.advance(11_000); // past the oracle's 10 s answer cache

    const ask = (q: string) => v.t.app.oracle.ask(q, {});
    const [height, mempool, fee, estimate, last] = [await ask("xmr/height"), await ask("xmr/mempool"), await ask("xmr/fee"), await ask("xmr/fee-estimate"), await ask("xmr/last-block")];
    const info = await d.info();
    const fees = await d.rpc.rpc("get_fee_estimate", {}, z.object({ fee: atomic, quantization_mask: atomic, fees: z.array(atomic).length(4) }));
    const header = (await d.rpc.rpc("get_last_block_header", {}, z.object({ block_header: headerSchema }))).block_header;
    const pool = await d.poolHashes();

    expect(height).toMatchObject({
      height: info.height - 1,
      block_count: info.height,
      target_height: info.target_height === 0 ? info.height - 1 : info.target_height,
      synchronized: info.synchronized,
      busy_syncing: info.busy_syncing,
      top_block_hash: info.top_block_hash,
      network: info.nettype,
    });
    expect(mempool).toMatchObject({ tx_count: pool.length, height: info.height - 1 });
    expect(pool.length).toBe(info.tx_pool_size);
    expect(fee).toMatchObject({
      fee_per_byte_piconero: fees.fee.toString(),
      fee_per_kb_piconero: (fees.fee * 1024n).toString(),
      quantization_mask_piconero: fees.quantization_mask.toString(),
    });
    const levels = ["slow", "normal", "fast", "fastest"] as const;
    const mask = fees.quantization_mask;
    levels.forEach((level, i) => {
      const perByte = fees.fees[i]!;
      expect(estimate[level], level).toMatchObject({ per_byte_piconero: perByte.toString(), piconero: (((1500n * perByte + mask - 1n) / mask) * mask).toString() });
    });
    expect(last).toMatchObject({
      height: header.height,
      timestamp: header.timestamp,
      hash: header.hash,
      difficulty: String(header.difficulty),
      size: header.block_size,
      weight: header.block_weight,
      tx_count: header.num_txes,
      reward_piconero: header.reward.toString(),
    });
    expect(header.num_txes).toBeGreaterThan(0);
    expect(pool.length).toBeGreaterThan(0);
  });
});
