/**
 * A real upstream beside the devnet. The story: an operator with a node of
 * their own started `npm start` with its URL set, and (before this was
 * fixed) the whole devnet switched off, or the URL was silently ignored
 * (the payment chain), and the banner still called everything simulated.
 *
 * Now each given upstream URL replaces only its own simulator: that
 * simulator is not started, the app uses the given node, every other
 * simulator still runs, payments included (each is started, the app is
 * pointed at it, and it answers over its URL with the devnet's network;
 * /v1/health reaches every node), and the banner and /v1/health name each
 * upstream's source truthfully. A real node's network is the node's own
 * (monerod's nettype, the Ethereum node's eth_chainId). The "real" nodes here are real
 * where one installs offline (anvil for the payment chain and the Ethereum
 * L1, with Circle's USDC on the payment chain; Debian's monerod on a regtest
 * chain for Monero); the Zcash nodes and the
 * relays are another devnet's simulators on loopback, which this service
 * cannot tell from remote ones.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadConfig, type Config } from "../../src/config.js";
import { createApp, type App } from "../../src/app.js";
import { startupBanner } from "../../src/banner.js";
import { prepareConfig, StartupError, type Prepared } from "../../src/startup.js";
import { startDevnet, type DevnetHandle, type SimulatedDevnet } from "../../devnet/index.js";
import { DEVNET_NETWORK } from "../../devnet/evm-network.js";
import { DEVNET_MONERO_NETWORK } from "../../devnet/monerod-wallets.js";
import { DEVNET_ZCASH_NETWORK } from "../../devnet/zcash-chain.js";
import { DEVNET_ETH_CHAIN_ID } from "../../devnet/ethereum-blocks.js";
import { DEVNET_RELAYS } from "../../devnet/relays.js";
import { createLightwalletd } from "../../src/chains/zcash/lightwalletd.js";
import { USDC } from "../../src/x402/networks.js";
import { createPayer } from "../../src/x402/payer.js";
import { ORACLE_PRICE_ATOMIC } from "../../src/oracle/registry.js";
import { anvilNeeds, moneroNeeds, realNodesRun } from "../helpers/real-nodes.js";
import { killAllNodes, RegtestDaemon } from "../helpers/monero-regtest.js";
import { startCli, VIGIL_CLI, type ChildService } from "../helpers/process.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { installCircleUsdc, type CircleUsdc } from "../helpers/anvil-usdc.js";
import { seedStore, silentLog, tempDir } from "../helpers/app.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const runs = realNodesRun("mixed-mode start against anvil", anvilNeeds);

interface Mixed {
  prepared: Prepared;
  app: App;
  url: string;
  banner: string;
  health: { sources: Record<string, string>; upstreams: Record<string, { available: boolean; height?: number; network?: string }>; paywall: { network: string } };
  close(): Promise<void>;
}

/** What `vigil serve` does with these settings, in process: start the devnet around the given URLs, build the app. */
async function startMixed(env: Record<string, string>): Promise<Mixed> {
  const dataDir = tempDir("vigil-mixed-");
  const parsed = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", DEVNET_BLOCK_SECONDS: "3600", ...env });
  const prepared = await prepareConfig(parsed, { devnet: "start", log: silentLog });
  let db: TestDatabase | undefined;
  let app: App | undefined;
  try {
    db = await openTestDatabase();
    app = await createApp(prepared.config, { log: silentLog, database: db });
    const url = await app.listen();
    const banner = startupBanner({ role: "serve", url, app, notes: prepared.notes, devnetPayers: prepared.devnet?.payers.length });
    const health = (await (await fetch(`${url}/v1/health`)).json()) as Mixed["health"];
    const a = app;
    const d = db;
    return {
      prepared,
      app: a,
      url,
      banner,
      health,
      close: async () => {
        await a.close();
        await d.close();
        await prepared.devnet?.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await app?.close();
    await db?.close();
    await prepared.devnet?.close();
    throw e;
  }
}

/** The banner's line for an upstream label: its source word and URL. */
function bannerLine(banner: string, label: string): string {
  const line = banner.split("\n").find((l) => l.trimStart().startsWith(label));
  if (!line) throw new Error(`no banner line for ${label}:\n${banner}`);
  return line;
}

const ALL = ["payment_chain", "monerod", "zebrad", "lightwalletd", "ethereum", "relays"] as const;
type Upstream = (typeof ALL)[number];

async function jsonRpc<T>(url: string, method: string, params: unknown = []): Promise<T> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  expect(r.status, `${method} at ${url}`).toBe(200);
  const body = (await r.json()) as { result?: T; error?: unknown };
  expect(body.error, `${method} at ${url}`).toBeUndefined();
  return body.result as T;
}

/** The `name=url` entries of a RELAY_URLS setting. */
const relayEntries = (setting: string) => setting.split(",").map((e) => e.trim().split(/=(?=https?:)/) as [string, string]);

/**
 * Each upstream's simulator: its URL in a devnet handle, the setting that points the app at it, and
 * one call of the protocol the app speaks to it, whose answer must be the devnet's own network or
 * names (the constants the simulators are built with, not anything the app says).
 */
const SIMULATORS: Record<Upstream, { label: string; handle(d: DevnetHandle): string | undefined; setting(c: Config): string | undefined; answer(url: string): Promise<unknown>; expected: unknown }> = {
  payment_chain: {
    label: "payment chain",
    handle: (d) => d.evm?.url,
    setting: (c) => c.EVM_RPC_URL,
    answer: async (url) => `eip155:${Number(BigInt(await jsonRpc<string>(url, "eth_chainId")))}`,
    expected: DEVNET_NETWORK,
  },
  monerod: {
    label: "monerod",
    handle: (d) => d.monerod?.url,
    setting: (c) => c.MONERO_DAEMON_URL,
    answer: async (url) => (await jsonRpc<{ nettype: string }>(`${url}/json_rpc`, "get_info", {})).nettype,
    expected: DEVNET_MONERO_NETWORK,
  },
  zebrad: {
    label: "zebrad",
    handle: (d) => d.zebrad?.url,
    setting: (c) => c.ZEBRAD_URL,
    answer: async (url) => (await jsonRpc<{ chain: string }>(url, "getblockchaininfo")).chain,
    // zebrad's name of the devnet's Zcash network.
    expected: ({ mainnet: "main", testnet: "test", regtest: "regtest" } as const)[DEVNET_ZCASH_NETWORK],
  },
  lightwalletd: {
    label: "lightwalletd",
    handle: (d) => d.lightwalletd?.url,
    setting: (c) => c.LIGHTWALLETD_URL,
    answer: async (url) => {
      const l = createLightwalletd({ url, network: DEVNET_ZCASH_NETWORK });
      try {
        return (await l.info()).chainName;
      } finally {
        l.close();
      }
    },
    expected: ({ mainnet: "main", testnet: "test", regtest: "regtest" } as const)[DEVNET_ZCASH_NETWORK],
  },
  ethereum: {
    label: "Ethereum L1",
    handle: (d) => d.ethereum?.url,
    setting: (c) => c.ETH_RPC_URL,
    answer: async (url) => Number(BigInt(await jsonRpc<string>(url, "eth_chainId"))),
    expected: DEVNET_ETH_CHAIN_ID,
  },
  relays: {
    label: "MEV-Boost relays",
    handle: (d) => d.relays?.relayUrls,
    setting: (c) => c.RELAY_URLS,
    // Each relay's data API answers its delivered payloads (a list).
    answer: async (setting) => {
      const answered: string[] = [];
      for (const [name, url] of relayEntries(setting)) {
        const r = await fetch(`${url}/relay/v1/data/bidtraces/proposer_payload_delivered?limit=1`);
        if (r.status === 200 && Array.isArray(await r.json())) answered.push(name);
      }
      return answered;
    },
    expected: [...DEVNET_RELAYS],
  },
};

/** The banner's URL text of a setting (relay names dropped, as the banner prints them). */
const bannerUrls = (k: Upstream, setting: string) => (k === "relays" ? relayEntries(setting).map(([, u]) => u).join(", ") : setting);

/** A simulator at `url` is named in the banner and answers over its URL as the devnet's simulator. */
async function expectSimulatorRuns(k: Upstream, url: string | undefined, banner: string): Promise<void> {
  const sim = SIMULATORS[k];
  expect(url, `${k}: simulator started`).toMatch(/^(?:[a-z-]+=)?https?:\/\/127\.0\.0\.1:\d+/);
  const line = bannerLine(banner, sim.label);
  expect(line, k).toMatch(/\bsimulated\s+http:\/\/127\.0\.0\.1:\d+/);
  expect(line, k).toContain(bannerUrls(k, url!));
  expect(await sim.answer(url!), `${k}: the simulator answers at ${url}`).toEqual(sim.expected);
}

/** Each node /v1/health checks answers, the real one and the simulated ones alike; a simulated one with the devnet's network. */
function expectHealthReachesAll(health: Mixed["health"], replaced: Upstream): void {
  expect(Object.keys(health.upstreams).sort()).toEqual(["ethereum", "monero", "zcash"]);
  for (const [name, u] of Object.entries(health.upstreams)) expect(u.available, `/v1/health upstreams.${name}`).toBe(true);
  if (replaced !== "ethereum") expect(health.upstreams.ethereum!.network).toBe(`eip155:${DEVNET_ETH_CHAIN_ID}`);
  if (replaced !== "monerod") expect(health.upstreams.monero!.network).toBe(DEVNET_MONERO_NETWORK);
}

/** Every upstream but the replaced one still has its simulator: started, the app pointed at it, named in the banner, answering over its URL. */
async function expectOtherSimulatorsRun(m: Mixed, replaced: Upstream): Promise<void> {
  for (const k of ALL.filter((k) => k !== replaced)) {
    const url = SIMULATORS[k].handle(m.prepared.devnet!);
    expect(SIMULATORS[k].setting(m.app.config), `${k}: the app uses the simulator`).toBe(url);
    await expectSimulatorRuns(k, url, m.banner);
  }
  expectHealthReachesAll(m.health, replaced);
}

describe.skipIf(!runs)("a real upstream beside the devnet replaces only its own simulator", () => {
  let other: SimulatedDevnet;
  let l1: AnvilNode;
  let base: AnvilNode;
  let usdc: CircleUsdc;

  beforeAll(async () => {
    // Nodes "outside" the service: another devnet's Zcash simulators and relays, and two anvils.
    other = await startDevnet({ dataDir: tempDir("vigil-other-"), blockSeconds: 0 });
    l1 = await startAnvil({ chainId: 1 });
    base = await startAnvil({ chainId: 84532 });
    const sepolia = USDC["eip155:84532"];
    usdc = await installCircleUsdc(base, { at: sepolia.asset, name: sepolia.name, symbol: "USDC", admin: base.accounts[9]!, owner: base.accounts[8]! });
    await usdc.mint(base.accounts[1]!.address, 1_000_000n);
  }, 120_000);

  afterAll(async () => {
    await other?.close();
    await l1?.close();
    await base?.close();
  });

  const cases: { key: Upstream; env: () => Record<string, string>; label: string; simulator: (p: Prepared) => unknown; uses: (m: Mixed) => Promise<void> }[] = [
    {
      key: "ethereum",
      label: "Ethereum L1",
      env: () => ({ ETH_RPC_URL: l1.url }),
      simulator: (p) => p.devnet!.ethereum,
      uses: async (m) => {
        // The follower's head is anvil's, and so is the chain: read from the node (eth_chainId), not the simulated L1's.
        expect(m.health.upstreams.ethereum!.available).toBe(true);
        expect(m.app.config.ETH_RPC_URL).toBe(l1.url);
        expect(m.health.upstreams.ethereum!.height).toBe(Number(await l1.client.getBlockNumber()));
        const nodeChain = Number(BigInt(await l1.rpc<string>("eth_chainId")));
        expect(nodeChain).not.toBe(DEVNET_ETH_CHAIN_ID);
        expect(m.health.upstreams.ethereum!.network).toBe(`eip155:${nodeChain}`);
      },
    },
    {
      key: "zebrad",
      label: "zebrad",
      env: () => ({ ZEBRAD_URL: other.zebrad!.url }),
      simulator: (p) => p.devnet!.zebrad,
      uses: async (m) => {
        // Its network was read from the node (ZCASH_NETWORK was not given), and its height is the other chain's.
        expect(m.app.config.ZCASH_NETWORK).toBe("testnet");
        expect(m.health.upstreams.zcash).toMatchObject({ available: true, height: other.zcashChain!.tip().height });
      },
    },
    {
      key: "lightwalletd",
      label: "lightwalletd",
      env: () => ({ LIGHTWALLETD_URL: other.lightwalletd!.url }),
      simulator: (p) => p.devnet!.lightwalletd,
      uses: async (m) => {
        expect(m.app.config.LIGHTWALLETD_URL).toBe(other.lightwalletd!.url);
        // The devnet's Zcash receiving wallet lives on its own chain: switched off, and said so.
        expect(m.app.config.COIN_ZEC_ADDRESS).toBeUndefined();
        expect(m.banner).toMatch(/note: coin payments in ZEC: off/);
      },
    },
    {
      key: "relays",
      label: "MEV-Boost relays",
      env: () => ({ RELAY_URLS: other.relays!.relayUrls }),
      simulator: (p) => p.devnet!.relays,
      uses: async (m) => {
        expect(m.app.config.RELAY_URLS).toBe(other.relays!.relayUrls);
      },
    },
    {
      key: "payment_chain",
      label: "payment chain",
      // Gas keys of the operator's own (two, comma-separated): the devnet's (mnemonic index 18) holds nothing on this anvil.
      env: () => ({ EVM_RPC_URL: base.url, FACILITATOR_PRIVATE_KEY: `${base.keys[0]!}, ${base.keys[6]!.slice(2)}` }),
      simulator: (p) => p.devnet!.evm,
      uses: async (m) => {
        // The network comes from the node's chain id; a paid call settles on anvil with Circle's USDC.
        expect(m.health.paywall.network).toBe("eip155:84532");
        expect(m.banner).toMatch(/note: payments settle on the real chain at EVM_RPC_URL \(chain 84532, eip155:84532\)/);
        expect(m.banner).not.toMatch(/holds no ETH/);
        const payTo = m.app.paywall.terms!.payTo as Address;
        const before = { payer: await usdc.balanceOf(base.accounts[1]!.address), payTo: await usdc.balanceOf(payTo) };
        const payer = createPayer(base.keys[1]!, { networks: ["eip155:84532"] });
        const r = await payer.payFetch(`${m.url}/v1/q/zec/height`);
        expect(r.status, await r.clone().text()).toBe(200);
        expect(await usdc.balanceOf(base.accounts[1]!.address)).toBe(before.payer - ORACLE_PRICE_ATOMIC);
        expect(await usdc.balanceOf(payTo)).toBe(before.payTo + ORACLE_PRICE_ATOMIC);
      },
    },
  ];

  for (const c of cases) {
    it(`${c.key}: the given node is used, its simulator is not started, the others run, banner and /v1/health say which`, async () => {
      const m = await startMixed(c.env());
      try {
        expect(m.app.config.devnet).toBe(true);
        expect(c.simulator(m.prepared)).toBeUndefined();
        expect(m.app.config.simulatedUpstreams).not.toContain(c.key);
        for (const k of ALL) expect(m.health.sources[k], k).toBe(k === c.key ? "real" : "simulated");
        expect(bannerLine(m.banner, c.label)).toMatch(/\breal\s+http:\/\/127\.0\.0\.1:\d+/);
        for (const k of ALL.filter((k) => k !== c.key)) expect(m.app.config.simulatedUpstreams).toContain(k);
        expect(m.banner).toMatch(new RegExp(`DEVNET MODE: ${ALL.length - 1} of ${ALL.length} upstreams simulated`));
        await expectOtherSimulatorsRun(m, c.key);
        await c.uses(m);
      } finally {
        await m.close();
      }
    });
  }

  it("says at start-up when the facilitator's gas key holds nothing on the real payment chain", async () => {
    const m = await startMixed({ EVM_RPC_URL: base.url });
    try {
      expect(m.banner).toMatch(/note: the facilitator's gas key \(FACILITATOR_PRIVATE_KEY\) holds no ETH on that chain/);
    } finally {
      await m.close();
    }
    // Of several keys, the one without ETH is named.
    const fresh = generatePrivateKey();
    const several = await startMixed({ EVM_RPC_URL: base.url, FACILITATOR_PRIVATE_KEY: `${base.keys[0]!},${fresh}` });
    try {
      expect(several.banner).toContain(`note: the facilitator's gas key ${privateKeyToAccount(fresh).address} (of FACILITATOR_PRIVATE_KEY) holds no ETH on that chain`);
      expect(several.banner).not.toContain(privateKeyToAccount(base.keys[0]!).address);
    } finally {
      await several.close();
    }
  });

  it("refuses a payment chain x402 does not settle on, naming the chain and the fix", async () => {
    await expect(startMixed({ EVM_RPC_URL: l1.url })).rejects.toThrow(StartupError);
    await expect(startMixed({ EVM_RPC_URL: l1.url })).rejects.toThrow(/runs chain 1; x402 payments here settle on Base \(8453\) or Base Sepolia \(84532\)/);
  });
});

const moneroRuns = realNodesRun("mixed-mode start against a regtest monerod", moneroNeeds);

describe.skipIf(!moneroRuns)("my own monerod, everything else simulated: `vigil serve` with MONERO_DAEMON_URL", () => {
  let daemon: RegtestDaemon;
  let svc: ChildService | undefined;
  const dir = tempDir("vigil-mixed-monerod-");

  beforeAll(async () => {
    daemon = await RegtestDaemon.start();
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await killAllNodes();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("starts on the real node (network read from it, no simulated monerod), keeps the rest simulated, and says which is which", async () => {
    // Before: the devnet switched off, then with DEVNET=on and MONERO_NETWORK=mainnet start-up refused the
    // devnet's testnet coin wallet, and the banner called the real node "monerod (simulated)".
    const stateFile = path.join(dir, "state.json");
    svc = await startCli(["serve"], { DATA_DIR: seedStore(dir), PORT: "0", DEVNET_STATE_FILE: stateFile, MONERO_DAEMON_URL: daemon.vigilUrl }, { timeoutMs: 120_000 });
    const out = svc.output();
    expect(out).toMatch(new RegExp(`monerod \\(mainnet\\)\\s+real\\s+${daemon.vigilUrl.replace(/[.]/g, "\\.")}`));
    expect(out).toMatch(/note: monerod runs a regtest chain \(nettype fakechain\): mainnet-format addresses/);
    expect(out).toMatch(/note: coin payments in XMR: off/);
    expect(out).toMatch(/zebrad \(Zcash testnet\)\s+simulated/);
    expect(out).toMatch(/payment chain \(x402 eip155:84532\)\s+simulated/);
    const health = (await (await fetch(`${svc.url}/v1/health`)).json()) as Mixed["health"] & { devnet: boolean };
    expect(health.devnet).toBe(true);
    expect(health.sources).toEqual({ payment_chain: "simulated", monerod: "real", zebrad: "simulated", lightwalletd: "simulated", ethereum: "simulated", relays: "simulated" });
    // The height is the regtest node's own (its newest block).
    expect(health.upstreams.monero).toMatchObject({ available: true, height: await daemon.tip(), network: (await daemon.info()).nettype });
    // No simulated monerod was started: the devnet it recorded has none, and lists no Monero wallets.
    const published = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { moneroUrl?: string; evmUrl?: string; configOverlay: Config };
    expect(published.moneroUrl).toBeUndefined();
    expect(published.evmUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(published.configOverlay.MONERO_DAEMON_URL).toBe(daemon.vigilUrl);
    // The other simulators run: the service's devnet recorded them, the banner names them, and each answers over its URL.
    expect(published.configOverlay.simulatedUpstreams).toEqual(expect.arrayContaining(ALL.filter((k) => k !== "monerod")));
    expect(published.configOverlay.simulatedUpstreams).not.toContain("monerod");
    for (const k of ALL.filter((k) => k !== "monerod")) await expectSimulatorRuns(k, SIMULATORS[k].setting(published.configOverlay), out);
    expectHealthReachesAll(health, "monerod");
    const wallets = spawnSync(process.execPath, [...VIGIL_CLI, "devnet", "wallets", "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: dir, DEVNET_STATE_FILE: stateFile },
      encoding: "utf8",
    });
    expect(wallets.status, wallets.stderr).toBe(0);
    expect((JSON.parse(wallets.stdout) as { chain: string }[]).filter((w) => w.chain === "monero")).toEqual([]);
  });
});
