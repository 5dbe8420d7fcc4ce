import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { Metrics } from "../core/metrics.js";
import type { SecretBox } from "../core/secretbox.js";
import type { Database } from "../db/types.js";
import type { WebhookSender } from "../webhooks/deliver.js";
import type { Resolver, WebhookUrlPolicy } from "../webhooks/url-guard.js";
import type { ChainId, ChainScanner } from "../chains/scanner.js";
import type { ScanSubscriber } from "./findings.js";

/** What the Private Watch module needs from the outside, passed in explicitly. */
export interface WatchDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  scanners: Partial<Record<ChainId, ChainScanner>>;
  /** null when no MASTER_KEY is configured: watches cannot be created. */
  secretBox: SecretBox | null;
  sender: WebhookSender;
  urlPolicy: WebhookUrlPolicy;
  resolver?: Resolver;
  pollSeconds: number;
  /** The Monero look-ahead of a watch that names none (MONERO_SUBADDRESS_LOOKAHEAD). */
  subaddressDefault: { accounts: number; minors: number };
  /** Told, inside each tick's batch transaction, what the scans found (checkout, coin quotes). */
  scanSubscribers?: ScanSubscriber[];
  /** Tick, scan and delivery metrics (absent: not counted). */
  metrics?: Metrics;
}
