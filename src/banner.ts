/**
 * The one start-up banner: where the service is, what it runs on, and
 * whether money is real. Devnet mode is read from the config (the CLI put
 * the devnet's upstream URLs there); only the number of funded payers comes
 * from the devnet itself, through the caller.
 */
import type { App } from "./app.js";

export function startupBanner(o: { role: string; url?: string; app: App; devnetPayers?: number; devnetJoined?: string }): string {
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
    lines.push(`  payments  x402 exact, USDC on ${terms.usdc.network}, payTo ${terms.payTo}`);
  } else {
    lines.push("  payments  NOT CONFIGURED: set PAY_TO; paid routes answer 503 paywall_not_configured");
  }
  const relaxed = relaxedWebhookWarning(config);
  if (relaxed.length > 0) {
    // Outside the devnet this is a real service with relaxed SSRF checks: the warning comes first and framed.
    if (config.devnet) lines.push("", ...relaxed.map((l) => `  ${l}`));
    else lines.splice(0, 0, ...frame(relaxed));
  }
  if (config.devnet) {
    lines.push("");
    lines.push("  DEVNET MODE: no upstream is configured, so simulated chains run on loopback. No real money moves.");
    if (o.devnetJoined) lines.push(`    joined ${o.devnetJoined}`);
    lines.push(`    EVM / USDC (Base Sepolia, chain 84532)  ${config.EVM_RPC_URL}`);
    lines.push(`    monerod (simulated)                     ${config.MONERO_DAEMON_URL}`);
    lines.push(`    Ethereum L1 (chain id from the node)    ${config.ETH_RPC_URL}`);
    lines.push(`    zebrad (Zcash ${config.ZCASH_NETWORK})                 ${config.ZEBRAD_URL}`);
    if (config.LIGHTWALLETD_URL) lines.push(`    lightwalletd (same Zcash chain, gRPC)   ${config.LIGHTWALLETD_URL}`);
    lines.push(`    funded x402 payers: ${o.devnetPayers ?? 0} accounts of the "test … junk" mnemonic, 1,000 USDC each`);
    lines.push(`    watch wallets:      npx vigil devnet wallets`);
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
