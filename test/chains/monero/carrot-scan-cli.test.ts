/**
 * `vigil monero carrot-scan` through its CLI entry, on output sets built by
 * the sender side (carrot/sender.ts): owned outputs with their amount,
 * subaddress and payment ID; the sender's change; coinbase outputs; outputs
 * of others and tampered outputs with the step that refused them; malformed
 * input refused with one error line and exit code 2.
 */
import { bytesToNumberLE } from "@noble/curves/utils.js";
import { describe, expect, it } from "vitest";
import { runMoneroCli } from "../../../src/chains/monero/scan-tx-cli.js";
import { makeIntegratedAddress } from "../../../src/chains/monero/address.js";
import { bytesToHex } from "../../../src/chains/monero/encoding.js";
import { inputContextCoinbase } from "../../../src/chains/monero/carrot/enote.js";
import { buildCarrotCoinbaseEnotes, buildCarrotOutputSet, destinationFromAddress, type BuiltCarrotOutputSet } from "../../../src/chains/monero/carrot/sender.js";
import { seededRng } from "../../../devnet/monero-sender.js";
import { runOnStreams } from "../../helpers/cli-streams.js";
import { makeWallet } from "./helpers.js";
import { carrotTxBlob } from "../../../devnet/monero-carrot-tx.js";

const run = (stdinText: string, args = ["carrot-scan"]) => runOnStreams((io) => runMoneroCli(args, io), stdinText);

const merchant = makeWallet("carrot-cli merchant");
const payer = makeWallet("carrot-cli payer");
const stranger = makeWallet("carrot-cli stranger");
const PID = "0123456789abcdef";

/** One transaction: to the merchant's subaddress (1, 2), its integrated address, a stranger, and the payer's change. */
function outputSet(seed: string): BuiltCarrotOutputSet {
  const pay = (address: string, amount: bigint) => ({ destination: destinationFromAddress(address), amount });
  return buildCarrotOutputSet({
    firstKeyImage: seededRng(`${seed} key image`)(32),
    payments: [pay(merchant.sub(1, 2), 250_000_000n), pay(makeIntegratedAddress(merchant.address, PID), 1_500_000_000_000n), pay(stranger.address, 77n)],
    change: { viewSecret: bytesToNumberLE(payer.viewSecretBytes), spendPublicKey: payer.spendPublic, isSubaddress: false, amount: 4_000n },
    rng: seededRng(seed),
  });
}

function cliInput(set: BuiltCarrotOutputSet, watch = merchant): Record<string, unknown> {
  return {
    address: watch.address,
    viewKey: watch.viewSecretHex,
    input_context: bytesToHex(set.inputContext),
    pid_enc: bytesToHex(set.encryptedPaymentId),
    outputs: set.enotes.map((e) => ({
      Ko: bytesToHex(e.onetimeAddress),
      Ca: bytesToHex(e.amountCommitment),
      a_enc: bytesToHex(e.encryptedAmount),
      anchor_enc: bytesToHex(e.encryptedAnchor),
      view_tag: bytesToHex(e.viewTag),
      D_e: bytesToHex(e.ephemeralPubkey),
    })),
  };
}

async function scan(input: unknown) {
  const r = await run(JSON.stringify(input));
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as { outputs: Record<string, unknown>[]; watch: Record<string, unknown> };
}

