/**
 * Compact blocks as lightwalletd serves them (`cash.z.wallet.sdk.rpc`,
 * compact_formats.proto; research/zcash.md §5.1), in the shape the scanner
 * consumes. The gRPC client decodes the wire messages into these types; the
 * scanner never sees protobuf. Hashes and txids are in protocol byte order
 * (the reverse of display hex) unless a field name says `Hex`.
 */

export interface CompactSaplingSpend {
  /** 32-byte nullifier. */
  nf: Uint8Array;
}

export interface CompactSaplingOutput {
  /** 32-byte note commitment u-coordinate. */
  cmu: Uint8Array;
  /** 32-byte ephemeral public key. */
  ephemeralKey: Uint8Array;
  /** First 52 bytes of the 580-byte note ciphertext. */
  ciphertext: Uint8Array;
}

/** An Orchard-protocol action; used by both the Orchard and the Ironwood pool. */
export interface CompactOrchardAction {
  /** 32-byte nullifier of the spent note (ρ of the new note). */
  nullifier: Uint8Array;
  /** 32-byte extracted note commitment. */
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  /** First 52 bytes of the note ciphertext. */
  ciphertext: Uint8Array;
}

export interface CompactTxIn {
  prevoutTxid: Uint8Array;
  prevoutIndex: number;
}

export interface CompactTxOut {
  value: bigint;
  scriptPubKey: Uint8Array;
}

export interface CompactTx {
  /** Index of the transaction in its block. */
  index: number;
  /** 32-byte txid, protocol byte order. */
  txid: Uint8Array;
  fee: number;
  spends: CompactSaplingSpend[];
  outputs: CompactSaplingOutput[];
  actions: CompactOrchardAction[];
  ironwoodActions: CompactOrchardAction[];
  /** Transparent inputs; present only when the transparent pool was requested. */
  vin: CompactTxIn[];
  /** Transparent outputs; present only when the transparent pool was requested. */
  vout: CompactTxOut[];
}

export interface ChainMetadata {
  /** Note commitment tree sizes at the END of the block. */
  saplingCommitmentTreeSize: number;
  orchardCommitmentTreeSize: number;
  ironwoodCommitmentTreeSize: number;
}

export interface CompactBlock {
  height: number;
  /** 32-byte block hash, protocol byte order. */
  hash: Uint8Array;
  prevHash: Uint8Array;
  /** Unix seconds. */
  time: number;
  vtx: CompactTx[];
  chainMetadata: ChainMetadata;
}

export type PoolType = "transparent" | "sapling" | "orchard" | "ironwood";

export interface BlockId {
  height: number;
  /** Protocol byte order. */
  hash: Uint8Array;
}

export interface TreeState {
  network: string;
  height: number;
  /** Display hex. */
  hash: string;
  time: number;
  /** Hex-encoded serialised commitment trees (the zcashd/zebrad `z_gettreestate` format); "" when empty. */
  saplingTree: string;
  orchardTree: string;
  ironwoodTree: string;
}

export interface LightdInfo {
  version: string;
  vendor: string;
  /** "main" | "test" | "regtest" */
  chainName: string;
  saplingActivationHeight: number;
  consensusBranchId: string;
  blockHeight: number;
  upgradeName: string;
  upgradeHeight: number;
  /** Empty on servers that predate the protocol-version field. */
  lightwalletProtocolVersion: string;
}

export interface RawTransaction {
  data: Uint8Array;
  /** 0 = mempool; null when mined on a fork (2^64−1 on the wire). */
  height: number | null;
}

/**
 * What a Zcash scanner needs from the chain. The lightwalletd gRPC client
 * implements it; so can anything else that serves compact blocks.
 */
export interface CompactBlockSource {
  latestBlock(signal?: AbortSignal): Promise<BlockId>;
  /** Inclusive range, ascending. Without `pools`, Sapling+Orchard+Ironwood. */
  blockRange(start: number, end: number, pools?: PoolType[], signal?: AbortSignal): AsyncIterable<CompactBlock>;
  /** Full transaction by txid (protocol byte order). */
  transaction(txid: Uint8Array, signal?: AbortSignal): Promise<RawTransaction>;
  /** Compact form of the transactions in the mempool. */
  mempool(pools?: PoolType[], signal?: AbortSignal): Promise<CompactTx[]>;
  treeState(height: number, signal?: AbortSignal): Promise<TreeState>;
  info(signal?: AbortSignal): Promise<LightdInfo>;
  close(): void;
}
