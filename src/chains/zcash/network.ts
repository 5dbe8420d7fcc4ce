/** Per-network constants (zcash_protocol `constants/{mainnet,testnet,regtest}.rs`). */

export type ZcashNetwork = "mainnet" | "testnet" | "regtest";
export const ZCASH_NETWORKS: readonly ZcashNetwork[] = ["mainnet", "testnet", "regtest"];

export interface NetworkParams {
  network: ZcashNetwork;
  /** SLIP-44 / ZIP-32 coin type: 133 mainnet, 1 testnet and regtest. */
  coinType: number;
  uaHrp: string;
  ufvkHrp: string;
  uivkHrp: string;
  saplingAddressHrp: string;
  saplingExtendedFvkHrp: string;
  saplingExtendedSpendingKeyHrp: string;
  p2pkhPrefix: Uint8Array;
  p2shPrefix: Uint8Array;
  /** BIP-32 serialisation versions for the account xpub. */
  xpubVersion: number;
  xprvVersion: number;
}

export const NETWORKS: Record<ZcashNetwork, NetworkParams> = {
  mainnet: {
    network: "mainnet",
    coinType: 133,
    uaHrp: "u",
    ufvkHrp: "uview",
    uivkHrp: "uivk",
    saplingAddressHrp: "zs",
    saplingExtendedFvkHrp: "zxviews",
    saplingExtendedSpendingKeyHrp: "secret-extended-key-main",
    p2pkhPrefix: Uint8Array.of(0x1c, 0xb8),
    p2shPrefix: Uint8Array.of(0x1c, 0xbd),
    xpubVersion: 0x0488b21e,
    xprvVersion: 0x0488ade4,
  },
  testnet: {
    network: "testnet",
    coinType: 1,
    uaHrp: "utest",
    ufvkHrp: "uviewtest",
    uivkHrp: "uivktest",
    saplingAddressHrp: "ztestsapling",
    saplingExtendedFvkHrp: "zxviewtestsapling",
    saplingExtendedSpendingKeyHrp: "secret-extended-key-test",
    p2pkhPrefix: Uint8Array.of(0x1d, 0x25),
    p2shPrefix: Uint8Array.of(0x1c, 0xba),
    xpubVersion: 0x043587cf,
    xprvVersion: 0x04358394,
  },
  regtest: {
    network: "regtest",
    coinType: 1,
    uaHrp: "uregtest",
    ufvkHrp: "uviewregtest",
    uivkHrp: "uivkregtest",
    saplingAddressHrp: "zregtestsapling",
    saplingExtendedFvkHrp: "zxviewregtestsapling",
    saplingExtendedSpendingKeyHrp: "secret-extended-key-regtest",
    // Regtest shares testnet's transparent prefixes.
    p2pkhPrefix: Uint8Array.of(0x1d, 0x25),
    p2shPrefix: Uint8Array.of(0x1c, 0xba),
    xpubVersion: 0x043587cf,
    xprvVersion: 0x04358394,
  },
};

export type UnifiedKind = "address" | "ufvk" | "uivk";

/** Which network and kind a Revision 0 unified HRP names, if any. */
export function unifiedHrpInfo(hrp: string): { network: ZcashNetwork; kind: UnifiedKind } | null {
  for (const n of ZCASH_NETWORKS) {
    const p = NETWORKS[n];
    if (hrp === p.uaHrp) return { network: n, kind: "address" };
    if (hrp === p.ufvkHrp) return { network: n, kind: "ufvk" };
    if (hrp === p.uivkHrp) return { network: n, kind: "uivk" };
  }
  return null;
}

export function unifiedHrp(network: ZcashNetwork, kind: UnifiedKind): string {
  const p = NETWORKS[network];
  return kind === "address" ? p.uaHrp : kind === "ufvk" ? p.ufvkHrp : p.uivkHrp;
}
