import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runZcashCli } from "../../../src/chains/zcash/cli.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/zcash/bytes.js";
import { encodeTextMemo, type ScanKeys, scanKeysFromUfvk, tryActionOutput, trySaplingOutput } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardAddressAt, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { saplingAddressAt, saplingDefaultAddress, saplingInternalDfvk } from "../../../src/chains/zcash/sapling-keys.js";
import { scanTransaction } from "../../../src/chains/zcash/scan-tx.js";
import { p2pkhHashAt } from "../../../src/chains/zcash/transparent.js";
import { parseTransaction } from "../../../src/chains/zcash/tx-parse.js";
import { authDigestHex, transactionId } from "../../../src/chains/zcash/txid.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUfvk, encodeUfvk } from "../../../src/chains/zcash/zip316.js";
import { buildTx, encryptAction, encryptSapling, p2pkhScript } from "./sender.js";
import { loadVectors, str, vectorsPresent } from "./vectors.js";
import { runOnStreams } from "../../helpers/cli-streams.js";

const seed = Uint8Array.from({ length: 32 }, (_, i) => i);
const acct = deriveAccountViewingKeys(seed, "mainnet", 0);
const ufvkString = encodeUfvk("mainnet", { transparent: acct.transparent, sapling: acct.sapling, orchard: acct.orchard });
const ufvk = decodeUfvk(ufvkString);
const other = decodeUfvk(encodeUfvk("mainnet", (() => {
  const a = deriveAccountViewingKeys(seed, "mainnet", 1);
  return { sapling: a.sapling, orchard: a.orchard };
})()));

const withoutNf = <T extends { nullifier?: unknown }>({ nullifier: _nf, ...rest }: T): Omit<T, "nullifier"> => rest;
const saplingDefault = saplingDefaultAddress(acct.sapling);
const orchardExt = orchardIvkParts(acct.orchard, "external")!;
const orchardInt = orchardIvkParts(acct.orchard, "internal")!;

const cli = (args: string[], input: string) => runOnStreams((io) => runZcashCli(args, io), input);

