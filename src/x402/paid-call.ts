/**
 * What a paid call is to the paywall, whichever scheme pays for it: the
 * call (its work, its input, its price, how its answer is stored), the
 * payment that reaches its work, the terms a 402 offers, and the outcome.
 * The paywall (paywall.ts) runs `exact` payments itself and hands
 * `batch-settlement` ones to the channel flow (channel-pay.ts); both answer
 * with these types, and the transports (HTTP, MCP) read only these.
 */
import type { Transaction } from "kysely";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Database } from "../db/types.js";
import type { DB } from "../db/schema.js";
import type { UsdcAsset } from "./networks.js";
import type { ChannelTerms } from "./channel-terms.js";

/** A settled (or being-settled) x402 payment attached to the request. */
export interface PaymentInfo {
  payer: string;
  amountAtomic: bigint;
  nonce: string;
}

export interface PaymentTerms {
  usdc: UsdcAsset;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
  /** The batch-settlement channel terms; absent: only `exact` is offered (docs/batch-settlement.md). */
  channel?: ChannelTerms;
}

export interface ResourceDescription {
  url: string;
  description: string;
  mimeType: string;
}

export interface Paywall {
  /** null when PAY_TO is missing outside the devnet: paid routes answer 503. */
  terms: PaymentTerms | null;
  /** Whether answers are stored for retries (a master key is configured). */
  idempotent: boolean;
  /** Seconds a stored answer is kept: as long as an authorisation can be presented. */
  responseTtlSeconds: number;
  /** The `exact` requirements of a price (the first of `accepts`). */
  requirementsFor(amount: bigint): PaymentRequirements;
  /** Every scheme's requirements of a price, as a 402 lists them: `exact` first, then `batch-settlement` when offered. */
  acceptsFor(amount: bigint): PaymentRequirements[];
  paymentRequired(resource: ResourceDescription, amount: bigint, error: string, extensions?: Record<string, unknown>): PaymentRequired;
  /** The 402 of a probe (no payment, no input): the terms and extensions `run` would declare, and nothing done. */
  probe(call: ProbeCall): PaymentRequiredOutcome;
  run<T>(call: PaidCall<T>): Promise<PaidOutcome<T>>;
}

/** What the 402 of a probe needs: a paid call without input, work or payment. */
export type ProbeCall = Pick<PaidCall<unknown>, "resource" | "amount" | "extensions">;

/** How the caller turns its result into stored text and back (undefined: this result is not stored, e.g. a stream). */
export interface ResponseCodec<T> {
  encode(result: T): string | undefined;
  decode(text: string): T;
}

export interface PaidCall<T> {
  /** "METHOD /path" of the route, stored on the payment row. */
  route: string;
  resource: ResourceDescription;
  amount: bigint;
  /** Raw PAYMENT-SIGNATURE (or X-PAYMENT) header value, if any. */
  header: string | undefined;
  /** The validated input: with `route` it identifies the request a stored answer belongs to. */
  input: unknown;
  /** The paid work; must use only `trx`. Throwing rolls back and charges nothing. */
  work: (trx: Transaction<DB> | Database, payment: PaymentInfo) => Promise<T>;
  /** Work that writes nothing runs without a transaction (see RouteDef.readOnly). */
  readOnly?: boolean;
  /** Least remaining validity of the authorisation (see RouteDef.minValiditySeconds). */
  minValiditySeconds?: number;
  /** The work cannot be undone: settle first, then work (see RouteDef.settleBeforeWork). */
  settleBeforeWork?: boolean;
  /** Protocol extensions declared in the 402 (bazaar discovery); payment-identifier is added here. */
  extensions?: Record<string, unknown>;
  /** Stores the answer for retries; without it nothing is stored. */
  codec?: ResponseCodec<T>;
  /** The success status the answer goes out with (stored with it). */
  successStatus?: number;
}

export type PaidOutcome<T> =
  | { kind: "payment_required"; paymentRequired: PaymentRequired; settleResponse?: SettleResponse }
  | { kind: "paid"; result: T; settleResponse: SettleResponse; headers: Record<string, string>; replayed?: boolean };

/** The 402 outcome, the only one a probe has. */
export type PaymentRequiredOutcome = Extract<PaidOutcome<never>, { kind: "payment_required" }>;
