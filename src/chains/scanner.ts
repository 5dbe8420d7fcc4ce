/**
 * The seam between Private Watch (chain-agnostic: meter, webhooks, poll loop)
 * and each chain's view-key scanning. A chain module implements ChainScanner;
 * the watch module never looks inside ScanState.
 */
export type ChainId = "monero" | "zcash";

export interface ValidatedWatchKey {
  chain: ChainId;
  /** The address in canonical form, as it will be stored and shown. */
  address: string;
  /** mainnet | stagenet | testnet | regtest */
  network: string;
  /**
   * Key material derived from the view key while checking it, for the watch
   * module to store sealed like the view key (KeyMaterialStore); absent when
   * the chain keeps none.
   */
  keyMaterial?: string;
}

/**
 * Where a scanner finds the key material stored for its watches (opened for
 * this call only; as secret as the view key). Absent ids have none, or
 * none that opened: the scanner derives from the view key instead.
 */
export interface KeyMaterialStore {
  load(watchIds: readonly string[]): Promise<Map<string, string>>;
}

/** One output / note the view key found for a watch. Amounts are atomic units as decimal strings. */
export interface ReceivedOutput {
  txid: string;
  /** Output index in the tx (Monero) or `pool:index` (Zcash). */
  index: string;
  amountAtomic: string;
  /** Block height, or null while only in the mempool. */
  height: number | null;
  confirmations: number;
  /** Monero subaddress index {major, minor}; absent for Zcash. */
  subaddress?: { major: number; minor: number };
  /** Zcash memo text, when present. */
  memo?: string;
  /** Zcash diversifier index of the receiving address, when known; absent for Monero. */
  diversifierIndex?: number;
}

/**
 * What a watch's receiver is told about its balance (`previous` / `current` in
 * webhook bodies). `balanceAtomic` only counts outputs past the chain's
 * confirmation depth; unconfirmed ones are in `pendingAtomic`.
 */
export interface BalanceSnapshot {
  balanceAtomic: string;
  pendingAtomic: string;
  scannedHeight: number;
  [field: string]: unknown;
}

/** Per-watch memory a chain keeps between ticks (JSON; stored in the watch row). */
export type ScanState = { scannedHeight: number } & Record<string, unknown>;

/**
 * Monero: the subaddresses a primary-address watch scans besides its main
 * address. A wallet finds payments to the subaddresses of its look-ahead
 * (accounts × minor indices); addresses handed out past it (invoice
 * subaddresses) are named in `issued`.
 */
export interface SubaddressScan {
  /** Accounts 0..accounts−1. */
  accounts: number;
  /** Minor indices 0..minors−1 in every one of those accounts. */
  minors: number;
  /** Further ranges: minor indices 0..minors−1 of account `major`. */
  issued?: readonly { major: number; minors: number }[];
}

export interface WatchScanInput {
  watchId: string;
  address: string;
  /** Decrypted for this tick only; never persisted by the scanner. */
  viewKey: string;
  /** null on the first scan: start from `startHeight`. */
  state: ScanState | null;
  startHeight: number;
  /** Monero: this watch's subaddresses (absent: the scanner's default look-ahead); ignored by other chains. */
  subaddresses?: SubaddressScan;
}

export interface WatchScanOutput {
  watchId: string;
  state: ScanState;
  snapshot: BalanceSnapshot;
  /** Outputs currently known for the watch (confirmed and pending), newest last. */
  outputs: ReceivedOutput[];
  /**
   * False while the watch is still catching up from its start height (the
   * scanner bounds work per call); the watch module sends `scan_complete`
   * once, when the first catch-up reaches the tip. Absent means caught up.
   */
  caughtUp?: boolean;
  /** Key material built in this call that the store does not hold yet: the watch module seals and stores it. */
  keyMaterial?: string;
}

export interface ChainScanner {
  readonly chain: ChainId;
  /**
   * Checks the address and that the view key belongs to it. Throws a 400
   * ServiceError that says which is wrong.
   */
  validateWatchKey(address: string, viewKey: string): ValidatedWatchKey;
  /** Default first height for a watch created without `birthdayHeight`. */
  defaultStartHeight(): Promise<number>;
  /**
   * Height of the chain's newest block, as the node reports it: a watch's
   * `birthdayHeight` is checked against it before payment. Absent (test
   * doubles): the birthday is not checked against the tip.
   */
  tipHeight?(signal?: AbortSignal): Promise<number>;
  /**
   * One pass over many watches of this chain: chain data for the union of
   * their ranges is fetched once and matched against all of them. Reorgs are
   * the scanner's business: a snapshot may go down as well as up.
   */
  scanWatches(inputs: WatchScanInput[], signal?: AbortSignal, keyStore?: KeyMaterialStore): Promise<WatchScanOutput[]>;
}
