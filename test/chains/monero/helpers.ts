import { encodeAddress } from "../../../src/chains/monero/address.js";
import { mulBase, scalarToBytes } from "../../../src/chains/monero/crypto.js";
import { bytesToHex } from "../../../src/chains/monero/encoding.js";
import { deriveSubaddress } from "../../../src/chains/monero/subaddress.js";
import type { MoneroNetwork } from "../../../src/chains/monero/types.js";
import { randomScalar, seededRng } from "../../../devnet/monero-sender.js";

export interface TestWallet {
  network: MoneroNetwork;
  viewSecretHex: string;
  viewSecretBytes: Uint8Array;
  spendPublic: Uint8Array;
  address: string;
  sub(major: number, minor: number): string;
}

export function makeWallet(seed: string, network: MoneroNetwork = "mainnet"): TestWallet {
  const rng = seededRng(seed);
  const b = randomScalar(rng);
  const a = randomScalar(rng);
  const viewSecretBytes = scalarToBytes(a);
  const spendPublic = mulBase(b).toBytes();
  const address = encodeAddress(network, "standard", spendPublic, mulBase(a).toBytes());
  return {
    network,
    viewSecretHex: bytesToHex(viewSecretBytes),
    viewSecretBytes,
    spendPublic,
    address,
    sub: (major, minor) => deriveSubaddress(network, viewSecretBytes, spendPublic, { major, minor }),
  };
}

