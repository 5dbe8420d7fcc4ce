/**
 * One-off historical scan (POST /v1/private/historical, chain zcash): every
 * note a UFVK can see between birthdayHeight and toHeight, with its spends.
 *
 * The UFVK lives only in this call's memory (its keys are built, used and
 * dropped; not cached, stored or logged). A full viewing key sees spends
 * (nullifiers), so unlike Monero spent_atomic is real: received_atomic −
 * spent_atomic is what is left, and spendable_atomic is the unspent part
 * with at least `confirmations` confirmations.
 *
 * Work is bounded: a range longer than maxBlocks is refused up front (400
 * `range_too_large` with a suggested birthdayHeight), and a run past its
 * deadline stops with 504 `scan_timeout` (details.scanned_through).
 * Default birthdayHeight: 3,042,000 on mainnet (as for watches), the
 * server's Sapling activation height elsewhere.
 *
 * With includeNotes, every unspent shielded note also gets the anchor (its
 * pool's tree root at toHeight), its position and its Merkle path
 * (note-paths.ts), checked against the server's tree state at toHeight: a
 * disagreement is 502 chain_tree_mismatch, never a wrong path. Only this
 * path builds trees; the scan itself (shared with live watches) does not.
 */
import { badRequest, ServiceError } from "../../core/errors.js";
import { checkHistoricalRange, historicalLimits, scanDeadline, type HistoricalOutputFields, type HistoricalTotals } from "../historical.js";
import type { CompactBlockSource } from "./compact.js";
import type { DecodedMemo } from "./note-decrypt.js";
import type { ZcashNetwork } from "./network.js";
import { displayHex, memoFromTransaction, PreparedKeyCache, scanBlock, SpendIndex, TRANSPARENT_GAP_LIMIT, type EngineWatch } from "./scan-engine.js";
import { noteKey, unspentNotePaths, type NotePath } from "./note-paths.js";
import { byChainOrder, confirmationsAt, freshState } from "./scan-state.js";
import { ZCASH_MAINNET_DEFAULT_START } from "./scanner.js";
import { buildWatchKeys } from "./watch-keys.js";
import { classifyKeyString } from "./zip316.js";

export interface ZcashHistoricalOptions {
  source: CompactBlockSource;
  /** When set, a UFVK of another network is refused (400 wrong_network). */
  network?: ZcashNetwork;
  /** Longest range accepted (HISTORICAL_MAX_BLOCKS, default 20 000). */
  maxBlocks?: number;
  /** Run-time budget in ms (default 25 000). */
  deadlineMs?: number;
  /** Confirmations before an unspent note counts as spendable (default 10). */
  confirmations?: number;
  /** Transparent gap limit (default 20). */
  gapLimit?: number;
}

export interface ZcashHistoricalInput {
  /** The UFVK (held in memory for this call only). */
  viewKey: string;
  birthdayHeight?: number;
  toHeight?: number;
  includeNotes?: boolean;
}

export interface ZcashHistoricalNote extends HistoricalOutputFields {
  pool: "transparent" | "sapling" | "orchard" | "ironwood";
  scope: "external" | "internal";
  memo: DecodedMemo;
  spent: boolean;
  spent_height?: number;
  spent_txid?: string;
  diversifier_index?: string;
  /** Unspent shielded notes: the pool's tree root at to_height (hex, 32 bytes little-endian). */
  anchor?: string;
  /** Unspent shielded notes: the leaf index in the pool's note commitment tree. */
  position?: number;
  /** Unspent shielded notes: 32 sibling hashes (hex), leaf level first. */
  merkle_path?: string[];
}

export interface ZcashHistoricalResult extends HistoricalTotals {
  chain: "zcash";
  spent_visibility: "visible_with_full_viewing_key";
  outputs?: ZcashHistoricalNote[];
}

export type ZcashHistoricalScan = ((input: ZcashHistoricalInput, signal?: AbortSignal) => Promise<ZcashHistoricalResult>) & {
  /** The refusals decided before any scanning (key, network, heights, range): run before payment. */
  precheck?: (input: ZcashHistoricalInput, signal?: AbortSignal) => Promise<void>;
};

