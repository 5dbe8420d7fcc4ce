/**
 * Foundry's real `anvil` (the npm dev dependency) as a child process on a
 * free loopback port, for the real-EVM suites (test/real/). The port is found
 * by binding port 0 first; the node is ready when it answers eth_chainId.
 * `close()` kills the process by its own pid (SIGTERM, then SIGKILL); call it
 * in afterAll, it is safe when start-up failed half way.
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { bytesToHex, createPublicClient, createWalletClient, http, type Chain, type Hex, type PublicClient, type WalletClient, defineChain } from "viem";
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { ANVIL } from "./real-nodes.js";
import { freePort } from "./ports.js";

/** Anvil's own default mnemonic, passed explicitly so the accounts never depend on a default. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

export interface AnvilOptions {
  chainId: number;
  /** Block gas limit (small values let a few transfers move the base fee). */
  gasLimit?: bigint;
  /** Interval mining in seconds; absent = automine (every transaction mined at once). */
  blockTime?: number;
  /** No mining at all until evm_mine (or evm_setAutomine true). */
  noMining?: boolean;
  /** Funded accounts derived from the mnemonic (anvil's default 10). */
  accounts?: number;
}

export interface AnvilNode {
  url: string;
  /** The anvil process (a benchmark reads its CPU). */
  pid: number;
  chainId: number;
  chain: Chain;
  /** Funded accounts (10,000 ETH each), with their keys. */
  accounts: PrivateKeyAccount[];
  keys: Hex[];
  client: PublicClient;
  wallet(account: PrivateKeyAccount): WalletClient;
  /** A raw JSON-RPC call (anvil_*, evm_* and anything viem has no action for). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** What anvil printed (for failure messages). */
  output(): string;
  close(): Promise<void>;
}

export { freePort };

async function rawRpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
  return body.result as T;
}

function kill(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const hard = setTimeout(() => proc.kill("SIGKILL"), 3000);
    proc.once("exit", () => {
      clearTimeout(hard);
      resolve();
    });
    proc.kill("SIGTERM");
  });
}

export async function startAnvil(opts: AnvilOptions): Promise<AnvilNode> {
  if (!ANVIL) throw new Error("anvil is not installed (see test/helpers/real-nodes.ts)");
  const count = opts.accounts ?? 10;
  const args = ["--host", "127.0.0.1", "--chain-id", String(opts.chainId), "--mnemonic", ANVIL_MNEMONIC, "--accounts", String(count), "--silent"];
  if (opts.gasLimit !== undefined) args.push("--gas-limit", opts.gasLimit.toString());
  if (opts.blockTime !== undefined) args.push("--block-time", String(opts.blockTime));
  if (opts.noMining) args.push("--no-mining");

  // Another process may take the port between our probe and anvil's bind: try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawn(ANVIL, [...args, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout!.on("data", (d) => (out += d));
    proc.stderr!.on("data", (d) => (out += d));
    try {
      await waitReady(url, proc, () => out);
    } catch (e) {
      lastError = e;
      await kill(proc);
      continue;
    }
    const chain = defineChain({
      id: opts.chainId,
      name: `anvil ${opts.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    const keys = Array.from({ length: count }, (_, i) => bytesToHex(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!));
    const accounts = keys.map((k) => privateKeyToAccount(k));
    const transport = http(url, { retryCount: 0 });
    return {
      url,
      pid: proc.pid!,
      chainId: opts.chainId,
      chain,
      accounts,
      keys,
      // No cache: every read is the node's answer now (viem caches the block number otherwise).
      client: createPublicClient({ chain, transport, pollingInterval: 100, cacheTime: 0 }),
      wallet: (account) => createWalletClient({ account, chain, transport }),
      rpc: <T>(method: string, params: unknown[] = []) => rawRpc<T>(url, method, params),
      output: () => out,
      close: () => kill(proc),
    };
  }
  throw new Error(`anvil did not start: ${String(lastError)}`);
}

async function waitReady(url: string, proc: ChildProcess, out: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`anvil exited with ${proc.exitCode}: ${out()}`);
    try {
      await rawRpc(url, "eth_chainId", []);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`anvil did not answer at ${url} within 15 s: ${out()}`);
}
