/**
 * A block of the devnet monerod's chain as the chain keeps it and its file
 * stores it: the built block with its coinbase and transactions, and the
 * figures monerod reports beside a header. Its own module so that the chain
 * and the chain file both name it without importing each other.
 */
import type { BuiltMoneroBlock, BuiltMoneroTx } from "./monero-sender.js";

/** The previous-block id of the genesis. */
export const ZERO_HASH = "0".repeat(64);

export interface ChainBlock {
  height: number;
  built: BuiltMoneroBlock;
  minerTx: BuiltMoneroTx;
  txs: BuiltMoneroTx[];
  timestamp: number;
  reward: bigint;
  size: number;
  cumulativeDifficulty: bigint;
}
