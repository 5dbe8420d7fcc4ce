/**
 * Checkout over HTTP (and MCP): the summary, invoices, checkout keys and the
 * hosted pay page. Each handler adapts one operation of invoices.ts. The
 * summary lists the invoice and key routes from their RouteDefs; only how a
 * caller authenticates is written beside each, as no RouteDef field says it.
 */
import { z } from "zod";
import { defineRoute, RawBody, type AnyRouteDef } from "../http/route-table.js";
import { openApiPath } from "../http/openapi.js";
import type { Queryable } from "../db/types.js";
import {
  CheckoutKeySchema,
  createCheckoutKey,
  createInvoice,
  CreateInvoiceInput,
  CreateKeyInput,
  DESCRIPTION_MAX,
  getPublicInvoice,
  INVOICE_MIN_CENTS,
  InvoiceListSchema,
  KEY_LABEL_MAX,
  listInvoices,
  ListInvoicesInput,
  ORDER_ID_MAX,
  PublicInvoiceSchema,
  revokeCheckoutKey,
  cancelInvoice,
  CancelInvoiceInput,
  RevokeKeyInput,
  SETTLEMENT_FEE,
  TTL_DEFAULT_MINUTES,
  TTL_MAX_MINUTES,
  TTL_MIN_MINUTES,
  type CheckoutCtx,
  type CheckoutDeps,
} from "./invoices.js";
import { INVOICE_EVENTS } from "./invoice-state.js";
import { faviconSvg, PAY_PAGE_PATH, payPageHtml, walletUriQrSvg } from "./pay-page.js";

const SummarySchema = z.object({
  product: z.literal("checkout"),
  about: z.string(),
  chains: z.object({ monero: z.boolean(), zcash: z.boolean() }),
  endpoints: z.array(z.object({ method: z.string(), path: z.string(), auth: z.string() })),
  fees: z.object({ invoiceCreation: z.string(), keyCreation: z.string(), settlementFeeAtomic: z.string(), settlementFeeUsd: z.string() }),
  limits: z.object({
    amountUsdCents: z.object({ min: z.number().int() }),
    ttlMinutes: z.object({ min: z.number().int(), max: z.number().int(), default: z.number().int() }),
    orderIdMaxChars: z.number().int(),
    descriptionMaxChars: z.number().int(),
    keyLabelMaxChars: z.number().int(),
    keyMaxAmountUsdCents: z.object({ min: z.number().int() }),
  }),
  events: z.array(z.string()),
  payUrl: z.string(),
});

/** Turns a request's database handle into the checkout operations' context. */
type CheckoutCtxOf = (db: Queryable) => CheckoutCtx;

/** An invoice or key route and how its caller authenticates, as the summary lists it. */
interface CheckoutEndpoint {
  route: AnyRouteDef;
  auth: string;
}

/** The buyer's reads: knowing the invoice id is the credential. */
const ID_IS_CAPABILITY = "none (the id is the capability)";

/** The summary, the invoice and key routes it lists, the pay page and the favicon, in router order. */
export function checkoutRoutes(deps: CheckoutDeps): AnyRouteDef[] {
  const ctxOf: CheckoutCtxOf = (db) => ({ deps, db });
  const endpoints: CheckoutEndpoint[] = [
    { route: invoiceCreateRoute(ctxOf), auth: "{watchId, watchToken} or {checkoutKey} in the body" },
    { route: invoiceListRoute(ctxOf), auth: "header x-watch-token; query watchId, status" },
    { route: invoiceStatusRoute(ctxOf), auth: ID_IS_CAPABILITY },
    { route: invoiceQrRoute(ctxOf), auth: ID_IS_CAPABILITY },
    { route: invoiceCancelRoute(ctxOf), auth: "header x-watch-token" },
    { route: keyCreateRoute(ctxOf), auth: "{watchId, watchToken} in the body" },
    { route: keyRevokeRoute(ctxOf), auth: "header x-watch-token" },
  ];
  return [summaryRoute(deps, endpoints), ...endpoints.map((e) => e.route), payPageRoute(), faviconRoute()];
}

