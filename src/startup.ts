/**
 * From parsed settings to the Config the app is built with, as the CLI's
 * serve, api, worker and mcp commands need it:
 *
 * 1. Devnet mode: `serve` (and the in-process MCP server) start the devnet
 *    with every upstream URL the operator gave, so each given URL replaces
 *    only its own simulator and that simulator is not started; `api` and
 *    `worker` join the devnet a running `vigil serve` / `vigil devnet`
 *    recorded. The devnet's overlay fills the settings not given.
 * 2. The network of each real node (src/node-networks.ts) decides
 *    MONERO_NETWORK / ZCASH_NETWORK when they were not given, and a real
 *    payment chain's chain id decides X402_NETWORK in devnet mode.
 * 3. Notes for the banner: what was read from which node, what was switched
 *    off (a devnet coin wallet on a real node's chain) and why.
 *
 * A refusal (a payment chain x402 does not settle on; the devnet's public
 * keys on Base mainnet) is a StartupError with the message to print.
 */
import { applyConfigOverlay, gasKeys, type Config } from "./config.js";
import type { Logger } from "pino";
import type { DevnetHandle, PublishedDevnet } from "../devnet/index.js";
import { privateKeyToAccount } from "viem/accounts";
import { evmBalance, evmChainId, readNodeNetworks, x402NetworkOfChain } from "./node-networks.js";

export class StartupError extends Error {}

export interface Prepared {
  config: Config;
  /** The devnet this process started (serve, in-process MCP). */
  devnet?: DevnetHandle;
  /** The running devnet this process joined (api, worker). */
  joined?: PublishedDevnet;
  stateFile?: string;
  /** Banner lines: networks read from nodes, wallets switched off. */
  notes: string[];
}

/**
 * `start`: start a devnet of this process's own; `join`: the one recorded in
 * the state file (refused when there is none). Outside devnet mode neither.
 */
export async function prepareConfig(parsed: Config, o: { devnet: "start" | "join"; log?: Logger; publish?: boolean }): Promise<Prepared> {
  const notes: string[] = [];
  let devnet: DevnetHandle | undefined;
  let joined: PublishedDevnet | undefined;
  let stateFile: string | undefined;
  let cfg = parsed;
  if (parsed.devnet) {
    const dn = await import("../devnet/index.js");
    stateFile = dn.devnetStateFile(parsed);
    if (o.devnet === "start") {
      devnet = await dn.startDevnet(dn.devnetOptions(parsed, { log: o.log, ...(o.publish ? { publishTo: stateFile } : {}) }));
    } else {
      joined = dn.readPublishedDevnet(stateFile) ?? undefined;
      if (!joined) throw new StartupError(`devnet mode, but no running devnet was found (${stateFile}).`);
    }
    cfg = applyConfigOverlay(parsed, (devnet?.configOverlay ?? joined?.configOverlay)!);
  }
  const simulated = new Set(cfg.simulatedUpstreams);
  try {
    cfg = await withNodeNetworks(cfg, simulated, notes);
    if (cfg.devnet && !simulated.has("payment_chain")) cfg = await withRealPaymentChain(cfg, notes);
  } catch (e) {
    await devnet?.close();
    throw e;
  }
  if (cfg.devnet && !simulated.has("monerod") && !cfg.COIN_XMR_ADDRESS) {
    notes.push("coin payments in XMR: off (the devnet's receiving wallet lives on its simulated chain; set COIN_XMR_ADDRESS and COIN_XMR_VIEW_KEY for this node's network)");
  }
  if (cfg.devnet && !(simulated.has("zebrad") && simulated.has("lightwalletd")) && !cfg.COIN_ZEC_ADDRESS) {
    notes.push("coin payments in ZEC: off (the devnet's receiving wallet lives on its simulated chain; set COIN_ZEC_ADDRESS and COIN_ZEC_VIEW_KEY for this node's network)");
  }
  return { config: cfg, devnet, joined, stateFile, notes };
}

