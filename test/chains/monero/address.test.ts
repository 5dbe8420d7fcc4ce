import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { decodeAddress, encodeAddress, makeIntegratedAddress } from "../../../src/chains/monero/address.js";
import { base58xmr } from "@scure/base";
import { deriveSubaddress, subaddressSpendPublicKey } from "../../../src/chains/monero/subaddress.js";
import { makeViewAccount, validateMoneroWatchKey } from "../../../src/chains/monero/keys.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/monero/encoding.js";
import { hashToScalar, mulBase, scalarToBytes } from "../../../src/chains/monero/crypto.js";
import { ServiceError } from "../../../src/core/errors.js";
import { VECTOR_DIR, readJsonVector, vectorsPresent } from "./vectors.js";

interface AddressVectors {
  functional_test_wallet: {
    spend_secret: string;
    view_secret: string;
    spend_public: string;
    view_public: string;
    standard_address: string;
    subaddresses: { major: number; minor: number; address: string }[];
    integrated: { payment_id: string; address: string }[];
  };
  integrated_from_other_standard: { standard: string; payment_id: string; integrated: string };
  network_examples: {
    network: string;
    type: string;
    address: string;
    prefix: number;
    spend_public: string;
    view_public: string;
    payment_id?: string;
    decoded_bytes: number;
  }[];
  invalid_examples: { input: string; why: string }[];
  monero_rs_wallets: { address: string; view_secret: string; spend_public: string; view_public: string }[];
  mainnet_view_only_pair_unattributed: { address: string; view_secret: string };
}

const V = vectorsPresent ? readJsonVector<AddressVectors>("addresses.json") : (null as unknown as AddressVectors);

function expectServiceError(fn: () => unknown, code: string, messagePart?: RegExp): ServiceError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    const se = e as ServiceError;
    expect(se.status).toBe(400);
    expect(se.code).toBe(code);
    if (messagePart) expect(se.message).toMatch(messagePart);
    return se;
  }
  throw new Error(`expected ServiceError ${code}`);
}