function summaryRoute(deps: CheckoutDeps, endpoints: readonly CheckoutEndpoint[]) {
  return defineRoute({
    method: "GET",
    path: "/v1/checkout",
    operationId: "checkoutSummary",
    summary: "Checkout: exact-amount XMR/ZEC invoices paid to the merchant's own watched wallet; endpoints, fees, limits",
    tags: ["checkout"],
    mcpTool: "service_checkout_info",
    input: z.object({}).strict(),
    output: SummarySchema,
    handler: async () => checkoutSummary(deps, endpoints),
  });
}

/** The summary's answer: its endpoint list is read off the routes, in table order, with their paths as OpenAPI writes them. */
function checkoutSummary(deps: CheckoutDeps, endpoints: readonly CheckoutEndpoint[]): z.input<typeof SummarySchema> {
  return {
    product: "checkout",
    about:
      "Non-custodial invoices: the buyer pays the merchant's own watched wallet; the watch's view key sees the payment; webhooks are signed with the watch's secret. A flat fee per paid invoice is debited from the watch credit.",
    chains: { monero: Boolean(deps.coin.watch.scanners.monero), zcash: Boolean(deps.coin.watch.scanners.zcash) },
    endpoints: endpoints.map(({ route, auth }) => ({ method: route.method, path: openApiPath(route.path), auth })),
    fees: { invoiceCreation: "free", keyCreation: "free", settlementFeeAtomic: SETTLEMENT_FEE.toString(), settlementFeeUsd: "0.02" },
    limits: {
      amountUsdCents: { min: INVOICE_MIN_CENTS },
      ttlMinutes: { min: TTL_MIN_MINUTES, max: TTL_MAX_MINUTES, default: TTL_DEFAULT_MINUTES },
      orderIdMaxChars: ORDER_ID_MAX,
      descriptionMaxChars: DESCRIPTION_MAX,
      keyLabelMaxChars: KEY_LABEL_MAX,
      keyMaxAmountUsdCents: { min: 1 },
    },
    events: [...INVOICE_EVENTS],
    payUrl: deps.payUrl(),
  };
}

function invoiceCreateRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/checkout/invoices",
    operationId: "checkoutInvoiceCreate",
    summary: "Create an invoice: an exact XMR or ZEC amount paid to the watch's own address, rate locked for the TTL",
    description:
      "Free. Authenticate with `watchId` + `watchToken` (server side) or a `checkoutKey` (ck_…, safe in a storefront page). Monero: the amount's last six digits identify the invoice. Zcash: the memo token (`memo`, also in the ZIP 321 `uri`) does, and the amount's last three digits for a wallet that sends no memo. A chain this server does not scan answers 503 `checkout_chain_unavailable`.",
    tags: ["checkout"],
    mcpTool: "service_checkout_invoice_create",
    input: CreateInvoiceInput,
    inputAlternatives: { sets: [["checkoutKey"], ["watchId", "watchToken"]], exactlyOne: true },
    output: PublicInvoiceSchema,
    successStatus: 201,
    handler: (input, ctx) => createInvoice({ ctx: ctxOf(ctx.db), input }),
  });
}

function invoiceListRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/checkout/invoices",
    operationId: "checkoutInvoiceList",
    summary: "A watch's recent invoices (newest 50) with the delivery of their webhooks",
    tags: ["checkout"],
    mcpTool: "service_checkout_invoice_list",
    input: ListInvoicesInput,
    headerInputs: { "x-watch-token": "watchToken" },
    output: InvoiceListSchema,
    handler: (input, ctx) => listInvoices({ ctx: ctxOf(ctx.db), input }),
  });
}

function invoiceStatusRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/checkout/invoices/:invoiceId",
    operationId: "checkoutInvoiceStatus",
    summary: "An invoice as its buyer sees it: amount, address, live status and confirmations (no secret of the watch)",
    tags: ["checkout"],
    mcpTool: "service_checkout_invoice_status",
    input: z.object({ invoiceId: z.string().uuid() }),
    output: PublicInvoiceSchema,
    handler: (input, ctx) => getPublicInvoice({ ctx: ctxOf(ctx.db), input }),
  });
}

function invoiceQrRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/checkout/invoices/:invoiceId/qr.svg",
    operationId: "checkoutInvoiceQr",
    summary: "The QR code (SVG) of an invoice's wallet URI, as the pay page shows it",
    tags: ["checkout"],
    input: z.object({ invoiceId: z.string().uuid() }),
    output: z.string(),
    mimeType: "image/svg+xml",
    handler: async (input, ctx) => {
      const invoice = await getPublicInvoice({ ctx: ctxOf(ctx.db), input });
      return new RawBody(await walletUriQrSvg(invoice.uri), "image/svg+xml; charset=utf-8");
    },
  });
}

function invoiceCancelRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "DELETE",
    path: "/v1/checkout/invoices/:invoiceId",
    operationId: "checkoutInvoiceCancel",
    summary: "Cancel a pending invoice (watch token in header x-watch-token); its amount tag is freed at once",
    description:
      "Only a `pending` invoice can be cancelled (409 `invoice_not_cancellable` otherwise). No webhook is sent. A payment that arrives afterwards is an ordinary payment to the merchant's wallet, told by the watch's `balance_change`.",
    tags: ["checkout"],
    mcpTool: "service_checkout_invoice_cancel",
    input: CancelInvoiceInput,
    headerInputs: { "x-watch-token": "watchToken" },
    output: PublicInvoiceSchema,
    handler: (input, ctx) => cancelInvoice({ ctx: ctxOf(ctx.db), input }),
  });
}

function keyCreateRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/checkout/keys",
    operationId: "checkoutKeyCreate",
    summary: "Mint a ck_ checkout key (shown once) that creates invoices for this watch only, optionally capped per invoice",
    tags: ["checkout"],
    mcpTool: "service_checkout_key_create",
    input: CreateKeyInput,
    output: CheckoutKeySchema,
    successStatus: 201,
    handler: (input, ctx) => createCheckoutKey({ ctx: ctxOf(ctx.db), input }),
  });
}

function keyRevokeRoute(ctxOf: CheckoutCtxOf) {
  return defineRoute({
    method: "DELETE",
    path: "/v1/checkout/keys/:keyId",
    operationId: "checkoutKeyRevoke",
    summary: "Revoke a checkout key at once (watch token in header x-watch-token)",
    tags: ["checkout"],
    mcpTool: "service_checkout_key_revoke",
    input: RevokeKeyInput,
    headerInputs: { "x-watch-token": "watchToken" },
    output: z.object({ keyId: z.string(), revoked: z.literal(true), revokedAt: z.string() }),
    handler: (input, ctx) => revokeCheckoutKey({ ctx: ctxOf(ctx.db), input }),
  });
}

function payPageRoute() {
  return defineRoute({
    method: "GET",
    path: PAY_PAGE_PATH,
    operationId: "checkoutPayPage",
    summary: "The hosted pay page (HTML): open it at /pay/#<invoiceId>",
    tags: ["checkout"],
    input: z.object({}).strict(),
    output: z.string(),
    mimeType: "text/html",
    handler: async (_input, ctx) => new RawBody(payPageHtml(ctx.baseUrl), "text/html; charset=utf-8"),
  });
}

function faviconRoute() {
  return defineRoute({
    method: "GET",
    path: "/favicon.ico",
    operationId: "favicon",
    summary: "The service's icon (SVG), the one the pay page carries inline",
    description: "Browsers ask every site for /favicon.ico: the answer is the SVG icon that web/pay/index.html carries inline (one drawing for both), never a 404.",
    tags: ["checkout"],
    input: z.object({}).strict(),
    output: z.string(),
    mimeType: "image/svg+xml",
    handler: async () => new RawBody(faviconSvg(), "image/svg+xml; charset=utf-8"),
  });
}
