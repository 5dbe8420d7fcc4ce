/**
 * Getting paid: PAY_TO, the facilitator, and the EVM node of the payment
 * network (EVM_RPC_URL).
 *
 * - http / cdp: the facilitator's /supported must list x402 v2 `exact` on
 *   X402_NETWORK (what the service itself checks at start-up).
 * - local: the facilitator is this process, so what can fail is its node and
 *   its key: EVM_RPC_URL must serve X402_NETWORK's chain (8453 Base, 84532
 *   Base Sepolia), be synced, and the gas key must hold ETH for settlements.
 * - EVM_RPC_URL beside an http/cdp facilitator (used to reconcile payments
 *   interrupted after settlement) gets the chain and sync check alone.
 * In devnet mode the devnet settles on its own chain whatever is configured,
 * so these are reported as not checked.
 */
import { privateKeyToAccount } from "viem/accounts";
import { formatEther } from "viem";
import { EthRpc } from "../chains/ethereum/rpc.js";
import { gasKeys } from "../config.js";
import { createFacilitator, type FacilitatorSettings } from "../x402/facilitators.js";
import { USDC } from "../x402/networks.js";
import { fail, pass, probeUpstream, reason, shownUrl, verdict, warn, type CheckContext, type CheckResult } from "./check.js";
import { readEvmNode, syncProblems } from "./ethereum.js";

const NETWORK_NAMES: Record<string, string> = { "eip155:8453": "Base", "eip155:84532": "Base Sepolia" };

const DEVNET_NOTE = "devnet mode: the devnet settles payments on its own chain whatever is configured; checked with DEVNET=off";

export function checkPayTo(ctx: Pick<CheckContext, "config">): CheckResult {
  const { PAY_TO, X402_NETWORK, devnet } = ctx.config;
  if (devnet) return warn("pay-to", DEVNET_NOTE);
  if (!PAY_TO) return fail("pay-to", "PAY_TO not set: paid routes cannot ask for payment", `set PAY_TO to the address that receives USDC on ${NETWORK_NAMES[X402_NETWORK]} (${X402_NETWORK})`);
  return pass("pay-to", `${PAY_TO} receives USDC ${USDC[X402_NETWORK].asset} on ${NETWORK_NAMES[X402_NETWORK]} (${X402_NETWORK})`);
}

/**
 * EVM_RPC_URL: X402_NETWORK's chain, synced; with `gasKeyHex` (one key or
 * several separated by commas), each key's ETH balance too (zero cannot pay
 * for a settlement).
 */
export function checkEvmNode(ctx: CheckContext, name: string, gasKeyHex?: string): Promise<CheckResult> {
  const { config } = ctx;
  const want = USDC[config.X402_NETWORK].chainId;
  return probeUpstream({
    name,
    url: config.EVM_RPC_URL,
    unset: { setting: "EVM_RPC_URL", effect: "payments interrupted after settlement cannot be reconciled on chain" },
    label: config.EVM_RPC_URL ? `EVM_RPC_URL ${shownUrl(config.EVM_RPC_URL)}` : undefined,
    open: (url) => new EthRpc({ urls: [url], timeoutMs: ctx.timeoutMs, attemptsPerUrl: 1 }),
    close: (rpc) => rpc.close(),
    unreachableFix: "check EVM_RPC_URL and that the node answers JSON-RPC there",
    run: async (rpc, where) => {
      const state = await readEvmNode(rpc, ctx.signal);
      // No head-age limit: a quiet test chain may mine only when a transaction comes.
      const problems = syncProblems(state, undefined, 0);
      if (state.chainId !== want) {
        problems.unshift({
          detail: `chain ${state.chainId}, X402_NETWORK=${config.X402_NETWORK} needs chain ${want}`,
          fix: `point EVM_RPC_URL at a ${NETWORK_NAMES[config.X402_NETWORK]} node, or set X402_NETWORK to the network it serves`,
        });
      }
      const parts = [`${where} chain ${state.chainId}`];
      const addresses = (gasKeyHex ? gasKeys(gasKeyHex) : []).map((k) => privateKeyToAccount(k).address);
      // Side by side: one round trip for all the keys, not one after another.
      const answers = await Promise.all(addresses.map((a) => rpc.call("eth_getBalance", [a, "latest"], ctx.signal)));
      for (const [i, address] of addresses.entries()) {
        const raw = answers[i];
        const balance = typeof raw === "string" && /^0x[0-9a-fA-F]+$/.test(raw) ? BigInt(raw) : undefined;
        if (balance === undefined) problems.push({ detail: "eth_getBalance answered malformed", fix: "use a node that serves eth_getBalance" });
        else if (balance === 0n) problems.push({ detail: `gas key ${address} holds no ETH`, fix: `send ETH on ${NETWORK_NAMES[config.X402_NETWORK]} to ${address} (the local facilitator pays each settlement's gas)` });
        else parts.push(`gas key ${address} holds ${formatEther(balance)} ETH`);
      }
      return verdict(name, parts.join(", "), problems);
    },
  });
}

