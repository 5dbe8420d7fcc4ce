/**
 * Vigil's Carrot scanner against vectors made by upstream's reference
 * carrot_core (monero-project/monero PR #9559 @ c7b6ee45, the T and domain
 * separators of constants.ts): reference/carrot-reference-vectors.json,
 * written by reference/gen-vectors.cpp (how it was built and run:
 * reference/README.md). Three legacy wallets: the watched merchant (main
 * address, subaddresses in accounts 0, 1 and 3, an integrated address), the
 * payer (whose change is an external self-send) and another wallet. Every
 * output of every transaction is scanned for every wallet with the scanner's
 * public functions; each must own exactly what carrot_core's own receiver
 * scan owned (amount, subaddress, payment ID, enote type, K_s^j) and refuse
 * the rest. Reads only the JSON: no C++ build is needed to run it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { encodeAddress } from "../../../../src/chains/monero/address.js";
import { bytesToHex, hexToBytes } from "../../../../src/chains/monero/encoding.js";
import { makeViewAccount } from "../../../../src/chains/monero/keys.js";
import { deriveSubaddress, subaddressSpendPublicKey } from "../../../../src/chains/monero/subaddress.js";
import { commitAmount, inputContextCoinbase, inputContextRingct } from "../../../../src/chains/monero/carrot/enote.js";
import {
  scanCarrotCoinbaseEnote,
  scanCarrotEnote,
  scanCarrotEnotes,
  type CarrotCoinbaseEnote,
  type CarrotEnote,
  type CarrotReceiver,
  type CarrotScanResult,
} from "../../../../src/chains/monero/carrot/scan.js";
import { carrotOwnedOutputs, type CarrotTxEnotes } from "../../../../src/chains/monero/carrot/tx.js";
import type { OwnedOutput } from "../../../../src/chains/monero/types.js";

interface RefScan {
  address_spend_pubkey: string;
  subaddress: { major: number; minor: number };
  amount: string;
  amount_blinding_factor: string;
  payment_id: string | null;
  enote_type: "payment" | "change";
}
type WalletName = "merchant" | "payer" | "other";
interface RefOutput {
  sent_to: string;
  onetime_address: string;
  amount_commitment?: string;
  amount_enc?: string;
  amount?: string;
  anchor_enc: string;
  view_tag: string;
  ephemeral_pubkey: string;
  scan: Record<WalletName, RefScan | null>;
}
interface RefTx {
  name: string;
  about: string;
  kind: "transfer" | "coinbase";
  first_key_image?: string;
  block_index?: string;
  input_context: string;
  pid_enc?: string;
  outputs: RefOutput[];
}
interface RefWallet {
  spend_public: string;
  view_secret: string;
  view_public: string;
  subaddresses: { major: number; minor: number; spend_public: string; view_public: string }[];
  integrated?: { payment_id: string; spend_public: string; view_public: string };
}
interface RefFile {
  carrot_core: string;
  wallets: Record<WalletName, RefWallet>;
  transactions: RefTx[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const ref = JSON.parse(readFileSync(path.join(here, "reference", "carrot-reference-vectors.json"), "utf8")) as RefFile;
const WALLETS: WalletName[] = ["merchant", "payer", "other"];
const U64_MAX = (1n << 64n) - 1n;

const mainAddress = (w: RefWallet) => encodeAddress("mainnet", "standard", hexToBytes(w.spend_public), hexToBytes(w.view_public));
// The merchant's subaddresses reach account 3, minor 12: a look-ahead that covers them.
const accounts: Record<WalletName, CarrotReceiver> = {
  merchant: makeViewAccount(mainAddress(ref.wallets.merchant), ref.wallets.merchant.view_secret, { lookahead: { accounts: 4, minors: 16 } }),
  payer: makeViewAccount(mainAddress(ref.wallets.payer), ref.wallets.payer.view_secret),
  other: makeViewAccount(mainAddress(ref.wallets.other), ref.wallets.other.view_secret),
};

const transfers = ref.transactions.filter((t) => t.kind === "transfer");
const coinbases = ref.transactions.filter((t) => t.kind === "coinbase");

function enoteOf(o: RefOutput): CarrotEnote {
  return {
    onetimeAddress: hexToBytes(o.onetime_address),
    amountCommitment: hexToBytes(o.amount_commitment!),
    encryptedAmount: hexToBytes(o.amount_enc!),
    viewTag: hexToBytes(o.view_tag),
    encryptedAnchor: hexToBytes(o.anchor_enc),
    ephemeralPubkey: hexToBytes(o.ephemeral_pubkey),
  };
}
function coinbaseEnoteOf(t: RefTx, o: RefOutput): CarrotCoinbaseEnote {
  return {
    onetimeAddress: hexToBytes(o.onetime_address),
    amount: BigInt(o.amount!),
    viewTag: hexToBytes(o.view_tag),
    encryptedAnchor: hexToBytes(o.anchor_enc),
    ephemeralPubkey: hexToBytes(o.ephemeral_pubkey),
    blockIndex: BigInt(t.block_index!),
  };
}
function txEnotesOf(t: RefTx): CarrotTxEnotes {
  if (t.kind === "coinbase") return { kind: "coinbase", enotes: t.outputs.map((o) => coinbaseEnoteOf(t, o)) };
  return {
    kind: "transfer",
    context: { inputContext: inputContextRingct(hexToBytes(t.first_key_image!)), encryptedPaymentId: hexToBytes(t.pid_enc!) },
    enotes: t.outputs.map(enoteOf),
  };
}

/** The scan result carrot_core's receiver scan implies, in Vigil's shape. */
function expected(t: RefTx, o: RefOutput, s: RefScan | null): CarrotScanResult | { owned: false } {
  if (!s) return { owned: false };
  return {
    owned: true,
    amount: BigInt(s.amount),
    subaddress: s.subaddress,
    paymentId: s.payment_id,
    enoteType: s.enote_type,
    // The only self-sends in the vectors are the payer's change (special enotes: carrot_core's sender made them with the payer's k_v).
    selfSend: o.sent_to === "payer change",
    coinbase: t.kind === "coinbase",
    addressSpendKey: s.address_spend_pubkey,
  };
}
const comparable = (r: CarrotScanResult) => (r.owned ? r : { owned: false });

