/**
 * The one start-up banner: where the service is, what it runs on, and
 * whether money is real. Devnet mode is read from the config (the CLI put
 * the devnet's upstream URLs there); only the number of funded payers comes
 * from the devnet itself, through the caller.
 */
import type { App } from "./app.js";
import { upstreamSources } from "./upstream-sources.js";
import { offeredSchemes } from "./http/payment-schemes.js";

export function startupBanner(o: { role: string; url?: string; app: App; devnetPayers?: number; devnetJoined?: string; notes?: readonly string[] }): string {
  const { app } = o;
  const config = app.config;
  const terms = app.paywall.terms;
  const lines: string[] = [];
  lines.push(`Vigil ${o.role}${o.url ? ` listening on ${o.url}` : ""}`);
  lines.push(
    `  storage   ${app.database.kind === "pglite" ? `PGlite (embedded) in ${app.config.dataDir}/pglite` : "PostgreSQL (DATABASE_URL)"}`,
  );
  if (o.url) {
    lines.push(`  mcp       ${o.url}/mcp${app.mcpSite.baseUrl ? ` and ${app.mcpSite.baseUrl}/mcp` : ""} (Streamable HTTP; stdio: npx vigil mcp --url ${o.url})`);
  }
  if (terms) {
    lines.push(`  payments  x402 ${offeredSchemes(terms.channel).join(" and ")}, USDC on ${terms.usdc.network}, payTo ${terms.payTo}`);
    if (terms.channel) {
      lines.push(`  channels  receiver authorizer ${terms.channel.receiverAuthorizer}, withdraw delay ${terms.channel.withdrawDelaySeconds} s`);
    }
  } else {
    lines.push("  payments  NOT CONFIGURED: set PAY_TO; paid routes answer 503 paywall_not_configured");
  }
  const relaxed = relaxedWebhookWarning(config);
  if (relaxed.length > 0) {
    // Outside the devnet this is a real service with relaxed SSRF checks: the warning comes first and framed.
    if (config.devnet) lines.push("", ...relaxed.map((l) => `  ${l}`));
    else lines.splice(0, 0, ...frame(relaxed));
  }
  const ups = upstreamSources(config);
  if (config.devnet) {
    const simulated = ups.filter((u) => u.source === "simulated").length;
    lines.push("");
    lines.push(
      simulated === ups.length
        ? "  DEVNET MODE: no upstream is configured, so simulated chains run on loopback. No real money moves."
        : `  DEVNET MODE: ${simulated} of ${ups.length} upstreams simulated on loopback; the configured ones are real.`,
    );
    if (o.devnetJoined) lines.push(`    joined ${o.devnetJoined}`);
  } else {
    lines.push("", "  upstreams");
  }
  const width = Math.max(...ups.map((u) => u.label.length)) + 2;
  for (const u of ups) lines.push(`    ${u.label.padEnd(width)}${u.source === "not_configured" ? "not configured" : `${u.source.padEnd(10)}${u.url ?? ""}`}`);
  for (const n of o.notes ?? []) lines.push(`    note: ${n}`);
  if (config.devnet) {
    if (o.devnetPayers) lines.push(`    funded x402 payers: ${o.devnetPayers} accounts of the "test … junk" mnemonic, 1,000 USDC each`);
    if (config.simulatedUpstreams.includes("monerod") || config.simulatedUpstreams.includes("zebrad")) lines.push(`    watch wallets:      npx vigil devnet wallets`);
    if (o.url) {
      lines.push("");
      lines.push(`  try:  npx vigil pay GET ${o.url}/v1/q/xmr/height`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The warning for relaxed webhook URL checks, whenever either switch is on (empty otherwise). */
export function relaxedWebhookWarning(config: { WEBHOOK_ALLOW_HTTP: boolean; WEBHOOK_ALLOW_PRIVATE: boolean; devnet: boolean }): string[] {
  const on = [config.WEBHOOK_ALLOW_HTTP ? "WEBHOOK_ALLOW_HTTP" : "", config.WEBHOOK_ALLOW_PRIVATE ? "WEBHOOK_ALLOW_PRIVATE" : ""].filter(Boolean);
  if (on.length === 0) return [];
  const what = [
    config.WEBHOOK_ALLOW_HTTP ? "plain http:// receivers" : "",
    config.WEBHOOK_ALLOW_PRIVATE ? "private, loopback and LAN receivers" : "",
  ].filter(Boolean);
  return [
    `WARNING: webhook URL checks are relaxed (${on.join(" and ")} on): ${what.join(" and ")} are accepted.`,
    config.devnet
      ? "Fine on the devnet; never run a public service with these switches."
      : "This is NOT the devnet: anyone who can create a watch can make this server send requests into its own network.",
    "Unset WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE (or set them to 0) for any service reachable by others.",
  ];
}

function frame(text: readonly string[]): string[] {
  const bar = "!".repeat(Math.max(...text.map((l) => l.length)) + 4);
  return [bar, ...text.map((l) => `! ${l}`), bar, ""];
}
