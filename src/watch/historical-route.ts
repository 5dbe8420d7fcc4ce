/**
 * POST /v1/private/historical ($0.50): one-off scan of a view key's history.
 * The route is chain-agnostic: it looks the chain up in a map of historical
 * scan functions (Monero: createMoneroHistorical; Zcash plugs in by adding
 * its entry). A chain without an entry answers 503 chain_not_configured.
 * The view key is held in memory for the call only: never stored or logged.
 */
import { z } from "zod";
import { badRequest, unavailable } from "../core/errors.js";
import { defineRoute } from "../http/route-table.js";
import type { ChainId } from "../chains/scanner.js";
import type { MoneroHistoricalService } from "../chains/monero/historical.js";
import type { ZcashHistoricalScan } from "../chains/zcash/historical.js";
import { SubaddressLookaheadInput } from "./subaddresses.js";

export const historicalInput = z.object({
  chain: z.enum(["monero", "zcash"]),
  viewKey: z.string().min(1).max(4096).describe("Monero: private view key (64 hex). Zcash: UFVK. Held in memory only."),
  address: z.string().min(1).max(200).optional().describe("Required for Monero (primary address or subaddress); ignored for Zcash."),
  birthdayHeight: z.number().int().min(0).optional().describe("First block scanned; Monero default 0 (the range limit applies)."),
  toHeight: z.number().int().min(0).optional().describe("Last block scanned; default the chain tip."),
  includeNotes: z.boolean().optional().describe("Also list every output/note found (Zcash: unspent shielded notes with their anchor, position and Merkle path)."),
  subaddressLookahead: SubaddressLookaheadInput.optional().describe("Monero, primary address: the subaddresses scanned (default: the server's look-ahead); ignored for Zcash"),
});
export type HistoricalInput = z.infer<typeof historicalInput>;

const atomic = z.string().regex(/^\d+$/);

/** One output (Monero) or note (Zcash) found; the Monero-only fields are optional. */
const historicalEntry = z.object({
  txid: z.string(),
  output_index: z.number().int().optional(),
  amount_atomic: atomic,
  height: z.number().int(),
  confirmations: z.number().int(),
  subaddress: z.object({ major: z.number().int(), minor: z.number().int() }).nullable().optional(),
  unlock_time: z.string().optional().describe("Monero: the output's unlock_time, as a decimal string"),
  unlocked: z.boolean().optional().describe("Monero: spendable now (unlock time and the 10-block age passed)"),
  coinbase: z.boolean().optional().describe("Monero: a miner output"),
  public_key: z.string().optional().describe("Monero: the output's one-time public key"),
  pool: z.enum(["transparent", "sapling", "orchard", "ironwood"]).optional().describe("Zcash: the pool of the note"),
  scope: z.enum(["external", "internal"]).optional().describe("Zcash: external (received) or internal (change) address"),
  memo: z
    .union([z.object({ text: z.string() }), z.object({ hex: z.string() }), z.null()])
    .optional()
    .describe("Zcash: ZIP 302 memo, {text} or {hex}; null when empty or transparent"),
  spent: z.boolean().optional().describe("Zcash: the note's spend (nullifier or outpoint) is mined within the range"),
  spent_height: z.number().int().optional().describe("Zcash: height of the spend"),
  spent_txid: z.string().optional().describe("Zcash: transaction that spent the note"),
  diversifier_index: z.string().optional().describe("Zcash: ZIP 32 diversifier index (shielded) or external address index (transparent), decimal"),
  anchor: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("Zcash, unspent shielded notes: root of the pool's note commitment tree at to_height (32 bytes little-endian, hex), checked against the node's tree state"),
  position: z.number().int().min(0).optional().describe("Zcash, unspent shielded notes: the note's leaf index in its pool's tree"),
  merkle_path: z
    .array(z.string().regex(/^[0-9a-f]{64}$/))
    .length(32)
    .optional()
    .describe("Zcash, unspent shielded notes: the 32 sibling hashes (hex, leaf level first) from the note commitment to `anchor`"),
});

export const historicalOutput = z.object({
  chain: z.enum(["monero", "zcash"]),
  network: z.string(),
  address: z.string().optional(),
  from_height: z.number().int(),
  to_height: z.number().int(),
  tip_height: z.number().int(),
  scanned_blocks: z.number().int(),
  received_atomic: atomic,
  spent_atomic: atomic,
  spendable_atomic: atomic,
  locked_atomic: atomic.optional(),
  spent_visibility: z
    .string()
    .describe("`not_visible_with_view_key` for Monero (spends need the spend key); `visible_with_full_viewing_key` for Zcash (nullifiers)"),
  output_count: z.number().int(),
  notes: z.array(z.string()),
  outputs: z.array(historicalEntry).optional(),
});
export type HistoricalOutput = z.infer<typeof historicalOutput>;

/**
 * One chain's historical scan over the route's validated input. Its optional
 * `precheck` refuses, before the 402, what can be decided without scanning
 * (address and key, heights, the range limit), so nobody pays for a 400.
 */
export type HistoricalScan = ((input: HistoricalInput, signal?: AbortSignal) => Promise<HistoricalOutput>) & {
  precheck?: (input: HistoricalInput) => Promise<void>;
};

/** The chains that can answer a historical scan; an absent chain is a 503. */
export type HistoricalScans = Partial<Record<ChainId, HistoricalScan>>;

const CHAIN_NAMES: Record<ChainId, string> = { monero: "Monero", zcash: "Zcash" };