/** MONERO_NETWORK and ZCASH_NETWORK from the real nodes, where not given. */
async function withNodeNetworks(cfg: Config, simulated: Set<string>, notes: string[]): Promise<Config> {
  const nn = await readNodeNetworks({
    MONERO_DAEMON_URL: simulated.has("monerod") ? undefined : cfg.MONERO_DAEMON_URL,
    MONERO_NETWORK: cfg.MONERO_NETWORK,
    ZEBRAD_URL: simulated.has("zebrad") ? undefined : cfg.ZEBRAD_URL,
    ZCASH_NETWORK: cfg.ZCASH_NETWORK,
    explicitKeys: cfg.explicitKeys,
  });
  notes.push(...nn.notes);
  if (!nn.moneroNetwork && !nn.zcashNetwork) return cfg;
  return Object.freeze({
    ...cfg,
    ...(nn.moneroNetwork ? { MONERO_NETWORK: nn.moneroNetwork } : {}),
    ...(nn.zcashNetwork ? { ZCASH_NETWORK: nn.zcashNetwork } : {}),
  });
}

/**
 * Devnet mode with a real EVM_RPC_URL: the local facilitator settles on that
 * chain, on the x402 network its chain id names. The devnet's pay-to address
 * and gas key come from a public mnemonic, so on Base mainnet both must be given.
 */
async function withRealPaymentChain(cfg: Config, notes: string[]): Promise<Config> {
  const url = cfg.EVM_RPC_URL!;
  const id = await evmChainId(url);
  if (id.chainId === undefined) throw new StartupError(`EVM_RPC_URL did not answer eth_chainId (${id.error}); the payment chain must be reachable at start`);
  const network = x402NetworkOfChain(id.chainId);
  if (!network) {
    throw new StartupError(
      `EVM_RPC_URL runs chain ${id.chainId}; x402 payments here settle on Base (8453) or Base Sepolia (84532). Start a local node with --chain-id 84532, or unset EVM_RPC_URL to use the devnet's simulated chain.`,
    );
  }
  const explicit = new Set(cfg.explicitKeys);
  if (explicit.has("X402_NETWORK") && cfg.X402_NETWORK !== network) {
    throw new StartupError(`EVM_RPC_URL runs chain ${id.chainId} (${network}) but X402_NETWORK=${cfg.X402_NETWORK} is given`);
  }
  if (network === "eip155:8453" && !(explicit.has("PAY_TO") && explicit.has("FACILITATOR_PRIVATE_KEY"))) {
    throw new StartupError(
      "EVM_RPC_URL runs Base mainnet (8453): give PAY_TO and FACILITATOR_PRIVATE_KEY of your own; the devnet's come from a public mnemonic, and anyone could take what they hold.",
    );
  }
  notes.push(`payments settle on the real chain at EVM_RPC_URL (chain ${id.chainId}, ${network})${explicit.has("PAY_TO") ? "" : "; PAY_TO is the devnet's, of a public mnemonic: fine on a test chain only"}`);
  const keys = cfg.FACILITATOR_PRIVATE_KEY ? gasKeys(cfg.FACILITATOR_PRIVATE_KEY) : [];
  // Every key's balance read side by side: each read is a round trip to the node, and start-up waits for them.
  const addresses = keys.map((k) => privateKeyToAccount(k).address);
  const balances = await Promise.all(addresses.map((a) => evmBalance(url, a)));
  for (const [i, address] of addresses.entries()) {
    if (balances[i] === 0n) {
      notes.push(
        keys.length === 1
          ? "the facilitator's gas key (FACILITATOR_PRIVATE_KEY) holds no ETH on that chain: every settlement will fail until it is funded"
          : `the facilitator's gas key ${address} (of FACILITATOR_PRIVATE_KEY) holds no ETH on that chain: the settlements it is given will fail until it is funded`,
      );
    }
  }
  return Object.freeze({ ...cfg, X402_NETWORK: network });
}