describe("Carrot reference vectors (carrot_core, legacy wallets)", () => {
  it("the vectors cover what issue 26 asks for", () => {
    expect(ref.carrot_core).toBe("monero-project/monero c7b6ee459f09ec00b444b565c122560bfc0bfda8");
    const merchantScans = ref.transactions.flatMap((t) => t.outputs.map((o) => o.scan.merchant)).filter((s): s is RefScan => s !== null);
    const majors = new Set(merchantScans.filter((s) => s.subaddress.major !== 0 || s.subaddress.minor !== 0).map((s) => s.subaddress.major));
    expect(majors.size).toBeGreaterThanOrEqual(2);
    expect(merchantScans.some((s) => s.payment_id !== null)).toBe(true);
    expect(merchantScans.some((s) => BigInt(s.amount) === U64_MAX)).toBe(true);
    expect(transfers.some((t) => t.outputs.length >= 3 && new Set(t.outputs.map((o) => o.ephemeral_pubkey)).size === t.outputs.length)).toBe(true);
    expect(coinbases.some((t) => t.outputs.some((o) => o.scan.merchant !== null))).toBe(true);
    expect(transfers.some((t) => t.outputs.every((o) => o.scan.merchant === null))).toBe(true);
    const notOurs = ref.transactions.flatMap((t) => t.outputs).filter((o) => o.scan.merchant === null);
    expect(notOurs.some((o) => o.sent_to === "payer change")).toBe(true);
    expect(notOurs.some((o) => o.sent_to === "other main")).toBe(true);
    // Every output has exactly one owner in the reference scan.
    for (const o of ref.transactions.flatMap((t) => t.outputs)) expect(WALLETS.filter((w) => o.scan[w] !== null)).toHaveLength(1);
  });

  it("the wallets' legacy subaddresses and integrated address are the ones Vigil derives", () => {
    const m = ref.wallets.merchant;
    const viewSecret = hexToBytes(m.view_secret);
    expect(m.subaddresses.length).toBeGreaterThanOrEqual(3);
    for (const s of m.subaddresses) {
      const index = { major: s.major, minor: s.minor };
      expect(bytesToHex(subaddressSpendPublicKey(viewSecret, hexToBytes(m.spend_public), index))).toBe(s.spend_public);
      expect(deriveSubaddress("mainnet", viewSecret, hexToBytes(m.spend_public), index)).toBe(
        encodeAddress("mainnet", "subaddress", hexToBytes(s.spend_public), hexToBytes(s.view_public)),
      );
      expect(accounts.merchant.spendKeys.get(s.spend_public)).toEqual(index);
    }
    // carrot_core's integrated destination is the main address's keys plus the payment ID.
    expect(m.integrated!.spend_public).toBe(m.spend_public);
    expect(m.integrated!.view_public).toBe(m.view_public);
  });

  it("the input contexts are the ones Vigil builds", () => {
    for (const t of transfers) expect(bytesToHex(inputContextRingct(hexToBytes(t.first_key_image!))), t.name).toBe(t.input_context);
    for (const t of coinbases) expect(bytesToHex(inputContextCoinbase(BigInt(t.block_index!))), t.name).toBe(t.input_context);
  });

  for (const t of transfers) {
    it(`${t.name}: every wallet owns exactly what carrot_core's scan owned (${t.about})`, () => {
      const enotes = t.outputs.map(enoteOf);
      const ctx = { inputContext: inputContextRingct(hexToBytes(t.first_key_image!)), encryptedPaymentId: hexToBytes(t.pid_enc!) };
      for (const w of WALLETS) {
        const results = scanCarrotEnotes(accounts[w], ctx, enotes);
        t.outputs.forEach((o, i) => {
          expect(comparable(results[i]!), `${t.name} output ${i} (${o.sent_to}) for ${w}`).toEqual(expected(t, o, o.scan[w]));
          // One enote at a time gives the same answer as the batch over the transaction.
          expect(scanCarrotEnote(accounts[w], ctx, enotes[i]!)).toEqual(results[i]);
          if (!o.scan[w]) expect(results[i]).toMatchObject({ owned: false, refusal: expect.any(String) });
        });
      }
    });
  }

  for (const t of coinbases) {
    it(`${t.name}: the coinbase enotes are found for their owner only (${t.about})`, () => {
      for (const w of WALLETS) {
        t.outputs.forEach((o, i) => {
          const r = scanCarrotCoinbaseEnote(accounts[w], coinbaseEnoteOf(t, o));
          expect(comparable(r), `${t.name} output ${i} (${o.sent_to}) for ${w}`).toEqual(expected(t, o, o.scan[w]));
          if (!o.scan[w]) expect(r).toMatchObject({ owned: false, refusal: expect.any(String) });
        });
      }
    });
  }

  it("the owned outputs per transaction (carrotOwnedOutputs) are carrot_core's, K_o as the public key", () => {
    for (const t of ref.transactions) {
      for (const w of WALLETS) {
        const want: OwnedOutput[] = t.outputs.flatMap((o, outputIndex) => {
          const s = o.scan[w];
          if (!s) return [];
          const owned: OwnedOutput = { outputIndex, publicKey: o.onetime_address, amount: BigInt(s.amount), subaddress: s.subaddress };
          if (s.payment_id) owned.paymentId = s.payment_id;
          return [owned];
        });
        expect(carrotOwnedOutputs(txEnotesOf(t), accounts[w]), `${t.name} for ${w}`).toEqual(want);
      }
    }
  });

  it("carrot_core's amount blinding factors open the commitments with Vigil's C_a = k_a·G + a·H", () => {
    for (const t of ref.transactions) {
      for (const o of t.outputs) {
        const owner = WALLETS.find((w) => o.scan[w] !== null)!;
        const s = o.scan[owner]!;
        const commitment = t.kind === "coinbase" ? null : o.amount_commitment!;
        if (commitment) expect(bytesToHex(commitAmount(BigInt(s.amount), bytesToNumberLE(hexToBytes(s.amount_blinding_factor)))), `${t.name} ${o.sent_to}`).toBe(commitment);
        else expect(s.amount_blinding_factor).toBe("01" + "00".repeat(31));
      }
    }
  });
});
