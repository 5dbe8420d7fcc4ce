/**
 * A wallet's whole look-ahead, against the real wallet: Debian's
 * monero-wallet-rpc makes accounts 0–5 and subaddresses in them, a miner pays
 * them on a regtest monerod, and Vigil's watches of the wallet's primary
 * address report what the wallet reports, output by output and (major,
 * minor) index by index — a watch with the server's small default look-ahead
 * misses the far subaddresses, one that asks for accounts 0–5 finds them all,
 * and a look-ahead widened later finds the payments made from then on (a
 * historical scan with the same look-ahead finds the earlier ones).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { historicalOutput } from "../../src/watch/historical-route.js";
import { silentLog } from "../helpers/app.js";
import { realNodesRun, moneroNeeds } from "../helpers/real-nodes.js";
import {
  expectAgrees,
  killAllNodes,
  RegtestDaemon,
  RegtestWallet,
  someAmount,
  startRegtestVigil,
  type RegtestVigil,
  type SubaddressIndex,
  type WalletFigures,
} from "../helpers/monero-regtest.js";

const runs = realNodesRun("Monero regtest suite (subaddresses)", moneroNeeds);

const XMR = 1_000_000_000_000n;
/** The server's default look-ahead in this suite: accounts 0–1 × minors 0–49. */
const SERVER_LOOKAHEAD = { accounts: 2, minors: 50 };

const settingsSchema = z.object({
  lookahead: z.object({ accounts: z.number(), minors: z.number(), source: z.enum(["watch", "server"]) }),
  invoiceAccount: z.number(),
  issued: z.array(z.object({ account: z.number(), minors: z.number() })),
});

/** An answer's JSON body, loosely typed for reading fields. */
const json = async (r: Response): Promise<Record<string, any>> => (await r.json()) as Record<string, any>;

/** The wallet's figures restricted to what a look-ahead covers. */
function within(w: WalletFigures, l: { accounts: number; minors: number }): WalletFigures {
  const inside = (i: SubaddressIndex) => i.major < l.accounts && i.minor < l.minors;
  const outputs = w.outputs.filter((o) => inside(o.subaddress));
  const sum = (pool: boolean) => outputs.filter((o) => o.inPool === pool).reduce((a, o) => a + o.amount, 0n);
  return { unlocked: sum(false), balance: sum(false) + sum(true), pool: sum(true), outputs };
}

