/**
 * The x402 flow around one paid call, framework-free:
 *   decode → check terms → take the once-ever nonce row → facilitator verify →
 *   run the work inside a DB transaction → settle → commit.
 * A failed settlement rolls the work back; a nonce is accepted once, ever, and
 * the pending row is the cross-process lock from verify until settle ends.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Logger } from "pino";
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Database } from "../db/types.js";
import type { Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import type { Clock } from "../core/clock.js";
import { ServiceError, unavailable, upstreamFailed } from "../core/errors.js";
import type { UsdcAsset } from "./networks.js";

/** Largest payment header we decode (a real v2 payload is about 1 KB of base64). */
export const MAX_PAYMENT_HEADER_BYTES = 8192;
/** Seconds an authorisation must still be valid for when it reaches us (the reference facilitator uses 6). */
const MIN_VALIDITY_SECONDS = 6n;
/** Extra seconds of validBefore we tolerate beyond maxTimeoutSeconds (client clock skew). */
const VALID_BEFORE_SLACK_SECONDS = 600n;

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
}

export interface ResourceDescription {
  url: string;
  description: string;
  mimeType: string;
}

export interface Paywall {
  /** null when PAY_TO is missing outside the devnet: paid routes answer 503. */
  terms: PaymentTerms | null;
  requirementsFor(amount: bigint): PaymentRequirements;
  paymentRequired(resource: ResourceDescription, amount: bigint, error: string, extensions?: Record<string, unknown>): PaymentRequired;
  run<T>(call: PaidCall<T>): Promise<PaidOutcome<T>>;
}

export interface PaidCall<T> {
  /** "METHOD /path" of the route, stored on the payment row. */
  route: string;
  resource: ResourceDescription;
  amount: bigint;
  /** Raw PAYMENT-SIGNATURE (or X-PAYMENT) header value, if any. */
  header: string | undefined;
  /** The paid work; must use only `trx`. Throwing rolls back and charges nothing. */
  work: (trx: Transaction<DB> | Database, payment: PaymentInfo) => Promise<T>;
  /** Work that writes nothing runs without a transaction (see RouteDef.readOnly). */
  readOnly?: boolean;
  /** Least remaining validity of the authorisation (see RouteDef.minValiditySeconds). */
  minValiditySeconds?: number;
  /** Protocol extensions declared in the 402 (bazaar discovery, payment-identifier). */
  extensions?: Record<string, unknown>;
}

export type PaidOutcome<T> =
  | { kind: "payment_required"; paymentRequired: PaymentRequired; settleResponse?: SettleResponse }
  | { kind: "paid"; result: T; settleResponse: SettleResponse; headers: Record<string, string> };

