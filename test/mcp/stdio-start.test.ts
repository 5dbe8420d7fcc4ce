/**
 * `npx vigil mcp` on stdio, as a desktop agent starts it. The story: it used
 * to compile TypeScript and start a devnet of its own before answering
 * anything, 55–81 s on a busy machine, past the MCP SDK client's 60 s
 * request timeout, so the agent gave up on `initialize`. Now it answers
 * `initialize` at once either way: it relays to the service already running
 * with the same settings, or serves in-process while the app starts (tool
 * calls wait for it).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startCli, VIGIL_CLI, type ChildService } from "../helpers/process.js";
import { seedStore, storeDataDir, tempDir } from "../helpers/app.js";
import { freePort } from "../helpers/ports.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const root = path.resolve(import.meta.dirname, "..", "..");
/**
 * The bound that matters to the agent is the MCP SDK client's request
 * timeout (60 s), which the old start-up (55–81 s) ran past. Half of it
 * keeps a margin against that and still fails the old behaviour; a tighter
 * wall-clock bound (5 s) failed CI on a loaded two-core machine (7.8 s, a
 * process start under two test passes), which measures the machine, not
 * the start-up order. Whether the start is quick is bench:startup's to say.
 */
const SDK_REQUEST_TIMEOUT_MS = 60_000;
const INITIALIZE_WITHIN_MS = SDK_REQUEST_TIMEOUT_MS / 2;


/** Starts `vigil mcp` with the official client; returns the client, its stderr and how long initialize took. */
async function connectStdio(env: Record<string, string>): Promise<{ client: Client; initializeMs: number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...VIGIL_CLI, "mcp"],
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d) => (err += d));
  const client = new Client({ name: "vigil-stdio-start", version: "1.0.0" });
  const t0 = performance.now();
  await client.connect(transport, { timeout: 60_000 });
  return { client, initializeMs: performance.now() - t0, stderr: () => err };
}

describe("vigil mcp on stdio answers initialize well inside the SDK client's timeout", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it("with nothing running: serves in-process on its own devnet, tool calls wait for the app", async () => {
    const dataDir = storeDataDir("vigil-mcp-cold-");
    const db: TestDatabase = await openTestDatabase();
    cleanups.push(() => db.close());
    const { client, initializeMs, stderr } = await connectStdio({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      LOG_LEVEL: "info",
      DEVNET_STATE_FILE: path.join(dataDir, "state.json"),
      ...db.env,
    });
    // The data directory goes only after the client has closed (and so ended) the
    // process: removing it under a running PGlite fails with ENOTEMPTY.
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));
    cleanups.push(() => client.close());
    expect(initializeMs, stderr()).toBeLessThan(INITIALIZE_WITHIN_MS);
    expect(client.getServerVersion()).toMatchObject({ name: "vigil" });
    // The first tool call waits for the app (and its devnet), then answers from it.
    const health = (await client.callTool({ name: "service_health", arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(health.isError, JSON.stringify(health)).toBeFalsy();
    expect(health.structuredContent).toMatchObject({ devnet: true, sources: { monerod: "simulated" } });
    expect(stderr()).not.toMatch(/relaying to the running service/);
  });

  it("with a service running on its address: relays to it (no devnet of its own)", async () => {
    const dataDir = tempDir("vigil-mcp-join-");
    const port = await freePort();
    const stateFile = path.join(dataDir, "state.json");
    const svc: ChildService = await startCli(["serve"], { DATA_DIR: seedStore(path.join(dataDir, "svc")), PORT: String(port), DEVNET_STATE_FILE: stateFile }, { timeoutMs: 120_000 });
    cleanups.push(() => svc.stop());
    const { client, initializeMs, stderr } = await connectStdio({ DATA_DIR: path.join(dataDir, "mcp"), PORT: String(port), LOG_LEVEL: "info", DEVNET_STATE_FILE: stateFile });
    cleanups.push(() => client.close());
    expect(initializeMs, stderr()).toBeLessThan(INITIALIZE_WITHIN_MS);
    expect(stderr()).toMatch(/relaying to the running service/);
    // The relayed answer is the running service's: its uptime started before this client did.
    const health = (await client.callTool({ name: "service_health", arguments: {} })) as CallToolResult;
    expect(health.isError, JSON.stringify(health)).toBeFalsy();
    const direct = (await (await fetch(`${svc.url}/v1/health`)).json()) as { uptime_s: number; version: string };
    expect(health.structuredContent).toMatchObject({ devnet: true, version: direct.version });
    // No second database was made for the relay: it opened nothing under its DATA_DIR.
    expect(fs.existsSync(path.join(dataDir, "mcp", "pglite"))).toBe(false);
  });

  it("with a devnet running (vigil devnet) and no service: serves in-process on that devnet, starting none of its own", async () => {
    const dataDir = tempDir("vigil-mcp-devnet-");
    const stateFile = path.join(dataDir, "state.json");
    const devnet: ChildService = await startCli(["devnet"], { DATA_DIR: path.join(dataDir, "devnet"), DEVNET_STATE_FILE: stateFile }, { waitFor: /Recorded in (\S+):/, timeoutMs: 120_000 });
    cleanups.push(() => devnet.stop());
    const db: TestDatabase = await openTestDatabase();
    cleanups.push(() => db.close());
    const { client, initializeMs, stderr } = await connectStdio({
      DATA_DIR: seedStore(path.join(dataDir, "mcp")),
      PORT: String(await freePort()),
      LOG_LEVEL: "info",
      DEVNET_STATE_FILE: stateFile,
      ...db.env,
    });
    cleanups.push(() => client.close());
    expect(initializeMs, stderr()).toBeLessThan(INITIALIZE_WITHIN_MS);
    const health = (await client.callTool({ name: "service_health", arguments: {} }, undefined, { timeout: 120_000 })) as CallToolResult;
    expect(health.isError, JSON.stringify(health)).toBeFalsy();
    expect(health.structuredContent).toMatchObject({ devnet: true, sources: { monerod: "simulated" } });
    expect(stderr()).toMatch(/serving in-process on the running devnet/);
    // The devnet's simulators are the running devnet's: this process started none (their start-up lines name them).
    expect(stderr()).not.toMatch(/devnet monerod listening/);
    expect(stderr()).not.toMatch(/relaying to the running service/);
    // The same chain as the devnet process: the height answered over MCP is its monerod's (get_info on the recorded URL).
    const recorded = JSON.parse(fs.readFileSync(stateFile, "utf8")) as { configOverlay: { MONERO_DAEMON_URL: string } };
    const info = (await (
      await fetch(`${recorded.configOverlay.MONERO_DAEMON_URL}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: "0", method: "get_info" }) })
    ).json()) as { result: { height: number } };
    const q = (await client.callTool({ name: "service_q", arguments: { question: "xmr/height" } })) as CallToolResult;
    expect(q.isError, JSON.stringify(q)).toBeFalsy();
    expect(Math.abs(Number((q.structuredContent as { height: number }).height) - info.result.height)).toBeLessThanOrEqual(1);
  });
});
