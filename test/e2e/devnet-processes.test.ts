/**
 * The production shape on a laptop: `vigil devnet` runs the simulated chains
 * as their own process; `vigil api` and `vigil worker` (separate processes,
 * one PostgreSQL) join it instead of starting chains of their own; the devnet
 * helpers find it from another directory and another DATA_DIR. A watch
 * created through the API gets its webhooks from the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { devnetPayerKey } from "../../devnet/index.js";
import { createPayer } from "../../src/x402/payer.js";
import { tempDir } from "../helpers/app.js";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";

const root = path.resolve(import.meta.dirname, "..", "..");
/** The CLI as a user runs it, from a directory that is not the repository. */
const vigil = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [path.join(root, "bin", "vigil.mjs"), ...args], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "warn", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("api and worker in devnet mode refuse to start without a running devnet", () => {
  it("names the missing devnet and how to start one", () => {
    for (const role of ["api", "worker"]) {
      const r = vigil([role], { DATA_DIR: tempDir(), PORT: "0", DEVNET_STATE_FILE: path.join(tempDir(), "none.json") });
      expect(r.status, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain("no running devnet was found");
      expect(r.stderr).toContain("npx vigil devnet");
    }
  });
});

describe.skipIf(!usingPostgres)("devnet, api and worker as three processes on one PostgreSQL", () => {
  let db: TestDatabase;
  let receiver: Receiver;
  const children: ChildService[] = [];
  const stateFile = path.join(tempDir("vigil-state-"), "devnet.json");
  let api: ChildService;
  let worker: ChildService;

  beforeAll(async () => {
    db = await openTestDatabase();
    receiver = await startReceiver({ https: false });
    const devnet = await startCli(["devnet"], { DATA_DIR: tempDir(), DEVNET_BLOCK_SECONDS: "1", DEVNET_STATE_FILE: stateFile }, { waitFor: /Recorded in (\S+):/, timeoutMs: 90_000 });
    children.push(devnet);
    expect(devnet.url).toBe(stateFile);
    // Each process has its own DATA_DIR: they share the devnet through the state file, and storage through PostgreSQL.
    api = await startCli(["api"], { ...db.env, DATA_DIR: tempDir(), PORT: "0", DEVNET_STATE_FILE: stateFile }, { timeoutMs: 90_000 });
    children.push(api);
    worker = await startCli(["worker"], { ...db.env, DATA_DIR: tempDir(), DEVNET_STATE_FILE: stateFile, WATCH_POLL_SECONDS: "2" }, {
      waitFor: /(Vigil worker)/,
      timeoutMs: 90_000,
    });
    children.push(worker);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(children.reverse().map((c) => c.stop()));
    await receiver?.close();
    await db?.close();
  });

  it("the api and the worker joined the running devnet instead of starting their own", () => {
    for (const c of [api, worker]) {
      expect(c.output()).toContain("DEVNET MODE");
      expect(c.output()).toContain(`joined the running devnet`);
      expect(c.output()).toContain(stateFile);
    }
  });

  it("the helpers find it from another directory and DATA_DIR; a watch created through the api gets its webhooks from the worker", async () => {
    const env = { DATA_DIR: tempDir(), DEVNET_STATE_FILE: stateFile };
    const wallets = vigil(["devnet", "wallets", "--json"], env);
    expect(wallets.status, wallets.stderr).toBe(0);
    const alice = (JSON.parse(wallets.stdout) as { label: string; address: string; viewKey: string }[]).find((w) => w.label === "alice")!;
    expect(alice.address).toMatch(/^[9A]/);

    const payer = createPayer(devnetPayerKey(0), { networks: ["eip155:84532"] });
    const res = await payer.payFetch(`${api.url}/v1/private/watch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: receiver.hookUrl("/procs") }),
    });
    const created = (await res.json()) as { watchId: string; webhookSecret: string };
    expect(res.status, JSON.stringify(created)).toBe(200);
    receiver.registerSecret(created.watchId, created.webhookSecret);

    const first = await until("the first webhook", () => receiver.attempts.find((a) => a.watchId === created.watchId && a.status === 200));
    expect(first.signatureValid).toBe(true);
    expect(first.event).toBe("scan_complete");

    const sent = vigil(["devnet", "send", "monero", alice.address, "0.25"], env);
    expect(sent.status, sent.stderr).toBe(0);
    const mined = vigil(["devnet", "mine", "3"], env);
    expect(mined.status, mined.stderr).toBe(0);
    const change = await until("a balance_change webhook", () =>
      receiver.attempts.find((a) => a.watchId === created.watchId && a.event === "balance_change" && a.status === 200),
    );
    expect(change.signatureValid).toBe(true);
    // Only the worker polls: the api process runs no background jobs.
    expect(api.output()).not.toContain("Vigil serve");
  }, 150_000);
});
