/**
 * Refusals of the Zcash decoders that the service's own surfaces never reach,
 * held for the callers of these functions: a UFVK or an address handed to the
 * UIVK decoder, a UFVK or a UIVK handed to the address decoder (the API's
 * address field refuses any viewing key earlier, with key_not_address), and a
 * seed phrase that is not a string (every surface reads the phrase as text).
 */
import { describe, expect, it } from "vitest";
import { orchardAddressAt, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUivk, decodeUnifiedAddress, encodeUfvk, encodeUivk, encodeUnifiedAddress } from "../../../src/chains/zcash/zip316.js";
import { normalizeMnemonic } from "../../../src/chains/zcash/mnemonic.js";
import { deriveViewingKeys } from "../../../src/chains/zcash/derive.js";
import { serviceError } from "./helpers.js";

describe("a unified string of another kind is named by what it is", () => {
  const keys = deriveAccountViewingKeys(Uint8Array.from({ length: 32 }, (_, i) => i), "mainnet", 0);
  const orchard = orchardIvkParts(keys.orchard)!;
  const ufvk = encodeUfvk("mainnet", { orchard: keys.orchard });
  const uivk = encodeUivk("mainnet", { orchard });
  const address = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orchard, 0n) });

  it("each decoder takes its own kind", () => {
    expect(decodeUivk(uivk).orchard!.ivk).toBe(orchard.ivk);
    expect(decodeUnifiedAddress(address).network).toBe("mainnet");
  });

  it("a UFVK or an address where a UIVK is expected", () => {
    expect(serviceError(() => decodeUivk(ufvk))).toMatchObject({ status: 400, code: "ufvk_not_uivk" });
    expect(serviceError(() => decodeUivk(address))).toMatchObject({ status: 400, code: "address_not_uivk" });
  });

  it("a UFVK or a UIVK where an address is expected", () => {
    expect(serviceError(() => decodeUnifiedAddress(ufvk))).toMatchObject({ status: 400, code: "ufvk_not_address" });
    expect(serviceError(() => decodeUnifiedAddress(uivk))).toMatchObject({ status: 400, code: "uivk_not_address" });
  });
});

describe("a seed phrase that is not a string", () => {
  it("is refused before anything is read from it, by the check and by the derivation", () => {
    for (const phrase of [42, null, ["abandon"]]) {
      expect(serviceError(() => normalizeMnemonic(phrase as unknown as string)), JSON.stringify(phrase)).toMatchObject({ status: 400, code: "invalid_mnemonic" });
    }
    expect(serviceError(() => deriveViewingKeys({ mnemonic: undefined as unknown as string }))).toMatchObject({ status: 400, code: "invalid_mnemonic" });
  });
});