/** Adapts the Monero historical service to the route's input: Monero needs the address the key belongs to. */
export function moneroHistoricalScan(service: MoneroHistoricalService): HistoricalScan {
  const serviceInput = (input: HistoricalInput) => {
    if (!input.address) throw badRequest("address_required", "A Monero historical scan needs the address the view key belongs to.");
    return {
      address: input.address,
      viewKey: input.viewKey,
      ...(input.birthdayHeight !== undefined ? { birthdayHeight: input.birthdayHeight } : {}),
      ...(input.toHeight !== undefined ? { toHeight: input.toHeight } : {}),
      includeOutputs: input.includeNotes ?? false,
      ...(input.subaddressLookahead ? { lookahead: input.subaddressLookahead } : {}),
    };
  };
  const scan = async (input: HistoricalInput) => historicalOutput.parse(await service(serviceInput(input)));
  return Object.assign(scan, { precheck: (input: HistoricalInput) => service.precheck(serviceInput(input)) });
}

/** Adapts the Zcash historical scan: the UFVK names every receiver, so `address` is not needed. */
export function zcashHistoricalScan(scan: ZcashHistoricalScan): HistoricalScan {
  const scanInput = (input: HistoricalInput) => ({
    viewKey: input.viewKey,
    ...(input.birthdayHeight !== undefined ? { birthdayHeight: input.birthdayHeight } : {}),
    ...(input.toHeight !== undefined ? { toHeight: input.toHeight } : {}),
    includeNotes: input.includeNotes ?? false,
  });
  const run = async (input: HistoricalInput, signal?: AbortSignal) => historicalOutput.parse(await scan(scanInput(input), signal));
  const precheck = scan.precheck;
  return precheck ? Object.assign(run, { precheck: (input: HistoricalInput) => precheck(scanInput(input)) }) : run;
}

/** The historical scan price in atomic USDC ($0.50). */
export const HISTORICAL_PRICE = 500_000n;

export function historicalRoute(scans: HistoricalScans) {
  return defineRoute({
    method: "POST",
    path: "/v1/private/historical",
    operationId: "privateHistorical",
    summary: "One-off historical scan of a view key: totals received/spent/spendable and optionally every output",
    description:
      "Scans birthdayHeight..toHeight with a read-only view key. The key is held in memory for this call only, never stored or logged. " +
      "Monero: a view key cannot see spends, so spent_atomic is 0 and spent_visibility says so. Zcash: the UFVK sees spends through nullifiers; with includeNotes each note has its pool, memo and spent flag, and each unspent shielded note its anchor, position and Merkle path (Sapling Pedersen / Orchard and Ironwood Sinsemilla trees), checked against the node's tree state. Ranges longer than the server's limit are refused " +
      "(400 range_too_large, with a suggested birthdayHeight); a scan that runs out of time answers 504 scan_timeout.",
    tags: ["private-watch"],
    input: historicalInput,
    output: historicalOutput,
    price: HISTORICAL_PRICE,
    // Reads the chain only: no DB transaction is held while it scans.
    readOnly: true,
    // The scan may run 25 s; the authorisation must outlive it, or the work would be done for nothing.
    minValiditySeconds: 60,
    // Written out, not sampled: a sampled Zcash note would carry a 32-hash merkle_path and swell the 402 that clients echo back.
    example: {
      input: { chain: "zcash", viewKey: "uview1…", birthdayHeight: 3_100_000, toHeight: 3_101_000 },
      output: {
        chain: "zcash",
        network: "mainnet",
        from_height: 3_100_000,
        to_height: 3_101_000,
        tip_height: 3_101_020,
        scanned_blocks: 1001,
        received_atomic: "250000000",
        spent_atomic: "100000000",
        spendable_atomic: "150000000",
        locked_atomic: "0",
        spent_visibility: "visible_with_full_viewing_key",
        output_count: 2,
        notes: ["Amounts are zatoshi (1 ZEC = 10^8)."],
      },
    },
    mcpTool: "service_private_watch_historical",
    // Input refusals (missing address, a key of another address, an unconfigured chain, heights) come before the 402.
    precheck: (input) => checkHistoricalScan(scans, input),
    handler: (input) => runHistoricalScan(scans, input),
  });
}

function scanFor(scans: HistoricalScans, input: HistoricalInput): HistoricalScan {
  const scan = scans[input.chain];
  if (!scan) {
    throw unavailable("chain_not_configured", `Historical scans for ${CHAIN_NAMES[input.chain]} are not available on this server yet.`, {
      chain: input.chain,
    });
  }
  return scan;
}

/** The refusals a historical scan can decide before payment: 503 for a chain without scans, then the chain's own precheck. */
export async function checkHistoricalScan(scans: HistoricalScans, input: HistoricalInput): Promise<void> {
  const scan = scanFor(scans, input);
  if (input.birthdayHeight !== undefined && input.toHeight !== undefined && input.birthdayHeight > input.toHeight) {
    throw badRequest("invalid_height", `birthdayHeight ${input.birthdayHeight} is above toHeight ${input.toHeight}.`, {
      from_height: input.birthdayHeight,
      to_height: input.toHeight,
    });
  }
  await scan.precheck?.(input);
}

/** Runs the chain's historical scan, or refuses with 503 when this server has none for the chain. */
export async function runHistoricalScan(scans: HistoricalScans, input: HistoricalInput): Promise<HistoricalOutput> {
  return scanFor(scans, input)(input);
}
