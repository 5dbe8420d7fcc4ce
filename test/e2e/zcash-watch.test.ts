/**
 * A Zcash watch end to end on the devnet, over the real wire: the app's
 * lightwalletd gRPC client reads the devnet's compact blocks, the devnet
 * builds real note ciphertexts with sender-side cryptography, and the paid
 * watch's receiver gets signed balance_change webhooks with the memo — for
 * an Ironwood note (Orchard receiver after NU6.3), a Sapling note, a spend
 * seen through its nullifier, and a reorg.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { decodeUfvk } from "../../src/chains/zcash/zip316.js";

let s: WatchStack;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { ZCASH_CONFIRMATIONS: "2" } });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const zat = (zec: number) => BigInt(Math.round(zec * 1e8));

describe("Zcash watch on the devnet (lightwalletd gRPC)", () => {
  it("a paid watch gets signed balance_change webhooks: Ironwood with a memo, Sapling, a spend and a reorg", async () => {
    const chain = s.devnet.zcashChain!;
    const wallet = s.devnet.zcashWallets()[0]!;
    const tip = chain.tip().height;
    const created = await s.paid("/v1/private/watch", {
      chain: "zcash",
      address: wallet.address,
      viewKey: wallet.ufvk,
      webhookUrl: s.receiver.hookUrl("/zec"),
      birthdayHeight: tip,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const { watchId, webhookSecret } = created.json;
    s.receiver.registerSecret(watchId, webhookSecret);
    await s.nextTick();

    const paid = chain.send(wallet.address, zat(1.25), "thanks for the tea");
    chain.mine(2);
    await s.nextTick();
    await s.nextTick();
    const hooks = s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change");
    expect(hooks.length).toBeGreaterThan(0);
    expect(hooks.every((h) => h.signatureValid)).toBe(true);
    const last = () => s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change").at(-1)!.body as any;
    expect(BigInt(last().current.balanceAtomic)).toBe(zat(1.25));
    expect(JSON.stringify(last())).toContain("thanks for the tea");
    expect(JSON.stringify(last())).toContain("ironwood");

    chain.send(wallet.saplingAddress, zat(0.5));
    chain.mine(2);
    await s.nextTick();
    await s.nextTick();
    expect(BigInt(last().current.balanceAtomic)).toBe(zat(1.75));

    // The wallet spends its Ironwood note: its nullifier appears on chain, the balance goes down.
    chain.spend(decodeUfvk(wallet.ufvk), paid.txid, { pool: "ironwood" });
    chain.mine(2);
    await s.nextTick();
    await s.nextTick();
    expect(BigInt(last().current.balanceAtomic)).toBe(zat(0.5));

    // A payment mined and then reorged away (the replacing block drops it): up, then back down with a negative delta.
    const gone = chain.send(wallet.address, zat(2));
    chain.mine(1);
    await s.nextTick();
    expect(BigInt(last().current.pendingAtomic) + BigInt(last().current.balanceAtomic)).toBe(zat(2.5));
    chain.reorg(1, [gone.txid]);
    await s.nextTick();
    expect(BigInt(last().current.pendingAtomic) + BigInt(last().current.balanceAtomic)).toBe(zat(0.5));
    expect(BigInt(last().delta.pending_atomic) + BigInt(last().delta.balance_atomic)).toBe(-zat(2));
  }, 180_000);
});
