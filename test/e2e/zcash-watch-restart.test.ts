/**
 * A Zcash watch across restarts, on the devnet over lightwalletd gRPC.
 *
 * The story: keys were built lazily in memory only, so the first block with
 * outputs after a worker restart rebuilt every watch's keys (UFVK decode,
 * trial-decryption keys, 20 transparent hashes): 162 s for 10,000 watches,
 * while merchants waited for their payments to show. Now the derived
 * material is stored sealed with the watch at creation and loaded instead.
 *
 * Here a second app instance on the same database (a fresh scanner and key
 * cache: what a restarted process has) finds a payment in its first block
 * without decoding the UFVK or deriving a transparent hash; the material is
 * never in the database in plaintext; a watch without stored material (made
 * before migration 0018) still works and gets it; and a spend that is only in
 * the mempool shows as pending (pendingSpentAtomic), the balance dropping
 * once when it is mined.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { bigintToLeBytes, bytesToHex } from "../../src/chains/zcash/bytes.js";
import { scanKeysFromUfvk } from "../../src/chains/zcash/note-decrypt.js";
import type { ZcashScanner } from "../../src/chains/zcash/scanner.js";
import type { KeyCacheStats } from "../../src/chains/zcash/watch-keys.js";
import { decodeUfvk } from "../../src/chains/zcash/zip316.js";
import { runWatchTick } from "../../src/watch/tick.js";
import { silentLog } from "../helpers/app.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

let s: WatchStack;
const apps: App[] = [];
beforeAll(async () => {
  // Ticks move the app clock; x402 authorisations and the devnet read Date.now(), so it moves along.
  vi.useFakeTimers({ toFake: ["Date"] });
  s = await startWatchStack({ https: false, env: { ZCASH_CONFIRMATIONS: "2" }, onTime: (ms) => vi.setSystemTime(ms) });
}, 120_000);
afterAll(async () => {
  // Real time first: a close path that waits with a deadline must see the clock move.
  vi.useRealTimers();
  for (const a of apps) await a.close();
  await s?.close();
});

const zat = (zec: number) => BigInt(Math.round(zec * 1e8));

/** A new app instance on the same database and devnet: a fresh scanner with an empty key cache. */
async function restart(): Promise<{ app: App; built: () => KeyCacheStats; tick: () => Promise<void> }> {
  const app = await createApp(s.t.app.config, { database: s.t.db, clock: s.clock, log: silentLog });
  apps.push(app);
  const scanner = app.watch.scanners.zcash as ZcashScanner;
  // Start-up itself checks the service's own coin wallet (one decode): count only what ticks build.
  const base = scanner.keyStats();
  return {
    app,
    built: () => {
      const k = scanner.keyStats();
      return {
        ufvkDecodes: k.ufvkDecodes - base.ufvkDecodes,
        scanKeyBuilds: k.scanKeyBuilds - base.scanKeyBuilds,
        transparentHashes: k.transparentHashes - base.transparentHashes,
        materialLoads: k.materialLoads - base.materialLoads,
      };
    },
    tick: async () => {
      s.advance(70_000);
      await runWatchTick(app.watch, { owner: `restarted-${apps.length}`, batchSize: 100 });
    },
  };
}

