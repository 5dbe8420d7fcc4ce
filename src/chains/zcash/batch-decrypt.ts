/**
 * Trial decryption of one output against the keys of many watches at once.
 * The scanner calls only these functions; their answer for each watch is
 * exactly what `trySaplingOutput` / `tryActionOutput` answer for that
 * watch's keys alone (the batch form exists so work that depends only on the
 * output, not on the key, is done once per output).
 */
import type { ActionOutputData, DecryptedNote, SaplingOutputData, ScanKeys } from "./note-decrypt.js";
import { trySaplingOutput, tryActionOutput } from "./note-decrypt.js";

/** The keys of many watches, prepared once and reused for every block. */
export interface PreparedKeys {
  readonly keys: readonly ScanKeys[];
}

export interface BatchHit {
  /** Index into the `keys` given to `prepareKeys`. */
  watch: number;
  note: DecryptedNote;
}

export function prepareKeys(keys: readonly ScanKeys[]): PreparedKeys {
  return { keys };
}

export function batchTrySapling(prepared: PreparedKeys, out: SaplingOutputData, height?: number): BatchHit[] {
  const hits: BatchHit[] = [];
  prepared.keys.forEach((k, watch) => {
    if (k.sapling.length === 0) return;
    const note = trySaplingOutput(k, out, height);
    if (note) hits.push({ watch, note });
  });
  return hits;
}

export function batchTryAction(prepared: PreparedKeys, pool: "orchard" | "ironwood", out: ActionOutputData): BatchHit[] {
  const hits: BatchHit[] = [];
  prepared.keys.forEach((k, watch) => {
    if (k.orchard.length === 0) return;
    const note = tryActionOutput(k, pool, out);
    if (note) hits.push({ watch, note });
  });
  return hits;
}
