/**
 * npm run bench:startup — how long the service takes to be of use after its
 * process starts, and how much memory it then holds:
 *
 *   - `vigil api` in the production shape: PostgreSQL (DATABASE_URL, default
 *     the machine's), devnet off, every upstream given as a URL (the
 *     upstreams of a `vigil devnet` started once beforehand, reached over
 *     loopback like real nodes); time to the first GET /v1/health 200.
 *   - `vigil worker`, the same settings; time to its "first watch tick done"
 *     log line (the worker has no HTTP port of its own).
 *   - `npm start` (devnet in process, PGlite): time to the first /v1/health
 *     200, with a fresh DATA_DIR (first start: PGlite initdb, migrations,
 *     devnet chains built) and again on the same DATA_DIR (a restart).
 *
 * Each is measured next to its baseline, started the same way in the same
 * run: a bare `node -e` HTTP server answering 200 (for the HTTP cases), a
 * bare `node -e` printing a line (for the worker), and `npm run` of a bare
 * server (for npm start). RSS is the resident memory of the process tree
 * (VmRSS of the node process and its children) one second after it is up.
 *
 * dist/ is built before the first run (bin/build.mjs), as `npm install`
 * does, so no run pays for compiling. Env: RUNS (3 per case; medians are
 * printed, with min and max). Nothing is asserted: figures are printed.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { machineLine, productionEnvFromDevnet } from "./support.js";
import { freePort } from "../test/helpers/ports.js";

const root = path.resolve(import.meta.dirname, "..");
const RUNS = Number(process.env.RUNS ?? 3);
const PG_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const VIGIL = path.join(root, "bin", "vigil.mjs");


/** Resident memory (KiB) of a process and all its descendants, from /proc. */
function treeRssKiB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const visit = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
      total += m ? Number(m[1]) : 0;
    } catch {
      // gone
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return total;
}

interface Started {
  ms: number;
  rssMiB: number;
  /** What `probe` measured once the process was up (ms). */
  probed?: number[];
}

/** Kills a process group and waits for the leader to exit. */
async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  try {
    process.kill(-proc.pid!, "SIGTERM");
  } catch {
    proc.kill("SIGTERM");
  }
  const t = setTimeout(() => {
    try {
      process.kill(-proc.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, 15_000);
  await exited;
  clearTimeout(t);
}

/**
 * Spawns `cmd args` in its own process group and times it to `ready`: a GET of
 * `url` answering 200, or a line matching `line` on its output.
 */
async function timeStart(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  ready: { url: string } | { line: RegExp },
  probe?: (origin: string) => Promise<number[]>,
): Promise<Started> {
  const t0 = performance.now();
  const proc = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  try {
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`not ready in 180 s:\n${out.slice(-3000)}`)), 180_000);
      proc.once("exit", (code) => reject(new Error(`exited ${code}:\n${out.slice(-3000)}`)));
      const done = () => {
        clearTimeout(deadline);
        resolve();
      };
      if ("line" in ready) {
        const check = () => ready.line.test(out) && done();
        proc.stdout!.on("data", check);
        proc.stderr!.on("data", check);
      } else {
        const poll = async () => {
          try {
            const r = await fetch(ready.url, { signal: AbortSignal.timeout(2_000) });
            await r.arrayBuffer();
            if (r.status === 200) return done();
          } catch {
            // not listening yet
          }
          setTimeout(poll, 20);
        };
        void poll();
      }
    });
    const ms = performance.now() - t0;
    proc.removeAllListeners("exit");
    await new Promise((r) => setTimeout(r, 1_000));
    const rssMiB = treeRssKiB(proc.pid!) / 1024;
    // The probe runs once the module warm-up (a second after listening, ~150 ms) is over: 2 s after ready.
    if (probe) await new Promise((r) => setTimeout(r, 1_000));
    const probed = probe && "url" in ready ? await probe(new URL(ready.url).origin) : undefined;
    return { ms, rssMiB, probed };
  } finally {
    await stop(proc);
  }
}

/** A phrase for derive-viewkey (BIP 39's all-"abandon" test phrase). */
const PHRASE = `${"abandon ".repeat(23)}art`;

/** The first derive-viewkey call of the process and a second one (warm), each timed from request to answer. */
async function deriveTwice(origin: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const r = await fetch(`${origin}/v1/private/derive-viewkey`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chain: "zcash", seed: PHRASE }),
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`derive-viewkey answered ${r.status}`);
    times.push(performance.now() - t0);
  }
  return times;
}

const BARE_HTTP = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
const BARE_LINE = "console.log('first watch tick done')";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(label: string, run: () => Promise<Started>): Promise<{ label: string; ms: number[]; rss: number[]; probed: number[][] }> {
  const ms: number[] = [];
  const rss: number[] = [];
  const probed: number[][] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run();
    ms.push(r.ms);
    rss.push(r.rssMiB);
    if (r.probed) probed.push(r.probed);
    process.stderr.write(`  ${label} #${i + 1}: ${r.ms.toFixed(0)} ms, ${r.rssMiB.toFixed(0)} MiB${r.probed ? `; derive-viewkey ${r.probed.map((t) => t.toFixed(0)).join(", ")} ms` : ""}\n`);
  }
  return { label, ms, rss, probed };
}

