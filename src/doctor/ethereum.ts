/**
 * Ethereum-side upstreams: each ETH_RPC_URL node (mainnet, chain 1, synced,
 * a fresh head), each MEV-Boost relay of RELAY_URLS (its data API answers),
 * and PRIVATE_RELAY_BUILDERS (parsed and counted, not called: the only call a
 * builder takes is a submission). The EVM node behind the payments is read
 * with the same `readEvmNode` (payments.ts).
 */
import { EthRpc, splitRpcUrls } from "../chains/ethereum/rpc.js";
import { UpstreamError } from "../core/upstream.js";
import { forkSchedule } from "../chains/ethereum/fees.js";
import { RelayClient, parseRelayUrls, type RelayEndpoint } from "../chains/ethereum/relays.js";
import { parsePrivateBuilders } from "../relay/index.js";
import { fail, notConfigured, pass, probeUpstream, reason, shownUrl, verdict, type CheckContext, type CheckResult } from "./check.js";

/** The chain ETH_RPC_URL must serve: the answers are sold as Ethereum mainnet facts. */
export const ETHEREUM_MAINNET = 1;

export interface EvmNodeState {
  chainId: number;
  /** eth_syncing: false, how far along, or null when the node does not serve it (Vigil itself never calls it). */
  syncing: false | null | { current: bigint; highest: bigint };
  head: { number: bigint; timestamp: number } | null;
}

const hexQuantity = (v: unknown): bigint => (typeof v === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(v) ? BigInt(v) : 0n);

/** chain id, sync state and head of one EVM JSON-RPC node, through the service's client. */
export async function readEvmNode(rpc: EthRpc, signal: AbortSignal): Promise<EvmNodeState> {
  const notServed = (e: unknown) => {
    if (e instanceof UpstreamError && e.rpcCode !== undefined) return null;
    throw e;
  };
  const [chainId, syncing, head] = await Promise.all([rpc.chainId(signal), rpc.call("eth_syncing", [], signal).catch(notServed), rpc.header("latest", signal)]);
  const s = syncing && typeof syncing === "object" ? (syncing as Record<string, unknown>) : null;
  return {
    chainId,
    syncing: syncing === null ? null : s ? { current: hexQuantity(s.currentBlock), highest: hexQuantity(s.highestBlock) } : false,
    head: head ? { number: head.number, timestamp: head.timestamp } : null,
  };
}

/** The sync problems of a node state, for any EVM check. */
export function syncProblems(state: EvmNodeState, maxAgeSeconds: number | undefined, nowS: number): { detail: string; fix: string }[] {
  const out: { detail: string; fix: string }[] = [];
  if (state.syncing) out.push({ detail: `syncing (block ${state.syncing.current} of ${state.syncing.highest})`, fix: "wait until eth_syncing answers false, or use a synced node" });
  if (!state.head) out.push({ detail: "no latest block", fix: "use a node that serves eth_getBlockByNumber" });
  else if (maxAgeSeconds !== undefined && nowS - state.head.timestamp > maxAgeSeconds) {
    out.push({ detail: `head block ${state.head.number} is ${nowS - state.head.timestamp} s old (more than ${maxAgeSeconds} s)`, fix: "the node has stopped following the chain: check its peers and consensus client" });
  }
  return out;
}

/** One result per ETH_RPC_URL entry (named `ethereum`, or `ethereum 1`, `ethereum 2` … for a list). */
export function ethereumCheckNames(config: CheckContext["config"]): { name: string; url: string }[] {
  const urls = splitRpcUrls(config.ETH_RPC_URL);
  return urls.map((url, i) => ({ name: urls.length > 1 ? `ethereum ${i + 1}` : "ethereum", url }));
}

export function checkEthereumNode(ctx: CheckContext, name: string, url: string, nowS = Math.floor(Date.now() / 1000)): Promise<CheckResult> {
  return probeUpstream({
    name,
    url,
    unset: { setting: "ETH_RPC_URL", effect: "the Ethereum questions answer 503 chain_not_configured" },
    open: (u) => new EthRpc({ urls: [u], timeoutMs: ctx.timeoutMs, attemptsPerUrl: 1 }),
    close: (rpc) => rpc.close(),
    unreachableFix: "check the URL (and its API key) in ETH_RPC_URL, and that the node answers JSON-RPC there",
    run: async (rpc, where) => {
      const state = await readEvmNode(rpc, ctx.signal);
      const problems = syncProblems(state, ctx.config.ETH_MAX_AGE_SECONDS, nowS);
      if (state.chainId !== ETHEREUM_MAINNET) {
        const known = forkSchedule(state.chainId);
        problems.unshift({
          detail: `chain ${state.chainId}${known ? ` (${known.name})` : ""}, expected ${ETHEREUM_MAINNET} (Ethereum mainnet)`,
          fix: "point ETH_RPC_URL at an Ethereum mainnet node: the fee, builder and lending answers are sold as mainnet facts",
        });
      }
      const synced = state.syncing === null ? ", eth_syncing not served" : ", synced";
      return verdict(name, `${where} chain ${state.chainId}, block ${state.head?.number ?? "?"}${problems.length ? "" : synced}`, problems);
    },
  });
}

export function relayEndpoints(config: CheckContext["config"]): RelayEndpoint[] {
  return parseRelayUrls(config.RELAY_URLS);
}

export async function checkRelay(ctx: CheckContext, endpoint: RelayEndpoint): Promise<CheckResult> {
  const name = endpoint.id;
  const client = new RelayClient(endpoint, { timeoutMs: ctx.timeoutMs, attempts: 1 });
  try {
    const rows = await client.delivered({ limit: 1 }, ctx.signal);
    const newest = rows[0];
    return pass(name, `${shownUrl(endpoint.url)} data API answers${newest ? ` (newest delivered payload: slot ${newest.slot})` : " (no delivered payload yet)"}`);
  } catch (e) {
    return fail(name, `${shownUrl(endpoint.url)} ${reason(e)}`, "check the relay's URL in RELAY_URLS (its data API: /relay/v1/data/bidtraces/…)");
  } finally {
    await client.close();
  }
}

export function checkPrivateBuilders(ctx: Pick<CheckContext, "config">): CheckResult {
  const setting = ctx.config.PRIVATE_RELAY_BUILDERS;
  if (!setting) return notConfigured("private-builders", "PRIVATE_RELAY_BUILDERS", "the private relay answers 503 private_relay_not_configured");
  try {
    const builders = parsePrivateBuilders(setting);
    const signed = ctx.config.PRIVATE_RELAY_SIGNING_KEY ? "signed" : "unsigned (no PRIVATE_RELAY_SIGNING_KEY)";
    return pass("private-builders", `${builders.length} configured (${builders.map((b) => `${b.name} ${b.method}`).join(", ")}), requests ${signed}; not called (the only call a builder takes is a submission)`);
  } catch (e) {
    return fail("private-builders", reason(e), "fix the entry in PRIVATE_RELAY_BUILDERS (name=url, #raw for eth_sendRawTransaction)");
  }
}
