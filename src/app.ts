/**
 * Composition root: opens storage, builds the paywall and every module's
 * routes into one route table, and derives the HTTP app from it.
 */
import os from "node:os";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { serve, type ServerType } from "@hono/node-server";
import { closeServer } from "./http/close-server.js";
import type { Config } from "./config.js";
import { VERSION } from "./version.js";
import { upstreamSources } from "./upstream-sources.js";
import { systemClock, type Clock } from "./core/clock.js";
import { createLogger } from "./core/logger.js";
import { createMetrics, type Metrics } from "./core/metrics.js";
import { instrumentFetch, serveMetrics } from "./http/metrics-http.js";
import type { RateLimitStore } from "./core/rate-limit.js";
import { openDatabase, type DatabaseHandle } from "./db/connection.js";
import { whenDatabaseReachable } from "./db/unavailable.js";
import { migrateToLatest } from "./db/migrate.js";
import { httpRoutes, type AnyRouteDef, type TableEntry } from "./http/route-table.js";
import { buildRouter } from "./http/router.js";
import { metaRoutes, type HealthCheck } from "./http/meta-routes.js";
import { createOracleRegistry, type OracleRegistry } from "./oracle/registry.js";
import { oracleRoutes } from "./oracle/routes.js";
import type { QuestionDef } from "./oracle/question.js";
import { createPaywall, type Paywall, type PaymentTerms } from "./x402/paywall.js";
import { checkFacilitatorSupport, createFacilitator, type FacilitatorSettings } from "./x402/facilitators.js";
import { USDC } from "./x402/networks.js";
import { createAuthorizationReader, type AuthorizationReader } from "./x402/authorization-state.js";
import { SecretBox } from "./core/secretbox.js";
import { createWebhookSender } from "./webhooks/deliver.js";
import type { Resolver } from "./webhooks/url-guard.js";
import type { WatchDeps } from "./watch/deps.js";
import { watchRoutes } from "./watch/routes.js";
import type { ChainId, ChainScanner } from "./chains/scanner.js";
import { createMoneroDaemon } from "./chains/monero/daemon-client.js";
import { createMoneroScanner } from "./chains/monero/scanner.js";
import { MoneroScanPool } from "./chains/monero/pool.js";
import { moneroHealth } from "./chains/monero/facts.js";
import { moneroQuestions } from "./oracle/questions/monero.js";
import { createMoneroHistorical } from "./chains/monero/historical.js";
import { moneroHistoricalScan, zcashHistoricalScan } from "./watch/historical-route.js";
import type { CompactBlockSource } from "./chains/zcash/compact.js";
import { createZcashScanner } from "./chains/zcash/scanner.js";
import { createLightwalletd } from "./chains/zcash/lightwalletd.js";
import { createZcashHistorical } from "./chains/zcash/historical.js";
import { scheduleZcashKeyWarmUp } from "./watch/derive-viewkey-route.js";
import { coinRoutes, SERVICE_WALLET_SINK_PATH } from "./checkout/routes.js";
import { coinQuoteSubscriber, cryptoTopupOffer, type CoinDeps } from "./checkout/quotes.js";
import { checkoutRoutes } from "./checkout/checkout-routes.js";
import { checkoutOffer, invoiceSubscriber, type CheckoutDeps } from "./checkout/invoices.js";
import { PAY_PAGE_PATH } from "./checkout/pay-page.js";
import { createRateSource, fixedProviders, httpProvider, parsePriceSources } from "./checkout/prices.js";
import { boardRoutes } from "./board/routes.js";
import { boardCatalogue } from "./board/boards.js";
import { createMcpService, type McpService } from "./mcp/server.js";
import { mcpRoutes } from "./mcp/routes.js";
import { buildMcpApp, mountMcp } from "./mcp/http.js";
import { createRateLimiter } from "./core/rate-limit.js";
import { EthRpc, splitRpcUrls } from "./chains/ethereum/rpc.js";
import { ethereumHealth } from "./chains/ethereum/facts.js";
import { ethereumQuestions } from "./oracle/questions/ethereum.js";
import { createZebrad } from "./chains/zcash/zebrad.js";
import { zcashHealth } from "./chains/zcash/facts.js";
import { zcashQuestions } from "./oracle/questions/zcash.js";
import { flashloanRoutes } from "./oracle/flashloan-routes.js";
import { zcashPoolsRoutes } from "./feeds/zcash-pools-routes.js";
import type { ZcashPoolsDeps } from "./feeds/zcash-pools.js";
import { feedsRoutes } from "./feeds/routes.js";
import { builderQuestions, relayFreshnessSources } from "./oracle/questions/builders.js";
import { combineFreshnessSources, lendingFreshnessSource, lendingQuestions, type LendingQuestionDeps } from "./oracle/questions/lending.js";
import type { LendingIndexerDeps } from "./ingest/lending-indexer.js";
import { AAVE_V3_CORE_ORACLE, LENDING_MARKETS } from "./chains/ethereum/lending.js";
import { opportunitiesRoutes } from "./feeds/opportunities-routes.js";
import { addressRiskQuestion } from "./oracle/questions/address-risk.js";
import type { RelayPollerDeps } from "./ingest/relay-poller.js";
import { parseRelayUrls, RelayClient } from "./chains/ethereum/relays.js";
import { builderKeyNames } from "./chains/ethereum/builders.js";
import type { EthereumFollowerDeps } from "./ingest/ethereum-follower.js";
import { relayRoutes } from "./relay/routes.js";
import { SPEC_QUESTIONS } from "./oracle/spec-questions.js";
import { BuilderClient, parsePrivateBuilders } from "./relay/builders.js";
import { counterMevRoutes } from "./feeds/counter-mev-routes.js";
import { approvalRiskOf, type CounterMevDeps } from "./feeds/counter-mev.js";
import type { ApprovalScanDeps } from "./feeds/approval-scan.js";
import { loadRiskLists } from "./chains/ethereum/risk-lists.js";
import { puzzleRiskRoutes } from "./feeds/puzzle-risk-routes.js";
import { loadWatchlist } from "./feeds/puzzle-risk.js";

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
  /** What the Ethereum follower job needs (workers.ts). */
  ethereum: EthereumFollowerDeps;
  /** What the payment reconciler job needs (workers.ts): null chain when EVM_RPC_URL or PAY_TO is unset. */
  payments: { chain: AuthorizationReader | null; responseTtlSeconds: number };
  /** What the checkout invoice expiry job needs (workers.ts). */
  checkout: CheckoutDeps;
  /** What the relay poller job needs (workers.ts); no relays when RELAY_URLS is unset. */
  relays: RelayPollerDeps;
  /** What the lending indexer job needs (workers.ts). */
  lending: LendingIndexerDeps;
  /** What the counter-MEV scan job needs (workers.ts). */
  approvalScan: ApprovalScanDeps;
  /** What the Zcash pool snapshot job needs (workers.ts); its zebrad is not configured when ZEBRAD_URL is unset. */
  zcashPools: ZcashPoolsDeps;
  database: DatabaseHandle;
  log: Logger;
  clock: Clock;
  /** Public base URL (set from the bound address once listening, unless PUBLIC_URL is given). */
  site: { baseUrl: string };
  /** The MCP server over the table (at /mcp, and on MCP_PORT when set). */
  mcp: McpService;
  /** Bound address of the MCP server's own port once listening (MCP_PORT set), else undefined. */
  mcpSite: { baseUrl: string | undefined };
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
      return { mode: "http", url: config.FACILITATOR_URL! };
    case "local":
      return {
        mode: "local",
        rpcUrl: config.EVM_RPC_URL!,
        privateKey: (config.FACILITATOR_PRIVATE_KEY!.startsWith("0x")
          ? config.FACILITATOR_PRIVATE_KEY
          : `0x${config.FACILITATOR_PRIVATE_KEY}`) as `0x${string}`,
        network: config.X402_NETWORK,
        confirmationTimeoutMs: config.FACILITATOR_CONFIRMATION_SECONDS * 1000,
      };
  }
}

