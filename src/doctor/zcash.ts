/**
 * Zcash: zebrad (ZEBRAD_URL, chain facts) and lightwalletd (LIGHTWALLETD_URL,
 * compact blocks for watches), each on ZCASH_NETWORK, through the clients the
 * service uses (their own network checks included).
 *
 * zebrad is synced when its best block is within SYNC_SLACK_BLOCKS of the
 * headers it has and of its estimated network height; the RPC methods the
 * facts read (getinfo, getblock, getrawmempool, getmempoolinfo) are each
 * called once at the tip.
 */
import { UpstreamError } from "../core/upstream.js";
import { ZEBRAD_CHAIN, createZebrad } from "../chains/zcash/zebrad.js";
import { createLightwalletd, ironwoodActive, serverKnowsIronwood, IRONWOOD_PROTOCOL_VERSION } from "../chains/zcash/lightwalletd.js";
import type { ZcashNetwork } from "../chains/zcash/network.js";
import { probeUpstream, reason, verdict, type CheckContext, type CheckResult } from "./check.js";

/** Blocks (75 s each) a node may trail its headers or estimate and still count as synced. */
const SYNC_SLACK_BLOCKS = 10;

/** zebrad's / lightwalletd's chain name → the ZCASH_NETWORK value that fits it. */
function networkOf(chain: string): ZcashNetwork | undefined {
  return (Object.keys(ZEBRAD_CHAIN) as ZcashNetwork[]).find((n) => ZEBRAD_CHAIN[n] === chain);
}

function mismatch(setting: string, chain: string, want: ZcashNetwork): { detail: string; fix: string } {
  const fits = networkOf(chain);
  return {
    detail: `network ${fits ?? chain} (chain "${chain}"), ZCASH_NETWORK=${want}`,
    fix: `point ${setting} at a ${want} node${fits ? `, or set ZCASH_NETWORK=${fits} if ${fits} is what you serve` : ""}`,
  };
}

const isMismatch = (e: unknown): e is UpstreamError => e instanceof UpstreamError && e.code === "chain_network_mismatch";
const actualChain = (e: UpstreamError): string => String(e.details?.actual ?? "?");

export function checkZebrad(ctx: CheckContext): Promise<CheckResult> {
  const { config, signal } = ctx;
  return probeUpstream({
    name: "zebrad",
    url: config.ZEBRAD_URL,
    unset: { setting: "ZEBRAD_URL", effect: "the /v1/q/zec/* questions and Zcash pool history answer 503 chain_not_configured" },
    open: (url) => createZebrad({ url, network: config.ZCASH_NETWORK, timeoutMs: ctx.timeoutMs, attempts: 1 }),
    close: (zebrad) => zebrad.close(),
    unreachableFix: "check ZEBRAD_URL and zebrad's rpc.listen_addr",
    run: async (zebrad, where) => {
      let info;
      try {
        info = await zebrad.getBlockchainInfo(signal);
      } catch (e) {
        if (isMismatch(e)) return verdict("zebrad", where, [mismatch("ZEBRAD_URL", actualChain(e), config.ZCASH_NETWORK)]);
        throw e;
      }
      const problems: { detail: string; fix: string }[] = [];
      const best = Math.max(info.headers, info.estimatedHeight ?? 0);
      if (best - info.blocks > SYNC_SLACK_BLOCKS) {
        problems.push({
          detail: `not synced (block ${info.blocks} of ${best}, verification ${(info.verificationProgress * 100).toFixed(2)} %)`,
          fix: "wait until zebrad has synced, or use a synced node",
        });
      }
      const tip = info.blocks;
      const calls: [string, () => Promise<unknown>][] = [
        ["getinfo", () => zebrad.getInfo(signal)],
        ["getblock", () => zebrad.getBlock(tip, signal)],
        ["getrawmempool", () => zebrad.getRawMempool(signal)],
        ["getmempoolinfo", () => zebrad.getMempoolInfo(signal)],
      ];
      const failed: string[] = [];
      await Promise.all(calls.map(([m, call]) => call().catch((e: unknown) => failed.push(`${m} (${reason(e)})`))));
      if (failed.length) problems.push({ detail: `failed ${failed.join("; ")}`, fix: "check zebrad's RPC settings: Vigil reads these methods" });
      return verdict("zebrad", `${where} ${config.ZCASH_NETWORK} (chain "${info.chain}"), block ${tip}${problems.length ? "" : `, synced, ${calls.length + 1} RPC methods served`}`, problems);
    },
  });
}

export function checkLightwalletd(ctx: CheckContext): Promise<CheckResult> {
  const { config, signal } = ctx;
  return probeUpstream({
    name: "lightwalletd",
    url: config.LIGHTWALLETD_URL,
    unset: { setting: "LIGHTWALLETD_URL", effect: "Zcash watches, invoices and historical scans answer 503 chain_not_configured" },
    open: (url) => createLightwalletd({ url, network: config.ZCASH_NETWORK, timeoutMs: ctx.timeoutMs, attempts: 1 }),
    close: (lwd) => lwd.close(),
    unreachableFix: "check LIGHTWALLETD_URL (http:// for plaintext gRPC, https:// for TLS) and that the server listens there",
    run: async (lwd, where) => {
      const info = await lwd.rawInfo(signal);
      if (info.chainName !== ZEBRAD_CHAIN[config.ZCASH_NETWORK]) return verdict("lightwalletd", where, [mismatch("LIGHTWALLETD_URL", info.chainName, config.ZCASH_NETWORK)]);
      const problems: { detail: string; fix: string }[] = [];
      if (ironwoodActive(info, config.ZCASH_NETWORK) && !serverKnowsIronwood(info)) {
        problems.push({
          detail: `light-wallet protocol "${info.lightwalletProtocolVersion || "unknown"}" predates Ironwood (${IRONWOOD_PROTOCOL_VERSION}), active since NU6.3`,
          fix: "upgrade lightwalletd (or use a server) that speaks protocol 0.4.0 or newer",
        });
      }
      let latest = info.blockHeight;
      if (problems.length === 0) {
        try {
          latest = (await lwd.latestBlock(signal)).height;
        } catch (e) {
          problems.push({ detail: `GetLatestBlock failed (${reason(e)})`, fix: "check the lightwalletd server's backend node" });
        }
      }
      const version = info.version ? `, lightwalletd ${info.version}` : "";
      return verdict("lightwalletd", `${where} ${config.ZCASH_NETWORK} (chain "${info.chainName}"), block ${latest}${version}`, problems);
    },
  });
}
