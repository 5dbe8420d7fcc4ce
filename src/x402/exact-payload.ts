/**
 * The x402 `exact` EVM payload (an EIP-3009 transferWithAuthorization) as
 * the paywall accepts it, and the checks made on it before anything leaves
 * the process: its shape, our terms, its time window, its signature, its
 * payment identifier. Each check answers the refusal's reason (the `error` of
 * the 402) or nothing; none touches the database or the network.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { verifyTypedData } from "viem";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { authorizationTypes } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { PAYMENT_IDENTIFIER, isValidPaymentId } from "@x402/extensions/payment-identifier";
import type { UsdcAsset } from "./networks.js";

/** Seconds an authorisation must still be valid for when it reaches us (the reference facilitator uses 6). */
export const MIN_VALIDITY_SECONDS = 6n;
/** Extra seconds of validBefore we tolerate beyond maxTimeoutSeconds (client clock skew). */
export const VALID_BEFORE_SLACK_SECONDS = 600n;

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
export type ExactEvmPayload = z.infer<typeof ExactEvmPayload>;

/** A payment header decoded: the payload as sent (the facilitator gets it as is) and its checked shape. */
export interface DecodedPayment {
  decoded: PaymentPayload;
  payload: ExactEvmPayload;
}

/** Decodes a PAYMENT-SIGNATURE header into its payload (any scheme); a header that is not one is a refusal. */
export function decodePaymentHeader(header: string): PaymentPayload | string {
  try {
    return decodePaymentSignatureHeader(header.trim());
  } catch {
    return "invalid_payment_header";
  }
}

/** A decoded payment as an `exact` EIP-3009 payload; a payload of another shape is a refusal. */
export function parseExactPayload(decoded: PaymentPayload): DecodedPayment | string {
  const parsed = ExactEvmPayload.safeParse(decoded);
  return parsed.success ? { decoded, payload: parsed.data } : "invalid_payment_payload";
}

/** Decodes a PAYMENT-SIGNATURE header as an `exact` payload; a header that is not one, or a payload of another shape, is a refusal. */
export function decodeExactPayload(header: string): DecodedPayment | string {
  const decoded = decodePaymentHeader(header);
  return typeof decoded === "string" ? decoded : parseExactPayload(decoded);
}

/** Checks the decoded payload against our terms. */
export function termsRefusal(p: ExactEvmPayload, req: PaymentRequirements): string | undefined {
  const a = p.accepted;
  const auth = p.payload.authorization;
  if (a.scheme !== "exact") return "unsupported_scheme";
  if (a.network !== req.network) return "network_mismatch";
  if (a.asset.toLowerCase() !== req.asset.toLowerCase()) return "asset_mismatch";
  if (a.payTo.toLowerCase() !== req.payTo.toLowerCase() || auth.to.toLowerCase() !== req.payTo.toLowerCase()) return "recipient_mismatch";
  if (a.amount !== req.amount || auth.value !== req.amount) return "amount_mismatch";
  return undefined;
}

/** The time window, checked only before a fresh settlement (a retry of settled work may come later). */
export function windowRefusal(p: ExactEvmPayload, req: PaymentRequirements, nowMs: number, minValidity: bigint): string | undefined {
  const auth = p.payload.authorization;
  const now = BigInt(Math.floor(nowMs / 1000));
  if (BigInt(auth.validAfter) > now) return "authorization_not_yet_valid";
  if (BigInt(auth.validBefore) < now + MIN_VALIDITY_SECONDS) return "authorization_expired";
  if (BigInt(auth.validBefore) < now + minValidity) return "authorization_expires_too_soon";
  if (BigInt(auth.validBefore) > now + BigInt(req.maxTimeoutSeconds) + VALID_BEFORE_SLACK_SECONDS) return "authorization_validity_too_long";
  return undefined;
}

/**
 * The payment-identifier extension: the client's id for this purchase,
 * across new authorisations; read only when answers are stored (`accepted`).
 * A malformed id is a refusal.
 */
export function paymentIdentifierOf(p: ExactEvmPayload, accepted: boolean): { identifier: string | undefined } | string {
  const ext = p.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
  if (!accepted || ext === undefined) return { identifier: undefined };
  const id = ext?.info?.id;
  if (id !== undefined && (typeof id !== "string" || !isValidPaymentId(id))) return "invalid_payment_identifier";
  return { identifier: id as string | undefined };
}

/** The once-ever key of an authorisation: network, token, payer and nonce. */
export function nonceKeyOf(req: PaymentRequirements, p: ExactEvmPayload): string {
  const auth = p.payload.authorization;
  return [req.network, req.asset, auth.from, auth.nonce].join(":").toLowerCase();
}


/**
 * The caller holds the payer's key: the EIP-712 signature recovers to `from`.
 * Asked before a stored answer is handed out (it may hold secrets) or
 * settled work is resumed, when the facilitator cannot vouch any more.
 */
export async function signedByPayer(usdc: UsdcAsset | undefined, p: ExactEvmPayload): Promise<boolean> {
  if (!usdc) return false;
  const auth = p.payload.authorization;
  try {
    return await verifyTypedData({
      address: auth.from as `0x${string}`,
      domain: { name: usdc.name, version: usdc.version, chainId: usdc.chainId, verifyingContract: usdc.asset },
      types: authorizationTypes,
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
