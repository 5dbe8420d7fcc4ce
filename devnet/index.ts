/**
 * The built-in devnet: simulated upstreams on loopback (an EVM chain with
 * USDC for x402 and an x402 facilitator settling on it, a Monero daemon, an
 * Ethereum L1, a zebrad and a lightwalletd serving one Zcash chain), plus the
 * secrets a local service needs
 * (pay-to address, facilitator gas key, master key), generated once under
 * DATA_DIR/devnet. Production code reaches this only through the CLI, which
 * applies `configOverlay` to the parsed config before building the app: the
 * app sees ordinary settings (upstream URLs, keys, networks) and never asks
 * whether they point at a devnet.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { mnemonicToAccount } from "viem/accounts";
import { bytesToHex } from "viem";
import type { Config, ConfigOverlay, SimulatedUpstream } from "../src/config.js";
import { DEVNET_MNEMONIC, DEVNET_NETWORK, startDevnetEvm } from "./evm.js";
import { DEVNET_MONERO_NETWORK, startDevnetMonerod } from "./monerod.js";
import { deriveDevnetWallets, loadOrCreateSeed, type DevnetMoneroWallet } from "./monerod-wallets.js";
import { startDevnetPrices, type DevnetPrices } from "./prices.js";
import { startDevnetEthereum, type DevnetEthereum } from "./ethereum.js";
import { DEVNET_ZCASH_NETWORK, startDevnetZebrad, type DevnetZebrad } from "./zebrad.js";
import { startDevnetLightwalletd, type DevnetLightwalletd } from "./lightwalletd.js";
import { DevnetZcashChain } from "./zcash-chain.js";
import { deriveDevnetZcashWallets, type DevnetZcashWallet } from "./zcash-wallets.js";
import { systemClock } from "../src/core/clock.js";
import type { ZcashNetwork } from "../src/chains/zcash/network.js";
import { startDevnetRelays, type DevnetRelays } from "./relays.js";
import { startDevnetPrivateBuilders, type DevnetPrivateBuilders } from "./private-builders.js";
import { DEVNET_RISK_LIST } from "./ethereum-activity.js";
import { deployDevnetPuzzles } from "./puzzles.js";
import { startDevnetFacilitator, type DevnetFacilitator } from "./facilitator.js";

export { DEVNET_MNEMONIC };

export interface DevnetWallet {
  chain: string;
  network: string;
  address: string;
  viewKey?: string;
  privateKey?: string;
  label?: string;
  [k: string]: unknown;
}

/**
 * Set only while the devnet simulates the chain they belong to: the service's receiving wallets
 * are devnet wallets, and the payment settings of a replaced payment chain are the CLI's to decide.
 */
type SimulatorOnlyKeys = "COIN_ZEC_ADDRESS" | "COIN_ZEC_VIEW_KEY" | "COIN_XMR_ADDRESS" | "COIN_XMR_VIEW_KEY" | "EVM_RPC_URL" | "X402_NETWORK" | "MONERO_NETWORK" | "FACILITATOR_URL";

