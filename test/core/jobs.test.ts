/**
 * The job runner: a job that reports more work runs again at once, an idle
 * one waits its interval, a failing one is logged and retried without
 * holding up the others, and stop() waits for the runs in flight.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_OUTAGE_WAIT_MS, outageWaitMs, startJobs, type Job, type JobLog } from "../../src/core/jobs.js";

function recordingLog() {
  const lines: { level: "error" | "warn" | "info"; obj: object; msg: string }[] = [];
  const log: JobLog = {
    error: (obj, msg) => lines.push({ level: "error", obj, msg }),
    warn: (obj, msg) => lines.push({ level: "warn", obj, msg }),
    info: (obj, msg) => lines.push({ level: "info", obj, msg }),
  };
  return { log, lines };
}

/** A job whose runs are counted and answer from a script (then `{ more: false }`). */
function scripted(name: string, intervalMs: number, script: (() => Promise<{ more: boolean }>)[] = []) {
  let runs = 0;
  const job: Job = {
    name,
    intervalMs,
    run: async () => {
      const step = script[runs++];
      return step ? step() : { more: false };
    },
  };
  return { job, runs: () => runs };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("startJobs", () => {
  it("a run that stop() aborts is not reported as a failure", async () => {
    const { log, lines } = recordingLog();
    let started = false;
    // A run that gives up when its signal is aborted, as the chain followers' requests do.
    const job: Job = {
      name: "follower",
      intervalMs: 1000,
      run: (signal) =>
        new Promise((_, reject) => {
          started = true;
          signal.addEventListener("abort", () => reject(new Error("This operation was aborted")), { once: true });
        }),
    };
    const runner = startJobs([job], log);
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toBe(true);
    await runner.stop();
    expect(lines.filter((l) => l.level !== "info")).toEqual([]);
    expect(lines).toMatchObject([{ level: "info", msg: "follower stopped mid-run", obj: { job: "follower", err: "This operation was aborted" } }]);
  });

  it("runs a job at once, then once per interval while it reports no more work", async () => {
    const { log } = recordingLog();
    const j = scripted("idle", 1000);
    const runner = startJobs([j.job], log);
    await vi.advanceTimersByTimeAsync(0);
    expect(j.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(j.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(j.runs()).toBe(2);
    await vi.advanceTimersByTimeAsync(3000);
    expect(j.runs()).toBe(5);
    await runner.stop();
  });

  it("runs again without sleeping while the job reports more work", async () => {
    const { log } = recordingLog();
    const more = async () => ({ more: true });
    const j = scripted("busy", 60_000, [more, more, more]);
    const runner = startJobs([j.job], log);
    await vi.advanceTimersByTimeAsync(0);
    expect(j.runs()).toBe(4); // three with more work, then the one that found none
    await vi.advanceTimersByTimeAsync(59_999);
    expect(j.runs()).toBe(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(j.runs()).toBe(5);
    await runner.stop();
  });

  it("logs a failing run and retries it after the interval; the other jobs keep their pace", async () => {
    const { log, lines } = recordingLog();
    const fail = async (): Promise<{ more: boolean }> => {
      throw new Error("daemon unreachable");
    };
    const failing = scripted("failing", 500, [fail, fail]);
    const healthy = scripted("healthy", 100);
    const runner = startJobs([failing.job, healthy.job], log);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([{ level: "error", obj: { job: "failing", err: "daemon unreachable" }, msg: "failing failed" }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(failing.runs()).toBe(3); // failed twice, then succeeded, each after the interval
    expect(lines.filter((l) => l.level === "error")).toHaveLength(2);
    expect(healthy.runs()).toBe(11);
    await runner.stop();
  });

  it("during an outage backs off 1 s, 2 s, 4 s … up to 15 s, warns with the wait, and says when it resumed", async () => {
    const lines: { level: string; obj: object; msg: string }[] = [];
    const log: JobLog = {
      error: (obj, msg) => lines.push({ level: "error", obj, msg }),
      warn: (obj, msg) => lines.push({ level: "warn", obj, msg }),
      info: (obj, msg) => lines.push({ level: "info", obj, msg }),
    };
    const down = Object.assign(new Error("Connection terminated unexpectedly"), { outage: true });
    let databaseUp = false;
    const runsAt: number[] = [];
    const job: Job = {
      name: "reconciler",
      intervalMs: 200,
      run: async () => {
        runsAt.push(Date.now());
        if (!databaseUp) throw down;
        return { more: false };
      },
    };
    const start = Date.now();
    const runner = startJobs([job], log, { isOutage: (e) => (e as { outage?: boolean }).outage === true });
    await vi.advanceTimersByTimeAsync(60_000);
    // Runs at 0, 1, 3, 7, 15, 30, 45, 60 s: doubling waits, capped.
    expect(runsAt.map((t) => t - start)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 30_000, 45_000, 60_000]);
    expect(lines.every((l) => l.level === "warn" && l.msg === "reconciler waits for the database")).toBe(true);
    expect(lines.slice(0, 3).map((l) => (l.obj as { retryInMs: number }).retryInMs)).toEqual([1_000, 2_000, 4_000]);
    databaseUp = true;
    await vi.advanceTimersByTimeAsync(15_000);
    expect(lines.filter((l) => l.level === "info")).toEqual([{ level: "info", obj: { job: "reconciler", failedRuns: 8 }, msg: "reconciler resumed" }]);
    // Back to its own interval once the database answers.
    const n = runsAt.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runsAt.length - n).toBe(5);
    await runner.stop();
    expect(outageWaitMs(60_000, 3)).toBe(60_000);
    expect(outageWaitMs(100, 30)).toBe(MAX_OUTAGE_WAIT_MS);
  });

  it("runs `concurrency` loops of one job side by side", async () => {
    const { log } = recordingLog();
    let inFlight = 0;
    let most = 0;
    const job: Job = {
      name: "parallel",
      intervalMs: 1000,
      concurrency: 3,
      run: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        return { more: false };
      },
    };
    const runner = startJobs([job], log);
    await vi.advanceTimersByTimeAsync(10);
    expect(most).toBe(3);
    await runner.stop();
  });

  it("warns when a run outlasts its lease", async () => {
    const { log, lines } = recordingLog();
    let t = 0;
    const job: Job = {
      name: "slow",
      intervalMs: 1000,
      leaseSeconds: 2,
      run: async () => {
        t += 2001; // the run took just over its lease
        return { more: false };
      },
    };
    const runner = startJobs([job], log, { now: () => t });
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual([{ level: "warn", obj: { job: "slow", tookMs: 2001, leaseSeconds: 2 }, msg: "slow outlasted its lease" }]);
    await runner.stop();
  });

  it("stop() wakes sleeping loops, aborts the signal and resolves only after the run in flight finished", async () => {
    const { log } = recordingLog();
    let finish!: () => void;
    let signal: AbortSignal | undefined;
    let finished = false;
    const inFlight: Job = {
      name: "in-flight",
      intervalMs: 1000,
      run: async (s) => {
        signal = s;
        await new Promise<void>((r) => (finish = r));
        finished = true;
        return { more: true };
      },
    };
    const sleeping = scripted("sleeping", 3_600_000);
    const runner = startJobs([inFlight, sleeping.job], log);
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(signal!.aborted).toBe(true);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(finished).toBe(true);
    // No run after stop, even though the last one reported more work.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sleeping.runs()).toBe(1);
  });
});
