/**
 * `vigil monero carrot-scan`: scans one Carrot output set for a watch and
 * says, per output, whether it is the watch's, with its amount, subaddress
 * and payment ID, or the step that refused it (carrot/scan.ts CarrotRefusal)
 * — the answer to "why did this Carrot payment not show up?".
 *
 * Input (JSON on stdin, hex strings as the chain carries the fields):
 *   {"address", "viewKey", "input_context" (33 B), "pid_enc" (8 B, or null/absent
 *    when the transaction carries none), "lookahead"?: {accounts, minors},
 *    "outputs": [{"Ko" 32 B, "Ca" 32 B, "a_enc" 8 B, "anchor_enc" 16 B, "view_tag" 3 B, "D_e" 32 B}]}
 * A coinbase output carries its clear "amount" (piconero, decimal string) in
 * place of "Ca" and "a_enc"; its input context is then 'C' ‖ block index.
 * Malformed input is refused as a whole (one error line, exit 2) rather than
 * scanned as "malformed": the operator typed it, the chain did not.
 */
import { ServiceError } from "../../core/errors.js";
import { failCli, readJsonObjectInput, type CliIo } from "../../core/read-input.js";
import { bytesToHex, hexToBytesStrict } from "./encoding.js";
import { DEFAULT_LOOKAHEAD, makeViewAccount } from "./keys.js";
import {
  ENCRYPTED_AMOUNT_BYTES,
  INPUT_CONTEXT_BYTES,
  INPUT_CONTEXT_COINBASE,
  JANUS_ANCHOR_BYTES,
  PAYMENT_ID_BYTES,
  VIEW_TAG_BYTES,
} from "./carrot/constants.js";
import {
  carrotSharedSecret,
  scanCarrotCoinbaseEnote,
  scanCarrotEnote,
  type CarrotCoinbaseEnote,
  type CarrotEnote,
  type CarrotScanResult,
  type CarrotTxContext,
} from "./carrot/scan.js";
import type { SubaddressLookahead, ViewAccount } from "./types.js";

export const CARROT_SCAN_USAGE = `usage: vigil monero carrot-scan < input.json
  input: {"address": "<Monero address>", "viewKey": "<64 hex>", "input_context": "<33 bytes hex>", "pid_enc": "<8 bytes hex>" | null,
          "outputs": [{"Ko", "Ca", "a_enc", "anchor_enc", "view_tag", "D_e"}], "lookahead"?: {"accounts": n, "minors": n}}
         (a coinbase output: "amount" (piconero string) in place of "Ca" and "a_enc")
  output: {"outputs": [{"index", "owned", "amount" (piconero string) | null, "subaddress": {"major", "minor"} | null,
           "payment_id" | null, "enote_type"?, "self_send"?, "refusal"?}], "watch"}`;

const MAX_INPUT = 1024 * 1024;
const MAX_OUTPUTS = 1024;
const U64_LIMIT = 1n << 64n;

/** An input problem, reported as one `invalid_input` line naming the field. */
class BadInput extends Error {}

type ParsedOutput = { kind: "normal"; enote: CarrotEnote } | { kind: "coinbase"; enote: CarrotCoinbaseEnote };

interface ParsedInput {
  address: string;
  viewKey: string;
  lookahead: SubaddressLookahead;
  context: CarrotTxContext;
  outputs: ParsedOutput[];
}

/** A hex field of exactly `bytes` bytes. */
function hexField(obj: Record<string, unknown>, name: string, bytes: number, where = name): Uint8Array {
  const v = obj[name];
  if (typeof v !== "string") throw new BadInput(`"${where}" is required: ${bytes} bytes as hex`);
  const b = hexToBytesStrict(v.trim());
  if (!b || b.length !== bytes) throw new BadInput(`"${where}" must be ${bytes} bytes as hex (${bytes * 2} hex digits)`);
  return b;
}

function clearAmount(v: unknown, where: string): bigint {
  if (typeof v !== "string" || !/^(0|[1-9][0-9]{0,19})$/.test(v) || BigInt(v) >= U64_LIMIT) {
    throw new BadInput(`"${where}" must be a piconero amount as a decimal string below 2^64`);
  }
  return BigInt(v);
}

/** The block index of a coinbase input context ('C' ‖ u64 LE ‖ 24 zero bytes). */
function coinbaseBlockIndex(inputContext: Uint8Array): bigint {
  if (inputContext[0] !== INPUT_CONTEXT_COINBASE || inputContext.subarray(9).some((b) => b !== 0)) {
    throw new BadInput(`a coinbase output (with "amount") needs a coinbase "input_context": 43 ‖ block index (u64 LE) ‖ 24 zero bytes`);
  }
  return new DataView(inputContext.buffer, inputContext.byteOffset).getBigUint64(1, true);
}