function row(m: { label: string; ms: number[]; rss: number[] }, base?: { ms: number[] }): string {
  const med = median(m.ms);
  const over = base ? `  (+${(med - median(base.ms)).toFixed(0)} ms over its baseline)` : "";
  // A baseline that exits at once has no memory left to read a second later.
  const rss = median(m.rss) > 0 ? `RSS ${median(m.rss).toFixed(0).padStart(4)} MiB` : "RSS    — (exited)";
  return `  ${m.label.padEnd(44)} ${med.toFixed(0).padStart(6)} ms  [${Math.min(...m.ms).toFixed(0)}–${Math.max(...m.ms).toFixed(0)}]  ${rss}${over}`;
}

async function main(): Promise<void> {
  process.stdout.write(`${machineLine("bench:startup")}\n`);
  execFileSync(process.execPath, [path.join(root, "bin", "build.mjs")], { stdio: "inherit" });

  // The upstreams, as a separate `vigil devnet`: loopback nodes the production-shaped processes are pointed at.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-startup-"));
  const stateFile = path.join(work, "devnet-state.json");
  const devnet = spawn(process.execPath, [VIGIL, "devnet"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: path.join(work, "devnet"), DEVNET_STATE_FILE: stateFile, DEVNET_BLOCK_SECONDS: "3600", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const schema = `bench_startup_${randomBytes(4).toString("hex")}`;
  try {
    for (let i = 0; i < 1200 && !fs.existsSync(stateFile); i++) await new Promise((r) => setTimeout(r, 100));
    const overlay = (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { configOverlay: Record<string, string> }).configOverlay;
    const prod = productionEnvFromDevnet(overlay, { databaseUrl: PG_URL, schema, dataDir: path.join(work, "prod"), all: true });
    // Production migrates once, before the processes start (vigil migrate).
    execFileSync(process.execPath, [VIGIL, "migrate"], { cwd: root, env: { ...process.env, ...prod }, stdio: "ignore" });
    process.stdout.write(`upstreams: a separate vigil devnet on loopback; database: PostgreSQL ${PG_URL.replace(/\/\/[^@]*@/, "//")} schema ${schema}; ${RUNS} runs each\n`);

    const http = async (cmd: string, args: string[], env: Record<string, string>, probe?: (origin: string) => Promise<number[]>) => {
      const port = await freePort();
      return timeStart(cmd, args, { ...env, PORT: String(port) }, { url: `http://127.0.0.1:${port}/v1/health` }, probe);
    };
    const bareHttp = await measure("baseline: node -e (bare HTTP server)", () => http(process.execPath, ["-e", BARE_HTTP], {}));
    // Once up and warmed (2 s after ready), the first derive-viewkey call and a second one.
    const api = await measure("vigil api (production shape, PostgreSQL)", () => http(process.execPath, [VIGIL, "api"], prod, deriveTwice));
    const bareLine = await measure("baseline: node -e (prints a line)", () => timeStart(process.execPath, ["-e", BARE_LINE], {}, { line: /first watch tick done/ }));
    const worker = await measure("vigil worker (to its first watch tick)", () =>
      timeStart(process.execPath, [VIGIL, "worker"], { ...prod, METRICS_PORT: "0" }, { line: /first watch tick done/ }),
    );
    const npmBare = await measure("baseline: npm run (bare HTTP server)", () => {
      const dir = fs.mkdtempSync(path.join(work, "npm-bare-"));
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bare", private: true, scripts: { start: `node -e "${BARE_HTTP}"` } }));
      return freePort().then((port) => timeStart("npm", ["start", "--prefix", dir], { PORT: String(port) }, { url: `http://127.0.0.1:${port}/v1/health` }));
    });
    const devnetEnv = (dataDir: string) => ({ DATA_DIR: dataDir, DEVNET_STATE_FILE: path.join(dataDir, "state.json"), LOG_LEVEL: "warn", DATABASE_URL: "" });
    const npmFresh = await measure("npm start (devnet, PGlite, fresh DATA_DIR)", () => http("npm", ["start"], devnetEnv(fs.mkdtempSync(path.join(work, "fresh-")))));
    const reused = fs.mkdtempSync(path.join(work, "reused-"));
    await http("npm", ["start"], devnetEnv(reused));
    const npmReused = await measure("npm start (devnet, PGlite, restart)", () => http("npm", ["start"], devnetEnv(reused)));

    process.stdout.write(`\n${machineLine("results")}\n`);
    process.stdout.write("  time from spawn to ready (median [min–max]) and resident memory after start-up\n");
    for (const [m, b] of [
      [bareHttp, undefined],
      [api, bareHttp],
      [bareLine, undefined],
      [worker, bareLine],
      [npmBare, undefined],
      [npmFresh, npmBare],
      [npmReused, npmBare],
    ] as const) {
      process.stdout.write(`${row(m, b)}\n`);
    }
    const firsts = api.probed.map((p) => p[0]!);
    const seconds = api.probed.map((p) => p[1]!);
    process.stdout.write(`  ${"vigil api: first derive-viewkey, 2 s after up".padEnd(44)} ${median(firsts).toFixed(0).padStart(6)} ms  [${Math.min(...firsts).toFixed(0)}–${Math.max(...firsts).toFixed(0)}]\n`);
    process.stdout.write(`  ${"baseline: the second call, warm".padEnd(44)} ${median(seconds).toFixed(0).padStart(6)} ms  [${Math.min(...seconds).toFixed(0)}–${Math.max(...seconds).toFixed(0)}]\n`);
    process.stdout.write("  targets: api and worker within 2 s of their baselines; npm start under 15 s; the first derive-viewkey call ≤ 100 ms\n");
  } finally {
    await stop(devnet);
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect().then(
      () => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => c.end()),
      () => undefined,
    );
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:startup failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
