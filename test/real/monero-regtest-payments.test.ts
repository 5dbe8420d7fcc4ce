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
import { realNodesRun, moneroNeeds } from "../helpers/real-nodes.js";
import {
  expectAgrees,
  killAllNodes,
  RegtestDaemon,
  RegtestWallet,
  someAmount,
  startRegtestVigil,
  type RegtestVigil,
} from "../helpers/monero-regtest.js";

const runs = realNodesRun("Monero regtest suite (payments)", moneroNeeds);

const XMR = 1_000_000_000_000n;

describe.skipIf(!runs)("Vigil on a real monerod regtest chain: payments", () => {
  let d: RegtestDaemon;
  let miner: RegtestWallet;
  let r1: RegtestWallet;
  let shop: RegtestWallet;
  let v: RegtestVigil;

  beforeAll(async () => {
    console.time("daemon");
    d = await RegtestDaemon.start();
    console.timeEnd("daemon");
    console.time("wallets");
    [miner, r1, shop] = await Promise.all([RegtestWallet.create(d, "miner"), RegtestWallet.create(d, "r1"), RegtestWallet.create(d, "shop")]);
    console.timeEnd("wallets");
    console.time("mine");
    // 100 coinbase outputs to the miner; the first 40 are past their 60-block lock.
    await d.mine(100, miner.address);
    console.timeEnd("mine");
    console.time("refresh");
    await miner.refresh();
    console.timeEnd("refresh");
    console.time("vigil");
    v = await startRegtestVigil(d.vigilUrl);
    console.timeEnd("vigil");
  }, 120_000);

  afterAll(async () => {
    await v?.close();
    await killAllNodes();
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
});