// The exact-EVM (EIP-3009) payload we accept; anything else is refused with a reason.
const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));
const uintString = z.string().regex(/^\d{1,78}$/);
const ExactEvmPayload = z.object({
  x402Version: z.literal(2),
  accepted: z.object({
    scheme: z.string(),
    network: z.string(),
    amount: z.string(),
    asset: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: z.object({
    authorization: z.object({
      from: hex(20),
      to: hex(20),
      value: uintString,
      validAfter: uintString,
      validBefore: uintString,
      nonce: hex(32),
    }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
  }),
});
type ExactEvmPayload = z.infer<typeof ExactEvmPayload>;

class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}
class SettlementFailed extends Error {
  constructor(readonly response: SettleResponse) {
    super(response.errorReason ?? "settlement failed");
  }
}

export function createPaywall(deps: {
  db: Database;
  facilitator: FacilitatorClient;
  terms: PaymentTerms | null;
  clock: Clock;
  log: Logger;
}): Paywall {
  const { db, facilitator, terms, clock, log } = deps;

  function requirementsFor(amount: bigint): PaymentRequirements {
    if (!terms) throw unavailable("paywall_not_configured", "This service has no PAY_TO address configured; paid routes are disabled.");
    return {
      scheme: "exact",
      network: terms.usdc.network,
      amount: amount.toString(),
      asset: terms.usdc.asset,
      payTo: terms.payTo,
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
      extra: { name: terms.usdc.name, version: terms.usdc.version },
    };
  }

  function paymentRequired(resource: ResourceDescription, amount: bigint, error: string, extensions?: Record<string, unknown>): PaymentRequired {
    return { x402Version: 2, error, resource, accepts: [requirementsFor(amount)], ...(extensions ? { extensions } : {}) };
  }

  /** Checks the decoded payload against our terms before anything leaves the process. */
  function checkTerms(p: ExactEvmPayload, req: PaymentRequirements, minValidity: bigint): void {
    const a = p.accepted;
    const auth = p.payload.authorization;
    if (a.scheme !== "exact") throw new Refusal("unsupported_scheme");
    if (a.network !== req.network) throw new Refusal("network_mismatch");
    if (a.asset.toLowerCase() !== req.asset.toLowerCase()) throw new Refusal("asset_mismatch");
    if (a.payTo.toLowerCase() !== req.payTo.toLowerCase() || auth.to.toLowerCase() !== req.payTo.toLowerCase())
      throw new Refusal("recipient_mismatch");
    if (a.amount !== req.amount || auth.value !== req.amount) throw new Refusal("amount_mismatch");
    const now = BigInt(Math.floor(clock.now() / 1000));
    if (BigInt(auth.validAfter) > now) throw new Refusal("authorization_not_yet_valid");
    if (BigInt(auth.validBefore) < now + MIN_VALIDITY_SECONDS) throw new Refusal("authorization_expired");
    if (BigInt(auth.validBefore) < now + minValidity) throw new Refusal("authorization_expires_too_soon");
    if (BigInt(auth.validBefore) > now + BigInt(req.maxTimeoutSeconds) + VALID_BEFORE_SLACK_SECONDS)
      throw new Refusal("authorization_validity_too_long");
  }

  async function run<T>(call: PaidCall<T>): Promise<PaidOutcome<T>> {
    const req = requirementsFor(call.amount);
    const refuse = (reason: string, settleResponse?: SettleResponse): PaidOutcome<T> => ({
      kind: "payment_required",
      paymentRequired: paymentRequired(call.resource, call.amount, reason, call.extensions),
      ...(settleResponse ? { settleResponse } : {}),
    });
    if (call.header === undefined || call.header === "") return refuse("payment_required");
    if (call.header.length > MAX_PAYMENT_HEADER_BYTES) return refuse("payment_header_too_large");

    let decoded: PaymentPayload;
    let payload: ExactEvmPayload;
    try {
      decoded = decodePaymentSignatureHeader(call.header.trim());
      const parsed = ExactEvmPayload.safeParse(decoded);
      if (!parsed.success) return refuse("invalid_payment_payload");
      payload = parsed.data;
    } catch {
      return refuse("invalid_payment_header");
    }
    try {
      checkTerms(payload, req, BigInt(call.minValiditySeconds ?? 0));
    } catch (e) {
      if (e instanceof Refusal) return refuse(e.reason);
      throw e;
    }

    const auth = payload.payload.authorization;
    const nonceKey = [req.network, req.asset, auth.from, auth.nonce].join(":").toLowerCase();
    const paymentId = randomUUID();
    // The once-ever nonce row doubles as the cross-process lock from verify until settle ends.
    const inserted = await db
      .insertInto("payments")
      .values({
        id: paymentId,
        nonce_key: nonceKey,
        status: "pending",
        payer: auth.from.toLowerCase(),
        route: call.route,
        amount_atomic: call.amount.toString(),
        network: req.network,
        nonce: auth.nonce.toLowerCase(),
      })
      .onConflict((oc) => oc.column("nonce_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      const existing = await db.selectFrom("payments").select(["status", "created_at"]).where("nonce_key", "=", nonceKey).executeTakeFirst();
      // A row still pending long after any authorisation could be valid was left by a crashed process:
      // the authorisation is spent either way (it stays for reconciliation), so say so instead of "in progress".
      const abandoned =
        existing?.created_at !== undefined &&
        clock.now() - new Date(existing.created_at).getTime() > (req.maxTimeoutSeconds + Number(VALID_BEFORE_SLACK_SECONDS)) * 1000;
      if (existing?.status === "pending" && !abandoned)
        throw new ServiceError(409, "payment_in_progress", "This payment authorisation is being processed by another request.");
      return refuse("authorization_already_used");
    }
    const release = () => db.deleteFrom("payments").where("id", "=", paymentId).execute();

    let verified;
    try {
      verified = await facilitator.verify(decoded, req);
    } catch (e) {
      await release();
      log.warn({ err: (e as Error).message }, "facilitator verify failed");
      throw upstreamFailed("facilitator_unavailable", "The payment facilitator could not be reached; nothing was charged.");
    }
    if (!verified.isValid) {
      await release();
      return refuse(verified.invalidReason ?? "payment_invalid");
    }

    const payment: PaymentInfo = { payer: auth.from.toLowerCase(), amountAtomic: call.amount, nonce: auth.nonce };
    let settledTx: string | undefined;
    try {
      const runAndSettle = async (handle: Transaction<DB> | Database) => {
        const result = await call.work(handle, payment);
        let settleResponse: SettleResponse;
        try {
          settleResponse = await facilitator.settle(decoded, req);
        } catch (e) {
          settleResponse = {
            success: false,
            errorReason: "settlement_error",
            errorMessage: (e as Error).message,
            transaction: "",
            network: req.network as SettleResponse["network"],
          };
        }
        // A settle answer with success:false is a failure even when nothing threw.
        if (!settleResponse.success) throw new SettlementFailed(settleResponse);
        settledTx = settleResponse.transaction;
        await handle
          .updateTable("payments")
          .set({ status: "settled", tx_hash: settleResponse.transaction, settled_at: new Date(clock.now()) })
          .where("id", "=", paymentId)
          .execute();
        return { result, settleResponse };
      };
      const { result, settleResponse } = call.readOnly
        ? await runAndSettle(db)
        : await db.transaction().execute((trx) => runAndSettle(trx));
      const header = encodePaymentResponseHeader(settleResponse);
      return {
        kind: "paid",
        result,
        settleResponse,
        headers: { "PAYMENT-RESPONSE": header, "X-PAYMENT-RESPONSE": header },
      };
    } catch (e) {
      if (e instanceof SettlementFailed) {
        await db
          .updateTable("payments")
          .set({ status: "failed", error: e.response.errorReason ?? "settlement_failed" })
          .where("id", "=", paymentId)
          .execute();
        log.warn({ reason: e.response.errorReason, route: call.route }, "settlement failed; work rolled back");
        return refuse(`settlement_failed: ${e.response.errorReason ?? "unknown"}`, e.response);
      }
      if (settledTx !== undefined) {
        // Money moved but the commit failed: keep the nonce burnt and leave a trail for reconciliation.
        log.error({ route: call.route, tx: settledTx, err: (e as Error).message }, "payment settled but the work did not commit");
        await db
          .updateTable("payments")
          .set({ status: "settled", tx_hash: settledTx, error: "work_not_committed", settled_at: new Date(clock.now()) })
          .where("id", "=", paymentId)
          .execute();
        throw e;
      }
      // The work failed: nothing was settled, so the authorisation may be used again.
      await release();
      throw e;
    }
  }

  return { terms, requirementsFor, paymentRequired, run };
}
