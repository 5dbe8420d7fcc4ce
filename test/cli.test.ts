import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { storeDataDir, tempDir } from "./helpers/app.js";
import { openTestDatabase } from "./helpers/db.js";
import { startCli } from "./helpers/process.js";
import { relaxedWebhookWarning } from "../src/banner.js";

const root = path.resolve(import.meta.dirname, "..");
const vigil = (args: string[], env: Record<string, string> = {}, input?: string) =>
  spawnSync(process.execPath, [path.join(root, "bin", "vigil.mjs"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    input,
    encoding: "utf8",
    timeout: 60_000,
  });

describe("the vigil CLI", () => {
  it("prints usage for no command and refuses unknown ones", () => {
    const r = vigil([]);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/serve .*\n.*api/s);
    const u = vigil(["frobnicate"]);
    expect(u.status).toBe(2);
    expect(u.stderr).toContain('unknown command "frobnicate"');
  });

  it("the usage lists every command the CLI and its devnet helpers answer to", () => {
    const usage = vigil([]).stdout;
    const commands = (file: string) => [...fs.readFileSync(path.join(root, file), "utf8").matchAll(/case "([a-z-]+)":/g)].map((m) => m[1]!);
    const top = commands("src/cli.ts").filter((c) => c !== "help" && !c.startsWith("-"));
    expect(top.length).toBeGreaterThan(5);
    for (const c of top) expect(usage, `vigil ${c}`).toMatch(new RegExp(`^  ${c}\\b`, "m"));
    for (const c of commands("devnet/cli.ts")) expect(usage, `vigil devnet ${c}`).toMatch(new RegExp(`^  devnet ${c}\\b`, "m"));
  });

  it("stops on a bad setting with a message naming the variable", () => {
    const r = vigil(["migrate"], { PORT: "not-a-port", DATA_DIR: tempDir() });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/PORT/);
  });

  it("migrate applies the migrations once, then reports the database up to date", async () => {
    const db = await openTestDatabase(); // already migrated: a fresh schema/dir shows the first run below
    await db.close();
    const env: Record<string, string> = process.env.DATABASE_URL
      ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: `t_cli_${process.pid}_${Date.now()}`, DEVNET: "off" }
      : { DATA_DIR: storeDataDir(), DEVNET: "off" };
    const first = vigil(["migrate"], env);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/applied: 0001_foundation, 0002_watch/);
    const second = vigil(["migrate"], env);
    expect(second.stdout).toMatch(/up to date/);
    if (process.env.DATABASE_URL) {
      const pg = (await import("pg")).default;
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${env.DATABASE_SCHEMA}" CASCADE`);
      await c.end();
    }
  });

  it("serve starts the devnet, says so in its banner, pays a route with `vigil pay`, lists wallets, and stops on SIGTERM", async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir, PORT: "0", DEVNET_BLOCK_SECONDS: "1", LOG_LEVEL: "warn" };
    const svc = await startCli(["serve"], env, { timeoutMs: 90_000 });
    try {
      expect(svc.output()).toContain("DEVNET MODE");
      expect(svc.output()).toContain("PGlite");
      // The bundled CLI (dist/bundle) reads files beside its sources' compiled modules: the pay page
      // (web/pay), the migrations (run at start) and lightwalletd's .proto (the devnet's gRPC server
      // loads it to start, and the Zcash watch scans through it).
      const page = await fetch(`${svc.url}/pay/`);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toContain(`<meta name="vigil-api" content="${svc.url}">`);
      const health = (await (await fetch(`${svc.url}/v1/health`)).json()) as { upstreams: Record<string, { available: boolean }> };
      expect(health.upstreams.zcash).toMatchObject({ available: true });
      // A repeated caller ends up on vouchers: twice exact, then a deposit into a channel, then vouchers (its channel kept in files).
      const payerEnv = { DATA_DIR: dataDir, VIGIL_PAYER_STATE_DIR: path.join(dataDir, "payer") };
      const receipts = [/settled in 0x[0-9a-f]{64}/, /settled in 0x[0-9a-f]{64}/, /deposit into channel 0x[0-9a-f]{64} in 0x[0-9a-f]{64}, charged \$0\.001/, /voucher on channel 0x[0-9a-f]{64}, charged \$0\.001, \$0\.002 on the channel so far/];
      for (const receipt of receipts) {
        const pay = vigil(["pay", "GET", `${svc.url}/v1/q/xmr/height`], payerEnv);
        expect(pay.status, pay.stderr).toBe(0);
        expect(pay.stderr).toMatch(receipt);
        expect(JSON.parse(pay.stdout)).toMatchObject({ network: "testnet", as_of_ms: expect.any(Number) });
      }
      const wallets = vigil(["devnet", "wallets", "--json"], { DATA_DIR: dataDir });
      expect(wallets.status, wallets.stderr).toBe(0);
      const list = JSON.parse(wallets.stdout) as { chain: string; address: string; viewKey: string }[];
      expect(list.length).toBeGreaterThan(0);
      expect(list[0]).toMatchObject({ chain: "monero", address: expect.stringMatching(/^[9A][1-9A-HJ-NP-Za-km-z]{94}$/), viewKey: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const sent = vigil(["devnet", "send", "monero", list[0].address, "0.5"], { DATA_DIR: dataDir });
      expect(sent.status, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ amount_piconero: "500000000000" });
    } finally {
      await svc.stop();
    }
    expect(svc.proc.exitCode).toBe(0);
    expect(svc.output()).toContain("shutting down");
  }, 120_000);

  it("the devnet helpers need no payment settings: PAY_TO for a production API beside them does not stop `devnet wallets`", () => {
    // Before: "CDP_API_KEY_ID, CDP_API_KEY_SECRET: both required" and exit 2, though listing wallets pays nothing.
    const dataDir = tempDir("vigil-wallets-");
    const r = vigil(["devnet", "wallets"], { DATA_DIR: dataDir, PAY_TO: "0x1111111111111111111111111111111111111111", DEVNET_STATE_FILE: path.join(dataDir, "state.json") });
    expect(r.stderr).not.toMatch(/CDP_API_KEY/);
    // No devnet has run under this DATA_DIR yet: the helper's own answer, not a configuration error.
    expect(r.stderr).toMatch(/no devnet wallets yet/);
    expect(r.status).toBe(1);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("names each relaxed webhook switch in its warning, and only when one is on", () => {
    const cases = [{ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: false }, { WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: true }, { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true }];
    for (const c of cases) {
      for (const devnet of [false, true]) {
        const text = relaxedWebhookWarning({ ...c, devnet }).join("\n");
        expect(text).toContain("WARNING: webhook URL checks are relaxed");
        for (const [name, on] of Object.entries(c)) expect(new RegExp(`relaxed \\([^)]*${name}`).test(text), name).toBe(on);
        expect(text.includes("This is NOT the devnet")).toBe(!devnet);
      }
    }
    expect(relaxedWebhookWarning({ WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: false, devnet: false })).toEqual([]);
  });

  it("warns loudly at start-up when WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE are on, first of all outside the devnet", async () => {
    // A started process shows the warning (each switch's wording is the unit test above); one without the switches does not.
    const dataDir = storeDataDir(); // shared: the second start finds the database made by the first
    const banner = async (env: Record<string, string>) => {
      const svc = await startCli(["api"], { DATA_DIR: dataDir, PORT: "0", DEVNET: "off", ...env }, { timeoutMs: 60_000, waitFor: /listening on (http:\/\/\S+)[\s\S]*payments/ });
      await svc.stop();
      return svc.output();
    };
    const out = await banner({ WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1" });
    const warning = out.indexOf("WARNING: webhook URL checks are relaxed");
    expect(warning, out).toBeGreaterThanOrEqual(0);
    // Before the banner's first line, framed, and naming each switch that is on.
    expect(warning, out).toBeLessThan(out.indexOf("Vigil api listening"));
    expect(out).toMatch(/!{10,}\n! WARNING/);
    expect(out).toContain("This is NOT the devnet");
    expect(out).toMatch(/relaxed \(WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE on\)/);
    expect(await banner({})).not.toContain("WARNING");
  }, 120_000);
});
