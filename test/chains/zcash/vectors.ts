/**
 * Loads the Zcash test vectors vendored in test/vectors/zcash (sources and
 * licences: test/vectors/README.md). When the folder is absent (only with
 * ZCASH_VECTOR_DIR pointing elsewhere), vector suites skip and say so.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** `test/vectors/zcash` in the repository; ZCASH_VECTOR_DIR overrides it (used to check the skip path). */
export const VECTOR_DIR = process.env.ZCASH_VECTOR_DIR ?? path.resolve(repoRoot, "test", "vectors", "zcash");
export const vectorsPresent = fs.existsSync(VECTOR_DIR);

let warned = false;
export function warnIfAbsent(): void {
  if (!vectorsPresent && !warned) {
    warned = true;
    console.warn(`Zcash vector folder ${VECTOR_DIR} is absent: vector-based test cases are skipped.`);
  }
}

export type VectorRow = Record<string, unknown>;

/**
 * Parses a vector file into objects keyed by the field list in element 1.
 * Bare integers of 16+ digits are quoted first so 64-bit values keep their precision.
 */
export function loadVectors(name: string): VectorRow[] {
  const text = fs.readFileSync(path.join(VECTOR_DIR, name), "utf8");
  const safe = text.replace(/([[,:]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"');
  const data = JSON.parse(safe) as unknown[][];
  const fields = String(data[1][0])
    .split(",")
    .map((f) => f.trim());
  return data.slice(2).map((row) => Object.fromEntries(fields.map((f, i) => [f, row[i]])));
}

export const str = (row: VectorRow, k: string): string => {
  const v = row[k];
  if (typeof v !== "string") throw new Error(`vector field ${k} is not a string`);
  return v;
};
export const optStr = (row: VectorRow, k: string): string | null => {
  const v = row[k];
  if (v === null || v === undefined) return null;
  if (typeof v !== "string") throw new Error(`vector field ${k} is not a string`);
  return v;
};
export const num = (row: VectorRow, k: string): number => {
  const v = row[k];
  if (typeof v !== "number") throw new Error(`vector field ${k} is not a number`);
  return v;
};
export const optNum = (row: VectorRow, k: string): number | null => {
  const v = row[k];
  return v === null || v === undefined ? null : num(row, k);
};
