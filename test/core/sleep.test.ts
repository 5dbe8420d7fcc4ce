/**
 * One abortable sleep (src/core/sleep.ts) serves the upstream client's
 * backoff, lightwalletd's retries, the job runner's idle wait, the start-up
 * wait for the database and the doctor's close deadline. Real timers: the
 * waits are tens of milliseconds.
 */
import { getEventListeners } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startJobs, type Job } from "../../src/core/jobs.js";
import { sleep } from "../../src/core/sleep.js";

const SRC = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("sleep", () => {
  it("waits the time it is given", async () => {
    const started = performance.now();
    await sleep(40);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it("rejects at once with the signal's own reason when aborted midway, and leaves no listener behind", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const started = performance.now();
    const waiting = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    await expect(waiting).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("rejects before waiting when the signal is already aborted", async () => {
    const reason = new Error("already gone");
    const started = performance.now();
    await expect(sleep(10_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("removes its abort listener when the time is up, so a long-lived signal gathers none", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 5; i++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("ends the job runner's idle wait at stop(), without one listener per wait on the runner's signal", async () => {
    let signal: AbortSignal | undefined;
    let runs = 0;
    const job: Job = {
      name: "idle",
      intervalMs: 5,
      run: async (s) => {
        signal = s;
        runs++;
        return { more: false };
      },
    };
    const runner = startJobs([job], { error: () => {}, warn: () => {} });
    while (runs < 6) await sleep(5);
    // One sleep is in flight at most: its listener, and no leftovers of the earlier waits.
    expect(getEventListeners(signal!, "abort").length).toBeLessThanOrEqual(1);
    const idle: Job = { ...job, name: "long idle", intervalMs: 60_000 };
    const longRunner = startJobs([idle], { error: () => {}, warn: () => {} });
    await sleep(20);
    const started = performance.now();
    await Promise.all([runner.stop(), longRunner.stop()]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("is the only hand-written sleep in src/ (the devnet aside)", () => {
    const handWritten = [
      // a timer that resolves a bare promise: new Promise((r) => setTimeout(r, ms))
      /new Promise[^;]*?setTimeout\(\s*(?:r|res|resolve)\s*,/g,
      // a function, method or constant named …sleep…
      /\b(?:function\s+\w*[sS]leep\w*\s*\(|(?:const|let)\s+\w*[sS]leep\w*\s*=\s*(?:async\s*)?\(|private\s+(?:async\s+)?\w*[sS]leep\w*\s*\()/g,
    ];
    const found = sourceFiles(SRC)
      .filter((f) => !f.startsWith(path.join(SRC, "devnet")) && f !== path.join(SRC, "core", "sleep.ts"))
      .flatMap((file) => {
        const text = fs.readFileSync(file, "utf8");
        return handWritten.flatMap((re) => [...text.matchAll(re)].map((m) => `${path.relative(SRC, file)}:${text.slice(0, m.index).split("\n").length}: ${m[0]}`));
      });
    expect(found).toEqual([]);
  });
});
