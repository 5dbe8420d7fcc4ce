/**
 * Settings that need no I/O: devnet mode, the webhook development switches,
 * and how /metrics is exposed.
 *
 * Metrics policy: a token-protected /metrics is fine anywhere; an open
 * metrics port is fine on loopback, a warning on a private address (a
 * scraper on the LAN is normal, but every host there can read it), and a
 * failure on a public or wildcard address (0.0.0.0, ::).
 */
import ipaddr from "ipaddr.js";
import { fail, pass, warn, type CheckContext, type CheckResult } from "./check.js";

type Cfg = Pick<CheckContext, "config">;

export function checkDevnet(ctx: Cfg): CheckResult {
  const c = ctx.config;
  if (!c.devnet) return pass("devnet", `off (DEVNET=${c.DEVNET})`);
  const why = c.DEVNET === "on" ? "DEVNET=on" : "DEVNET=auto and no upstream or PAY_TO configured";
  return fail(
    "devnet",
    `devnet mode (${why}): not production; the devnet's simulated upstreams are laid over the configuration only where a devnet runs, so the checks below see what is configured`,
    "configure the production upstreams (MONERO_DAEMON_URL, ZEBRAD_URL, LIGHTWALLETD_URL, ETH_RPC_URL), PAY_TO and a facilitator, and set DEVNET=off",
  );
}

export function checkWebhookSwitches(ctx: Cfg): CheckResult {
  const c = ctx.config;
  const on = [c.WEBHOOK_ALLOW_HTTP && "WEBHOOK_ALLOW_HTTP", c.WEBHOOK_ALLOW_PRIVATE && "WEBHOOK_ALLOW_PRIVATE"].filter((s): s is string => Boolean(s));
  if (on.length === 0) return pass("webhooks", "https only, private and loopback addresses refused");
  if (c.devnet) return pass("webhooks", `${on.join(", ")} on (devnet mode default)`);
  const risks = [
    c.WEBHOOK_ALLOW_HTTP && "webhooks go out over plain HTTP (their signatures and payloads readable on the way)",
    c.WEBHOOK_ALLOW_PRIVATE && "anyone who opens a watch can aim its webhooks at this host's private network and loopback (SSRF)",
  ].filter(Boolean);
  return fail("webhooks", `${on.join(", ")} on outside development: ${risks.join("; ")}`, `unset ${on.join(" and ")} (they are for development only)`);
}

/** Where an address sits: loopback, private, or public (a hostname other than localhost counts as unknown). */
function hostReach(host: string): "loopback" | "private" | "public" | "unknown" {
  const h = host.replace(/^\[|\]$/g, "");
  if (h === "localhost") return "loopback";
  if (!ipaddr.isValid(h)) return "unknown";
  const addr = ipaddr.process(h);
  const range = addr.range();
  if (range === "loopback") return "loopback";
  if (range === "unspecified" || range === "unicast") return "public";
  return ["private", "uniqueLocal", "linkLocal", "carrierGradeNat"].includes(range) ? "private" : "public";
}

export function checkMetrics(ctx: Cfg): CheckResult {
  const c = ctx.config;
  const parts: string[] = [];
  if (c.METRICS_TOKEN) parts.push("served on the API port to Authorization: Bearer METRICS_TOKEN");
  if (c.METRICS_PORT === undefined) {
    return pass("metrics", parts.length ? parts[0]! : "not served (no METRICS_TOKEN, no METRICS_PORT)");
  }
  const at = `${c.METRICS_HOST}:${c.METRICS_PORT}`;
  if (c.METRICS_TOKEN) return pass("metrics", [...parts, `metrics port ${at} needs the token too`].join("; "));
  const reach = hostReach(c.METRICS_HOST);
  if (reach === "loopback") return pass("metrics", [...parts, `metrics port on loopback ${at}, no token`].join("; "));
  const fix = "set METRICS_TOKEN (the port then needs it too), or METRICS_HOST=127.0.0.1 behind your scraper's tunnel or proxy";
  if (reach === "public") return fail("metrics", `metrics port ${at} is open to any network without a token (METRICS_HOST ${c.METRICS_HOST})`, fix);
  return warn("metrics", `metrics port ${at} without a token on a ${reach === "private" ? "private" : "non-loopback"} address: every host that reaches it can read the metrics`, fix);
}
