/** Runs the real CLI in a child process and waits for its listening URL. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");

/**
 * How tests run the CLI: the compiled service, as `npx vigil` does (bin/vigil.mjs
 * compiles src/ to dist/ first when the sources are newer; test/global-setup.ts
 * builds once before the files run).
 */
export const VIGIL_CLI: readonly string[] = [path.join(root, "bin", "vigil.mjs")];

export interface ChildService {
  url: string | undefined;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startCli(args: string[], env: Record<string, string>, opts: { waitFor?: RegExp; timeoutMs?: number } = {}): Promise<ChildService> {
  const proc = spawn(process.execPath, [...VIGIL_CLI, ...args], {
    cwd: root,
    // A devnet state file of the test's own (unless it names one), never the user's shared one.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", DEVNET_STATE_FILE: path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vigil-state-")), "devnet.json"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const waitFor = opts.waitFor ?? /listening on (http:\/\/\S+)/;
  const url = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child did not start in time:\n${out}`)), opts.timeoutMs ?? 60_000);
    const check = () => {
      const m = waitFor.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on("data", check);
    proc.stderr!.on("data", check);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}:\n${out}`));
    });
  });
  proc.removeAllListeners("exit");
  return {
    url,
    proc,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill("SIGTERM");
      }),
  };
}

/**
 * `count` API processes (`vigil api`, no devnet, no facilitator reachable) on the
 * same database, each on its own port: what the multi-process limit tests share.
 */
export async function startApiProcesses(dbEnv: Record<string, string>, count: number, extra: Record<string, string> = {}): Promise<ChildService[]> {
  const env = {
    ...dbEnv,
    DEVNET: "off",
    PORT: "0",
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "vigil-api-")),
    FACILITATOR_MODE: "http",
    FACILITATOR_URL: "http://127.0.0.1:9",
    ...extra,
  };
  return Promise.all(Array.from({ length: count }, () => startCli(["api"], env)));
}
