/**
 * Composition root: opens storage, builds the paywall and every module's
 * routes into one route table, and derives the HTTP app from it.
 */
import type { Hono } from "hono";
import type { Logger } from "pino";
import { serve, type ServerType } from "@hono/node-server";
import { createServer as createHttpServer, type RequestListener, type ServerOptions } from "node:http";
import { closeServer, keepConnections } from "./http/close-server.js";
import { gasKeys, type Config } from "./config.js";
import { VERSION } from "./version.js";
import { upstreamSources } from "./upstream-sources.js";
import { createUpstreamClients } from "./upstream-clients.js";
import type { ModuleContext, ServiceModule } from "./module.js";
import { systemClock, type Clock } from "./core/clock.js";
import { createLogger } from "./core/logger.js";
import { createMetrics, type Metrics } from "./core/metrics.js";
import { instrumentFetch, requestCounter, serveMetrics } from "./http/metrics-http.js";
import type { RateLimitStore } from "./core/rate-limit.js";
import { openDatabase, type DatabaseHandle } from "./db/connection.js";
import { whenDatabaseReachable } from "./db/unavailable.js";
import { migrateToLatest } from "./db/migrate.js";
import { tableUpkeepJob } from "./db/upkeep.js";
import { httpRoutes, type AnyRouteDef, type TableEntry } from "./http/route-table.js";
import { buildHttpApp } from "./http/router.js";
import type { StandingAnswers } from "./http/standing-answers.js";
import { metaRoutes } from "./http/meta-routes.js";
import { createPaywall, type Paywall, type PaymentTerms } from "./x402/paywall.js";
import type { ChannelTerms } from "./x402/channel-terms.js";
import { channelKeeperJob, type KeeperDeps } from "./x402/channel-keeper.js";
import { channelStorage, channelTotals } from "./x402/channel-store.js";
import { createEscrowReader } from "./x402/escrow-reader.js";
import os from "node:os";
import { randomUUID } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { checkFacilitatorSupport, createFacilitator, type FacilitatorSettings } from "./x402/facilitators.js";
import type { FacilitatorClient } from "@x402/core/http";
import { USDC } from "./x402/networks.js";
import { createAuthorizationReader, type AuthorizationReader } from "./x402/authorization-state.js";
import { paymentReconcilerJob } from "./x402/reconcile.js";
import { SecretBox } from "./core/secretbox.js";
import type { Resolver } from "./webhooks/url-guard.js";
import type { ChainId, ChainScanner } from "./chains/scanner.js";
import type { CompactBlockSource } from "./chains/zcash/compact.js";
import { createWatchDeps, createWatchModule, type WatchDeps } from "./watch/index.js";
import { createCheckoutModule, type CheckoutDeps } from "./checkout/index.js";
import { createIngestModule, type IngestModule } from "./ingest/index.js";
import { createFeedsModule, type FeedsModule } from "./feeds/index.js";
import { createOracleModule, type OracleRegistry } from "./oracle/index.js";
import { createRelayModule } from "./relay/index.js";
import { createBoardModule } from "./board/index.js";
import { createMcpService, mcpRoutes, buildMcpApp, mountMcp, type McpService } from "./mcp/index.js";
import { createRateLimiter } from "./core/rate-limit.js";

export { VERSION };

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  /** An already-open database (tests share one); otherwise opened from config. */
  database?: DatabaseHandle;
  /** Routes added by the caller (tests); they join the one table like any other. */
  extraRoutes?: AnyRouteDef[];
  /** Chain scanners to use instead of the configured ones (tests). */
  scanners?: Partial<Record<ChainId, ChainScanner>>;
  /**
   * Builds the Zcash compact-block source for LIGHTWALLETD_URL (tests); default: the lightwalletd
   * gRPC client. Zcash watches and historical scans exist only when LIGHTWALLETD_URL is set.
   */
  compactBlockSource?: (url: string) => CompactBlockSource;
  /** DNS resolver for webhook URL checks and deliveries (tests play rebinding with it). */
  resolver?: Resolver;
  /** How long close() lets HTTP requests in flight finish before closing their connections (default SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs?: number;
}

/** How long after the API listens the modules' warm-up runs: past start-up's first requests (health checks, probes). */
export const WARM_UP_DELAY_MS = 1_000;

/** Each module's warm-up, once; one that throws is logged and the rest still run. */
function warmUpModules(modules: readonly ServiceModule[], log: Logger): void {
  for (const m of modules) {
    try {
      m.warmUp?.();
    } catch (e) {
      log.warn({ module: m.name, err: (e as Error).message }, "warm-up failed; the first request does the work instead");
    }
  }
}

