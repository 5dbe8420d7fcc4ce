/**
 * Every setting, from environment variables with defaults, parsed once at
 * start. A wrong value stops start-up with a message naming the variable.
 * Nothing below the CLI reads process.env.
 */
import ipaddr from "ipaddr.js";
import { z } from "zod";
import path from "node:path";

const bool = z
  .enum(["0", "1", "true", "false", "yes", "no", "on", "off", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes" || v === "on");

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");
const hexKey = z.string().regex(/^(0x)?[0-9a-fA-F]{64}$/, "must be 32 bytes of hex");
const url = z.string().url();
const commaList = (v: string) => v.split(",").map((x) => x.trim()).filter(Boolean);
/** One or more 32-byte hex keys separated by commas (FACILITATOR_PRIVATE_KEY), each 0x-prefixed. */
export const gasKeys = (v: string): `0x${string}`[] => commaList(v).map((k) => (k.startsWith("0x") ? k : `0x${k}`) as `0x${string}`);
const hexKeyList = z
  .string()
  .refine((v) => commaList(v).length > 0 && commaList(v).every((k) => /^(0x)?[0-9a-fA-F]{64}$/.test(k)), "must be 32 bytes of hex, or several such keys separated by commas")
  .refine((v) => new Set(gasKeys(v).map((k) => k.toLowerCase())).size === commaList(v).length, "names the same key twice");
/** A browser origin: http(s)://host[:port], no path. */
const isOriginSpec = (v: string) => /^https?:\/\/[^/?#\s]+\/?$/i.test(v) && URL.canParse(v);
/** A host name, IPv4 address or bracketed IPv6 address, with an optional port. */
const isHostSpec = (v: string) => /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(v) && URL.canParse(`http://${v}`);

export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8402),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Public URL the service is reached at (used in 402 resources and links). Default http://HOST:PORT */
  PUBLIC_URL: url.optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  /** PostgreSQL schema to use (tests give each run its own). */
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Embedded database only: below this much free space (MiB) on DATA_DIR's disk, writes are refused
   * (503 database_full) before the engine runs out of room (src/db/disk-guard.ts). 0 turns the guard off.
   */
  PGLITE_MIN_FREE_MB: z.coerce.number().int().min(0).max(1_048_576).default(64),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  /**
   * "auto": the devnet runs unless payments are configured for real (PAY_TO, FACILITATOR_URL or
   * CDP_API_KEY_ID given); upstream URLs replace only their own simulators. "on" forces it; "off" never starts it.
   */
  DEVNET: z.enum(["auto", "on", "off"]).default("auto"),
  DEVNET_BLOCK_SECONDS: z.coerce.number().positive().max(3600).default(20),
  /** Devnet only: the simulated monerod's first block of fork v17 (FCMP++/Carrot); unset: no fork. */
  DEVNET_MONERO_CARROT_HEIGHT: z.coerce.number().int().min(1).optional(),
  /**
   * Where a running devnet records its URLs and settings, so `vigil api`, `vigil worker` and the
   * devnet helpers find it from any directory. Default: $XDG_RUNTIME_DIR (else the OS temp dir)/vigil-devnet-<uid>.json.
   */
  DEVNET_STATE_FILE: z.string().min(1).optional(),
  XDG_RUNTIME_DIR: z.string().min(1).optional(),

  PAY_TO: evmAddress.optional(),
  FACILITATOR_MODE: z.enum(["cdp", "http", "local"]).default("cdp"),
  FACILITATOR_URL: url.optional(),
  CDP_API_KEY_ID: z.string().optional(),
  CDP_API_KEY_SECRET: z.string().optional(),
  /** JSON-RPC of the EVM chain the local facilitator settles on. */
  EVM_RPC_URL: url.optional(),
  /** Gas-paying key of the local facilitator, or several separated by commas (settlements are spread over them). */
  FACILITATOR_PRIVATE_KEY: hexKeyList.optional(),
  X402_NETWORK: z.enum(["eip155:8453", "eip155:84532"]).default("eip155:8453"),
  /** How long the local facilitator waits for its settlement's receipt before answering "pending" (the payment reconciler finishes it later). */
  FACILITATOR_CONFIRMATION_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
  X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /**
   * x402 `batch-settlement` beside `exact` (docs/batch-settlement.md). "auto": offered when the receiver-authorizer
   * key and EVM_RPC_URL are set and the facilitator settles the scheme on X402_NETWORK; "on": the same, but a missing
   * piece stops start-up; "off": `exact` only.
   */
  BATCH_SETTLEMENT: z.enum(["auto", "on", "off"]).default("auto"),
  /** The receiver-authorizer's key: signs the service's claim batches and cooperative refunds. A hot key; not PAY_TO's. */
  BATCH_RECEIVER_AUTHORIZER_KEY: hexKey.optional(),
  /**
   * How long a paid call's reservation of its channel lasts: the longest its work may take. A process that dies
   * mid-call leaves the channel busy this long; a call that outlives it is not charged.
   */
  BATCH_RESERVATION_SECONDS: z.coerce.number().int().min(5).max(600).default(60),
  /** How long a payer's on-chain withdrawal waits: the keeper's time to claim what was charged (15 min to 30 days). */
  BATCH_WITHDRAW_DELAY_SECONDS: z.coerce.number().int().min(900).max(2_592_000).default(86_400),
  /** How often the keeper claims charged vouchers, in batches across channels. Default 3600; 60 in devnet mode. */
  BATCH_CLAIM_SECONDS: z.coerce.number().int().min(5).max(604_800).optional(),
  /** A channel's charges are claimed once they reach this much (or the channel goes idle, or its payer withdraws). */
  BATCH_CLAIM_MIN_ATOMIC: z.coerce.bigint().min(0n).default(50_000n),
  /** How often claimed money is settled to PAY_TO. Default 86400; 300 in devnet mode. */
  BATCH_SETTLE_SECONDS: z.coerce.number().int().min(5).max(2_592_000).optional(),
  /** A channel unused this long gets its unspent deposit refunded. Default 259200 (3 days); 3600 in devnet mode. */
  BATCH_REFUND_IDLE_SECONDS: z.coerce.number().int().min(60).max(31_536_000).optional(),

  /** Number of reverse proxies in front of the service whose X-Forwarded-For is trusted (0 = none). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** Operator allow-list: client addresses (CIDRs, comma-separated) whose general limit is RATE_LIMIT_ALLOW_PER_MINUTE. */
  RATE_LIMIT_ALLOW_CIDRS: z
    .string()
    .refine((v) => v.split(",").map((s) => s.trim()).filter(Boolean).every((c) => isCidr(c)), "must be CIDRs like 203.0.113.0/24 or 2001:db8::/32, comma-separated")
    .optional(),
  /** Operator allow-list tokens (comma-separated, at least 24 characters each), sent by clients in `x-allow-token`. */
  RATE_LIMIT_ALLOW_TOKENS: z
    .string()
    .refine((v) => v.split(",").map((s) => s.trim()).filter(Boolean).every((t) => /^[A-Za-z0-9._~-]{24,256}$/.test(t)), "each token is 24-256 characters of [A-Za-z0-9._~-]")
    .optional(),
  /** The general per-minute limit of an allow-listed address or token. */
  RATE_LIMIT_ALLOW_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  /** MCP server on a port of its own as well as at /mcp of the API (absent = /mcp only). */
  MCP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Serves GET /metrics on the API port to requests with `Authorization: Bearer <token>`; unset: not served there. */
  METRICS_TOKEN: z.string().min(16).max(256).optional(),
  /** Serves GET /metrics on its own port (bound to METRICS_HOST); unset: no metrics port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** Public URL of the MCP port ({mcp_url}), for its server card. Default http://HOST:MCP_PORT */
  MCP_PUBLIC_URL: url.optional(),
  /** Calls of the free MCP oracle dispatcher (service_q) allowed per client IP per minute. */
  MCP_Q_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Browser origins allowed to call the MCP endpoint besides its own and (on loopback) loopback ones; "*" = any (docs/mcp.md). */
  MCP_ALLOWED_ORIGINS: z
    .string()
    .refine((v) => commaList(v).every((o) => o === "*" || isOriginSpec(o)), "must be origins like https://app.example.com or http://localhost:6274, comma-separated, or *")
    .optional(),
  /** Host names the MCP endpoint answers under besides loopback names and the public URLs' (sets the Host check on); "*" = unchecked. */
  MCP_ALLOWED_HOSTS: z
    .string()
    .refine((v) => commaList(v).every((h) => h === "*" || isHostSpec(h)), "must be host names like api.example.com (a port is ignored), comma-separated, or *")
    .optional(),

  /** 32-byte hex key that encrypts view keys at rest. Generated under DATA_DIR in devnet. */
  MASTER_KEY: hexKey.optional(),
  /** Development switches; default off, on in devnet mode unless set explicitly. */
  WEBHOOK_ALLOW_HTTP: bool.optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  /** Default 180 (3 minutes); 15 in devnet mode unless set. */
  WATCH_POLL_SECONDS: z.coerce.number().positive().max(86_400).optional(),
  WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  /** Watch lease length; renewed every quarter of it while a worker is busy, so a killed worker's watches come free within it. */
  WATCH_LEASE_SECONDS: z.coerce.number().int().min(2).max(600).default(20),
  /** Watches delivering webhooks at once in one worker (each watch's events stay in order). */
  WORKER_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),

  MONERO_DAEMON_URL: url.optional(),
  /** Refuse Monero watches of other networks. Devnet: testnet. */
  MONERO_NETWORK: z.enum(["mainnet", "stagenet", "testnet"]).optional(),
  /** Default 10; 2 in devnet mode unless set, so the walk-through confirms in a minute. */
  MONERO_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).optional(),
  MONERO_SUBADDRESS_LOOKAHEAD: z.coerce.number().int().min(0).max(10_000).default(50),
  /** Confirmations before a Zcash payment counts (watches, coin payments, invoices). Default 10; 2 in devnet mode unless set. */
  ZCASH_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).optional(),
  /** Worker threads that scan large ticks (0 = on the main thread). Default: one per CPU, started on first need. */
  MONERO_SCAN_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  HISTORICAL_MAX_BLOCKS: z.coerce.number().int().min(1).default(20_000),

  /** The service's own Monero receiving wallet for coin payments (primary address + private view key). */
  COIN_XMR_ADDRESS: z.string().min(1).optional(),
  COIN_XMR_VIEW_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters").optional(),
  /** The service's own Zcash receiving wallet for coin payments (a unified or Sapling address + its UFVK). */
  COIN_ZEC_ADDRESS: z.string().min(1).optional(),
  COIN_ZEC_VIEW_KEY: z.string().min(1).max(2048).optional(),
  /** Where the service wallet's watch sends its webhooks; default: the service's own sink route under PUBLIC_URL. */
  COIN_WEBHOOK_URL: url.optional(),
  /** The hosted pay page's address (payUrl = PAY_URL#<invoiceId>); default: the page the API serves, {PUBLIC_URL}/pay/. */
  PAY_URL: url.optional(),
  /**
   * USD price providers, a JSON list: [{"coin":"xmr","url":"https://…","field":"monero.usd"}, …].
   * With several for a coin the median is used and a provider straying from it is dropped.
   */
  PRICE_SOURCES: z
    .string()
    .refine((v) => {
      try {
        return Array.isArray(JSON.parse(v));
      } catch {
        return false;
      }
    }, 'must be a JSON list like [{"coin":"xmr","url":"https://…","field":"monero.usd"}]')
    .optional(),
  /** Fixed USD prices instead of (or besides) providers, e.g. "xmr=150.25,zec=32.1" (offline setups). */
  PRICE_FIXED_USD: z.string().regex(/^\s*(xmr|zec)=\d+(\.\d+)?\s*(,\s*(xmr|zec)=\d+(\.\d+)?\s*)*$/, 'must read like "xmr=150.25,zec=32.1"').optional(),
  /** How long a fetched price stays fresh (seconds). */
  PRICE_CACHE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** The notice boards, comma-separated ids (docs/boards.md); order is the order of GET /v1/board. */
  BOARDS: z
    .string()
    .default("seneschal-features,data-requests,agent-services,bounties,announcements")
    .transform((v) => v.split(",").map((id) => id.trim()).filter((id) => id !== ""))
    .refine((ids) => ids.length > 0 && ids.length <= 50, "between 1 and 50 board ids")
    .refine((ids) => ids.every((id) => /^[a-z0-9][a-z0-9-]{1,38}$/.test(id) && id !== "leaderboard"), "each id matches ^[a-z0-9][a-z0-9-]{1,38}$ and is not 'leaderboard'")
    .refine((ids) => new Set(ids).size === ids.length, "board ids must be distinct"),
  /** zebrad JSON-RPC (Zcash chain facts); absent = the /v1/q/zec/* questions answer 503 chain_not_configured. */
  ZEBRAD_URL: url.optional(),
  /** lightwalletd gRPC (compact blocks for Zcash watches and historical scans): http://host:port (plaintext) or https://host:port (TLS); absent = Zcash watches answer 503 chain_not_configured. */
  LIGHTWALLETD_URL: url.optional(),
  /** The Zcash network this service serves; a zebrad on another network is refused (502 chain_network_mismatch). Devnet: testnet. */
  ZCASH_NETWORK: z.enum(["mainnet", "testnet", "regtest"]).default("mainnet"),
  /** Seconds between Zcash value-pool snapshots (/v1/zec/ironwood/history); one row per interval whatever the number of workers. */
  ZCASH_SNAPSHOT_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /** Ethereum execution JSON-RPC; several URLs comma-separated are tried in order (fail-over). */
  ETH_RPC_URL: z
    .string()
    .refine((v) => v.split(",").map((s) => s.trim()).filter(Boolean).every((s) => z.string().url().safeParse(s).success), "must be one or more http(s) URLs, comma-separated")
    .optional(),
  /** Ethereum headers kept by the follower (default 7200, one day of 12 s slots). */
  ETH_RETENTION_BLOCKS: z.coerce.number().int().min(16).max(1_000_000).default(7200),
  /** Oldest head (seconds) the Ethereum fee answers accept before answering 503 source_stale. */
  ETH_MAX_AGE_SECONDS: z.coerce.number().int().min(12).max(86_400).default(120),
  /** MEV-Boost relay data APIs polled for builder data: comma-separated `url` or `name=url` (docs/ethereum.md, Builders). */
  RELAY_URLS: z
    .string()
    .refine((v) => v.split(",").map((s) => s.trim()).filter(Boolean).every((s) => z.string().url().safeParse(s.replace(/^[A-Za-z0-9._-]{1,64}=/, "")).success), "must be one or more http(s) URLs (optionally name=url), comma-separated")
    .optional(),
  /** Builder BLS keys → names, a JSON object {"0x<96 hex>": "Titan", …}: the reviewed key table behind builder names. */
  BUILDER_PUBKEYS: z.string().optional(),
  /** Relay data kept (hours; default 720 = 30 days, the longest question window). */
  RELAY_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(720),
  /** Oldest delivered payload (seconds) the builder answers accept before answering 503 source_stale. */
  RELAY_MAX_AGE_SECONDS: z.coerce.number().int().min(24).max(86_400).default(600),
  /** Blocks below the head where the lending indexer starts a market it has never read (default 50400, 7 days). */
  LENDING_BACKFILL_BLOCKS: z.coerce.number().int().min(1).max(10_000_000).default(50_400),
  /**
   * The public risk lists behind /v1/q/address-risk and the counter-MEV scores, one set for both:
   * comma-separated `[name=]path[:sanctioned|blocklist|exploit|phishing]`; a JSON file with `entries`
   * is a structured list, any other file an address list (docs/configuration.md, Risk lists).
   */
  RISK_LISTS: z.string().optional(),
  /** Deprecated alias of RISK_LISTS (one release): read into it, with a start-up warning. */
  ADDRESS_RISK_LISTS: z.string().optional(),
  /** Liquidation events kept (hours; default 168 = 7 days). */
  LENDING_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(168),
  /** Private builder endpoints the private relay fans out to: comma-separated `name=url`, `#raw` after the URL for eth_sendRawTransaction (default eth_sendBundle) (docs/private-relay.md). */
  PRIVATE_RELAY_BUILDERS: z
    .string()
    .refine((v) => v.split(",").map((s) => s.trim()).filter(Boolean).every((s) => /^[A-Za-z0-9._-]{1,64}=/.test(s) && z.string().url().safeParse(s.replace(/^[^=]*=/, "")).success), "must be one or more name=url entries (http(s)), comma-separated")
    .optional(),
  /** Key that signs bundle requests (X-Flashbots-Signature): a reputation key of the service, never a user's; absent = requests are unsigned. */
  PRIVATE_RELAY_SIGNING_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x + 64 hex").optional(),
  /** Blocks ahead a bundle is submitted for (one eth_sendBundle per target block). */
  PRIVATE_RELAY_TARGET_BLOCKS: z.coerce.number().int().min(1).max(25).default(3),
  /** Deprecated alias of RISK_LISTS (one release): read into it, with a start-up warning. */
  COUNTER_MEV_RISK_LISTS: z.string().optional(),
  /** Blocks of the counter-MEV window (default 7200, one day). */
  COUNTER_MEV_WINDOW_BLOCKS: z.coerce.number().int().min(16).max(1_000_000).default(7200),
  /** Blocks of approvals and reverted transactions kept (default 50400, seven days); also the longest paid window. */
  COUNTER_MEV_RETENTION_BLOCKS: z.coerce.number().int().min(16).max(1_000_000).default(50_400),
  /** Oldest newest-scanned block (seconds) the paid counter-MEV feed accepts before answering 503 source_stale. */
  COUNTER_MEV_MAX_AGE_SECONDS: z.coerce.number().int().min(12).max(86_400).default(300),
  /** The puzzle-risk watchlist: a JSON file [{address, label, answer?, hash_slot?}] (docs/feeds.md, Puzzle risk); unset = empty. */
  PUZZLE_WATCHLIST: z.string().optional(),
});

