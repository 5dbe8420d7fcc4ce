import { describe, expect, it } from "vitest";
import { applyConfigOverlay, ConfigError, gasKeys, loadConfig } from "../src/config.js";

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

  it("keeps the devnet on beside upstream URLs (each replaces only its own simulator); payments configured for real turn it off", () => {
    for (const url of ["MONERO_DAEMON_URL", "ETH_RPC_URL", "EVM_RPC_URL", "ZEBRAD_URL", "LIGHTWALLETD_URL", "RELAY_URLS"]) {
      expect(loadConfig({ [url]: "http://127.0.0.1:18081" }).devnet, url).toBe(true);
    }
    expect(loadConfig({ FACILITATOR_URL: "https://f.example", FACILITATOR_MODE: "http" }).devnet).toBe(false);
    expect(loadConfig({ MONERO_DAEMON_URL: "http://127.0.0.1:18081", DEVNET: "off" }).devnet).toBe(false);
    expect(loadConfig({ PAY_TO: "0x1111111111111111111111111111111111111111", DEVNET: "on" }).devnet).toBe(true);
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

describe("settings given beat the overlay", () => {
  it("leaves every key given in the environment as given and fills the rest; how payments settle stays the devnet's", () => {
    const parsed = loadConfig({
      DEVNET: "off",
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: "https://facilitator.example",
      PUZZLE_WATCHLIST: "/mine/watchlist.json",
      RISK_LISTS: "/mine/risk.json",
      MONERO_NETWORK: "stagenet",
      PRICE_SOURCES: "[]",
    });
    expect(parsed.explicitKeys).toEqual(expect.arrayContaining(["FACILITATOR_MODE", "PUZZLE_WATCHLIST", "RISK_LISTS", "MONERO_NETWORK", "PRICE_SOURCES"]));
    const c = applyConfigOverlay(parsed, {
      devnet: true,
      FACILITATOR_MODE: "local",
      EVM_RPC_URL: "http://127.0.0.1:1",
      PUZZLE_WATCHLIST: "/devnet/w.json",
      RISK_LISTS: "/devnet/r.json",
      MONERO_NETWORK: "testnet",
      PRICE_SOURCES: '[{"coin":"xmr","url":"http://127.0.0.1:1","field":"x"}]',
      PRIVATE_RELAY_BUILDERS: "a=http://127.0.0.1:2",
    });
    expect(c).toMatchObject({ PUZZLE_WATCHLIST: "/mine/watchlist.json", RISK_LISTS: "/mine/risk.json", MONERO_NETWORK: "stagenet", PRICE_SOURCES: "[]", PRIVATE_RELAY_BUILDERS: "a=http://127.0.0.1:2" });
    // No signature made against a devnet moves real money: its facilitator settles, whatever was given.
    expect(c).toMatchObject({ devnet: true, FACILITATOR_MODE: "local" });
  });

  it("with a real payment chain (the overlay names no EVM_RPC_URL) the devnet's payment settings fill only what was not given", () => {
    const parsed = loadConfig({ DEVNET: "on", EVM_RPC_URL: "http://127.0.0.1:8545", PAY_TO: "0x2222222222222222222222222222222222222222" });
    const c = applyConfigOverlay(parsed, {
      devnet: true,
      simulatedUpstreams: ["monerod"],
      FACILITATOR_MODE: "local",
      FACILITATOR_PRIVATE_KEY: "11".repeat(32),
      PAY_TO: "0x3333333333333333333333333333333333333333",
    });
    expect(c).toMatchObject({
      devnet: true,
      simulatedUpstreams: ["monerod"],
      EVM_RPC_URL: "http://127.0.0.1:8545",
      PAY_TO: "0x2222222222222222222222222222222222222222",
      FACILITATOR_MODE: "local",
      FACILITATOR_PRIVATE_KEY: "11".repeat(32),
    });
  });

  it("FACILITATOR_PRIVATE_KEY takes one key or several separated by commas, refusing a malformed or repeated one", () => {
    const a = "11".repeat(32);
    const b = `0x${"22".repeat(32)}`;
    const c = loadConfig({ DEVNET: "off", FACILITATOR_PRIVATE_KEY: ` ${a} , ${b}`, FACILITATOR_MODE: "local", EVM_RPC_URL: "http://127.0.0.1:8545" });
    expect(gasKeys(c.FACILITATOR_PRIVATE_KEY!)).toEqual([`0x${a}`, b]);
    expect(gasKeys(a)).toEqual([`0x${a}`]);
    expect(() => loadConfig({ DEVNET: "off", FACILITATOR_PRIVATE_KEY: `${a},0x${a}` })).toThrow(/FACILITATOR_PRIVATE_KEY.*names the same key twice/s);
    expect(() => loadConfig({ DEVNET: "off", FACILITATOR_PRIVATE_KEY: `${a},12` })).toThrow(/FACILITATOR_PRIVATE_KEY.*several such keys separated by commas/s);
    expect(() => loadConfig({ DEVNET: "off", FACILITATOR_PRIVATE_KEY: "," })).toThrow(/FACILITATOR_PRIVATE_KEY/);
  });

  it("an empty value is not a given setting", () => {
    const c = applyConfigOverlay(loadConfig({ DEVNET: "off", PUZZLE_WATCHLIST: "" }), { PUZZLE_WATCHLIST: "/devnet/w.json" });
    expect(c.PUZZLE_WATCHLIST).toBe("/devnet/w.json");
  });
});

describe("RISK_LISTS and its deprecated names", () => {
  it("reads either old name into RISK_LISTS, with one warning naming the new key", () => {
    for (const old of ["ADDRESS_RISK_LISTS", "COUNTER_MEV_RISK_LISTS"]) {
      const c = loadConfig({ DEVNET: "off", [old]: "ofac=/l/ofac.csv:sanctioned" });
      expect(c.RISK_LISTS, old).toBe("ofac=/l/ofac.csv:sanctioned");
      expect(c.deprecations, old).toEqual([expect.stringMatching(new RegExp(`^${old} is deprecated.*set RISK_LISTS instead`))]);
      expect(c as Record<string, unknown>, old).not.toHaveProperty(old);
      // The alias counts as the new key given: the devnet's list does not replace it.
      expect(applyConfigOverlay(c, { RISK_LISTS: "/devnet/r.json" }).RISK_LISTS, old).toBe("ofac=/l/ofac.csv:sanctioned");
    }
  });

  it("joins both old names (they were two lists of one kind) and warns for each", () => {
    const c = loadConfig({ DEVNET: "off", ADDRESS_RISK_LISTS: "ofac=/l/ofac.csv:sanctioned", COUNTER_MEV_RISK_LISTS: "/l/a.json, /l/b.json" });
    expect(c.RISK_LISTS).toBe("ofac=/l/ofac.csv:sanctioned,/l/a.json,/l/b.json");
    expect(c.deprecations).toHaveLength(2);
  });

  it("the new name alone warns nothing; old and new with the same value are accepted; different values stop start-up", () => {
    expect(loadConfig({ DEVNET: "off", RISK_LISTS: "/l/a.json" }).deprecations).toEqual([]);
    expect(loadConfig({ DEVNET: "off", RISK_LISTS: "/l/a.json,/l/b.json", COUNTER_MEV_RISK_LISTS: " /l/a.json , /l/b.json" }).RISK_LISTS).toBe("/l/a.json,/l/b.json");
    expect(() => loadConfig({ DEVNET: "off", RISK_LISTS: "/l/a.json", ADDRESS_RISK_LISTS: "ofac=/l/ofac.csv" })).toThrow(ConfigError);
    expect(() => loadConfig({ DEVNET: "off", RISK_LISTS: "/l/a.json", COUNTER_MEV_RISK_LISTS: "/l/b.json" })).toThrow(/COUNTER_MEV_RISK_LISTS: deprecated name\(s\) of RISK_LISTS set to a different value/);
  });
});