export interface App {
  config: Config;
  hono: Hono<any>;
  /** The HTTP routes of the table, in order. */
  routes: readonly AnyRouteDef[];
  /** The whole table: the HTTP routes plus the tool-only entries (MCP). */
  table: readonly TableEntry[];
  oracle: OracleRegistry;
  paywall: Paywall;
  watch: WatchDeps;
  /** The product modules, in table order (workers.ts runs their jobs). */
  modules: readonly ServiceModule[];
  /** What the Ethereum follower job needs (workers.ts). */
  ethereum: IngestModule["ethereum"];
  /**
   * What the payment jobs need (the reconciler: null chain when EVM_RPC_URL or PAY_TO is unset; the channel keeper:
   * null when batch-settlement is not offered), for tests and benches that run them by hand.
   */
  payments: { chain: AuthorizationReader | null; responseTtlSeconds: number; keeper: KeeperDeps | null };
  /** What the checkout invoice expiry job needs (workers.ts). */
  checkout: CheckoutDeps;
  /** What the relay poller job needs (workers.ts); no relays when RELAY_URLS is unset. */
  relays: IngestModule["relays"];
  /** What the lending indexer job needs (workers.ts). */
  lending: IngestModule["lending"];
  /** What the counter-MEV scan job needs (workers.ts). */
  approvalScan: FeedsModule["approvalScan"];
  /** What the Zcash pool snapshot job needs (workers.ts); its zebrad is not configured when ZEBRAD_URL is unset. */
  zcashPools: FeedsModule["zcashPools"];
  database: DatabaseHandle;
  log: Logger;
  clock: Clock;
  /** Public base URL (set from the bound address once listening, unless PUBLIC_URL is given). */
  site: { baseUrl: string };
  /** The MCP server over the table (at /mcp, and on MCP_PORT when set). */
  mcp: McpService;
  /** Bound address of the MCP server's own port once listening (MCP_PORT set), else undefined. */
  mcpSite: { baseUrl: string | undefined };
  /** The free GETs answered in front of Hono (http/standing-answers.ts), with how many it answered. */
  standing: StandingAnswers;
  /** Prometheus metrics of this process (GET /metrics: docs/operations.md). */
  metrics: Metrics;
  /** Bound address of the metrics port once listening (METRICS_PORT set), else undefined. */
  metricsSite: { baseUrl: string | undefined };
  /** Starts the HTTP server (and the metrics port when set); resolves with its URL. */
  listen(): Promise<string>;
  /** Starts only the metrics port (METRICS_PORT), for a process without the API (`vigil worker`); no-op when unset. */
  listenMetrics(): Promise<void>;
  close(): Promise<void>;
}

function facilitatorSettings(config: Config): FacilitatorSettings {
  switch (config.FACILITATOR_MODE) {
    case "cdp":
      return { mode: "cdp", apiKeyId: config.CDP_API_KEY_ID, apiKeySecret: config.CDP_API_KEY_SECRET };
    case "http":
      // Unset only on a devnet whose payment chain is real (EVM_RPC_URL): it runs no facilitator to call.
      if (!config.FACILITATOR_URL) {
        throw new Error("FACILITATOR_MODE=http needs FACILITATOR_URL: the devnet runs its facilitator only on its simulated payment chain, not beside a given EVM_RPC_URL.");
      }
      return { mode: "http", url: config.FACILITATOR_URL };
    case "local":
      return {
        mode: "local",
        rpcUrl: config.EVM_RPC_URL!,
        privateKey: gasKeys(config.FACILITATOR_PRIVATE_KEY!),
        network: config.X402_NETWORK,
        confirmationTimeoutMs: config.FACILITATOR_CONFIRMATION_SECONDS * 1000,
      };
  }
}

/** Opens the configured store (waiting for a database that is not up yet) and migrates it. */
async function openAppDatabase(config: Config, opts: AppOptions, log: Logger): Promise<DatabaseHandle> {
  const database =
    opts.database ??
    (await whenDatabaseReachable(
      () =>
        openDatabase({
          databaseUrl: config.DATABASE_URL,
          schema: config.DATABASE_SCHEMA,
          dataDir: config.dataDir,
          poolSize: config.DATABASE_POOL_SIZE,
          pgliteMinFreeBytes: config.PGLITE_MIN_FREE_MB * 1048576,
          log,
        }),
      log,
    ));
  await migrateToLatest(database.db);
  return database;
}