export interface DevnetHandle {
  /** The simulated payment chain; absent when a real EVM_RPC_URL replaces it. */
  evmUrl: string | undefined;
  /** The simulated monerod; absent when a real MONERO_DAEMON_URL replaces it. */
  moneroUrl: string | undefined;
  /** The simulated x402 facilitator (FACILITATOR_URL of a service in `http` mode); absent with a real EVM_RPC_URL. */
  facilitatorUrl: string | undefined;
  /** Address paid by x402 calls to the devnet service (mnemonic index 19; not one of the funded payers). */
  payTo: `0x${string}`;
  /** Gas key of the local facilitator and of the facilitator simulator (mnemonic index 18). */
  facilitatorKey: `0x${string}`;
  masterKey: string;
  /** Funded x402 payers (USDC) and ready-to-watch coin wallets. */
  payers: { address: string; privateKey: `0x${string}`; usdcAtomic: string }[];
  wallets: DevnetWallet[];
  /** The service's own receiving wallet for coin payments (COIN_XMR_ADDRESS / COIN_XMR_VIEW_KEY); absent with a real monerod. */
  serviceWallet: DevnetMoneroWallet | undefined;
  /** The service's own Zcash receiving wallet (COIN_ZEC_ADDRESS / COIN_ZEC_VIEW_KEY); absent when both Zcash simulators are replaced. */
  zcashServiceWallet: DevnetZcashWallet | undefined;
  stateFile: string;
  /** The settings that point the app at this devnet; they win over the parsed ones. */
  configOverlay: Required<Omit<ConfigOverlay, SimulatorOnlyKeys>> & Pick<ConfigOverlay, SimulatorOnlyKeys>;
  /** Test hooks into the simulated chains (absent where a real node replaces them). */
  evm: DevnetEvm | undefined;
  monerod: DevnetMonerod | undefined;
  /** The x402 facilitator settling on the simulated chain; absent with a real EVM_RPC_URL. */
  facilitator: DevnetFacilitator | undefined;
  /** The simulated USD price providers. */
  prices: DevnetPrices;
  /** The simulated Ethereum L1; absent when a real ETH_RPC_URL replaces it. */
  ethereum: DevnetEthereum | undefined;
  /** The simulated zebrad (Zcash chain facts); absent when a real ZEBRAD_URL replaces it. */
  zebrad: DevnetZebrad | undefined;
  /** The simulated lightwalletd (compact blocks of the same chain); absent when a real LIGHTWALLETD_URL replaces it. */
  lightwalletd: DevnetLightwalletd | undefined;
  /** The devnet's Zcash chain (served by both simulators); absent when both are replaced. */
  zcashChain: DevnetZcashChain | undefined;
  /** The ready-made Zcash wallets (mnemonic, UFVK, unified address), derived on first use. */
  zcashWallets(): DevnetZcashWallet[];
  /** The simulated MEV-Boost relays; absent when a real RELAY_URLS replaces them. */
  relays: DevnetRelays | undefined;
  /** The simulated private builder endpoints the private relay fans out to. */
  privateBuilders: DevnetPrivateBuilders;
  close(): Promise<void>;
}

export type DevnetEvm = Awaited<ReturnType<typeof startDevnetEvm>>;
export type DevnetMonerod = Awaited<ReturnType<typeof startDevnetMonerod>>;

/** A devnet that simulates the payment chain and monerod too (what tests and benchmarks start). */
export type SimulatedDevnet = DevnetHandle & {
  evmUrl: string;
  moneroUrl: string;
  facilitatorUrl: string;
  evm: DevnetEvm;
  monerod: DevnetMonerod;
  facilitator: DevnetFacilitator;
  serviceWallet: DevnetMoneroWallet;
  configOverlay: DevnetHandle["configOverlay"] & Required<Pick<ConfigOverlay, "EVM_RPC_URL" | "X402_NETWORK" | "FACILITATOR_URL" | "COIN_XMR_ADDRESS" | "COIN_XMR_VIEW_KEY" | "MONERO_NETWORK">>;
};

