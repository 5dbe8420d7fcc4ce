/**
 * The clients of every configured upstream, built once per process from the
 * configuration and shared by the modules that read them: the Monero daemon
 * (with its scan threads, watch scanner and historical scan), the Zcash
 * compact-block source (scanner and historical scan) and zebrad, the Ethereum
 * node(s). An upstream that is not configured gets a client that says so
 * (its questions answer 503 chain_not_configured) or no scanner at all.
 */
import os from "node:os";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Clock } from "./core/clock.js";
import type { ChainId, ChainScanner } from "./chains/scanner.js";
import { createMoneroDaemon } from "./chains/monero/daemon-client.js";
import { createMoneroScanner } from "./chains/monero/scanner.js";
import { MoneroScanPool } from "./chains/monero/pool.js";
import { createMoneroHistorical, type MoneroHistoricalService } from "./chains/monero/historical.js";
import type { CompactBlockSource } from "./chains/zcash/compact.js";
import { createZcashScanner } from "./chains/zcash/scanner.js";
import { createLightwalletd } from "./chains/zcash/lightwalletd.js";
import { createZcashHistorical, type ZcashHistoricalScan } from "./chains/zcash/historical.js";
import { createZebrad, type Zebrad } from "./chains/zcash/zebrad.js";
import { EthRpc, splitRpcUrls } from "./chains/ethereum/rpc.js";
import { moneroHealth } from "./chains/monero/facts.js";
import { zcashHealth } from "./chains/zcash/facts.js";
import { ethereumHealth } from "./chains/ethereum/facts.js";
import type { HealthCheck } from "./http/meta-routes.js";

export interface UpstreamClients {
  moneroDaemon: ReturnType<typeof createMoneroDaemon>;
  moneroHistorical: MoneroHistoricalService;
  /** Present when LIGHTWALLETD_URL is set. */
  zcashHistorical?: ZcashHistoricalScan;
  /** The chains whose watches can be scanned (the tests' own scanners when given). */
  scanners: Partial<Record<ChainId, ChainScanner>>;
  zebrad: Zebrad;
  ethRpc: EthRpc;
  /** The nodes' lines in /v1/health. */
  healthChecks: HealthCheck[];
  close(): Promise<void>;
}

export interface UpstreamClientOptions {
  /** Chain scanners to use instead of the configured ones (tests). */
  scanners?: Partial<Record<ChainId, ChainScanner>>;
  /** Builds the Zcash compact-block source for LIGHTWALLETD_URL (tests); default: the lightwalletd gRPC client. */
  compactBlockSource?: (url: string) => CompactBlockSource;
}

function moneroClients(config: Config, clock: Clock, log: Logger) {
  // Monero: the configured daemon (the devnet's in devnet mode); without one, facts answer 503 chain_not_configured.
  const daemon = createMoneroDaemon(config.MONERO_DAEMON_URL);
  // Large ticks are scanned on worker threads (started only when a tick first needs them).
  const scanThreads = config.MONERO_SCAN_THREADS ?? os.availableParallelism();
  const scanPool = daemon.configured && scanThreads > 0 ? new MoneroScanPool({ threads: scanThreads }) : undefined;
  const scanner = daemon.configured
    ? createMoneroScanner({
        scanPool,
        daemon,
        confirmations: config.MONERO_CONFIRMATIONS,
        lookahead: config.MONERO_SUBADDRESS_LOOKAHEAD,
        network: config.MONERO_NETWORK,
        clock,
        onWatchError: (watchId, e) => log.warn({ watchId, err: (e as Error).message }, "monero scan of one watch failed"),
      })
    : undefined;
  const historical = createMoneroHistorical({
    daemon,
    maxBlocks: config.HISTORICAL_MAX_BLOCKS,
    lookahead: config.MONERO_SUBADDRESS_LOOKAHEAD,
    network: config.MONERO_NETWORK,
    clock,
  });
  return { daemon, scanPool, scanner, historical };
}

function zcashClients(config: Config, log: Logger, opts: UpstreamClientOptions) {
  // Zcash: compact blocks from lightwalletd (LIGHTWALLETD_URL); without it, Zcash watches answer 503 chain_not_configured.
  const compactBlockSource = opts.compactBlockSource ?? ((url: string) => createLightwalletd({ url, network: config.ZCASH_NETWORK }));
  const source = config.LIGHTWALLETD_URL ? compactBlockSource(config.LIGHTWALLETD_URL) : undefined;
  const scanner = source
    ? createZcashScanner({
        source,
        network: config.ZCASH_NETWORK,
        confirmations: config.ZCASH_CONFIRMATIONS,
        onWatchError: (watchId, e) => log.warn({ watchId, err: (e as Error).message }, "zcash scan of one watch failed"),
      })
    : undefined;
  const historical = source ? createZcashHistorical({ source, network: config.ZCASH_NETWORK, maxBlocks: config.HISTORICAL_MAX_BLOCKS }) : undefined;
  return { source, scanner, historical };
}

export function createUpstreamClients(config: Config, clock: Clock, log: Logger, opts: UpstreamClientOptions = {}): UpstreamClients {
  const monero = moneroClients(config, clock, log);
  const zcash = zcashClients(config, log, opts);
  // Ethereum: the configured node(s), tried in order; without one, its questions answer 503 chain_not_configured.
  const ethRpc = new EthRpc({
    urls: splitRpcUrls(config.ETH_RPC_URL),
    onFailover: (f) => log.warn({ from: f.from, to: f.to, reason: f.reason }, "ethereum node failed; trying the next"),
  });
  // Zcash: zebrad for chain facts; without it, the /v1/q/zec/* questions answer 503 chain_not_configured.
  const zebrad = createZebrad({ url: config.ZEBRAD_URL, network: config.ZCASH_NETWORK });
  return {
    moneroDaemon: monero.daemon,
    moneroHistorical: monero.historical,
    ...(zcash.historical ? { zcashHistorical: zcash.historical } : {}),
    scanners: opts.scanners ?? {
      ...(monero.scanner ? { monero: monero.scanner } : {}),
      ...(zcash.scanner ? { zcash: zcash.scanner } : {}),
    },
    zebrad,
    ethRpc,
    healthChecks: [
      { name: "monero", check: () => moneroHealth(monero.daemon) },
      { name: "zcash", check: () => zcashHealth(zebrad) },
      { name: "ethereum", check: () => ethereumHealth(ethRpc) },
    ],
    close: async () => {
      await monero.scanPool?.close();
      await ethRpc.close();
      await zebrad.close();
      zcash.source?.close();
    },
  };
}
