/**
 * Interoperability with Zcash's Rust wallet stack: the public development seed
 * "abandon × 23 art" and values published for it by projects built on
 * librustzcash/zcash_keys (zingolib's REG_*_FROM_ABANDONART test constants, and
 * a zcash_keys-based wallet test that pins the testnet UFVK of account 0).
 */
import { describe, expect, it } from "vitest";
import { deriveViewingKeys } from "../../../src/chains/zcash/derive.js";
import { validateZcashWatchKey } from "../../../src/chains/zcash/ownership.js";

const ABANDON_ART = `${"abandon ".repeat(23)}art`;

const TESTNET_UFVK_ACCOUNT_0 =
  "uviewtest1w4wqdd4qw09p5hwll0u5wgl9m359nzn0z5hevyllf9ymg7a2ep7ndk5rhh4gut0gaanep78eylutxdua5unlpcpj8gvh9tjwf7r20de8074g7g6ywvawjuhuxc0hlsxezvn64cdsr49pcyzncjx5q084fcnk9qwa2hj5ae3dplstlg9yv950hgs9jjfnxvtcvu79mdrq66ajh62t5zrvp8tqkqsgh8r4xa6dr2v0mdruac46qk4hlddm58h3khmrrn8awwdm20vfxsr9n6a94vkdf3dzyfpdul558zgxg80kkgth4ghzudd7nx5gvry49sxs78l9xft0lme0llmc5pkh0a4dv4ju6xv4a2y7xh6ekrnehnyrhwcfnpsqw4qwwm3q6c8r02fnqxt9adqwuj5hyzedt9ms9sk0j35ku7j6sm6z0m2x4cesch6nhe9ln44wpw8e7nnyak0up92d6mm6dwdx4r60pyaq7k8vj0r2neqxtqmsgcrd";
const REG_O_ADDR =
  "uregtest1zkuzfv5m3yhv2j4fmvq5rjurkxenxyq8r7h4daun2zkznrjaa8ra8asgdm8wwgwjvlwwrxx7347r8w0ee6dqyw4rufw4wg9djwcr6frzkezmdw6dud3wsm99eany5r8wgsctlxquu009nzd6hsme2tcsk0v3sgjvxa70er7h27z5epr67p5q767s2z5gt88paru56mxpm6pwz0cu35m";
const REG_Z_ADDR = "zregtestsapling1fmq2ufux3gm0v8qf7x585wj56le4wjfsqsj27zprjghntrerntggg507hxh2ydcdkn7sx8kya7p";
/** Default transparent receivers of accounts 0, 1, 2 (testnet and regtest share the tm prefix). */
const T_ADDRS = ["tmBsTi2xWTjUdEXnuTceL7fecEQKeWaPDJd", "tmF3CKFqQ68GdisHK3D9S8pMty7a7Fr2wiN", "tmRmiMusmfipcUmWeQ4YUVc6rKtckdd2aV3"];

describe("interop with zcash_keys on the abandon…art development seed", () => {
  it("derives the same testnet UFVK for account 0", () => {
    expect(deriveViewingKeys({ mnemonic: ABANDON_ART, network: "testnet" }).ufvk).toBe(TESTNET_UFVK_ACCOUNT_0);
  });
  it("derives the same default transparent receivers for accounts 0..2 (at the default diversifier index)", () => {
    const got = [0, 1, 2].map((account) => deriveViewingKeys({ mnemonic: ABANDON_ART, account, network: "testnet" }));
    expect(got.map((g) => g.defaultTransparentAddress)).toEqual(T_ADDRS);
    expect(got.map((g) => g.diversifierIndex)).toEqual([0, 3, 1]);
  });
  it("recognises the published regtest Orchard UA, Sapling address and t-address as the account's", () => {
    const { ufvk, defaultSaplingAddress } = deriveViewingKeys({ mnemonic: ABANDON_ART, network: "regtest" });
    expect(defaultSaplingAddress).toBe(REG_Z_ADDR);
    for (const a of [REG_O_ADDR, REG_Z_ADDR, T_ADDRS[0]]) expect(validateZcashWatchKey(a, ufvk)).toEqual({ chain: "zcash", address: a, network: "regtest" });
  });
});
