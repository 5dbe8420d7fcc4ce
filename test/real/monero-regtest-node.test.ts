/**
 * Vigil against a real Monero node that is not an easy one: monerod behind
 * `--rpc-login` (HTTP digest), Vigil let in only through the restricted RPC
 * port (`--rpc-restricted-bind-port`, what a public node exposes), and a
 * chain that changes under it: blocks popped (`/pop_blocks`) and mined
 * again, Vigil itself restarted while blocks are mined, the daemon stopped
 * and started again (`--keep-fakechain`, then in `--restricted-rpc` mode).
 * After each, Vigil's figures are compared with the real wallet's, read in
 * the test. One daemon and two wallets for the file; the cases run in order.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMoneroDaemon } from "../../src/chains/monero/daemon-client.js";
import { ServiceError } from "../../src/core/errors.js";
import { realNodesRun, moneroNeeds } from "../helpers/real-nodes.js";
import {
  expectAgrees,
  infoSchema,
  killAllNodes,
  NodeRpc,
  RegtestDaemon,
  RegtestWallet,
  someAmount,
  startRegtestVigil,
  type RegtestVigil,
} from "../helpers/monero-regtest.js";

const runs = realNodesRun("Monero regtest suite (node: login, restricted RPC, reorgs, restarts)", moneroNeeds);

const XMR = 1_000_000_000_000n;

const healthSchema = z.object({
  status: z.string(),
  upstreams: z.object({ monero: z.object({ available: z.boolean(), height: z.number().int().optional(), error: z.string().optional() }) }),
});

describe.skipIf(!runs)("Vigil on a real monerod regtest chain: login, restricted RPC, reorgs, restarts", () => {
  const login = { user: "vigil", pass: randomBytes(9).toString("base64url") };
  let d: RegtestDaemon;
  let miner: RegtestWallet;
  let r: RegtestWallet;
  let v: RegtestVigil;
  let watch: Awaited<ReturnType<RegtestVigil["openWatch"]>>;

  beforeAll(async () => {
    d = await RegtestDaemon.start({ login, restrictedPort: true });
    [miner, r] = await Promise.all([RegtestWallet.create(d, "miner"), RegtestWallet.create(d, "receiver")]);
    await d.mine(80, miner.address);
    await miner.refresh();
    v = await startRegtestVigil(d.vigilUrl);
    watch = await v.openWatch(r.address, r.viewKey, "/receiver");
    await v.nextTick();
  }, 120_000);

  afterAll(async () => {
    // The nodes go whatever happens to the app's close: a failed close must not leave them running.
    try {
      await v?.close();
    } finally {
      await killAllNodes();
    }
  });

  const mine = (n: number) => d.mine(n, miner.address);
  const pay = async () => (await miner.transfer([{ address: r.address, amount: someAmount(XMR / 4n, XMR) }])).txid;
  const agrees = async () => expectAgrees(await v.snapshot(watch.watchId, watch.watchToken), await r.figures(), { subaddresses: true });
  const health = async () => healthSchema.parse(await (await fetch(`${v.t.url}/v1/health`)).json());

  it("reaches the node only through the restricted port with its digest login, and answers from it", async () => {
    expect(d.restrictedPort).toBeDefined();
    const door = `http://127.0.0.1:${d.restrictedPort}`;
    // The door is locked without the login, and restricted with it.
    await expect(new NodeRpc(door).rpc("get_info", {}, infoSchema)).rejects.toMatchObject({ status: 401 });
    const seen = await new NodeRpc(door, login).rpc("get_info", {}, infoSchema);
    expect(seen).toMatchObject({ restricted: true, nettype: "fakechain" });
    // A wrong password is refused as an upstream failure, not taken for an empty chain.
    const wrong = createMoneroDaemon(`http://${login.user}:wrong@127.0.0.1:${d.restrictedPort}`, { attempts: 1 });
    await expect(wrong.getInfo()).rejects.toMatchObject({ status: 502, code: "chain_rpc_failed" });

    const h = await health();
    expect(h.upstreams.monero).toMatchObject({ available: true, height: (await d.info()).height - 1 });
    v.clock.advance(11_000);
    expect(await v.t.app.oracle.ask("xmr/height", {})).toMatchObject({ height: (await d.info()).height - 1, top_block_hash: (await d.info()).top_block_hash });

    // A payment seen in the pool through the restricted port (hashes + /get_transactions), then mined.
    const txid = await pay();
    await v.nextTick();
    const pool = await r.figures();
    expect(pool.outputs.filter((o) => o.inPool).map((o) => o.txid)).toEqual([txid]);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, pool, { subaddresses: true });
    await d.mineIn([txid], miner.address, 9);
    await v.nextTick();
    const done = await r.figures();
    expect(done.unlocked).toBeGreaterThan(0n);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, done, { subaddresses: true });
  });

  it("follows a reorg made with /pop_blocks: a confirmed and a pending payment go back to the pool, leave it when flushed, and count again once mined anew", async () => {
    // The confirmed one in block B, the pending one in a later block; then blocks until B is 10 deep.
    const confirmed = await pay();
    await d.mineIn([confirmed], miner.address);
    const pending = await pay(); // its ring's decoys are ≥ 10 blocks old: none is in a block popped below
    await d.mineIn([pending], miner.address);
    const [b] = await d.transactions([confirmed]);
    await mine(10 - ((await d.tip()) - b!.height! + 1));
    await v.nextTick();
    const before = await r.figures();
    const unlockedTx = (f: typeof before, txid: string) => f.outputs.some((o) => o.txid === txid && !o.inPool);
    expect(unlockedTx(before, pending) && unlockedTx(before, confirmed)).toBe(true);
    expect(before.balance).toBeGreaterThan(before.unlocked);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, before, { subaddresses: true });

    // Pop down to just below B: both payments return to the pool.
    const depth = (await d.tip()) - b!.height! + 1;
    await d.popBlocks(depth);
    expect((await d.poolHashes()).sort()).toEqual([confirmed, pending].sort());
    await v.nextTick();
    await r.rescan();
    const popped = await r.figures();
    expect(popped.unlocked).toBeLessThan(before.unlocked);
    expect(popped.outputs.filter((o) => o.inPool).map((o) => o.txid).sort()).toEqual([confirmed, pending].sort());
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, popped, { subaddresses: true });

    // monerod will not mine them again on the shorter chain (their rings hold outputs locked again
    // there, and the pool remembers the failure): the wallet's broadcast is replayed, as a wallet
    // would, once the chain is as long as before.
    const blobs = (await d.transactions([confirmed, pending])).map((t) => t.hex);
    await d.flushPool([confirmed, pending]);
    await v.nextTick();
    const flushed = await r.figures();
    expect(flushed.pool).toBe(0n);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, flushed, { subaddresses: true });
    await mine(depth);
    await d.submit(blobs);
    await d.mineIn([confirmed, pending], miner.address, 9);
    await v.nextTick();
    const remined = await r.figures();
    expect(remined.unlocked).toBe(before.balance);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, remined, { subaddresses: true });
  });

  it("a restarted Vigil (new app, same database) catches up with blocks mined while it was down", async () => {
    await v.stopApp();
    const txid = await pay();
    await d.mineIn([txid], miner.address, 14);
    await v.startApp();
    const delivered = v.balanceChanges(watch.watchId).length;
    await v.nextTick();
    expect(v.balanceChanges(watch.watchId)).toHaveLength(delivered + 1);
    const w = await r.figures();
    expect(w.outputs.some((o) => o.txid === txid && !o.inPool)).toBe(true);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, w, { subaddresses: true });
    await agrees();
  });

  it("a daemon that goes away is reported as unavailable, nothing is sent; started again (--restricted-rpc) Vigil catches up", async () => {
    const txid = await pay();
    await d.mineIn([txid], miner.address, 9);
    const expected = await r.figures();
    const last = await v.snapshot(watch.watchId, watch.watchToken);
    const delivered = v.receiver.attempts.length;
    await d.stop();

    const stats = await v.nextTick();
    expect(stats).toMatchObject({ claimed: 1, scanned: 0 });
    expect(v.receiver.attempts).toHaveLength(delivered);
    expect(await v.snapshot(watch.watchId, watch.watchToken)).toEqual(last);
    const h = await health();
    expect(h.status).toBe("degraded");
    expect(h.upstreams.monero.available).toBe(false);
    v.clock.advance(11_000);
    const down = await v.t.app.oracle.ask("xmr/height", {}).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ServiceError);
    expect(down).toMatchObject({ status: 502, code: "chain_rpc_failed" });

    await d.restart({ restrictedRpc: true });
    expect((await d.info()).restricted).toBe(true);
    await v.nextTick();
    expect((await health()).upstreams.monero).toMatchObject({ available: true, height: await d.tip() });
    const now = await r.figures();
    expect(now.balance).toBe(expected.balance);
    expectAgrees(v.balanceChanges(watch.watchId).at(-1)!, now, { subaddresses: true });
  });
});
