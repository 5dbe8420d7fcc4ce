/**
 * bench:channel-gas's payers, in a worker thread of their own: the official batch client signs a
 * voucher per call (a few ms of curve and hash work each), so the service in the main thread and the
 * payers share the machine's cores instead of one event loop. Each payer makes its calls in turn, the
 * payers at once; the first call of each is its deposit, every later one a voucher (no transaction),
 * or the worker fails.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { createPublicClient, http, type Hex } from "viem";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { officialBatchPayer } from "../test/helpers/anvil-batch-app.js";

export interface PayersJob {
  url: string;
  rpcUrl: string;
  keys: Hex[];
  calls: number;
  /** Atomic USDC each payer deposits with its first call. */
  deposit: string;
}

/** One paid call; the transaction of its settlement ("" for a voucher). Throws on anything but a 200. */
export async function paidCall(pay: typeof fetch, url: string): Promise<string> {
  const r = await pay(url);
  const refusal = r.headers.get("payment-required");
  if (r.status !== 200) throw new Error(`paid call: ${r.status} ${refusal ? JSON.stringify(decodePaymentRequiredHeader(refusal)) : await r.text()}`);
  await r.arrayBuffer();
  return decodePaymentResponseHeader(r.headers.get("payment-response")!).transaction;
}

async function runPayers(job: PayersJob): Promise<void> {
  const rpc = createPublicClient({ transport: http(job.rpcUrl) });
  await Promise.all(
    job.keys.map(async (key, k) => {
      const { pay } = officialBatchPayer(rpc, key, { depositStrategy: () => job.deposit });
      for (let i = 0; i < job.calls; i++) {
        const tx = await paidCall(pay, `${job.url}/v1/test/fact?q=${key.slice(2, 10)}-${i}`);
        if ((i === 0) !== Boolean(tx)) throw new Error(`call ${i} of payer ${k}: ${tx ? "a transaction" : "no deposit"}`);
      }
    }),
  );
}

if (!isMainThread) {
  runPayers(workerData as PayersJob).then(
    () => parentPort!.postMessage({ ok: true }),
    (e: Error) => parentPort!.postMessage({ ok: false, error: e.stack ?? e.message }),
  );
}
