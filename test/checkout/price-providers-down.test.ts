/**
 * USD price providers over real loopback HTTP (the devnet's two simulated
 * providers, and a port nobody listens on): a provider that answers 503 or
 * cannot be reached fails with 502 price_provider_failed, which the rate
 * source reports and leaves out of the vote; with no provider left the rate
 * is 503 price_unavailable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { createRateSource, formatRate, httpProvider, parsePriceSources } from "../../src/checkout/prices.js";
import { startDevnetPrices, type DevnetPrices } from "../../devnet/prices.js";
import { freePort } from "../helpers/ports.js";

describe("a price provider that fails", () => {
  let prices: DevnetPrices;
  const clock = new ManualClock(1_000_000);
  const providers: ReturnType<typeof httpProvider>[] = [];
  const provider = (src: Parameters<typeof httpProvider>[0]) => {
    const p = httpProvider(src, { timeoutMs: 5_000, attempts: 1 });
    providers.push(p);
    return p;
  };

  beforeAll(async () => {
    prices = await startDevnetPrices();
  });
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
    await prices?.close();
  });

  it("answering 503, or not reachable at all, is a 502 price_provider_failed", async () => {
    const [a] = parsePriceSources(prices.sources).map(provider);
    prices.down("a");
    try {
      await expect(a!.fetch()).rejects.toMatchObject({ status: 502, code: "price_provider_failed" });
    } finally {
      prices.down("a", false);
    }
    expect(formatRate(await a!.fetch())).toBe("150.25");
    const nobody = provider({ coin: "xmr", url: `http://127.0.0.1:${await freePort()}/price`, field: "usd" });
    await expect(nobody.fetch()).rejects.toMatchObject({ status: 502, code: "price_provider_failed" });
  });

  it("is reported and left out of the vote; with none left the rate is 503 price_unavailable", async () => {
    const failures: { name: string; code: unknown }[] = [];
    const source = createRateSource({
      providers: parsePriceSources(prices.sources).filter((s) => s.coin === "zec").map(provider),
      clock,
      cacheSeconds: 1,
      onProviderError: (name, err) => failures.push({ name, code: (err as { code?: unknown }).code }),
    });
    prices.down("b");
    try {
      expect((await source.usdRate("zec")).display).toBe("32.1");
      expect(failures.map((f) => f.code)).toEqual(["price_provider_failed"]);
      prices.down("both");
      clock.advance(2_000);
      await expect(source.usdRate("zec")).rejects.toMatchObject({ status: 503, code: "price_unavailable" });
      expect(failures.map((f) => f.code)).toEqual(["price_provider_failed", "price_provider_failed", "price_provider_failed"]);
    } finally {
      // The providers (all the source closes) are closed after the file.
      prices.down("both", false);
    }
  });
});