describe.skipIf(!vectorsPresent)(`Monero addresses.json (${VECTOR_DIR})`, () => {
  it("decodes every network example with the right network, kind, keys and payment id, and re-encodes it", () => {
    for (const ex of V.network_examples) {
      const r = decodeAddress(ex.address);
      expect(r.ok, ex.address).toBe(true);
      if (!r.ok) continue;
      expect(r.value.network).toBe(ex.network);
      expect(ex.type.startsWith(r.value.kind)).toBe(true);
      expect(r.value.tag).toBe(ex.prefix);
      expect(bytesToHex(r.value.spendPublicKey)).toBe(ex.spend_public);
      expect(bytesToHex(r.value.viewPublicKey)).toBe(ex.view_public);
      expect(r.value.paymentId ? bytesToHex(r.value.paymentId) : undefined).toBe(ex.payment_id);
      expect(base58xmr.decode(ex.address).length).toBe(ex.decoded_bytes);
      expect(encodeAddress(r.value.network, r.value.kind, r.value.spendPublicKey, r.value.viewPublicKey, r.value.paymentId)).toBe(ex.address);
    }
    const nets = new Set(V.network_examples.map((e) => `${e.network}/${e.type.split(" ")[0]}`));
    for (const n of ["mainnet", "testnet", "stagenet"]) for (const k of ["standard", "integrated", "subaddress"]) {
      if (!(n === "testnet" && k === "subaddress")) expect(nets.has(`${n}/${k}`), `${n}/${k}`).toBe(true);
    }
  });

  it("rejects every invalid example", () => {
    for (const ex of V.invalid_examples) expect(decodeAddress(ex.input).ok, ex.why).toBe(false);
  });

  it("functional-test wallet: view key from spend key, a·G = A, standard/sub/integrated addresses", () => {
    const w = V.functional_test_wallet;
    expect(bytesToHex(scalarToBytes(hashToScalar(hexToBytes(w.spend_secret))))).toBe(w.view_secret);
    expect(bytesToHex(mulBase(BigInt("0x" + [...hexToBytes(w.view_secret)].reverse().map((b) => b.toString(16).padStart(2, "0")).join(""))).toBytes())).toBe(w.view_public);
    const viewSecret = hexToBytes(w.view_secret);
    const spendPublic = hexToBytes(w.spend_public);
    expect(deriveSubaddress("mainnet", viewSecret, spendPublic, { major: 0, minor: 0 })).toBe(w.standard_address);
    for (const s of w.subaddresses) {
      expect(deriveSubaddress("mainnet", viewSecret, spendPublic, s)).toBe(s.address);
      const d = decodeAddress(s.address);
      expect(d.ok && bytesToHex(d.value.spendPublicKey)).toBe(bytesToHex(subaddressSpendPublicKey(viewSecret, spendPublic, s)));
    }
    for (const i of w.integrated) expect(makeIntegratedAddress(w.standard_address, i.payment_id)).toBe(i.address);
    const o = V.integrated_from_other_standard;
    expect(makeIntegratedAddress(o.standard, o.payment_id)).toBe(o.integrated);
  });

  it("validateMoneroWatchKey accepts matching keys for standard, integrated and subaddress forms", () => {
    const w = V.functional_test_wallet;
    expect(validateMoneroWatchKey(w.standard_address, w.view_secret)).toEqual({ chain: "monero", address: w.standard_address, network: "mainnet" });
    expect(validateMoneroWatchKey(w.integrated[0]!.address, w.view_secret).network).toBe("mainnet");
    for (const s of w.subaddresses) expect(validateMoneroWatchKey(s.address, w.view_secret).address).toBe(s.address);
    const rs = V.monero_rs_wallets[0]!;
    expect(validateMoneroWatchKey(rs.address, rs.view_secret).network).toBe("mainnet");
    const m = V.mainnet_view_only_pair_unattributed;
    expect(validateMoneroWatchKey(m.address, m.view_secret).network).toBe("mainnet");
    const stagenet = V.network_examples.find((e) => e.network === "stagenet")!;
    expectServiceError(() => validateMoneroWatchKey(stagenet.address, w.view_secret, { network: "mainnet" }), "invalid_address", /stagenet/);
  });

  it("says which is wrong: address, view key format, or view key ↔ address", () => {
    const w = V.functional_test_wallet;
    const rs = V.monero_rs_wallets[0]!;
    expectServiceError(() => validateMoneroWatchKey(V.invalid_examples[0]!.input, w.view_secret), "invalid_address", /checksum/);
    expectServiceError(() => validateMoneroWatchKey(w.standard_address, "zz"), "invalid_view_key", /64 hex/);
    expectServiceError(() => validateMoneroWatchKey(w.standard_address, "ff".repeat(32)), "invalid_view_key", /scalar/);
    expectServiceError(() => validateMoneroWatchKey(w.standard_address, "00".repeat(32)), "invalid_view_key");
    expectServiceError(() => validateMoneroWatchKey(w.standard_address, rs.view_secret), "view_key_mismatch", /standard address.*a·G/);
    expectServiceError(() => validateMoneroWatchKey(w.subaddresses[0]!.address, rs.view_secret), "view_key_mismatch", /subaddress.*a·D/);
    expectServiceError(() => validateMoneroWatchKey(w.integrated[0]!.address, rs.view_secret), "view_key_mismatch", /integrated/);
    expectServiceError(() => makeViewAccount(w.standard_address, rs.view_secret), "view_key_mismatch");
  });

  it("a primary watch's look-ahead table holds every documented subaddress it covers", () => {
    const w = V.functional_test_wallet;
    const acc = makeViewAccount(w.standard_address, w.view_secret, { lookahead: { accounts: 3, minors: 3 } });
    expect(acc.spendKeys.size).toBe(9);
    for (const s of w.subaddresses.filter((x) => x.major < 3 && x.minor < 3)) {
      const d = decodeAddress(s.address);
      expect(d.ok && acc.spendKeys.get(bytesToHex(d.value.spendPublicKey))).toEqual({ major: s.major, minor: s.minor });
    }
  });
});

describe("Monero base58 and address decoding never throw", () => {
  it("base58 round-trips arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
      expect(bytesToHex(base58xmr.decode(base58xmr.encode(b)))).toBe(bytesToHex(b));
    }));
  });
  it("random strings return an error value, not an exception", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (s) => {
        const r = decodeAddress(s);
        expect(typeof r.ok).toBe("boolean");
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{90,110}$/), (s) => {
        expect(typeof decodeAddress(s).ok).toBe("boolean");
      }),
    );
  });
  it("malformed base58 is one error value: an overflowing block, a bad tail length, a character outside the alphabet", () => {
    const notBase58 = { ok: false, error: "not Monero base58" };
    expect(decodeAddress("zzzzzzzzzzz")).toEqual(notBase58); // a full block above 2^64
    expect(decodeAddress("zz")).toEqual(notBase58); // a 1-byte tail block above 255
    expect(decodeAddress("1111")).toEqual(notBase58); // 4 is no block width
    expect(decodeAddress("0111111111")).toEqual(notBase58); // '0' is not in the alphabet
    expect(decodeAddress("11")).toEqual({ ok: false, error: "address too short" }); // one zero byte decodes fine
  });
});
