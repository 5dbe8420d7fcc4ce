/**
 * Background work as a list of jobs, run by one runner. A job is a
 * declaration — a name, how long to wait when idle, how many loops of it run
 * at once — and a `run` that does one unit of work and says whether more is
 * waiting. Each loop of a job:
 *   - runs again at once when the run reported more work (a full batch),
 *     otherwise sleeps `intervalMs`;
 *   - logs a run that throws and goes on after the interval (one failing job
 *     never stops the others, nor its own next run);
 *   - warns when a run outlasted `leaseSeconds`: the leases it took are then
 *     free for another worker, whose writes its own guards must yield to.
 * stop() ends every loop and resolves once the runs in flight have finished;
 * their signal is aborted so a run that can give up early does.
 * Leases themselves belong to the job (on its own table, FOR UPDATE SKIP
 * LOCKED), so several processes may run the same job list on one database.
 */

/** The little of a logger the runner needs (a pino Logger fits). */
export interface JobLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
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

export function startJobs(jobs: readonly Job[], log: JobLog, now: () => number = Date.now): JobRunner {
  const stopping = new AbortController();
  const sleepers = new Set<() => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const loop = async (job: Job) => {
    while (!stopping.signal.aborted) {
      let more = false;
      const started = now();
      try {
        ({ more } = await job.run(stopping.signal));
      } catch (e) {
        log.error({ job: job.name, err: (e as Error).message }, `${job.name} failed`);
      }
      const tookMs = now() - started;
      if (job.leaseSeconds !== undefined && tookMs > job.leaseSeconds * 1000) {
        log.warn({ job: job.name, tookMs, leaseSeconds: job.leaseSeconds }, `${job.name} outlasted its lease`);
      }
      if (!more && !stopping.signal.aborted) await sleep(job.intervalMs);
    }
  };

  const loops = jobs.flatMap((job) => Array.from({ length: Math.max(1, job.concurrency ?? 1) }, () => loop(job)));

  return {
    stop: async () => {
      stopping.abort();
      for (const wake of [...sleepers]) wake();
      await Promise.all(loops);
    },
  };
}
