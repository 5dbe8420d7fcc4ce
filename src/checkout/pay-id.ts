/**
 * How a coin payment says which quote or invoice it pays, per chain, and the
 * wallet URI a buyer scans. Pure.
 *
 * Monero: the amount's low six digits are a tag unique among the wallet's
 * open quotes/invoices (10^6 piconero = 0.000001 XMR); a Monero transfer has
 * no field a payer can fill in.
 *
 * Zcash: a memo token (`vigil-` + 16 base32 characters, 80 random bits) that
 * a shielded payment carries in its encrypted memo (ZIP 302 text memo). The
 * amount still carries a smaller tag in its low three digits (10^3 zatoshi =
 * 0.00001 ZEC) so that two open requests on one wallet never ask for the
 * same amount, and a payment whose wallet dropped the memo is still matched
 * by the amount, exactly as on Monero. A transparent payment has no memo: it
 * is matched by the amount only.
 */
import { randomBytes } from "node:crypto";
import { base32nopad, base64urlnopad } from "@scure/base";
import { formatAtomic, UNITS } from "../core/money.js";

export type PayChain = "monero" | "zcash";

/** Where the tag lives in the amount, per chain. */
export const TAG_MODULI: Record<PayChain, bigint> = { monero: 1_000_000n, zcash: 1_000n };

/** Whether the chain's payments are identified by a memo token as well. */
export const USES_MEMO: Record<PayChain, boolean> = { monero: false, zcash: true };

const MEMO_PREFIX = "vigil-";
const MEMO_RE = /^vigil-[A-Z2-7]{16}$/;

/** The exact amount: at least `base`, rounded up to a whole modulus, plus `tag` (1..modulus−1). */
export function taggedAmountFor(chain: PayChain, base: bigint, tag: bigint): bigint {
  const m = TAG_MODULI[chain];
  if (base < 0n) throw new RangeError("base must not be negative");
  if (tag <= 0n || tag >= m) throw new RangeError("tag out of range");
  return ((base + m - 1n) / m) * m + tag;
}

/** The tag an amount carries on a chain (0 = no tag: never matched by amount). */
export function tagOf(chain: PayChain, amountAtomic: bigint): bigint {
  return amountAtomic % TAG_MODULI[chain];
}

/** A fresh memo token: 80 random bits, base32 (RFC 4648, no padding). */
export function newMemoToken(): string {
  return MEMO_PREFIX + base32nopad.encode(randomBytes(10));
}

/**
 * The memo token a decoded text memo carries, if any: the whole memo trimmed
 * (wallets may add a newline), case-insensitive on the base32 part.
 */
export function memoTokenOf(memo: string | null | undefined): string | null {
  if (!memo) return null;
  const t = memo.trim();
  const candidate = t.length === MEMO_PREFIX.length + 16 && t.toLowerCase().startsWith(MEMO_PREFIX) ? MEMO_PREFIX + t.slice(MEMO_PREFIX.length).toUpperCase() : null;
  return candidate && MEMO_RE.test(candidate) ? candidate : null;
}

/** `monero:` URI (the Monero URI scheme: tx_amount in XMR, optional tx_description). */
export function moneroUri(address: string, amountAtomic: bigint, description?: string | null): string {
  const amount = formatAtomic(amountAtomic, UNITS.xmr);
  return `monero:${address}?tx_amount=${amount}${description ? `&tx_description=${encodeURIComponent(description)}` : ""}`;
}

/**
 * ZIP 321 payment request: `zcash:<address>?amount=<ZEC>&memo=<base64url>`
 * with the memo's UTF-8 bytes base64url-encoded without padding, and an
 * optional `message` (percent-encoded) shown to the payer.
 */
export function zip321Uri(address: string, amountAtomic: bigint, memo: string | null, message?: string | null): string {
  const params = [`amount=${formatAtomic(amountAtomic, UNITS.zec)}`];
  if (memo) params.push(`memo=${base64urlnopad.encode(new TextEncoder().encode(memo))}`);
  if (message) params.push(`message=${encodeURIComponent(message)}`);
  return `zcash:${address}?${params.join("&")}`;
}

export function walletUri(chain: PayChain, address: string, amountAtomic: bigint, memo: string | null, description?: string | null): string {
  return chain === "monero" ? moneroUri(address, amountAtomic, description) : zip321Uri(address, amountAtomic, memo, description);
}

/** The sentence that tells a payer how this chain's payment is identified. */
export function identifyHint(chain: PayChain, memo: string | null, what: "invoice" | "quote"): string {
  if (chain === "monero") return `The last six digits of the amount identify this ${what}.`;
  return `Pay from a shielded wallet with the memo ${memo}: the memo identifies this ${what} (the last three digits of the amount do too, for a wallet that cannot send a memo).`;
}
