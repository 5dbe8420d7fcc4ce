/**
 * The devnet's Zcash part as `npm start` runs it: zebrad and lightwalletd
 * simulators on one chain, their URLs in the configuration overlay, the
 * state file the CLI reads, the ready wallets, and a configured URL replacing
 * only its own simulator.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { bytesToHex } from "../../src/chains/zcash/bytes.js";
import { createLightwalletd } from "../../src/chains/zcash/lightwalletd.js";
import { createZebrad } from "../../src/chains/zcash/zebrad.js";
import { runDevnetCli } from "../../devnet/cli.js";
import { readDevnetState, startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { tempDir } from "../helpers/app.js";
import { runOnStreams } from "../helpers/cli-streams.js";

const cli = (args: string[], dataDir: string) =>
  runOnStreams((io) => runDevnetCli(args, io, () => loadConfig({ DATA_DIR: dataDir, DEVNET: "off", LOG_LEVEL: "silent" })));

describe("the devnet's Zcash simulators", () => {
  let dir: string;
  let devnet: SimulatedDevnet;

  beforeAll(async () => {
    dir = tempDir("vigil-devnet-zcash-");
    devnet = await startDevnet({ dataDir: dir, blockSeconds: 0 });
  }, 120_000);

  afterAll(async () => {
    await devnet?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("serve one chain, named by the overlay and the state file", async () => {
    expect(devnet.configOverlay).toMatchObject({ ZEBRAD_URL: devnet.zebrad!.url, LIGHTWALLETD_URL: devnet.lightwalletd!.url, ZCASH_NETWORK: "testnet" });
    expect(readDevnetState(dir)).toMatchObject({ zebradUrl: devnet.zebrad!.url, lightwalletdUrl: devnet.lightwalletd!.url });
    const light = createLightwalletd({ url: devnet.configOverlay.LIGHTWALLETD_URL, network: "testnet" });
    const rpc = createZebrad({ url: devnet.configOverlay.ZEBRAD_URL, network: "testnet" });
    const tip = await light.latestBlock();
    expect(bytesToHex(tip.hash.reverse())).toBe((await rpc.getBlockchainInfo()).bestBlockHash);
    light.close();
    await rpc.close();
  });

  it("`vigil devnet send zcash`, `mine zcash` and `wallets --json` find the running devnet through its state file", async () => {
    const w = await cli(["wallets", "--json"], dir);
    expect(w.code).toBe(0);
    const wallets = JSON.parse(w.out) as { chain: string; label: string; address: string; ufvk?: string; mnemonic?: string }[];
    const zcash = wallets.filter((x) => x.chain === "zcash");
    expect(zcash.map((x) => x.label)).toEqual(["alice", "bob", "carol"]);
    expect(zcash[0]).toMatchObject({ address: devnet.zcashWallets()[0]!.address, ufvk: devnet.zcashWallets()[0]!.ufvk });
    expect(wallets.some((x) => x.chain === "monero")).toBe(true);
    const sent = await cli(["send", "zcash", zcash[1]!.address, "1.5", "--memo", "hello"], dir);
    expect(sent.code).toBe(0);
    const r = JSON.parse(sent.out);
    expect(r).toMatchObject({ pool: "ironwood", amount_zatoshi: "150000000" });
    expect(devnet.zcashChain!.mempool.some((t) => t.txid === r.txid)).toBe(true);
    const mined = await cli(["mine", "zcash", "2"], dir);
    expect(mined.code).toBe(0);
    expect(devnet.zcashChain!.findTx(r.txid)?.block?.height).toBe(devnet.zcashChain!.tip().height - 1);
    const bad = await cli(["send", "zcash", "nope", "1"], dir).catch((e: Error) => ({ code: -1, out: "", err: e.message }));
    expect(bad.err).toMatch(/address/i);
  });

  it("a configured LIGHTWALLETD_URL replaces only the lightwalletd simulator", async () => {
    const d2dir = tempDir("vigil-devnet-zcash2-");
    const d2 = await startDevnet({ dataDir: d2dir, blockSeconds: 0, lightwalletdUrl: "https://lightwalletd.example:9067" });
    try {
      expect(d2.lightwalletd).toBeUndefined();
      expect(d2.zebrad).toBeDefined();
      expect(d2.configOverlay.LIGHTWALLETD_URL).toBe("https://lightwalletd.example:9067");
      expect(d2.configOverlay.ZEBRAD_URL).toBe(d2.zebrad!.url);
    } finally {
      await d2.close();
      fs.rmSync(d2dir, { recursive: true, force: true });
    }
  });
});