function isCidr(v: string): boolean {
  try {
    ipaddr.parseCIDR(v);
    return true;
  } catch {
    return false;
  }
}

/** Old setting names still read for one release, each as the key it became. */
export const DEPRECATED_ALIASES = { ADDRESS_RISK_LISTS: "RISK_LISTS", COUNTER_MEV_RISK_LISTS: "RISK_LISTS" } as const;
type DeprecatedKey = keyof typeof DEPRECATED_ALIASES;

export type Config = Readonly<
  Omit<
    z.infer<typeof ConfigSchema>,
    "WEBHOOK_ALLOW_HTTP" | "WEBHOOK_ALLOW_PRIVATE" | "MONERO_CONFIRMATIONS" | "ZCASH_CONFIRMATIONS" | "WATCH_POLL_SECONDS" | "BATCH_CLAIM_SECONDS" | "BATCH_SETTLE_SECONDS" | "BATCH_REFUND_IDLE_SECONDS" | DeprecatedKey
  >
> & {
  readonly WATCH_POLL_SECONDS: number;
  readonly BATCH_CLAIM_SECONDS: number;
  readonly BATCH_SETTLE_SECONDS: number;
  readonly BATCH_REFUND_IDLE_SECONDS: number;
  readonly MONERO_CONFIRMATIONS: number;
  readonly ZCASH_CONFIRMATIONS: number;
  readonly WEBHOOK_ALLOW_HTTP: boolean;
  readonly WEBHOOK_ALLOW_PRIVATE: boolean;
  /** Absolute DATA_DIR. */
  readonly dataDir: string;
  /** Whether the built-in devnet runs in this process (shown in `/`, `/v1/health` and the banner). */
  readonly devnet: boolean;
  /**
   * The upstreams served by the devnet's simulators (names of SIMULATED_UPSTREAMS), so `/v1/health` and the
   * banner can say which are real; empty outside the devnet. Only a devnet overlay sets it.
   */
  readonly simulatedUpstreams: readonly SimulatedUpstream[];
  /** The settings given explicitly (present in the environment, aliases counted as their new key): an overlay never replaces them. */
  readonly explicitKeys: readonly string[];
  /** One warning per deprecated setting name in use, logged once at start-up. */
  readonly deprecations: readonly string[];
};

