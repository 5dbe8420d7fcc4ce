/**
 * The devnet's ready-made Zcash wallets (alice, bob, carol): a 24-word
 * mnemonic each, derived from the devnet seed kept under
 * <dataDir>/devnet/monero-wallets.json (the same seed as the Monero wallets),
 * then mnemonic → UFVK → unified address with the service's own derivation
 * code, on testnet. Besides the default address, each wallet lists a unified
 * address at a later diversifier index and one made of its internal (change)
 * receivers, so payments to both can be tried.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { bech32Encode } from "../src/chains/zcash/bech32.js";
import { concatBytes, hexToBytes } from "../src/chains/zcash/bytes.js";
import { describeAccountKeys } from "../src/chains/zcash/derive.js";
import { mnemonicToSeed } from "../src/chains/zcash/mnemonic.js";
import { NETWORKS, type ZcashNetwork } from "../src/chains/zcash/network.js";
import { orchardAddressAt, orchardIvkParts } from "../src/chains/zcash/orchard-keys.js";
import { saplingAddressAt, saplingFirstValidIndex, saplingInternalDfvk } from "../src/chains/zcash/sapling-keys.js";
import { deriveAccountViewingKeys } from "../src/chains/zcash/zip32.js";
import { decodeUfvk, encodeUnifiedAddress, type UnifiedFullViewingKey } from "../src/chains/zcash/zip316.js";

export const DEVNET_ZCASH_WALLET_LABELS = ["alice", "bob", "carol"] as const;

export interface DevnetZcashWallet {
  chain: "zcash";
  network: ZcashNetwork;
  label: string;
  /** 24-word BIP-39 phrase (devnet only: never reuse it). */
  mnemonic: string;
  account: number;
  ufvk: string;
  uivk: string;
  /** Default unified address (Orchard + Sapling + P2PKH). */
  address: string;
  diversifierIndex: number;
  saplingAddress: string;
  transparentAddress: string;
  /** A unified address (Orchard + Sapling) at a later diversifier index. */
  diversifiedAddress: { index: number; address: string };
  /** A unified address of the internal (change) receivers, Orchard + Sapling. */
  changeAddress: string;
}

/** Wallet i: entropy = SHA-256(seed ‖ "vigil-devnet-zcash" ‖ i) → 24 words → account 0 on testnet. */
export function deriveDevnetZcashWallets(seedHex: string, network: ZcashNetwork = "testnet", labels: readonly string[] = DEVNET_ZCASH_WALLET_LABELS): DevnetZcashWallet[] {
  const seed = hexToBytes(seedHex);
  const tag = new TextEncoder().encode("vigil-devnet-zcash");
  return labels.map((label, i) => {
    const mnemonic = entropyToMnemonic(sha256(concatBytes(seed, tag, Uint8Array.of(i))), wordlist);
    const bip39Seed = mnemonicToSeed(mnemonic);
    const keys = deriveAccountViewingKeys(bip39Seed, network, 0);
    const d = describeAccountKeys(keys);
    const next = saplingFirstValidIndex(keys.sapling.dk, BigInt(d.diversifierIndex) + 1n).index;
    const ext = orchardIvkParts(keys.orchard, "external")!;
    const diversified = encodeUnifiedAddress(network, { sapling: saplingAddressAt(keys.sapling, next)!, orchard: orchardAddressAt(ext, next) });
    const intSapling = saplingInternalDfvk(keys.sapling);
    const intIndex = saplingFirstValidIndex(intSapling.dk).index;
    const intOrchard = orchardIvkParts(keys.orchard, "internal")!;
    const change = encodeUnifiedAddress(network, { sapling: saplingAddressAt(intSapling, intIndex)!, orchard: orchardAddressAt(intOrchard, 0n) });
    return {
      chain: "zcash" as const,
      network,
      label,
      mnemonic,
      account: 0,
      ufvk: d.ufvk,
      uivk: d.uivk,
      address: d.defaultAddress,
      diversifierIndex: d.diversifierIndex,
      saplingAddress: d.defaultSaplingAddress,
      transparentAddress: d.defaultTransparentAddress,
      diversifiedAddress: { index: Number(next), address: diversified },
      changeAddress: change,
    };
  });
}

/** The decoded UFVK of a wallet (for spends). */
export function walletUfvk(w: DevnetZcashWallet): UnifiedFullViewingKey {
  return decodeUfvk(w.ufvk, w.network);
}

/** A legacy Sapling address string of raw bytes (helper for tests and tools). */
export function encodeSaplingAddress(network: ZcashNetwork, raw: Uint8Array): string {
  return bech32Encode(NETWORKS[network].saplingAddressHrp, raw);
}
