/**
 * `vigil pay <METHOD> <URL> [json]`: calls a route, paying its 402 with the
 * key the CLI hands in (VIGIL_PAYER_KEY, or the first funded devnet account,
 * which is restricted to the devnet's Base Sepolia network). With an RPC of
 * the payment network it pays through payment channels once it has paid a
 * service a few times (payer.ts): a deposit, then vouchers.
 */
import { createPayer, type PayerChannels, type PayerOptions } from "./payer.js";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { SettleResponse } from "@x402/core/types";
import { formatUsd } from "../core/money.js";

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** Who pays: a private key, and the only networks it may pay on (absent: any the route offers). */
export interface PayCliPayer {
  privateKey: `0x${string}`;
  networks?: PayerOptions["networks"];
  /** Where its channels are kept and the RPC it reads them with; absent: `exact` only. */
  channels?: PayerChannels;
}

/** One line on stderr saying how the call was paid. */
function receiptLine(payer: string, settle: SettleResponse): string {
  if (!settle.success) return `paid by ${payer}: not settled (${settle.errorReason})`;
  const extra = settle.extra as { chargedAmount?: string; channelState?: { channelId?: string; chargedCumulativeAmount?: string } } | undefined;
  const channel = extra?.channelState?.channelId;
  if (!channel || extra?.chargedAmount === undefined) return `paid by ${payer}: settled in ${settle.transaction}`;
  const charged = formatUsd(BigInt(extra.chargedAmount));
  const total = extra.channelState?.chargedCumulativeAmount ? `, ${formatUsd(BigInt(extra.channelState.chargedCumulativeAmount))} on the channel so far` : "";
  return settle.transaction
    ? `paid by ${payer}: deposit into channel ${channel} in ${settle.transaction}, charged ${charged}${total}`
    : `paid by ${payer}: voucher on channel ${channel}, charged ${charged}${total}`;
}

export async function runPayCli(args: string[], io: Io, payerKey: PayCliPayer): Promise<number> {
  const [methodRaw, url, json] = args;
  const method = methodRaw?.toUpperCase();
  if (!method || !url || !["GET", "POST", "DELETE"].includes(method)) {
    io.stderr.write("usage: vigil pay <GET|POST|DELETE> <URL> [json-body]\n");
    return 2;
  }
  if (json !== undefined) {
    try {
      JSON.parse(json);
    } catch {
      io.stderr.write("the body must be valid JSON\n");
      return 2;
    }
  }
  const payer = createPayer(payerKey.privateKey, { ...(payerKey.networks ? { networks: payerKey.networks } : {}), ...(payerKey.channels ? { channels: payerKey.channels } : {}) });
  const res = await payer.payFetch(url, {
    method,
    ...(json !== undefined ? { body: json, headers: { "content-type": "application/json" } } : {}),
  });
  const receipt = res.headers.get("payment-response");
  if (receipt) io.stderr.write(`${receiptLine(payer.address, decodePaymentResponseHeader(receipt))}\n`);
  io.stderr.write(`HTTP ${res.status}\n`);
  const text = await res.text();
  try {
    io.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  } catch {
    io.stdout.write(`${text}\n`);
  }
  return res.ok ? 0 : 1;
}