export class ConfigError extends Error {}

/** Upstreams the devnet can simulate, each replaced by its own setting (docs/configuration.md, Devnet). */
export const SIMULATED_UPSTREAMS = ["monerod", "zebrad", "lightwalletd", "ethereum", "relays", "payment_chain", "prices", "private_builders"] as const;
export type SimulatedUpstream = (typeof SIMULATED_UPSTREAMS)[number];

/**
 * Settings supplied at start-up by something the CLI runs next to the app
 * (the devnet: its loopback upstreams and generated secrets). They fill the
 * settings the operator did not give, key by key: a setting written in the
 * environment always wins (as ETH_RPC_URL replaces only its own simulator),
 * so the app reads one Config and never asks where a setting came from.
 * Derived defaults (webhook switches, poll interval, confirmations) are not
 * recomputed: they stay as parsed.
 */
export type ConfigOverlay = Partial<
  Pick<
    Config,
    | "MONERO_DAEMON_URL"
    | "MONERO_NETWORK"
    | "ETH_RPC_URL"
    | "ZEBRAD_URL"
    | "LIGHTWALLETD_URL"
    | "ZCASH_NETWORK"
    | "RELAY_URLS"
    | "BUILDER_PUBKEYS"
    | "PRIVATE_RELAY_BUILDERS"
    | "RISK_LISTS"
    | "PUZZLE_WATCHLIST"
    | "FACILITATOR_MODE"
    | "FACILITATOR_URL"
    | "EVM_RPC_URL"
    | "FACILITATOR_PRIVATE_KEY"
    | "X402_NETWORK"
    | "PAY_TO"
    | "BATCH_RECEIVER_AUTHORIZER_KEY"
    | "MASTER_KEY"
    | "COIN_XMR_ADDRESS"
    | "COIN_XMR_VIEW_KEY"
    | "COIN_ZEC_ADDRESS"
    | "COIN_ZEC_VIEW_KEY"
    | "PRICE_SOURCES"
    | "devnet"
    | "simulatedUpstreams"
  >
