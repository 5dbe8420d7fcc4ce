/** The Ethereum settings: ETH_RPC_URL as a comma-separated list, its defaults, and DEVNET=auto seeing it as an upstream. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config.js";
import { splitRpcUrls } from "../../../src/chains/ethereum/rpc.js";

describe("Ethereum config", () => {
  it("accepts one or several URLs and keeps their order", () => {
    const c = loadConfig({ ETH_RPC_URL: "https://a.example/rpc, http://127.0.0.1:8545", DEVNET: "off" });
    expect(splitRpcUrls(c.ETH_RPC_URL)).toEqual(["https://a.example/rpc", "http://127.0.0.1:8545"]);
    expect(c.ETH_RETENTION_BLOCKS).toBe(7200);
    expect(c.ETH_MAX_AGE_SECONDS).toBe(120);
  });

  it("refuses a list with something that is not a URL, naming the variable", () => {
    expect(() => loadConfig({ ETH_RPC_URL: "https://a.example,not a url" })).toThrow(ConfigError);
    expect(() => loadConfig({ ETH_RPC_URL: "https://a.example,not a url" })).toThrow(/ETH_RPC_URL/);
    expect(() => loadConfig({ ETH_RETENTION_BLOCKS: "3" })).toThrow(/ETH_RETENTION_BLOCKS/);
  });

  it("a configured node replaces only the Ethereum simulator: DEVNET=auto stays on until payments are configured", () => {
    expect(loadConfig({ ETH_RPC_URL: "https://a.example" }).devnet).toBe(true);
    expect(loadConfig({ ETH_RPC_URL: "https://a.example", PAY_TO: "0x1111111111111111111111111111111111111111", CDP_API_KEY_ID: "k", CDP_API_KEY_SECRET: "s" }).devnet).toBe(false);
    expect(loadConfig({}).devnet).toBe(true);
  });
});
