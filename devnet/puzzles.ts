/**
 * Puzzle and bounty contracts on the devnet's Ethereum L1, for the
 * puzzle-risk feed: code (assembled below from the opcodes that matter to
 * the classifier), balances and the stored answer hash, set through the L1's
 * account hooks, and the watchlist file that names them (PUZZLE_WATCHLIST).
 * The devnet has no EVM: the contracts are never run, only read.
 */
import { keccak256, toBytes, toHex } from "viem";
import type { DevnetAccounts } from "./ethereum-accounts.js";

const addr = (label: string) => `0x${keccak256(toHex(label)).slice(-40)}`;
const ETH = 10n ** 18n;

/** Assembles opcodes; a string item is pushed with the PUSH of its byte length. */
export function assemble(items: (number | string)[]): string {
  let out = "";
  for (const it of items) {
    if (typeof it === "number") out += it.toString(16).padStart(2, "0");
    else {
      const data = it.replace(/^0x/, "");
      out += (0x5f + data.length / 2).toString(16) + data;
    }
  }
  return `0x${out}`;
}

// Opcodes used below.
const [STOP, EQ, SHA3, CALLER, CALLVALUE, CALLDATALOAD, CALLDATACOPY, SLOAD, JUMPI, JUMPDEST, CALL, DELEGATECALL, GAS, SELFBALANCE] = [
  0x00, 0x14, 0x20, 0x33, 0x34, 0x35, 0x37, 0x54, 0x57, 0x5b, 0xf1, 0xf4, 0x5a, 0x47,
];
const dispatch = (selectors: string[]) => selectors.flatMap((s) => [0x80, s, EQ, "0040", JUMPI]);

/** A quiz template: Try(string) pays the balance for the right answer; admin New() and Stop(). */
export const QUIZ_CODE = assemble([
  "00", CALLDATALOAD, "e0", 0x1c,
  ...dispatch(["3853682c", "c76de3e9", "ed8df164", "bedf0f4a"]),
  STOP, JUMPDEST, "20", "04", "00", CALLDATACOPY, "20", "00", SHA3, "00", SLOAD, EQ,
  CALLER, "01", SLOAD, EQ, "00", "00", "00", "00", SELFBALANCE, CALLER, GAS, CALL, STOP,
]);
/** A vault only its stored owner can withdraw from. */
export const OWNER_VAULT_CODE = assemble(["00", CALLDATALOAD, "e0", 0x1c, ...dispatch(["3ccfd60b"]), STOP, JUMPDEST, "00", SLOAD, CALLER, EQ, "0050", JUMPI, STOP, JUMPDEST, "00", "00", "00", "00", SELFBALANCE, CALLER, GAS, CALL, STOP]);
/** Takes deposits and has no way to send ether out. */
export const LOCKED_CODE = assemble(["00", CALLDATALOAD, "e0", 0x1c, ...dispatch(["d0e30db0"]), STOP, JUMPDEST, CALLVALUE, "00", 0x55, STOP]);
/** A hash-preimage bounty: pays whoever sends the preimage of the stored hash. */
export const PREIMAGE_CODE = assemble(["20", "04", "00", CALLDATACOPY, "20", "00", SHA3, "00", SLOAD, EQ, "0030", JUMPI, STOP, JUMPDEST, "00", "00", "00", "00", SELFBALANCE, CALLER, GAS, CALL, STOP]);
/** An open drip: anyone may call it and receive a fixed amount. */
export const DRIP_CODE = assemble(["00", "00", "00", "00", "016345785d8a0000", CALLER, GAS, CALL, STOP]);
/** A proxy forwarding every call with DELEGATECALL. */
export const PROXY_CODE = assemble([0x36, "00", "00", CALLDATACOPY, "00", "00", 0x36, "00", "01", SLOAD, GAS, DELEGATECALL, STOP]);

export interface DevnetPuzzle {
  address: string;
  label: string;
  code: string;
  balance: bigint;
  answer?: string;
  hashSlot?: number;
  storedHash?: string;
  /** What the classifier must say. */
  expected: string;
}

export const DEVNET_PUZZLES: DevnetPuzzle[] = [
  { address: addr("puzzle:quiz-swapped"), label: "Quiz: what is blue?", code: QUIZ_CODE, balance: 12n * ETH / 10n, answer: "sky", hashSlot: 0, storedHash: keccak256(toBytes("not the sky")), expected: "owner_only_payout" },
  { address: addr("puzzle:quiz-live"), label: "Riddle quiz", code: QUIZ_CODE, balance: 2n * ETH, answer: "echo", hashSlot: 0, storedHash: keccak256(toBytes("echo")), expected: "frontrun_bait" },
  { address: addr("puzzle:preimage"), label: "Preimage bounty", code: PREIMAGE_CODE, balance: 5n * ETH / 10n, expected: "frontrun_bait" },
  { address: addr("puzzle:locked"), label: "Deposit-only jar", code: LOCKED_CODE, balance: 3n * ETH, expected: "locked_no_payout" },
  { address: addr("puzzle:vault"), label: "Owner vault", code: OWNER_VAULT_CODE, balance: 7n * ETH / 10n, expected: "owner_only_payout" },
  { address: addr("puzzle:drip"), label: "Open drip", code: DRIP_CODE, balance: 1n * ETH / 10n, expected: "claimable" },
  { address: addr("puzzle:proxy"), label: "Proxied bounty", code: PROXY_CODE, balance: 4n * ETH / 10n, expected: "indeterminate" },
  { address: addr("puzzle:empty"), label: "Drained quiz", code: QUIZ_CODE, balance: 0n, expected: "unfunded" },
];

/** Deploys the puzzles on the L1's accounts; returns the watchlist (the PUZZLE_WATCHLIST file's content). */
export function deployDevnetPuzzles(accounts: DevnetAccounts): { address: string; label: string; answer?: string; hash_slot?: number }[] {
  for (const p of DEVNET_PUZZLES) {
    accounts.setCode(p.address, p.code);
    accounts.setEthBalance(p.address, p.balance);
    if (p.hashSlot !== undefined && p.storedHash) accounts.setStorage(p.address, BigInt(p.hashSlot), BigInt(p.storedHash));
  }
  return DEVNET_PUZZLES.map((p) => ({ address: p.address, label: p.label, ...(p.answer ? { answer: p.answer } : {}), ...(p.hashSlot !== undefined ? { hash_slot: p.hashSlot } : {}) }));
}
