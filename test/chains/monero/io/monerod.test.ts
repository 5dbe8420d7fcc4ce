import fs from "node:fs";
import path from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddress } from "../../../../src/chains/monero/address.js";
import { MoneroDaemonClient } from "../../../../src/chains/monero/daemon-client.js";
import { validateMoneroWatchKey } from "../../../../src/chains/monero/keys.js";
import { deriveDevnetWallets, devnetMoneroMine, devnetMoneroSend, devnetMoneroWallets } from "../../../../devnet/monerod.js";
import { startTestMonerod, tempDataDir } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

describe("devnet monerod", () => {
  let d: Monerod;
  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 2 });
  });
  afterAll(async () => {
    await d.close();
  });

  it("ready wallets: testnet primary addresses whose view keys match, plus subaddresses; a miner wallet", () => {
    expect(d.wallets.map((w) => w.label)).toEqual(["alice", "bob", "carol", "miner"]);
    for (const w of d.wallets) {
      const dec = decodeAddress(w.address);
      expect(dec.ok && dec.value.network).toBe("testnet");
      expect(dec.ok && dec.value.kind).toBe("standard");
      expect(validateMoneroWatchKey(w.address, w.viewKey)).toMatchObject({ chain: "monero", network: "testnet" });
      for (const s of w.subaddresses) {
        const sd = decodeAddress(s.address);
        expect(sd.ok && sd.value.kind).toBe("subaddress");
        validateMoneroWatchKey(s.address, w.viewKey);
      }
    }
  });

  it("wallets come from a seed stored under the data dir and survive a restart", async () => {
    const file = path.join(d.dataDir, "devnet", "monero-wallets.json");
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { seed: string };
    expect(deriveDevnetWallets(saved.seed).map((w) => w.address)).toEqual(d.wallets.map((w) => w.address));
    const again = await startTestMonerod({ dataDir: d.dataDir });
    expect(again.wallets).toEqual(d.wallets);
    await again.close();
    const other = await startTestMonerod({ dataDir: tempDataDir() });
    expect(other.wallets[0]!.address).not.toBe(d.wallets[0]!.address);
    await other.close();
  });

  it("GET /devnet/wallets lists them as [{chain, network, address, viewKey, …}]", async () => {
    const list = await devnetMoneroWallets(d.url);
    expect(list[0]).toMatchObject({ chain: "monero", network: "testnet", address: d.wallets[0]!.address, viewKey: d.wallets[0]!.viewKey });
  });

  it("devnetMoneroSend converts an XMR string exactly and the transfer lands in the pool", async () => {
    const bob = d.wallets[1]!;
    const r = await devnetMoneroSend(d.url, bob.address, "0.000000000123");
    expect(r).toMatchObject({ address: bob.address, amount_piconero: "123", amount_xmr: "0.000000000123" });
    const client = new MoneroDaemonClient({ url: d.url });
    expect(await client.getTransactionPoolHashes()).toContain(r.txid);
    const mined = await devnetMoneroMine(d.url, 2);
    expect(mined.height).toBe(d.height());
    const tx = await client.getTransactions([r.txid]);
    expect(tx.txs[0]!.confirmations).toBe(2);
    await client.close();
  });

  it("refuses mainnet addresses, bad amounts and bad XMR strings", async () => {
    // Monero's own functional-test wallet (mainnet).
    const mainnet = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";
    await expect(devnetMoneroSend(d.url, mainnet, "1")).rejects.toThrow(/testnet/);
    await expect(devnetMoneroSend(d.url, d.wallets[0]!.address, "1e3")).rejects.toThrow();
    await expect(devnetMoneroSend(d.url, d.wallets[0]!.address, "0")).rejects.toThrow();
    const r = await post(`${d.url}/devnet/send`, { address: d.wallets[0]!.address, amount_piconero: "-5" });
    expect(r.status).toBe(400);
  });

  it("speaks monerod's JSON-RPC envelope: unknown methods and bad JSON are JSON-RPC errors", async () => {
    const unknown = await post(`${d.url}/json_rpc`, { jsonrpc: "2.0", id: "7", method: "no_such_method" });
    expect(unknown.json).toMatchObject({ jsonrpc: "2.0", id: "7", error: { code: -32601 } });
    const res = await request(`${d.url}/json_rpc`, { method: "POST", body: "{nope" });
    expect(await res.body.json()).toMatchObject({ error: { code: -32700 } });
    const plain = await post(`${d.url}/get_info`, {});
    expect(plain.json).toMatchObject({ status: "OK", nettype: "testnet", height: d.height() + 1 });
  });

  it("reorg over HTTP replaces blocks and reports the dropped transfers", async () => {
    const txid = d.send(d.wallets[2]!.address, 77n);
    d.mine(1);
    const client = new MoneroDaemonClient({ url: d.url });
    const before = await client.getLastBlockHeader();
    const r = await post(`${d.url}/devnet/reorg`, { depth: 1 });
    expect(r.json).toMatchObject({ height: before.height, dropped_txids: [txid] });
    const after = await client.getLastBlockHeader();
    expect(after.height).toBe(before.height);
    expect(after.hash).not.toBe(before.hash);
    expect((await client.getTransactions([txid])).missed).toEqual([txid]);
    expect((await post(`${d.url}/devnet/reorg`, { depth: 10_000 })).status).toBe(400);
    await client.close();
  });

  it("keeps its chain under the data dir: a restart serves the same blocks and transactions", async () => {
    const dir = tempDataDir();
    const first = await startTestMonerod({ dataDir: dir, persistChain: true, initialBlocks: 2 });
    const txid = first.send(first.wallets[0]!.address, 1234n);
    first.mine(3);
    first.reorg(1); // rewrites the file
    const c1 = new MoneroDaemonClient({ url: first.url });
    const top1 = await c1.getLastBlockHeader();
    const tx1 = await c1.getTransactions([txid], { prune: false });
    await c1.close();
    await first.close();

    const second = await startTestMonerod({ dataDir: dir, persistChain: true, initialBlocks: 7 });
    expect(second.height()).toBe(top1.height);
    const c2 = new MoneroDaemonClient({ url: second.url });
    expect(await c2.getLastBlockHeader()).toEqual(top1);
    const tx2 = await c2.getTransactions([txid], { prune: false });
    expect(tx2.txs[0]).toEqual(tx1.txs[0]);
    // And it keeps growing from there.
    second.mine(1);
    expect((await c2.getLastBlockHeader()).prevHash).toBe(top1.hash);
    await c2.close();
    await second.close();

    // A damaged file is not trusted: a new chain starts.
    const file = path.join(dir, "devnet", "monero-chain.jsonl");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/"reward":"\d+"/, '"reward":"1"').replace(/[0-9a-f]{64}/, "0".repeat(64)));
    const third = await startTestMonerod({ dataDir: dir, persistChain: true, initialBlocks: 2 });
    expect(third.height()).toBe(1);
    await third.close();
  });

  it("mines on its own every blockSeconds", async () => {
    const m = await startTestMonerod({ blockSeconds: 0.1, initialBlocks: 1 });
    const h0 = m.height();
    const started = Date.now();
    while (m.height() < h0 + 3 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(m.height()).toBeGreaterThanOrEqual(h0 + 3);
    // Not faster than the interval either (three intervals of 100 ms at least).
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await m.close();
    const after = m.height();
    await new Promise((r) => setTimeout(r, 300));
    expect(m.height()).toBe(after); // the timer stops with close()
  });
});