describe("round trip: notes encrypted to UFVK-derived addresses are found", () => {
  const saplingInternal = saplingInternalDfvk(acct.sapling);
  const saplingChange = saplingAddressAt(saplingInternal, saplingDefaultAddress(saplingInternal).index)!;
  const v5 = buildTx(5, {
    sapling: [encryptSapling(saplingDefault.raw, 150_000n, encodeTextMemo("invoice #42")), encryptSapling(saplingChange, 7n, encodeTextMemo(""))],
    orchard: [encryptAction(orchardAddressAt(orchardExt, 5n), 2_100_000_000_000_000n, encodeTextMemo("max"), 0x02)],
    vout: [
      { value: 1234n, script: p2pkhScript(p2pkhHashAt(acct.transparent, 0, 3)!) },
      { value: 99n, script: p2pkhScript(new Uint8Array(20)) },
    ],
  });
  const binary = new Uint8Array(512);
  binary[0] = 0xff;
  binary[1] = 0x01;
  const v6 = buildTx(
    6,
    {
      orchard: [encryptAction(orchardAddressAt(orchardExt, 0n), 5n, encodeTextMemo("old pool"), 0x02)],
      ironwood: [
        encryptAction(orchardAddressAt(orchardExt, 9n), 40_000n, binary, 0x03),
        encryptAction(orchardAddressAt(orchardInt, 0n), 321n, encodeTextMemo("change"), 0x03),
        encryptAction(orchardAddressAt(orchardIvkParts(other.orchard!.fvk, "external")!, 0n), 1n, encodeTextMemo("not ours"), 0x03),
      ],
    },
    0x37a5165b,
  );

  it("v5: Sapling external and internal, Orchard at index 5, transparent child 3", () => {
    const notes = scanTransaction(parseTransaction(v5), ufvk, { height: 3_000_000 });
    expect(notes.map((n) => n.nullifier?.length)).toEqual([undefined, undefined, undefined, 32]);
    expect(notes.map(withoutNf)).toEqual([
      { pool: "transparent", outputIndex: 0, scope: "external", value: 1234n, memo: null, diversifierIndex: 3n },
      { pool: "sapling", outputIndex: 0, scope: "external", value: 150_000n, memo: { text: "invoice #42" }, diversifierIndex: saplingDefault.index },
      { pool: "sapling", outputIndex: 1, scope: "internal", value: 7n, memo: null, diversifierIndex: saplingDefaultAddress(saplingInternal).index },
      { pool: "orchard", outputIndex: 0, scope: "external", value: 2_100_000_000_000_000n, memo: { text: "max" }, diversifierIndex: 5n },
    ]);
    expect(scanTransaction(parseTransaction(v5), other, { height: 3_000_000 })).toEqual([]);
  });

  it("Sapling 0x02 notes are refused before Canopy", () => {
    const notes = scanTransaction(parseTransaction(v5), ufvk, { height: 1_000_000 });
    expect(notes.filter((n) => n.pool === "sapling")).toEqual([]);
  });

  it("v6: Orchard (0x02) and Ironwood (0x03) with external and internal keys; binary memo as hex", () => {
    const tx = parseTransaction(v6);
    expect(tx.ironwood?.actions.length).toBe(3);
    const found = scanTransaction(tx, ufvk);
    // Each Orchard-protocol note has its own nullifier (checked against vectors in nullifier.test.ts).
    expect(new Set(found.map((n) => bytesToHex(n.nullifier!))).size).toBe(3);
    expect(found.map(withoutNf)).toEqual([
      { pool: "orchard", outputIndex: 0, scope: "external", value: 5n, memo: { text: "old pool" }, diversifierIndex: 0n },
      { pool: "ironwood", outputIndex: 0, scope: "external", value: 40_000n, memo: { hex: `01${"00".repeat(510)}` }, diversifierIndex: 9n },
      { pool: "ironwood", outputIndex: 1, scope: "internal", value: 321n, memo: { text: "change" }, diversifierIndex: 0n },
    ]);
  });

  it("an Ironwood (0x03) ciphertext placed in the Orchard pool is refused", () => {
    const tx = parseTransaction(v6);
    const keys: ScanKeys = scanKeysFromUfvk(ufvk);
    const a = tx.ironwood!.actions[0];
    const asOrchard = { nullifier: a.nullifier, cmx: a.cmx, ephemeralKey: a.ephemeralKey, ciphertext: a.encCiphertext };
    expect(tryActionOutput(keys, "orchard", asOrchard)).toBeNull();
    expect(tryActionOutput(keys, "ironwood", asOrchard)?.value).toBe(40_000n);
    expect(tryActionOutput(keys, "ironwood", { ...asOrchard, ciphertext: asOrchard.ciphertext.slice(0, 52) })?.value).toBe(40_000n);
  });

  it("a UFVK with only Sapling scans only Sapling", () => {
    const saplingOnly = decodeUfvk(encodeUfvk("mainnet", { sapling: acct.sapling }));
    const notes = scanTransaction(parseTransaction(v5), saplingOnly, { height: 3_000_000 });
    expect(notes.map((n) => n.pool)).toEqual(["sapling", "sapling"]);
    const s = parseTransaction(v5).sapling.outputs[0];
    expect(trySaplingOutput(scanKeysFromUfvk(saplingOnly), { cmu: s.cmu, ephemeralKey: s.ephemeralKey, ciphertext: s.encCiphertext.slice(0, 52) }, 3_000_000)?.value).toBe(150_000n);
  });

  it("vigil zcash scan-tx prints the notes", async () => {
    const { code, out } = await cli(["scan-tx"], JSON.stringify({ hex: bytesToHex(v5), ufvk: ufvkString, height: 3_000_000 }));
    expect(code).toBe(0);
    const r = JSON.parse(out) as { txid: string; notes: { nullifier?: string }[] };
    expect(r.txid).toBe(transactionId(parseTransaction(v5)));
    expect(r.notes[3].nullifier).toMatch(/^[0-9a-f]{64}$/);
    expect(r.notes.map(withoutNf)).toEqual([
      { pool: "transparent", outputIndex: 0, scope: "external", value: "1234", memo: null, diversifierIndex: "3" },
      { pool: "sapling", outputIndex: 0, scope: "external", value: "150000", memo: { text: "invoice #42" }, diversifierIndex: saplingDefault.index.toString() },
      { pool: "sapling", outputIndex: 1, scope: "internal", value: "7", memo: null, diversifierIndex: saplingDefaultAddress(saplingInternal).index.toString() },
      { pool: "orchard", outputIndex: 0, scope: "external", value: "2100000000000000", memo: { text: "max" }, diversifierIndex: "5" },
    ]);
  });
});

