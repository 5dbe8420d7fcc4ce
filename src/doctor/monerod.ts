/**
 * monerod (MONERO_DAEMON_URL): reachable, on MONERO_NETWORK, synchronized,
 * and serving every RPC method Vigil calls.
 *
 * Network: get_info's `nettype`. A regtest node reports "fakechain" and uses
 * mainnet-format addresses, so it fits MONERO_NETWORK=mainnet (with a note:
 * it is a private chain).
 *
 * Methods: a restricted node (--restricted-rpc), or a proxy in front of a
 * public node, may refuse some. monerod refuses a JSON-RPC method with
 * -32601 "Method not found" and a plain endpoint with HTTP 404; each method
 * below is called once, harmlessly (reads at the tip), and every refusal is
 * named. The list is what the scanner, mempool watcher, historical scan and
 * facts call through the MoneroDaemon port (src/chains/monero/*.ts);
 * get_block_count, get_block_header_by_height and /get_transaction_pool are
 * in the client but nothing calls them, so a node refusing them is fine.
 */
import { MoneroDaemonClient, MoneroDaemonError, type MoneroBlockHeader } from "../chains/monero/daemon-client.js";
import { probeUpstream, reason, verdict, type CheckContext, type CheckResult } from "./check.js";

/** JSON-RPC "Method not found": how monerod refuses a method it does not serve (restricted mode included). */
const METHOD_NOT_FOUND = -32601;

/** Whether a failure is the node refusing the call (rather than failing it). */
export function isRefusal(e: unknown): boolean {
  if (!(e instanceof MoneroDaemonError)) return false;
  const status = e.details?.httpStatus;
  return e.rpcCode === METHOD_NOT_FOUND || status === 403 || status === 404;
}

/** The methods Vigil calls, each with a harmless call at the tip. */
const USED_METHODS: { method: string; call: (d: MoneroDaemonClient, tip: { height: number; minerTxHash: string }, s: AbortSignal) => Promise<unknown> }[] = [
  { method: "get_block_headers_range", call: (d, t, s) => d.getBlockHeadersRange(t.height, t.height, s) },
  { method: "get_block", call: (d, t, s) => d.getBlock({ height: t.height }, s) },
  { method: "/get_transactions", call: (d, t, s) => d.getTransactions([t.minerTxHash], {}, s) },
  { method: "/get_transaction_pool_hashes", call: (d, _t, s) => d.getTransactionPoolHashes(s) },
  { method: "get_fee_estimate", call: (d, _t, s) => d.getFeeEstimate(s) },
];

export function checkMonerod(ctx: CheckContext): Promise<CheckResult> {
  const { config, signal } = ctx;
  return probeUpstream({
    name: "monerod",
    url: config.MONERO_DAEMON_URL,
    unset: { setting: "MONERO_DAEMON_URL", effect: "Monero watches, invoices and /v1/q/xmr/* answer 503 chain_not_configured" },
    open: (url) => new MoneroDaemonClient({ url, timeoutMs: ctx.timeoutMs, attempts: 1 }),
    close: (daemon) => daemon.close(),
    unreachableFix: "check MONERO_DAEMON_URL (host, port, --rpc-login credentials) and that monerod's RPC listens there",
    run: async (daemon, where) => {
      const info = await daemon.getInfo(signal);
      const problems: { detail: string; fix: string }[] = [];
      const notes: string[] = [];
      const want = config.MONERO_NETWORK;
      const runs = info.nettype;
      if (runs === "fakechain") {
        notes.push('regtest chain ("fakechain", mainnet-format addresses): a private chain, not the public network');
        if (want !== undefined && want !== "mainnet") {
          problems.push({ detail: `network fakechain (mainnet-format addresses), MONERO_NETWORK=${want}`, fix: `set MONERO_NETWORK=mainnet, or point MONERO_DAEMON_URL at a ${want} node` });
        }
      } else if (want !== undefined && runs !== want) {
        problems.push({ detail: `network ${runs}, MONERO_NETWORK=${want}`, fix: `point MONERO_DAEMON_URL at a ${want} node, or set MONERO_NETWORK=${runs} if ${runs} is what you serve` });
      }
      if (want === undefined) notes.push(`MONERO_NETWORK unset: watches of any network are accepted (set MONERO_NETWORK=${runs === "fakechain" ? "mainnet" : runs})`);
      const top = info.height - 1;
      if (!info.synchronized || info.busySyncing || (info.targetHeight > 0 && info.targetHeight > info.height)) {
        const target = info.targetHeight > 0 ? ` of ${info.targetHeight - 1}` : "";
        problems.push({ detail: `not synchronized (height ${top}${target})`, fix: "wait until monerod reports synchronized, or use a synced node" });
      }
      if (info.restricted) notes.push("restricted RPC");
      const calls = await callUsedMethods(daemon, top, signal);
      if (calls.refused.length) {
        problems.push({
          detail: `refuses ${calls.refused.join(", ")}`,
          fix: "use a node that serves these methods (your own monerod; --restricted-rpc serves them all, a proxy or public node may not)",
        });
      }
      if (calls.failed.length) problems.push({ detail: `failed ${calls.failed.join("; ")}`, fix: "check the node's log; the calls must succeed for scanning" });
      const served = `${calls.total - calls.refused.length - calls.failed.length}/${calls.total} RPC methods served`;
      return verdict("monerod", `${where} ${runs}, height ${top}${problems.length ? "" : `, synchronized, ${served}`}`, problems, notes);
    },
  });
}

/** get_info answered; calls the tip, then every other method at once, sorting refusals from failures. */
async function callUsedMethods(daemon: MoneroDaemonClient, top: number, signal: AbortSignal): Promise<{ total: number; refused: string[]; failed: string[] }> {
  const refused: string[] = [];
  const failed: string[] = [];
  const sort = (method: string, e: unknown) => (isRefusal(e) ? refused.push(method) : failed.push(`${method} (${reason(e)})`));
  let header: MoneroBlockHeader | undefined;
  try {
    header = await daemon.getLastBlockHeader(signal);
  } catch (e) {
    sort("get_last_block_header", e);
  }
  const tip = { height: header?.height ?? Math.max(0, top), minerTxHash: header?.minerTxHash ?? "0".repeat(64) };
  await Promise.all(USED_METHODS.map((m) => m.call(daemon, tip, signal).catch((e: unknown) => sort(m.method, e))));
  // get_info and get_last_block_header are used too.
  return { total: USED_METHODS.length + 2, refused, failed };
}
