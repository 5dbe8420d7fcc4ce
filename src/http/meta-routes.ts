/**
 * The free routes that describe the service itself: the index, GET /v1/paywall,
 * the OpenAPI document, the x402 discovery manifest and GET /v1/health. They
 * read the finished route table, so they are built last.
 */
import { z } from "zod";
import { sql } from "kysely";
import { defineRoute, defineStandingRoute, priceLabel, type AnyRouteDef } from "./route-table.js";
import { buildOpenApi, OpenApiDocument } from "./openapi.js";
import { buildLlmsTxt, type LlmsTxtInfo } from "./llms.js";
import { discoveryResources, discoveryInstructions } from "./discovery.js";
import { BatchSettlementInfo, batchSettlementInfo, minDepositAtomic, offeredSchemes, SCHEME_NAMES } from "./payment-schemes.js";
import { RawBody } from "./route-table.js";
import { fixedAnswer } from "./respond.js";
import type { Paywall } from "../x402/paywall.js";
import type { Database } from "../db/types.js";

/** One upstream's line in /v1/health; chains add their own details (height, network, …). */
export const UpstreamHealth = z
  .object({
    /** Absent when a check failed before it could tell. */
    configured: z.boolean().optional(),
    available: z.boolean(),
    height: z.number().int().optional(),
    synchronized: z.boolean().optional(),
    network: z.string().optional(),
    error: z.string().optional(),
  })
  .catchall(z.unknown());
export type UpstreamHealth = z.infer<typeof UpstreamHealth>;

export interface HealthCheck {
  name: string;
  check(): Promise<UpstreamHealth>;
}

export interface MetaDeps {
  site: { baseUrl: string };
  paywall: Paywall;
  facilitatorMode: string;
  facilitatorUrl: string;
  db: Database;
  dbKind: string;
  /** The embedded database's disk space (src/db/disk-guard.ts); absent on PostgreSQL. */
  dbStorage?: () => { freeBytes: number; reserveBytes: number; writable: boolean };
  devnet: boolean;
  healthChecks: readonly HealthCheck[];
  /** Each upstream's source (src/upstream-sources.ts). */
  sources: Readonly<Record<string, "simulated" | "real" | "not_configured">>;
  startedAt: number;
  now: () => number;
  version: string;
  /** The general per-IP limit, for llms.txt. */
  generalPerMinute: number;
  /** What the operator allow-list gives (never who is on it). */
  allowList: LlmsTxtInfo["allowList"];
}

const Empty = z.object({}).strict();

/** How long /v1/health waits for the database: an unreachable host must not hold the answer up. */
const DATABASE_PROBE_MS = 3_000;