>;

/**
 * The overlay's keys that win even over a given setting while the devnet
 * simulates the payment chain (its overlay then names EVM_RPC_URL): how
 * payments settle. Such a devnet always settles on its own chain, so no
 * signature made against it can move real money, whatever FACILITATOR_MODE,
 * FACILITATOR_URL or PAY_TO say. One choice stays the operator's: a given
 * FACILITATOR_MODE=http keeps the service calling a facilitator over HTTP,
 * the devnet's own (its FACILITATOR_URL), which settles on the same chain.
 * With a real EVM_RPC_URL given, the devnet's payment settings only fill what
 * was not given, as for any other upstream.
 */
export const OVERLAY_OWNED_KEYS: readonly (keyof ConfigOverlay)[] = ["devnet", "simulatedUpstreams", "FACILITATOR_MODE", "FACILITATOR_URL", "EVM_RPC_URL", "FACILITATOR_PRIVATE_KEY", "X402_NETWORK", "PAY_TO"];

/** The config with the overlay's settings in place of the ones the operator did not give (and of the owned ones). */
export function applyConfigOverlay(config: Config, overlay: ConfigOverlay): Config {
  const explicit = new Set(config.explicitKeys);
  const owned = overlay.EVM_RPC_URL !== undefined ? OVERLAY_OWNED_KEYS : (["devnet", "simulatedUpstreams"] as const);
  const filled = Object.fromEntries(
    Object.entries(overlay).filter(([k, v]) => v !== undefined && (!explicit.has(k) || (owned as readonly string[]).includes(k))),
  );
  // http mode on a devnet that runs a facilitator: the service calls that one (FACILITATOR_URL, filled above).
  if (config.FACILITATOR_MODE === "http" && overlay.FACILITATOR_URL !== undefined) delete filled.FACILITATOR_MODE;
  return Object.freeze({ ...config, ...filled });
}

