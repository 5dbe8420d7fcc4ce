/**
 * `vigil monero scan-tx`: reads {"hex", "address", "viewKey"} as JSON on
 * stdin (hex = a serialized transaction, or a serialized block whose coinbase
 * is scanned) and prints the outputs that belong to the watch, using the same
 * parser and scanner as the service. Optional input fields: "kind" ("tx" |
 * "block", default: try tx then block), "lookahead" ({accounts, minors}),
 * "subaddressIndex" ({major, minor}). `vigil monero carrot-scan` (one Carrot
 * output set) is carrot-scan-cli.ts; this entry dispatches to it.
 */
import { ServiceError } from "../../core/errors.js";
import { hexToBytesStrict } from "./encoding.js";
import { parseExtra } from "./extra.js";
import { DEFAULT_LOOKAHEAD, makeViewAccount } from "./keys.js";
import { explainViewTags, scanTx } from "./scan.js";
import { parseBlockBlob, parseTransactionBlob } from "./tx-binary.js";
import type { ScanTx, SubaddressIndex, SubaddressLookahead } from "./types.js";
import { failCli, readJsonObjectInput, type CliIo } from "../../core/read-input.js";
import { CARROT_SCAN_USAGE, runCarrotScanCli } from "./carrot-scan-cli.js";
import { carrotEnotesOf } from "./carrot/tx.js";

export type { CliIo };

const USAGE = `usage: vigil monero scan-tx < input.json
  input: {"hex": "<serialized tx or block>", "address": "<Monero address>", "viewKey": "<64 hex>",
          "kind"?: "tx"|"block", "lookahead"?: {"accounts": n, "minors": n}, "subaddressIndex"?: {"major": n, "minor": n}}
  output: {"kind", "txid", "outputs": [{"outputIndex", "publicKey", "amount" (piconero string), "subaddress"}], "diagnostics"}
${CARROT_SCAN_USAGE}`;

const MAX_INPUT = 4 * 1024 * 1024;

function isIndex(v: unknown): v is SubaddressIndex {
  return typeof v === "object" && v !== null && Number.isInteger((v as SubaddressIndex).major) && Number.isInteger((v as SubaddressIndex).minor);
}

function isLookahead(v: unknown): v is SubaddressLookahead {
  return typeof v === "object" && v !== null && Number.isInteger((v as SubaddressLookahead).accounts) && Number.isInteger((v as SubaddressLookahead).minors);
}

const fail = failCli;

/** For a transaction with Carrot outputs: how many, and why its enotes could not be read if they could not. */
function carrotDiagnostics(tx: ScanTx): Record<string, unknown> {
  const carrot = carrotEnotesOf(tx);
  if (carrot.kind === "none") return {};
  return { carrotOutputs: tx.outputs.filter((o) => o.carrot !== undefined).length, ...(carrot.kind === "invalid" ? { carrotError: carrot.error } : {}) };
}

export async function runMoneroCli(args: string[], io: CliIo): Promise<number> {
  const [sub] = args;
  if (sub === undefined || sub === "help" || sub === "--help" || sub === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "carrot-scan") return runCarrotScanCli(io);
  if (sub !== "scan-tx") {
    io.stderr.write(`unknown monero command "${sub}"\n${USAGE}\n`);
    return 2;
  }
  const read = await readJsonObjectInput(io, MAX_INPUT);
  if ("exit" in read) return read.exit;
  const input = read.input;
  const { hex, address, viewKey, kind } = input;
  if (typeof hex !== "string" || typeof address !== "string" || typeof viewKey !== "string") {
    return fail(io, "invalid_input", 'fields "hex", "address" and "viewKey" are required strings', 2);
  }
  if (kind !== undefined && kind !== "tx" && kind !== "block") return fail(io, "invalid_input", '"kind" must be "tx" or "block"', 2);
  if (input.lookahead !== undefined && !isLookahead(input.lookahead)) return fail(io, "invalid_input", '"lookahead" must be {accounts, minors}', 2);
  if (input.subaddressIndex !== undefined && !isIndex(input.subaddressIndex)) return fail(io, "invalid_input", '"subaddressIndex" must be {major, minor}', 2);
  const bytes = hexToBytesStrict(hex.trim());
  if (!bytes || bytes.length === 0) return fail(io, "invalid_hex", '"hex" is not a hex string of whole bytes', 2);

  let account;
  try {
    account = makeViewAccount(address, viewKey, {
      lookahead: input.lookahead ?? DEFAULT_LOOKAHEAD,
      ...(input.subaddressIndex ? { subaddressIndex: input.subaddressIndex } : {}),
    });
  } catch (e) {
    if (e instanceof ServiceError) return fail(io, e.code, e.message, 1);
    throw e;
  }

  let tx: ScanTx;
  let foundKind: "tx" | "block";
  let blockHash: string | undefined;
  const asTx = kind === "block" ? null : parseTransactionBlob(bytes);
  if (asTx?.ok) {
    tx = asTx.value;
    foundKind = "tx";
  } else {
    const asBlock = kind === "tx" ? null : parseBlockBlob(bytes);
    if (!asBlock?.ok) {
      const reasons = [asTx && !asTx.ok ? `as a transaction: ${asTx.error}` : "", asBlock && !asBlock.ok ? `as a block: ${asBlock.error}` : ""];
      return fail(io, "unparsable_blob", `could not parse the blob (${reasons.filter(Boolean).join("; ")})`, 1);
    }
    tx = asBlock.value.minerTx;
    foundKind = "block";
    blockHash = asBlock.value.hash;
  }

  const owned = scanTx(tx, account);
  const extra = parseExtra(tx.extra);
  const result = {
    kind: foundKind,
    ...(blockHash ? { blockHash } : {}),
    txid: tx.txid || null,
    outputs: owned.map((o) => ({
      outputIndex: o.outputIndex,
      publicKey: o.publicKey,
      amount: o.amount.toString(),
      subaddress: o.subaddress,
      ...(o.paymentId ? { paymentId: o.paymentId } : {}),
    })),
    diagnostics: {
      watch: { kind: account.kind, network: account.network, ...(account.kind === "subaddress" ? {} : { lookahead: account.lookahead }) },
      version: tx.version,
      rctType: tx.rctType,
      coinbase: tx.isCoinbase,
      unlockTime: tx.unlockTime.toString(),
      outputCount: tx.outputs.length,
      taggedOutputs: tx.outputs.filter((o) => o.viewTag !== undefined).length,
      ...carrotDiagnostics(tx),
      txPublicKeys: extra.txPublicKeys.length,
      additionalPublicKeys: extra.additionalPublicKeys.length,
      extraComplete: extra.complete,
      ...(extra.error ? { extraError: extra.error } : {}),
      // A matching view tag with no owned output means: the tag hit by chance (1/256), or the
      // output is to a subaddress outside the look-ahead, or its amount did not open the commitment.
      viewTags: explainViewTags(tx, account),
    },
  };
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}
