/**
 * x402 batch-settlement (docs/batch-settlement.md): the receiver-authorizer
 * key, and the escrow and its ERC-3009 deposit collector on the payment
 * chain.
 *
 * - BATCH_SETTLEMENT=off: nothing to check.
 * - The key must be set (a warning under "auto", which then offers exact
 *   only; a failure under "on"), be a valid secp256k1 key, and be none of
 *   the service's other addresses: PAY_TO (a cold address whose key should
 *   never be on the server) or a facilitator gas key (a key that pays gas
 *   and signs claims is one key to lose for two jobs).
 * - EVM_RPC_URL must serve X402_NETWORK's chain with code at the escrow's
 *   and the collector's canonical addresses: without them every deposit
 *   fails.
 * The key itself never appears in a line (index.ts scrubs it; this check
 * shows only its address).
 */
import { privateKeyToAccount } from "viem/accounts";
import { EthRpc } from "../chains/ethereum/rpc.js";
import { gasKeys } from "../config.js";
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "../x402/channel-terms.js";
import { USDC } from "../x402/networks.js";
import { fail, notConfigured, pass, probeUpstream, shownUrl, verdict, warn, type CheckContext, type CheckResult } from "./check.js";

const NAME = "batch-settlement";

/** The receiver-authorizer's address, or why the key cannot be one. */
function authorizerOf(key: string): { address: string } | { problem: string } {
  try {
    return { address: privateKeyToAccount((key.startsWith("0x") ? key : `0x${key}`) as `0x${string}`).address };
  } catch {
    return { problem: "BATCH_RECEIVER_AUTHORIZER_KEY is not a valid secp256k1 private key" };
  }
}

/** What is wrong with the key's place among the service's addresses. */
function keyProblems(config: CheckContext["config"], address: string): { detail: string; fix: string }[] {
  const same = (a: string | undefined) => a !== undefined && a.toLowerCase() === address.toLowerCase();
  const problems: { detail: string; fix: string }[] = [];
  if (same(config.PAY_TO)) problems.push({ detail: "the receiver-authorizer is PAY_TO", fix: "use a key of its own for BATCH_RECEIVER_AUTHORIZER_KEY: PAY_TO's key should never be on the server" });
  const gas = config.FACILITATOR_PRIVATE_KEY ? gasKeys(config.FACILITATOR_PRIVATE_KEY).map((k) => privateKeyToAccount(k).address) : [];
  if (gas.some(same)) problems.push({ detail: "the receiver-authorizer is a facilitator gas key", fix: "use a key of its own for BATCH_RECEIVER_AUTHORIZER_KEY" });
  return problems;
}

export async function checkBatchSettlement(ctx: CheckContext): Promise<CheckResult> {
  const { config } = ctx;
  if (config.BATCH_SETTLEMENT === "off") return pass(NAME, "off (BATCH_SETTLEMENT=off): paid routes take exact payments only");
  if (!config.BATCH_RECEIVER_AUTHORIZER_KEY) {
    if (config.BATCH_SETTLEMENT === "on") return fail(NAME, "BATCH_SETTLEMENT=on without BATCH_RECEIVER_AUTHORIZER_KEY", "set BATCH_RECEIVER_AUTHORIZER_KEY to a key of its own (it signs claim batches and refunds)");
    return notConfigured(NAME, "BATCH_RECEIVER_AUTHORIZER_KEY", "paid routes take exact payments only: no payment channels, so every call settles on chain by itself");
  }
  const authorizer = authorizerOf(config.BATCH_RECEIVER_AUTHORIZER_KEY);
  if ("problem" in authorizer) return fail(NAME, authorizer.problem, "set BATCH_RECEIVER_AUTHORIZER_KEY to 32 bytes of hex");
  if (config.devnet) return warn(NAME, `receiver-authorizer ${authorizer.address}; devnet mode: the devnet hosts the escrow on its own chain`);
  const chainId = USDC[config.X402_NETWORK].chainId;
  return probeUpstream({
    name: NAME,
    url: config.EVM_RPC_URL,
    unset: { setting: "EVM_RPC_URL", effect: "batch-settlement is not offered: the keeper needs the payment chain to watch the escrow" },
    label: config.EVM_RPC_URL ? `EVM_RPC_URL ${shownUrl(config.EVM_RPC_URL)}` : undefined,
    open: (url) => new EthRpc({ urls: [url], timeoutMs: ctx.timeoutMs, attemptsPerUrl: 1 }),
    close: (rpc) => rpc.close(),
    unreachableFix: "check EVM_RPC_URL and that the node answers JSON-RPC there",
    run: async (rpc, where) => {
      const problems = keyProblems(config, authorizer.address);
      const id = Number(BigInt(String(await rpc.call("eth_chainId", [], ctx.signal))));
      if (id !== chainId) problems.push({ detail: `${where} serves chain ${id}, not ${chainId}`, fix: "point EVM_RPC_URL at the payment network's node" });
      const [escrow, collector] = await Promise.all(
        [BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS].map((a) => rpc.call("eth_getCode", [a, "latest"], ctx.signal)),
      );
      if (typeof escrow !== "string" || escrow.length <= 2) problems.push({ detail: `no escrow contract at ${BATCH_SETTLEMENT_ADDRESS} on chain ${id}`, fix: "the x402 batch-settlement escrow is not deployed on this chain: set BATCH_SETTLEMENT=off, or use a chain where it is" });
      if (typeof collector !== "string" || collector.length <= 2) problems.push({ detail: `no ERC-3009 deposit collector at ${ERC3009_DEPOSIT_COLLECTOR_ADDRESS} on chain ${id}`, fix: "deposits go through that collector: set BATCH_SETTLEMENT=off, or use a chain where it is deployed" });
      return verdict(NAME, `receiver-authorizer ${authorizer.address}; escrow and deposit collector deployed on chain ${id} (${where}); withdraw delay ${config.BATCH_WITHDRAW_DELAY_SECONDS} s`, problems);
    },
  });
}
