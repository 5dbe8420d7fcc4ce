import { PassThrough, Readable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { generateMnemonic, mnemonicToSeedSync } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { ServiceError } from "../../../src/core/errors.js";
import { buildRouter } from "../../../src/http/router.js";
import type { RequestContext } from "../../../src/http/route-table.js";
import type { Paywall } from "../../../src/x402/paywall.js";
import type { Database } from "../../../src/db/types.js";
import { runZcashCli } from "../../../src/chains/zcash/cli.js";
import { DERIVE_WARNING, deriveViewingKeys, describeAccountKeys, warmUpZcashKeys } from "../../../src/chains/zcash/derive.js";
import { mnemonicToSeed, normalizeMnemonic } from "../../../src/chains/zcash/mnemonic.js";
import { validateZcashWatchKey } from "../../../src/chains/zcash/ownership.js";
import { deriveViewkeyInput, deriveViewkeyOutput, deriveViewkeyRoute } from "../../../src/watch/derive-viewkey-route.js";
import { decodeUfvk, decodeUivk, encodeUfvk } from "../../../src/chains/zcash/zip316.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { serviceError } from "./helpers.js";
import { ff1Diversifier } from "../../../src/chains/zcash/ff1.js";
import { saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";

const PHRASE12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const PHRASE24 = "abandon ".repeat(23) + "art";
// A valid phrase whose words each contain "i" or "o" (absent from Bech32 and hex output) and none of
// which occurs in the response's fixed texts, so a leak check on the output cannot pass by accident.
const SECRET = "lottery stadium victory provide rival copper tool govern bone rail loyal focus";
const BAD_CHECKSUM = SECRET.replace("lottery", "abandon");

function expectNoLeak(text: string, phrase: string) {
  expect(text).not.toContain(phrase);
  for (const w of new Set(phrase.split(" "))) if (w.length >= 4) expect(text.toLowerCase()).not.toContain(w);
}

describe("mnemonic validation", () => {
  it("accepts 12 and 24 words, normalising case and whitespace", () => {
    expect(normalizeMnemonic(`  ${PHRASE12.toUpperCase().replace(/ /g, " \t\n ")}  `)).toBe(PHRASE12);
    expect(normalizeMnemonic(PHRASE24)).toBe(PHRASE24.trim());
  });
  it("wrong word count", () => {
    const e = serviceError(() => normalizeMnemonic("abandon ".repeat(15) + "about"));
    expect([e.status, e.code, e.details]).toEqual([400, "invalid_mnemonic_word_count", { wordCount: 16, allowed: [12, 24] }]);
    expect(serviceError(() => normalizeMnemonic("")).code).toBe("invalid_mnemonic_word_count");
    // 15-word phrases are valid BIP-39 but not accepted here (the issue asks for 12 or 24)
    expect(serviceError(() => normalizeMnemonic(generateMnemonic(wordlist, 160))).code).toBe("invalid_mnemonic_word_count");
  });
  it("unknown words are reported by position, never by value", () => {
    const words = SECRET.split(" ");
    words[3] = "zzzyzx";
    words[7] = "qwertyuiop";
    const e = serviceError(() => normalizeMnemonic(words.join(" ")));
    expect([e.code, e.details]).toEqual(["unknown_mnemonic_word", { positions: [4, 8] }]);
    expectNoLeak(e.message + JSON.stringify(e.details), words.join(" "));
    expect(e.message).not.toContain("zzzyzx");
  });
  it("bad checksum", () => {
    const e = serviceError(() => normalizeMnemonic("abandon ".repeat(12).trim()));
    expect(e.code).toBe("invalid_mnemonic_checksum");
    expectNoLeak(e.message, "abandon ".repeat(12).trim());
  });
  it("the native PBKDF2 seed equals @scure/bip39's", () => {
    for (const p of [PHRASE12, PHRASE24.trim(), SECRET, generateMnemonic(wordlist, 256)]) {
      expect(Buffer.from(mnemonicToSeed(p)).equals(Buffer.from(mnemonicToSeedSync(p)))).toBe(true);
    }
  });
});

describe("deriveViewingKeys", () => {
  it("returns keys consistent with a direct derivation from the BIP-39 seed", () => {
    for (const network of ["mainnet", "testnet", "regtest"] as const) {
      const r = deriveViewingKeys({ mnemonic: SECRET, account: 2, network });
      const direct = deriveAccountViewingKeys(mnemonicToSeedSync(SECRET), network, 2);
      expect(r.ufvk).toBe(encodeUfvk(network, direct));
      expect(r).toEqual({ ...describeAccountKeys(direct), warning: DERIVE_WARNING });
      expect(deriveViewkeyOutput.parse(r)).toEqual(r);
      const ufvk = decodeUfvk(r.ufvk, network);
      expect(ufvk.transparent && ufvk.sapling && ufvk.orchard).toBeTruthy();
      expect(decodeUivk(r.uivk, network).orchard!.ivk).toBe(ufvk.orchard!.external.ivk);
      // The default address, its Sapling receiver and its P2PKH receiver all belong to the UFVK.
      for (const a of [r.defaultAddress, r.defaultSaplingAddress, r.defaultTransparentAddress]) {
        expect(validateZcashWatchKey(a, r.ufvk)).toEqual({ chain: "zcash", address: a, network });
      }
      expect(r.transparentAccountXpub.startsWith(network === "mainnet" ? "xpub" : "tpub")).toBe(true);
      expect(r.saplingExtendedFvk.startsWith({ mainnet: "zxviews1", testnet: "zxviewtestsapling1", regtest: "zxviewregtestsapling1" }[network])).toBe(true);
    }
  });
  it("picks the smallest valid Sapling diversifier index as the default", () => {
    // For this phrase, account 1 on mainnet has no valid Sapling diversifier at j = 0, 1 and 2.
    const r = deriveViewingKeys({ mnemonic: PHRASE12, account: 1 });
    expect(r.diversifierIndex).toBe(3);
    const dk = decodeUfvk(r.ufvk).sapling!.dk;
    for (const j of [0n, 1n, 2n]) expect(saplingDiversifyHash(ff1Diversifier(dk, j))).toBeNull();
    expect(saplingDiversifyHash(ff1Diversifier(dk, 3n))).not.toBeNull();
    const r0 = deriveViewingKeys({ mnemonic: PHRASE12, account: 0 });
    expect(r0.diversifierIndex).toBe(0);
  });
  it("never echoes the mnemonic", () => {
    const r = deriveViewingKeys({ mnemonic: SECRET });
    expectNoLeak(JSON.stringify(r), SECRET);
  });
  it("the warm-up derivation runs", () => {
    expect(() => warmUpZcashKeys()).not.toThrow();
  });
  it("rejects out-of-range accounts", () => {
    expect(() => deriveViewingKeys({ mnemonic: SECRET, account: -1 })).toThrow(RangeError);
    expect(() => deriveViewingKeys({ mnemonic: SECRET, account: 2 ** 31 })).toThrow(RangeError);
  });
});

describe("derive-viewkey route", () => {
  const ctx = { requestId: "t", ip: "127.0.0.1", log: pino({ level: "silent" }), baseUrl: "http://x", surface: "http" } as unknown as RequestContext;

  it("declares the contract: POST, free, 6/min, MCP tool", () => {
    expect(deriveViewkeyRoute.method).toBe("POST");
    expect(deriveViewkeyRoute.path).toBe("/v1/private/derive-viewkey");
    expect(deriveViewkeyRoute.operationId).toBe("deriveViewkey");
    expect(deriveViewkeyRoute.mcpTool).toBe("service_private_watch_derive_viewkey");
    expect(deriveViewkeyRoute.price).toBeUndefined();
    expect(deriveViewkeyRoute.rateLimit).toEqual({ points: 6, windowSeconds: 60 });
  });
  it("input bounds", () => {
    const ok = (v: unknown) => deriveViewkeyInput.safeParse(v).success;
    expect(deriveViewkeyInput.parse({ chain: "zcash", seed: "x" })).toEqual({ chain: "zcash", seed: "x", account: 0, network: "mainnet" });
    expect(ok({ chain: "zcash", phrase: "x", account: 2 ** 31 - 1, network: "regtest" })).toBe(true);
    expect(ok({ chain: "zcash", seed: "x", account: 2 ** 31 })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x", account: -1 })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x", account: 1.5 })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x", account: "1" })).toBe(false);
    expect(ok({ chain: "monero", seed: "x" })).toBe(false);
    expect(ok({ seed: "x" })).toBe(false);
    expect(ok({ chain: "zcash" })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x", phrase: "y" })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x", network: "stagenet" })).toBe(false);
    expect(ok({ chain: "zcash", seed: "x".repeat(1001) })).toBe(false);
  });
  it("the handler accepts `seed` or `phrase` and answers the documented fields", async () => {
    const a = await deriveViewkeyRoute.handler(deriveViewkeyInput.parse({ chain: "zcash", seed: SECRET }), ctx);
    const b = await deriveViewkeyRoute.handler(deriveViewkeyInput.parse({ chain: "zcash", phrase: SECRET }), ctx);
    expect(a).toEqual(b);
    expectNoLeak(JSON.stringify(a), SECRET);
  });
  it("bad phrases are 400s naming the problem", async () => {
    const call = (seed: string) => deriveViewkeyRoute.handler(deriveViewkeyInput.parse({ chain: "zcash", seed }), ctx);
    await expect(call("abandon abandon")).rejects.toMatchObject({ status: 400, code: "invalid_mnemonic_word_count" });
    await expect(call(SECRET.replace("lottery", "lotteryy"))).rejects.toMatchObject({ status: 400, code: "unknown_mnemonic_word" });
    await expect(call(BAD_CHECKSUM)).rejects.toMatchObject({ status: 400, code: "invalid_mnemonic_checksum" });
  });

  it("over HTTP: the seventh call in a minute from one IP is a 429, and errors never echo the phrase", async () => {
    const routes = [deriveViewkeyRoute];
    const app = buildRouter({
      routes,
      // A free route never reaches the paywall or the database.
      paywall: undefined as unknown as Paywall,
      db: undefined as unknown as Database,
      log: pino({ level: "silent" }),
      site: { baseUrl: "http://127.0.0.1" },
      trustProxyHops: 0,
      rateLimits: { store: { kind: "memory" }, generalPerMinute: 1000 },
    });
    const post = (body: unknown) => app.request("/v1/private/derive-viewkey", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    let r = await post({ chain: "zcash", seed: SECRET, account: 1, network: "testnet" });
    expect(r.status).toBe(200);
    const ok = (await r.json()) as Record<string, unknown>;
    expect(ok.network).toBe("testnet");
    expect(String(ok.ufvk).startsWith("uviewtest1")).toBe(true);
    r = await post({ chain: "zcash", seed: BAD_CHECKSUM });
    expect(r.status).toBe(400);
    const bad = await r.text();
    expect(JSON.parse(bad).error.code).toBe("invalid_mnemonic_checksum");
    expectNoLeak(bad, BAD_CHECKSUM);
    r = await post({ chain: "zcash", seed: SECRET, account: 2 ** 31 });
    expect(r.status).toBe(400);
    expectNoLeak(await r.text(), SECRET);
    // Two calls so far passed input validation and used a point each (the invalid input used none).
    for (let i = 0; i < 4; i++) expect((await post({ chain: "zcash", phrase: PHRASE12 })).status).toBe(200);
    r = await post({ chain: "zcash", phrase: PHRASE12 });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  });
});

