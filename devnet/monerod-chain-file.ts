/**
 * The devnet monerod's chain on disk: one JSON line per block, appended as
 * blocks are mined and rewritten on a reorg, so a restarted devnet keeps the
 * chain that stored watches were scanned against. Loading recomputes every
 * block id from its parts and checks the links from the genesis, so a
 * damaged file is refused rather than served.
 */
import fs from "node:fs";
import { parseJsonLossless } from "../src/chains/monero/daemon-client.js";
import { parseBlockBlob } from "../src/chains/monero/tx-binary.js";
import { hexToBytesStrict } from "../src/chains/monero/encoding.js";
import type { BuiltMoneroBlock, BuiltMoneroTx } from "./monero-sender.js";
import { type ChainBlock, ZERO_HASH } from "./monerod-block.js";

interface SavedTx {
  txid: string;
  hex: string;
  prunedHex: string;
  prunableHex: string;
  prunableHash: string;
  asJson: string;
  txPublicKey: string;
  additionalPublicKeys: string[];
  outputs: { address: string; amount: string; outputIndex: number; publicKey: string; viewTag: number | string }[];
  unlockTime: string;
  fee: string;
}

interface SavedBlock {
  height: number;
  hash: string;
  hex: string;
  asJson: string;
  minerTx: SavedTx;
  txs: SavedTx[];
  timestamp: number;
  reward: string;
  size: number;
  cumulativeDifficulty: string;
}

function saveTx(t: BuiltMoneroTx): SavedTx {
  return {
    txid: t.txid,
    hex: t.hex,
    prunedHex: t.prunedHex,
    prunableHex: t.prunableHex,
    prunableHash: t.prunableHash,
    asJson: t.asJson,
    txPublicKey: t.txPublicKey,
    additionalPublicKeys: t.additionalPublicKeys,
    outputs: t.outputs.map((o) => ({ ...o, amount: o.amount.toString() })),
    unlockTime: t.unlockTime.toString(),
    fee: t.fee.toString(),
  };
}

function loadTx(t: SavedTx): BuiltMoneroTx {
  const blob = hexToBytesStrict(t.hex);
  if (!blob) throw new Error(`bad hex in saved tx ${t.txid}`);
  return {
    txid: t.txid,
    blob,
    hex: t.hex,
    prunedHex: t.prunedHex,
    prunableHex: t.prunableHex,
    prunableHash: t.prunableHash,
    json: parseJsonLossless(t.asJson) as unknown as BuiltMoneroTx["json"],
    asJson: t.asJson,
    txPublicKey: t.txPublicKey,
    additionalPublicKeys: t.additionalPublicKeys,
    outputs: t.outputs.map((o) => ({ ...o, amount: BigInt(o.amount) })),
    unlockTime: BigInt(t.unlockTime),
    fee: BigInt(t.fee),
  };
}

export function saveBlock(b: ChainBlock): SavedBlock {
  return {
    height: b.height,
    hash: b.built.hash,
    hex: b.built.hex,
    asJson: b.built.asJson,
    minerTx: saveTx(b.minerTx),
    txs: b.txs.map(saveTx),
    timestamp: b.timestamp,
    reward: b.reward.toString(),
    size: b.size,
    cumulativeDifficulty: b.cumulativeDifficulty.toString(),
  };
}

function loadBlock(x: SavedBlock): ChainBlock {
  const blob = hexToBytesStrict(x.hex);
  if (!blob) throw new Error(`bad hex in saved block ${x.height}`);
  const minerTx = loadTx(x.minerTx);
  const txs = x.txs.map(loadTx);
  // The block id is recomputed from the parts, so a damaged file cannot smuggle in a wrong chain.
  const parsed = parseBlockBlob(blob);
  if (!parsed.ok || parsed.value.hash !== x.hash || parsed.value.minerTx.txid !== minerTx.txid) {
    throw new Error(`saved block ${x.height} does not hash to ${x.hash}`);
  }
  return {
    height: x.height,
    built: { hash: x.hash, blob, hex: x.hex, json: parseJsonLossless(x.asJson) as unknown as BuiltMoneroBlock["json"], asJson: x.asJson },
    minerTx,
    txs,
    timestamp: x.timestamp,
    reward: BigInt(x.reward),
    size: x.size,
    cumulativeDifficulty: BigInt(x.cumulativeDifficulty),
  };
}

/** Reads a saved chain; null when there is none or it does not link up from the genesis. */
export function readChainFile(file: string): ChainBlock[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const blocks: ChainBlock[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const b = loadBlock(JSON.parse(line) as SavedBlock);
    const prev = blocks[blocks.length - 1];
    if (b.height !== blocks.length || b.built.json.prev_id !== (prev ? prev.built.hash : ZERO_HASH)) {
      throw new Error(`saved chain breaks at height ${b.height}`);
    }
    blocks.push(b);
  }
  return blocks.length > 0 ? blocks : null;
}