describe("vigil zcash scan-tx input handling", () => {
  it.skipIf(!vectorsPresent)("a ZIP 244 vector transaction: its txid, no notes for an unrelated key", async () => {
    const row = loadVectors("zip_0244.json")[0];
    const { code, out } = await cli(["scan-tx"], JSON.stringify({ hex: str(row, "tx"), ufvk: ufvkString }));
    expect(code).toBe(0);
    const r = JSON.parse(out) as { txid: string; notes: unknown[] };
    expect(r.txid).toBe(bytesToHex(hexToBytes(str(row, "txid")).reverse()));
    expect(r.notes).toEqual([]);
  });
  it("--help prints the usage", async () => {
    const { code, out } = await cli(["scan-tx", "--help"], "");
    expect(code).toBe(0);
    expect(out).toContain('"ufvk"');
  });
  it("bad JSON, missing fields, bad height, bad key and bad hex are clear errors", async () => {
    expect((await cli(["scan-tx"], "{")).code).toBe(2);
    const notObject = await cli(["scan-tx"], "[]");
    expect(notObject.code).toBe(2);
    expect(JSON.parse(notObject.err).error).toEqual({ code: "invalid_input", message: "could not read input JSON: input must be a JSON object" });
    expect(JSON.parse((await cli(["scan-tx"], JSON.stringify({ hex: "00" }))).err).error.message).toContain('"hex" and "ufvk"');
    expect((await cli(["scan-tx"], JSON.stringify({ hex: "00", ufvk: ufvkString, height: -1 }))).code).toBe(2);
    const badKey = await cli(["scan-tx"], JSON.stringify({ hex: "00", ufvk: "uview1xyz" }));
    expect(badKey.code).toBe(1);
    expect(JSON.parse(badKey.err).error.code).toBeTypeOf("string");
    const badTx = await cli(["scan-tx"], JSON.stringify({ hex: "050000800a27a726", ufvk: ufvkString }));
    expect(badTx.code).toBe(1);
    expect(JSON.parse(badTx.err).error.code).toBe("unparsable_transaction");
    expect((await cli(["scan-tx"], JSON.stringify({ hex: "abc", ufvk: ufvkString }))).code).toBe(1);
  });
});

describe("scanning never throws on mutated input", () => {
  const v5 = buildTx(5, { sapling: [encryptSapling(saplingDefault.raw, 1n, encodeTextMemo("x"))], orchard: [encryptAction(orchardAddressAt(orchardExt, 0n), 2n, encodeTextMemo("y"), 0x02)] });
  it("byte flips inside ciphertexts and keys give no note or the same note, never an exception", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: v5.length - 1 }), fc.integer({ min: 1, max: 255 }), (pos, x) => {
        const m = v5.slice();
        m[pos] ^= x;
        let tx;
        try {
          tx = parseTransaction(m);
        } catch {
          return; // parse failures are covered by the parser properties
        }
        const notes = scanTransaction(tx, ufvk);
        expect(notes.length).toBeLessThanOrEqual(2);
      }),
      { numRuns: 40 },
    );
  });
});

