/**
 * The one place that formats and parses atomic money amounts. Every amount in
 * Vigil is a bigint count of a unit's smallest part; text forms are exact
 * decimal strings (never floats):
 *
 *   unit      decimals  smallest part
 *   usdc      6         atomic USDC (1,000,000 = USD 1.00; also the credit meter's unit)
 *   xmr       12        piconero
 *   zec       8         zatoshi
 *   usdCents  2         US cent (request fields such as amountUsdCents)
 *   gwei      9         wei (Ethereum fees: wei counts shown as exact gwei strings)
 *
 * Parsing refuses signs, exponents, separators and more decimals than the
 * unit has, with a 400 `invalid_amount`, so a typo never becomes money.
 */
import { badRequest } from "./errors.js";

export interface MoneyUnit {
  /** Ticker shown to people, e.g. "XMR". */
  readonly symbol: string;
  readonly decimals: number;
  /** 10^decimals: smallest parts per whole unit. */
  readonly scale: bigint;
}

function unit(symbol: string, decimals: number): MoneyUnit {
  return { symbol, decimals, scale: 10n ** BigInt(decimals) };
}

export const UNITS = {
  usdc: unit("USDC", 6),
  xmr: unit("XMR", 12),
  zec: unit("ZEC", 8),
  usdCents: unit("USD", 2),
  gwei: unit("gwei", 9),
} as const satisfies Record<string, MoneyUnit>;

export type UnitName = keyof typeof UNITS;

/** Atomic USDC in one US dollar. */
export const USDC_PER_USD = UNITS.usdc.scale;
/** Piconero in one XMR. */
export const PICONERO_PER_XMR = UNITS.xmr.scale;
/** Zatoshi in one ZEC. */
export const ZATOSHI_PER_ZEC = UNITS.zec.scale;

export interface FormatOptions {
  /** Keep every decimal ("0.100000") instead of trimming trailing zeros ("0.1"). */
  fixed?: boolean;
  /** Trim trailing zeros but keep at least this many decimals ("0.10" with 2). */
  minDecimals?: number;
}

/** Atomic amount → exact decimal string in whole units: formatAtomic(1_500_000n, UNITS.usdc) = "1.5". */
export function formatAtomic(atomic: bigint, u: MoneyUnit, opts: FormatOptions = {}): string {
  const neg = atomic < 0n;
  const abs = neg ? -atomic : atomic;
  const whole = abs / u.scale;
  let frac = u.decimals === 0 ? "" : (abs % u.scale).toString().padStart(u.decimals, "0");
  if (!opts.fixed) {
    frac = frac.replace(/0+$/, "");
    const min = Math.min(opts.minDecimals ?? 0, u.decimals);
    if (frac.length < min) frac = frac.padEnd(min, "0");
  }
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/**
 * Exact decimal string in whole units → atomic amount: "1", "0.5", ".25";
 * at most `u.decimals` decimals; no sign, exponent or separators.
 */
export function parseAtomic(text: string, u: MoneyUnit): bigint {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) {
    throw badRequest("invalid_amount", `"${text}" is not a ${u.symbol} amount (use a decimal like 0.25)`);
  }
  const frac = m[2] ?? "";
  if (frac.length > u.decimals) throw badRequest("invalid_amount", `${u.symbol} has at most ${u.decimals} decimal places`);
  return BigInt(m[1] || "0") * u.scale + BigInt(frac.padEnd(u.decimals, "0") || "0");
}

/** Piconero → "1.5" XMR (exact, trailing zeros trimmed). */
export const formatXmr = (piconero: bigint): string => formatAtomic(piconero, UNITS.xmr);
/** "1.5" XMR → piconero (400 invalid_amount on anything else). */
export const parseXmr = (text: string): bigint => parseAtomic(text, UNITS.xmr);
/** Zatoshi → "0.0001" ZEC. */
export const formatZec = (zatoshi: bigint): string => formatAtomic(zatoshi, UNITS.zec);
/** "0.0001" ZEC → zatoshi. */
export const parseZec = (text: string): bigint => parseAtomic(text, UNITS.zec);

/** Wei → "0.0625" gwei (exact, trailing zeros trimmed; 1 wei = "0.000000001"). */
export const formatGwei = (wei: bigint): string => formatAtomic(wei, UNITS.gwei);

/** "$0.10" style display of atomic USDC: at least two decimals, no trailing noise ("$0.001"). */
export function formatUsd(atomic: bigint): string {
  const s = formatAtomic(atomic, UNITS.usdc, { minDecimals: 2 });
  return s.startsWith("-") ? `-$${s.slice(1)}` : `$${s}`;
}

/** "0.095000": atomic USDC as a USD decimal string with all six decimals (the credit block's form). */
export const formatUsdcFixed = (atomic: bigint): string => formatAtomic(atomic, UNITS.usdc, { fixed: true });

/** US cents → atomic USDC (exact: 1 cent = 10,000 atomic). */
export const usdCents = (cents: number | bigint): bigint => BigInt(cents) * (UNITS.usdc.scale / UNITS.usdCents.scale);

/** US cents → "$12.34". */
export const formatUsdCents = (cents: number | bigint): string => `$${formatAtomic(BigInt(cents), UNITS.usdCents, { fixed: true })}`;

/**
 * US cents → a coin's atomic units at a rate of `num/den` USD per whole coin
 * (a rational, so no float enters). Rounded up: a payer never sends less
 * than the USD asked for.
 */
export function usdCentsToAtomicCeil(cents: bigint, u: MoneyUnit, usdPerCoin: { num: bigint; den: bigint }): bigint {
  if (usdPerCoin.num <= 0n || usdPerCoin.den <= 0n) throw new RangeError("rate must be positive");
  // atomic = cents/100 USD ÷ (num/den USD per coin) × scale = cents × den × scale / (100 × num)
  const n = cents * usdPerCoin.den * u.scale;
  const d = 100n * usdPerCoin.num;
  return (n + d - 1n) / d;
}