export function createZcashHistorical(opts: ZcashHistoricalOptions): ZcashHistoricalScan {
  const { source } = opts;
  const { maxBlocks, deadlineMs } = historicalLimits(opts);
  const confirmations = Math.max(1, opts.confirmations ?? 10);
  const gapLimit = Math.max(1, opts.gapLimit ?? TRANSPARENT_GAP_LIMIT);

  /** What can be refused before any scanning (the route's precheck, before payment): the key, the network, the heights, the range. */
  const plan = async (input: ZcashHistoricalInput, signal?: AbortSignal) => {
    // The key first (400s name what is wrong), before any chain work. `address` is not needed: the UFVK names every receiver.
    const cls = classifyKeyString(input.viewKey.trim());
    if (cls === "mnemonic" || cls === "spending_key")
      throw badRequest("spending_key_not_viewing_key", "This is a spending key or seed phrase, which can move funds. Never share it; supply the unified full viewing key (uview…) instead.");
    if (cls === "address") throw badRequest("address_not_ufvk", "The view key field holds an address; supply the unified full viewing key (uview…).");
    const keys = buildWatchKeys("", input.viewKey);
    if (opts.network && keys.network !== opts.network) {
      throw badRequest("wrong_network", `This is a ${keys.network} key; this service scans ${opts.network}.`, { expected: opts.network, got: keys.network });
    }
    const tip = (await source.latestBlock(signal)).height;
    const from = input.birthdayHeight ?? (keys.network === "mainnet" ? ZCASH_MAINNET_DEFAULT_START : (await source.info(signal)).saplingActivationHeight);
    const to = input.toHeight ?? tip;
    const blocks = checkHistoricalRange(from, to, tip, maxBlocks);
    return { keys, from, to, tip, blocks };
  };

  const scan: ZcashHistoricalScan = async (input, signal) => {
    const deadline = scanDeadline(deadlineMs);
    const { keys, from, to, tip, blocks } = await plan(input, signal);
    const checkDeadline = (through: number) => deadline.check(through, from, to);
    const watch: EngineWatch = { keys, state: freshState(from) };
    keys.transparent?.ensure(gapLimit);
    const index = new SpendIndex([watch], gapLimit);
    const prepared = new PreparedKeyCache().for([watch]);
    const pools = keys.transparent ? (["transparent", "sapling", "orchard", "ironwood"] as const) : (["sapling", "orchard", "ironwood"] as const);
    let expect = from;
    for await (const block of source.blockRange(from, to, [...pools], signal)) {
      if (signal?.aborted) throw signal.reason;
      checkDeadline(expect - 1);
      if (block.height !== expect) continue; // out of order or repeated: ignored (the gap is reported below)
      expect++;
      const last = watch.state.hashes[watch.state.hashes.length - 1];
      if (last !== undefined && last !== displayHex(block.prevHash)) {
        throw new ServiceError("chain_rpc_failed", "The chain changed during the scan (a reorg); retry.", { at_height: block.height });
      }
      scanBlock(block, [watch], index, prepared, 2);
    }
    if (expect !== to + 1) throw new ServiceError("chain_rpc_failed", `The server ended the block range at ${expect - 1}, before ${to}.`, { scanned_through: expect - 1 });

    const notes = [...watch.state.notes].sort(byChainOrder);
    let paths = new Map<string, NotePath>();
    if (input.includeNotes) {
      paths = await unspentNotePaths(notes, {
        source,
        toHeight: to,
        toHash: watch.state.hashes[watch.state.hashes.length - 1]!,
        checkDeadline,
        signal,
      });
      // Memos: one full transaction per distinct txid, within the same deadline.
      const byTx = new Map<string, typeof notes>();
      for (const n of notes) if (n.pool !== "transparent") byTx.set(n.txid, [...(byTx.get(n.txid) ?? []), n]);
      for (const [txid, list] of byTx) {
        checkDeadline(to);
        const raw = (await source.transaction(Uint8Array.from(Buffer.from(txid, "hex")).reverse(), signal)).data;
        for (const n of list) {
          const memo = memoFromTransaction(raw, n, keys, n.height);
          if (memo !== undefined) n.memo = memo;
        }
      }
    }
    let received = 0n;
    let spent = 0n;
    let spendable = 0n;
    for (const n of notes) {
      const v = BigInt(n.value);
      received += v;
      if (n.spent) spent += v;
      else if (confirmationsAt(n.height, tip) >= confirmations) spendable += v;
    }
    const result: ZcashHistoricalResult = {
      chain: "zcash",
      network: keys.network,
      from_height: from,
      to_height: to,
      tip_height: tip,
      scanned_blocks: blocks,
      received_atomic: received.toString(),
      spent_atomic: spent.toString(),
      spendable_atomic: spendable.toString(),
      locked_atomic: (received - spent - spendable).toString(),
      spent_visibility: "visible_with_full_viewing_key",
      output_count: notes.length,
      notes: [
        "A unified full viewing key sees incoming notes (external and internal/change addresses) and their spends through nullifiers: spent_atomic counts notes whose spend is mined within the range.",
        `spendable_atomic counts unspent notes with at least ${confirmations} confirmations; locked_atomic is the unspent rest.`,
        `Transparent receivers: the UFVK's external P2PKH chain, ${gapLimit} addresses past the last one used.`,
        "Amounts are zatoshi (1 ZEC = 10^8).",
      ],
    };
    if (input.includeNotes) {
      result.outputs = notes.map((n) => ({
        txid: n.txid,
        output_index: n.index,
        amount_atomic: n.value,
        height: n.height,
        confirmations: confirmationsAt(n.height, tip),
        pool: n.pool,
        scope: n.scope,
        memo: n.memo ?? null,
        spent: n.spent !== null,
        ...(n.spent ? { spent_height: n.spent.height, spent_txid: n.spent.txid } : {}),
        ...(n.di !== null ? { diversifier_index: n.di } : {}),
        ...(paths.get(noteKey(n.pool, n.txid, n.index)) ?? {}),
      }));
    }
    return result;
  };
  return Object.assign(scan, { precheck: async (input: ZcashHistoricalInput, signal?: AbortSignal) => void (await plan(input, signal)) });
}