/** `select 1` with a deadline; never throws. */
async function probeDatabase(db: Database): Promise<{ available: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_PROBE_MS} ms`)), DATABASE_PROBE_MS);
  });
  try {
    await Promise.race([sql`select 1`.execute(db), deadline]);
    return { available: true };
  } catch (e) {
    return { available: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

export const ServiceIndex = z.object({
  service: z.literal("vigil"),
  version: z.string(),
  about: z.string(),
  docs: z.object({ openapi: z.string(), paywall: z.string(), oracle_catalogue: z.string(), discovery: z.string(), health: z.string(), llms: z.string() }),
  devnet: z.boolean(),
});

export const PaywallInfo = z.object({
  protocol: z.literal("x402"),
  x402Version: z.literal(2),
  network: z.string(),
  facilitator: z.string(),
  facilitator_mode: z.string(),
  payTo: z.string().nullable(),
  /** The scheme an exact-only client pays with (the spec's field); `schemes` lists every scheme the 402s offer. */
  scheme: z.literal("exact"),
  schemes: z.array(z.enum(SCHEME_NAMES)).describe("every scheme a paid route's 402 lists, in its order: exact, then batch-settlement when channels are offered"),
  /** Present when batch-settlement is offered: the channel's terms, the deposit policy and how to pay (docs/batch-settlement.md). */
  batch_settlement: BatchSettlementInfo.optional(),
  asset: z.string().nullable(),
  /** False when no payTo is configured: paid routes then cannot be bought. */
  configured: z.boolean(),
  /** The general limit, and what an operator allow-list entry gives (never who is on the list). */
  rate_limits: z.object({
    per_minute_per_ip: z.number().int(),
    allow_list: z.object({ enabled: z.boolean(), per_minute: z.number().int().optional(), note: z.string() }),
  }),
  /** Paid answers stored for retries (the payment-identifier extension) and for how long. */
  idempotency: z.object({ payment_identifier: z.boolean(), stored_seconds: z.number().int() }),
  routes: z.array(
    z.object({
      endpoint: z.string(),
      price: z.string(),
      price_atomic: z.string().regex(/^\d+$/).optional(),
      /** When batch-settlement is offered and the price is fixed: the smallest deposit this route's 402 asks for (extra.minDeposit). */
      min_deposit_atomic: z.string().regex(/^\d+$/).optional(),
      description: z.string(),
      mime_type: z.string(),
    }),
  ),
});

export const DiscoveryManifest = z.object({
  version: z.literal(1),
  x402Version: z.literal(2),
  network: z.string(),
  resources: z.array(z.string()),
  instructions: z.string(),
});

export const HealthReport = z.object({
  status: z.enum(["ok", "degraded"]),
  version: z.string(),
  uptime_s: z.number().int(),
  devnet: z.boolean(),
  /** `error` says why the database is unavailable (a dropped connection, a refused one, no answer in time). */
  /**
   * `writable` and the byte counts: the embedded database only; false while its disk is under the
   * reserve (PGLITE_MIN_FREE_MB) and writes are refused with 503 database_full.
   */
  database: z.object({
    kind: z.string(),
    available: z.boolean(),
    error: z.string().optional(),
    writable: z.boolean().optional(),
    free_bytes: z.number().int().nonnegative().optional(),
    reserve_bytes: z.number().int().nonnegative().optional(),
  }),
  paywall: z.object({ configured: z.boolean(), facilitator_mode: z.string(), network: z.string() }),
  upstreams: z.record(z.string(), UpstreamHealth),
  /** What serves each upstream: a devnet simulator, a real node, or nothing (no URLs). */
  sources: z.record(z.string(), z.enum(["simulated", "real", "not_configured"])),
});

/** Computes a value on first use and keeps it (the route table is fixed once the app is built). */
function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/** A paid route's line in GET /v1/paywall. */
function paywallRoute(r: AnyRouteDef, deps: MetaDeps): z.input<typeof PaywallInfo>["routes"][number] {
  const minDeposit = minDepositAtomic(deps.paywall.terms?.channel, r.price);
  return {
    endpoint: `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`,
    price: priceLabel(r) ?? "free",
    ...(typeof r.price === "bigint" ? { price_atomic: r.price.toString() } : {}),
    ...(minDeposit !== undefined ? { min_deposit_atomic: minDeposit } : {}),
    description: r.summary,
    mime_type: r.mimeType ?? "application/json",
  };
}

/** GET /v1/paywall's answer: fixed once the server listens (the routes' prices, the payment settings). */
function paywallAnswer(paidRoutes: readonly AnyRouteDef[], network: string, deps: MetaDeps): z.input<typeof PaywallInfo> {
  const terms = deps.paywall.terms;
  return {
    protocol: "x402",
    x402Version: 2,
    network,
    facilitator: deps.facilitatorUrl,
    facilitator_mode: deps.facilitatorMode,
    payTo: terms?.payTo ?? null,
    scheme: "exact",
    schemes: offeredSchemes(terms?.channel),
    ...(terms?.channel ? { batch_settlement: batchSettlementInfo(terms.channel) } : {}),
    asset: terms?.usdc.asset ?? null,
    configured: terms !== null,
    rate_limits: {
      per_minute_per_ip: deps.generalPerMinute,
      allow_list: {
        enabled: deps.allowList.enabled,
        ...(deps.allowList.perMinute !== undefined ? { per_minute: deps.allowList.perMinute } : {}),
        note: "Operators allow-list client addresses or tokens (header x-allow-token) with a higher general limit on request; who is listed is never shown.",
      },
    },
    idempotency: { payment_identifier: deps.paywall.idempotent, stored_seconds: deps.paywall.responseTtlSeconds },
    routes: paidRoutes.map((r) => paywallRoute(r, deps)),
  };
}

export function metaRoutes(getRoutes: () => readonly AnyRouteDef[], deps: MetaDeps): AnyRouteDef[] {
  const network = () => deps.paywall.terms?.usdc.network ?? "eip155:8453";
  const channel = deps.paywall.terms?.channel;
  // The base URL is known only once the server listens, so these are built on first request;
  // the paywall answer is serialized once (respond.ts).
  const paywallInfo = once(() => fixedAnswer(paywallAnswer(getRoutes().filter((r) => r.price !== undefined), network(), deps)));
  const openapi = once(() => buildOpenApi(getRoutes(), { baseUrl: deps.site.baseUrl, network: network(), payTo: deps.paywall.terms?.payTo, channel }));
  const llms = once(() =>
    buildLlmsTxt(getRoutes(), {
      baseUrl: deps.site.baseUrl,
      network: network(),
      payTo: deps.paywall.terms?.payTo,
      channel,
      generalPerMinute: deps.generalPerMinute,
      idempotent: deps.paywall.idempotent,
      responseTtlSeconds: deps.paywall.responseTtlSeconds,
      allowList: deps.allowList,
    }),
  );

  return [
    defineStandingRoute({
      path: "/",
      operationId: "index",
      summary: "Service index: products and where to start",
      tags: ["meta"],
      output: ServiceIndex,
      answer: (): z.input<typeof ServiceIndex> => ({
        service: "vigil",
        version: deps.version,
        about:
          "Pay-per-call API for privacy chains: view-key payment watching (Monero, Zcash) with signed webhooks, checkout invoices, chain data. Paid routes use x402 v2.",
        docs: {
          openapi: "/v1/openapi.json",
          paywall: "/v1/paywall",
          oracle_catalogue: "/v1/q",
          discovery: "/.well-known/x402",
          health: "/v1/health",
          llms: "/llms.txt",
        },
        devnet: deps.devnet,
      }),
    }),
    defineStandingRoute({
      path: "/v1/paywall",
      operationId: "paywallInfo",
      summary: "Payment metadata: protocol, network, facilitator, payTo, the x402 schemes offered and every paid route's price",
      tags: ["meta"],
      mcpTool: "service_paywall_info",
      output: PaywallInfo,
      answer: paywallInfo,
    }),
    defineStandingRoute({
      path: "/v1/openapi.json",
      operationId: "openapi",
      summary: "OpenAPI 3.1 description of every route",
      tags: ["meta"],
      output: OpenApiDocument,
      answer: openapi,
    }),
    defineStandingRoute({
      path: "/openapi.json",
      operationId: "openapiRoot",
      summary: "The same OpenAPI 3.1 document at the root, where x402 catalogues look first",
      tags: ["meta"],
      output: OpenApiDocument,
      answer: openapi,
    }),
    defineRoute({
      method: "GET",
      path: "/llms.txt",
      operationId: "llmsTxt",
      summary: "A concise guide for agents: what is sold, prices, the x402 flow, the watch and checkout flows, errors and limits",
      tags: ["meta"],
      input: Empty,
      output: z.string(),
      mimeType: "text/plain",
      handler: async () => new RawBody(llms(), "text/plain; charset=utf-8"),
    }),
    defineStandingRoute({
      path: "/.well-known/x402",
      operationId: "x402Discovery",
      summary: "x402 discovery manifest: the paid resources of this service",
      tags: ["meta"],
      output: DiscoveryManifest,
      answer: (): z.input<typeof DiscoveryManifest> => ({
        version: 1,
        x402Version: 2,
        network: network(),
        resources: discoveryResources(getRoutes(), deps.site.baseUrl),
        instructions: discoveryInstructions(channel),
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/health",
      operationId: "health",
      summary: "Liveness plus the availability of the database and each configured upstream",
      tags: ["meta"],
      mcpTool: "service_health",
      input: Empty,
      output: HealthReport,
      handler: async (): Promise<z.input<typeof HealthReport>> => {
        const dbProbe = await probeDatabase(deps.db);
        const storage = deps.dbStorage?.();
        const dbOk = dbProbe.available && storage?.writable !== false;
        const upstreams: Record<string, UpstreamHealth> = {};
        await Promise.all(
          deps.healthChecks.map(async (h) => {
            try {
              upstreams[h.name] = await h.check();
            } catch (e) {
              upstreams[h.name] = { available: false, error: e instanceof Error ? e.message : String(e) };
            }
          }),
        );
        const degraded = !dbOk || Object.values(upstreams).some((u) => u.configured !== false && !u.available);
        return {
          status: degraded ? "degraded" : "ok",
          version: deps.version,
          uptime_s: Math.round((deps.now() - deps.startedAt) / 1000),
          devnet: deps.devnet,
          database: {
            kind: deps.dbKind,
            ...dbProbe,
            ...(storage ? { writable: storage.writable, free_bytes: storage.freeBytes, reserve_bytes: storage.reserveBytes } : {}),
          },
          paywall: { configured: deps.paywall.terms !== null, facilitator_mode: deps.facilitatorMode, network: network() },
          upstreams,
          sources: { ...deps.sources },
        };
      },
    }),
  ];
}
