/**
 * `vigil worker` (the production CLI, bin/vigil.mjs) as child processes
 * beside a watch stack: the environment that points a worker at the stack's
 * database, monerod and HTTPS receiver, spawning one with its output kept,
 * and stopping them all. The multi-process e2e tests (PostgreSQL only) share
 * this.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { WatchStack } from "./stack.js";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface WorkerProc {
  proc: ChildProcess;
  /** stdout and stderr as they came. */
  out: string;
  exited: Promise<number | null>;
}

/**
 * A worker's settings against the stack: its database schema, the devnet monerod,
 * 1 s polls, no facilitator (a worker never settles), the receiver's self-signed
 * certificate trusted the way an operator would add a CA; `extra` overrides.
 */
export function workerEnv(s: WatchStack, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...s.t.db.env,
    DEVNET: "off",
    DATA_DIR: dataDir,
    MONERO_DAEMON_URL: s.devnet.moneroUrl,
    MONERO_NETWORK: "testnet",
    MONERO_CONFIRMATIONS: "1",
    MASTER_KEY: s.devnet.masterKey,
    FACILITATOR_MODE: "http",
    FACILITATOR_URL: "http://127.0.0.1:9",
    WATCH_POLL_SECONDS: "1",
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_ALLOW_HTTP: "0",
    NODE_EXTRA_CA_CERTS: s.receiver.caFile!,
    LOG_LEVEL: "debug",
    DATABASE_POOL_SIZE: "4",
    ...extra,
  };
}

export function startWorker(env: Record<string, string>): WorkerProc {
  const proc = spawn(process.execPath, [path.join(ROOT, "bin", "vigil.mjs"), "worker"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const w: WorkerProc = { proc, out: "", exited: new Promise((resolve) => proc.on("exit", (code) => resolve(code))) };
  proc.stdout!.on("data", (c: Buffer) => (w.out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (w.out += c.toString()));
  return w;
}

/** SIGTERM to the workers still running, then wait for every one to exit. */
export async function stopWorkers(workers: readonly WorkerProc[]): Promise<void> {
  for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.exited));
}

/** The last lines of each worker's output, for a failure message. */
export const workerLogs = (workers: readonly WorkerProc[], chars = 3000) => workers.map((w) => w.out.slice(-chars)).join("\n----\n");