function facilitatorSettings(config: CheckContext["config"]): FacilitatorSettings | undefined {
  if (config.FACILITATOR_MODE === "cdp") return { mode: "cdp", apiKeyId: config.CDP_API_KEY_ID, apiKeySecret: config.CDP_API_KEY_SECRET };
  if (config.FACILITATOR_MODE === "http" && config.FACILITATOR_URL) return { mode: "http", url: config.FACILITATOR_URL };
  return undefined;
}

export async function checkFacilitator(ctx: CheckContext): Promise<CheckResult> {
  const { config } = ctx;
  if (config.devnet) return warn("facilitator", DEVNET_NOTE);
  if (config.FACILITATOR_MODE === "local") {
    if (!config.EVM_RPC_URL || !config.FACILITATOR_PRIVATE_KEY) {
      return fail("facilitator", "local mode without EVM_RPC_URL and FACILITATOR_PRIVATE_KEY", "set both: the node of the payment network and the key that pays settlement gas");
    }
    const r = await checkEvmNode(ctx, "facilitator", config.FACILITATOR_PRIVATE_KEY);
    return { ...r, detail: `local, settles ${config.X402_NETWORK} through ${r.detail}` };
  }
  const settings = facilitatorSettings(config);
  if (!settings) return fail("facilitator", "FACILITATOR_MODE=http without FACILITATOR_URL", "set FACILITATOR_URL to the facilitator's base URL");
  if (settings.mode === "cdp" && !(settings.apiKeyId && settings.apiKeySecret)) {
    return fail("facilitator", "FACILITATOR_MODE=cdp without CDP_API_KEY_ID and CDP_API_KEY_SECRET", "create a CDP API key and set both (the hosted facilitator refuses unauthenticated calls)");
  }
  const { client, label } = await createFacilitator(settings);
  const where = `${config.FACILITATOR_MODE} ${shownUrl(label)}`;
  let kinds: { x402Version: number; scheme: string; network: string }[];
  try {
    kinds = (await client.getSupported()).kinds ?? [];
  } catch (e) {
    return fail("facilitator", `${where} /supported failed: ${reason(e)}`, settings.mode === "cdp" ? "check CDP_API_KEY_ID / CDP_API_KEY_SECRET and outbound HTTPS to api.cdp.coinbase.com" : "check FACILITATOR_URL and that the facilitator is up");
  }
  if (kinds.some((k) => k.x402Version === 2 && k.scheme === "exact" && k.network === config.X402_NETWORK)) {
    return pass("facilitator", `${where} supports x402 v2 exact on ${config.X402_NETWORK}`);
  }
  const offered = kinds.map((k) => `v${k.x402Version} ${k.scheme} on ${k.network}`).join(", ") || "nothing";
  return fail("facilitator", `${where} does not support x402 v2 exact on ${config.X402_NETWORK} (it lists: ${offered})`, "set X402_NETWORK to a network it supports, or configure another facilitator (FACILITATOR_MODE, FACILITATOR_URL)");
}

/** EVM_RPC_URL beside an http/cdp facilitator: undefined when there is none, or the local facilitator already checks it. */
export function evmRpcCheckNeeded(config: CheckContext["config"]): boolean {
  return Boolean(config.EVM_RPC_URL) && config.FACILITATOR_MODE !== "local" && !config.devnet;
}
