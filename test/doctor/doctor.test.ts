/**
 * `vigil doctor` against the devnet's simulated upstreams (zebrad,
 * lightwalletd, the Ethereum L1, the x402 EVM chain, the relays), a store in
 * each state that matters (migrated, unmigrated, a view key sealed under
 * another master key), and upstreams that misbehave (a wrong network, a
 * facilitator that does not settle the configured network, one that never
 * answers). The Monero node is tested against a real monerod in
 * real-monerod.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { checkDatabase, checkMasterKey } from "../../src/doctor/database.js";
import { checkLightwalletd, checkZebrad } from "../../src/doctor/zcash.js";
import { checkEthereumNode, checkRelay, relayEndpoints } from "../../src/doctor/ethereum.js";
import { checkFacilitator, checkPayTo } from "../../src/doctor/payments.js";
import { checkDevnet, checkMetrics, checkWebhookSwitches } from "../../src/doctor/settings.js";
import { formatReport, runDoctor, type CheckResult } from "../../src/doctor/index.js";
import type { Config } from "../../src/config.js";
import { tempDir } from "../helpers/app.js";
import { doctorConfig, prepareStore, randomKey, runCliDoctor, startSilentServer, startSupportedServer, type DoctorStore } from "./helpers.js";
import { privateKeyToAccount } from "viem/accounts";

const PAY_TO = "0x2222222222222222222222222222222222222222";
/** Settings of a non-devnet configuration with nothing else configured. */
const BASE = { DEVNET: "off", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9", LOG_LEVEL: "warn" };

const ctx = (config: Config, timeoutMs = 5_000) => ({ config, signal: AbortSignal.timeout(timeoutMs), timeoutMs });
const byName = (checks: CheckResult[], name: string): CheckResult => {
  const c = checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check named ${name} in ${checks.map((x) => x.name).join(", ")}`);
  return c;
};

describe("database and master key", () => {
  const stores: DoctorStore[] = [];
  afterAll(async () => {
    for (const s of stores) await s.drop();
  });
  const store = async (opts: Parameters<typeof prepareStore>[0]) => {
    const s = await prepareStore(opts);
    stores.push(s);
    return s;
  };
  const open = (c: Config) => openDatabase({ databaseUrl: c.DATABASE_URL, schema: c.DATABASE_SCHEMA, dataDir: c.dataDir, poolSize: 2 });

  it("passes a migrated store whose sealed view key the master key opens", async () => {
    const key = randomKey();
    const s = await store({ migrated: true, sealWith: key });
    const config = doctorConfig({ ...BASE, ...s.env, MASTER_KEY: key });
    const h = open(config);
    try {
      const db = await checkDatabase(ctx(config), h);
      expect(db.ok, db.detail).toBe(true);
      expect(db.detail).toMatch(/reachable, \d+ migrations applied$/);
      const mk = await checkMasterKey(ctx(config), h);
      expect(mk).toMatchObject({ ok: true, detail: "MASTER_KEY opens a watch's view key stored in the database" });
    } finally {
      await (await h).close();
    }
  });

  it("fails an unmigrated store, naming the pending migrations and `vigil migrate`", async () => {
    const s = await store({ migrated: false });
    const config = doctorConfig({ ...BASE, ...s.env, MASTER_KEY: randomKey() });
    const h = open(config);
    try {
      const db = await checkDatabase(ctx(config), h);
      expect(db.ok).toBe(false);
      expect(db.detail).toMatch(/reachable, 0 migrations applied, \d+ pending \(0001_foundation, /);
      expect(db.fix).toContain("vigil migrate");
      // Nothing can be sealed in a store without tables: the key check passes and says so.
      const mk = await checkMasterKey(ctx(config), h);
      expect(mk).toMatchObject({ ok: true, detail: expect.stringContaining("no sealed value stored yet") });
    } finally {
      await (await h).close();
    }
  });

  it("fails a MASTER_KEY that does not open the view key sealed under another key, and a missing one", async () => {
    const s = await store({ migrated: true, sealWith: randomKey() });
    const wrong = doctorConfig({ ...BASE, ...s.env, MASTER_KEY: randomKey() });
    const h = open(wrong);
    try {
      const mk = await checkMasterKey(ctx(wrong), h);
      expect(mk.ok).toBe(false);
      expect(mk.detail).toBe(`MASTER_KEY does not open a watch's view key stored in the database (row ${s.watchId})`);
      expect(mk.fix).toMatch(/key the stored secrets were sealed with/);
      const missing = await checkMasterKey(ctx(doctorConfig({ ...BASE, ...s.env })), h);
      expect(missing).toMatchObject({ ok: false, detail: expect.stringContaining("MASTER_KEY not set, but the database holds sealed secrets") });
    } finally {
      await (await h).close();
    }
  });

  it("runDoctor reports an unreachable PostgreSQL as a failed database line without credentials", async () => {
    const config = doctorConfig({ ...BASE, DATA_DIR: tempDir(), DATABASE_URL: "postgres://vigil:s3cretpass@127.0.0.1:9/vigil", MASTER_KEY: randomKey() });
    const report = await runDoctor(config, { timeoutMs: 3_000 });
    const db = byName(report.checks, "database");
    expect(db.ok).toBe(false);
    expect(db.detail).toContain("PostgreSQL postgres://127.0.0.1:9/… unreachable");
    expect(JSON.stringify(report)).not.toContain("s3cretpass");
    expect(byName(report.checks, "master-key")).toMatchObject({ ok: true, warn: true });
  });
});

