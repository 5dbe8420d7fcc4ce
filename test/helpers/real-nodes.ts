/**
 * Gate of the real-node suites (test/real/): they run Debian's monerod and
 * monero-wallet-rpc, or npm's anvil, as child processes on loopback.
 *
 * - Where the binary is present they run, always.
 * - Where it is absent they are skipped, and say so loudly (a banner on
 *   stderr naming the binary and how to install it): a quiet skip would
 *   read as a pass.
 * - Under CI (CI=true) an absent binary is a failure, never a skip:
 *   `.ci/run` installs Debian's `monero` package, and anvil comes with
 *   `npm ci`.
 * - VIGIL_REAL_NODES=skip skips them on purpose (`.ci/run` sets it for the
 *   PGlite pass only, so the real nodes run once per CI run, on
 *   PostgreSQL); it is printed the same way.
 */
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const p = path.join(dir, bin);
    if (dir && fs.existsSync(p)) return p;
  }
  return undefined;
}

export const MONEROD = onPath("monerod");
export const MONERO_WALLET_RPC = onPath("monero-wallet-rpc");
export const ANVIL = (() => {
  const p = path.join(root, "node_modules", "@foundry-rs", "anvil-linux-amd64", "bin", "anvil");
  return fs.existsSync(p) ? p : undefined;
})();

function banner(lines: string[]): void {
  const bar = "!".repeat(Math.max(...lines.map((l) => l.length)) + 4);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `! ${l}`).join("\n")}\n${bar}\n\n`);
}

/**
 * Whether a real-node suite runs here. `what` names the suite, `missing` the
 * binaries it needs that are absent with how to get them. Throws under CI
 * when something is missing, so CI can never pass by skipping.
 */
export function realNodesRun(what: string, needs: { name: string; present: string | undefined; install: string }[]): boolean {
  if (process.env.VIGIL_REAL_NODES === "skip") {
    banner([`SKIPPED: ${what} (VIGIL_REAL_NODES=skip; CI runs it in the PostgreSQL pass)`]);
    return false;
  }
  const missing = needs.filter((n) => !n.present);
  if (missing.length === 0) return true;
  const lines = [`SKIPPED: ${what}`, ...missing.map((m) => `  ${m.name} not found: ${m.install}`)];
  if (process.env.CI === "true" || process.env.CI === "1") {
    throw new Error(`${lines.join("\n")}\nCI never skips the real-node suites: .ci/run must install what they need.`);
  }
  banner(lines);
  return false;
}

export const moneroNeeds = [
  { name: "monerod", present: MONEROD, install: "apt-get install monero (Debian's package; .ci/run installs it)" },
  { name: "monero-wallet-rpc", present: MONERO_WALLET_RPC, install: "apt-get install monero" },
];
export const anvilNeeds = [{ name: "anvil", present: ANVIL, install: "npm install (the dev dependency @foundry-rs/anvil-linux-amd64)" }];