/** Entries of a list setting, trimmed, for comparing two spellings of one value. */
const entriesOf = (v: string) => v.split(",").map((s) => s.trim()).filter(Boolean).join(",");

/**
 * Reads the deprecated names into their new key: an old name alone is used
 * (with a warning naming the new key); both old names are joined (they were
 * two lists of one kind); an old name beside the new key must say the same.
 */
function resolveAliases(c: z.infer<typeof ConfigSchema>, explicit: Set<string>): { risk: string | undefined; deprecations: string[] } {
  const olds = (Object.keys(DEPRECATED_ALIASES) as DeprecatedKey[]).filter((k) => c[k] !== undefined);
  const deprecations = olds.map((k) => `${k} is deprecated and will be removed in the next release; set ${DEPRECATED_ALIASES[k]} instead (same value).`);
  if (olds.length === 0) return { risk: c.RISK_LISTS, deprecations };
  if (c.RISK_LISTS !== undefined) {
    const differing = olds.filter((k) => entriesOf(c[k]!) !== entriesOf(c.RISK_LISTS!));
    if (differing.length > 0) {
      throw new ConfigError(
        `Invalid configuration:\n  ${differing.join(", ")}: deprecated name(s) of RISK_LISTS set to a different value than RISK_LISTS; keep only RISK_LISTS`,
      );
    }
    return { risk: c.RISK_LISTS, deprecations };
  }
  explicit.add("RISK_LISTS");
  const joined = [...new Set(olds.flatMap((k) => entriesOf(c[k]!).split(",")))].join(",");
  return { risk: joined, deprecations };
}

