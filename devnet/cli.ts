/**
 * `vigil devnet …`: run the simulated upstreams alone, list their wallets,
 * send devnet coins, mine. A running devnet is found through --devnet URL,
 * else DATA_DIR/devnet/devnet.json, else the shared state file
 * (devnetStateFile: one per user, in $XDG_RUNTIME_DIR or the OS temp dir),
 * so the helpers work from any directory (--devnet is the monerod
 * simulator's URL for Monero, the zebrad simulator's for Zcash).
 *
 * Zcash: send zcash <address> <ZEC> [--memo text], mine zcash [n],
 * reorg zcash <depth> [--drop txid,…], spend zcash <wallet> <txid> [--pool p] [--index i].
 */
import { DEVNET_ETH_CHAIN_ID } from "./ethereum-blocks.js";
import type { Config } from "../src/config.js";
import { createLogger } from "../src/core/logger.js";
import { formatAtomic, UNITS } from "../src/core/money.js";
import { devnetMoneroMine, devnetMoneroSend, devnetMoneroWallets, deriveDevnetWallets } from "./monerod.js";
import { devnetOptions, devnetStateFile, readDevnetState, readPublishedDevnet, startDevnet, type DevnetHandle } from "./index.js";
import { devnetZcashMine, devnetZcashReorg, devnetZcashSend, devnetZcashSpend, devnetZcashWallets } from "./zcash-client.js";
import { deriveDevnetZcashWallets, type DevnetZcashWallet } from "./zcash-wallets.js";
import fs from "node:fs";
import path from "node:path";

type Io = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) {
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  }
  return undefined;
}

function moneroUrl(args: string[], cfg: Config, io: Io): string | undefined {
  const explicit = option(args, "--devnet");
  if (explicit) return explicit;
  const found = runningMoneroUrl(cfg);
  if (found) return found;
  if (readPublishedDevnet(devnetStateFile(cfg))) {
    io.stderr.write("the running devnet uses a real monerod (MONERO_DAEMON_URL), not its simulator: send and mine with that node's own tools\n");
    return undefined;
  }
  io.stderr.write(
    `no running devnet found (neither under ${cfg.dataDir}/devnet nor in ${devnetStateFile(cfg)}); start one (npm start, or npx vigil devnet) or pass --devnet URL\n`,
  );
  return undefined;
}

function zebradUrl(args: string[], cfg: Config, io: Io): string | undefined {
  const explicit = option(args, "--devnet");
  if (explicit) return explicit;
  const url = runningZebradUrl(cfg);
  if (url) return url;
  io.stderr.write(`no running devnet with a Zcash simulator found (under ${cfg.dataDir}/devnet or in ${devnetStateFile(cfg)}); start one (npm start, or npx vigil devnet) or pass --devnet URL\n`);
  return undefined;
}

async function runZcash(sub: string, args: string[], cfg: Config, io: Io): Promise<number> {
  const memo = option(args, "--memo");
  const drop = option(args, "--drop");
  const pool = option(args, "--pool");
  const index = option(args, "--index");
  const url = zebradUrl(args, cfg, io);
  if (!url) return 1;
  const out = (v: unknown) => io.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  switch (sub) {
    case "send": {
      const [address, amount] = args;
      if (!address || !amount) {
        io.stderr.write("usage: vigil devnet send zcash <address> <amount-in-ZEC> [--memo text] [--devnet URL]\n");
        return 2;
      }
      out(await devnetZcashSend(url, address, amount, memo));
      return 0;
    }
    case "mine": {
      const n = Number(args[0] ?? "1");
      if (!Number.isInteger(n) || n < 1 || n > 1000) {
        io.stderr.write("usage: vigil devnet mine zcash [blocks 1..1000] [--devnet URL]\n");
        return 2;
      }
      io.stdout.write(`${JSON.stringify(await devnetZcashMine(url, n))}\n`);
      return 0;
    }
    case "reorg": {
      const depth = Number(args[0]);
      if (!Number.isInteger(depth) || depth < 1) {
        io.stderr.write("usage: vigil devnet reorg zcash <depth> [--drop txid,txid…] [--devnet URL]\n");
        return 2;
      }
      out(await devnetZcashReorg(url, depth, drop ? drop.split(",").map((t) => t.trim()).filter(Boolean) : undefined));
      return 0;
    }
    case "spend": {
      const [wallet, txid] = args;
      if (!wallet || !txid || (index !== undefined && !/^\d+$/.test(index))) {
        io.stderr.write("usage: vigil devnet spend zcash <wallet> <txid> [--pool sapling|orchard|ironwood] [--index n] [--devnet URL]\n");
        return 2;
      }
      out(await devnetZcashSpend(url, wallet, txid, { pool, outputIndex: index === undefined ? undefined : Number(index) }));
      return 0;
    }
    default:
      return 2;
  }
}

