/** The settings of paying in coin are refused at start-up when they cannot work. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

const base = { DEVNET: "off", MONERO_DAEMON_URL: "http://127.0.0.1:18081" };
const ADDRESS = "9wviCeWe2D8XS82k2ovp5EUYLzBt9pYNW2LXUFsZiv8S3Mt21FZ5qQaAroko1enzw3eGr9qC7X1D7Geoo2RrAotYPwq9Gm8";
const VIEW = "a".repeat(64);

describe("coin payment settings", () => {
  it("need both the receiving address and its view key", () => {
    expect(() => loadConfig({ ...base, COIN_XMR_ADDRESS: ADDRESS, PUBLIC_URL: "https://vigil.example" })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, COIN_XMR_VIEW_KEY: VIEW })).toThrow(/COIN_XMR_ADDRESS, COIN_XMR_VIEW_KEY/);
  });

  it("need somewhere the receiving wallet's watch can deliver to (PUBLIC_URL or COIN_WEBHOOK_URL) outside the devnet", () => {
    expect(() => loadConfig({ ...base, COIN_XMR_ADDRESS: ADDRESS, COIN_XMR_VIEW_KEY: VIEW })).toThrow(/PUBLIC_URL or COIN_WEBHOOK_URL/);
    expect(loadConfig({ ...base, COIN_XMR_ADDRESS: ADDRESS, COIN_XMR_VIEW_KEY: VIEW, PUBLIC_URL: "https://vigil.example" }).COIN_XMR_ADDRESS).toBe(ADDRESS);
    expect(loadConfig({ ...base, COIN_XMR_ADDRESS: ADDRESS, COIN_XMR_VIEW_KEY: VIEW, COIN_WEBHOOK_URL: "https://ops.example/hook" }).COIN_WEBHOOK_URL).toBe(
      "https://ops.example/hook",
    );
  });

  it("read price settings strictly", () => {
    expect(() => loadConfig({ ...base, PRICE_SOURCES: "{not json" })).toThrow(/PRICE_SOURCES/);
    expect(() => loadConfig({ ...base, PRICE_FIXED_USD: "xmr=1e3" })).toThrow(/PRICE_FIXED_USD/);
    expect(loadConfig({ ...base, PRICE_FIXED_USD: "xmr=150.25,zec=32.1" }).PRICE_FIXED_USD).toBe("xmr=150.25,zec=32.1");
    expect(loadConfig(base).PRICE_CACHE_SECONDS).toBe(60);
  });
});
