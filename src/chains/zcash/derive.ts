/**
 * deriveViewingKeys: mnemonic → account viewing keys, the service behind
 * POST /v1/private/derive-viewkey and `vigil zcash derive-ufvk`.
 */
import { bech32Encode } from "./bech32.js";
import { bytesToHex } from "./bytes.js";
import { mnemonicToSeed, normalizeMnemonic } from "./mnemonic.js";
import { NETWORKS, type ZcashNetwork } from "./network.js";
import { orchardAddressAt, orchardIvkParts } from "./orchard-keys.js";
import { encodeSaplingXfvk, saplingAddressAt, saplingFirstValidIndex, saplingIvk } from "./sapling-keys.js";
import { encodeP2pkh, encodeTransparentKey, encodeXpub, p2pkhHashAt, publicChild } from "./transparent.js";
import { deriveAccountViewingKeys, MAX_ACCOUNT, type AccountViewingKeys } from "./zip32.js";
import { encodeUfvk, encodeUivk, encodeUnifiedAddress } from "./zip316.js";

export const DERIVE_WARNING =
  "Your seed phrase controls your funds: anyone who sees it can spend them. Prefer deriving offline with `npx vigil zcash derive-ufvk`. " +
  "The unified full viewing key returned here cannot spend, but it reveals every incoming and outgoing payment of this account: share it only with services you trust.";

export interface DerivedViewingKeys {
  chain: "zcash";
  network: ZcashNetwork;
  account: number;
  /** Unified full viewing key (uview…): Orchard, Sapling and transparent items. */
  ufvk: string;
  /** Unified incoming viewing key (uivk…): sees incoming payments only. */
  uivk: string;
  /** ZIP-32 Sapling extended full viewing key (zxviews…) of m/32'/coin'/account'. */
  saplingExtendedFvk: string;
  /** BIP-32 extended public key (xpub/tpub) of m/44'/coin'/account'. */
  transparentAccountXpub: string;
  /** The UFVK transparent item: chain code ‖ compressed public key, hex. */
  transparentAccountPubkey: string;
  /** Default unified address (Orchard + Sapling + P2PKH at the default diversifier index). */
  defaultAddress: string;
  /** Smallest diversifier index with a valid Sapling diversifier. */
  diversifierIndex: number;
  /** The Sapling receiver of the default address, as a legacy zs… address. */
  defaultSaplingAddress: string;
  /** The P2PKH receiver of the default address (child …/0/diversifierIndex). */
  defaultTransparentAddress: string;
  warning: string;
}

/** Builds the response from account keys (shared by the service and tests with raw seeds). */
export function describeAccountKeys(keys: AccountViewingKeys): Omit<DerivedViewingKeys, "warning"> {
  const { network, account, sapling, orchard, transparent } = keys;
  const params = NETWORKS[network];
  const saplingIvkValue = saplingIvk(sapling.ak, sapling.nk);
  const orchardExt = orchardIvkParts(orchard, "external");
  if (!orchardExt) throw new Error("derived Orchard key has an invalid ivk");
  const { index } = saplingFirstValidIndex(sapling.dk);
  if (index >= 0x80000000n) throw new Error("default diversifier index beyond the transparent range");
  const j = Number(index);
  const saplingRaw = saplingAddressAt(sapling, index, saplingIvkValue)!;
  const orchardRaw = orchardAddressAt(orchardExt, index);
  const p2pkh = p2pkhHashAt(transparent, 0, j);
  if (!p2pkh) throw new Error("invalid transparent child at the default index");
  const external = publicChild(transparent, 0);
  if (!external) throw new Error("invalid transparent external chain");
  return {
    chain: "zcash",
    network,
    account,
    ufvk: encodeUfvk(network, { transparent, sapling, orchard }),
    uivk: encodeUivk(network, {
      transparent: external,
      sapling: { dk: sapling.dk, ivk: saplingIvkValue },
      orchard: { dk: orchardExt.dk, ivk: orchardExt.ivk },
    }),
    saplingExtendedFvk: bech32Encode(params.saplingExtendedFvkHrp, encodeSaplingXfvk(sapling)),
    transparentAccountXpub: encodeXpub(transparent, network),
    transparentAccountPubkey: bytesToHex(encodeTransparentKey(transparent)),
    defaultAddress: encodeUnifiedAddress(network, { p2pkh, sapling: saplingRaw, orchard: orchardRaw }),
    diversifierIndex: j,
    defaultSaplingAddress: bech32Encode(params.saplingAddressHrp, saplingRaw),
    defaultTransparentAddress: encodeP2pkh(p2pkh, network),
  };
}

let warmed = false;

/**
 * Builds the curve tables and fixed bases a derivation needs (~300 ms once per
 * process) so that the first real request does not pay for them. Idempotent.
 */
/** Whether this process has built them (warmUpZcashKeys ran). */
export function zcashKeysWarm(): boolean {
  return warmed;
}

export function warmUpZcashKeys(): void {
  if (warmed) return;
  describeAccountKeys(deriveAccountViewingKeys(new Uint8Array(32), "mainnet", 0));
  warmed = true;
}

export interface DeriveViewingKeysInput {
  /** BIP-39 English mnemonic, 12 or 24 words. */
  mnemonic: string;
  account?: number;
  network?: ZcashNetwork;
}

/** Validates the mnemonic (400s name the problem, never a word) and derives the account's viewing keys. */
export function deriveViewingKeys(input: DeriveViewingKeysInput): DerivedViewingKeys {
  const account = input.account ?? 0;
  const network = input.network ?? "mainnet";
  if (!Number.isInteger(account) || account < 0 || account > MAX_ACCOUNT) throw new RangeError("account must be 0..2^31-1");
  const seed = mnemonicToSeed(normalizeMnemonic(input.mnemonic));
  try {
    return { ...describeAccountKeys(deriveAccountViewingKeys(seed, network, account)), warning: DERIVE_WARNING };
  } finally {
    seed.fill(0);
  }
}
