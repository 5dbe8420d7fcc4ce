/**
 * An x402 v2 payer: signs `exact` EIP-3009 USDC authorisations with a private
 * key, using the official client (x402Client + x402HTTPClient from
 * @x402/core, ExactEvmScheme from @x402/evm). Used by the CLI, the devnet
 * demo and end-to-end tests; any standard x402 client works the same way.
 *
 * Spend control: the official client refuses payments above $1 by default.
 * Vigil's top-up routes cost up to $25, so the payer's cap defaults to
 * 25 USDC per payment, and it only ever pays USDC on Base or Base Sepolia.
 *
 * With `channels` (a state directory and an RPC of the payment network) it
 * also pays with `batch-settlement` vouchers, through @x402/evm's batch
 * client and the x402 HTTP client's hooks (as @x402/fetch drives them), its channels kept in files (the official
 * FileClientChannelStorage), so a repeated caller ends up on vouchers
 * without thinking about it: a payee is paid `exact` the first
 * `exactPaymentsFirst` times (a one-off call locks up nothing), and from
 * then on through a channel — one deposit (the route's `minDeposit`, at
 * most five times the per-payment cap), then a voucher per call that
 * settles nothing on chain. A channel that still holds money is always
 * used. The RPC lets the client read its channel on chain when its files
 * and the service disagree (the scheme's corrective 402).
 */
import fs from "node:fs";
import path from "node:path";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { BatchSettlementEvmScheme, computeChannelId } from "@x402/evm/batch-settlement/client";
import { FileClientChannelStorage } from "@x402/evm/batch-settlement/client/file-storage";
import { createPublicClient, http, type Address, type Hex } from "viem";
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
  /** Pays with batch-settlement vouchers too (see the header); absent: `exact` only. */
  channels?: PayerChannels;
}

export interface PayerChannels {
  /** Where the payer keeps its channels and how often it paid each payee `exact` (one folder per payer address is made inside). */
  stateDir: string;
  /** JSON-RPC of the payment network: the client reads its channels there. */
  rpcUrl: string;
  /** Exact payments to a payee before the payer opens a channel with it (default 2: the third call deposits). */
  exactPaymentsFirst?: number;
}

/** The official client's deposit ceiling is this many times the per-payment cap (its default depositMultiplier). */
const DEPOSIT_MULTIPLIER = 5n;

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
  const channels = options.channels ? payerChannels(account.address, options.channels, cap) : null;
  /** The scheme chosen for the payment being made, and whom it pays (channels only). */
  let chosen: string | undefined;
  let payee: string | undefined;

  const scheme = new ExactEvmScheme(account);
  const client = x402Client.fromConfig({
    schemes: networks.flatMap((network) => [{ network, client: scheme }, ...(channels ? [{ network, client: channels.scheme(account) }] : [])]),
    // Only USDC, only on our networks: anything else in `accepts` is ignored; with channels, only the scheme chosen.
    policies: [
      (_version: number, accepts: PaymentRequirements[]) =>
        accepts.filter((r) => payable(r, networks) && (chosen === undefined || r.scheme === chosen || !accepts.some((a) => a.scheme === chosen))),
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
  const choose = async (paymentRequired: PaymentRequired) => {
    if (channels) ({ scheme: chosen, payee } = await channels.choose(paymentRequired.accepts.filter((r) => payable(r, networks))));
  };

  const signFor = async (paymentRequired: PaymentRequired): Promise<SignedPayment> => {
    if (paymentRequired?.x402Version !== 2) {
      throw new Error(`payer: only x402 version 2 is supported, got ${String(paymentRequired?.x402Version)}`);
    }
    await choose(paymentRequired);
    const payload = await httpClient.createPaymentPayload(paymentRequired);
    const headers = httpClient.encodePaymentSignatureHeader(payload);
    const header = headers["PAYMENT-SIGNATURE"];
    if (!header) throw new Error("payer: the client produced no PAYMENT-SIGNATURE header");
    return { headerName: "PAYMENT-SIGNATURE", header, payload };
  };

  /** Sends the request with a payment for `paymentRequired`; the client's hooks see the answer (a corrective 402 is adopted). */
  const payOnce = async (url: string | URL, init: RequestInit, paymentRequired: PaymentRequired) => {
    const payload = await httpClient.createPaymentPayload(paymentRequired);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(httpClient.encodePaymentSignatureHeader(payload))) headers.set(name, value);
    const res = await doFetch(url, { ...init, headers });
    const { recovered } = await httpClient.processPaymentResult(payload, (name) => res.headers.get(name), res.status);
    return { res, recovered };
  };

  // As @x402/fetch's wrapFetchWithPayment does (one retry after a correction), with the caller's fetch called as (url, init).
  const payFetch = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    if (init.body instanceof ReadableStream) {
      throw new Error("payer: a stream request body cannot be replayed after a 402");
    }
    chosen = payee = undefined;
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
    await choose(paymentRequired);
    let { res, recovered } = await payOnce(url, init, paymentRequired);
    if (recovered) ({ res } = await payOnce(url, init, paymentRequired));
    if (chosen === "exact" && payee && res.ok && res.headers.has("payment-response")) channels?.countExactPayment(payee);
    return res;
  };

  return { address: account.address, maxAmountAtomic: cap, signFor, payFetch };
}

