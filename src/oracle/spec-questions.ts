/**
 * The Penny Oracle's question list as the API contract names it (21
 * questions, in its order), with each one's chain and parameters. The
 * catalogue (GET /v1/q) lists every one of them: a question this server has
 * a declaration for answers as declared; one it has not yet is listed with
 * `implemented: false` and `available: false`, never left out.
 */
export type OracleChain = "monero" | "zcash" | "ethereum";

export interface SpecQuestion {
  path: string;
  chain: OracleChain;
  summary: string;
  params: readonly { name: string; required: boolean }[];
}

const none: SpecQuestion["params"] = [];

export const SPEC_QUESTIONS: readonly SpecQuestion[] = [
  { path: "xmr/height", chain: "monero", summary: "Monero chain height and sync state", params: none },
  { path: "xmr/mempool", chain: "monero", summary: "Count of pending Monero transactions", params: none },
  { path: "xmr/fee", chain: "monero", summary: "Recommended per-byte fee in piconero, also per kB", params: none },
  { path: "xmr/fee-estimate", chain: "monero", summary: "Total fee estimate for a typical 1500-byte transaction at four priority levels", params: none },
  { path: "xmr/last-block", chain: "monero", summary: "Timestamp, age, hash, difficulty and size of the latest Monero block", params: none },
  { path: "zec/height", chain: "zcash", summary: "Zcash height, verification progress, best block hash", params: none },
  { path: "zec/mempool", chain: "zcash", summary: "Zcash mempool count and bytes", params: none },
  { path: "zec/last-block", chain: "zcash", summary: "Timestamp, age, hash, difficulty and size of the latest Zcash block", params: none },
  { path: "zec/pools", chain: "zcash", summary: "ZEC supply by value pool plus the migration readout", params: none },
  { path: "base-fee", chain: "ethereum", summary: "Ethereum latest base fee and blob base fee and the next-block projection", params: none },
  { path: "cheapest-flashloan", chain: "ethereum", summary: "Cheapest flash-loan provider for an asset", params: [{ name: "asset", required: true }, { name: "chain", required: false }] },
  { path: "liquidatable", chain: "ethereum", summary: "Liquidation status of an address", params: [{ name: "addr", required: true }, { name: "protocol", required: false }] },
  { path: "at-risk-count", chain: "ethereum", summary: "Count of at-risk borrowers", params: [{ name: "max_hf", required: false }, { name: "min_debt_usd", required: false }, { name: "protocol", required: false }] },
  { path: "recent-liquidations", chain: "ethereum", summary: "Recent liquidations", params: [{ name: "since_min", required: false }, { name: "protocol", required: false }] },
  { path: "top-builder", chain: "ethereum", summary: "Top block builder", params: [{ name: "window", required: false }] },
  { path: "builder-share", chain: "ethereum", summary: "Builder share", params: [{ name: "builder", required: true }, { name: "window", required: false }] },
  { path: "builder-bid", chain: "ethereum", summary: "Builder bid at a percentile", params: [{ name: "builder", required: true }, { name: "pct", required: false }, { name: "window", required: false }] },
  { path: "block-value", chain: "ethereum", summary: "Block value at a percentile", params: [{ name: "pct", required: false }, { name: "window", required: false }] },
  { path: "data-freshness", chain: "ethereum", summary: "Freshness of a data source", params: [{ name: "source", required: true }] },
  { path: "address-risk", chain: "ethereum", summary: "Address risk", params: [{ name: "addr", required: true }] },
  { path: "proposer-payment", chain: "ethereum", summary: "Proposer payment", params: none },
];

/** A question's chain from its path (xmr/… Monero, zec/… Zcash, the rest Ethereum). */
export function chainOfPath(path: string): OracleChain {
  return path.startsWith("xmr/") ? "monero" : path.startsWith("zec/") ? "zcash" : "ethereum";
}
