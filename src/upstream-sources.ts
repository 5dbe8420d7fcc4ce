/**
 * What serves each upstream: a devnet simulator, a real node, or nothing.
 * The banner prints it with the URLs (credentials removed); `/v1/health`
 * answers the same sources without URLs (a public page names no internal
 * address). Read from the Config alone: `simulatedUpstreams` is set only by
 * the devnet's overlay, so outside the devnet every configured one is real.
 */
import type { Config, SimulatedUpstream } from "./config.js";

export type UpstreamSource = "simulated" | "real" | "not_configured";

export interface UpstreamLine {
  key: SimulatedUpstream;
  label: string;
  source: UpstreamSource;
  /** Where it is reached, credentials removed (the banner only). */
  url: string | undefined;
}

/** Credentials in an upstream URL are never printed. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}

/** A list setting (comma-separated, entries maybe `name=url`) as URLs without credentials. */
function urls(v: string | undefined): string | undefined {
  if (!v) return undefined;
  return v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => withoutCredentials(s.replace(/^[A-Za-z0-9._-]{1,64}=(?=https?:)/, "")))
    .join(", ");
}

export function upstreamSources(config: Config): UpstreamLine[] {
  const sim = new Set(config.simulatedUpstreams);
  const line = (key: SimulatedUpstream, label: string, url: string | undefined): UpstreamLine => ({
    key,
    label,
    source: sim.has(key) ? "simulated" : url ? "real" : "not_configured",
    url,
  });
  const facilitator = config.FACILITATOR_MODE === "local" ? urls(config.EVM_RPC_URL) : config.FACILITATOR_URL ? `facilitator ${withoutCredentials(config.FACILITATOR_URL)}` : config.PAY_TO ? "facilitator (CDP)" : undefined;
  return [
    line("payment_chain", `payment chain (x402 ${config.X402_NETWORK})`, facilitator),
    line("monerod", `monerod (${config.MONERO_NETWORK ?? "mainnet"})`, urls(config.MONERO_DAEMON_URL)),
    line("zebrad", `zebrad (Zcash ${config.ZCASH_NETWORK})`, urls(config.ZEBRAD_URL)),
    line("lightwalletd", "lightwalletd (Zcash, gRPC)", urls(config.LIGHTWALLETD_URL)),
    line("ethereum", "Ethereum L1", urls(config.ETH_RPC_URL)),
    line("relays", "MEV-Boost relays", urls(config.RELAY_URLS)),
  ];
}
