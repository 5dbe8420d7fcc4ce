/**
 * Shared Monero types: the contract between the pure half (addresses, keys,
 * scanning, binary parsing, devnet sender) and the I/O half (daemon client,
 * scanner loop, routes). Names here are stable; new fields are added, never
 * renamed.
 *
 * Byte conventions: every 32-byte key, scalar or point is a Uint8Array (or
 * lowercase hex string where noted) in Monero's own little-endian byte order.
 * Money is bigint piconero (1 XMR = 10^12).
 */

export type MoneroNetwork = "mainnet" | "stagenet" | "testnet";

export type MoneroAddressKind = "standard" | "integrated" | "subaddress";

/** A decoded, checksum-checked, point-checked Monero address. */
export interface DecodedAddress {
  network: MoneroNetwork;
  kind: MoneroAddressKind;
  /** Network tag byte (18 / 19 / 42 on mainnet, …). */
  tag: number;
  /** B (standard/integrated) or D (subaddress), 32 bytes. */
  spendPublicKey: Uint8Array;
  /** A (standard/integrated) or C = a·D (subaddress), 32 bytes. */
  viewPublicKey: Uint8Array;
  /** 8 bytes, integrated addresses only. */
  paymentId?: Uint8Array;
  /** The address as given (canonical: Monero base58 is a bijection on valid input). */
  address: string;
}

/** Subaddress index; {0,0} is the primary address. */
export interface SubaddressIndex {
  major: number;
  minor: number;
}

/** One output of a transaction, as the view-key scanner needs it. */
export interface ScanOutput {
  /** One-time public key P_i (32 bytes). */
  publicKey: Uint8Array;
  /** View tag byte for txout_to_tagged_key outputs (v15+); absent for untagged. */
  viewTag?: number;
  /** Clear amount: coinbase / RingCT type 0 / version 1 txs. (RingCT outputs carry 0 here.) */
  amount?: bigint;
  /** RingCT types 4-6: 8-byte encrypted amount (ecdhInfo[i].amount). */
  encryptedAmount?: Uint8Array;
  /** RingCT types 1-3: 32-byte encrypted mask and amount scalars (ecdhInfo[i].mask / .amount). */
  encryptedMaskV1?: Uint8Array;
  encryptedAmountV1?: Uint8Array;
  /** RingCT: outPk[i], the Pedersen commitment mask·G + amount·H (32 bytes). */
  commitment?: Uint8Array;
  /**
   * txout_to_carrot_v1 (fork v17 on): publicKey is K_o, and these are its
   * 3-byte view tag and 16-byte encrypted Janus anchor. Its a_enc and C_a are
   * encryptedAmount and commitment (RingCT type 7); coinbase: amount in clear.
   */
  carrot?: { viewTag: Uint8Array; encryptedAnchor: Uint8Array };
}

/** What the scanner needs from one transaction. Built by parseTransactionBlob / txFromDaemonJson. */
export interface ScanTx {
  /** Transaction hash, 64 lowercase hex ("" when unknown, e.g. a pruned blob without prunable hash). */
  txid: string;
  version: number;
  /** Raw tx extra bytes (parsed by the scanner; malformed extra is tolerated). */
  extra: Uint8Array;
  /** vin[0] is `gen`. */
  isCoinbase: boolean;
  /** Coinbase only: the height in the gen input. */
  coinbaseHeight?: bigint;
  /** < 500,000,000: block height; otherwise Unix time. */
  unlockTime: bigint;
  /** 0 for coinbase / v1; 1..6 RingCT. */
  rctType: number;
  /** RingCT txnFee (0n for coinbase/v1). */
  fee: bigint;
  outputs: ScanOutput[];
  /** Key images of the inputs (hex), for reference only: a view key cannot tell which are ours. */
  keyImages: string[];
}

