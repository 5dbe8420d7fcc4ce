/**
 * `vigil payments channels [--json]`: every x402 payment channel with its
 * money — deposited through the service, still escrowed, charged by
 * vouchers, claimed on chain, settled to PAY_TO, not yet claimed, refunded,
 * withdrawn by the payer, and forfeited (withdrawn before it was claimed) —
 * with its state and its last use, and the totals. JSON gives atomic USDC
 * as strings; the table gives USDC with six decimals.
 */
import { formatUsdcFixed } from "../core/money.js";
import type { Queryable } from "../db/types.js";
import { allChannels, channelTotals, type ChannelRow } from "./channel-store.js";

export interface ChannelListing {
  channelId: string;
  network: string;
  payer: string;
  state: "open" | "reserved" | "withdrawing" | "closed";
  deposited: string;
  balance: string;
  charged: string;
  claimed: string;
  settled: string;
  unclaimed: string;
  refunded: string;
  withdrawn: string;
  forfeited: string;
  calls: number;
  lastRequestAt: string | null;
  createdAt: string;
}

function stateOf(r: ChannelRow, nowMs: number): ChannelListing["state"] {
  if (r.closed_at) return "closed";
  if (BigInt(r.withdraw_requested_at) > 0n) return "withdrawing";
  if (r.pending_until && r.pending_until.getTime() > nowMs) return "reserved";
  return "open";
}

export function listingOf(r: ChannelRow, nowMs: number): ChannelListing {
  const charged = BigInt(r.charged_atomic);
  const claimed = BigInt(r.claimed_atomic);
  const forfeited = BigInt(r.forfeited_atomic);
  const unclaimed = charged - claimed - forfeited;
  return {
    channelId: r.channel_id,
    network: r.network,
    payer: r.payer,
    state: stateOf(r, nowMs),
    deposited: String(r.deposited_atomic),
    balance: String(r.balance_atomic),
    charged: charged.toString(),
    claimed: claimed.toString(),
    settled: String(r.settled_atomic),
    unclaimed: (unclaimed > 0n ? unclaimed : 0n).toString(),
    refunded: String(r.refunded_atomic),
    withdrawn: String(r.withdrawn_atomic),
    forfeited: forfeited.toString(),
    calls: Number(r.calls),
    lastRequestAt: r.last_request_at?.toISOString() ?? null,
    createdAt: r.created_at.toISOString(),
  };
}

const COLUMNS = ["deposited", "balance", "charged", "claimed", "settled", "unclaimed", "refunded", "withdrawn"] as const;

/** The listing as the CLI prints it: JSON, or a table with a totals line per network. */
export async function channelsReport(db: Queryable, nowMs: number, json: boolean): Promise<string> {
  const rows = (await allChannels(db)).map((r) => listingOf(r, nowMs));
  const networks = [...new Set(rows.map((r) => r.network))];
  const totals = await Promise.all(networks.map(async (n) => ({ network: n, ...(await channelTotals(db, n)) })));
  if (json) return `${JSON.stringify({ channels: rows, totals }, (_, v) => (typeof v === "bigint" ? v.toString() : v))}\n`;
  if (rows.length === 0) return "no payment channels\n";
  const usdc = (v: string | bigint) => formatUsdcFixed(BigInt(v));
  const header = ["channel", "payer", "state", ...COLUMNS, "calls", "last call"].join("\t");
  const lines = rows.map((r) => [r.channelId, r.payer, r.state, ...COLUMNS.map((c) => usdc(r[c])), String(r.calls), r.lastRequestAt ?? "-"].join("\t"));
  const sums = totals.map((t) => [`total ${t.network}`, `${t.channels} channels`, `${t.open} open`, ...COLUMNS.map((c) => usdc(t[c])), "", ""].join("\t"));
  return `${[header, ...lines, ...sums].join("\n")}\n`;
}
