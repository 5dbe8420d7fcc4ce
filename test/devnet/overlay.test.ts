/**
 * The devnet reaches the app only as settings: `startDevnet` hands back a
 * configuration overlay, the CLI lays it over the parsed config, and the
 * app built from the result runs on the devnet's loopback upstreams and
 * says "devnet: true" because its config says so.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config.js";
import { startDevnet, type DevnetHandle } from "../../src/devnet/index.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";

describe("the devnet configuration overlay", () => {
  let dir: string;
  let devnet: DevnetHandle;
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
    const { devnet: on, ...settings } = devnet.configOverlay;
    expect(on).toBe(true);
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
