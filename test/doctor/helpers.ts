/**
 * What the doctor tests stand on: a store the doctor opens by its own
 * configuration (a fresh PostgreSQL schema when DATABASE_URL is set, else a
 * PGlite directory), with a watch whose view key is sealed under a chosen
 * master key; real monerod and anvil processes on loopback; a filter in
 * front of a monerod that refuses chosen methods the way monerod does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/connection.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { SecretBox } from "../../src/core/secretbox.js";
import { loadConfig, type Config } from "../../src/config.js";
import { storeDataDir, tempDir } from "../helpers/app.js";
import { dropSchema } from "../helpers/db.js";

export const randomKey = (): string => randomBytes(32).toString("hex");

export interface DoctorStore {
  /** Settings that point the doctor (or a child process) at the store. */
  env: Record<string, string>;
  /** The id of the watch sealed in it, if any. */
  watchId?: string;
  drop(): Promise<void>;
}

/**
 * A store in the state asked for, closed again so the doctor can open it
 * itself (PGlite allows one opener).
 */
export async function prepareStore(opts: { migrated: boolean; sealWith?: string }): Promise<DoctorStore> {
  const url = process.env.DATABASE_URL;
  const dataDir = url ? tempDir("vigil-doctor-") : storeDataDir("vigil-doctor-");
  const schema = `doctor_${randomBytes(5).toString("hex")}`;
  const env: Record<string, string> = url ? { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: dataDir } : { DATA_DIR: dataDir };
  const h = await openDatabase({ databaseUrl: url, schema: url ? schema : undefined, dataDir, poolSize: 2 });
  let watchId: string | undefined;
  try {
    if (opts.migrated) await migrateToLatest(h.db);
    if (opts.sealWith) {
      watchId = randomUUID();
      const box = new SecretBox(opts.sealWith);
      // The columns createWatch fills that have no default; the view key sealed as watch/service.ts seals it.
      await sql`insert into watches (id, chain, network, address, view_key_enc, webhook_secret_enc, token_hash, webhook_url, credit_atomic, drained_through_ms, start_height, next_poll_at, expires_at)
        values (${watchId}, 'monero', 'mainnet', '4-test-address', ${box.seal("a".repeat(64), `viewkey:${watchId}`)}, ${box.seal("secret", `webhook:${watchId}`)}, ${Buffer.alloc(32)}, 'https://example.com/hook', 0, 0, 0, now(), now() + interval '1 day')`.execute(h.db);
    }
  } finally {
    await h.close();
  }
  return {
    env,
    watchId,
    drop: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (url) await dropSchema(url, schema);
    },
  };
}

/** A Config as `vigil doctor` would read it from this environment (no process.env involved). */
export function doctorConfig(env: Record<string, string>): Config {
  return loadConfig(env);
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function waitFor(what: string, ok: () => Promise<boolean>, proc: ChildProcess, log: () => string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}:\n${log()}`);
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not come up in time:\n${log()}`);
}

export interface Node {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

function stopper(proc: ChildProcess, dir?: string): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      const done = () => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (proc.exitCode !== null || proc.signalCode !== null) return done();
      const kill = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      proc.once("exit", () => {
        clearTimeout(kill);
        done();
      });
      proc.kill("SIGTERM");
    });
}

/** Debian's monerod on a private regtest chain (reports nettype "fakechain"). */
export async function startRegtestMonerod(bin: string, opts: { restricted?: boolean } = {}): Promise<Node> {
  const dir = tempDir("vigil-doctor-monerod-");
  const [rpc, p2p] = [await freePort(), await freePort()];
  const args = ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpc), "--p2p-bind-port", String(p2p), "--no-zmq", "--non-interactive", "--disable-rpc-ban", "--log-level", "0"];
  if (opts.restricted) args.push("--restricted-rpc");
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (d) => (out = (out + d).slice(-4000)));
  proc.stderr!.on("data", (d) => (out = (out + d).slice(-4000)));
  const url = `http://127.0.0.1:${rpc}`;
  const node = { url, proc, stop: stopper(proc, dir) };
  try {
    await waitFor("monerod", async () => (await fetch(`${url}/get_info`, { method: "POST", body: "{}" })).ok, proc, () => out);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/** Foundry's anvil as an Ethereum node with the given chain id. */
export async function startAnvil(bin: string, chainId: number): Promise<Node> {
  const port = await freePort();
  const proc = spawn(bin, ["--port", String(port), "--chain-id", String(chainId), "--silent"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stderr!.on("data", (d) => (out = (out + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const node = { url, proc, stop: stopper(proc) };
  const ask = () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) });
  try {
    await waitFor("anvil", async () => (await ask()).ok, proc, () => out);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

export interface Server {
  url: string;
  /** Requests seen, by JSON-RPC method or path. */
  seen: string[];
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

const closer = (server: http.Server) => () =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });

/**
 * In front of a real monerod: forwards every call, except that it refuses the
 * named methods exactly as monerod refuses what it does not serve: a JSON-RPC
 * method with error -32601 "Method not found" (HTTP 200), a plain endpoint
 * (`/get_transactions`) with an empty HTTP 404.
 */
export async function startRefusingProxy(target: string, refuse: string[]): Promise<Server> {
  const seen: string[] = [];
  const { server, url } = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let method = req.url ?? "";
      let id: unknown = null;
      if (req.url === "/json_rpc") {
        const parsed = JSON.parse(body) as { method: string; id: unknown };
        method = parsed.method;
        id = parsed.id;
      }
      seen.push(method);
      if (refuse.includes(method)) {
        if (req.url === "/json_rpc") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: -32601, message: "Method not found" }, id, jsonrpc: "2.0" }));
        } else res.writeHead(404, { "content-type": "text/plain" }).end();
        return;
      }
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, body: body || undefined, headers: { "content-type": "application/json" } });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  return { url, seen, close: closer(server) };
}

/** Accepts TCP connections and never answers anything: a hung upstream (HTTP, gRPC or PostgreSQL alike). */
export async function startSilentServer(): Promise<Server & { port: number }> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    seen.push("connection");
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** An x402 facilitator's /supported, listing the given kinds (the facilitator is a third party's service). */
export async function startSupportedServer(kinds: { x402Version: number; scheme: string; network: string }[]): Promise<Server> {
  const seen: string[] = [];
  const { server, url } = await listen((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === "GET" && req.url === "/supported") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kinds, extensions: [], signers: {} }));
      return;
    }
    res.writeHead(404).end();
  });
  return { url, seen, close: closer(server) };
}

const root = path.resolve(import.meta.dirname, "..", "..");

/** `vigil doctor ARGS` as an operator runs it: the real CLI in a child process (through tsx), to its exit. */
export function runCliDoctor(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; output: string }> {
  const proc = spawn(process.execPath, ["--import", "tsx", path.join(root, "src", "cli.ts"), "doctor", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let output = "";
  proc.stdout!.on("data", (d) => {
    stdout += d;
    output += d;
  });
  proc.stderr!.on("data", (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`vigil doctor did not exit in time:\n${output}`));
    }, 60_000);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, output });
    });
  });
}
