/**
 * The devnet's ready-made Monero wallets (alice, bob, carol and the miner):
 * derived from one 32-byte seed kept under <dataDir>/devnet/monero-wallets.json
 * (created on first start), so the same DATA_DIR always yields the same
 * addresses and view keys, and a watch stored by an earlier run still fits.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { encodeAddress } from "../src/chains/monero/address.js";
import { hashToScalar, mulBase, scalarToBytes } from "../src/chains/monero/crypto.js";
import { bytesToHex, concatBytes, encodeVarint, hexToBytesStrict } from "../src/chains/monero/encoding.js";
import { deriveSubaddress } from "../src/chains/monero/subaddress.js";
import type { MoneroNetwork } from "../src/chains/monero/types.js";

/** The devnet runs Monero testnet: its addresses can never be mainnet ones. */
export const DEVNET_MONERO_NETWORK: MoneroNetwork = "testnet";

export interface DevnetMoneroWallet {
  chain: "monero";
  network: MoneroNetwork;
  label: string;
  address: string;
  viewKey: string;
  spendKey: string;
  /** A few subaddresses of the wallet (index → address), for subaddress watches. */
  subaddresses: { major: number; minor: number; address: string }[];
}

const WALLET_LABELS = ["alice", "bob", "carol", "miner"] as const;

interface WalletSeedFile {
  seed: string;
  network: MoneroNetwork;
}

/** The wallet seed of this DATA_DIR, created on first use. */
export function loadOrCreateSeed(dataDir: string): WalletSeedFile {
  const dir = path.join(dataDir, "devnet");
  const file = path.join(dir, "monero-wallets.json");
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<WalletSeedFile>;
    if (typeof parsed.seed === "string" && /^[0-9a-f]{64}$/.test(parsed.seed)) {
      return { seed: parsed.seed, network: DEVNET_MONERO_NETWORK };
    }
  } catch {
    // first start
  }
  fs.mkdirSync(dir, { recursive: true });
  const created: WalletSeedFile = { seed: randomBytes(32).toString("hex"), network: DEVNET_MONERO_NETWORK };
  fs.writeFileSync(file, JSON.stringify(created, null, 2) + "\n", { mode: 0o600 });
  return created;
}

/**
 * Wallet i: spend secret b = Hs(seed ‖ "vigil-devnet-monero" ‖ i); view secret
 * a = Hs(b) as in Monero's standard (25-word) wallets.
 */
export function deriveDevnetWallets(seedHex: string, network: MoneroNetwork = DEVNET_MONERO_NETWORK): DevnetMoneroWallet[] {
  const seed = hexToBytesStrict(seedHex);
  if (!seed || seed.length !== 32) throw new RangeError("devnet wallet seed must be 32 bytes of hex");
  const tag = new TextEncoder().encode("vigil-devnet-monero");
  return WALLET_LABELS.map((label, i) => {
    const b = hashToScalar(concatBytes(seed, tag, encodeVarint(i)));
    const spendSecret = scalarToBytes(b);
    const a = hashToScalar(spendSecret);
    const viewSecret = scalarToBytes(a);
    const B = mulBase(b).toBytes();
    const A = mulBase(a).toBytes();
    const subaddresses = [
      { major: 0, minor: 1 },
      { major: 0, minor: 2 },
      { major: 1, minor: 1 },
    ].map((idx) => ({ ...idx, address: deriveSubaddress(network, viewSecret, B, idx) }));
    return {
      chain: "monero" as const,
      network,
      label,
      address: encodeAddress(network, "standard", B, A),
      viewKey: bytesToHex(viewSecret),
      spendKey: bytesToHex(spendSecret),
      subaddresses,
    };
  });
}