export async function createApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.LOG_LEVEL);
  for (const message of config.deprecations) log.warn({ setting: message.split(" ")[0] }, message);
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
  const ownsDatabase = !opts.database;
  await migrateToLatest(database.db);

  const site = {
    baseUrl: config.PUBLIC_URL?.replace(/\/$/, "") ?? `http://${config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST}:${config.PORT}`,
  };

  const facilitator = await createFacilitator(facilitatorSettings(config));
  const network = config.X402_NETWORK;
  const payTo = config.PAY_TO;
  const terms: PaymentTerms | null = payTo
    ? { usdc: USDC[network], payTo: payTo as `0x${string}`, maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS }
    : null;
  // A facilitator that cannot settle the configured network stops the start, with the reason.
  if (terms) {
    try {
      await checkFacilitatorSupport(facilitator.client, terms.usdc.network, facilitator.label, log);
    } catch (e) {
      if (ownsDatabase) await database.close();
      throw e;
    }
  }
  // Paid answers are stored sealed for retries (with a master key), and work interrupted after settlement
  // is resumed on the chain's word (with an RPC of the payment network: EVM_RPC_URL).
  const paymentChain = terms && config.EVM_RPC_URL ? createAuthorizationReader({ rpcUrl: config.EVM_RPC_URL, usdc: terms.usdc, payTo: terms.payTo }) : null;
  const paywall = createPaywall({
    db: database.db,
    facilitator: facilitator.client,
    terms,
    clock,
    log,
    secretBox: config.MASTER_KEY ? new SecretBox(config.MASTER_KEY) : null,
    chain: paymentChain,
  });

  // Monero: the configured daemon (the devnet's in devnet mode); without one, facts answer 503 chain_not_configured.
  const moneroNetwork = config.MONERO_NETWORK;
  const moneroDaemon = createMoneroDaemon(config.MONERO_DAEMON_URL);
  // Large ticks are scanned on worker threads (started only when a tick first needs them).
  const scanThreads = config.MONERO_SCAN_THREADS ?? os.availableParallelism();
  const moneroScanPool = moneroDaemon.configured && scanThreads > 0 ? new MoneroScanPool({ threads: scanThreads }) : undefined;
  const moneroScanner = moneroDaemon.configured
    ? createMoneroScanner({
        scanPool: moneroScanPool,
        daemon: moneroDaemon,
        confirmations: config.MONERO_CONFIRMATIONS,
        lookahead: config.MONERO_SUBADDRESS_LOOKAHEAD,
        network: moneroNetwork,
        clock,
        onWatchError: (watchId, e) => log.warn({ watchId, err: (e as Error).message }, "monero scan of one watch failed"),
      })
    : undefined;
  const moneroHistorical = createMoneroHistorical({
    daemon: moneroDaemon,
    maxBlocks: config.HISTORICAL_MAX_BLOCKS,
    lookahead: config.MONERO_SUBADDRESS_LOOKAHEAD,
    network: moneroNetwork,
    clock,
  });

  // Zcash: compact blocks from lightwalletd (LIGHTWALLETD_URL); without it, Zcash watches answer 503 chain_not_configured.
  const compactBlockSource = opts.compactBlockSource ?? ((url: string) => createLightwalletd({ url, network: config.ZCASH_NETWORK }));
  const zcashSource = config.LIGHTWALLETD_URL ? compactBlockSource(config.LIGHTWALLETD_URL) : undefined;
  const zcashScanner = zcashSource
    ? createZcashScanner({
        source: zcashSource,
        network: config.ZCASH_NETWORK,
        confirmations: config.ZCASH_CONFIRMATIONS,
        onWatchError: (watchId, e) => log.warn({ watchId, err: (e as Error).message }, "zcash scan of one watch failed"),
      })
    : undefined;
  const zcashHistorical = zcashSource ? createZcashHistorical({ source: zcashSource, network: config.ZCASH_NETWORK, maxBlocks: config.HISTORICAL_MAX_BLOCKS }) : undefined;

  const scanners: Partial<Record<ChainId, ChainScanner>> = opts.scanners ?? {
    ...(moneroScanner ? { monero: moneroScanner } : {}),
    ...(zcashScanner ? { zcash: zcashScanner } : {}),
  };
  const masterKey = config.MASTER_KEY;
  const urlPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const metrics = createMetrics();
  // Outbox depth and the age of its oldest pending event, read at scrape time.
  metrics.setOutboxProbe(async () => {
    const r = await database.db
      .selectFrom("webhook_outbox")
      .select((eb) => [eb.fn.countAll<string>().as("n"), eb.fn.min("created_at").as("oldest")])
      .where("status", "=", "pending")
      .executeTakeFirst();
    const oldest = r?.oldest ? new Date(r.oldest as Date).getTime() : null;
    return { depth: Number(r?.n ?? 0), oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (clock.now() - oldest) / 1000) };
  });
  const watch: WatchDeps = {
    metrics,
    db: database.db,
    clock,
    log,
    scanners,
    secretBox: masterKey ? new SecretBox(masterKey) : null,
    sender: createWebhookSender({ policy: urlPolicy, resolver: opts.resolver, clock }),
    urlPolicy,
    resolver: opts.resolver,
    pollSeconds: config.WATCH_POLL_SECONDS,
  };

  // Paying in coin: USD prices, the service's receiving wallets, and the subscriber that settles quotes.
  const rates = createRateSource({
    providers: [...parsePriceSources(config.PRICE_SOURCES).map((src) => httpProvider(src)), ...fixedProviders(config.PRICE_FIXED_USD)],
    clock,
    cacheSeconds: config.PRICE_CACHE_SECONDS,
    onProviderError: (name, e) => log.warn({ provider: name, err: (e as Error).message }, "price provider failed"),
  });
  const coin: CoinDeps = {
    watch,
    rates,
    wallets: {
      ...(config.COIN_XMR_ADDRESS && config.COIN_XMR_VIEW_KEY ? { monero: { address: config.COIN_XMR_ADDRESS, viewKey: config.COIN_XMR_VIEW_KEY } } : {}),
      ...(config.COIN_ZEC_ADDRESS && config.COIN_ZEC_VIEW_KEY ? { zcash: { address: config.COIN_ZEC_ADDRESS, viewKey: config.COIN_ZEC_VIEW_KEY } } : {}),
    },
    confirmations: { monero: config.MONERO_CONFIRMATIONS, zcash: config.ZCASH_CONFIRMATIONS },
    walletWebhook: () =>
      config.COIN_WEBHOOK_URL ? { url: config.COIN_WEBHOOK_URL, ownSink: false } : { url: `${site.baseUrl}${SERVICE_WALLET_SINK_PATH}`, ownSink: true },
  };
  // A receiving wallet that cannot be watched is a start-up error, not a 400 for the first payer.
  for (const [chain, names] of [["monero", "COIN_XMR_ADDRESS / COIN_XMR_VIEW_KEY"], ["zcash", "COIN_ZEC_ADDRESS / COIN_ZEC_VIEW_KEY"]] as const) {
    const wallet = coin.wallets[chain];
    const scanner = scanners[chain];
    if (!wallet || !scanner) continue;
    try {
      scanner.validateWatchKey(wallet.address, wallet.viewKey);
    } catch (e) {
      throw new Error(`${names}: ${(e as Error).message}`);
    }
  }
  // Checkout: invoices settle on the merchants' own watches, on the same seam.
  const checkout: CheckoutDeps = { coin, payUrl: () => config.PAY_URL ?? `${site.baseUrl}${PAY_PAGE_PATH}` };
  watch.scanSubscribers = [coinQuoteSubscriber(coin), invoiceSubscriber(checkout)];

  // Ethereum: the configured node(s), tried in order; without one, its questions answer 503 chain_not_configured.
  const ethRpc = new EthRpc({
    urls: splitRpcUrls(config.ETH_RPC_URL),
    onFailover: (f) => log.warn({ from: f.from, to: f.to, reason: f.reason }, "ethereum node failed; trying the next"),
  });
  const ethereum: EthereumFollowerDeps = {
    db: database.db,
    rpc: ethRpc,
    retention: config.ETH_RETENTION_BLOCKS,
    batch: 64,
    warn: (info, message) => log.warn(info, message),
  };

  // Zcash: zebrad for chain facts; without it, the /v1/q/zec/* questions answer 503 chain_not_configured.
  const zebrad = createZebrad({ url: config.ZEBRAD_URL, network: config.ZCASH_NETWORK });
  const zcashPools: ZcashPoolsDeps = { db: database.db, zebrad, clock, intervalSeconds: config.ZCASH_SNAPSHOT_SECONDS };

  // MEV-Boost relays (RELAY_URLS) and the reviewed builder key table (the defaults plus BUILDER_PUBKEYS; names learned from blocks come after it); without relays the builder questions answer 503.
  const relayEndpoints = parseRelayUrls(config.RELAY_URLS);
  const reviewedBuilderNames = builderKeyNames(config.BUILDER_PUBKEYS);
  const relays: RelayPollerDeps = {
    db: database.db,
    relays: relayEndpoints.map((r) => new RelayClient(r)),
    clock,
    retentionSeconds: config.RELAY_RETENTION_HOURS * 3600,
    warn: (info, message) => log.warn(info, message),
    // Keys no reviewed table names are named from their blocks' extra-data, read on the Ethereum node (none configured: no learning).
    learnNames: { rpc: ethRpc, names: reviewedBuilderNames },
  };
  const builderDeps = { db: database.db, clock, relays: relayEndpoints, names: reviewedBuilderNames, maxAgeSeconds: config.RELAY_MAX_AGE_SECONDS, rpc: ethRpc };

  // Lending (Aave V3 Core/Prime, SparkLend) on the same node; the indexer stays LENDING_CONFIRMATIONS behind the head.
  const LENDING_CONFIRMATIONS = 2;
  const lending: LendingIndexerDeps = {
    db: database.db,
    rpc: ethRpc,
    clock,
    markets: LENDING_MARKETS,
    oracle: AAVE_V3_CORE_ORACLE,
    backfillBlocks: config.LENDING_BACKFILL_BLOCKS,
    batchBlocks: 1_000,
    confirmations: LENDING_CONFIRMATIONS,
    retentionSeconds: config.LENDING_RETENTION_HOURS * 3600,
    multicallBatch: 200,
  };
  const lendingDeps: LendingQuestionDeps = { db: database.db, rpc: ethRpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: config.ETH_MAX_AGE_SECONDS + 12 * LENDING_CONFIRMATIONS };
  // The private relay: the configured builder endpoints; the Ethereum node is only read (chain, nonce, known hashes).
  const privateBuilders = parsePrivateBuilders(config.PRIVATE_RELAY_BUILDERS).map((b) => new BuilderClient(b, { signingKey: config.PRIVATE_RELAY_SIGNING_KEY }));

  // The public risk lists (RISK_LISTS), loaded once: the counter-MEV scores and the address-risk question read the same set.
  const riskLists = loadRiskLists(config.RISK_LISTS, clock.now());
  // Counter-MEV: the approval scan beside the follower, scored against the public risk lists.
  const approvalScan: ApprovalScanDeps = { db: database.db, rpc: ethRpc, lists: riskLists, retention: config.COUNTER_MEV_RETENTION_BLOCKS, batch: 100, confirmations: 2 };
  const counterMev: CounterMevDeps = {
    db: database.db,
    rpc: ethRpc,
    clock,
    lists: riskLists,
    windowBlocks: config.COUNTER_MEV_WINDOW_BLOCKS,
    maxWindowBlocks: config.COUNTER_MEV_RETENTION_BLOCKS,
    maxAgeSeconds: config.COUNTER_MEV_MAX_AGE_SECONDS,
    priceMemo: {},
  };

  const questions: QuestionDef[] = [
    ...moneroQuestions({ daemon: moneroDaemon, clock }),
    ...ethereumQuestions({ rpc: ethRpc, db: database.db, clock, maxAgeSeconds: config.ETH_MAX_AGE_SECONDS, extraSources: combineFreshnessSources(relayFreshnessSources(builderDeps), lendingFreshnessSource(lendingDeps)) }),
    ...lendingQuestions(lendingDeps),
    addressRiskQuestion({ ...lendingDeps, lists: riskLists, approvalRisk: (address) => approvalRiskOf({ ctx: counterMev, address }) }),
    ...builderQuestions(builderDeps),
    ...zcashQuestions({ zebrad, clock }),
  ];
  const healthChecks: HealthCheck[] = [
    { name: "monero", check: () => moneroHealth(moneroDaemon) },
    { name: "zcash", check: () => zcashHealth(zebrad) },
    { name: "ethereum", check: () => ethereumHealth(ethRpc) },
  ];
  // Every question of the contract is listed; the ones without a declaration yet as not implemented.
  const oracle = createOracleRegistry(questions, clock, SPEC_QUESTIONS);

  // The operator allow-list (docs/allow-list.md): addresses and tokens with their own, higher general limit.
  const splitList = (v: string | undefined) => (v ?? "").split(",").map((x) => x.trim()).filter(Boolean);
  const allowCidrs = splitList(config.RATE_LIMIT_ALLOW_CIDRS);
  const allowTokens = splitList(config.RATE_LIMIT_ALLOW_TOKENS);
  const allowListSettings =
    allowCidrs.length || allowTokens.length ? { cidrs: allowCidrs, tokens: allowTokens, perMinute: config.RATE_LIMIT_ALLOW_PER_MINUTE } : undefined;

  const routes: AnyRouteDef[] = [];
  // Built from the whole table below; the server card route reads it per request.
  let mcp: McpService | undefined;
  const moduleRoutes: AnyRouteDef[] = [
    ...oracleRoutes(oracle),
    ...oracle.routes,
    ...flashloanRoutes({ rpc: ethRpc, clock }),
    ...zcashPoolsRoutes(zcashPools),
    ...feedsRoutes(builderDeps),
    ...opportunitiesRoutes(lendingDeps),
    ...watchRoutes(watch, { historical: { monero: moneroHistoricalScan(moneroHistorical), ...(zcashHistorical ? { zcash: zcashHistoricalScan(zcashHistorical) } : {}) }, cryptoTopup: cryptoTopupOffer(coin), checkout: checkoutOffer(checkout), paymentNetwork: network, zcashNetwork: config.ZCASH_NETWORK }),
    ...counterMevRoutes(counterMev),
    ...puzzleRiskRoutes({ rpc: ethRpc, clock, watchlist: loadWatchlist(config.PUZZLE_WATCHLIST), maxAgeSeconds: config.ETH_MAX_AGE_SECONDS, memo: {} }),
    ...relayRoutes({ rpc: ethRpc, clock, builders: privateBuilders, targetBlocks: config.PRIVATE_RELAY_TARGET_BLOCKS, signed: Boolean(config.PRIVATE_RELAY_SIGNING_KEY) }),
    ...coinRoutes(coin),
    ...checkoutRoutes(checkout),
    ...boardRoutes({ clock, boards: boardCatalogue(config.BOARDS) }),
    ...mcpRoutes(() => mcp!, site),
    ...(opts.extraRoutes ?? []),
  ];
  routes.push(
    ...metaRoutes(() => routes, {
      site,
      paywall,
      facilitatorMode: config.FACILITATOR_MODE,
      facilitatorUrl: facilitator.label,
      db: database.db,
      dbKind: database.kind,
      ...(database.storage ? { dbStorage: database.storage } : {}),
      devnet: config.devnet,
      healthChecks,
      sources: Object.fromEntries(upstreamSources(config).map((u) => [u.key, u.source])),
      startedAt: clock.now(),
      now: () => clock.now(),
      version: VERSION,
      generalPerMinute: config.RATE_LIMIT_PER_MINUTE,
      allowList: allowListSettings
        ? { enabled: true, perMinute: allowListSettings.perMinute }
        : { enabled: false, perMinute: undefined },
    }),
    ...moduleRoutes,
  );
  const table: TableEntry[] = [...routes, ...oracle.tools];
  const seen = new Set<string>();
  for (const r of httpRoutes(table)) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`route declared twice: ${key}`);
    seen.add(key);
  }

  // Off the request path: the first derive-viewkey call then costs what every later one does.
  scheduleZcashKeyWarmUp();

  const store: RateLimitStore = database.kind === "postgres" ? { kind: "postgres", pool: database.pool, schema: config.DATABASE_SCHEMA } : { kind: "memory" };
  const hono = buildRouter({
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
  const mcpSite: { baseUrl: string | undefined } = { baseUrl: undefined };

  let server: ServerType | undefined;
  let mcpServer: ServerType | undefined;
  let metricsServer: ServerType | undefined;
  const metricsSite: { baseUrl: string | undefined } = { baseUrl: undefined };
  const appFetch = instrumentFetch(hono.fetch, { metrics, routePatterns: routes.map((r) => r.path), token: config.METRICS_TOKEN });
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
          metricsServer = serve({ fetch, port: config.METRICS_PORT!, hostname: config.METRICS_HOST }, (info) => {
            const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
            metricsSite.baseUrl = `http://${host}:${info.port}`;
            resolve();
          });
          metricsServer.once("error", reject);
        });
  const listenMcp = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const mcpSiteUrl = { baseUrl: "" };
      const mcpApp = buildMcpApp({
        service: mcp,
        log,
        trustProxyHops: config.TRUST_PROXY_HOPS,
        generalLimiter: createRateLimiter(store, "rl_general", config.RATE_LIMIT_PER_MINUTE, 60),
        site: mcpSiteUrl,
      });
      mcpServer = serve({ fetch: mcpApp.fetch, port, hostname: config.HOST }, (info) => {
        const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
        mcpSite.baseUrl = `http://${host}:${info.port}`;
        // The card advertises the address agents reach (MCP_PUBLIC_URL behind a proxy).
        mcpSiteUrl.baseUrl = config.MCP_PUBLIC_URL?.replace(/\/$/, "") ?? mcpSite.baseUrl;
        resolve();
      });
      mcpServer.once("error", reject);
    });
  return {
    config,
    hono,
    routes,
    table,
    oracle,
    paywall,
    payments: { chain: paymentChain, responseTtlSeconds: paywall.responseTtlSeconds },
    watch,
    ethereum,
    checkout,
    relays,
    lending,
    approvalScan,
    zcashPools,
    database,
    log,
    clock,
    site,
    mcp,
    mcpSite,
    metrics,
    metricsSite,
    listenMetrics,
    listen: () =>
      new Promise<string>((resolve, reject) => {
        server = serve({ fetch: appFetch, port: config.PORT, hostname: config.HOST }, (info) => {
          const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
          const url = `http://${host}:${info.port}`;
          if (!config.PUBLIC_URL) site.baseUrl = url;
          resolve(url);
        });
        server.once("error", reject);
      }).then(async (url) => {
        if (config.MCP_PORT !== undefined) await listenMcp(config.MCP_PORT);
        await listenMetrics();
        return url;
      }),
    close: async () => {
      const drainMs = opts.shutdownDrainMs;
      if (metricsServer) await closeServer(metricsServer, drainMs);
      if (mcpServer) await closeServer(mcpServer, drainMs);
      if (server) await closeServer(server, drainMs);
      await watch.sender.close();
      await rates.close();
      await moneroScanPool?.close();
      await ethRpc.close();
      await zebrad.close();
      zcashSource?.close();
      await Promise.all(relays.relays.map((r) => r.close()));
      await Promise.all(privateBuilders.map((b) => b.close()));
      if (ownsDatabase) await database.close();
    },
  };
}
