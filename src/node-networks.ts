/**
 * Reads, before the app is built, the network each configured node says it
 * runs, so that a setting left unset follows the node instead of a guess:
 *
 * - monerod: `get_info` `nettype` ("mainnet", "testnet", "stagenet", or
 *   "fakechain" for --regtest, whose addresses are mainnet-format, so the
 *   service watches mainnet-format addresses there);
 * - zebrad: `getblockchaininfo` `chain` ("main", "test", "regtest");
 * - an EVM JSON-RPC: `eth_chainId` (the x402 payment network when the
 *   devnet's payment chain is replaced: Base 8453 or Base Sepolia 84532).
 *
 * A node that does not answer within the deadline leaves the setting as it
 * was (its default), and the caller says so in the banner: start-up never
 * waits long on, or fails because of, a node that is down.
 */
import type { Config } from "./config.js";
import { UpstreamClient } from "./core/upstream.js";
import { createMoneroDaemon } from "./chains/monero/daemon-client.js";
import type { MoneroNetwork } from "./chains/monero/types.js";
import type { ZcashNetwork } from "./chains/zcash/network.js";

export type NodeNetwork<N> = { network: N; said: string } | { network: undefined; error: string };

const PROBE_MS = 3_000;

/** monerod's nettype as the address network it uses; undefined for a nettype this service does not know. */
export function moneroNetworkOfNettype(nettype: string): MoneroNetwork | undefined {
  switch (nettype) {
    case "mainnet":
    case "fakechain": // --regtest: mainnet-format addresses
      return "mainnet";
    case "testnet":
      return "testnet";
    case "stagenet":
      return "stagenet";
    default:
      return undefined;
  }
}

export async function moneroNodeNetwork(url: string, timeoutMs = PROBE_MS): Promise<NodeNetwork<MoneroNetwork>> {
  const daemon = createMoneroDaemon(url, { timeoutMs, attempts: 1 });
  try {
    const info = await daemon.getInfo();
    const network = moneroNetworkOfNettype(info.nettype);
    return network ? { network, said: info.nettype } : { network: undefined, error: `unknown nettype "${info.nettype}"` };
  } catch (e) {
    return { network: undefined, error: (e as Error).message };
  } finally {
    await daemon.close();
  }
}

const ZEBRAD_CHAINS: Record<string, ZcashNetwork> = { main: "mainnet", test: "testnet", regtest: "regtest" };

function jsonRpcClient(url: string, name: string, timeoutMs: number): UpstreamClient {
  return new UpstreamClient({
    url,
    name,
    failureCode: "chain_rpc_failed",
    notConfigured: { code: "chain_not_configured", message: `${name} is not configured`, details: {} },
    timeoutMs,
    attempts: 1,
  });
}

export async function zcashNodeNetwork(url: string, timeoutMs = PROBE_MS): Promise<NodeNetwork<ZcashNetwork>> {
  const client = jsonRpcClient(url, "zebrad", timeoutMs);
  try {
    const r = (await client.rpc("getblockchaininfo", [], { idempotent: true, path: "" })) as { chain?: unknown };
    const chain = typeof r?.chain === "string" ? r.chain : "";
    const network = ZEBRAD_CHAINS[chain];
    return network ? { network, said: chain } : { network: undefined, error: `unknown chain "${chain}"` };
  } catch (e) {
    return { network: undefined, error: (e as Error).message };
  } finally {
    await client.close();
  }
}

export async function evmChainId(url: string, timeoutMs = PROBE_MS): Promise<{ chainId: number } | { chainId: undefined; error: string }> {
  const client = jsonRpcClient(url, "EVM node", timeoutMs);
  try {
    const r = await client.rpc("eth_chainId", [], { idempotent: true, path: "" });
    if (typeof r !== "string" || !/^0x[0-9a-f]+$/i.test(r)) return { chainId: undefined, error: `eth_chainId answered ${JSON.stringify(r)}` };
    return { chainId: Number(BigInt(r)) };
  } catch (e) {
    return { chainId: undefined, error: (e as Error).message };
  } finally {
    await client.close();
  }
}

/** An account's balance in wei, or undefined when the node does not answer. */
export async function evmBalance(url: string, address: string, timeoutMs = PROBE_MS): Promise<bigint | undefined> {
  const client = jsonRpcClient(url, "EVM node", timeoutMs);
  try {
    const r = await client.rpc("eth_getBalance", [address, "latest"], { idempotent: true, path: "" });
    return typeof r === "string" && /^0x[0-9a-f]+$/i.test(r) ? BigInt(r) : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}

/** The x402 network id of a payment chain, or undefined for a chain x402 here does not settle on. */
export function x402NetworkOfChain(chainId: number): Config["X402_NETWORK"] | undefined {
  return chainId === 8453 ? "eip155:8453" : chainId === 84532 ? "eip155:84532" : undefined;
}

/** What was learned from the nodes, and a banner line for each setting it decided or could not. */
export interface NodeNetworks {
  moneroNetwork?: MoneroNetwork;
  zcashNetwork?: ZcashNetwork;
  notes: string[];
}

/**
 * The networks of the configured Monero and Zcash nodes, for the settings
 * not given explicitly (MONERO_NETWORK, ZCASH_NETWORK). A given setting is
 * kept; when the node says otherwise, a note says so (`vigil doctor` fails it).
 */
export async function readNodeNetworks(cfg: Pick<Config, "MONERO_DAEMON_URL" | "MONERO_NETWORK" | "ZEBRAD_URL" | "ZCASH_NETWORK" | "explicitKeys">): Promise<NodeNetworks> {
  const explicit = new Set(cfg.explicitKeys);
  const out: NodeNetworks = { notes: [] };
  const [xmr, zec] = await Promise.all([
    cfg.MONERO_DAEMON_URL ? moneroNodeNetwork(cfg.MONERO_DAEMON_URL) : undefined,
    cfg.ZEBRAD_URL ? zcashNodeNetwork(cfg.ZEBRAD_URL) : undefined,
  ]);
  if (xmr) {
    if (xmr.network === undefined) {
      out.notes.push(`monerod did not say its network (${xmr.error}); MONERO_NETWORK=${cfg.MONERO_NETWORK ?? "mainnet"} ${explicit.has("MONERO_NETWORK") ? "as given" : "assumed"}`);
    } else if (explicit.has("MONERO_NETWORK")) {
      if (xmr.network !== cfg.MONERO_NETWORK) out.notes.push(`monerod runs ${xmr.said} (${xmr.network} addresses) but MONERO_NETWORK=${cfg.MONERO_NETWORK} is given: watches of its addresses are refused`);
    } else {
      out.moneroNetwork = xmr.network;
      if (xmr.said === "fakechain") out.notes.push("monerod runs a regtest chain (nettype fakechain): mainnet-format addresses");
    }
  }
  if (zec) {
    if (zec.network === undefined) {
      out.notes.push(`zebrad did not say its network (${zec.error}); ZCASH_NETWORK=${cfg.ZCASH_NETWORK} ${explicit.has("ZCASH_NETWORK") ? "as given" : "assumed"}`);
    } else if (explicit.has("ZCASH_NETWORK")) {
      if (zec.network !== cfg.ZCASH_NETWORK) out.notes.push(`zebrad runs ${zec.said} but ZCASH_NETWORK=${cfg.ZCASH_NETWORK} is given: the Zcash questions answer 502 chain_network_mismatch`);
    } else {
      out.zcashNetwork = zec.network;
    }
  }
  return out;
}