describe("vigil monero carrot-scan", () => {
  const set = outputSet("carrot-cli tx");
  const indexOf = (amount: bigint) => set.enotes.findIndex((e) => e.amount === amount);

  it("reports the merchant's outputs with amount, subaddress and payment ID, and refuses the others with their step", async () => {
    const r = await scan(cliInput(set));
    expect(r.outputs.map((o) => o.index)).toEqual([0, 1, 2, 3]);
    expect(r.outputs[indexOf(250_000_000n)]).toEqual({
      index: indexOf(250_000_000n), owned: true, amount: "250000000", subaddress: { major: 1, minor: 2 }, payment_id: null, enote_type: "payment", self_send: false,
    });
    expect(r.outputs[indexOf(1_500_000_000_000n)]).toEqual({
      index: indexOf(1_500_000_000_000n), owned: true, amount: "1500000000000", subaddress: { major: 0, minor: 0 }, payment_id: PID, enote_type: "payment", self_send: false,
    });
    for (const amount of [77n, 4_000n]) {
      expect(r.outputs[indexOf(amount)]).toEqual({ index: indexOf(amount), owned: false, amount: null, subaddress: null, payment_id: null, refusal: "view-tag" });
    }
    expect(r.watch).toEqual({ kind: "standard", network: "mainnet", lookahead: { accounts: 2, minors: 200 } });
  });

  it("the payer's own watch sees its change as a self-send, the stranger only its payment", async () => {
    const mine = await scan(cliInput(set, payer));
    expect(mine.outputs.filter((o) => o.owned)).toEqual([
      { index: indexOf(4_000n), owned: true, amount: "4000", subaddress: { major: 0, minor: 0 }, payment_id: null, enote_type: "change", self_send: true },
    ]);
    const theirs = await scan(cliInput(set, stranger));
    expect(theirs.outputs.filter((o) => o.owned).map((o) => [o.index, o.amount])).toEqual([[indexOf(77n), "77"]]);
  });

  it("a tampered amount, a subaddress outside the look-ahead and a tx without pid_enc are told apart", async () => {
    const input = cliInput(set);
    const outs = input.outputs as Record<string, string>[];
    const i = indexOf(250_000_000n);
    outs[i] = { ...outs[i]!, a_enc: `${(parseInt(outs[i]!.a_enc!.slice(0, 2), 16) ^ 1).toString(16).padStart(2, "0")}${outs[i]!.a_enc!.slice(2)}` };
    const tampered = await scan(input);
    expect(tampered.outputs[i]).toMatchObject({ owned: false, refusal: "amount-commitment" });
    const narrow = await scan({ ...cliInput(set), lookahead: { accounts: 1, minors: 5 } });
    expect(narrow.outputs[i]).toMatchObject({ owned: false, refusal: "spend-key-not-ours" });
    // Without the transaction's pid_enc the integrated payment fails Janus (its d_e was made with the pid); the others do not need it.
    const noPid = await scan({ ...cliInput(set), pid_enc: null });
    expect(noPid.outputs[indexOf(1_500_000_000_000n)]).toMatchObject({ owned: false, refusal: "janus" });
    expect(noPid.outputs[i]).toMatchObject({ owned: true, amount: "250000000" });
  });

  it("scans coinbase outputs given with their clear amount", async () => {
    const blockIndex = 3_000_123n;
    const enotes = buildCarrotCoinbaseEnotes({
      blockIndex,
      payments: [{ destination: destinationFromAddress(merchant.address), amount: 600_000_000_000n }, { destination: destinationFromAddress(stranger.address), amount: 5n }],
      rng: seededRng("carrot-cli coinbase"),
    });
    const input = {
      address: merchant.address,
      viewKey: merchant.viewSecretHex,
      input_context: bytesToHex(inputContextCoinbase(blockIndex)),
      outputs: enotes.map((e) => ({
        Ko: bytesToHex(e.onetimeAddress),
        amount: e.amount.toString(),
        anchor_enc: bytesToHex(e.encryptedAnchor),
        view_tag: bytesToHex(e.viewTag),
        D_e: bytesToHex(e.ephemeralPubkey),
      })),
    };
    const r = await scan(input);
    const mine = enotes.findIndex((e) => e.amount === 600_000_000_000n);
    expect(r.outputs[mine]).toEqual({
      index: mine, owned: true, amount: "600000000000", subaddress: { major: 0, minor: 0 }, payment_id: null, enote_type: "payment", self_send: false, coinbase: true,
    });
    expect(r.outputs[1 - mine]).toMatchObject({ owned: false, refusal: "view-tag" });
    // The same enotes at another height are not ours: the block index is in every derivation.
    const wrongHeight = await scan({ ...input, input_context: bytesToHex(inputContextCoinbase(blockIndex + 1n)) });
    expect(wrongHeight.outputs.every((o) => o.owned === false)).toBe(true);
  });

  it("malformed input: one error line naming the problem, exit code 2, nothing on stdout", async () => {
    const good = cliInput(set);
    const outs = good.outputs as Record<string, string>[];
    const cases: [unknown, string, RegExp][] = [
      [{ ...good, address: undefined }, "invalid_input", /"address" and "viewKey" are required/],
      [{ ...good, input_context: "52" }, "invalid_input", /"input_context" must be 33 bytes as hex \(66 hex digits\)/],
      [{ ...good, pid_enc: "zz".repeat(8) }, "invalid_input", /"pid_enc" must be 8 bytes/],
      [{ ...good, outputs: [] }, "invalid_input", /"outputs" must be an array of 1\.\.1024 outputs/],
      [{ ...good, outputs: [outs[0], { ...outs[1], view_tag: "abcd" }] }, "invalid_input", /"outputs\[1\]\.view_tag" must be 3 bytes/],
      [{ ...good, outputs: [{ ...outs[0], D_e: undefined }] }, "invalid_input", /"outputs\[0\]\.D_e" is required/],
      [{ ...good, outputs: [42] }, "invalid_input", /"outputs\[0\]" must be an object/],
      [{ ...good, outputs: [{ ...outs[0], Ca: undefined, a_enc: undefined, amount: "5" }] }, "invalid_input", /needs a coinbase "input_context"/],
      [{ ...good, outputs: [{ ...outs[0], amount: "5" }] }, "invalid_input", /excludes "Ca" and "a_enc"/],
      [{ ...good, lookahead: { accounts: "2" } }, "invalid_input", /"lookahead" must be/],
      [{ ...good, lookahead: { accounts: 0, minors: 1 } }, "invalid_lookahead", /look-ahead/],
      [{ ...good, address: "4notanaddress" }, "invalid_address", /./],
      [{ ...good, viewKey: stranger.viewSecretHex }, "view_key_mismatch", /./],
    ];
    for (const [input, code, message] of cases) {
      const r = await run(JSON.stringify(input));
      expect(r.code, message.source).toBe(2);
      expect(r.out).toBe("");
      expect(r.err.trim().split("\n")).toHaveLength(1);
      const e = JSON.parse(r.err).error;
      expect(e.code, message.source).toBe(code);
      expect(e.message).toMatch(message);
    }
    const notJson = await run("{");
    expect([notJson.code, JSON.parse(notJson.err).error.code]).toEqual([2, "invalid_input"]);
  });

  it("scan-tx reads a whole Carrot transaction blob and finds the same outputs", async () => {
    const blob = carrotTxBlob({ set, keyImages: [set.inputContext.slice(1)], fee: 10n, prunable: Uint8Array.of(1, 2, 3) });
    const r = await run(JSON.stringify({ hex: bytesToHex(blob), address: merchant.address, viewKey: merchant.viewSecretHex }), ["scan-tx"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.outputs.map((o: { outputIndex: number; amount: string; subaddress: unknown; paymentId?: string }) => [o.outputIndex, o.amount, o.subaddress, o.paymentId ?? null])).toEqual(
      [
        [indexOf(250_000_000n), "250000000", { major: 1, minor: 2 }, null],
        [indexOf(1_500_000_000_000n), "1500000000000", { major: 0, minor: 0 }, PID],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    expect([out.diagnostics.rctType, out.diagnostics.carrotOutputs, out.diagnostics.carrotError]).toEqual([7, 4, undefined]);
  });

  it("the monero usage lists carrot-scan", async () => {
    const r = await run("", ["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/usage: vigil monero carrot-scan/);
  });
});