interface Payments {
  paywall: Paywall;
  /** The facilitator client (the channel keeper sends its claims, settlements and refunds through it). */
  facilitator: FacilitatorClient;
  /** The payment network's chain, read by the reconciler: null when EVM_RPC_URL or PAY_TO is unset. */
  chain: AuthorizationReader | null;
  facilitatorLabel: string;
}

/**
 * Whether 402s offer batch-settlement beside exact, and on which terms (docs/batch-settlement.md): it needs the
 * receiver-authorizer key (claims and refunds are signed with it), EVM_RPC_URL (the keeper watches the escrow for
 * payers' withdrawals) and a facilitator that settles the scheme. BATCH_SETTLEMENT=on makes a missing piece an
 * error; "auto" says what is missing and offers exact only.
 */
export function channelTermsFor(config: Config, schemes: string[] | null, log: Logger): ChannelTerms | undefined {
  if (config.BATCH_SETTLEMENT === "off") return undefined;
  const missing = [
    ...(config.BATCH_RECEIVER_AUTHORIZER_KEY ? [] : ["BATCH_RECEIVER_AUTHORIZER_KEY is not set"]),
    ...(config.EVM_RPC_URL ? [] : ["EVM_RPC_URL is not set (the keeper reads the escrow through it)"]),
    ...(schemes === null || schemes.includes("batch-settlement") ? [] : [`the facilitator does not settle batch-settlement on ${config.X402_NETWORK}`]),
  ];
  if (missing.length > 0) {
    if (config.BATCH_SETTLEMENT === "on") throw new Error(`BATCH_SETTLEMENT=on, but ${missing.join("; ")}.`);
    log.info({ missing }, "x402 batch-settlement is not offered; paid routes take exact payments only");
    return undefined;
  }
  const key = config.BATCH_RECEIVER_AUTHORIZER_KEY!;
  return {
    receiverAuthorizer: privateKeyToAccount((key.startsWith("0x") ? key : `0x${key}`) as `0x${string}`).address,
    withdrawDelaySeconds: config.BATCH_WITHDRAW_DELAY_SECONDS,
    reservationSeconds: config.BATCH_RESERVATION_SECONDS,
    // A deposit's call waits for its transaction's receipt too.
    depositReservationSeconds: config.BATCH_RESERVATION_SECONDS + config.FACILITATOR_CONFIRMATION_SECONDS + 30,
  };
}

/** The paywall with its facilitator; a facilitator that cannot settle the configured network stops the start. */
async function createPayments(config: Config, settings: FacilitatorSettings, database: DatabaseHandle, clock: Clock, log: Logger, ownsDatabase: boolean): Promise<Payments> {
  const facilitator = await createFacilitator(settings);
  const payTo = config.PAY_TO;
  let terms: PaymentTerms | null = null;
  if (payTo) {
    try {
      const usdc = USDC[config.X402_NETWORK];
      const schemes = await checkFacilitatorSupport(facilitator.client, usdc.network, facilitator.label, log);
      const channel = channelTermsFor(config, schemes, log);
      terms = { usdc, payTo: payTo as `0x${string}`, maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS, ...(channel ? { channel } : {}) };
    } catch (e) {
      if (ownsDatabase) await database.close();
      throw e;
    }
  }
  // Paid answers are stored sealed for retries (with a master key), and work interrupted after settlement
  // is resumed on the chain's word (with an RPC of the payment network: EVM_RPC_URL).
  const chain = terms && config.EVM_RPC_URL ? createAuthorizationReader({ rpcUrl: config.EVM_RPC_URL, usdc: terms.usdc, payTo: terms.payTo }) : null;
  const paywall = createPaywall({
    db: database.db,
    facilitator: facilitator.client,
    terms,
    clock,
    log,
    secretBox: config.MASTER_KEY ? new SecretBox(config.MASTER_KEY) : null,
    chain,
  });
  return { paywall, chain, facilitatorLabel: facilitator.label, facilitator: facilitator.client };
}