export interface DevnetOptions {
  dataDir: string;
  host?: string;
  blockSeconds: number;
  log?: Logger;
  /** A configured MONERO_DAEMON_URL: it replaces only the monerod simulator (no devnet Monero wallets, no devnet coin wallet). */
  moneroDaemonUrl?: string;
  /** A configured EVM_RPC_URL: it replaces only the payment-chain simulator (payments settle there; no funded devnet payers). */
  evmRpcUrl?: string;
  /** A configured ETH_RPC_URL: it replaces only the Ethereum simulator (payments stay on the devnet). */
  ethRpcUrl?: string;
  /** A configured ZEBRAD_URL: it replaces only the zebrad simulator, on the configured ZCASH_NETWORK. */
  zebradUrl?: string;
  /** A configured LIGHTWALLETD_URL: it replaces only the lightwalletd simulator. */
  lightwalletdUrl?: string;
  zcashNetwork?: ZcashNetwork;
  /** First block of the simulated monerod's fork v17 (FCMP++/Carrot); absent: no fork (DEVNET_MONERO_CARROT_HEIGHT). */
  moneroCarrotHeight?: number;
  /** Blocks of Zcash history built at start (default 100; 10 or fewer leave the tip before NU6.3, so Orchard notes can still be paid). */
  zcashInitialBlocks?: number;
  /** A configured RELAY_URLS (and its BUILDER_PUBKEYS): it replaces only the relay simulators. */
  relayUrls?: string;
  builderPubkeys?: string;
  /**
   * The shared state file (devnetStateFile): when set and no live devnet is recorded there, this
   * devnet records itself in it, so other processes (`vigil api`, `vigil worker`, the helpers) join it.
   */
  publishTo?: string;
}

/** The devnet options that let each upstream URL given in the settings replace its own simulator. */
export function devnetOptions(parsed: Config, extra: Partial<DevnetOptions> = {}): DevnetOptions {
  return {
    dataDir: parsed.dataDir,
    blockSeconds: parsed.DEVNET_BLOCK_SECONDS,
    ...(parsed.DEVNET_MONERO_CARROT_HEIGHT !== undefined ? { moneroCarrotHeight: parsed.DEVNET_MONERO_CARROT_HEIGHT } : {}),
    moneroDaemonUrl: parsed.MONERO_DAEMON_URL,
    evmRpcUrl: parsed.EVM_RPC_URL,
    ethRpcUrl: parsed.ETH_RPC_URL,
    zebradUrl: parsed.ZEBRAD_URL,
    lightwalletdUrl: parsed.LIGHTWALLETD_URL,
    zcashNetwork: parsed.ZCASH_NETWORK,
    relayUrls: parsed.RELAY_URLS,
    builderPubkeys: parsed.BUILDER_PUBKEYS,
    ...extra,
  };
}

function keyAt(index: number): `0x${string}` {
  const acct = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });
  return bytesToHex(acct.getHdKey().privateKey!);
}

/** The facilitator's gas key: mnemonic index 18, not one of the funded payers. */
const facilitatorKey = () => keyAt(18);
/** The service's batch-settlement receiver-authorizer key: mnemonic index 17, not a payer nor a gas key. */
const receiverAuthorizerKey = () => keyAt(17);

/** Private key of a funded devnet payer (mnemonic index 0..9); `vigil pay` uses the first by default. */
export function devnetPayerKey(index = 0): `0x${string}` {
  return keyAt(index);
}

/** A 32-byte hex secret stored under the devnet folder, created on first use. */
function persistentSecret(dir: string, name: string): string {
  const file = path.join(dir, name);
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const v = randomBytes(32).toString("hex");
  fs.writeFileSync(file, `${v}\n`, { mode: 0o600 });
  return v;
}

/** The simulators a devnet runs; each absent where a configured upstream replaces it. */
interface Simulators {
  evm: DevnetEvm | undefined;
  facilitator: DevnetFacilitator | undefined;
  monerod: DevnetMonerod | undefined;
  prices: DevnetPrices;
  ethereum: DevnetEthereum | undefined;
  zcashChain: DevnetZcashChain | undefined;
  zebrad: DevnetZebrad | undefined;
  lightwalletd: DevnetLightwalletd | undefined;
  relays: DevnetRelays | undefined;
  privateBuilders: DevnetPrivateBuilders;
}

/** What the devnet generates for the service: where it is paid, the facilitator's gas key, the master key, its own coin wallets. */
interface ServiceSecrets {
  payTo: `0x${string}`;
  facilitatorKey: `0x${string}`;
  receiverAuthorizerKey: `0x${string}`;
  masterKey: string;
  serviceWallet: DevnetMoneroWallet | undefined;
  zcashServiceWallet: DevnetZcashWallet | undefined;
}