/** One output that belongs to a watched account. */
export interface OwnedOutput {
  outputIndex: number;
  /** One-time public key P_i, 64 lowercase hex. */
  publicKey: string;
  /** Piconero; for RingCT outputs only reported when the amount opens the commitment. */
  amount: bigint;
  /**
   * Which (sub)address received it. For a primary-address watch this is the
   * index from the look-ahead table ({0,0} = primary). For a subaddress watch
   * it is the index given at account creation, or null when unknown (a view
   * key plus a subaddress does not reveal the index; the output is to the
   * watched subaddress itself).
   */
  subaddress: SubaddressIndex | null;
  /**
   * Decrypted short payment id (16 hex) when the tx carries an encrypted one; may be a wallet's dummy 0000….
   * A Carrot output has one only when the Janus check confirmed a non-zero payment ID (an integrated address).
   */
  paymentId?: string;
}

/**
 * A watch's scanning material, built once from (address, view key) and reused
 * across transactions. Holds the private view key: never log or serialize it.
 */
export interface ViewAccount {
  network: MoneroNetwork;
  /** The watched address as given. */
  address: string;
  kind: MoneroAddressKind;
  /** Private view key a, reduced scalar. */
  viewSecret: bigint;
  viewSecretBytes: Uint8Array;
  /** Primary public spend key B (standard/integrated watch) or the subaddress's D (subaddress watch). */
  spendPublicKey: Uint8Array;
  /**
   * Spend-public-key hex → subaddress index. A subaddress watch contains just
   * its D; a primary watch contains B→(0,0) and D(i,j) for the look-ahead.
   */
  spendKeys: Map<string, SubaddressIndex>;
  /** Look-ahead used to build spendKeys (primary watches only). */
  lookahead: SubaddressLookahead;
  /** Known index for a subaddress watch (null: unknown, reported as the subaddress itself, see docs). */
  subaddressIndex: SubaddressIndex | null;
}

/** How many accounts × minor indices a primary-address watch pre-derives. */
export interface SubaddressLookahead {
  /** Majors 0..accounts-1. */
  accounts: number;
  /** Minors 0..minors-1 in every account. */
  minors: number;
  /** Handed out past the rectangle (invoice subaddresses): minors 0..minors-1 of account `major`. */
  issued?: readonly { major: number; minors: number }[];
}

/** Result of the binary parsers: tagged union, never an exception for bad input. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** A parsed serialized block (header + coinbase + tx hashes). */
export interface ParsedBlock {
  majorVersion: number;
  minorVersion: number;
  timestamp: bigint;
  prevId: string;
  nonce: number;
  minerTx: ScanTx;
  txHashes: string[];
  /** From fork v17 (FCMP++): the tree's layer count and root (hex), hashed into the block id. */
  fcmpTree?: { nTreeLayers: number; treeRoot: string };
  /** Block hash (Monero block id), 64 hex. */
  hash: string;
}

/**
 * monerod's decoded transaction (`as_json` of /get_transactions, `miner_tx`
 * of get_block's `json`). u64 fields may arrive as number, bigint or decimal
 * string (lossless parsers), so they are typed loosely here and converted
 * with care in txFromDaemonJson.
 */
export type JsonU64 = number | bigint | string;
export type DaemonTxIn =
  | { gen: { height: JsonU64 } }
  | { key: { amount: JsonU64; key_offsets: JsonU64[]; k_image: string } };
export type DaemonTxOutTarget =
  | { tagged_key: { key: string; view_tag: string } }
  | { key: string }
  /** txout_to_carrot_v1 from fork v17 (PR #10027 decode_as_json): K_o, 3-byte view tag, 16-byte encrypted anchor, hex. */
  | { carrot_v1: { key: string; view_tag: string; encrypted_janus_anchor: string } };
export interface DaemonTxJson {
  version: number;
  unlock_time: JsonU64;
  vin: DaemonTxIn[];
  vout: { amount: JsonU64; target: DaemonTxOutTarget }[];
  extra: number[];
  rct_signatures?:
    | { type: 0 }
    | {
        type: number;
        txnFee: JsonU64;
        pseudoOuts?: string[];
        ecdhInfo?: ({ amount: string } | { mask: string; amount: string })[];
        outPk?: string[];
      };
  rctsig_prunable?: unknown;
  signatures?: unknown;
}