async function createZcashWatch(walletIndex: number) {
  const wallet = s.devnet.zcashWallets()[walletIndex]!;
  const created = await s.paid("/v1/private/watch", {
    chain: "zcash",
    address: wallet.address,
    viewKey: wallet.ufvk,
    webhookUrl: s.receiver.hookUrl(`/zec${walletIndex}`),
    birthdayHeight: s.devnet.zcashChain!.tip().height,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  s.receiver.registerSecret(created.json.watchId, created.json.webhookSecret);
  return { wallet, watchId: created.json.watchId as string };
}

const materialRow = (watchId: string) => s.t.db.db.selectFrom("watch_key_material").selectAll().where("watch_id", "=", watchId).executeTakeFirst();
const lastBalance = (watchId: string) => s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change").at(-1)?.body as any;

describe("Zcash watch keys across restarts (devnet, lightwalletd gRPC)", () => {
  it("the material is stored sealed at creation; a restarted app finds a payment in its first block without decoding or deriving", async () => {
    const chain = s.devnet.zcashChain!;
    const { wallet, watchId } = await createZcashWatch(0);
    const row = await materialRow(watchId);
    expect(row).toBeDefined();

    // Never plaintext: no ivk, nk or transparent hash of the key in the row or in the watch row.
    const keys = scanKeysFromUfvk(decodeUfvk(wallet.ufvk));
    const secrets = [...keys.sapling, ...keys.orchard].map((k) => bytesToHex(bigintToLeBytes(k.ivk, 32)));
    const opened = s.t.app.watch.secretBox!.open(row!.material_enc, `keymaterial:${watchId}`);
    for (const hex of secrets) expect(opened).toContain(hex); // the check below would see them if they were stored in clear
    const watchRow = await s.t.db.db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
    const stored = [
      Buffer.from(row!.material_enc).toString("hex"),
      Buffer.from(row!.material_enc).toString("latin1"),
      JSON.stringify(watchRow, (_k, v) => (v && v.type === "Buffer" ? Buffer.from(v.data).toString("hex") : typeof v === "bigint" ? v.toString() : v)),
    ].join("\n");
    for (const hex of secrets) expect(stored).not.toContain(hex);
    const firstHash = JSON.parse(opened).t.h.split(",")[0] as string;
    expect(firstHash).toMatch(/^[0-9a-f]{40}$/);
    expect(stored).not.toContain(firstHash);
    // Sealed to this watch: it does not open under another watch's id.
    expect(() => s.t.app.watch.secretBox!.open(row!.material_enc, `keymaterial:00000000-0000-0000-0000-000000000000`)).toThrow();

    await s.tick(); // reaches the tip (scan_complete)

    // A restart: the first block with a shielded payment (and the coinbase's P2PKH output) is scanned from the material.
    const r1 = await restart();
    chain.send(wallet.address, zat(1.25), "after the restart");
    chain.mine(2);
    await r1.tick();
    expect(BigInt(lastBalance(watchId).current.balanceAtomic)).toBe(zat(1.25));
    expect(JSON.stringify(lastBalance(watchId))).toContain("after the restart");
    expect(r1.built()).toMatchObject({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0, materialLoads: 1 });

    // A transparent payment moves the gap window: the new hashes are derived from the stored chain node
    // (no UFVK decode), and the longer window is stored for the next restart.
    chain.send(wallet.transparentAddress, zat(0.5));
    chain.mine(2);
    await r1.tick();
    expect(BigInt(lastBalance(watchId).current.balanceAtomic)).toBe(zat(1.75));
    // The window is now tNext + 20, tNext being one past the address's index (its diversifier index).
    const grown = JSON.parse(s.t.app.watch.secretBox!.open((await materialRow(watchId))!.material_enc, `keymaterial:${watchId}`));
    expect(grown.t.h.split(",")).toHaveLength(wallet.diversifierIndex + 1 + 20);
    expect(r1.built()).toMatchObject({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: wallet.diversifierIndex + 1 });
    const r2 = await restart();
    chain.mine(1);
    await r2.tick();
    expect(r2.built()).toMatchObject({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0 });
  }, 120_000);

  it("a watch created before the material was stored: built on demand from the view key, stored, loaded after the next restart", async () => {
    const chain = s.devnet.zcashChain!;
    const { wallet, watchId } = await createZcashWatch(1);
    await s.t.db.db.deleteFrom("watch_key_material").where("watch_id", "=", watchId).execute();
    await s.tick();

    const r1 = await restart();
    chain.send(wallet.saplingAddress, zat(0.25));
    chain.mine(2);
    await r1.tick();
    expect(BigInt(lastBalance(watchId).current.balanceAtomic)).toBe(zat(0.25));
    const k1 = r1.built();
    expect(k1.ufvkDecodes).toBeGreaterThanOrEqual(1); // derived: nothing was stored for this watch
    expect(await materialRow(watchId)).toBeDefined();

    const r2 = await restart();
    chain.send(wallet.address, zat(0.5));
    chain.mine(2);
    await r2.tick();
    expect(BigInt(lastBalance(watchId).current.balanceAtomic)).toBe(zat(0.75));
    expect(r2.built()).toMatchObject({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0 });
  }, 120_000);

  it("a spend only in the mempool is reported as pending; once mined the balance drops once", async () => {
    const chain = s.devnet.zcashChain!;
    const { wallet, watchId } = await createZcashWatch(2);
    await s.nextTick();
    const paid = chain.send(wallet.address, zat(2), "to be spent");
    chain.mine(2);
    await s.nextTick();
    expect(lastBalance(watchId).current).toMatchObject({ balanceAtomic: String(zat(2)), pendingSpentAtomic: "0" });
    const before = s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change").length;

    // The wallet spends the note; the spend waits in the mempool.
    const spend = chain.spend(decodeUfvk(wallet.ufvk), paid.txid, { pool: paid.pool as "ironwood" | "orchard" | "sapling" });
    await s.nextTick();
    const pending = lastBalance(watchId);
    expect(pending.event).toBe("balance_change");
    expect(pending.current).toMatchObject({ balanceAtomic: String(zat(2)), pendingSpentAtomic: String(zat(2)) });
    expect(pending.delta).toMatchObject({ balance_atomic: "0", pending_spent_atomic: String(zat(2)) });
    expect(pending.current.outputs).toEqual([expect.objectContaining({ txid: paid.txid, spent: false, spendPending: true })]);
    await s.nextTick(); // still in the mempool: nothing new
    expect(s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change")).toHaveLength(before + 1);

    chain.mine(1);
    await s.nextTick();
    chain.mine(2);
    await s.nextTick();
    const after = s.receiver.deliveries(watchId).filter((d) => d.event === "balance_change").slice(before);
    const drops = after.filter((d) => BigInt((d.body as any).delta.balance_atomic) < 0n);
    expect(drops).toHaveLength(1);
    expect((drops[0]!.body as any).delta).toMatchObject({ balance_atomic: String(-zat(2)), pending_spent_atomic: String(-zat(2)) });
    expect(lastBalance(watchId).current).toMatchObject({ balanceAtomic: "0", pendingSpentAtomic: "0", spentAtomic: String(zat(2)) });
    expect(lastBalance(watchId).current.outputs).toEqual([expect.objectContaining({ txid: paid.txid, spent: true, spendPending: false })]);
    expect(spend.nullifier).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);
});