/** The lists the devnet writes for the service to read: the risk list and the puzzle watchlist. */
interface DevnetLists {
  riskListFile: string;
  watchlistFile: string;
}

/**
 * Starts the simulators of every upstream not given in `opts` (a given URL
 * replaces only its own simulator, and that simulator is not started).
 */
export async function startDevnet(opts: DevnetOptions & { moneroDaemonUrl?: undefined; evmRpcUrl?: undefined }): Promise<SimulatedDevnet>;
export async function startDevnet(opts: DevnetOptions): Promise<DevnetHandle>;
export async function startDevnet(opts: DevnetOptions): Promise<DevnetHandle> {
  const dir = path.join(opts.dataDir, "devnet");
  fs.mkdirSync(dir, { recursive: true });
  const { sims, walletSeed } = await startSimulators(opts);
  const lists = writeDevnetLists(dir, sims.ethereum);
  const secrets = serviceSecrets(dir, walletSeed, sims, opts);
  const stateFile = path.join(dir, "devnet.json");
  /** The state files this devnet records itself in; close() removes those still naming this process. */
  const records = [stateFile];
  const handle: DevnetHandle = {
    evmUrl: sims.evm?.url,
    moneroUrl: sims.monerod?.url,
    facilitatorUrl: sims.facilitator?.url,
    payTo: secrets.payTo,
    facilitatorKey: secrets.facilitatorKey,
    masterKey: secrets.masterKey,
    payers: (sims.evm?.accounts ?? []).map((a) => ({
      address: a.address,
      privateKey: a.privateKey as `0x${string}`,
      usdcAtomic: sims.evm!.usdcBalanceOf(a.address).toString(),
    })),
    wallets: (sims.monerod?.wallets ?? []).map((w) => ({ ...w })),
    serviceWallet: secrets.serviceWallet,
    zcashServiceWallet: secrets.zcashServiceWallet,
    stateFile,
    configOverlay: devnetOverlay(opts, sims, secrets, lists),
    ...sims,
    zcashWallets: lazyZcashWallets(sims.zebrad, walletSeed),
    close: () => closeDevnet(sims, records),
  };
  recordDevnet(handle, opts, records);
  return handle;
}

/** Starts the simulators in order (the Zcash chain opened and mining before its two servers) and reads the wallets' seed. */
async function startSimulators(opts: DevnetOptions): Promise<{ sims: Simulators; walletSeed: string }> {
  const host = opts.host ?? "127.0.0.1";
  const evm = opts.evmRpcUrl ? undefined : await startDevnetEvm({ host, port: 0 });
  // The facilitator a service in `http` mode calls: it settles on the simulated chain only.
  const facilitator = evm ? await startDevnetFacilitator({ host, rpcUrl: evm.url, privateKey: facilitatorKey(), log: opts.log }) : undefined;
  const monerod = opts.moneroDaemonUrl
    ? undefined
    : await startDevnetMonerod({
        host,
        port: 0,
        dataDir: opts.dataDir,
        blockSeconds: opts.blockSeconds,
        log: opts.log,
        ...(opts.moneroCarrotHeight !== undefined ? { carrotForkHeight: opts.moneroCarrotHeight } : {}),
      });
  const prices = await startDevnetPrices({ host });
  const walletSeed = loadOrCreateSeed(opts.dataDir).seed;
  const ethereum = opts.ethRpcUrl ? undefined : await startDevnetEthereum({ host });
  // One Zcash chain for both simulators, so chain facts and compact blocks agree; it mines on its own timer.
  const zcashChain = opts.zebradUrl && opts.lightwalletdUrl ? undefined : new DevnetZcashChain(systemClock, opts.blockSeconds);
  zcashChain?.open(opts.zcashInitialBlocks ?? 100);
  zcashChain?.startTimer((e) => opts.log?.error({ err: e }, "devnet Zcash chain could not mine a block"));
  const zebrad = opts.zebradUrl ? undefined : await startDevnetZebrad({ host, blockSeconds: opts.blockSeconds, log: opts.log, chain: zcashChain, walletSeed });
  const lightwalletd = opts.lightwalletdUrl ? undefined : await startDevnetLightwalletd({ host, chain: zcashChain!, log: opts.log });
  // The relays report the MEV-Boost blocks of the devnet's L1 (a real ETH_RPC_URL: made-up blocks).
  const relays = opts.relayUrls ? undefined : await startDevnetRelays({ host, chain: ethereum?.mevBoost });
  const privateBuilders = await startDevnetPrivateBuilders({ host });
  return { sims: { evm, facilitator, monerod, prices, ethereum, zcashChain, zebrad, lightwalletd, relays, privateBuilders }, walletSeed };
}

