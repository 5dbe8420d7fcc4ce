/**
 * The x402 flow around one paid call, framework-free:
 *   decode → check terms → take the once-ever nonce row → facilitator verify →
 *   run the work inside a DB transaction → settle → store the answer → commit.
 * A failed settlement rolls the work back; a nonce is accepted once, ever, and
 * the pending row is the cross-process lock from verify until settle ends.
 *
 * Paid work is idempotent (docs/idempotency.md):
 * - the same signed authorisation presented again for the same request gets
 *   the stored answer of the work, never a second run;
 * - the payment-identifier extension: the same id (per payer) with the same
 *   request gets the stored answer and nothing is charged again; with another
 *   request it is a 409;
 * - an authorisation whose work never committed (the process died after the
 *   settlement) is resumed on the chain's evidence only: the token contract
 *   marks it used and its transaction paid us this price; the work is then
 *   done now, once. Nothing is ever re-settled.
 * Stored answers are sealed with the master key and deleted when the
 * authorisation could no longer be presented (reconcile.ts purges them).
 *
 * The probe (docs/discovery.md): a crawler that calls a paid route with no
 * payment and no input at all (POST without a body or with `{}`, GET without a
 * query string) gets this route's 402 and PAYMENT-REQUIRED, with the bazaar
 * extension describing the input, even when the route needs input: `probe`
 * builds it and nothing else happens (no precheck, no work, no payment row).
 * The router decides what is a probe: any input sent is validated first, so a
 * non-empty invalid body is a 400 before any 402, and with a payment header an
 * empty or invalid input is a 400 and nothing is charged.
 *
 * Irreversible work (`settleBeforeWork`: a transaction sent to builders, a
 * message that cannot be unsent) turns the order round: every refusal is the
 * route's precheck, before the 402 and again before verify; then verify →
 * settle → the work → store the answer, all under the payment row's lock. A
 * failed settlement does nothing; work that fails after settlement leaves the
 * row settled without work (resumed once on the chain's word, as above); a
 * retry never does the work again, stored answer or not.
 */
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Logger } from "pino";
import { sql, type Selectable, type Transaction } from "kysely";
import { verifyTypedData } from "viem";
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension, isValidPaymentId } from "@x402/extensions/payment-identifier";
import type { Database } from "../db/types.js";
import type { DB, PaymentsTable } from "../db/schema.js";
import type { Clock } from "../core/clock.js";
import type { SecretBox } from "../core/secretbox.js";
import { ServiceError, unavailable, upstreamFailed } from "../core/errors.js";
import type { UsdcAsset } from "./networks.js";
import type { AuthorizationReader } from "./authorization-state.js";
import { isDatabaseOutage } from "../db/unavailable.js";

/** Largest payment header we decode (a real v2 payload is about 1 KB of base64). */
export const MAX_PAYMENT_HEADER_BYTES = 8192;
/** Seconds an authorisation must still be valid for when it reaches us (the reference facilitator uses 6). */
const MIN_VALIDITY_SECONDS = 6n;
/** Extra seconds of validBefore we tolerate beyond maxTimeoutSeconds (client clock skew). */
export const VALID_BEFORE_SLACK_SECONDS = 600n;

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
  /** Whether answers are stored for retries (a master key is configured). */
  idempotent: boolean;
  /** Seconds a stored answer is kept: as long as an authorisation can be presented. */
  responseTtlSeconds: number;
  requirementsFor(amount: bigint): PaymentRequirements;
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
  extensions: z.record(z.string(), z.unknown()).optional(),
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

/** JSON with sorted keys and bigints as decimal strings: one text per value, whatever the key order. */
function canonicalJson(v: unknown): string {
  if (typeof v === "bigint") return JSON.stringify(v.toString());
  if (v === undefined) return "null";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
}

/** What a stored answer belongs to: the route and its validated input. */
export function requestHash(route: string, input: unknown): string {
  return createHash("sha256").update(`${route}\n${canonicalJson(input)}`).digest("hex");
}

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

type PaymentRow = Selectable<PaymentsTable>;

