/**
 * Loads the service's whole module graph, its lazily imported parts included,
 * before any test file runs. The one worker keeps its modules across files
 * (isolate: false), so without this the graph would load piecemeal, and a
 * library loaded after hot crypto code has been optimised can leave that code
 * far slower for the rest of the process (measured, in plain Node as well:
 * BLAKE2b 25 µs → 1.6 ms a call once viem and then pg-pool loaded after it had
 * warmed; a Monero scan stalled 9 s when the x402 facilitator was first
 * imported after a devnet had run). Loading everything first, as a service
 * process does before it works, keeps every file's timing what it is alone.
 */
import "pg";
import "viem";
import "pino";
import "@electric-sql/pglite";
import "@electric-sql/pglite/node-postgres";
import "@coinbase/x402";
import "../src/app.js";
import "../src/workers.js";
import "../src/banner.js";
import "../src/db/connection.js";
import "../src/db/migrate.js";
import "../src/x402/local-facilitator.js";
import "../src/x402/reconcile.js";
import "../src/x402/pay-cli.js";
import "../src/mcp/stdio.js";
import "../devnet/index.js";
import "../devnet/cli.js";
import "../src/chains/zcash/cli.js";
import "../src/chains/zcash/scan-tx-cli.js";
import "../src/chains/monero/scan-tx-cli.js";
