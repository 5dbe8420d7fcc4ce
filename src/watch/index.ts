/**
 * The face of Private Watch: what the composition root builds it with, and
 * everything other modules may use of it (Checkout and paying in coin settle
 * on watches, through the watch account and the scan-subscriber seam). Other
 * modules import watch/ only through this file.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import { SecretBox } from "../core/secretbox.js";
import { createWebhookSender } from "../webhooks/deliver.js";
import type { Resolver } from "../webhooks/url-guard.js";
import type { WatchDeps } from "./deps.js";
import type { ScanSubscriber } from "./findings.js";
import { watchRoutes, type WatchRouteOptions } from "./routes.js";
import { moneroHistoricalScan, zcashHistoricalScan } from "./historical-route.js";
import { warmUpDeriveViewkey } from "./derive-viewkey-route.js";
import { lookaheadFrom } from "../chains/monero/chain-rules.js";

export type { WatchDeps } from "./deps.js";
export { readKnownOutputs, type ScanSubscriber, type WatchFindings } from "./findings.js";
export { creditBlock, type CreditBlock } from "./meter.js";
export { meterOf, newNonce, snapshotOf } from "./model.js";
export { debitSettlementFee, discardNewWatch, insertSerializedEvents } from "./account.js";
export { checkCreateWatch, checkTopup, createWatch, creditWatch, CreateWatchInput, type WatchOpening } from "./service.js";
export { INVOICE_EVENTS, type InvoiceEvent } from "./events.js";
export { WatchCreateOutput } from "./routes.js";
export { runWatchTick, type TickStats } from "./tick.js";
export { createDeliveryPool } from "./tick-deliver.js";
export { createLeaseKeeper } from "./tick-leases.js";

/** The watch module's dependencies, built from the shared context (before the modules that settle on watches). */
export function createWatchDeps(ctx: ModuleContext, opts: { resolver?: Resolver } = {}): WatchDeps {
  const { config, database, clock, metrics } = ctx;
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
  const urlPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  return {
    metrics,
    db: database.db,
    clock,
    log: ctx.log,
    scanners: ctx.upstreams.scanners,
    secretBox: config.MASTER_KEY ? new SecretBox(config.MASTER_KEY) : null,
    sender: createWebhookSender({ policy: urlPolicy, resolver: opts.resolver, clock }),
    urlPolicy,
    resolver: opts.resolver,
    pollSeconds: config.WATCH_POLL_SECONDS,
    subaddressDefault: lookaheadFrom(config.MONERO_SUBADDRESS_LOOKAHEAD),
  };
}

export interface WatchModuleOptions {
  /** What the scans tell, inside each tick's batch transaction (Checkout, coin quotes). */
  scanSubscribers: ScanSubscriber[];
  /** Paying in coin and Checkout as their modules offer them, for the guides. */
  offers: Pick<WatchRouteOptions, "cryptoTopup" | "checkout">;
}

/** Private Watch's routes (the tick runs in workers.ts); closes the webhook sender on shutdown. */
export function createWatchModule(ctx: ModuleContext, deps: WatchDeps, opts: WatchModuleOptions): ServiceModule {
  const { config, upstreams } = ctx;
  deps.scanSubscribers = opts.scanSubscribers;
  const historical = {
    monero: moneroHistoricalScan(upstreams.moneroHistorical),
    ...(upstreams.zcashHistorical ? { zcash: zcashHistoricalScan(upstreams.zcashHistorical) } : {}),
  };
  return {
    name: "watch",
    routes: watchRoutes(deps, { historical, ...opts.offers, paymentNetwork: config.X402_NETWORK, zcashNetwork: config.ZCASH_NETWORK }),
    // The first derive-viewkey call then costs what every later one does.
    warmUp: warmUpDeriveViewkey,
    close: () => deps.sender.close(),
  };
}