/** The channel keeper's collaborators (x402/channel-keeper.ts), when the paywall offers batch-settlement. */
function keeperDeps(ctx: ModuleContext, payments: Payments): KeeperDeps | null {
  const { config, clock, log, metrics } = ctx;
  const terms = payments.paywall.terms;
  if (!terms?.channel || !config.EVM_RPC_URL || !config.BATCH_RECEIVER_AUTHORIZER_KEY) return null;
  const key = config.BATCH_RECEIVER_AUTHORIZER_KEY;
  return {
    db: ctx.database.db,
    storage: channelStorage(ctx.database.db, { network: terms.usdc.network }),
    facilitator: payments.facilitator,
    reader: createEscrowReader(config.EVM_RPC_URL),
    usdc: terms.usdc,
    payTo: terms.payTo,
    channel: terms.channel,
    authorizer: privateKeyToAccount((key.startsWith("0x") ? key : `0x${key}`) as `0x${string}`),
    clock,
    log,
    settings: {
      claimSeconds: config.BATCH_CLAIM_SECONDS,
      claimMinAtomic: config.BATCH_CLAIM_MIN_ATOMIC,
      settleSeconds: config.BATCH_SETTLE_SECONDS,
      refundIdleSeconds: config.BATCH_REFUND_IDLE_SECONDS,
    },
    owner: `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    onOp: (kind, outcome) => metrics.channelOps.inc({ kind, outcome }),
  };
}

/** The payment reconciler and the channel keeper, jobs of the process like a module's. */
function paymentsModule(ctx: ModuleContext, payments: Payments, keeper: KeeperDeps | null): ServiceModule {
  const { clock, log, metrics } = ctx;
  if (keeper) metrics.setChannelProbe(() => channelTotals(ctx.database.db, keeper.usdc.network));
  return {
    name: "payments",
    jobs: () => [
      paymentReconcilerJob({ db: ctx.database.db, chain: payments.chain, clock, log, onFinding: (finding) => metrics.reconcilerFindings.inc({ finding }) }),
      ...(keeper ? [channelKeeperJob(keeper)] : []),
    ],
  };
}

/** Storage upkeep, a job of the process like a module's: the hot tables vacuumed where nothing else does it (db/upkeep.ts). */
function storageModule(ctx: ModuleContext): ServiceModule {
  return { name: "storage", jobs: () => [tableUpkeepJob(ctx.database, ctx.log)] };
}

/** The operator allow-list (docs/allow-list.md): addresses and tokens with their own, higher general limit. */
function allowList(config: Config) {
  const splitList = (v: string | undefined) => (v ?? "").split(",").map((x) => x.trim()).filter(Boolean);
  const cidrs = splitList(config.RATE_LIMIT_ALLOW_CIDRS);
  const tokens = splitList(config.RATE_LIMIT_ALLOW_TOKENS);
  return cidrs.length || tokens.length ? { cidrs, tokens, perMinute: config.RATE_LIMIT_ALLOW_PER_MINUTE } : undefined;
}

/** The product modules, built in dependency order and listed in table order. */
function productModules(ctx: ModuleContext, opts: AppOptions) {
  const watchDeps = createWatchDeps(ctx, { resolver: opts.resolver });
  const checkout = createCheckoutModule(ctx, watchDeps);
  const ingest = createIngestModule(ctx);
  const feeds = createFeedsModule(ctx, ingest);
  const oracle = createOracleModule(ctx, ingest, feeds.risk);
  const watch = createWatchModule(ctx, watchDeps, { scanSubscribers: checkout.scanSubscribers, offers: checkout.offers });
  const modules: ServiceModule[] = [oracle, feeds, watch, createRelayModule(ctx), checkout, createBoardModule(ctx), ingest];
  return { modules, watchDeps, checkout, ingest, feeds, oracle };
}

/** What the meta routes (health, paywall, discovery, OpenAPI) are told about this process. */
function metaSettings(ctx: ModuleContext, payments: Payments, allowListSettings: ReturnType<typeof allowList>): Omit<Parameters<typeof metaRoutes>[1], "healthChecks"> {
  const { config, database, clock } = ctx;
  return {
    site: ctx.site,
    paywall: payments.paywall,
    facilitatorMode: config.FACILITATOR_MODE,
    facilitatorUrl: payments.facilitatorLabel,
    db: database.db,
    dbKind: database.kind,
    ...(database.storage ? { dbStorage: database.storage } : {}),
    devnet: config.devnet,
    sources: Object.fromEntries(upstreamSources(config).map((u) => [u.key, u.source])),
    startedAt: clock.now(),
    now: () => clock.now(),
    version: VERSION,
    generalPerMinute: config.RATE_LIMIT_PER_MINUTE,
    allowList: allowListSettings ? { enabled: true, perMinute: allowListSettings.perMinute } : { enabled: false, perMinute: undefined },
  };
}

/** The one table: the meta routes, every module's routes, the MCP server card, the caller's extra routes; then the tool-only entries. */
function joinTable(
  ctx: ModuleContext,
  modules: readonly ServiceModule[],
  meta: ReturnType<typeof metaSettings>,
  extra: { mcp: () => McpService; extraRoutes?: AnyRouteDef[] },
) {
  const routes: AnyRouteDef[] = [];
  routes.push(
    ...metaRoutes(() => routes, { ...meta, healthChecks: [...ctx.upstreams.healthChecks, ...modules.flatMap((m) => m.healthChecks ?? [])] }),
    ...modules.flatMap((m) => m.routes ?? []),
    ...mcpRoutes(extra.mcp, ctx.site),
    ...(extra.extraRoutes ?? []),
  );
  const table: TableEntry[] = [...routes, ...modules.flatMap((m) => m.tools ?? [])];
  const seen = new Set<string>();
  for (const r of httpRoutes(table)) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`route declared twice: ${key}`);
    seen.add(key);
  }
  return { routes, table };
}

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  for (const message of config.deprecations) log.warn({ setting: message.split(" ")[0] }, message);
  // A facilitator setting that cannot work stops the start before anything is opened.
  const facilitatorChoice = facilitatorSettings(config);
  const database = await openAppDatabase(config, opts, log);
  const ownsDatabase = !opts.database;
  const site = {
    baseUrl: config.PUBLIC_URL?.replace(/\/$/, "") ?? `http://${config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST}:${config.PORT}`,
  };
  const payments = await createPayments(config, facilitatorChoice, database, clock, log, ownsDatabase);
  const upstreams = createUpstreamClients(config, clock, log, { scanners: opts.scanners, compactBlockSource: opts.compactBlockSource });
  const ctx: ModuleContext = { config, database, clock, log, metrics: createMetrics(), site, upstreams };
  const products = productModules(ctx, opts);
  const keeper = keeperDeps(ctx, payments);
  const modules = [...products.modules, paymentsModule(ctx, payments, keeper), storageModule(ctx)];
  const allowListSettings = allowList(config);

  // Built from the whole table below; the server card route reads it per request.
  let mcp: McpService | undefined;
  const { routes, table } = joinTable(ctx, modules, metaSettings(ctx, payments, allowListSettings), { mcp: () => mcp!, extraRoutes: opts.extraRoutes });

  const paywall = payments.paywall;
  const store: RateLimitStore = database.kind === "postgres" ? { kind: "postgres", pool: database.pool, schema: config.DATABASE_SCHEMA } : { kind: "memory" };
  const { hono, standing } = buildHttpApp({
    routes,
    paywall,
    db: database.db,
    log,
    site,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    rateLimits: { store, generalPerMinute: config.RATE_LIMIT_PER_MINUTE, allowList: allowListSettings },
  });
  mcp = createMcpService({
    table,
    paywall,
    db: database.db,
    log,
    site,
    version: VERSION,
    rateLimits: { store, generalPerMinute: config.RATE_LIMIT_PER_MINUTE },
    dispatchPerMinute: config.MCP_Q_PER_MINUTE,
    access: { listenHost: config.HOST, publicUrls: () => [site.baseUrl, config.MCP_PUBLIC_URL], allowedOrigins: config.MCP_ALLOWED_ORIGINS, allowedHosts: config.MCP_ALLOWED_HOSTS },
  });
  mountMcp(hono, mcp);
  const servers = appServers(ctx, { hono, standing, mcp, store, routes, shutdownDrainMs: opts.shutdownDrainMs, warmUp: () => warmUpModules(modules, log) });

  return {
    config,
    hono,
    standing,
    routes,
    table,
    modules,
    oracle: products.oracle.registry,
    paywall,
    payments: { chain: payments.chain, responseTtlSeconds: paywall.responseTtlSeconds, keeper },
    watch: products.watchDeps,
    ethereum: products.ingest.ethereum,
    checkout: products.checkout.deps,
    relays: products.ingest.relays,
    lending: products.ingest.lending,
    approvalScan: products.feeds.approvalScan,
    zcashPools: products.feeds.zcashPools,
    database,
    log,
    clock,
    site,
    mcp,
    mcpSite: servers.mcpSite,
    metrics: ctx.metrics,
    metricsSite: servers.metricsSite,
    listenMetrics: servers.listenMetrics,
    listen: servers.listen,
    close: async () => {
      await servers.close();
      for (const m of modules) await m.close?.();
      await upstreams.close();
      if (ownsDatabase) await database.close();
    },
  };
}

