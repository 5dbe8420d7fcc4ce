/**
 * `vigil pay <METHOD> <URL> [json]`: calls a route, paying its 402 with the
 * key the CLI hands in (VIGIL_PAYER_KEY, or the first funded devnet account,
 * which is restricted to the devnet's Base Sepolia network).
 */
import { createPayer, type PayerOptions } from "./payer.js";
import { decodePaymentResponseHeader } from "@x402/core/http";

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** Who pays: a private key, and the only networks it may pay on (absent: any the route offers). */
export interface PayCliPayer {
  privateKey: `0x${string}`;
  networks?: PayerOptions["networks"];
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
  const payer = createPayer(payerKey.privateKey, payerKey.networks ? { networks: payerKey.networks } : {});
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