/** The risk list that flags the devnet L1's risky spenders and token, and the puzzle contracts deployed on it with the watchlist naming them (empty with a real node). */
function writeDevnetLists(dir: string, ethereum: DevnetEthereum | undefined): DevnetLists {
  const riskListFile = path.join(dir, "risk-list.json");
  fs.writeFileSync(riskListFile, JSON.stringify(DEVNET_RISK_LIST, null, 2));
  const watchlistFile = path.join(dir, "puzzle-watchlist.json");
  fs.writeFileSync(watchlistFile, JSON.stringify(ethereum ? deployDevnetPuzzles(ethereum.accounts) : [], null, 2));
  return { riskListFile, watchlistFile };
}

function serviceSecrets(dir: string, walletSeed: string, sims: Simulators, opts: DevnetOptions): ServiceSecrets {
  // The service wallet comes from its own seed, derived from the wallets' seed: not one of the ready wallets.
  const serviceSeed = createHash("sha256").update(`${walletSeed}:vigil-service-wallet`).digest("hex");
  return {
    payTo: mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 19 }).address,
    facilitatorKey: facilitatorKey(),
    receiverAuthorizerKey: receiverAuthorizerKey(),
    masterKey: persistentSecret(dir, "master.key"),
    // A devnet wallet receives coin payments only on the devnet's own chain: on a real node nobody could pay it.
    serviceWallet: sims.monerod ? { ...deriveDevnetWallets(serviceSeed, DEVNET_MONERO_NETWORK)[0]!, label: "service" } : undefined,
    // The Zcash receiving wallet: wallet 0 of the same service seed, on the devnet's Zcash network (both Zcash simulators running).
    zcashServiceWallet: opts.zebradUrl || opts.lightwalletdUrl ? undefined : deriveDevnetZcashWallets(serviceSeed, DEVNET_ZCASH_NETWORK, ["service"])[0]!,
  };
}

/** The upstreams the devnet simulates, for the banner and /v1/health. */
function simulatedUpstreams(sims: Simulators): SimulatedUpstream[] {
  return [
    ...(sims.monerod ? (["monerod"] as const) : []),
    ...(sims.zebrad ? (["zebrad"] as const) : []),
    ...(sims.lightwalletd ? (["lightwalletd"] as const) : []),
    ...(sims.ethereum ? (["ethereum"] as const) : []),
    ...(sims.relays ? (["relays"] as const) : []),
    ...(sims.evm ? (["payment_chain"] as const) : []),
    "prices",
    "private_builders",
  ];
}

