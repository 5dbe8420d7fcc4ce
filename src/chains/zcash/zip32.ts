/** ZIP-32 account-level key derivation for all three receivers, from a BIP-39 seed. */
import { NETWORKS, type ZcashNetwork } from "./network.js";
import { orchardAccountSk, orchardFvkFromSk, type OrchardFvk } from "./orchard-keys.js";
import { saplingAccountKey, saplingExtendedFvk, type SaplingExtendedFvk } from "./sapling-keys.js";
import { transparentAccountNode, type TransparentPubNode } from "./transparent.js";

export const MAX_ACCOUNT = 0x7fffffff;

export interface AccountViewingKeys {
  network: ZcashNetwork;
  account: number;
  sapling: SaplingExtendedFvk;
  orchard: OrchardFvk;
  transparent: TransparentPubNode;
}

/** Sapling m/32'/coin'/account', Orchard m/32'/coin'/account', transparent m/44'/coin'/account'. */
export function deriveAccountViewingKeys(seed: Uint8Array, network: ZcashNetwork, account: number): AccountViewingKeys {
  if (!Number.isInteger(account) || account < 0 || account > MAX_ACCOUNT) throw new RangeError("account must be 0..2^31-1");
  const coin = NETWORKS[network].coinType;
  const { xsk } = saplingAccountKey(seed, coin, account);
  const { ak, nk, rivk } = orchardFvkFromSk(orchardAccountSk(seed, coin, account));
  return {
    network,
    account,
    sapling: saplingExtendedFvk(xsk),
    orchard: { ak, nk, rivk },
    transparent: transparentAccountNode(seed, coin, account),
  };
}
