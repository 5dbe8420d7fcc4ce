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
import { runWatchTick, type TickStats } from "./watch/tick.js";
import { boardPurgeJob } from "./board/purge.js";
import { ethereumFollowerJob } from "./oracle/ethereum-follower.js";
import { invoiceExpiryJob } from "./checkout/invoices.js";
import { relayPollerJob } from "./oracle/relay-poller.js";
import { zcashSnapshotJob } from "./feeds/zcash-pools.js";
import { approvalScanJob } from "./feeds/approval-scan.js";

/** Seconds a tick's watch leases last; a tick must finish its batch within them. */
const WATCH_LEASE_SECONDS = 120;

export interface Workers {
  stop(): Promise<void>;
  /** Runs one tick now (tests and benchmarks). */
  tickOnce(): Promise<TickStats>;
}

/**
 * The watch poll: each run is one tick (lease a batch of due watches, scan,
 * write, deliver); a full batch means more are due, so it goes again at once.
 */
export function watchTickJob(app: App, tick: () => Promise<TickStats>, idleSleepMs: number): Job {
  return {
    name: "watch tick",
    intervalMs: idleSleepMs,
    leaseSeconds: WATCH_LEASE_SECONDS,
    run: async () => {
      const s = await tick();
      if (s.claimed || s.expired) app.log.debug({ ...s }, "watch tick");
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
    ...(app.ethereum.rpc.configured ? [ethereumFollowerJob(app.ethereum, 2_000)] : []),
    ...(app.approvalScan.rpc.configured ? [approvalScanJob(app.approvalScan, 4_000)] : []),
    ...(app.relays.relays.length > 0 ? [relayPollerJob(app.relays, 6_000)] : []),
    ...(app.zcashPools.zebrad.configured ? [zcashSnapshotJob(app.zcashPools)] : []),
  ];
}

export function startWorkers(app: App, opts: { idleSleepMs?: number; autostart?: boolean } = {}): Workers {
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const tickOnce = () =>
    runWatchTick(app.watch, { owner, batchSize: app.config.WORKER_BATCH_SIZE, leaseSeconds: WATCH_LEASE_SECONDS });
  const runner = opts.autostart === false ? null : startJobs(backgroundJobs(app, tickOnce, opts.idleSleepMs ?? 1000), app.log);
  return {
    tickOnce,
    stop: async () => {
      await runner?.stop();
    },
  };
}
