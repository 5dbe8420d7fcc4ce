/**
 * The client side of the devnet's Zcash controls (served by the zebrad
 * simulator under /devnet/zcash/*), used by `vigil devnet send|mine|reorg|spend
 * zcash` and `vigil devnet wallets`, and by scripts against a running devnet.
 */
import { request } from "undici";
import { parseZec } from "../src/core/money.js";
import type { DevnetZcashSendResult, DevnetZcashSpendResult } from "./zcash-chain.js";
import type { DevnetZcashWallet } from "./zcash-wallets.js";

async function call<T>(url: string, path: string, body?: unknown): Promise<T> {
  const res = await request(new URL(path, url), {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`devnet zebrad answered HTTP ${res.statusCode} with non-JSON`);
  }
  if (res.statusCode !== 200) {
    const err = (parsed as { error?: { message?: string } | string }).error;
    throw new Error(`devnet ${path} failed: ${typeof err === "string" ? err : (err?.message ?? `HTTP ${res.statusCode}`)}`);
  }
  return parsed as T;
}

/** Pays devnet ZEC: `amountZec` is an exact decimal string ("0.25"), converted without floats. */
export async function devnetZcashSend(url: string, address: string, amountZec: string, memo?: string): Promise<DevnetZcashSendResult> {
  const zatoshi = parseZec(amountZec);
  if (zatoshi <= 0n) throw new RangeError("amount must be more than 0 ZEC");
  return call(url, "/devnet/zcash/send", { address, amount_zatoshi: zatoshi.toString(), ...(memo !== undefined ? { memo } : {}) });
}

export async function devnetZcashMine(url: string, blocks = 1): Promise<{ height: number; hashes: string[] }> {
  return call(url, "/devnet/zcash/mine", { blocks });
}

export async function devnetZcashReorg(url: string, depth: number, dropTxids?: string[]): Promise<{ height: number; dropped: string[]; replaced: string[] }> {
  return call(url, "/devnet/zcash/reorg", { depth, ...(dropTxids ? { drop_txids: dropTxids } : {}) });
}

export async function devnetZcashSpend(url: string, wallet: string, txid: string, opts: { pool?: string; outputIndex?: number } = {}): Promise<DevnetZcashSpendResult> {
  return call(url, "/devnet/zcash/spend", { wallet, txid, ...(opts.pool ? { pool: opts.pool } : {}), ...(opts.outputIndex !== undefined ? { output_index: opts.outputIndex } : {}) });
}

export async function devnetZcashWallets(url: string): Promise<DevnetZcashWallet[]> {
  return (await call<{ wallets: DevnetZcashWallet[] }>(url, "/devnet/zcash/wallets")).wallets;
}
