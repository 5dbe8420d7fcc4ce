/**
 * `vigil doctor` against real nodes: Debian's monerod on a private regtest
 * chain (nettype "fakechain", mainnet-format addresses), plain and with
 * --restricted-rpc, and Foundry's anvil as the Ethereum mainnet node (chain
 * id 1) and as an empty Base Sepolia node; the Zcash nodes, relays and the
 * x402 chain are the devnet's simulators.
 *
 * Restricted mode: monerod 0.18 --restricted-rpc serves every method Vigil
 * calls (get_info, get_last_block_header, get_block_headers_range, get_block,
 * get_fee_estimate, /get_transactions, /get_transaction_pool_hashes), so the
 * real restricted node passes. A node that refuses one (a public node behind
 * a filtering proxy, an older or patched daemon) is played by a proxy in
 * front of the real node that answers the refused methods exactly as monerod
 * refuses what it does not serve (-32601 "Method not found", HTTP 404).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { checkMonerod } from "../../src/doctor/monerod.js";
import { checkFacilitator } from "../../src/doctor/payments.js";
import { runDoctor, type CheckResult } from "../../src/doctor/index.js";
import { ANVIL, MONEROD, anvilNeeds, moneroNeeds, realNodesRun } from "../helpers/real-nodes.js";
import { tempDir } from "../helpers/app.js";
import { doctorConfig, prepareStore, randomKey, runCliDoctor, startAnvil, startRefusingProxy, startRegtestMonerod, type DoctorStore, type Node } from "./helpers.js";

const runs = realNodesRun("vigil doctor against real monerod and anvil", [...moneroNeeds, ...anvilNeeds]);
const ctx = (env: Record<string, string>) => ({ config: doctorConfig({ DEVNET: "off", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9", ...env }), signal: AbortSignal.timeout(10_000), timeoutMs: 5_000 });
const failed = (checks: CheckResult[]) => checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);

describe.skipIf(!runs)("vigil doctor against real nodes", () => {
  let monerod: Node;
  let restricted: Node;
  let anvil: Node;
  let baseSepolia: Node;
  let devnet: SimulatedDevnet;
  let store: DoctorStore;
  const key = randomKey();
  /** The receiver-authorizer of payment channels: a key of its own, as production needs. */
  const authorizerKey = randomKey();

  beforeAll(async () => {
    [monerod, restricted, anvil, baseSepolia] = await Promise.all([
      startRegtestMonerod(MONEROD!),
      startRegtestMonerod(MONEROD!, { restricted: true }),
      startAnvil(ANVIL!, 1),
      startAnvil(ANVIL!, 84532),
    ]);
    devnet = await startDevnet({ dataDir: tempDir("vigil-doctor-devnet-"), blockSeconds: 0, zcashInitialBlocks: 20 });
    store = await prepareStore({ migrated: true, sealWith: key });
  });
  afterAll(async () => {
    await Promise.allSettled([monerod?.stop(), restricted?.stop(), anvil?.stop(), baseSepolia?.stop(), devnet?.close(), store?.drop()]);
  });

  /** A production-shaped configuration: every upstream configured, nothing in devnet mode. */
  const healthyEnv = (): Record<string, string> => ({
    DEVNET: "off",
    LOG_LEVEL: "warn",
    ...store.env,
    MASTER_KEY: key,
    MONERO_DAEMON_URL: monerod.url,
    MONERO_NETWORK: "mainnet",
    ZEBRAD_URL: devnet.configOverlay.ZEBRAD_URL,
    LIGHTWALLETD_URL: devnet.configOverlay.LIGHTWALLETD_URL,
    ZCASH_NETWORK: "testnet",
    ETH_RPC_URL: anvil.url,
    RELAY_URLS: devnet.configOverlay.RELAY_URLS,
    PRIVATE_RELAY_BUILDERS: devnet.configOverlay.PRIVATE_RELAY_BUILDERS,
    FACILITATOR_MODE: "local",
    EVM_RPC_URL: devnet.configOverlay.EVM_RPC_URL,
    FACILITATOR_PRIVATE_KEY: devnet.facilitatorKey,
    X402_NETWORK: "eip155:84532",
    PAY_TO: devnet.payTo,
    BATCH_RECEIVER_AUTHORIZER_KEY: authorizerKey,
  });

  it("a healthy set-up passes every check (exit 0), the regtest node noted as fakechain", async () => {
    const report = await runDoctor(doctorConfig(healthyEnv()));
    expect(failed(report.checks)).toEqual([]);
    expect(report.ok).toBe(true);
    const m = report.checks.find((c) => c.name === "monerod")!;
    expect(m.detail).toMatch(/^http:\/\/127\.0\.0\.1:\d+ fakechain, height \d+, synchronized, 7\/7 RPC methods served; regtest chain \("fakechain", mainnet-format addresses\)/);
    expect(report.checks.find((c) => c.name === "ethereum")!.detail).toMatch(/chain 1, block \d+, synced$/);
    expect(report.checks.filter((c) => c.warn)).toEqual([]);
    expect(report.checks.find((c) => c.name === "batch-settlement")!.detail).toMatch(/^receiver-authorizer 0x[0-9a-fA-F]{40}; escrow and deposit collector deployed on chain 84532 \(EVM_RPC_URL http:\/\/127\.0\.0\.1:\d+\); withdraw delay 86400 s$/);

    const cli = await runCliDoctor([], healthyEnv());
    expect(cli.code, cli.output).toBe(0);
    expect(cli.stdout).toMatch(/^PASS monerod {2}http:\/\/127\.0\.0\.1:\d+ fakechain/m);
    expect(cli.stdout.trim().split("\n").at(-1)).toBe(`all ${report.checks.length} checks passed: ready to go live`);
    expect(cli.output).not.toContain(key);
    expect(cli.output).not.toContain(authorizerKey);
  }, 120_000);

  it("MONERO_NETWORK=stagenet against the fakechain (mainnet-format) node fails with the fix", async () => {
    const r = await checkMonerod(ctx({ MONERO_DAEMON_URL: monerod.url, MONERO_NETWORK: "stagenet" }));
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/^network fakechain \(mainnet-format addresses\), MONERO_NETWORK=stagenet \(/);
    expect(r.fix).toBe("set MONERO_NETWORK=mainnet, or point MONERO_DAEMON_URL at a stagenet node");
  });

  it("the real --restricted-rpc node serves every method Vigil calls: it passes, noted as restricted", async () => {
    const r = await checkMonerod(ctx({ MONERO_DAEMON_URL: restricted.url, MONERO_NETWORK: "mainnet" }));
    expect(r.ok, r.detail).toBe(true);
    expect(r.detail).toContain("7/7 RPC methods served");
    expect(r.detail).toContain("restricted RPC");
  });

  it("a node that refuses methods Vigil needs fails, naming each refused method", async () => {
    const proxy = await startRefusingProxy(restricted.url, ["get_block_headers_range", "/get_transactions"]);
    try {
      const r = await checkMonerod(ctx({ MONERO_DAEMON_URL: proxy.url, MONERO_NETWORK: "mainnet" }));
      expect(r.ok).toBe(false);
      expect(r.detail).toMatch(/^refuses (get_block_headers_range, \/get_transactions|\/get_transactions, get_block_headers_range) \(/);
      expect(r.fix).toContain("use a node that serves these methods");
      // Every other method was asked through the proxy and served.
      expect(new Set(proxy.seen)).toEqual(new Set(["get_info", "get_last_block_header", "get_block_headers_range", "get_block", "/get_transactions", "/get_transaction_pool_hashes", "get_fee_estimate"]));
    } finally {
      await proxy.close();
    }
  });

  it("the local facilitator fails with a gas key that holds no ETH on a real node", async () => {
    const r = await checkFacilitator(ctx({ FACILITATOR_MODE: "local", EVM_RPC_URL: baseSepolia.url, FACILITATOR_PRIVATE_KEY: randomKey(), X402_NETWORK: "eip155:84532", PAY_TO: devnet.payTo }));
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/^local, settles eip155:84532 through gas key 0x[0-9a-fA-F]{40} holds no ETH \(EVM_RPC_URL http:\/\/127\.0\.0\.1:\d+ chain 84532\)$/);
    expect(r.fix).toMatch(/^send ETH on Base Sepolia to 0x/);
  });
});
