/**
 * USD prices of the coins Vigil is paid in, as exact rationals (never
 * floats): a small `RateSource` interface with two kinds of providers —
 * HTTP JSON endpoints (URL + field path, through the one upstream client)
 * and fixed rates (offline setups) — joined by a median with outliers
 * dropped, behind a short cache on the injected clock. No fresh price is a
 * 503 `price_unavailable`: a quote is never priced on a stale or guessed rate.
 */
import { unavailable } from "../core/errors.js";
import type { Clock } from "../core/clock.js";
import { UpstreamClient } from "../core/upstream.js";

export type Coin = "xmr" | "zec";

/** USD per whole coin as num/den (den > 0, num > 0). */
export interface Rate {
  num: bigint;
  den: bigint;
}

export interface RateQuote {
  rate: Rate;
  /** Decimal form for people ("163.27"). */
  display: string;
  /** Providers that answered and were kept / that answered at all. */
  used: number;
  answered: number;
}

/** One provider: the price of a coin in USD, or a throw. */
export interface PriceProvider {
  readonly name: string;
  readonly coin: Coin;
  fetch(signal?: AbortSignal): Promise<Rate>;
}

/** What quotes ask: the current USD rate of a coin (503 price_unavailable when there is none). */
export interface RateSource {
  usdRate(coin: Coin): Promise<RateQuote>;
}

/** A provider that strays more than this from the median (in basis points) is dropped. */
export const STRAY_BPS = 500n;

