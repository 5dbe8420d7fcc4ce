/**
 * `vigil pay <METHOD> <URL> [json]`: calls a route, paying its 402 with
 * VIGIL_PAYER_KEY or, by default, the first funded devnet account (a devnet
 * key can only pay on the devnet's Base Sepolia network).
 */
import { mnemonicToAccount } from "viem/accounts";
import { bytesToHex } from "viem";
import { createPayer } from "./payer.js";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { DEVNET_MNEMONIC } from "../devnet/evm.js";

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

export async function runPayCli(args: string[], io: Io, env: Record<string, string | undefined>): Promise<number> {
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
  const key = env.VIGIL_PAYER_KEY
    ? ((env.VIGIL_PAYER_KEY.startsWith("0x") ? env.VIGIL_PAYER_KEY : `0x${env.VIGIL_PAYER_KEY}`) as `0x${string}`)
    : bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!);
  const payer = createPayer(key, env.VIGIL_PAYER_KEY ? {} : { networks: ["eip155:84532"] });
  const res = await payer.payFetch(url, {
    method,
    ...(json !== undefined ? { body: json, headers: { "content-type": "application/json" } } : {}),
  });
  const receipt = res.headers.get("payment-response");
  if (receipt) {
    const settle = decodePaymentResponseHeader(receipt);
    io.stderr.write(`paid by ${payer.address}: ${settle.success ? `settled in ${settle.transaction}` : `not settled (${settle.errorReason})`}\n`);
  }
  io.stderr.write(`HTTP ${res.status}\n`);
  const text = await res.text();
  try {
    io.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  } catch {
    io.stdout.write(`${text}\n`);
  }
  return res.ok ? 0 : 1;
}