/** The settings that point the app at the simulators (a given upstream URL stays as given). */
function devnetOverlay(opts: DevnetOptions, sims: Simulators, secrets: ServiceSecrets, lists: DevnetLists): DevnetHandle["configOverlay"] {
  const { evm, monerod, ethereum, zebrad, lightwalletd, relays } = sims;
  const { serviceWallet, zcashServiceWallet } = secrets;
  return {
    devnet: true,
    simulatedUpstreams: simulatedUpstreams(sims),
    MONERO_DAEMON_URL: opts.moneroDaemonUrl ?? monerod!.url,
    // With a real monerod the CLI reads its network from the node (src/node-networks.ts).
    ...(monerod ? { MONERO_NETWORK: DEVNET_MONERO_NETWORK } : {}),
    ETH_RPC_URL: opts.ethRpcUrl ?? ethereum!.url,
    ZEBRAD_URL: opts.zebradUrl ?? zebrad!.url,
    LIGHTWALLETD_URL: opts.lightwalletdUrl ?? lightwalletd!.url,
    ZCASH_NETWORK: zebrad ? DEVNET_ZCASH_NETWORK : (opts.zcashNetwork ?? DEVNET_ZCASH_NETWORK),
    RELAY_URLS: opts.relayUrls ?? relays!.relayUrls,
    BUILDER_PUBKEYS: relays ? relays.builderPubkeys : (opts.builderPubkeys ?? ""),
    PRIVATE_RELAY_BUILDERS: sims.privateBuilders.setting,
    RISK_LISTS: lists.riskListFile,
    PUZZLE_WATCHLIST: lists.watchlistFile,
    // The devnet settles on its own chain, in the service (local, the default) or at its facilitator
    // (a given FACILITATOR_MODE=http: config.ts); with a real EVM_RPC_URL the local facilitator settles
    // there, and these fill only what was not given.
    FACILITATOR_MODE: "local",
    ...(evm ? { EVM_RPC_URL: evm.url, X402_NETWORK: DEVNET_NETWORK } : {}),
    ...(sims.facilitator ? { FACILITATOR_URL: sims.facilitator.url } : {}),
    FACILITATOR_PRIVATE_KEY: secrets.facilitatorKey,
    PAY_TO: secrets.payTo,
    BATCH_RECEIVER_AUTHORIZER_KEY: secrets.receiverAuthorizerKey,
    MASTER_KEY: secrets.masterKey,
    ...(serviceWallet ? { COIN_XMR_ADDRESS: serviceWallet.address, COIN_XMR_VIEW_KEY: serviceWallet.viewKey } : {}),
    ...(zcashServiceWallet ? { COIN_ZEC_ADDRESS: zcashServiceWallet.address, COIN_ZEC_VIEW_KEY: zcashServiceWallet.ufvk } : {}),
    PRICE_SOURCES: sims.prices.sources,
  };
}

/** The ready-made Zcash wallets, derived on first use (from the zebrad simulator, else from the seed). */
function lazyZcashWallets(zebrad: DevnetZebrad | undefined, walletSeed: string): () => DevnetZcashWallet[] {
  let zcashWallets: DevnetZcashWallet[] | undefined;
  return () => (zcashWallets ??= zebrad ? zebrad.wallets() : deriveDevnetZcashWallets(walletSeed));
}