/** The devnet of this DATA_DIR if one runs there, else the one recorded in the shared state file. */
function runningMoneroUrl(cfg: Config): string | undefined {
  const local = readDevnetState(cfg.dataDir);
  if (local && pidAlive(local.pid)) return local.moneroUrl;
  return readPublishedDevnet(devnetStateFile(cfg))?.moneroUrl;
}

/** The same for the payment chain (the devnet payer of `vigil pay` reads its channels there). */
export function runningEvmUrl(cfg: Config): string | undefined {
  const local = readDevnetState(cfg.dataDir);
  if (local?.evmUrl && pidAlive(local.pid)) return local.evmUrl;
  return readPublishedDevnet(devnetStateFile(cfg))?.configOverlay.EVM_RPC_URL;
}

/** The same for the zebrad simulator (Zcash controls). */
function runningZebradUrl(cfg: Config): string | undefined {
  const local = readDevnetState(cfg.dataDir);
  if (local?.zebradUrl && pidAlive(local.pid)) return local.zebradUrl;
  return readPublishedDevnet(devnetStateFile(cfg))?.zebradUrl;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function runDevnetCli(argv: string[], io: Io, config: () => Config): Promise<number> {
  const args = [...argv];
  const sub = args.shift();
  const cfg = config();
  switch (sub) {
    case undefined:
      return runStandalone(cfg, io);
    case "wallets":
      return showWallets(args, cfg, io);
    case "send":
      if (args[0] === "zcash") return runZcash("send", args.slice(1), cfg, io);
      return sendMonero(args, cfg, io);
    case "reorg":
    case "spend":
      if (args[0] !== "zcash") {
        io.stderr.write(`usage: vigil devnet ${sub} zcash … (Monero reorgs: POST /devnet/reorg on the monerod simulator)\n`);
        return 2;
      }
      return runZcash(sub, args.slice(1), cfg, io);
    case "mine":
      if (args[0] === "zcash") return runZcash("mine", args.slice(1), cfg, io);
      return mineMonero(args, cfg, io);
    default:
      io.stderr.write(`unknown devnet command "${sub}" (try: wallets, send, mine, reorg, spend)\n`);
      return 2;
  }
}

/** `vigil devnet`: the simulators in the foreground, published in the shared state file, until a signal; -1 keeps the process running. */
async function runStandalone(cfg: Config, io: Io): Promise<number> {
  const stateFile = devnetStateFile(cfg);
  const other = readPublishedDevnet(stateFile);
  if (other) {
    io.stderr.write(`a devnet is already running (pid ${other.pid}, monerod ${other.moneroUrl}; recorded in ${stateFile}); stop it first or set DEVNET_STATE_FILE\n`);
    return 1;
  }
  // At the default level only warnings: the banner below shows the URLs the info lines would.
  const log = createLogger(cfg.LOG_LEVEL === "info" ? "warn" : cfg.LOG_LEVEL);
  const devnet = await startDevnet(devnetOptions(cfg, { log, publishTo: stateFile }));
  io.stdout.write(standaloneBanner(devnet, cfg, stateFile));
  const stop = async () => {
    await devnet.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1;
}

/** What a standalone devnet prints: each upstream's URL (or the real node replacing it), the funded payers, the wallets. */
function standaloneBanner(devnet: DevnetHandle, cfg: Config, stateFile: string): string {
  return [
    "Vigil devnet: simulated upstreams on loopback. No real money moves.",
    devnet.evm
      ? `  EVM JSON-RPC (Base Sepolia, chain 84532, USDC ${devnet.evm.usdcAddress})  ${devnet.evmUrl}`
      : `  EVM JSON-RPC: the real node at EVM_RPC_URL (not simulated)`,
    devnet.facilitator
      ? `  x402 facilitator (FACILITATOR_MODE=http), settling on it       ${devnet.facilitatorUrl}`
      : `  x402 facilitator: none (payments settle on EVM_RPC_URL with the local facilitator)`,
    devnet.monerod
      ? `  monerod (testnet, a block every ${cfg.DEVNET_BLOCK_SECONDS} s)             ${devnet.moneroUrl}`
      : `  monerod: the real node at MONERO_DAEMON_URL (not simulated)`,
    ...(devnet.monerod && cfg.DEVNET_MONERO_CARROT_HEIGHT !== undefined
      ? [`    from height ${cfg.DEVNET_MONERO_CARROT_HEIGHT}: fork v17, Carrot coinbase and transfers (DEVNET_MONERO_CARROT_HEIGHT)`]
      : []),
    `  Ethereum L1 (chain ${DEVNET_ETH_CHAIN_ID}, a block every 12 s)                   ${devnet.ethereum?.url ?? cfg.ETH_RPC_URL}`,
    `  zebrad (Zcash testnet past NU6.3, a block every ${cfg.DEVNET_BLOCK_SECONDS} s)  ${devnet.zebrad?.url ?? cfg.ZEBRAD_URL}`,
    `  lightwalletd (gRPC, the same Zcash chain)                      ${devnet.lightwalletd?.url ?? cfg.LIGHTWALLETD_URL}`,
    "",
    "Funded x402 payers (the well-known 'test … junk' mnemonic, m/44'/60'/0'/0/i):",
    ...devnet.payers.map((p) => `  ${p.address}  ${p.privateKey}  ${formatAtomic(BigInt(p.usdcAtomic), UNITS.usdc)} USDC`),
    "",
    "Monero wallets (address + view key):",
    ...devnet.wallets.map((w) => `  ${w.label}: ${w.address}\n    view key ${w.viewKey}`),
    "",
    "Zcash wallets (unified address + UFVK; `npx vigil devnet wallets` shows the mnemonics):",
    ...devnet.zcashWallets().map((w) => `  ${w.label}: ${w.address}\n    ufvk ${w.ufvk}`),
    `Recorded in ${stateFile}: in other terminals, \`npx vigil api\` and \`npx vigil worker\` join this devnet,`,
    "and `npx vigil devnet wallets | send | mine` find it from any directory.",
    "",
  ].join("\n");
}

/** `vigil devnet wallets [--json]`: from the running simulators, else derived from the seed kept under DATA_DIR. */
async function showWallets(args: string[], cfg: Config, io: Io): Promise<number> {
  const json = args.includes("--json");
  const url = option(args, "--devnet") ?? runningMoneroUrl(cfg);
  const zurl = option(args, "--zcash-devnet") ?? runningZebradUrl(cfg);
  const file = path.join(cfg.dataDir, "devnet", "monero-wallets.json");
  const seed = () => (JSON.parse(fs.readFileSync(file, "utf8")) as { seed: string }).seed;
  const running = readPublishedDevnet(devnetStateFile(cfg));
  let wallets: Awaited<ReturnType<typeof devnetMoneroWallets>>;
  if (url) wallets = await devnetMoneroWallets(url);
  else if (running && !running.moneroUrl) wallets = []; // a real monerod replaced the simulator: no devnet wallets on it
  else {
    // Not running: the wallets are derived from the seed kept under DATA_DIR.
    if (!fs.existsSync(file)) {
      io.stderr.write(`no devnet wallets yet under ${cfg.dataDir}; start the devnet once (npm start)\n`);
      return 1;
    }
    wallets = deriveDevnetWallets(seed());
  }
  let zwallets: DevnetZcashWallet[];
  if (zurl) zwallets = await devnetZcashWallets(zurl);
  else if (fs.existsSync(file)) zwallets = deriveDevnetZcashWallets(seed());
  else zwallets = [];
  if (json) io.stdout.write(`${JSON.stringify([...wallets, ...zwallets], null, 2)}\n`);
  else {
    for (const w of wallets) io.stdout.write(`${w.chain} ${w.label}\n  address  ${w.address}\n  view key ${w.viewKey}\n`);
    for (const w of zwallets) io.stdout.write(zcashWalletText(w));
  }
  return 0;
}

function zcashWalletText(w: DevnetZcashWallet): string {
  return `${w.chain} ${w.label} (${w.network})\n  unified address ${w.address}\n  ufvk            ${w.ufvk}\n  mnemonic        ${w.mnemonic}\n  sapling         ${w.saplingAddress}\n  transparent     ${w.transparentAddress}\n  diversified     ${w.diversifiedAddress.address} (index ${w.diversifiedAddress.index})\n  change          ${w.changeAddress}\n`;
}

/** `vigil devnet send monero <address> <XMR> [--kind legacy|carrot]`. */
async function sendMonero(args: string[], cfg: Config, io: Io): Promise<number> {
  const chain = args.shift();
  const url = moneroUrl(args, cfg, io);
  if (!url) return 1;
  const kind = option(args, "--kind");
  const [address, amount] = args;
  if (chain !== "monero" || !address || !amount || (kind !== undefined && kind !== "legacy" && kind !== "carrot")) {
    io.stderr.write("usage: vigil devnet send monero <address> <amount-in-XMR> [--kind legacy|carrot] [--devnet URL]\n       vigil devnet send zcash <address> <amount-in-ZEC> [--memo text] [--devnet URL]\n");
    return 2;
  }
  const r = await devnetMoneroSend(url, address, amount, kind as "legacy" | "carrot" | undefined);
  io.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  return 0;
}

/** `vigil devnet mine [monero] [n]`. */
async function mineMonero(args: string[], cfg: Config, io: Io): Promise<number> {
  if (args[0] === "monero") args.shift();
  const url = moneroUrl(args, cfg, io);
  if (!url) return 1;
  const n = Number(args[0] ?? "1");
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    io.stderr.write("usage: vigil devnet mine [blocks 1..1000] [--devnet URL]\n");
    return 2;
  }
  io.stdout.write(`${JSON.stringify(await devnetMoneroMine(url, n))}\n`);
  return 0;
}