export function createPaywall(deps: {
  db: Database;
  facilitator: FacilitatorClient;
  terms: PaymentTerms | null;
  clock: Clock;
  log: Logger;
  /** Seals stored answers; without it nothing is stored and payment-identifier is not declared. */
  secretBox?: SecretBox | null;
  /** Reads authorisations on chain, to resume work whose settlement outlived its process. */
  chain?: AuthorizationReader | null;
}): Paywall {
  const { db, facilitator, terms, clock, log } = deps;
  const secretBox = deps.secretBox ?? null;
  const responseTtlSeconds = (terms?.maxTimeoutSeconds ?? 300) + Number(VALID_BEFORE_SLACK_SECONDS);

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
  function checkTerms(p: ExactEvmPayload, req: PaymentRequirements): void {
    const a = p.accepted;
    const auth = p.payload.authorization;
    if (a.scheme !== "exact") throw new Refusal("unsupported_scheme");
    if (a.network !== req.network) throw new Refusal("network_mismatch");
    if (a.asset.toLowerCase() !== req.asset.toLowerCase()) throw new Refusal("asset_mismatch");
    if (a.payTo.toLowerCase() !== req.payTo.toLowerCase() || auth.to.toLowerCase() !== req.payTo.toLowerCase())
      throw new Refusal("recipient_mismatch");
    if (a.amount !== req.amount || auth.value !== req.amount) throw new Refusal("amount_mismatch");
  }

  /** The time window, checked only before a fresh settlement (a retry of settled work may come later). */
  function checkWindow(p: ExactEvmPayload, req: PaymentRequirements, minValidity: bigint): void {
    const auth = p.payload.authorization;
    const now = BigInt(Math.floor(clock.now() / 1000));
    if (BigInt(auth.validAfter) > now) throw new Refusal("authorization_not_yet_valid");
    if (BigInt(auth.validBefore) < now + MIN_VALIDITY_SECONDS) throw new Refusal("authorization_expired");
    if (BigInt(auth.validBefore) < now + minValidity) throw new Refusal("authorization_expires_too_soon");
    if (BigInt(auth.validBefore) > now + BigInt(req.maxTimeoutSeconds) + VALID_BEFORE_SLACK_SECONDS)
      throw new Refusal("authorization_validity_too_long");
  }

  /**
   * The caller holds the payer's key: the EIP-712 signature recovers to `from`.
   * Asked before a stored answer is handed out (it may hold secrets) or
   * settled work is resumed, when the facilitator cannot vouch any more.
   */
  async function signedByPayer(p: ExactEvmPayload): Promise<boolean> {
    if (!terms) return false;
    const auth = p.payload.authorization;
    try {
      return await verifyTypedData({
        address: auth.from as `0x${string}`,
        domain: { name: terms.usdc.name, version: terms.usdc.version, chainId: terms.usdc.chainId, verifyingContract: terms.usdc.asset },
        types: TRANSFER_WITH_AUTHORIZATION,
        primaryType: "TransferWithAuthorization",
        message: {
          from: auth.from as `0x${string}`,
          to: auth.to as `0x${string}`,
          value: BigInt(auth.value),
          validAfter: BigInt(auth.validAfter),
          validBefore: BigInt(auth.validBefore),
          nonce: auth.nonce as `0x${string}`,
        },
        signature: p.payload.signature as `0x${string}`,
      });
    } catch {
      return false;
    }
  }

  function seal<T>(call: PaidCall<T>, rowId: string, result: T): { response_status: number; response_sealed: Buffer; response_expires_at: Date } | Record<string, never> {
    if (!secretBox || !call.codec) return {};
    const text = call.codec.encode(result);
    if (text === undefined) return {};
    return {
      response_status: call.successStatus ?? 200,
      response_sealed: secretBox.seal(text, `payment-response:${rowId}`),
      response_expires_at: new Date(clock.now() + responseTtlSeconds * 1000),
    };
  }

  function paidOutcome<T>(result: T, settleResponse: SettleResponse, replayed = false): PaidOutcome<T> {
    const header = encodePaymentResponseHeader(settleResponse);
    return { kind: "paid", result, settleResponse, headers: { "PAYMENT-RESPONSE": header, "X-PAYMENT-RESPONSE": header }, ...(replayed ? { replayed } : {}) };
  }

  const settledResponse = (row: Pick<PaymentRow, "tx_hash" | "network" | "payer">): SettleResponse => ({
    success: true,
    transaction: row.tx_hash ?? "",
    network: row.network as SettleResponse["network"],
    payer: row.payer,
  });

  /**
   * A payment row seen before for this request: its stored answer, or the
   * work done now when the chain shows the authorisation paid us and no work
   * committed; otherwise a refusal. `refuse` builds the 402.
   */
  async function resume<T>(row: PaymentRow, call: PaidCall<T>, refuse: (reason: string) => PaidOutcome<T>): Promise<PaidOutcome<T>> {
    if (row.status === "failed") return refuse("authorization_already_used");
    if (row.status === "settled" && row.work_done) {
      if (row.response_sealed && secretBox && call.codec) {
        const text = secretBox.open(row.response_sealed, `payment-response:${row.id}`);
        log.info({ route: call.route, payment: row.id }, "paid request retried: the stored answer is returned");
        return paidOutcome(call.codec.decode(text), settledResponse(row), true);
      }
      // Nothing stored (expired, a streamed answer, no master key): work that writes nothing is simply done again,
      // unless it cannot be undone (a second send is a second side effect nobody paid for).
      if (call.readOnly && !call.settleBeforeWork) {
        const result = await call.work(db, { payer: row.payer, amountAtomic: call.amount, nonce: row.nonce });
        return paidOutcome(result, settledResponse(row), true);
      }
      return refuse("authorization_already_used");
    }
    // Pending, or settled without its work: resumed only on the chain's word, under the row's lock.
    if (!deps.chain) {
      if (row.status === "pending") throw new ServiceError("payment_in_progress", "This payment authorisation is being processed by another request.");
      return refuse("authorization_already_used");
    }
    const chain = deps.chain;
    let resumed: { result: T; txHash: string } | "busy" | "unused" | "unattributed" | "elsewhere" | "answered";
    try {
      resumed = await db.transaction().execute(async (trx) => {
        const locked = await trx
          .selectFrom("payments")
          .selectAll()
          .where("id", "=", row.id)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (!locked) return "busy" as const;
        if (locked.status === "settled" && locked.work_done) return "answered" as const;
        if (locked.status !== "pending" && locked.status !== "settled") return "elsewhere" as const;
        const finding = await chain.check(locked.payer, locked.nonce, BigInt(locked.amount_atomic), { txHash: locked.tx_hash });
        if (finding.state === "unused") return "unused" as const;
        // Used, but the chain has not (yet) said by whom: no verdict, the row stays as it is.
        if (finding.state === "used_unattributed") return "unattributed" as const;
        if (finding.state === "used_elsewhere") {
          await trx.updateTable("payments").set({ status: "failed", error: "authorization_used_elsewhere", checked_at: new Date(clock.now()) }).where("id", "=", row.id).execute();
          return "elsewhere" as const;
        }
        const handle = call.readOnly && !call.settleBeforeWork ? db : trx;
        const result = await call.work(handle, { payer: locked.payer, amountAtomic: call.amount, nonce: locked.nonce });
        await trx
          .updateTable("payments")
          .set({
            status: "settled",
            tx_hash: finding.txHash,
            error: null,
            work_done: true,
            settled_at: locked.settled_at ?? new Date(clock.now()),
            checked_at: new Date(clock.now()),
            ...seal(call, row.id, result),
          })
          .where("id", "=", row.id)
          .execute();
        return { result, txHash: finding.txHash };
      });
    } catch (e) {
      // A database outage (or full disk) is not the chain's: it answers 503 and the retry resumes.
      if (e instanceof ServiceError || isDatabaseOutage(e)) throw e;
      log.warn({ route: call.route, payment: row.id, err: (e as Error).message }, "resuming a settled payment failed");
      throw upstreamFailed("facilitator_unavailable", "The payment's state on chain could not be read; try again shortly.");
    }
    if (resumed === "busy" || resumed === "unused")
      throw new ServiceError("payment_in_progress", "This payment authorisation is being processed by another request.");
    if (resumed === "unattributed") {
      log.warn({ route: call.route, payment: row.id, tx: row.tx_hash }, "resuming a payment: the chain marks the authorisation used but its transaction was not found; left as it is");
      // Not "facilitator_unavailable" (whose promise is "nothing was charged"): here money may have moved.
      throw upstreamFailed(
        "payment_unresolved",
        "The chain marks this payment authorisation as used but its transaction was not found yet; the payment stays pending and the work is not done. Retry later with the same payment: it is never charged twice.",
      );
    }
    if (resumed === "answered") {
      const fresh = await db.selectFrom("payments").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
      return resume(fresh, call, refuse);
    }
    if (resumed === "elsewhere") return refuse("authorization_already_used");
    log.warn({ route: call.route, payment: row.id, tx: resumed.txHash }, "settled payment without work: the work was done on the client's retry");
    return paidOutcome(resumed.result, { ...settledResponse(row), transaction: resumed.txHash });
  }

  /** The extensions every 402 of a call declares: the route's, plus payment-identifier when answers are stored. */
  function declaredExtensions(call: ProbeCall): Record<string, unknown> | undefined {
    return secretBox ? { ...(call.extensions ?? {}), [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) } : call.extensions;
  }

  function probe(call: ProbeCall): PaymentRequiredOutcome {
    return { kind: "payment_required", paymentRequired: paymentRequired(call.resource, call.amount, "payment_required", declaredExtensions(call)) };
  }

  async function run<T>(call: PaidCall<T>): Promise<PaidOutcome<T>> {
    const req = requirementsFor(call.amount);
    const extensions = declaredExtensions(call);
    const refuse = (reason: string, settleResponse?: SettleResponse): PaidOutcome<T> => ({
      kind: "payment_required",
      paymentRequired: paymentRequired(call.resource, call.amount, reason, extensions),
      ...(settleResponse ? { settleResponse } : {}),
    });
    if (call.header === undefined || call.header === "") return refuse("payment_required");
    if (call.header.length > MAX_PAYMENT_HEADER_BYTES)
      throw new ServiceError("payment_header_too_large", `The payment header is over ${MAX_PAYMENT_HEADER_BYTES} bytes; it was not decoded.`, { max_bytes: MAX_PAYMENT_HEADER_BYTES });

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
      checkTerms(payload, req);
    } catch (e) {
      if (e instanceof Refusal) return refuse(e.reason);
      throw e;
    }

    const auth = payload.payload.authorization;
    const payer = auth.from.toLowerCase();
    const hash = requestHash(call.route, call.input);

    // The payment-identifier extension: the client's id for this purchase, across new authorisations.
    let identifier: string | undefined;
    const pidExt = payload.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
    if (secretBox && pidExt !== undefined) {
      const id = pidExt?.info?.id;
      if (id !== undefined && (typeof id !== "string" || !isValidPaymentId(id))) return refuse("invalid_payment_identifier");
      identifier = id as string | undefined;
    }
    if (identifier) {
      const seen = await db.selectFrom("payments").selectAll().where("payer", "=", payer).where("payment_identifier", "=", identifier).executeTakeFirst();
      if (seen && seen.status !== "failed") {
        if (seen.request_hash !== hash)
          throw new ServiceError("payment_identifier_conflict", "This payment identifier was used for a different request; use a new identifier for a new purchase.");
        if (!(await signedByPayer(payload))) return refuse("invalid_exact_evm_payload_signature");
        return resume(seen, call, refuse);
      }
      // A failed attempt charged nothing: the identifier is free for this one.
      if (seen) await db.updateTable("payments").set({ payment_identifier: null }).where("id", "=", seen.id).execute();
    }

    const nonceKey = [req.network, req.asset, auth.from, auth.nonce].join(":").toLowerCase();
    const earlier = await db.selectFrom("payments").selectAll().where("nonce_key", "=", nonceKey).executeTakeFirst();
    if (earlier) return retryOf(earlier);

    try {
      checkWindow(payload, req, BigInt(call.minValiditySeconds ?? 0));
    } catch (e) {
      if (e instanceof Refusal) return refuse(e.reason);
      throw e;
    }

    const paymentId = randomUUID();
    // The once-ever nonce row doubles as the cross-process lock from verify until settle ends.
    let inserted: { id: string } | undefined;
    try {
      inserted = await db
        .insertInto("payments")
        .values({
          id: paymentId,
          nonce_key: nonceKey,
          status: "pending",
          payer,
          route: call.route,
          amount_atomic: call.amount.toString(),
          network: req.network,
          nonce: auth.nonce.toLowerCase(),
          request_hash: hash,
          valid_before: auth.validBefore,
          payment_identifier: identifier ?? null,
          work_done: false,
        })
        .onConflict((oc) => oc.column("nonce_key").doNothing())
        .returning("id")
        .executeTakeFirst();
    } catch (e) {
      // The identifier's unique index: another request with the same identifier got there first.
      if (identifier && /payments_identifier_idx|unique/i.test((e as Error).message))
        throw new ServiceError("payment_in_progress", "A payment with this identifier is being processed by another request.");
      throw e;
    }
    if (!inserted) {
      const existing = await db.selectFrom("payments").selectAll().where("nonce_key", "=", nonceKey).executeTakeFirst();
      if (!existing) throw new ServiceError("payment_in_progress", "This payment authorisation is being processed by another request.");
      return retryOf(existing);
    }

    async function retryOf(row: PaymentRow): Promise<PaidOutcome<T>> {
      // Only the same request may have its answer back; another request never reuses an authorisation.
      if (row.request_hash !== hash || row.route !== call.route || BigInt(row.amount_atomic) !== call.amount) return refuse("authorization_already_used");
      // A pending row is either in flight (its work transaction holds the row's lock, or the chain shows it
      // unused: 409) or was left by a process that died after settling (the chain shows it paid: resumed).
      if (!(await signedByPayer(payload))) return refuse("invalid_exact_evm_payload_signature");
      return resume(row, call, refuse);
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

    const payment: PaymentInfo = { payer, amountAtomic: call.amount, nonce: auth.nonce };
    let settledTx: string | undefined;
    const settle = async (): Promise<SettleResponse> => {
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
      return settleResponse;
    };
    // Irreversible work runs under the row's lock too, read-only or not: a concurrent retry must not do it a second time.
    const locked = !call.readOnly || call.settleBeforeWork === true;
    try {
      const runAndSettle = async (handle: Transaction<DB> | Database) => {
        // The row stays locked until the work commits: a retry never resumes work that is still in flight.
        if (locked) await sql`select id from payments where id = ${paymentId} for update`.execute(handle);
        let result: T;
        let settleResponse: SettleResponse;
        if (call.settleBeforeWork) {
          settleResponse = await settle();
          result = await call.work(handle, payment);
        } else {
          result = await call.work(handle, payment);
          settleResponse = await settle();
        }
        await handle
          .updateTable("payments")
          .set({ status: "settled", tx_hash: settleResponse.transaction, settled_at: new Date(clock.now()), work_done: true, ...seal(call, paymentId, result) })
          .where("id", "=", paymentId)
          .execute();
        return { result, settleResponse };
      };
      const { result, settleResponse } = locked ? await db.transaction().execute((trx) => runAndSettle(trx)) : await runAndSettle(db);
      return paidOutcome(result, settleResponse);
    } catch (e) {
      if (e instanceof SettlementFailed) {
        const indeterminate = e.response.errorReason === "settlement_error" || e.response.errorReason === "settlement_pending";
        // A settlement whose outcome is unknown stays pending: the reconciler asks the chain. Otherwise nothing moved.
        await db
          .updateTable("payments")
          .set(indeterminate ? { error: e.response.errorReason ?? "settlement_error" } : { status: "failed", error: e.response.errorReason ?? "settlement_failed" })
          .where("id", "=", paymentId)
          .execute();
        log.warn({ reason: e.response.errorReason, route: call.route }, call.settleBeforeWork ? "settlement failed; the work was not done" : "settlement failed; work rolled back");
        return refuse(`settlement_failed: ${e.response.errorReason ?? "unknown"}`, e.response);
      }
      if (settledTx !== undefined) {
        // Money moved but the commit failed: keep the nonce burnt; the client's retry (or the operator) resumes the work.
        // Only a row still pending: a commit whose answer was lost may have landed (settled, work done), and a
        // concurrent retry may have resumed the work meanwhile; neither is undone here.
        log.error({ route: call.route, tx: settledTx, err: (e as Error).message }, "payment settled but the work did not commit");
        await db
          .updateTable("payments")
          .set({ status: "settled", tx_hash: settledTx, error: "work_not_committed", work_done: false, settled_at: new Date(clock.now()) })
          .where("id", "=", paymentId)
          .where("status", "=", "pending")
          .execute();
        throw e;
      }
      // The work failed: nothing was settled, so the authorisation may be used again.
      await release();
      throw e;
    }
  }

  return { terms, idempotent: secretBox !== null, responseTtlSeconds, requirementsFor, paymentRequired, probe, run };
}