interface ServerParts {
  hono: Hono<any>;
  /** Free GETs answered in front of Hono (http/standing-answers.ts). */
  standing: StandingAnswers;
  mcp: McpService;
  store: RateLimitStore;
  routes: readonly AnyRouteDef[];
  shutdownDrainMs?: number;
  /** Run a moment after the API listens (warmUpModules). */
  warmUp: () => void;
}

const boundUrl = (info: { family: string; address: string; port: number }) =>
  `http://${info.family === "IPv6" ? `[${info.address}]` : info.address}:${info.port}`;

/** The API's HTTP server, the metrics port (METRICS_PORT) and the MCP server's own port (MCP_PORT). */
function appServers(ctx: ModuleContext, parts: ServerParts) {
  const { config, log, metrics, site } = ctx;
  let server: ServerType | undefined;
  let mcpServer: ServerType | undefined;
  let metricsServer: ServerType | undefined;
  let warmUpTimer: NodeJS.Timeout | undefined;
  const mcpSite: { baseUrl: string | undefined } = { baseUrl: undefined };
  const metricsSite: { baseUrl: string | undefined } = { baseUrl: undefined };
  // One counter for the wrapped fetch and the standing answers in front of it: the same labels either way.
  const count = requestCounter(metrics, parts.routes.map((r) => r.path));
  const appFetch = instrumentFetch(parts.hono.fetch, { metrics, routePatterns: parts.routes.map((r) => r.path), token: config.METRICS_TOKEN, count });
  const listenMetrics = () =>
    config.METRICS_PORT === undefined || metricsServer
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const fetch = (req: Request) =>
            new URL(req.url).pathname === "/metrics"
              ? serveMetrics(req, metrics, config.METRICS_TOKEN)
              : new Response(JSON.stringify({ error: { code: "not_found", message: "Only /metrics is served on this port." } }), {
                  status: 404,
                  headers: { "content-type": "application/json; charset=utf-8" },
                });
          metricsServer = keepConnections(serve({ fetch, port: config.METRICS_PORT!, hostname: config.METRICS_HOST }, (info) => {
            metricsSite.baseUrl = boundUrl(info);
            resolve();
          }));
          metricsServer.once("error", reject);
        });
  const listenMcp = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const mcpSiteUrl = { baseUrl: "" };
      const mcpApp = buildMcpApp({
        service: parts.mcp,
        log,
        trustProxyHops: config.TRUST_PROXY_HOPS,
        generalLimiter: createRateLimiter(parts.store, "rl_general", config.RATE_LIMIT_PER_MINUTE, 60),
        site: mcpSiteUrl,
      });
      mcpServer = keepConnections(serve({ fetch: mcpApp.fetch, port, hostname: config.HOST }, (info) => {
        mcpSite.baseUrl = boundUrl(info);
        // The card advertises the address agents reach (MCP_PUBLIC_URL behind a proxy).
        mcpSiteUrl.baseUrl = config.MCP_PUBLIC_URL?.replace(/\/$/, "") ?? mcpSite.baseUrl;
        resolve();
      }));
      mcpServer.once("error", reject);
    });
  const listen = () =>
    new Promise<string>((resolve, reject) => {
      // The standing answers go in front of @hono/node-server's listener, counted as the wrapped fetch counts.
      // (serve calls it as createServer(serverOptions, listener); the option is typed as node's overloaded createServer.)
      const createServer = ((options: ServerOptions, listener: RequestListener) => createHttpServer(options, parts.standing.listener(listener, count))) as typeof createHttpServer;
      server = keepConnections(serve({ fetch: appFetch, port: config.PORT, hostname: config.HOST, createServer }, (info) => {
        const url = boundUrl(info);
        if (!config.PUBLIC_URL) site.baseUrl = url;
        resolve(url);
      }));
      server.once("error", reject);
    }).then(async (url) => {
      if (config.MCP_PORT !== undefined) await listenMcp(config.MCP_PORT);
      await listenMetrics();
      warmUpTimer ??= setTimeout(parts.warmUp, WARM_UP_DELAY_MS).unref();
      return url;
    });
  const close = async () => {
    clearTimeout(warmUpTimer);
    const drainMs = parts.shutdownDrainMs;
    if (metricsServer) await closeServer(metricsServer, drainMs);
    if (mcpServer) await closeServer(mcpServer, drainMs);
    if (server) await closeServer(server, drainMs);
  };
  return { mcpSite, metricsSite, listenMetrics, listen, close };
}
