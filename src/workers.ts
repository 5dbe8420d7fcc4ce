/**
 * Background work of a process: the watch poll loop. Each loop iteration runs
 * one tick (lease a batch of due watches, scan, write, deliver); when a batch
 * was full it goes again at once, otherwise it sleeps a second.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { App } from "./app.js";
import { runWatchTick, type TickStats } from "./watch/tick.js";

export interface Workers {
  stop(): Promise<void>;
  /** Runs one tick now (tests and benchmarks). */
  tickOnce(): Promise<TickStats>;
}

export function startWorkers(app: App, opts: { idleSleepMs?: number; autostart?: boolean } = {}): Workers {
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const idleSleepMs = opts.idleSleepMs ?? 1000;
  let stopping = false;
  let wake: (() => void) | undefined;
  const tickOnce = () => runWatchTick(app.watch, { owner, batchSize: app.config.WORKER_BATCH_SIZE });

  const loop = (async () => {
    if (opts.autostart === false) return;
    while (!stopping) {
      let full = false;
      try {
        const s = await tickOnce();
        full = s.claimed >= app.config.WORKER_BATCH_SIZE;
        if (s.claimed || s.expired) app.log.debug({ ...s }, "watch tick");
      } catch (e) {
        app.log.error({ err: (e as Error).message }, "watch tick failed");
      }
      if (!full && !stopping) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, idleSleepMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  })();

  return {
    tickOnce,
    stop: async () => {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
