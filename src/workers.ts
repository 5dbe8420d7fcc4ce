/**
 * Background work of a process, as a list of jobs (src/core/jobs.ts). Today
 * the list holds the watch tick, which also drains the webhook outbox: a
 * watch's events are delivered under the watch's lease right after the
 * batch that queued them, and failed ones are retried at its next tick.
 * New background work (an Ethereum follower, pool snapshots) is one more
 * entry in `backgroundJobs`.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { App } from "./app.js";
import { startJobs, type Job } from "./core/jobs.js";
import { isDatabaseOutage } from "./db/unavailable.js";
import { runWatchTick, type TickStats } from "./watch/tick.js";
import { createDeliveryPool } from "./watch/tick-deliver.js";
import { createLeaseKeeper } from "./watch/tick-leases.js";
import { boardPurgeJob } from "./board/purge.js";
import { ethereumFollowerJob } from "./ingest/ethereum-follower.js";
import { invoiceExpiryJob } from "./checkout/invoices.js";
import { relayPollerJob } from "./ingest/relay-poller.js";
import { lendingIndexerJob } from "./ingest/lending-indexer.js";
import { zcashSnapshotJob } from "./feeds/zcash-pools.js";
import { paymentReconcilerJob } from "./x402/reconcile.js";
import { approvalScanJob } from "./feeds/approval-scan.js";

export interface Workers {
  stop(): Promise<void>;
  /** Runs one tick now and waits for its deliveries (tests and benchmarks). */
  tickOnce(): Promise<TickStats>;
  /** Renews the leases of the watches this worker is busy with (also done on a timer). */
  renewLeases(): Promise<void>;
}

/**
 * The watch poll: each run is one tick (lease a batch of due watches, scan,
 * write, deliver); a full batch means more are due, so it goes again at once.
 */
export function watchTickJob(app: App, tick: () => Promise<TickStats>, idleSleepMs: number): Job {
  let first = true;
  return {
    name: "watch tick",
    intervalMs: idleSleepMs,
    // No `leaseSeconds`: the watch leases are renewed while the tick runs, so a long tick keeps them.
    run: async () => {
      const s = await tick();
      // One line when the worker is at work: operators (and bench:startup) read start-up time from it.
      if (first) {
        first = false;
        app.log.info({ ...s }, "first watch tick done");
      } else if (s.claimed || s.expired) app.log.debug({ ...s }, "watch tick");
      return { more: s.claimed >= app.config.WORKER_BATCH_SIZE };
    },
  };
}

/** Every job a worker process runs. */
export function backgroundJobs(app: App, watchTick: () => Promise<TickStats>, idleSleepMs: number): Job[] {
  return [
    watchTickJob(app, watchTick, idleSleepMs),
    boardPurgeJob({ db: app.database.db, clock: app.clock }),
    invoiceExpiryJob(app.checkout, app.database.db),
    paymentReconcilerJob({ db: app.database.db, chain: app.payments.chain, clock: app.clock, log: app.log, onFinding: (finding) => app.metrics.reconcilerFindings.inc({ finding }) }),
    ...(app.ethereum.rpc.configured ? [ethereumFollowerJob(app.ethereum, 2_000)] : []),
    ...(app.approvalScan.rpc.configured ? [approvalScanJob(app.approvalScan, 4_000)] : []),
    ...(app.relays.relays.length > 0 ? [relayPollerJob(app.relays, 6_000)] : []),
    ...(app.lending.rpc.configured ? [lendingIndexerJob(app.lending, 4_000)] : []),
    ...(app.zcashPools.zebrad.configured ? [zcashSnapshotJob(app.zcashPools)] : []),
  ];
}

export function startWorkers(app: App, opts: { idleSleepMs?: number; autostart?: boolean } = {}): Workers {
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const keeper = createLeaseKeeper(app.database.db, app.clock, owner, app.config.WATCH_LEASE_SECONDS);
  const pool = createDeliveryPool(app.watch, { owner, concurrency: app.config.WORKER_DELIVERY_CONCURRENCY, keeper });
  const tick = (awaitDeliveries: boolean) =>
    runWatchTick(app.watch, { owner, batchSize: app.config.WORKER_BATCH_SIZE, keeper, pool, awaitDeliveries });
  // The job does not wait for deliveries: the pool logs their counts ("webhook deliveries") when they end.
  const jobTick = () => tick(false);
  const renewLeases = () =>
    keeper.renew().catch((e: Error) => app.log.warn({ err: e.message }, "watch lease renewal failed; retried"));
  // Only while something is held: an idle worker makes no renewal queries.
  const renewal = setInterval(() => {
    if (keeper.held().length > 0) void renewLeases();
  }, Math.max(500, (app.config.WATCH_LEASE_SECONDS * 1000) / 4));
  renewal.unref();
  const runner = opts.autostart === false ? null : startJobs(backgroundJobs(app, jobTick, opts.idleSleepMs ?? 1000), app.log, { isOutage: isDatabaseOutage });
  return {
    tickOnce: () => tick(true),
    renewLeases,
    stop: async () => {
      await runner?.stop();
      await pool.idle();
      clearInterval(renewal);
    },
  };
}
