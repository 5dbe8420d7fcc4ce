/**
 * Background work as a list of jobs, run by one runner. A job is a
 * declaration — a name, how long to wait when idle, how many loops of it run
 * at once — and a `run` that does one unit of work and says whether more is
 * waiting. Each loop of a job:
 *   - runs again at once when the run reported more work (a full batch),
 *     otherwise sleeps `intervalMs`;
 *   - logs a run that throws and goes on after the interval (one failing job
 *     never stops the others, nor its own next run);
 *   - when the failure is an outage (`isOutage`: the database is unreachable),
 *     waits longer after each failed run in a row (1 s, 2 s, 4 s … up to
 *     MAX_OUTAGE_WAIT_MS, never less than the interval), logs a warning per
 *     run with the wait, and one line when a run succeeds again; the run's
 *     own transaction was rolled back, so the next run does the work once;
 *   - warns when a run outlasted `leaseSeconds`: the leases it took are then
 *     free for another worker, whose writes its own guards must yield to.
 * stop() ends every loop and resolves once the runs in flight have finished;
 * their signal is aborted so a run that can give up early does.
 * Leases themselves belong to the job (on its own table, FOR UPDATE SKIP
 * LOCKED), so several processes may run the same job list on one database.
 */
import { setMaxListeners } from "node:events";
import { sleep } from "./sleep.js";

/** The little of a logger the runner needs (a pino Logger fits). */
export interface JobLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info?(obj: object, msg: string): void;
}

export interface JobRunnerOptions {
  now?: () => number;
  /** True for an error that means a dependency is down (not a bug of the run): the loop backs off. */
  isOutage?: (e: unknown) => boolean;
}

/** The longest wait between runs of a job during an outage: how late it may resume once the dependency is back. */
export const MAX_OUTAGE_WAIT_MS = 15_000;
const FIRST_OUTAGE_WAIT_MS = 1_000;

/** The wait after the `failures`-th outage failure in a row. */
export function outageWaitMs(intervalMs: number, failures: number): number {
  const backoff = Math.min(MAX_OUTAGE_WAIT_MS, FIRST_OUTAGE_WAIT_MS * 2 ** Math.min(failures - 1, 20));
  return Math.max(intervalMs, backoff);
}

export interface Job {
  /** Names the job in logs. */
  readonly name: string;
  /** Sleep between runs when the last one reported no more work (or failed). */
  readonly intervalMs: number;
  /** How long the leases a run takes last; a run longer than this is logged. */
  readonly leaseSeconds?: number;
  /** Loops of this job in one process (default 1). */
  readonly concurrency?: number;
  run(signal: AbortSignal): Promise<{ more: boolean }>;
}

export interface JobRunner {
  /** Ends the loops; resolves when the runs in flight have finished. */
  stop(): Promise<void>;
}

export function startJobs(jobs: readonly Job[], log: JobLog, opts: JobRunnerOptions = {}): JobRunner {
  const now = opts.now ?? Date.now;
  const stopping = new AbortController();
  // Every idle loop's sleep listens on it (and runs may too): many listeners are expected, not a leak.
  setMaxListeners(0, stopping.signal);

  const loop = async (job: Job) => {
    let outages = 0;
    while (!stopping.signal.aborted) {
      let more = false;
      let waitMs = job.intervalMs;
      const started = now();
      try {
        ({ more } = await job.run(stopping.signal));
        if (outages > 0) log.info?.({ job: job.name, failedRuns: outages }, `${job.name} resumed`);
        outages = 0;
      } catch (e) {
        if (stopping.signal.aborted) {
          // stop() aborted this run: the process is shutting down, not failing.
          log.info?.({ job: job.name, err: (e as Error).message }, `${job.name} stopped mid-run`);
        } else if (opts.isOutage?.(e)) {
          waitMs = outageWaitMs(job.intervalMs, ++outages);
          log.warn({ job: job.name, err: (e as Error).message, failedRuns: outages, retryInMs: waitMs }, `${job.name} waits for the database`);
        } else {
          outages = 0;
          log.error({ job: job.name, err: (e as Error).message }, `${job.name} failed`);
        }
      }
      const tookMs = now() - started;
      if (job.leaseSeconds !== undefined && tookMs > job.leaseSeconds * 1000) {
        log.warn({ job: job.name, tookMs, leaseSeconds: job.leaseSeconds }, `${job.name} outlasted its lease`);
      }
      // stop() aborts the signal, which ends the sleep at once (the rejection is that abort, nothing to report).
      if (!more && !stopping.signal.aborted) await sleep(waitMs, stopping.signal).catch(() => undefined);
    }
  };

  const loops = jobs.flatMap((job) => Array.from({ length: Math.max(1, job.concurrency ?? 1) }, () => loop(job)));

  return {
    stop: async () => {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