describe("v6 layout rules", () => {
  it("an action bundle whose proof is not 2720 + 2272·n bytes is refused", () => {
    const good = buildTx(6, { ironwood: [encryptAction(orchardAddressAt(orchardExt, 0n), 1n, encodeTextMemo(""), 0x03)] });
    expect(parseTransaction(good).ironwood?.proofs.length).toBe(2720 + 2272);
    // The same bundle serialized v5-style (proof of 100 bytes) under a v6 header.
    const v5Style = buildTx(5, { orchard: [encryptAction(orchardAddressAt(orchardExt, 0n), 1n, encodeTextMemo(""), 0x02)] });
    const asV6 = Uint8Array.of(0x06, 0, 0, 0x80, 0x98, 0xb6, 0x84, 0xd8, ...v5Style.subarray(8), 0);
    expect(() => parseTransaction(asV6)).toThrow(/proof length/);
  });
});

describe("v6 transaction ids (ZIP 229)", () => {
  const mk = (version: 5 | 6) =>
    parseTransaction(
      buildTx(version, {
        sapling: [encryptSapling(saplingDefault.raw, 1n, encodeTextMemo(""))],
        orchard: [encryptAction(orchardAddressAt(orchardExt, 0n), 1n, encodeTextMemo(""), 0x02)],
        ...(version === 6 ? { ironwood: [encryptAction(orchardAddressAt(orchardExt, 1n), 2n, encodeTextMemo(""), 0x03)] } : {}),
      }),
    );
  const withAnchor = (tx: ReturnType<typeof parseTransaction>, pool: "orchard" | "ironwood") => ({ ...tx, [pool]: { ...tx[pool]!, anchor: new Uint8Array(32).fill(7) } });

  it("anchors are authorizing data in v6 and effecting data in v5", () => {
    const v6 = mk(6);
    for (const pool of ["orchard", "ironwood"] as const) {
      const moved = withAnchor(v6, pool);
      expect(transactionId(moved)).toBe(transactionId(v6));
      expect(authDigestHex(moved)).not.toBe(authDigestHex(v6));
    }
    const v5 = mk(5);
    const moved5 = withAnchor(v5, "orchard");
    expect(transactionId(moved5)).not.toBe(transactionId(v5));
    expect(authDigestHex(moved5)).toBe(authDigestHex(v5));
  });

  it("the Ironwood bundle is committed to: its value balance, flags and ciphertexts change the txid", () => {
    const v6 = mk(6);
    const iw = v6.ironwood!;
    expect(transactionId({ ...v6, ironwood: { ...iw, valueBalance: 5n } })).not.toBe(transactionId(v6));
    expect(transactionId({ ...v6, ironwood: { ...iw, flags: 1 } })).not.toBe(transactionId(v6));
    const enc = iw.actions[0].encCiphertext.slice();
    enc[300] ^= 1;
    expect(transactionId({ ...v6, ironwood: { ...iw, actions: [{ ...iw.actions[0], encCiphertext: enc }] } })).not.toBe(transactionId(v6));
    // Orchard and Ironwood digests use different personalisations: swapping the bundles changes the id.
    expect(transactionId({ ...v6, orchard: iw, ironwood: v6.orchard })).not.toBe(transactionId(v6));
    // Without an Ironwood bundle the id is still defined and differs.
    const { ironwood: _drop, ...noIronwood } = v6;
    expect(transactionId(noIronwood)).toMatch(/^[0-9a-f]{64}$/);
    expect(transactionId(noIronwood)).not.toBe(transactionId(v6));
  });

  it("reserved flag bits are refused in v6", () => {
    const raw = buildTx(6, { ironwood: [encryptAction(orchardAddressAt(orchardExt, 0n), 1n, encodeTextMemo(""), 0x03)] });
    // The flags byte follows the single action: header (20) + 4 empty counts + Orchard count (1) + Ironwood count (1) + 820.
    const at = 20 + 4 + 1 + 1 + 820;
    expect(raw[at]).toBe(0x03);
    const bad = raw.slice();
    bad[at] = 0x0b;
    expect(() => parseTransaction(bad)).toThrow(/reserved bits/);
  });
});
