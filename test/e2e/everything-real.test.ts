/**
 * Production shape, "everything real": `vigil serve` with DEVNET=off and
 * every upstream given by URL. The banner and /v1/health must name every
 * upstream `real`, and the service must start no simulator of its own.
 *
 * The nodes are real where one installs offline: Debian's monerod on a
 * regtest chain (test/helpers/monero-regtest.ts), anvil as the Ethereum L1
 * (chain 1) and as the payment chain (Base Sepolia, 84532, with Circle's
 * USDC at its address). Where no real node exists here (zebrad, lightwalletd,
 * MEV-Boost relays) the stand-ins are simulators of a devnet this test starts
 * on loopback, in the test's process: the service cannot tell them from
 * remote nodes, and they are not the service's.
 *
 * "No simulator started by the service" is read from the outside: the
 * process listens on one TCP port, its API's (a devnet's simulators listen on
 * loopback ports of the process that starts them); it records no devnet
 * (no state file, no devnet folder in DATA_DIR).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type DevnetHandle } from "../../devnet/index.js";
import { USDC } from "../../src/x402/networks.js";
import { createPayer } from "../../src/x402/payer.js";
import { ORACLE_PRICE_ATOMIC } from "../../src/oracle/registry.js";
import { anvilNeeds, moneroNeeds, realNodesRun } from "../helpers/real-nodes.js";
import { killAllNodes, RegtestDaemon } from "../helpers/monero-regtest.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { installCircleUsdc, installMulticall3, type CircleUsdc } from "../helpers/anvil-usdc.js";
import { tempDir } from "../helpers/app.js";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";

const runs = realNodesRun("everything real: vigil serve on real nodes, no devnet", [...moneroNeeds, ...anvilNeeds]);

const SEPOLIA = USDC["eip155:84532"];

interface Health {
  devnet: boolean;
  sources: Record<string, string>;
  paywall: { configured: boolean; facilitator_mode: string; network: string };
  upstreams: Record<string, { available: boolean; height?: number; network?: string }>;
}

/** The TCP ports a process listens on: its socket inodes (/proc/<pid>/fd) matched to the kernel's LISTEN entries. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed between the listing and the read.
    }
  }
  const ports = new Set<number>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode: state 0A is LISTEN.
      if (f.length > 9 && f[3] === "0A" && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(":")[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The banner's line for an upstream label. */
function bannerLine(banner: string, label: string): string {
  const line = banner.split("\n").find((l) => l.trimStart().startsWith(label));
  if (!line) throw new Error(`no banner line for ${label}:\n${banner}`);
  return line;
}