/** Whether a requirement is USDC on one of the payer's networks. */
function payable(r: PaymentRequirements, networks: readonly PayableNetwork[]): boolean {
  const usdc = PAYABLE_USDC[r.network as PayableNetwork];
  return usdc !== undefined && networks.includes(r.network as PayableNetwork) && r.asset.toLowerCase() === usdc.toLowerCase();
}

/** The payer's channels: the batch client scheme over files, and the choice between it and `exact`. */
function payerChannels(address: Address, opts: PayerChannels, cap: bigint) {
  const dir = path.join(opts.stateDir, address.toLowerCase());
  const storage = new FileClientChannelStorage({ directory: dir });
  const countsFile = path.join(dir, "exact-payments.json");
  const readCounts = (): Record<string, number> => {
    try {
      return JSON.parse(fs.readFileSync(countsFile, "utf8")) as Record<string, number>;
    } catch {
      return {};
    }
  };
  let batch: BatchSettlementEvmScheme | undefined;
  return {
    scheme(account: ReturnType<typeof privateKeyToAccount>) {
      const publicClient = createPublicClient({ transport: http(opts.rpcUrl) });
      return (batch ??= new BatchSettlementEvmScheme(toClientEvmSigner(account, publicClient), { storage }));
    },
    /** `batch-settlement` when a channel with money is open, or the payee has been paid `exact` often enough; else `exact`. */
    async choose(accepts: PaymentRequirements[]): Promise<{ scheme: string; payee: string | undefined }> {
      const offer = accepts.find((r) => r.scheme === "batch-settlement");
      const exact = accepts.find((r) => r.scheme === "exact");
      const payee = (offer ?? exact) && `${(offer ?? exact)!.network}:${(offer ?? exact)!.payTo.toLowerCase()}`;
      if (!offer || !batch) return { scheme: "exact", payee };
      const id = computeChannelId(batch.buildChannelConfig(offer), offer.network).toLowerCase();
      const ctx = await storage.get(id);
      if (ctx && BigInt(ctx.balance ?? "0") > BigInt(ctx.chargedCumulativeAmount ?? "0")) return { scheme: "batch-settlement", payee };
      const paid = readCounts()[payee!] ?? 0;
      const minDeposit = BigInt(String(offer.extra?.minDeposit ?? offer.amount));
      const open = paid >= (opts.exactPaymentsFirst ?? 2) && minDeposit <= cap * DEPOSIT_MULTIPLIER;
      return { scheme: open || !exact ? "batch-settlement" : "exact", payee };
    },
    /** One more `exact` payment to a payee (network:payTo). */
    countExactPayment(payee: string): void {
      const counts = readCounts();
      counts[payee] = (counts[payee] ?? 0) + 1;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(countsFile, JSON.stringify(counts));
    },
  };
}
