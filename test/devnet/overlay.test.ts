/**
 * The devnet reaches the app only as settings: `startDevnet` hands back a
 * configuration overlay, the CLI lays it over the parsed config, and the
 * app built from the result runs on the devnet's loopback upstreams and
 * says "devnet: true" because its config says so.
 */
import fs from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";

describe("the devnet configuration overlay", () => {
  let dir: string;
  let devnet: SimulatedDevnet;
  let t: TestApp;

  beforeAll(async () => {
    dir = tempDir("vigil-devnet-");
    devnet = await startDevnet({ dataDir: dir, blockSeconds: 0 });
    t = await startTestApp({}, { devnet });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await devnet?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is made of values the config schema accepts, pointing at the running simulators", () => {
    const { devnet: on, simulatedUpstreams, ...settings } = devnet.configOverlay;
    expect(on).toBe(true);
    // Everything is simulated when nothing is given.
    expect([...simulatedUpstreams].sort()).toEqual(["ethereum", "lightwalletd", "monerod", "payment_chain", "prices", "private_builders", "relays", "zebrad"]);
    // Every setting is one an operator could have written in the environment.
    const keys = Object.fromEntries(Object.keys(settings).map((k) => [k, true as const])) as Record<keyof typeof settings, true>;
    expect(ConfigSchema.pick(keys).strict().parse(settings)).toEqual(settings);
    expect(settings).toMatchObject({
      MONERO_DAEMON_URL: devnet.moneroUrl,
      MONERO_NETWORK: "testnet",
      FACILITATOR_MODE: "local",
      EVM_RPC_URL: devnet.evmUrl,
      FACILITATOR_PRIVATE_KEY: devnet.facilitatorKey,
      X402_NETWORK: "eip155:84532",
      PAY_TO: devnet.payTo,
      MASTER_KEY: devnet.masterKey,
    });
  });

  it("makes the app run on the devnet and say so in / and /v1/health", async () => {
    expect(t.app.config.devnet).toBe(true);
    const index = (await (await fetch(`${t.url}/`)).json()) as { devnet: boolean };
    expect(index.devnet).toBe(true);
    const health = (await (await fetch(`${t.url}/v1/health`)).json()) as {
      devnet: boolean;
      paywall: { configured: boolean; facilitator_mode: string; network: string };
      upstreams: { monero: { available: boolean } };
    };
    expect(health.devnet).toBe(true);
    expect(health.paywall).toEqual({ configured: true, facilitator_mode: "local", network: "eip155:84532" });
    expect(health.upstreams.monero.available).toBe(true);
    expect(t.app.paywall.terms?.payTo).toBe(devnet.payTo);
  });

  it("fills only what was not given: a given risk-list set, watchlist or builder list wins over the devnet's", async () => {
    const own = tempDir("vigil-own-");
    const lists = `${own}/mine.csv`;
    const watchlist = `${own}/watchlist.json`;
    fs.writeFileSync(lists, "0x1111111111111111111111111111111111111111\n");
    fs.writeFileSync(watchlist, JSON.stringify([{ address: "0x2222222222222222222222222222222222222222", label: "mine" }]));
    const given = await startTestApp({ RISK_LISTS: `mine=${lists}:blocklist`, PUZZLE_WATCHLIST: watchlist, PRIVATE_RELAY_BUILDERS: "b=http://127.0.0.1:9" }, { devnet });
    // The deprecated name counts as given too.
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const aliased = await startTestApp({ COUNTER_MEV_RISK_LISTS: `mine=${lists}` }, { devnet, log });
    // One warning at start-up, naming the new key.
    const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => /deprecated/.test(l.msg));
    expect(warnings).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/^COUNTER_MEV_RISK_LISTS is deprecated.*set RISK_LISTS instead/) })]);
    try {
      expect(given.app.config).toMatchObject({ RISK_LISTS: `mine=${lists}:blocklist`, PUZZLE_WATCHLIST: watchlist, PRIVATE_RELAY_BUILDERS: "b=http://127.0.0.1:9" });
      // One loaded set, the given one (beside the built-in list), read by both features; the devnet's list is not in it.
      expect(given.app.approvalScan.lists.names).toEqual(["approval-exploits", "mine"]);
      expect(aliased.app.approvalScan.lists.names).toEqual(["approval-exploits", "mine"]);
      // What was not given is still the devnet's.
      expect(given.app.config).toMatchObject({ ETH_RPC_URL: devnet.configOverlay.ETH_RPC_URL, RELAY_URLS: devnet.configOverlay.RELAY_URLS, devnet: true });
      expect(t.app.config.RISK_LISTS).toBe(devnet.configOverlay.RISK_LISTS);
      expect(t.app.approvalScan.lists.names).toEqual(["approval-exploits", "devnet-risk-list"]);
    } finally {
      await given.close();
      await aliased.close();
      fs.rmSync(own, { recursive: true, force: true });
    }
  });

  it("leaves an app without it off the devnet", async () => {
    const plain = await startTestApp({});
    try {
      const health = (await (await fetch(`${plain.url}/v1/health`)).json()) as { devnet: boolean };
      expect(health.devnet).toBe(false);
      expect(plain.app.paywall.terms).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
