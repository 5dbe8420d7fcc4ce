/**
 * `vigil zcash scan-tx`: reads {"hex", "ufvk", "height"?} as JSON on stdin and
 * prints {"txid", "notes": [...]} — what the transaction pays to the UFVK, with
 * the same parser and trial decryption the service uses. "height" (the block
 * height of the transaction) decides which Sapling lead bytes are valid
 * (ZIP 212); without it both 0x01 and 0x02 are accepted. Optional "gapLimit"
 * bounds the transparent external chain search (default 20).
 */
import { ServiceError } from "../../core/errors.js";
import { bytesToHex } from "./bytes.js";
import { DEFAULT_TRANSPARENT_GAP_LIMIT, scanTransaction } from "./scan-tx.js";
import { parseTransactionHex, TxParseError } from "./tx-parse.js";
import { transactionId } from "./txid.js";
import { decodeUfvk } from "./zip316.js";
import { failCli, readJsonObjectInput, type CliIo } from "../../core/read-input.js";

export type { CliIo };

export const SCAN_TX_USAGE = `usage: vigil zcash scan-tx < input.json
  input: {"hex": "<raw v4/v5/v6 transaction>", "ufvk": "<unified full viewing key>", "height"?: n, "gapLimit"?: n}
  output: {"txid", "version", "notes": [{"pool", "outputIndex", "scope", "value" (zatoshi string), "memo" ({"text"}|{"hex"}|null), "diversifierIndex"?, "nullifier"? (Orchard/Ironwood)}]}`;

const MAX_INPUT = 4 * 1024 * 1024;
const MAX_GAP_LIMIT = 1000;

const fail = failCli;

export async function runZcashScanTx(io: CliIo): Promise<number> {
  const read = await readJsonObjectInput(io, MAX_INPUT);
  if ("exit" in read) return read.exit;
  const input = read.input;
  const { hex, ufvk, height, gapLimit } = input;
  if (typeof hex !== "string" || typeof ufvk !== "string") return fail(io, "invalid_input", 'fields "hex" and "ufvk" are required strings', 2);
  if (height !== undefined && !(Number.isSafeInteger(height) && (height as number) >= 0)) return fail(io, "invalid_input", '"height" must be a non-negative integer', 2);
  if (gapLimit !== undefined && !(Number.isSafeInteger(gapLimit) && (gapLimit as number) >= 0 && (gapLimit as number) <= MAX_GAP_LIMIT))
    return fail(io, "invalid_input", `"gapLimit" must be an integer 0..${MAX_GAP_LIMIT}`, 2);

  let key;
  try {
    key = decodeUfvk(ufvk.trim());
  } catch (e) {
    if (e instanceof ServiceError) return fail(io, e.code, e.message, 1);
    throw e;
  }
  let tx;
  try {
    tx = parseTransactionHex(hex.trim());
  } catch (e) {
    if (e instanceof TxParseError) return fail(io, "unparsable_transaction", `${e.message} (${e.problem})`, 1);
    throw e;
  }
  const notes = scanTransaction(tx, key, {
    ...(height !== undefined ? { height: height as number } : {}),
    gapLimit: (gapLimit as number | undefined) ?? DEFAULT_TRANSPARENT_GAP_LIMIT,
  });
  const result = {
    txid: transactionId(tx),
    version: tx.version,
    notes: notes.map((n) => ({
      pool: n.pool,
      outputIndex: n.outputIndex,
      scope: n.scope,
      value: n.value.toString(),
      memo: n.memo,
      ...(n.diversifierIndex !== undefined ? { diversifierIndex: n.diversifierIndex.toString() } : {}),
      ...(n.nullifier ? { nullifier: bytesToHex(n.nullifier) } : {}),
    })),
    diagnostics: {
      network: key.network,
      keyPools: [...(key.transparent ? ["transparent"] : []), ...(key.sapling ? ["sapling"] : []), ...(key.orchard ? ["orchard", "ironwood"] : [])],
      transparentOutputs: tx.vout.length,
      saplingOutputs: tx.sapling.outputs.length,
      orchardActions: tx.orchard?.actions.length ?? 0,
      ironwoodActions: tx.ironwood?.actions.length ?? 0,
      rawBytes: tx.raw.length,
      headerHex: bytesToHex(tx.raw.subarray(0, 4)),
    },
  };
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}