/** Parses settings; throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== "") picked[key] = v;
  }
  const parsed = ConfigSchema.safeParse(picked);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const { ADDRESS_RISK_LISTS: _a, COUNTER_MEV_RISK_LISTS: _m, ...c } = parsed.data;
  const explicit = new Set(Object.keys(picked));
  const aliases = resolveAliases(parsed.data, explicit);
  for (const k of Object.keys(DEPRECATED_ALIASES)) explicit.delete(k);
  // Payments configured for real mean production; an upstream URL alone replaces only its own simulator.
  const paymentsConfigured = Boolean(c.PAY_TO || c.FACILITATOR_URL || c.CDP_API_KEY_ID);
  const devnet = c.DEVNET === "on" || (c.DEVNET === "auto" && !paymentsConfigured);
  // On the devnet, http mode without a URL calls the devnet's facilitator (its overlay's FACILITATOR_URL).
  if (c.FACILITATOR_MODE === "http" && !c.FACILITATOR_URL && !devnet) {
    throw new ConfigError("Invalid configuration:\n  FACILITATOR_URL: required when FACILITATOR_MODE=http");
  }
  if (c.FACILITATOR_MODE === "local" && !devnet && !(c.EVM_RPC_URL && c.FACILITATOR_PRIVATE_KEY)) {
    throw new ConfigError(
      "Invalid configuration:\n  EVM_RPC_URL, FACILITATOR_PRIVATE_KEY: both required when FACILITATOR_MODE=local",
    );
  }
  if (c.FACILITATOR_MODE === "cdp" && !devnet && c.PAY_TO && !(c.CDP_API_KEY_ID && c.CDP_API_KEY_SECRET)) {
    throw new ConfigError(
      "Invalid configuration:\n  CDP_API_KEY_ID, CDP_API_KEY_SECRET: both required when FACILITATOR_MODE=cdp (the hosted facilitator refuses unauthenticated calls)",
    );
  }
  if (Boolean(c.COIN_XMR_ADDRESS) !== Boolean(c.COIN_XMR_VIEW_KEY)) {
    throw new ConfigError("Invalid configuration:\n  COIN_XMR_ADDRESS, COIN_XMR_VIEW_KEY: set both (the service's receiving wallet) or neither");
  }
  if (Boolean(c.COIN_ZEC_ADDRESS) !== Boolean(c.COIN_ZEC_VIEW_KEY)) {
    throw new ConfigError("Invalid configuration:\n  COIN_ZEC_ADDRESS, COIN_ZEC_VIEW_KEY: set both (the service's receiving wallet) or neither");
  }
  if ((c.COIN_XMR_ADDRESS || c.COIN_ZEC_ADDRESS) && !devnet && !c.PUBLIC_URL && !c.COIN_WEBHOOK_URL) {
    throw new ConfigError(
      "Invalid configuration:\n  PUBLIC_URL or COIN_WEBHOOK_URL: one is required with COIN_XMR_ADDRESS or COIN_ZEC_ADDRESS (the receiving wallet's watch delivers its webhooks there)",
    );
  }
  return Object.freeze({
    ...c,
    RISK_LISTS: aliases.risk,
    WEBHOOK_ALLOW_HTTP: c.WEBHOOK_ALLOW_HTTP ?? devnet,
    WEBHOOK_ALLOW_PRIVATE: c.WEBHOOK_ALLOW_PRIVATE ?? devnet,
    MONERO_CONFIRMATIONS: c.MONERO_CONFIRMATIONS ?? (devnet ? 2 : 10),
    ZCASH_CONFIRMATIONS: c.ZCASH_CONFIRMATIONS ?? (devnet ? 2 : 10),
    WATCH_POLL_SECONDS: c.WATCH_POLL_SECONDS ?? (devnet ? 15 : 180),
    BATCH_CLAIM_SECONDS: c.BATCH_CLAIM_SECONDS ?? (devnet ? 60 : 3600),
    BATCH_SETTLE_SECONDS: c.BATCH_SETTLE_SECONDS ?? (devnet ? 300 : 86_400),
    BATCH_REFUND_IDLE_SECONDS: c.BATCH_REFUND_IDLE_SECONDS ?? (devnet ? 3600 : 259_200),
    dataDir: path.resolve(c.DATA_DIR),
    devnet,
    simulatedUpstreams: [],
    explicitKeys: [...explicit].sort(),
    deprecations: aliases.deprecations,
  });
}
