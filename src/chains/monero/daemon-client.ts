/**
 * monerod client over its real wire protocol: JSON-RPC 2.0 at /json_rpc and
 * the plain JSON endpoints (/get_transactions, /get_transaction_pool_hashes,
 * /get_transaction_pool). Every call has a timeout; network errors, 5xx and
 * "BUSY" are retried with exponential backoff and full jitter. When the
 * daemon stays down the caller gets 502 `chain_rpc_failed`; when no daemon
 * is configured, 503 `chain_not_configured`.
 *
 * The client is built in parts that each do one job:
 *   lossless-json.ts     JSON that keeps u64 exact (bigint beyond 2^53)
 *   daemon-types.ts      typed answers, the MoneroDaemon port, the error type
 *   daemon-parsers.ts    strict readers of monerod answers
 *   daemon-transport.ts  the upstream client set up for monerod (status, BUSY, digest auth)
 *   daemon-rpc.ts        one typed method per RPC call (MoneroDaemonClient)
 * This module is the factory the composition root calls, the stand-in for
 * "no daemon", and the one import path for everything above.
 */
import { ServiceError, unavailable } from "../../core/errors.js";
import { MoneroDaemonClient } from "./daemon-rpc.js";
import { MONERO_NOT_CONFIGURED, type MoneroDaemonClientOptions } from "./daemon-transport.js";
import type {
  DaemonStatus,
  MoneroBlock,
  MoneroBlockHeader,
  MoneroDaemon,
  MoneroFeeEstimate,
  MoneroInfo,
  MoneroPoolTx,
  MoneroTransactions,
} from "./daemon-types.js";

export { parseJsonLossless, stringifyJsonLossless, type LosslessJson } from "./lossless-json.js";
export { parseBlockHeader, u64 } from "./daemon-parsers.js";
export {
  MoneroDaemonError,
  RPC_ERR_TOO_BIG_HEIGHT,
  type DaemonStatus,
  type MoneroBlock,
  type MoneroBlockHeader,
  type MoneroDaemon,
  type MoneroFeeEstimate,
  type MoneroInfo,
  type MoneroPoolTx,
  type MoneroTransactions,
  type MoneroTxEntry,
} from "./daemon-types.js";
export { MoneroDaemonClient } from "./daemon-rpc.js";
export type { MoneroDaemonClientOptions } from "./daemon-transport.js";

const notConfigured = (): never => {
  throw unavailable(MONERO_NOT_CONFIGURED.code, MONERO_NOT_CONFIGURED.message, { ...MONERO_NOT_CONFIGURED.details });
};

/** Stands in for the daemon when none is configured: every call is a 503 chain_not_configured. */
export class NotConfiguredMoneroDaemon implements MoneroDaemon {
  readonly configured = false;
  status(): DaemonStatus {
    return { configured: false };
  }
  getInfo = async (): Promise<MoneroInfo> => notConfigured();
  getBlockCount = async (): Promise<number> => notConfigured();
  getLastBlockHeader = async (): Promise<MoneroBlockHeader> => notConfigured();
  getBlockHeaderByHeight = async (): Promise<MoneroBlockHeader> => notConfigured();
  getBlockHeadersRange = async (): Promise<MoneroBlockHeader[]> => notConfigured();
  getBlock = async (): Promise<MoneroBlock> => notConfigured();
  getTransactions = async (): Promise<MoneroTransactions> => notConfigured();
  getTransactionPoolHashes = async (): Promise<string[]> => notConfigured();
  getTransactionPool = async (): Promise<MoneroPoolTx[]> => notConfigured();
  getFeeEstimate = async (): Promise<MoneroFeeEstimate> => notConfigured();
  async close(): Promise<void> {}
}

/**
 * The factory the composition root calls: a real client when a URL is
 * configured (MONERO_DAEMON_URL, or the devnet's monerod), else the
 * not-configured stand-in.
 */
export function createMoneroDaemon(
  url: string | undefined,
  opts: Omit<MoneroDaemonClientOptions, "url"> = {},
): MoneroDaemon {
  if (!url) return new NotConfiguredMoneroDaemon();
  return new MoneroDaemonClient({ ...opts, url });
}

/** Thrown as-is by callers that want to tell "not configured" apart. */
export const isChainNotConfigured = (e: unknown): boolean => e instanceof ServiceError && e.code === "chain_not_configured";
