/**
 * An x402 v2 payer: signs `exact` EIP-3009 USDC authorisations with a private
 * key, using the official client (x402Client + x402HTTPClient from
 * @x402/core, ExactEvmScheme from @x402/evm). Used by the CLI, the devnet
 * demo and end-to-end tests; any standard x402 client works the same way.
 *
 * Spend control: the official client refuses payments above $1 by default.
 * Vigil's top-up routes cost up to $25, so the payer's cap defaults to
 * 25 USDC per payment, and it only ever pays USDC on Base or Base Sepolia.
 */
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { formatUsd } from "../core/money.js";

/** USDC per network; the payer pays nothing else. */
const PAYABLE_USDC = {
  "eip155:8453": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  "eip155:84532": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
} as const;

type PayableNetwork = keyof typeof PAYABLE_USDC;

/** Default per-payment cap: 25 USDC (the most expensive top-up route). */
export const DEFAULT_MAX_PAYMENT_ATOMIC = 25_000_000n;

export interface PayerOptions {
  /** Largest single payment in atomic USDC (6 decimals). Default 25 USDC. */
  maxAmountAtomic?: bigint;
  /** Networks the payer may pay on. Default both Base and Base Sepolia. */
  networks?: readonly PayableNetwork[];
  /** fetch to use (tests pass one bound to an in-process app). Default global fetch. */
  fetch?: typeof globalThis.fetch;
}

export interface SignedPayment {
  /** Header name to send the payment in (v2). */
  headerName: "PAYMENT-SIGNATURE";
  /** base64 PaymentPayload, the PAYMENT-SIGNATURE header value. */
  header: string;
  payload: PaymentPayload;
}

export interface Payer {
  readonly address: Address;
  readonly maxAmountAtomic: bigint;
  /** Signs a payment for one of the accepted requirements (first USDC offer within the cap). */
  signFor(paymentRequired: PaymentRequired): Promise<SignedPayment>;
  /**
   * fetch, paying once when the answer is 402: reads PAYMENT-REQUIRED, signs,
   * retries the same request with PAYMENT-SIGNATURE and returns that answer
   * (whatever its status). Request bodies must be replayable (string, bytes,
   * URLSearchParams, FormData, Blob); a stream body cannot be sent twice.
   */
  payFetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export function createPayer(privateKey: Hex, options: PayerOptions = {}): Payer {
  const account = privateKeyToAccount(privateKey);
  const cap = options.maxAmountAtomic ?? DEFAULT_MAX_PAYMENT_ATOMIC;
  if (cap <= 0n) throw new Error("maxAmountAtomic must be positive");
  const networks = options.networks ?? (Object.keys(PAYABLE_USDC) as PayableNetwork[]);
  const doFetch = options.fetch ?? globalThis.fetch;

  const scheme = new ExactEvmScheme(account);
  const client = x402Client.fromConfig({
    schemes: networks.map((network) => ({ network, client: scheme })),
    // Only USDC, only on our networks: anything else in `accepts` is ignored.
    policies: [
      (_version: number, accepts: PaymentRequirements[]) =>
        accepts.filter((r) => {
          const usdc = PAYABLE_USDC[r.network as PayableNetwork];
          return usdc !== undefined && networks.includes(r.network as PayableNetwork) && r.asset.toLowerCase() === usdc.toLowerCase();
        }),
    ],
    spendControls: {
      // A dollar string ("$0.10"); x402 parses it back to the same atomic cap.
      maxAmountPerPayment: formatUsd(cap),
      allowedAssets: networks.map((network) => ({
        network,
        asset: PAYABLE_USDC[network],
        maxAmountPerPayment: cap.toString(),
      })),
    },
  });
  const httpClient = new x402HTTPClient(client);

  const signFor = async (paymentRequired: PaymentRequired): Promise<SignedPayment> => {
    if (paymentRequired?.x402Version !== 2) {
      throw new Error(`payer: only x402 version 2 is supported, got ${String(paymentRequired?.x402Version)}`);
    }
    const payload = await httpClient.createPaymentPayload(paymentRequired);
    const headers = httpClient.encodePaymentSignatureHeader(payload);
    const header = headers["PAYMENT-SIGNATURE"];
    if (!header) throw new Error("payer: the client produced no PAYMENT-SIGNATURE header");
    return { headerName: "PAYMENT-SIGNATURE", header, payload };
  };

  const payFetch = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    if (init.body instanceof ReadableStream) {
      throw new Error("payer: a stream request body cannot be replayed after a 402");
    }
    const first = await doFetch(url, init);
    if (first.status !== 402) return first;

    const text = await first.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const paymentRequired = httpClient.getPaymentRequiredResponse((name) => first.headers.get(name), body);
    const signed = await signFor(paymentRequired);
    const headers = new Headers(init.headers);
    headers.set(signed.headerName, signed.header);
    return doFetch(url, { ...init, headers });
  };

  return { address: account.address, maxAmountAtomic: cap, signFor, payFetch };
}