describe("upstreams on the devnet's simulators", () => {
  let devnet: SimulatedDevnet;
  const dirs: string[] = [];
  beforeAll(async () => {
    const dir = tempDir("vigil-doctor-devnet-");
    dirs.push(dir);
    devnet = await startDevnet({ dataDir: dir, blockSeconds: 0, zcashInitialBlocks: 20 });
  });
  afterAll(async () => {
    await devnet?.close();
  });
  const zcash = (network: string) => doctorConfig({ ...BASE, ZEBRAD_URL: devnet.configOverlay.ZEBRAD_URL, LIGHTWALLETD_URL: devnet.configOverlay.LIGHTWALLETD_URL, ZCASH_NETWORK: network });

  it("passes zebrad and lightwalletd on the network they serve", async () => {
    const config = zcash("testnet");
    const z = await checkZebrad(ctx(config));
    expect(z.ok, z.detail).toBe(true);
    expect(z.detail).toMatch(/testnet \(chain "test"\), block \d+, synced, 5 RPC methods served$/);
    const l = await checkLightwalletd(ctx(config));
    expect(l.ok, l.detail).toBe(true);
    expect(l.detail).toMatch(/testnet \(chain "test"\), block \d+/);
  });

  it("fails ZCASH_NETWORK=mainnet against the devnet's testnet zebrad and lightwalletd, with the fix", async () => {
    const config = zcash("mainnet");
    const z = await checkZebrad(ctx(config));
    expect(z.ok).toBe(false);
    expect(z.detail).toContain('network testnet (chain "test"), ZCASH_NETWORK=mainnet');
    expect(z.fix).toBe("point ZEBRAD_URL at a mainnet node, or set ZCASH_NETWORK=testnet if testnet is what you serve");
    const l = await checkLightwalletd(ctx(config));
    expect(l.ok).toBe(false);
    expect(l.detail).toContain('network testnet (chain "test"), ZCASH_NETWORK=mainnet');
  });

  it("fails an ETH_RPC_URL that serves a development chain instead of mainnet", async () => {
    const config = doctorConfig({ ...BASE, ETH_RPC_URL: devnet.configOverlay.ETH_RPC_URL });
    const r = await checkEthereumNode(ctx(config), "ethereum", devnet.configOverlay.ETH_RPC_URL);
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/^chain 1337 \(development chain\), expected 1 \(Ethereum mainnet\)/);
  });

  it("passes the relays' data APIs", async () => {
    const config = doctorConfig({ ...BASE, RELAY_URLS: devnet.configOverlay.RELAY_URLS });
    const endpoints = relayEndpoints(config);
    expect(endpoints.length).toBeGreaterThan(0);
    for (const e of endpoints) {
      const r = await checkRelay(ctx(config), e);
      expect(r.ok, r.detail).toBe(true);
    }
  });

  describe("the facilitator", () => {
    const local = (extra: Record<string, string>) =>
      doctorConfig({ ...BASE, FACILITATOR_MODE: "local", EVM_RPC_URL: devnet.configOverlay.EVM_RPC_URL, FACILITATOR_PRIVATE_KEY: devnet.facilitatorKey, X402_NETWORK: "eip155:84532", PAY_TO, ...extra });

    it("local: passes the EVM chain of X402_NETWORK with a funded gas key", async () => {
      const r = await checkFacilitator(ctx(local({})));
      expect(r.ok, r.detail).toBe(true);
      expect(r.detail).toMatch(/^local, settles eip155:84532 through EVM_RPC_URL http:\/\/127\.0\.0\.1:\d+ chain 84532, gas key 0x[0-9a-fA-F]{40} holds [\d.]+ ETH$/);
    });

    it("local with several gas keys: each key's balance", async () => {
      const second = "0x" + "42".repeat(32);
      const r = await checkFacilitator(ctx(local({ FACILITATOR_PRIVATE_KEY: `${devnet.facilitatorKey},${second}` })));
      expect(r.ok, r.detail).toBe(true);
      expect(r.detail.match(/gas key 0x[0-9a-fA-F]{40} holds [\d.]+ ETH/g)).toHaveLength(2);
      expect(r.detail).toContain(privateKeyToAccount(second as `0x${string}`).address);
    });

    it("local: fails a node of another chain than X402_NETWORK (a gas key without ETH: real-nodes.test.ts, the devnet funds every address)", async () => {
      const other = await checkFacilitator(ctx(local({ X402_NETWORK: "eip155:8453" })));
      expect(other.ok).toBe(false);
      expect(other.detail).toMatch(/^local, settles eip155:8453 through chain 84532, X402_NETWORK=eip155:8453 needs chain 8453 \(EVM_RPC_URL /);
      expect(other.fix).toContain("point EVM_RPC_URL at a Base node");
    });

    it("http: passes when /supported lists exact on X402_NETWORK, fails with what it lists otherwise", async () => {
      const fac = await startSupportedServer([{ x402Version: 2, scheme: "exact", network: "eip155:8453" }]);
      try {
        const good = await checkFacilitator(ctx(doctorConfig({ ...BASE, FACILITATOR_URL: fac.url, X402_NETWORK: "eip155:8453", PAY_TO })));
        expect(good).toMatchObject({ ok: true, detail: `http ${fac.url} supports x402 v2 exact on eip155:8453` });
        const bad = await checkFacilitator(ctx(doctorConfig({ ...BASE, FACILITATOR_URL: fac.url, X402_NETWORK: "eip155:84532", PAY_TO })));
        expect(bad.ok).toBe(false);
        expect(bad.detail).toBe(`http ${fac.url} does not support x402 v2 exact on eip155:84532 (it lists: v2 exact on eip155:8453)`);
        expect(fac.seen).toEqual(["GET /supported", "GET /supported"]);
      } finally {
        await fac.close();
      }
    });
  });

  it("a hung upstream (here monerod and PostgreSQL) costs one failed line each at its deadline, not the run", async () => {
    const silent = await startSilentServer();
    try {
      const config = doctorConfig({
        ...BASE,
        DATA_DIR: tempDir(),
        DATABASE_URL: `postgres://vigil@127.0.0.1:${silent.port}/vigil`,
        MONERO_DAEMON_URL: silent.url,
        ZEBRAD_URL: devnet.configOverlay.ZEBRAD_URL,
        ZCASH_NETWORK: "testnet",
      });
      const started = Date.now();
      const report = await runDoctor(config, { timeoutMs: 1_500 });
      // Concurrent checks: about one deadline (plus the wait for the store to close), not one per hung upstream.
      expect(Date.now() - started).toBeLessThan(4_500);
      for (const name of ["monerod", "database"]) {
        const c = byName(report.checks, name);
        expect(c.ok, name).toBe(false);
        expect(c.detail).toMatch(/no answer within 1\.5 s|timed out/);
      }
      expect(byName(report.checks, "zebrad").ok).toBe(true);
      expect(silent.seen.length).toBeGreaterThanOrEqual(2);
    } finally {
      await silent.close();
    }
  });

  it("the CLI end to end: one line per check, exit 1 on a failure, --json for machines, no secret printed", async () => {
    const key = randomKey();
    const s = await prepareStore({ migrated: true, sealWith: key });
    try {
      const env = {
        ...BASE,
        ...s.env,
        MASTER_KEY: key,
        ZEBRAD_URL: devnet.configOverlay.ZEBRAD_URL,
        LIGHTWALLETD_URL: devnet.configOverlay.LIGHTWALLETD_URL,
        ZCASH_NETWORK: "mainnet",
        // Credentials and an API key in URLs: never printed.
        MONERO_DAEMON_URL: "http://watcher:hunter2pw@127.0.0.1:9",
        ETH_RPC_URL: `${devnet.configOverlay.ETH_RPC_URL}/v3/apikey0123456789`,
        FACILITATOR_MODE: "local",
        EVM_RPC_URL: devnet.configOverlay.EVM_RPC_URL,
        FACILITATOR_PRIVATE_KEY: devnet.facilitatorKey,
        X402_NETWORK: "eip155:84532",
        PAY_TO,
      };
      const text = await runCliDoctor(["--timeout", "4"], env);
      expect(text.code, text.output).toBe(1);
      const lines = text.stdout.trim().split("\n");
      expect(lines[0]).toBe("vigil doctor: checking the configuration");
      for (const l of lines.slice(1, -1)) expect(l).toMatch(/^(PASS|WARN|FAIL) [a-z0-9:. -]+? {2}\S/);
      expect(text.stdout).toMatch(/^PASS database {2}PGlite under .* reachable, \d+ migrations applied$|^PASS database {2}PostgreSQL .* reachable, \d+ migrations applied$/m);
      expect(text.stdout).toMatch(/^PASS master-key {2}MASTER_KEY opens a watch's view key stored in the database$/m);
      expect(text.stdout).toMatch(/^FAIL zebrad {2}network testnet \(chain "test"\), ZCASH_NETWORK=mainnet \(http:\/\/127\.0\.0\.1:\d+\) — fix: point ZEBRAD_URL at a mainnet node/m);
      expect(text.stdout).toMatch(/^FAIL monerod {2}http:\/\/127\.0\.0\.1:9 unreachable: /m);
      expect(text.stdout).toMatch(/^FAIL ethereum {2}chain 1337 \(development chain\), expected 1 \(Ethereum mainnet\) \(http:\/\/127\.0\.0\.1:\d+\/… chain 1337, block \d+\)/m);
      expect(text.stdout).toMatch(/^PASS facilitator {2}local, settles eip155:84532/m);
      expect(text.stdout).toMatch(/^PASS pay-to {2}0x2222/m);
      expect(lines.at(-1)).toMatch(/^\d+ of \d+ checks failed.*: not ready to go live$/);
      for (const secret of [key, "hunter2pw", "watcher", "apikey0123456789", devnet.facilitatorKey.slice(2)]) expect(text.output).not.toContain(secret);

      const json = await runCliDoctor(["--json", "--timeout", "4"], env);
      expect(json.code).toBe(1);
      const report = JSON.parse(json.stdout) as { ok: boolean; devnet: boolean; checks: CheckResult[] };
      expect(report.ok).toBe(false);
      expect(report.devnet).toBe(false);
      expect(report.checks.map((c) => c.name)).toEqual(["devnet", "database", "master-key", "monerod", "zebrad", "lightwalletd", "ethereum", "relays", "private-builders", "facilitator", "batch-settlement", "pay-to", "webhooks", "metrics"]);
      expect(byName(report.checks, "zebrad")).toMatchObject({ ok: false, fix: expect.stringContaining("ZCASH_NETWORK=testnet") });
      for (const secret of [key, "hunter2pw", "apikey0123456789"]) expect(json.output).not.toContain(secret);
    } finally {
      await s.drop();
    }
  }, 90_000);
});

describe("settings", () => {
  const cfg = (env: Record<string, string>) => ({ config: doctorConfig({ ...BASE, ...env }) });

  it("fails the webhook development switches outside the devnet, passes them in it", () => {
    expect(checkWebhookSwitches(cfg({}))).toMatchObject({ ok: true, detail: "https only, private and loopback addresses refused" });
    const on = checkWebhookSwitches(cfg({ WEBHOOK_ALLOW_PRIVATE: "1" }));
    expect(on.ok).toBe(false);
    expect(on.detail).toMatch(/^WEBHOOK_ALLOW_PRIVATE on outside development: .*SSRF/);
    expect(on.fix).toBe("unset WEBHOOK_ALLOW_PRIVATE (they are for development only)");
    expect(checkWebhookSwitches({ config: doctorConfig({ DEVNET: "on" }) })).toMatchObject({ ok: true, detail: expect.stringContaining("devnet mode default") });
  });

  it("metrics: token anywhere or loopback pass, a private address warns, a public or wildcard one fails", () => {
    expect(checkMetrics(cfg({}))).toMatchObject({ ok: true, detail: "not served (no METRICS_TOKEN, no METRICS_PORT)" });
    const loopback = checkMetrics(cfg({ METRICS_PORT: "9464" }));
    expect(loopback).toMatchObject({ ok: true, detail: "metrics port on loopback 127.0.0.1:9464, no token" });
    expect(loopback.warn).toBeUndefined();
    expect(checkMetrics(cfg({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: "t".repeat(32) }))).toMatchObject({ ok: true });
    expect(checkMetrics(cfg({ METRICS_PORT: "9464", METRICS_HOST: "10.1.2.3" }))).toMatchObject({ ok: true, warn: true });
    const open = checkMetrics(cfg({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }));
    expect(open).toMatchObject({ ok: false, detail: "metrics port 0.0.0.0:9464 is open to any network without a token (METRICS_HOST 0.0.0.0)" });
    expect(checkMetrics(cfg({ METRICS_PORT: "9464", METRICS_HOST: "203.0.113.7" })).ok).toBe(false);
  });

  it("PAY_TO and devnet mode", () => {
    expect(checkPayTo(cfg({}))).toMatchObject({ ok: false, detail: "PAY_TO not set: paid routes cannot ask for payment" });
    expect(checkPayTo(cfg({ PAY_TO }))).toMatchObject({ ok: true, detail: `${PAY_TO} receives USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 on Base (eip155:8453)` });
    expect(checkDevnet(cfg({}))).toMatchObject({ ok: true, detail: "off (DEVNET=off)" });
    const dev = checkDevnet({ config: doctorConfig({ DEVNET: "auto" }) });
    expect(dev.ok).toBe(false);
    expect(dev.detail).toMatch(/^devnet mode \(DEVNET=auto and no upstream or PAY_TO configured\): not production/);
  });

  it("says it checks the devnet configuration in devnet mode", async () => {
    const report = await runDoctor(doctorConfig({ DEVNET: "on", DATA_DIR: tempDir() }), { timeoutMs: 3_000, openDb: () => openDatabase({ dataDir: "memory://" }) });
    expect(report.devnet).toBe(true);
    expect(formatReport(report).split("\n")[0]).toBe("vigil doctor: checking the devnet configuration (the devnet is not production; no running devnet is joined)");
    expect(byName(report.checks, "facilitator")).toMatchObject({ ok: true, warn: true });
    expect(report.ok).toBe(false);
  });
});
