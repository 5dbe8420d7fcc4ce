/**
 * A real PostgreSQL restart under a running `vigil api` and `vigil worker`.
 * test/e2e/database-outage.test.ts plays the pieces of a restart on the
 * machine's shared server (connections terminated, then refused through a
 * proxy); here a private cluster of the test's own (initdb in a temp dir,
 * run as the `postgres` user, on its own port) is stopped with `pg_ctl stop
 * -m fast` (every backend ends with 57P01 admin_shutdown) and started again
 * on the same data: both processes stay up, answer 503 database_unavailable
 * and say the database is down meanwhile, and carry on by themselves after.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.js";
import { readAnswer } from "../helpers/http.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { startWorker, stopWorkers, type WorkerProc } from "../helpers/worker-process.js";

const PG_BIN = (() => {
  try {
    const v = fs.readdirSync("/usr/lib/postgresql").sort().pop();
    const bin = v ? `/usr/lib/postgresql/${v}/bin` : "";
    return bin && fs.existsSync(`${bin}/initdb`) && fs.existsSync("/usr/sbin/runuser") && process.getuid?.() === 0 ? bin : undefined;
  } catch {
    return undefined;
  }
})();
if (!PG_BIN) process.stderr.write("\n! SKIPPED: database restart test (needs PostgreSQL's server binaries and root to run them as postgres)\n\n");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const asPostgres = (cmd: string, args: string[]) => execFileSync("/usr/sbin/runuser", ["-u", "postgres", "--", `${PG_BIN}/${cmd}`, ...args], { stdio: "pipe", timeout: 60_000 });

describe.skipIf(!PG_BIN)("processes that outlive a real PostgreSQL restart", () => {
  let dataDir: string;
  let port: number;
  let api: ChildService;
  const workers: WorkerProc[] = [];
  const dirs: string[] = [];
  const ctl = (action: "start" | "stop") =>
    action === "start"
      ? asPostgres("pg_ctl", ["-D", dataDir, "-w", "-l", path.join(dataDir, "server.log"), "-o", `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1`, "start"])
      : asPostgres("pg_ctl", ["-D", dataDir, "-w", "-m", "fast", "stop"]);

  beforeAll(async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-pg-restart-"));
    dirs.push(base);
    dataDir = path.join(base, "cluster");
    fs.mkdirSync(dataDir);
    execFileSync("chown", ["-R", "postgres", base]);
    asPostgres("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync"]);
    port = await freePort();
    ctl("start");
    const env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, DEVNET: "off", LOG_LEVEL: "info", WATCH_POLL_SECONDS: "1" };
    const apiDir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-pg-restart-api-"));
    const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-pg-restart-worker-"));
    dirs.push(apiDir, workerDir);
    execFileSync(process.execPath, [path.resolve(import.meta.dirname, "..", "..", "bin", "vigil.mjs"), "migrate"], { env: { ...process.env, ...env, DATA_DIR: apiDir }, stdio: "pipe" });
    api = await startCli(["api"], { ...env, PORT: "0", DATA_DIR: apiDir });
    workers.push(startWorker({ ...env, DATA_DIR: workerDir }));
    for (const until = Date.now() + 60_000; !/first watch tick done/.test(workers[0]!.out); await sleep(100)) {
      if (Date.now() > until || workers[0]!.proc.exitCode !== null) throw new Error(`the worker did not start:\n${workers[0]!.out}`);
    }
  }, 120_000);

  afterAll(async () => {
    await stopWorkers(workers);
    await api?.stop();
    if (dataDir && fs.existsSync(path.join(dataDir, "postmaster.pid"))) ctl("stop");
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("stop: 503 database_unavailable and health says so; start: both carry on by themselves", async () => {
    const board = `${api.url}/v1/board/announcements`;
    expect((await readAnswer(await fetch(board))).status).toBe(200);

    ctl("stop");
    const down = await readAnswer(await fetch(board));
    expect(down.status, JSON.stringify(down.json)).toBe(503);
    expect(down.json.error.code).toBe("database_unavailable");
    expect(down.headers.get("retry-after")).toMatch(/^\d+$/);
    const health = await readAnswer(await fetch(`${api.url}/v1/health`));
    expect(health.json).toMatchObject({ status: "degraded", database: { available: false } });
    // The worker's jobs keep failing, and back off, while it is down.
    for (const until = Date.now() + 20_000; !/waits for the database/.test(workers[0]!.out) && Date.now() < until; ) await sleep(200);
    expect(workers[0]!.out).toMatch(/waits for the database/);
    await sleep(3_000);
    expect(api.proc.exitCode, api.output()).toBeNull();
    expect(workers[0]!.proc.exitCode, workers[0]!.out).toBeNull();

    ctl("start");
    let up = await readAnswer(await fetch(board));
    for (const until = Date.now() + 20_000; up.status !== 200 && Date.now() < until; up = await readAnswer(await fetch(board))) await sleep(250);
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    expect((await readAnswer(await fetch(`${api.url}/v1/health`))).json).toMatchObject({ database: { available: true } });
    // The worker resumes on its own (its longest wait between runs is 15 s).
    for (const until = Date.now() + 30_000; !/resumed/.test(workers[0]!.out) && Date.now() < until; ) await sleep(250);
    expect(workers[0]!.out, workers[0]!.out.slice(-3000)).toMatch(/resumed/);
    expect(api.proc.exitCode).toBeNull();
    expect(workers[0]!.proc.exitCode).toBeNull();
  }, 120_000);
});