describe("vigil zcash derive-ufvk (CLI)", () => {
  async function run(args: string[], stdin: string) {
    const out = new PassThrough();
    const err = new PassThrough();
    const chunks = { out: "", err: "" };
    out.on("data", (d) => (chunks.out += String(d)));
    err.on("data", (d) => (chunks.err += String(d)));
    const code = await runZcashCli(args, { stdin: Readable.from([Buffer.from(stdin)]), stdout: out, stderr: err });
    return { code, ...chunks };
  }
  it("reads the phrase from stdin and prints the keys as JSON", async () => {
    const r = await run(["derive-ufvk", "--account", "2", "--network", "testnet"], `${SECRET}\n`);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json).toEqual(deriveViewingKeys({ mnemonic: SECRET, account: 2, network: "testnet" }));
    expectNoLeak(r.out + r.err, SECRET);
    const eq = await run(["derive-ufvk", "--account=2", "--network=testnet"], SECRET);
    expect(JSON.parse(eq.out).ufvk).toBe(json.ufvk);
  });
  it("defaults to account 0 on mainnet", async () => {
    const r = await run(["derive-ufvk"], PHRASE12);
    expect(JSON.parse(r.out)).toMatchObject({ account: 0, network: "mainnet" });
  });
  it("bad phrases exit 1 with the error code and without the phrase", async () => {
    const r = await run(["derive-ufvk"], BAD_CHECKSUM);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.err).error.code).toBe("invalid_mnemonic_checksum");
    expectNoLeak(r.out + r.err, BAD_CHECKSUM);
    const big = await run(["derive-ufvk"], "abandon ".repeat(1000));
    expect(big.code).toBe(1);
    expect(JSON.parse(big.err).error.code).toBe("input_too_large");
  });
  it("usage errors exit 2", async () => {
    for (const args of [["derive-ufvk", "--account", "x"], ["derive-ufvk", "--account", String(2 ** 31)], ["derive-ufvk", "--network", "stagenet"], ["derive-ufvk", "--bogus"], ["nope"], []]) {
      const r = await run(args, PHRASE12);
      expect(r.code).toBe(2);
      expect(r.out + r.err).toMatch(/usage: vigil zcash derive-ufvk/);
    }
    expect((await run(["--help"], "")).code).toBe(0);
  });
});

it("ServiceError is what the route throws for bad input (so the router maps it to 400)", () => {
  expect(serviceError(() => deriveViewingKeys({ mnemonic: "x" }))).toBeInstanceOf(ServiceError);
});