/*
 * Function signatures (implemented in the named modules; kept stable):
 *
 * address.ts
 *   decodeAddress(s: string): ParseResult<DecodedAddress>                           // never throws
 *   decodeAddressOrThrow(s: string, expectNetwork?: MoneroNetwork): DecodedAddress   // 400 invalid_address
 *   encodeAddress(network, kind, spendPublicKey, viewPublicKey, paymentId?): string
 *   makeIntegratedAddress(standardAddress: string, paymentIdHex: string): string
 *
 * keys.ts
 *   validateMoneroWatchKey(address, viewKeyHex, opts?: { network? }): ValidatedWatchKey
 *     (ValidatedWatchKey from src/chains/scanner.ts; throws a 400 ServiceError via badRequest with
 *      code invalid_address | invalid_view_key | view_key_mismatch; the message says which)
 *   makeViewAccount(address, viewKeyHex, opts?: { lookahead?, subaddressIndex?, network? }): ViewAccount
 *     (validates like validateMoneroWatchKey; cache the result per watch: building the look-ahead
 *      table costs ~50 µs per key)
 *   addSubaddressesToAccount(account, indices: SubaddressIndex[]): void   // issued indices beyond the look-ahead
 *   DEFAULT_LOOKAHEAD = { accounts: 2, minors: 200 }, MAX_LOOKAHEAD_KEYS = 10,000
 *
 * subaddress.ts
 *   subaddressSpendPublicKey(viewSecretBytes, spendPublicKey, index): Uint8Array
 *   deriveSubaddress(network, viewSecretBytes, spendPublicKey, index): string
 *
 * scan.ts
 *   scanTx(tx: ScanTx, account: ViewAccount): OwnedOutput[]      // never throws for malformed tx data
 *   prepareTx / derivationsFor / matchOutputs: the same steps, for callers that share per-tx work
 *   explainViewTags(tx, account): per-output view-tag hints (scan-tx CLI)
 *   (a Carrot transaction takes the Carrot scan inside matchOutputs: carrot/tx.ts carrotOwnedOutputs)
 *
 * carrot/tx.ts
 *   carrotEnotesOf(tx: ScanTx, extra?): CarrotTxEnotes   // none | transfer | coinbase | invalid (with the reason)
 *   carrotOwnedOutputs(enotes, account): OwnedOutput[]
 *
 * batch.ts
 *   scanTxForAccounts(tx: ScanTx, accounts: ViewAccount[]): OwnedOutput[][]         // [account]
 *   scanTxsForAccounts(txs: ScanTx[], accounts: ViewAccount[]): OwnedOutput[][][]   // [tx][account]
 *   batchDerivations(txPublicKey, accounts): (Uint8Array | null)[]
 * pool.ts
 *   new MoneroScanPool({ threads? }); await setAccounts(accounts); await scanTxs(txs) → [tx][account]; await close()
 *
 * tx-binary.ts
 *   parseTransactionBlob(bytes: Uint8Array): ParseResult<ScanTx>
 *   parseBlockBlob(bytes: Uint8Array): ParseResult<ParsedBlock>
 *   txFromDaemonJson(json: unknown (object or as_json text), txid?: string): ParseResult<ScanTx>
 *
 * scan-tx-cli.ts
 *   runMoneroCli(args: string[], io: { stdin, stdout, stderr }): Promise<number>   // scan-tx; carrot-scan (carrot-scan-cli.ts)
 *
 * devnet/monero-sender.ts
 *   buildTransfer({ destinations: {address, amount}[], rng?, unlockTime?, fee?, inputs?, ringSize? }): BuiltMoneroTx
 *   buildCoinbase({ destinations: {address, amount}[], height, rng?, extraNonce? }): BuiltMoneroTx
 *   buildBlock({ minerTx, txHashes, prevId, timestamp, majorVersion?, minorVersion?, nonce? }): BuiltMoneroBlock
 *   BuiltMoneroTx = { txid, blob, hex, prunedHex, prunableHex, prunableHash, json: DaemonTxJson, asJson: string,
 *                     txPublicKey, additionalPublicKeys, outputs: { address, amount, outputIndex, publicKey, viewTag }[],
 *                     unlockTime, fee }   (viewTag: a number; Carrot's 3-byte tag as hex)
 *   devnet/monero-carrot-sender.ts (from fork v17): buildCarrotTransfer({ destinations, sender, fee, … }),
 *     buildCarrotCoinbase({ destinations, height }): the same BuiltMoneroTx
 *   seededRng(seed) for reproducible transactions
 */
