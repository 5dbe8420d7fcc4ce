import { describe, expect, it } from "vitest";
import { runMoneroCli } from "../../../src/chains/monero/scan-tx-cli.js";
import { encodeAddress } from "../../../src/chains/monero/address.js";
import { hexToBytes } from "../../../src/chains/monero/encoding.js";
import { buildBlock, buildCoinbase, buildTransfer, seededRng } from "../../../devnet/monero-sender.js";
import { makeWallet } from "./helpers.js";
import { readJsonVector, vectorsPresent, type TxCase } from "./vectors.js";
import { runOnStreams } from "../../helpers/cli-streams.js";

const run = (args: string[], stdinText: string) => runOnStreams((io) => runMoneroCli(args, io), stdinText);

describe.skipIf(!vectorsPresent)("vigil monero scan-tx on real blobs", () => {
  const cases = vectorsPresent ? readJsonVector<{ cases: TxCase[] }>("transactions.json").cases : [];
  it("prints each owned output of the real type-6 transaction and the real coinbase block", async () => {
    for (const c of cases) {
      const address = encodeAddress("mainnet", "standard", hexToBytes(c.spend_public), hexToBytes(c.view_public));
      const { code, out } = await run(["scan-tx"], JSON.stringify({ hex: c.hex, address, viewKey: c.view_secret, lookahead: { accounts: 2, minors: 3 } }));
      expect(code).toBe(0);
      const r = JSON.parse(out);
      expect(r.kind).toBe(c.kind);
      expect(r.outputs.map((o: { publicKey: string; amount: string }) => [o.publicKey, o.amount])).toEqual(c.expect.map((e) => [e.output_key, e.amount]));
      expect(r.outputs.map((o: { outputIndex: number; subaddress: unknown }) => [o.outputIndex, o.subaddress])).toEqual(
        c.computed_here.owned.map((o) => [o.index, { major: o.subaddress[0], minor: o.subaddress[1] }]),
      );
    }
  });
});

describe("vigil monero scan-tx on devnet-built blobs", () => {
  it("input that is not one JSON object is invalid_input, exit 2, one error line", async () => {
    for (const text of ["{", "[]", "null", "x".repeat(4 * 1024 * 1024 + 1)]) {
      const r = await run(["scan-tx"], text);
      expect(r.code, text.slice(0, 8)).toBe(2);
      expect(r.out).toBe("");
      expect(JSON.parse(r.err).error.code).toBe("invalid_input");
    }
    expect(JSON.parse((await run(["scan-tx"], "[]")).err).error.message).toBe("could not read input JSON: input must be a JSON object");
    expect(JSON.parse((await run(["scan-tx"], "x".repeat(4 * 1024 * 1024 + 1))).err).error.message).toMatch(/input larger than 4194304 bytes/);
  });
  const w = makeWallet("cli-wallet");
  const other = makeWallet("cli-other");

  it("finds a subaddress payment in a transfer and reports diagnostics", async () => {
    const tx = buildTransfer({ destinations: [{ address: w.sub(0, 3), amount: 123_456_789n }, { address: other.address, amount: 1n }], rng: seededRng("cli") });
    const { code, out } = await run(["scan-tx"], JSON.stringify({ hex: tx.hex, address: w.address, viewKey: w.viewSecretHex }));
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.txid).toBe(tx.txid);
    expect(r.outputs.length).toBe(1);
    expect(r.outputs[0]).toMatchObject({ outputIndex: 0, publicKey: tx.outputs[0]!.publicKey, amount: "123456789", subaddress: { major: 0, minor: 3 } });
    expect(r.diagnostics.additionalPublicKeys).toBe(2);
    expect(r.diagnostics.viewTags[0].viewTagMatches).toBe(true);
  });

  it("scans the coinbase of a block blob", async () => {
    const cb = buildCoinbase({ destinations: [{ address: w.address, amount: 600_000_000_000n }], height: 10, rng: seededRng("cli-cb") });
    const block = buildBlock({ minerTx: cb, txHashes: [], prevId: "00".repeat(32), timestamp: 1 });
    const { code, out } = await run(["scan-tx"], JSON.stringify({ hex: block.hex, address: w.address, viewKey: w.viewSecretHex }));
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect([r.kind, r.blockHash, r.txid, r.diagnostics.unlockTime]).toEqual(["block", block.hash, cb.txid, "70"]);
    expect(r.outputs.map((o: { amount: string }) => o.amount)).toEqual(["600000000000"]);
  });

  it("nothing for someone else's watch; clear errors for bad keys and bad input", async () => {
    const tx = buildTransfer({ destinations: [{ address: w.address, amount: 5n }], rng: seededRng("cli2") });
    const none = await run(["scan-tx"], JSON.stringify({ hex: tx.hex, address: other.address, viewKey: other.viewSecretHex }));
    expect(JSON.parse(none.out).outputs).toEqual([]);
    const mismatch = await run(["scan-tx"], JSON.stringify({ hex: tx.hex, address: w.address, viewKey: other.viewSecretHex }));
    expect(mismatch.code).toBe(1);
    expect(JSON.parse(mismatch.err).error.code).toBe("view_key_mismatch");
    const garbage = await run(["scan-tx"], JSON.stringify({ hex: "deadbeef", address: w.address, viewKey: w.viewSecretHex }));
    expect(garbage.code).toBe(1);
    expect(JSON.parse(garbage.err).error.code).toBe("unparsable_blob");
    expect((await run(["scan-tx"], "not json")).code).toBe(2);
    expect((await run(["scan-tx"], JSON.stringify({ hex: "zz", address: w.address, viewKey: w.viewSecretHex }))).code).toBe(2);
    expect((await run(["bogus"], "")).code).toBe(2);
  });
});
