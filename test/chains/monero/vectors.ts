/** Locates the Monero vectors vendored in test/vectors/monero (sources and licences: test/vectors/README.md). */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const VECTOR_DIR = path.resolve(repoRoot, "test", "vectors", "monero");
export const vectorsPresent = existsSync(path.join(VECTOR_DIR, "crypto-tests.txt"));
if (!vectorsPresent) console.warn(`Monero vectors not found at ${VECTOR_DIR}: vector tests are skipped.`);

export function readVector(name: string): string {
  return readFileSync(path.join(VECTOR_DIR, name), "utf8");
}

export function readJsonVector<T>(name: string): T {
  return JSON.parse(readVector(name)) as T;
}

export interface TxCase {
  name: string;
  kind: "tx" | "block";
  hex: string;
  view_secret: string;
  spend_secret: string;
  spend_public: string;
  view_public: string;
  address?: string;
  expect: { output_key: string; amount: string; one_time_secret: string }[];
  computed_here: {
    rct_type: number;
    outputs: number;
    tx_pubkey: string;
    derivation?: string;
    owned: { index: number; subaddress: [number, number]; view_tag?: string; commitment_ok?: boolean }[];
    extra_nonce?: string;
    decrypted_payment_id?: string;
  };
}
