import { describe, expect, it } from "vitest";
import { applyConfigOverlay, ConfigError, loadConfig } from "../src/config.js";

describe("configuration", () => {
  it("has working defaults and turns the devnet on when no upstream is configured", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8402, HOST: "127.0.0.1", DATA_DIR: "./data", devnet: true, WATCH_POLL_SECONDS: 15, MONERO_CONFIRMATIONS: 2 });
    // The devnet relaxes the webhook switches (with a banner warning); production defaults are off.
    expect(c.WEBHOOK_ALLOW_HTTP).toBe(true);
    const prod = loadConfig({ PAY_TO: "0x1111111111111111111111111111111111111111", CDP_API_KEY_ID: "id", CDP_API_KEY_SECRET: "s" });
    expect(prod.devnet).toBe(false);
    expect(prod.WEBHOOK_ALLOW_HTTP).toBe(false);
    expect(prod.WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(prod).toMatchObject({ WATCH_POLL_SECONDS: 180, MONERO_CONFIRMATIONS: 10 });
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://x"],
    ["PAY_TO", "0x123"],
    ["FACILITATOR_MODE", "magic"],
    ["MASTER_KEY", "short"],
    ["WEBHOOK_ALLOW_HTTP", "maybe"],
    ["X402_NETWORK", "eip155:1"],
    ["MONERO_CONFIRMATIONS", "-1"],
  ])("a wrong %s (%s) stops start-up with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
  });

  it("names the missing companions of a facilitator mode", () => {
    expect(() => loadConfig({ DEVNET: "off", FACILITATOR_MODE: "http" })).toThrow(/FACILITATOR_URL/);
    expect(() => loadConfig({ DEVNET: "off", FACILITATOR_MODE: "local" })).toThrow(/EVM_RPC_URL/);
    expect(() => loadConfig({ DEVNET: "off", PAY_TO: "0x1111111111111111111111111111111111111111" })).toThrow(/CDP_API_KEY_ID/);
  });
});

describe("the configuration overlay", () => {
  it("replaces exactly the keys it names and keeps the derived defaults as parsed", () => {
    const parsed = loadConfig({ DEVNET: "off", FACILITATOR_MODE: "http", FACILITATOR_URL: "https://facilitator.example" });
    const c = applyConfigOverlay(parsed, {
      devnet: true,
      FACILITATOR_MODE: "local",
      EVM_RPC_URL: "http://127.0.0.1:1",
      X402_NETWORK: "eip155:84532",
    });
    expect(c).toMatchObject({ devnet: true, FACILITATOR_MODE: "local", EVM_RPC_URL: "http://127.0.0.1:1", X402_NETWORK: "eip155:84532" });
    // Untouched keys, including the ones derived from DEVNET at parse time, stay as parsed.
    expect(c.FACILITATOR_URL).toBe("https://facilitator.example");
    expect(c).toMatchObject({ WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: false, WATCH_POLL_SECONDS: 180, MONERO_CONFIRMATIONS: 10 });
    expect(Object.isFrozen(c)).toBe(true);
    expect(parsed.devnet).toBe(false);
  });
});
