/**
 * What one scan found for a watch, as a pure diff between the outputs known
 * after the previous tick and the outputs this scan reports:
 *   - new: reported now, not known before;
 *   - confirmed: past the chain's confirmation depth now, not before (an
 *     output that arrives already that deep is both new and confirmed);
 *   - reorged: known before, gone now — reorged out of the chain or dropped
 *     from the pool.
 * A scanner may forget outputs too deep to be reorged (Monero folds them into
 * a sum): an output that vanishes at FINAL_CONFIRMATIONS or deeper is
 * forgotten silently, never reported as reorged.
 *
 * Outputs are identified by (txid, index). The memory kept between ticks
 * leaves out confirmation counts, so it only changes (and is only written)
 * when an output appears, moves, confirms or goes.
 */
import type { Transaction } from "kysely";
import type { ChainId, ReceivedOutput } from "../chains/scanner.js";
import type { DB } from "../db/schema.js";

/** Deeper than any reorg a scanner follows (Monero's window is 20 blocks, and it folds outputs at ≥ 60). */
export const FINAL_CONFIRMATIONS = 60;

/** One output as remembered between ticks. */
export type KnownOutput = Omit<ReceivedOutput, "confirmations"> & { confirmed: boolean };

export interface OutputFindings {
  new: ReceivedOutput[];
  confirmed: ReceivedOutput[];
  /** As last known; `confirmations` is 0 (they are no longer in the chain). */
  reorged: ReceivedOutput[];
}

/** The findings of one scanned watch, as subscribers receive them. */
export interface WatchFindings extends OutputFindings {
  watchId: string;
  chain: ChainId;
  address: string;
}

/**
 * A product that settles on payments (checkout invoices, coin top-up quotes).
 * Called once per tick batch, inside the batch transaction after the watch
 * rows are written, with the watches whose scan found anything. Use only
 * `trx`; a throw rolls the whole batch back and its watches are scanned again
 * at the next tick, so the same findings may arrive more than once: key what
 * you record on (watchId, txid, index). Keep it short: the batch's watch rows
 * stay locked until it returns.
 */
export interface ScanSubscriber {
  readonly name: string;
  onScan(trx: Transaction<DB>, found: readonly WatchFindings[]): Promise<void>;
}

export interface FindingsDiff {
  findings: OutputFindings;
  /** The memory to keep for the next tick. */
  known: KnownOutput[];
  /** Whether `known` differs from the previous memory (else nothing needs writing). */
  changed: boolean;
}

const keyOf = (o: { txid: string; index: string }) => `${o.txid}:${o.index}`;

function isConfirmed(o: ReceivedOutput, depth: number): boolean {
  return o.height !== null && o.confirmations >= Math.max(1, depth);
}

function remember(o: ReceivedOutput, depth: number): KnownOutput {
  const { confirmations: _c, ...rest } = o;
  return { ...rest, confirmed: isConfirmed(o, depth) };
}

function sameKnown(a: KnownOutput, b: KnownOutput): boolean {
  return a.amountAtomic === b.amountAtomic && a.height === b.height && a.confirmed === b.confirmed;
}

/** Reads a stored memory; anything unrecognised counts as nothing known. */
export function readKnownOutputs(value: unknown): KnownOutput[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (o): o is KnownOutput =>
      typeof o === "object" &&
      o !== null &&
      typeof o.txid === "string" &&
      typeof o.index === "string" &&
      typeof o.amountAtomic === "string" &&
      (o.height === null || Number.isInteger(o.height)) &&
      typeof o.confirmed === "boolean",
  );
}

/**
 * `depth`: confirmations at which the chain counts an output in the balance.
 * `scannedHeight`: the height the scan reached (with the outputs' own depths,
 * it bounds how deep a vanished output was).
 */
export function diffOutputs(
  previous: readonly KnownOutput[],
  current: readonly ReceivedOutput[],
  chain: { depth: number; scannedHeight: number },
): FindingsDiff {
  const before = new Map(previous.map((o) => [keyOf(o), o]));
  const findings: OutputFindings = { new: [], confirmed: [], reorged: [] };
  const known: KnownOutput[] = [];
  const seen = new Set<string>();
  let changed = false;
  // The tip as the scan saw it: the scanned height, or deeper when outputs report more confirmations.
  let tip = chain.scannedHeight;
  for (const o of current) if (o.height !== null) tip = Math.max(tip, o.height + o.confirmations - 1);

  for (const o of current) {
    const key = keyOf(o);
    if (seen.has(key)) continue; // a scanner lists an output once; a repeat is not news
    seen.add(key);
    const now = remember(o, chain.depth);
    const was = before.get(key);
    if (!was) findings.new.push(o);
    if (now.confirmed && !was?.confirmed) findings.confirmed.push(o);
    if (!was || !sameKnown(was, now)) changed = true;
    known.push(now);
  }
  for (const [key, o] of before) {
    if (seen.has(key)) continue;
    changed = true;
    const depth = o.height === null ? 0 : tip - o.height + 1;
    if (depth >= FINAL_CONFIRMATIONS) continue; // forgotten by the scanner, not reorged
    const { confirmed: _c, ...rest } = o;
    findings.reorged.push({ ...rest, confirmations: 0 });
  }
  return { findings, known, changed };
}

export function hasFindings(f: OutputFindings): boolean {
  return f.new.length > 0 || f.confirmed.length > 0 || f.reorged.length > 0;
}
