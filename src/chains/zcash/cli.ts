/**
 * `vigil zcash derive-ufvk [--account N] [--network mainnet|testnet|regtest]`:
 * reads the seed phrase from standard input and prints the viewing keys as
 * JSON, so a phrase never has to leave the user's machine.
 */
import { ServiceError } from "../../core/errors.js";
import type { CliIo } from "../../core/read-input.js";
import { deriveViewingKeys } from "./derive.js";
import { ZCASH_NETWORKS, type ZcashNetwork } from "./network.js";
import { MAX_ACCOUNT } from "./zip32.js";

export type { CliIo };

const USAGE = `usage: vigil zcash derive-ufvk [--account N] [--network mainnet|testnet|regtest]
  Reads a BIP-39 seed phrase (12 or 24 words) from standard input and prints
  the account's unified full viewing key and related keys as JSON.
  Example: vigil zcash derive-ufvk --account 0 < phrase.txt

usage: vigil zcash scan-tx < input.json
  Reads {"hex": "<raw transaction>", "ufvk": "<UFVK>", "height"?: n} and prints
  the transaction id and the notes it pays to that key.`;

const MAX_STDIN = 4096;

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    total += buf.length;
    if (total > MAX_STDIN) throw new ServiceError("input_too_large", `Standard input is larger than ${MAX_STDIN} bytes; expected one seed phrase.`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseArgs(args: string[]): { account: number; network: ZcashNetwork } | string {
  let account = 0;
  let network: ZcashNetwork = "mainnet";
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split("=", 2) as [string, string | undefined];
    const value = (): string | undefined => inline ?? args[++i];
    if (flag === "--account") {
      const v = value();
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > MAX_ACCOUNT) return `--account needs an integer 0..${MAX_ACCOUNT}`;
      account = Number(v);
    } else if (flag === "--network") {
      const v = value();
      if (!v || !(ZCASH_NETWORKS as readonly string[]).includes(v)) return `--network must be one of ${ZCASH_NETWORKS.join(", ")}`;
      network = v as ZcashNetwork;
    } else return `unknown option "${args[i]}"`;
  }
  return { account, network };
}

export async function runZcashCli(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "scan-tx") {
    const { runZcashScanTx, SCAN_TX_USAGE } = await import("./scan-tx-cli.js");
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(`${SCAN_TX_USAGE}\n`);
      return 0;
    }
    return runZcashScanTx(io);
  }
  if (sub !== "derive-ufvk") {
    io.stderr.write(`unknown zcash command "${sub}"\n\n${USAGE}\n`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const opts = parseArgs(rest);
  if (typeof opts === "string") {
    io.stderr.write(`${opts}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    if ((io.stdin as { isTTY?: boolean }).isTTY) io.stderr.write("Type or paste the seed phrase, then press Enter and Ctrl-D:\n");
    const phrase = await readStdin(io.stdin);
    const result = deriveViewingKeys({ mnemonic: phrase, account: opts.account, network: opts.network });
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof ServiceError) {
      io.stderr.write(`${JSON.stringify({ error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } })}\n`);
      return 1;
    }
    io.stderr.write(`derive-ufvk failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
