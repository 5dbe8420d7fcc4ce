/**
 * The client side of the devnet monerod's own endpoints (/devnet/send,
 * /devnet/mine, /devnet/wallets), used by `vigil devnet send|mine|wallets`
 * and by scripts against a running devnet.
 */
import { request } from "undici";
import { formatXmr, parseXmr } from "../src/core/money.js";
import type { DevnetMoneroWallet } from "./monerod-wallets.js";

export interface DevnetSendResult {
  txid: string;
  address: string;
  amount_piconero: string;
  amount_xmr: string;
  fee_piconero: string;
  /** "carrot" from the devnet's fork height on (DEVNET_MONERO_CARROT_HEIGHT), else "legacy". */
  kind: "legacy" | "carrot";
}

/** Sends devnet XMR: `amountXmr` is an exact decimal string ("0.25"), converted without floats. */
export async function devnetMoneroSend(url: string, address: string, amountXmr: string, kind?: "legacy" | "carrot"): Promise<DevnetSendResult> {
  const piconero = parseXmr(amountXmr);
  if (piconero <= 0n) throw new RangeError("amount must be more than 0 XMR");
  const res = await request(new URL("/devnet/send", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address, amount_piconero: piconero.toString(), ...(kind ? { kind } : {}) }),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`devnet monerod answered HTTP ${res.statusCode} with non-JSON`);
  }
  if (res.statusCode !== 200) {
    const err = (parsed as { error?: { message?: string } | string }).error;
    const message = typeof err === "string" ? err : err?.message ?? `HTTP ${res.statusCode}`;
    throw new Error(`devnet send failed: ${message}`);
  }
  return parsed as DevnetSendResult;
}

/** Mines blocks on a running devnet (for scripts and the CLI). */
export async function devnetMoneroMine(url: string, blocks = 1): Promise<{ height: number; hashes: string[] }> {
  const res = await request(new URL("/devnet/mine", url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ blocks }),
  });
  const parsed = (await res.body.json()) as { height: number; hashes: string[] };
  if (res.statusCode !== 200) throw new Error(`devnet mine failed: HTTP ${res.statusCode}`);
  return parsed;
}

/** Lists the ready wallets of a running devnet. */
export async function devnetMoneroWallets(url: string): Promise<DevnetMoneroWallet[]> {
  const res = await request(new URL("/devnet/wallets", url));
  if (res.statusCode !== 200) throw new Error(`devnet wallets failed: HTTP ${res.statusCode}`);
  return ((await res.body.json()) as { wallets: DevnetMoneroWallet[] }).wallets;
}

/** Exact XMR → piconero (re-exported for the CLI). */
export { parseXmr, formatXmr };
