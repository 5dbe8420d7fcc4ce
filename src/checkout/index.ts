/**
 * The face of paying in coin and Checkout: what the composition root builds
 * them with. Both settle on watches (the watch module's scan-subscriber
 * seam), so the factory takes the watch module's deps and returns, besides
 * its routes and its invoice expiry job, the subscribers the watch tick tells
 * and the offers the watch guides show.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import type { ScanSubscriber, WatchDeps } from "../watch/index.js";
import { coinRoutes, SERVICE_WALLET_SINK_PATH } from "./routes.js";
import { coinQuoteSubscriber, cryptoTopupOffer, type CoinDeps } from "./quotes.js";
import { checkoutRoutes } from "./checkout-routes.js";
import { checkoutOffer, invoiceExpiryJob, invoiceSubscriber, type CheckoutDeps } from "./invoices.js";
import { PAY_PAGE_PATH } from "./pay-page.js";
import { createRateSource, fixedProviders, httpProvider, parsePriceSources } from "./prices.js";

export type { CheckoutDeps } from "./invoices.js";

export interface CheckoutModule extends ServiceModule {
  deps: CheckoutDeps;
  /** Told what each tick's scans found: coin quotes and invoices settle there. */
  scanSubscribers: ScanSubscriber[];
  /** Paying in coin and Checkout as the watch guides show them. */
  offers: { cryptoTopup: ReturnType<typeof cryptoTopupOffer>; checkout: ReturnType<typeof checkoutOffer> };
}

/** The service's own receiving wallets; one that cannot be watched is a start-up error, not a 400 for the first payer. */
function receivingWallets(ctx: ModuleContext): CoinDeps["wallets"] {
  const { config, upstreams } = ctx;
  const wallets: CoinDeps["wallets"] = {
    ...(config.COIN_XMR_ADDRESS && config.COIN_XMR_VIEW_KEY ? { monero: { address: config.COIN_XMR_ADDRESS, viewKey: config.COIN_XMR_VIEW_KEY } } : {}),
    ...(config.COIN_ZEC_ADDRESS && config.COIN_ZEC_VIEW_KEY ? { zcash: { address: config.COIN_ZEC_ADDRESS, viewKey: config.COIN_ZEC_VIEW_KEY } } : {}),
  };
  for (const [chain, names] of [["monero", "COIN_XMR_ADDRESS / COIN_XMR_VIEW_KEY"], ["zcash", "COIN_ZEC_ADDRESS / COIN_ZEC_VIEW_KEY"]] as const) {
    const wallet = wallets[chain];
    const scanner = upstreams.scanners[chain];
    if (!wallet || !scanner) continue;
    try {
      scanner.validateWatchKey(wallet.address, wallet.viewKey);
    } catch (e) {
      throw new Error(`${names}: ${(e as Error).message}`);
    }
  }
  return wallets;
}

export function createCheckoutModule(ctx: ModuleContext, watch: WatchDeps): CheckoutModule {
  const { config, clock, log, site } = ctx;
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
    wallets: receivingWallets(ctx),
    confirmations: { monero: config.MONERO_CONFIRMATIONS, zcash: config.ZCASH_CONFIRMATIONS },
    walletWebhook: () =>
      config.COIN_WEBHOOK_URL ? { url: config.COIN_WEBHOOK_URL, ownSink: false } : { url: `${site.baseUrl}${SERVICE_WALLET_SINK_PATH}`, ownSink: true },
  };
  // Checkout: invoices settle on the merchants' own watches, on the same seam.
  const checkout: CheckoutDeps = { coin, payUrl: () => config.PAY_URL ?? `${site.baseUrl}${PAY_PAGE_PATH}` };
  return {
    name: "checkout",
    deps: checkout,
    routes: [...coinRoutes(coin), ...checkoutRoutes(checkout)],
    jobs: () => [invoiceExpiryJob(checkout, ctx.database.db)],
    scanSubscribers: [coinQuoteSubscriber(coin), invoiceSubscriber(checkout)],
    offers: { cryptoTopup: cryptoTopupOffer(coin), checkout: checkoutOffer(checkout) },
    close: () => rates.close(),
  };
}
