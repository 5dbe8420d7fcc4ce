/**
 * The puzzle/bounty contract classifier (pure; docs/feeds.md, Puzzle risk).
 * From a contract's code, balance and (for quiz templates) the stored answer
 * hash, one verdict with its reason:
 *   1. no code → indeterminate (not a contract);
 *   2. balance 0 → unfunded;
 *   3. a proxy or DELEGATECALL → indeterminate (the logic lives elsewhere);
 *   4. no CALL, CALLCODE or SELFDESTRUCT → locked_no_payout (nothing can
 *      ever send the ether out);
 *   5. the quiz template (Try(string) 0x3853682c): with a known answer whose
 *      hash differs from the stored one → owner_only_payout (the hash was
 *      swapped: no answer can win, only the admin's Stop() 0xbedf0f4a moves
 *      the balance); otherwise → frontrun_bait (the answer goes out in public
 *      calldata; with admin New() 0xed8df164 the hash can also be swapped);
 *   6. a payout that depends on a hashed calldata secret (KECCAK256 over call
 *      data) and no owner gate → frontrun_bait;
 *   7. an owner gate (CALLER compared with a stored value) and no public
 *      secret path → owner_only_payout;
 *   8. a payout path with neither a secret nor an owner gate → claimable;
 *   9. anything else → indeterminate.
 * `frontrun_exposed`: a claim would reveal what wins in public calldata.
 */
import { keccak256, toBytes, encodeAbiParameters } from "viem";
import { analyseBytecode, OP } from "../chains/ethereum/bytecode.js";

export const CLASSES = ["unfunded", "locked_no_payout", "frontrun_bait", "owner_only_payout", "claimable", "indeterminate"] as const;
export type PuzzleClass = (typeof CLASSES)[number];

export const SELECTOR_TRY = "0x3853682c";
export const SELECTOR_START = "0xc76de3e9";
export const SELECTOR_NEW = "0xed8df164";
export const SELECTOR_STOP = "0xbedf0f4a";

export interface PuzzleFacts {
  code: string;
  balanceWei: bigint;
  /** The plaintext answer made public (e.g. in a Start() call), if known. */
  knownAnswer?: string;
  /** The stored answer hash (the watchlist's hash slot), if read. */
  storedHash?: string;
}

export interface Verdict {
  classification: PuzzleClass;
  reason: string;
  frontrunExposed: boolean;
  signals: string[];
}

/** The hashes a quiz contract may store for an answer: keccak256 of its bytes, or of its ABI encoding. */
export function answerHashes(answer: string): string[] {
  return [keccak256(toBytes(answer)), keccak256(encodeAbiParameters([{ type: "string" }], [answer]))];
}

export function classifyPuzzle(f: PuzzleFacts): Verdict {
  const code = f.code.toLowerCase();
  if (code === "0x" || code === "") return { classification: "indeterminate", reason: "no contract code at this address", frontrunExposed: false, signals: [] };
  const b = analyseBytecode(code);
  const has = (op: number) => b.ops.has(op);
  const signals = [
    ...[...b.selectors].filter((s) => [SELECTOR_TRY, SELECTOR_START, SELECTOR_NEW, SELECTOR_STOP].includes(s)).map((s) => `selector:${s}`),
    ...(has(OP.CALL) ? ["call"] : []),
    ...(has(OP.SELFDESTRUCT) ? ["selfdestruct"] : []),
    ...(has(OP.DELEGATECALL) ? ["delegatecall"] : []),
    ...(b.callerGate ? ["caller_gate"] : []),
    ...(has(OP.ORIGIN) ? ["tx_origin"] : []),
    ...(has(OP.SHA3) ? ["keccak"] : []),
  ];
  const v = (classification: PuzzleClass, reason: string, frontrunExposed = false): Verdict => ({ classification, reason, frontrunExposed, signals });
  if (f.balanceWei === 0n) return v("unfunded", "the contract holds no ether");
  if (b.proxy || has(OP.DELEGATECALL)) return v("indeterminate", "proxy or DELEGATECALL: the payout logic lives in other code");
  if (!has(OP.CALL) && !has(OP.CALLCODE) && !has(OP.SELFDESTRUCT)) return v("locked_no_payout", "no CALL, CALLCODE or SELFDESTRUCT in the code: the ether can never leave");
  if (b.selectors.has(SELECTOR_TRY)) {
    const admin = b.selectors.has(SELECTOR_NEW) || b.selectors.has(SELECTOR_STOP);
    if (f.knownAnswer !== undefined && f.storedHash !== undefined && !answerHashes(f.knownAnswer).includes(f.storedHash.toLowerCase())) {
      return v("owner_only_payout", "quiz template whose stored answer hash no longer matches the published answer: no answer can win, only the admin can sweep the balance");
    }
    return v(
      "frontrun_bait",
      `quiz template: Try(answer) pays whoever sends the right answer first, and the answer travels in public calldata${admin ? "; the admin can also replace the hash (New) or sweep the balance (Stop)" : ""}`,
      true,
    );
  }
  const secret = has(OP.SHA3) && (has(OP.CALLDATALOAD) || has(OP.CALLDATACOPY));
  if (secret && !b.callerGate) return v("frontrun_bait", "the payout depends on a hashed secret in calldata: a front-runner copies a correct claim", true);
  if (b.callerGate && !secret) return v("owner_only_payout", "every payout is gated on the caller being a stored owner");
  if (!secret && !b.callerGate) return v("claimable", "a payout path with no secret and no owner gate");
  return v("indeterminate", "both an owner gate and a calldata secret: not decidable statically");
}
