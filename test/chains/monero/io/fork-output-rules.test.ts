/**
 * The fork a block was mined under decides which output kinds it may carry
 * (carrot/constants.ts outputKindRule): legacy only before v17, either kind
 * in v17, Carrot only from v18. The rule as a function, on real devnet
 * transactions of both kinds; and the block source over the wire: the devnet
 * monerod across its fork is read as it is, and behind an HTTP proxy that
 * rewrites the blocks' major_version in monerod's answers (a daemon that
 * lies), a Carrot block claimed as v16, or a legacy one claimed as v18, is
 * refused as the daemon's failure instead of being scanned.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputKindViolation } from "../../../../src/chains/monero/carrot/tx.js";
import { MoneroBlockSource } from "../../../../src/chains/monero/block-source.js";
import { MoneroDaemonClient } from "../../../../src/chains/monero/daemon-client.js";
import type { ScanTx } from "../../../../src/chains/monero/types.js";
import { startTestMonerod } from "./helpers.js";

const FORK = 4;
let d: Awaited<ReturnType<typeof startTestMonerod>>;
let legacyTx: ScanTx;
let carrotTx: ScanTx;
let legacyHeight = 0;
let carrotHeight = 0;

/** A transaction as the honest daemon serves it, read through the block source. */
async function txOf(height: number, txid: string): Promise<ScanTx> {
  const [block] = await readBlock(d.url, height);
  return block!.txs.find((t) => t.tx.txid === txid)!.tx;
}

beforeAll(async () => {
  d = await startTestMonerod({ initialBlocks: 2, carrotForkHeight: FORK });
  const alice = d.wallets.find((w) => w.label === "alice")!;
  const legacyId = d.send(alice.address, 1_000_000n, "legacy");
  d.mine(1);
  legacyHeight = d.height();
  while (d.height() < FORK) d.mine(1);
  const carrotId = d.send(alice.address, 2_000_000n, "carrot");
  d.mine(1);
  carrotHeight = d.height();
  legacyTx = await txOf(legacyHeight, legacyId);
  carrotTx = await txOf(carrotHeight, carrotId);
});
afterAll(async () => d?.close());

describe("outputKindViolation", () => {
  it("legacy outputs before v17, either kind in v17, Carrot only from v18; an unknown version is not judged", () => {
    expect(legacyTx.outputs.every((o) => o.carrot === undefined)).toBe(true);
    expect(carrotTx.outputs.every((o) => o.carrot !== undefined)).toBe(true);
    expect(outputKindViolation(legacyTx, 16)).toBeUndefined();
    expect(outputKindViolation(carrotTx, 16)).toMatch(/Carrot output\(s\) in a v16 block/);
    expect(outputKindViolation(legacyTx, 17)).toBeUndefined();
    expect(outputKindViolation(carrotTx, 17)).toBeUndefined();
    expect(outputKindViolation(legacyTx, 18)).toMatch(/legacy output\(s\) in a v18 block/);
    expect(outputKindViolation(carrotTx, 18)).toBeUndefined();
    expect(outputKindViolation(carrotTx, 0)).toBeUndefined();
  });
});

/** An HTTP proxy in front of monerod that rewrites every `major_version` in its answers for the given heights. */
async function lyingProxy(target: string, versionAt: (height: number) => number | undefined): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, body: Buffer.concat(chunks), headers: { "content-type": "application/json" } });
      let text = await upstream.text();
      // Headers carry "height" after "major_version" in monerod's field order; rewrite per header object.
      text = text.replace(/\{[^{}]*"major_version":\s*\d+[^{}]*\}/g, (obj) => {
        const h = /"height":\s*(\d+)/.exec(obj);
        const v = h ? versionAt(Number(h[1])) : undefined;
        return v === undefined ? obj : obj.replace(/"major_version":\s*\d+/, `"major_version":${v}`);
      });
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function readBlock(url: string, height: number) {
  const source = new MoneroBlockSource(new MoneroDaemonClient({ url, attempts: 1 }));
  const headers = await source.headers([height]);
  return source.blocks([headers.get(height)!]);
}

describe("the block source keeps the fork's output rules", () => {
  it("reads the devnet's blocks on both sides of its fork as they are", async () => {
    const [legacyBlock] = await readBlock(d.url, legacyHeight);
    const [carrotBlock] = await readBlock(d.url, carrotHeight);
    expect(legacyBlock!.txs.map((t) => t.tx.txid)).toContain(legacyTx.txid);
    expect(carrotBlock!.txs.map((t) => t.tx.txid)).toContain(carrotTx.txid);
  });

  it("refuses a Carrot block a daemon claims is v16, and a legacy block it claims is v18", async () => {
    const proxy = await lyingProxy(d.url, (h) => (h === carrotHeight ? 16 : h === legacyHeight ? 18 : undefined));
    try {
      await expect(readBlock(proxy.url, carrotHeight)).rejects.toMatchObject({
        code: "chain_rpc_failed",
        message: expect.stringMatching(new RegExp(`block ${carrotHeight} .*Carrot output\\(s\\) in a v16 block`)),
      });
      await expect(readBlock(proxy.url, legacyHeight)).rejects.toMatchObject({
        code: "chain_rpc_failed",
        message: expect.stringMatching(new RegExp(`block ${legacyHeight} .*legacy output\\(s\\) in a v18 block`)),
      });
      // The same proxy passes a block it does not lie about.
      const [ok] = await readBlock(proxy.url, legacyHeight - 1);
      expect(ok!.height).toBe(legacyHeight - 1);
    } finally {
      await proxy.close();
    }
  });
});