/** Stops every simulator and removes the state files that still name this process. */
async function closeDevnet(sims: Simulators, records: readonly string[]): Promise<void> {
  sims.zcashChain?.stopTimer();
  await Promise.allSettled([
    ...(sims.evm ? [sims.evm.close()] : []),
    ...(sims.facilitator ? [sims.facilitator.close()] : []),
    ...(sims.monerod ? [sims.monerod.close()] : []),
    sims.prices.close(),
    ...(sims.ethereum ? [sims.ethereum.close()] : []),
    ...(sims.zebrad ? [sims.zebrad.close()] : []),
    ...(sims.lightwalletd ? [sims.lightwalletd.close()] : []),
    ...(sims.relays ? [sims.relays.close()] : []),
    sims.privateBuilders.close(),
  ]);
  for (const file of records) {
    try {
      const cur = JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number };
      if (cur.pid === process.pid) fs.unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

/**
 * Records the devnet in DATA_DIR/devnet/devnet.json (the CLI's `vigil devnet send …` finds it there) and,
 * when asked and no live devnet is recorded there, in the shared state file; adds that file to `records`.
 */
function recordDevnet(handle: DevnetHandle, opts: DevnetOptions, records: string[]): void {
  const { evm, facilitator, monerod, zebrad, lightwalletd } = handle;
  fs.writeFileSync(
    handle.stateFile,
    JSON.stringify(
      { pid: process.pid, evmUrl: evm?.url, ...(facilitator ? { facilitatorUrl: facilitator.url } : {}), moneroUrl: monerod?.url, ...(zebrad ? { zebradUrl: zebrad.url } : {}), ...(lightwalletd ? { lightwalletdUrl: lightwalletd.url } : {}), payTo: handle.payTo, startedAt: new Date().toISOString() },
      null,
      2,
    ),
  );
  if (opts.publishTo && !readPublishedDevnet(opts.publishTo)) {
    publishDevnet(opts.publishTo, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      dataDir: path.resolve(opts.dataDir),
      ...(evm ? { evmUrl: evm.url } : {}),
      ...(facilitator ? { facilitatorUrl: facilitator.url } : {}),
      ...(monerod ? { moneroUrl: monerod.url } : {}),
      ...(zebrad ? { zebradUrl: zebrad.url } : {}),
      payers: handle.payers.length,
      configOverlay: handle.configOverlay,
    });
    records.push(opts.publishTo);
  }
}

/**
 * What a running devnet records in the shared state file: enough for another
 * process to point its config at it (the overlay carries the devnet's
 * generated master key, so the API and the worker read the same secrets).
 */
export interface PublishedDevnet {
  pid: number;
  startedAt: string;
  dataDir: string;
  /** The simulated payment chain, its x402 facilitator and monerod; absent when real nodes replaced them. */
  evmUrl?: string;
  facilitatorUrl?: string;
  moneroUrl?: string;
  /** The zebrad simulator (the Zcash devnet controls); absent when a real ZEBRAD_URL replaced it. */
  zebradUrl?: string;
  /** Funded x402 payers (for the banner). */
  payers: number;
  configOverlay: DevnetHandle["configOverlay"];
}

/**
 * The shared state file: DEVNET_STATE_FILE, else vigil-devnet-<uid>.json in
 * $XDG_RUNTIME_DIR or the OS temp dir. Found from any working directory and
 * any DATA_DIR; one per user.
 */
export function devnetStateFile(cfg: { DEVNET_STATE_FILE?: string | undefined; XDG_RUNTIME_DIR?: string | undefined }): string {
  if (cfg.DEVNET_STATE_FILE) return path.resolve(cfg.DEVNET_STATE_FILE);
  const uid = typeof process.getuid === "function" ? String(process.getuid()) : os.userInfo().username;
  return path.join(cfg.XDG_RUNTIME_DIR ?? os.tmpdir(), `vigil-devnet-${uid}.json`);
}

function publishDevnet(file: string, state: PublishedDevnet): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // A stale file (its devnet is gone) is replaced; 0600: it holds the devnet's generated keys.
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600, flag: "wx" });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The devnet recorded in the shared state file, or null when there is none,
 * its process is gone, or the file is not this user's own (a file planted in
 * a shared temp dir is never trusted).
 */
export function readPublishedDevnet(file: string): PublishedDevnet | null {
  try {
    const st = fs.statSync(file);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return null;
    const state = JSON.parse(fs.readFileSync(file, "utf8")) as PublishedDevnet;
    if (typeof state.pid !== "number" || !state.configOverlay) return null;
    return alive(state.pid) ? state : null;
  } catch {
    return null;
  }
}

/** Reads the state file of a devnet running from the same DATA_DIR. */
export function readDevnetState(dataDir: string): { evmUrl?: string; facilitatorUrl?: string; moneroUrl?: string; zebradUrl?: string; lightwalletdUrl?: string; pid: number } | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, "devnet", "devnet.json"), "utf8"));
  } catch {
    return null;
  }
}