function parseOutput(raw: unknown, i: number, inputContext: Uint8Array): ParsedOutput {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new BadInput(`"outputs[${i}]" must be an object`);
  const o = raw as Record<string, unknown>;
  const at = (name: string) => `outputs[${i}].${name}`;
  const onetimeAddress = hexField(o, "Ko", 32, at("Ko"));
  const viewTag = hexField(o, "view_tag", VIEW_TAG_BYTES, at("view_tag"));
  const encryptedAnchor = hexField(o, "anchor_enc", JANUS_ANCHOR_BYTES, at("anchor_enc"));
  const ephemeralPubkey = hexField(o, "D_e", 32, at("D_e"));
  if (o.amount !== undefined) {
    if (o.Ca !== undefined || o.a_enc !== undefined) throw new BadInput(`"${at("amount")}" (coinbase) excludes "Ca" and "a_enc"`);
    const amount = clearAmount(o.amount, at("amount"));
    return { kind: "coinbase", enote: { onetimeAddress, amount, viewTag, encryptedAnchor, ephemeralPubkey, blockIndex: coinbaseBlockIndex(inputContext) } };
  }
  const amountCommitment = hexField(o, "Ca", 32, at("Ca"));
  const encryptedAmount = hexField(o, "a_enc", ENCRYPTED_AMOUNT_BYTES, at("a_enc"));
  return { kind: "normal", enote: { onetimeAddress, amountCommitment, encryptedAmount, viewTag, encryptedAnchor, ephemeralPubkey } };
}

function parseLookahead(v: unknown): SubaddressLookahead {
  if (v === undefined) return DEFAULT_LOOKAHEAD;
  const l = v as SubaddressLookahead;
  if (typeof v !== "object" || v === null || !Number.isInteger(l.accounts) || !Number.isInteger(l.minors)) {
    throw new BadInput('"lookahead" must be {"accounts": n, "minors": n}');
  }
  return { accounts: l.accounts, minors: l.minors };
}

function parseInput(input: Record<string, unknown>): ParsedInput {
  const { address, viewKey, outputs } = input;
  if (typeof address !== "string" || typeof viewKey !== "string") throw new BadInput('"address" and "viewKey" are required strings');
  const inputContext = hexField(input, "input_context", INPUT_CONTEXT_BYTES);
  const encryptedPaymentId = input.pid_enc === undefined || input.pid_enc === null ? null : hexField(input, "pid_enc", PAYMENT_ID_BYTES);
  if (!Array.isArray(outputs) || outputs.length === 0 || outputs.length > MAX_OUTPUTS) {
    throw new BadInput(`"outputs" must be an array of 1..${MAX_OUTPUTS} outputs`);
  }
  return {
    address,
    viewKey,
    lookahead: parseLookahead(input.lookahead),
    context: { inputContext, encryptedPaymentId },
    outputs: outputs.map((o, i) => parseOutput(o, i, inputContext)),
  };
}

/** Scans every output, computing k_v·D_e once per distinct D_e. */
function scanAll(account: ViewAccount, p: ParsedInput): CarrotScanResult[] {
  const secrets = new Map<string, Uint8Array | null>();
  const secret = (De: Uint8Array) => {
    const key = bytesToHex(De);
    if (!secrets.has(key)) secrets.set(key, carrotSharedSecret(account.viewSecret, De));
    return secrets.get(key)!;
  };
  return p.outputs.map((o) =>
    o.kind === "coinbase"
      ? scanCarrotCoinbaseEnote(account, o.enote, secret(o.enote.ephemeralPubkey))
      : scanCarrotEnote(account, p.context, o.enote, secret(o.enote.ephemeralPubkey)),
  );
}

function report(r: CarrotScanResult, index: number): Record<string, unknown> {
  if (!r.owned) return { index, owned: false, amount: null, subaddress: null, payment_id: null, refusal: r.refusal };
  return {
    index,
    owned: true,
    amount: r.amount.toString(),
    subaddress: r.subaddress,
    payment_id: r.paymentId,
    enote_type: r.enoteType,
    self_send: r.selfSend,
    ...(r.coinbase ? { coinbase: true } : {}),
  };
}

/** Runs `vigil monero carrot-scan` (the arguments after it are ignored). */
export async function runCarrotScanCli(io: CliIo): Promise<number> {
  const read = await readJsonObjectInput(io, MAX_INPUT);
  if ("exit" in read) return read.exit;
  let parsed: ParsedInput;
  let account: ViewAccount;
  try {
    parsed = parseInput(read.input);
    account = makeViewAccount(parsed.address, parsed.viewKey, { lookahead: parsed.lookahead });
  } catch (e) {
    if (e instanceof BadInput) return failCli(io, "invalid_input", e.message, 2);
    if (e instanceof ServiceError) return failCli(io, e.code, e.message, 2);
    throw e;
  }
  const outputs = scanAll(account, parsed).map(report);
  const watch = { kind: account.kind, network: account.network, ...(account.kind === "subaddress" ? {} : { lookahead: account.lookahead }) };
  io.stdout.write(`${JSON.stringify({ outputs, watch }, null, 2)}\n`);
  return 0;
}
