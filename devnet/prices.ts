/**
 * The devnet's USD price providers: two simulated JSON endpoints on one
 * loopback server (shaped like common public price APIs), so the app's HTTP
 * price path runs for real. Tests move the prices, make one provider stray,
 * or take them both down.
 *
 *   GET /a/simple/price → {"monero": {"usd": 150.25}, "zcash": {"usd": 32.1}}
 *   GET /b/ticker       → {"result": {"XMRUSD": "150.25", "ZECUSD": "32.1"}}
 */
import { HttpReply, startJsonRpcServer } from "./jsonrpc-server.js";

export type DevnetCoin = "xmr" | "zec";

/** Devnet prices (USD per coin), decimal strings. */
export const DEVNET_PRICES: Record<DevnetCoin, string> = { xmr: "150.25", zec: "32.1" };

export interface DevnetPrices {
  url: string;
  /** The PRICE_SOURCES setting that points the app at both providers. */
  sources: string;
  /** Sets a coin's price on one provider ("a" or "b") or both. */
  set(coin: DevnetCoin, usd: string, provider?: "a" | "b"): void;
  /** Makes a provider (or both) answer 503. */
  down(provider: "a" | "b" | "both", isDown?: boolean): void;
  close(): Promise<void>;
}

export async function startDevnetPrices(opts: { host?: string } = {}): Promise<DevnetPrices> {
  const prices = { a: { ...DEVNET_PRICES }, b: { ...DEVNET_PRICES } };
  const isDown = { a: false, b: false };
  const guard = (p: "a" | "b") => {
    if (isDown[p]) throw new HttpReply(503, { error: "provider down" });
  };
  const server = await startJsonRpcServer({
    host: opts.host ?? "127.0.0.1",
    maxBodyBytes: 1024,
    rpc: { path: "/rpc", methods: { params: "named", table: {} } },
    routes: {
      "GET /a/simple/price": () => {
        guard("a");
        return { monero: { usd: Number(prices.a.xmr) }, zcash: { usd: Number(prices.a.zec) } };
      },
      "GET /b/ticker": () => {
        guard("b");
        return { result: { XMRUSD: prices.b.xmr, ZECUSD: prices.b.zec } };
      },
    },
  });
  const sources = JSON.stringify([
    { coin: "xmr", url: `${server.url}/a/simple/price?ids=monero&vs_currencies=usd`, field: "monero.usd" },
    { coin: "xmr", url: `${server.url}/b/ticker?pair=XMRUSD`, field: "result.XMRUSD" },
    { coin: "zec", url: `${server.url}/a/simple/price?ids=zcash&vs_currencies=usd`, field: "zcash.usd" },
    { coin: "zec", url: `${server.url}/b/ticker?pair=ZECUSD`, field: "result.ZECUSD" },
  ]);
  return {
    url: server.url,
    sources,
    set(coin, usd, provider) {
      if (provider !== "b") prices.a[coin] = usd;
      if (provider !== "a") prices.b[coin] = usd;
    },
    down(provider, v = true) {
      if (provider !== "b") isDown.a = v;
      if (provider !== "a") isDown.b = v;
    },
    close: () => server.close(),
  };
}