/** "163.27" → 16327/100; refuses signs, exponents and anything not a plain positive decimal. */
export function parseDecimalRate(text: string): Rate {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new RangeError(`not a plain decimal price: ${JSON.stringify(text)}`);
  const frac = m[2] ?? "";
  const den = 10n ** BigInt(frac.length);
  const num = BigInt(m[1]! + frac);
  if (num <= 0n) throw new RangeError("price must be positive");
  return reduce({ num, den });
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

function reduce(r: Rate): Rate {
  const g = gcd(r.num, r.den);
  return { num: r.num / g, den: r.den / g };
}

const cmp = (a: Rate, b: Rate): number => {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
};

function median(rates: readonly Rate[]): Rate {
  const s = [...rates].sort(cmp);
  const mid = Math.floor(s.length / 2);
  if (s.length % 2 === 1) return s[mid]!;
  const a = s[mid - 1]!;
  const b = s[mid]!;
  return reduce({ num: a.num * b.den + b.num * a.den, den: 2n * a.den * b.den });
}

/** |r − m| / m > STRAY_BPS / 10000, exactly. */
function strays(r: Rate, m: Rate): boolean {
  // |r.num/r.den − m.num/m.den| × 10000 × m.den / m.num > STRAY_BPS
  const diff = r.num * m.den - m.num * r.den; // over r.den × m.den
  const absDiff = diff < 0n ? -diff : diff;
  return absDiff * 10_000n > STRAY_BPS * m.num * r.den;
}

/**
 * The rate several providers agree on: the median of the answers, then the
 * median again of those within STRAY_BPS of it. Null when none is left
 * (e.g. two providers far apart: neither is trusted).
 */
export function agreedRate(rates: readonly Rate[]): Rate | null {
  if (rates.length === 0) return null;
  const m = median(rates);
  const kept = rates.filter((r) => !strays(r, m));
  if (kept.length === 0) return null;
  return median(kept);
}

/** num/den as a decimal with at most `places` decimals (rounded down), for display only. */
export function formatRate(r: Rate, places = 6): string {
  const scale = 10n ** BigInt(places);
  const v = (r.num * scale) / r.den;
  const whole = v / scale;
  const frac = (v % scale).toString().padStart(places, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** A constant price (offline or development setups). */
export function fixedProvider(coin: Coin, usd: string): PriceProvider {
  const rate = parseDecimalRate(usd);
  return { name: `fixed:${coin}`, coin, fetch: async () => rate };
}

/** Parses PRICE_FIXED_USD ("xmr=150.25,zec=32.1"). */
export function fixedProviders(setting: string | undefined): PriceProvider[] {
  if (!setting) return [];
  return setting
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [coin, usd] = p.split("=") as [Coin, string];
      return fixedProvider(coin, usd);
    });
}

/** Reads `a.b.0.c` out of parsed JSON. */
function pick(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.split(".").filter(Boolean)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * A JSON number or string as an exact decimal. A JSON number is taken as the
 * shortest decimal that reads back as the same double: that is the digits
 * the provider wrote for any price with up to 15 significant digits.
 */
function decimalOf(v: unknown): Rate {
  if (typeof v === "string") return parseDecimalRate(v);
  if (typeof v === "number" && Number.isFinite(v) && v > 0) {
    const text = String(v);
    if (/e/i.test(text)) throw new RangeError(`price out of range: ${text}`);
    return parseDecimalRate(text);
  }
  throw new RangeError(`no price at the field path (found ${JSON.stringify(v)?.slice(0, 40)})`);
}

export interface HttpPriceSource {
  coin: Coin;
  url: string;
  /** Dotted path of the price in the JSON answer, e.g. "monero.usd". */
  field: string;
}

/** A provider on an HTTP JSON endpoint, through the shared upstream client (timeouts, retries, capped body). */
export function httpProvider(src: HttpPriceSource, opts: { timeoutMs?: number; attempts?: number } = {}): PriceProvider & { close(): Promise<void> } {
  const u = new URL(src.url);
  const path = `${u.pathname}${u.search}`;
  const client = new UpstreamClient({
    url: u.origin,
    name: `price provider ${u.host}`,
    failureCode: "price_provider_failed",
    notConfigured: { code: "price_unavailable", message: "No price provider is configured." },
    timeoutMs: opts.timeoutMs ?? 4000,
    attempts: opts.attempts ?? 2,
    maxResponseBytes: 64 * 1024,
  });
  return {
    name: `${u.host}${u.pathname}`,
    coin: src.coin,
    fetch: async (signal) => decimalOf(pick(await client.json({ path, method: "GET", idempotent: true, call: `price ${src.coin}`, signal }), src.field)),
    close: () => client.close(),
  };
}

/** Parses PRICE_SOURCES (a JSON list of {coin, url, field}); throws with a readable message. */
export function parsePriceSources(setting: string | undefined): HttpPriceSource[] {
  if (!setting) return [];
  const parsed: unknown = JSON.parse(setting);
  if (!Array.isArray(parsed)) throw new Error("PRICE_SOURCES must be a JSON list");
  return parsed.map((e, i) => {
    const o = e as Partial<HttpPriceSource>;
    if ((o.coin !== "xmr" && o.coin !== "zec") || typeof o.url !== "string" || typeof o.field !== "string" || !/^https?:\/\//.test(o.url)) {
      throw new Error(`PRICE_SOURCES[${i}] must be {"coin": "xmr"|"zec", "url": "http(s)://…", "field": "path.to.price"}`);
    }
    return { coin: o.coin, url: o.url, field: o.field };
  });
}

/**
 * The rate source: asks every provider of the coin at once, keeps the agreed
 * rate for `cacheSeconds` on the clock. A failed provider simply does not
 * vote; no vote left is 503 price_unavailable.
 */
export function createRateSource(opts: {
  providers: readonly PriceProvider[];
  clock: Clock;
  cacheSeconds: number;
  onProviderError?: (name: string, err: unknown) => void;
}): RateSource & { close(): Promise<void> } {
  const cache = new Map<Coin, { at: number; quote: RateQuote }>();
  const inflight = new Map<Coin, Promise<RateQuote>>();
  const load = async (coin: Coin): Promise<RateQuote> => {
    const mine = opts.providers.filter((p) => p.coin === coin);
    if (mine.length === 0) throw unavailable("price_unavailable", `No USD price source is configured for ${coin.toUpperCase()}.`);
    const answers = await Promise.allSettled(mine.map((p) => p.fetch()));
    const rates: Rate[] = [];
    answers.forEach((a, i) => {
      if (a.status === "fulfilled") rates.push(a.value);
      else opts.onProviderError?.(mine[i]!.name, a.reason);
    });
    const rate = agreedRate(rates);
    if (!rate) {
      throw unavailable("price_unavailable", `No fresh USD price for ${coin.toUpperCase()}: the price providers are unreachable or disagree.`, {
        providers: mine.length,
        answered: rates.length,
      });
    }
    const used = rates.filter((r) => !strays(r, median(rates))).length;
    return { rate, display: formatRate(rate), used, answered: rates.length };
  };
  return {
    async usdRate(coin) {
      const hit = cache.get(coin);
      if (hit && opts.clock.now() - hit.at < opts.cacheSeconds * 1000) return hit.quote;
      let p = inflight.get(coin);
      if (!p) {
        p = load(coin).finally(() => inflight.delete(coin));
        inflight.set(coin, p);
      }
      const quote = await p;
      cache.set(coin, { at: opts.clock.now(), quote });
      return quote;
    },
    close: async () => {
      await Promise.all(opts.providers.map((p) => (p as { close?: () => Promise<void> }).close?.()));
    },
  };
}
