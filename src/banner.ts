/**
 * The one start-up banner: where the service is, what it runs on, and
 * whether money is real. Devnet mode is read from the config (the CLI put
 * the devnet's upstream URLs there); only the number of funded payers comes
 * from the devnet itself, through the caller.
 */
import type { App } from "./app.js";

export function startupBanner(o: { role: string; url?: string; app: App; devnetPayers?: number }): string {
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
  if (config.devnet) {
    lines.push("");
    lines.push("  DEVNET MODE: no upstream is configured, so simulated chains run on loopback. No real money moves.");
    lines.push(`    EVM / USDC (Base Sepolia, chain 84532)  ${config.EVM_RPC_URL}`);
    lines.push(`    monerod (simulated)                     ${config.MONERO_DAEMON_URL}`);
    lines.push(`    Ethereum L1 (chain id from the node)    ${config.ETH_RPC_URL}`);
    lines.push(`    zebrad (Zcash ${config.ZCASH_NETWORK})                 ${config.ZEBRAD_URL}`);
    if (config.LIGHTWALLETD_URL) lines.push(`    lightwalletd (same Zcash chain, gRPC)   ${config.LIGHTWALLETD_URL}`);
    lines.push(`    funded x402 payers: ${o.devnetPayers ?? 0} accounts of the "test … junk" mnemonic, 1,000 USDC each`);
    lines.push(`    watch wallets:      npx vigil devnet wallets`);
    if (config.WEBHOOK_ALLOW_HTTP || config.WEBHOOK_ALLOW_PRIVATE) {
      lines.push("");
      lines.push("  WARNING: webhook URL checks are relaxed (plain HTTP and private/loopback receivers are allowed).");
      lines.push("           Never run a public service with WEBHOOK_ALLOW_HTTP or WEBHOOK_ALLOW_PRIVATE.");
    }
    if (o.url) {
      lines.push("");
      lines.push(`  try:  npx vigil pay GET ${o.url}/v1/q/xmr/height`);
    }
  }
  return `${lines.join("\n")}\n`;
}
