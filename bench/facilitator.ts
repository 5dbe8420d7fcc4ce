/**
 * The devnet's x402 facilitator (devnet/facilitator.ts: the project's local
 * facilitator behind the facilitator HTTP API) on a chain of the caller's
 * choosing, in a process of its own, for bench:http's CHAIN=anvil: it
 * settles on Foundry's anvil with Circle's USDC, and its CPU is counted
 * apart from the service's and the node's.
 *
 *   node --import tsx bench/facilitator.ts <rpc url> <gas key[,gas key...]>
 *
 * Prints "facilitator listening on <url>" when it serves; SIGTERM stops it.
 */
import type { Hex } from "viem";
import { startDevnetFacilitator } from "../devnet/facilitator.js";

const [rpcUrl, privateKey] = process.argv.slice(2);
if (!rpcUrl || !privateKey) {
  process.stderr.write("usage: facilitator.ts <rpc url> <gas key>\n");
  process.exit(2);
}
const f = await startDevnetFacilitator({ rpcUrl, privateKey: privateKey.split(",") as Hex[], network: "eip155:84532" });
process.stdout.write(`facilitator listening on ${f.url}\n`);
process.on("SIGTERM", () => void f.close().then(() => process.exit(0)));