describe.skipIf(!runs)("everything real: DEVNET=off, every upstream given by URL", () => {
  let daemon: RegtestDaemon;
  let l1: AnvilNode;
  let base: AnvilNode;
  let usdc: CircleUsdc;
  let standIn: DevnetHandle;
  let db: TestDatabase | undefined;
  let svc: ChildService | undefined;
  const dataDir = tempDir("vigil-everything-real-");
  const standInDir = tempDir("vigil-stand-in-");
  const stateFile = path.join(tempDir("vigil-everything-real-state-"), "devnet.json");

  beforeAll(async () => {
    daemon = await RegtestDaemon.start();
    l1 = await startAnvil({ chainId: 1 });
    base = await startAnvil({ chainId: SEPOLIA.chainId });
    usdc = await installCircleUsdc(base, { at: SEPOLIA.asset, name: SEPOLIA.name, symbol: "USDC", admin: base.accounts[9]!, owner: base.accounts[8]! });
    await installMulticall3(base, base.accounts[8]!);
    await usdc.mint(base.accounts[1]!.address, 1_000_000n);
    // The stand-ins for the nodes with nothing real to install: this test's devnet, told the real nodes so it starts none of their simulators.
    standIn = await startDevnet({ dataDir: standInDir, blockSeconds: 0, zcashInitialBlocks: 20, moneroDaemonUrl: daemon.vigilUrl, evmRpcUrl: base.url, ethRpcUrl: l1.url });
    if (usingPostgres) db = await openTestDatabase();
  }, 180_000);

  afterAll(async () => {
    await svc?.stop();
    await standIn?.close();
    await l1?.close();
    await base?.close();
    await killAllNodes();
    await db?.close();
    for (const d of [dataDir, standInDir, path.dirname(stateFile)]) fs.rmSync(d, { recursive: true, force: true });
  });

  it("vigil serve names every upstream real in its banner and /v1/health, starts no simulator, and answers from the real nodes", async () => {
    const payTo = base.accounts[6]!.address;
    const upstreams = {
      MONERO_DAEMON_URL: daemon.vigilUrl,
      ZEBRAD_URL: standIn.zebrad!.url,
      LIGHTWALLETD_URL: standIn.lightwalletd!.url,
      ETH_RPC_URL: l1.url,
      RELAY_URLS: standIn.relays!.relayUrls,
      EVM_RPC_URL: base.url,
    };
    svc = await startCli(
      ["serve"],
      {
        DEVNET: "off",
        DATA_DIR: dataDir,
        PORT: "0",
        DEVNET_STATE_FILE: stateFile,
        ...(db?.env ?? {}),
        MASTER_KEY: randomBytes(32).toString("hex"),
        ...upstreams,
        FACILITATOR_MODE: "local",
        FACILITATOR_PRIVATE_KEY: base.keys[7]!,
        X402_NETWORK: "eip155:84532",
        PAY_TO: payTo,
      },
      { timeoutMs: 120_000 },
    );
    const banner = svc.output();
    const port = Number(new URL(svc.url!).port);

    // The banner: no devnet, and each upstream real at the URL it was given (the networks read from the nodes).
    expect(banner).not.toMatch(/DEVNET|simulated/);
    expect(banner).toMatch(/^ {2}upstreams$/m);
    expect(banner).toContain(usingPostgres ? "storage   PostgreSQL (DATABASE_URL)" : `storage   PGlite (embedded) in ${dataDir}/pglite`);
    expect(banner).toContain(`payments  x402 exact, USDC on eip155:84532, payTo ${payTo}`);
    const relayUrls = upstreams.RELAY_URLS.split(",").map((e) => e.replace(/^[A-Za-z0-9._-]+=/, "")).join(", ");
    const lines: [string, string][] = [
      ["payment chain (x402 eip155:84532)", base.url],
      ["monerod (mainnet)", daemon.vigilUrl],
      ["zebrad (Zcash testnet)", upstreams.ZEBRAD_URL],
      ["lightwalletd (Zcash, gRPC)", upstreams.LIGHTWALLETD_URL],
      ["Ethereum L1", l1.url],
      ["MEV-Boost relays", relayUrls],
    ];
    for (const [label, url] of lines) expect(bannerLine(banner, label), label).toMatch(new RegExp(`^ {4}${label.replace(/[()]/g, "\\$&")}\\s+real\\s+${url.replace(/[.()]/g, "\\$&")}$`));
    expect(banner).toMatch(/note: monerod runs a regtest chain \(nettype fakechain\): mainnet-format addresses/);

    // /v1/health: the same sources, each node reached, each network the node's own.
    const health = (await (await fetch(`${svc.url}/v1/health`)).json()) as Health;
    expect(health.devnet).toBe(false);
    expect(health.sources).toEqual({ payment_chain: "real", monerod: "real", zebrad: "real", lightwalletd: "real", ethereum: "real", relays: "real" });
    expect(health.paywall).toEqual({ configured: true, facilitator_mode: "local", network: `eip155:${Number(BigInt(await base.rpc<string>("eth_chainId")))}` });
    const info = await daemon.info();
    expect(health.upstreams.monero).toMatchObject({ available: true, height: info.height - 1, network: info.nettype });
    expect(health.upstreams.ethereum).toMatchObject({ available: true, height: Number(await l1.client.getBlockNumber()), network: `eip155:${Number(BigInt(await l1.rpc<string>("eth_chainId")))}` });
    expect(health.upstreams.zcash).toMatchObject({ available: true, height: standIn.zcashChain!.tip().height, network: "testnet" });

    // No simulator of the service's own: it listens on its API port alone, and records no devnet.
    expect(listeningPorts(svc.proc.pid!)).toEqual([port]);
    expect(fs.existsSync(stateFile)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, "devnet"))).toBe(false);

    // A paid call settles on the real payment chain, and its answer is the real monerod's.
    const payer = createPayer(base.keys[1]!, { networks: ["eip155:84532"] });
    const before = { payer: await usdc.balanceOf(payer.address), payTo: await usdc.balanceOf(payTo) };
    const r = await payer.payFetch(`${svc.url}/v1/q/xmr/height`);
    expect(r.status, await r.clone().text()).toBe(200);
    const tip = await daemon.info();
    expect(await r.json()).toMatchObject({ height: tip.height - 1, top_block_hash: tip.top_block_hash });
    expect(await usdc.balanceOf(payer.address)).toBe(before.payer - ORACLE_PRICE_ATOMIC);
    expect(await usdc.balanceOf(payTo)).toBe(before.payTo + ORACLE_PRICE_ATOMIC);
  });
});