describe.skipIf(!runs)("Vigil on a real monerod regtest chain: a wallet's subaddress look-ahead", () => {
  let d: RegtestDaemon;
  let miner: RegtestWallet;
  let store: RegtestWallet;
  let v: RegtestVigil;
  /** Subaddresses of the store's wallet, made by monero-wallet-rpc. */
  const far: Record<string, { address: string; index: SubaddressIndex }> = {};
  let small: Awaited<ReturnType<RegtestVigil["openWatch"]>>;
  let wide: Awaited<ReturnType<RegtestVigil["openWatch"]>>;

  const mine = (n: number) => d.mine(n, miner.address);
  const settings = async (watchId: string, watchToken: string) => {
    const r = await fetch(`${v.t.url}/v1/private/watch/${watchId}`, { headers: { "x-watch-token": watchToken } });
    expect(r.status).toBe(200);
    return settingsSchema.parse((await json(r)).subaddresses);
  };

  beforeAll(async () => {
    d = await RegtestDaemon.start();
    [miner, store] = await Promise.all([RegtestWallet.create(d, "miner"), RegtestWallet.create(d, "store")]);
    await d.mine(80, miner.address);
    await miner.refresh();
    v = await startRegtestVigil(d.vigilUrl, { MONERO_SUBADDRESS_LOOKAHEAD: String(SERVER_LOOKAHEAD.minors) });
    // Accounts 1..5, then minors 1..7 of account 3 and 1..2 of account 5: the wallet's own look-ahead covers them all.
    for (let i = 1; i <= 5; i++) far[`${i}/0`] = await store.newAccount();
    for (let i = 1; i <= 7; i++) far[`3/${i}`] = await store.newSubaddress(3);
    for (let i = 1; i <= 2; i++) far[`5/${i}`] = await store.newSubaddress(5);
    // Past the server's 50 minors in account 0.
    for (let i = 1; i <= 60; i++) far[`0/${i}`] = await store.newSubaddress(0);
  }, 180_000);

  afterAll(async () => {
    try {
      await v?.close();
    } finally {
      await killAllNodes();
    }
  });

  it("a watch that asks for accounts 0–5 finds every payment the wallet finds, index by index; the default look-ahead finds those within accounts 0–1 × minors 0–49 only", async () => {
    small = await v.openWatch(store.address, store.viewKey, "/small");
    wide = await v.openWatch(store.address, store.viewKey, "/wide", { subaddressLookahead: { accounts: 6, minors: 200 } });
    expect(await settings(small.watchId, small.watchToken)).toEqual({ lookahead: { ...SERVER_LOOKAHEAD, source: "server" }, invoiceAccount: 0, issued: [] });
    expect(await settings(wide.watchId, wide.watchToken)).toEqual({ lookahead: { accounts: 6, minors: 200, source: "watch" }, invoiceAccount: 0, issued: [] });
    await v.nextTick();

    const paid = ["1/0", "3/7", "5/2", "0/60", "0/49", "3/1"];
    const { txid } = await miner.transfer([
      { address: store.address, amount: someAmount(XMR / 4n, XMR) },
      ...paid.map((k) => ({ address: far[k]!.address, amount: someAmount(XMR / 8n, XMR) })),
    ]);
    await d.mineIn([txid], miner.address, 9);
    await v.nextTick();

    const all = await store.figures();
    expect(all.outputs.map((o) => `${o.subaddress.major}/${o.subaddress.minor}`).sort()).toEqual(["0/0", ...paid].sort());
    expectAgrees(await v.snapshot(wide.watchId, wide.watchToken), all, { subaddresses: true });
    const seenBySmall = within(all, SERVER_LOOKAHEAD);
    expect(seenBySmall.outputs.map((o) => `${o.subaddress.major}/${o.subaddress.minor}`).sort()).toEqual(["0/0", "0/49", "1/0"]);
    expectAgrees(await v.snapshot(small.watchId, small.watchToken), seenBySmall, { subaddresses: true });
  });

  it("widening a watch's look-ahead later (PATCH) finds the payments from then on; a historical scan with it finds the earlier ones", async () => {
    const r = await fetch(`${v.t.url}/v1/private/watch/${small.watchId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-watch-token": small.watchToken },
      body: JSON.stringify({ subaddressLookahead: { accounts: 6, minors: 200 } }),
    });
    expect(r.status).toBe(200);
    expect(settingsSchema.parse((await json(r)).subaddresses).lookahead).toEqual({ accounts: 6, minors: 200, source: "watch" });

    const before = await v.snapshot(small.watchId, small.watchToken);
    const { txid } = await miner.transfer([
      { address: far["3/7"]!.address, amount: someAmount(XMR / 8n, XMR) },
      { address: far["0/60"]!.address, amount: someAmount(XMR / 8n, XMR) },
    ]);
    await d.mineIn([txid], miner.address, 9);
    await v.nextTick();
    const all = await store.figures();
    const fresh = all.outputs.filter((o) => o.txid === txid);
    expect(fresh.map((o) => `${o.subaddress.major}/${o.subaddress.minor}`).sort()).toEqual(["0/60", "3/7"]);
    const after = await v.snapshot(small.watchId, small.watchToken);
    const gained = after.outputs.filter((o) => o.txid === txid).map((o) => `${o.subaddress!.major}/${o.subaddress!.minor}:${o.amountAtomic}`);
    expect(gained.sort()).toEqual(fresh.map((o) => `${o.subaddress.major}/${o.subaddress.minor}:${o.amount}`).sort());
    expect(after.balanceAtomic - before.balanceAtomic).toBe(fresh.reduce((a, o) => a + o.amount, 0n));
    // The wide watch still agrees with the whole wallet.
    expectAgrees(await v.snapshot(wide.watchId, wide.watchToken), all, { subaddresses: true });

    const route = v.t.app.routes.find((x) => x.operationId === "privateHistorical")!;
    const ctx = { requestId: "real-node", ip: "127.0.0.1", db: v.t.db.db, log: silentLog, baseUrl: v.t.url, surface: "http" as const };
    const input = route.input.parse({ chain: "monero", viewKey: store.viewKey, address: store.address, birthdayHeight: 0, includeNotes: true, subaddressLookahead: { accounts: 6, minors: 200 } });
    await route.precheck?.(input, ctx);
    const out = historicalOutput.parse(await route.handler(input, ctx));
    expect(BigInt(out.received_atomic)).toBe(all.balance);
    const mine = out.outputs!.map((o) => `${o.txid}:${o.amount_atomic}:${o.subaddress!.major}/${o.subaddress!.minor}`);
    expect(mine.sort()).toEqual(all.outputs.map((o) => `${o.txid}:${o.amount}:${o.subaddress.major}/${o.subaddress.minor}`).sort());
  });

  it("refuses look-aheads a wallet does not have, and settings on a subaddress watch, before anything is written", async () => {
    const patch = (body: unknown, token = small.watchToken) =>
      fetch(`${v.t.url}/v1/private/watch/${small.watchId}`, { method: "PATCH", headers: { "content-type": "application/json", "x-watch-token": token }, body: JSON.stringify(body) });
    for (const bad of [{ accounts: 51, minors: 1 }, { accounts: 50, minors: 201 }, { accounts: 0, minors: 10 }, { accounts: 2.5, minors: 10 }]) {
      const r = await patch({ subaddressLookahead: bad });
      expect(r.status).toBe(400);
      expect((await json(r)).error.code).toBe("invalid_input");
    }
    expect((await json(await patch({ invoiceAccount: 50 }))).error.code).toBe("invalid_input");
    expect((await json(await patch({}))).error.code).toBe("nothing_to_update");
    const wrong = await patch({ invoiceAccount: 1 }, "wt_wrong");
    expect(wrong.status).toBe(401);
    expect((await settings(small.watchId, small.watchToken)).invoiceAccount).toBe(0);
    const subWatch = await v.openWatch(far["3/1"]!.address, store.viewKey, "/sub");
    const r = await fetch(`${v.t.url}/v1/private/watch/${subWatch.watchId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-watch-token": subWatch.watchToken },
      body: JSON.stringify({ subaddressLookahead: { accounts: 6, minors: 200 } }),
    });
    expect(r.status).toBe(400);
    expect((await json(r)).error.code).toBe("subaddress_settings_not_applicable");
    await expect(v.openWatch(far["3/1"]!.address, store.viewKey, "/sub2", { subaddressLookahead: { accounts: 3, minors: 10 } })).rejects.toMatchObject({ code: "subaddress_settings_not_applicable" });
  });
});
