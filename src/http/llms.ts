/**
 * GET /llms.txt: a concise guide for agents, generated from the route table,
 * the error registry and the configured limits, so it cannot drift from what
 * the service answers. The flows name routes by operation id and print the
 * table's own method, path and price; a step whose route is not in the table
 * is left out.
 */
import { ERROR_CODES } from "../core/errors.js";
import { MAX_BODY_BYTES } from "./middleware.js";
import { MAX_PAYMENT_HEADER_BYTES } from "../x402/paywall.js";
import { priceLabel, type AnyRouteDef } from "./route-table.js";
import { batchSettlementHow, schemeChoice, schemeNames } from "./payment-schemes.js";
import type { ChannelTerms } from "../x402/channel-terms.js";

export interface LlmsTxtInfo {
  baseUrl: string;
  network: string;
  payTo: string | undefined;
  /** The batch-settlement channel terms; absent: only exact is offered. */
  channel: ChannelTerms | undefined;
  generalPerMinute: number;
  /** Whether paid answers are stored for retries (payment-identifier declared). */
  idempotent: boolean;
  responseTtlSeconds: number;
  /** What the allow-list gives, without who is on it. */
  allowList: { enabled: boolean; perMinute: number | undefined };
}

const oas = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

/** How to pay with batch-settlement, when channels are offered. */
function batchSection(channel: ChannelTerms): string {
  return `### Repeated calls: \`batch-settlement\`

The 402's \`batch-settlement\` entry carries the channel's terms in \`extra\` (\`receiverAuthorizer\`, \`withdrawDelay\`, \`minDeposit\`); GET /v1/paywall lists the escrow, the deposit policy and each route's \`min_deposit_atomic\`. ${batchSettlementHow(channel)} An x402 v2 client with the batch-settlement scheme (\`@x402/evm\`) does all of this; send its payment in the same header.

`;
}

export function buildLlmsTxt(routes: readonly AnyRouteDef[], info: LlmsTxtInfo): string {
  const byOp = new Map(routes.map((r) => [r.operationId, r]));
  const ref = (op: string) => {
    const r = byOp.get(op);
    if (!r) return undefined;
    const price = priceLabel(r);
    return `\`${r.method} ${oas(r.path)}\`${price ? ` (${price})` : " (free)"}`;
  };
  const steps = (list: [string, string][]) =>
    list
      .map(([op, text]) => {
        const r = ref(op);
        return r ? `- ${r}: ${text}` : undefined;
      })
      .filter(Boolean)
      .join("\n");

  const paid = routes.filter((r) => r.price !== undefined);
  const free = routes.filter((r) => r.price === undefined);
  const line = (r: AnyRouteDef) => `- \`${r.method} ${oas(r.path)}\` ${priceLabel(r) ?? "free"}: ${r.summary}${r.mcpTool ? ` (MCP tool \`${r.mcpTool}\`)` : ""}`;
  const limited = routes.filter((r) => r.rateLimit);

  return `# Vigil

> Pay-per-call API for privacy chains: view-key payment watching (Monero, Zcash) with signed webhooks, checkout invoices, chain-data questions, feeds and notice boards. Paid routes use x402 v2 (scheme ${schemeNames(info.channel)}, USDC on \`${info.network}\`); no account or API key.

Base URL: ${info.baseUrl}
OpenAPI 3.1: ${info.baseUrl}/openapi.json (paid operations carry \`x-payment-info\`; free ones \`security: []\`)
x402 discovery: ${info.baseUrl}/.well-known/x402 · prices: ${info.baseUrl}/v1/paywall · MCP: ${info.baseUrl}/mcp

## How to pay (x402 v2)
${info.channel ? `\nEvery 402 offers two schemes in \`accepts\`: ${schemeChoice(info.channel)}. The steps below are \`exact\`'s; \`batch-settlement\` follows.\n` : ""}
1. Call the route without payment. It answers \`402\` with a base64 \`PAYMENT-REQUIRED\` header (the same JSON is the body): the price in USDC atomic units (6 decimals), \`payTo\`${info.payTo ? ` (${info.payTo})` : ""}, the network and \`maxTimeoutSeconds\`. Its \`extensions.bazaar\` describes the input and an example answer.
2. Sign an EIP-3009 \`transferWithAuthorization\` for exactly that amount (any x402 v2 client does this) and send the same request again with the \`PAYMENT-SIGNATURE\` header (\`X-PAYMENT\` is accepted too), at most ${MAX_PAYMENT_HEADER_BYTES} bytes.
3. The work runs, the payment settles, and the answer comes with a \`PAYMENT-RESPONSE\` header (the settlement transaction). If settlement fails you get a \`402\` again and nothing is charged.
${info.idempotent ? `4. Retries are safe: send the payment-identifier extension (\`extensions["payment-identifier"].info.id\`, 16-128 of \`[A-Za-z0-9_-]\`) and a retry of the same request with the same id gets the stored answer without a second charge, for ${info.responseTtlSeconds} s; the same id for another request is \`409 payment_identifier_conflict\`. Retrying the same signed authorisation for the same request also returns the stored answer.\n` : ""}
${info.channel ? batchSection(info.channel) : ""}Invalid input is refused with \`400\` before any payment is asked for.

## Paid routes

${paid.map(line).join("\n")}

## Free routes

${free.map(line).join("\n")}

## Watch flow (Private Watch)

${steps([
  ["privateWatchInfo", "read the guide: chains, prices, webhook events and how to verify their signatures"],
  ["privateWatchCreate", "create a watch with the chain, address, view key and your webhook URL; the answer holds `watchId`, `watchToken` and `webhookSecret`, shown once: keep them"],
  ["privateWatchTest", "fire one signed test webhook to your URL"],
  ["privateWatchStatus", "credit, deliveries and state (send `x-watch-token`)"],
  ["privateTopup", "add credit; each delivered event and each day of watching draws from it"],
  ["privateTopupCustom", "add a chosen amount of credit"],
  ["coinTopupQuote", "or pay the credit in coin: a quote to pay on chain"],
  ["privateWatchCancel", "stop the watch"],
])}

## Checkout flow (invoices paid in coin)

${steps([
  ["checkoutSummary", "what checkout does and how"],
  ["checkoutKeyCreate", "a checkout key for your server, tied to one of your watches"],
  ["checkoutInvoiceCreate", "an invoice in USD cents; the answer has the amount in coin, the address and a hosted pay page"],
  ["checkoutInvoiceStatus", "the invoice's state (pending, paid, expired); your watch's webhook also announces the payment"],
  ["checkoutInvoiceList", "your invoices"],
])}

## Errors

Every error is \`{"error": {"code", "message", "details"?}}\` with the status below.

${Object.entries(ERROR_CODES)
  .map(([code, e]) => `- \`${code}\` ${e.status}: ${e.description}`)
  .join("\n")}

## Limits

- ${info.generalPerMinute} requests per minute per IP over all routes (\`429 rate_limited\` with \`Retry-After\`)${info.allowList.enabled ? `; operators can allow-list addresses or tokens for ${info.allowList.perMinute ?? "a higher"} per minute (ask)` : "; ask the operator for an allow-list entry if you need more"}.
${limited.map((r) => `- \`${r.method} ${oas(r.path)}\`: ${r.rateLimit!.points} per ${r.rateLimit!.windowSeconds} s per IP`).join("\n")}
- Request bodies: at most ${MAX_BODY_BYTES} bytes. Payment headers: at most ${MAX_PAYMENT_HEADER_BYTES} bytes.
`;
}
