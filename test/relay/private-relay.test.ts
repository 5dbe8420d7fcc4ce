/**
 * The private relay end to end on the devnet: two simulated private builders
 * (one taking bundles, one raw transactions), the devnet L1 for chain id,
 * nonces and known hashes, and x402 payments on the devnet EVM. A transaction
 * of each type is inspected and relayed; refusals (garbage, unsigned, wrong
 * chain, nonce used, hash known) cost nothing; a refusing builder is reported
 * per builder; when every builder refuses after settlement, the answer
 * says so per builder. The payment settles before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, serializeTransaction, type Hex } from "viem";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { decodeRawTransaction } from "../../src/relay/decode.js";
import { usdcAbi } from "../../devnet/evm.js";
import { createPayer } from "../../src/x402/payer.js";

let s: WatchStack;
const CHAIN = 1337;
const TO = "0x3535353535353535353535353535353535353535";
const SINK = "0x5151515151515151515151515151515151515151";
const EIP155_RAW =
  "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

const fees = { maxFeePerGas: 50n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n };

/** One signed transaction of each type from `acct`, nonces from `nonce`. */
async function eachType(acct: PrivateKeyAccount, nonce: number): Promise<Record<string, Hex>> {
  const auth = await acct.signAuthorization({ chainId: CHAIN, nonce: nonce + 5, contractAddress: TO });
  return {
    legacy: await acct.signTransaction({ type: "legacy", chainId: CHAIN, nonce, gasPrice: 30n * 10n ** 9n, gas: 21_000n, to: TO, value: 1n }),
    eip2930: await acct.signTransaction({ type: "eip2930", chainId: CHAIN, nonce: nonce + 1, gasPrice: 30n * 10n ** 9n, gas: 30_000n, to: TO, accessList: [{ address: TO, storageKeys: [] }] }),
    eip1559: await acct.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: nonce + 2, ...fees, gas: 21_000n, to: TO, value: 10n ** 15n }),
    eip4844: await acct.signTransaction({
      type: "eip4844",
      chainId: CHAIN,
      nonce: nonce + 3,
      ...fees,
      maxFeePerBlobGas: 10n ** 9n,
      gas: 50_000n,
      to: TO,
      blobVersionedHashes: [`0x01${"ab".repeat(31)}`],
    }),
    eip7702: await acct.signTransaction({ type: "eip7702", chainId: CHAIN, nonce: nonce + 4, ...fees, gas: 90_000n, to: acct.address, authorizationList: [auth] }),
  };
}

const inspect = (raw: string) => s.call("GET", `/v1/private-relay/inspect?raw_tx=${raw}`);
const relayPaid = async (raw: string) => {
  const r = await s.payer.payFetch(`${s.url}/v1/premium/private-relay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ raw_tx: raw }) });
  return { status: r.status, json: (await r.json()) as any };
};
const balance = () => s.devnet.evm.usdcBalanceOf(s.payer.address);

beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
}, 60_000);
afterAll(async () => s?.close());

describe("GET /v1/private-relay/info", () => {
  it("lists the configured builders, their methods, the price and the caveats", async () => {
    const r = await s.call("GET", "/v1/private-relay/info");
    expect(r.status).toBe(200);
    expect(r.json.chain_id).toBe(CHAIN);
    expect(r.json.price).toBe("$0.50");
    expect(r.json.builders).toEqual(
      s.devnet.privateBuilders.builders.map((b) => ({ name: b.name, url: b.url, method: b.method })),
    );
    expect(r.json.caveats.join(" ")).toMatch(/never sent to a public mempool/);
  });
});

describe("GET /v1/private-relay/inspect", () => {
  it("decodes the EIP-155 vector: sender, hash, nonce, chain 1 (refused here: the devnet is 1337)", async () => {
    const r = await inspect(EIP155_RAW);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({
      type: "legacy",
      from: "0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f",
      hash: "0x33469b22e9f636356c4160a87eb19df52b7412e8eac32a4a55ffe88ea8350788",
      to: TO,
      nonce: 9,
      chain_id: 1,
      value_wei: "1000000000000000000",
      gas_limit: "21000",
      relayable: false,
      refusal: { code: "transaction_wrong_chain" },
    });
    expect(r.json.fees.gas_price_wei).toBe("20000000000");
  });

  it("decodes a transaction of each type and previews the builders", async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    s.devnet.ethereum!.accounts.setEthBalance(acct.address, 10n ** 18n);
    const txs = await eachType(acct, 0);
    for (const [type, raw] of Object.entries(txs)) {
      const r = await inspect(raw);
      expect(r.status, `${type}: ${JSON.stringify(r.json)}`).toBe(200);
      expect(r.json, type).toMatchObject({ type, from: acct.address.toLowerCase(), hash: keccak256(raw), chain_id: CHAIN, relayable: true, refusal: null });
      expect(r.json.targets.map((t: any) => t.builder), type).toEqual(["sim-bundles", "sim-raw"]);
      expect(r.json.checks.every((c: any) => !c.blocking || c.ok), type).toBe(true);
    }
    const blob = await inspect(txs.eip4844!);
    expect(blob.json.fees).toMatchObject({ blob_count: 1, max_fee_per_blob_gas_wei: "1000000000" });
    const delegated = await inspect(txs.eip7702!);
    expect(delegated.json.call.authorizations).toEqual([{ delegate: TO, chain_id: CHAIN, nonce: 5, authority: acct.address.toLowerCase() }]);
    const listed = await inspect(txs.eip2930!);
    expect(listed.json.call.access_list_addresses).toEqual([TO]);
    // A nonce gap is a warning, not a refusal.
    expect(delegated.json.checks.find((c: any) => c.check === "nonce_gap")).toMatchObject({ ok: false, blocking: false });
  });

  it("refuses garbage, unsigned and non-hex input with 400 and the error envelope", async () => {
    for (const raw of ["0xdeadbeef", "0x02c0", `0x${"00".repeat(40)}`]) {
      const r = await inspect(raw);
      expect(r.status, raw).toBe(400);
      expect(r.json.error.code, raw).toBe("invalid_transaction");
      expect(JSON.stringify(r.json)).not.toMatch(/at .*\.[jt]s:\d+/);
    }
    const unsigned = serializeTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
    const u = await inspect(unsigned);
    expect(u.status).toBe(400);
    expect(u.json.error).toMatchObject({ code: "invalid_transaction", message: expect.stringContaining("not signed") });
    const notHex = await inspect("hello");
    expect(notHex.status).toBe(400);
    expect(notHex.json.error.code).toBe("invalid_input");
  });

  it("hashes a blob transaction in its network form (with sidecars) without the sidecars", async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    const tx = { type: "eip4844" as const, chainId: CHAIN, nonce: 0, ...fees, maxFeePerBlobGas: 10n ** 9n, gas: 50_000n, to: TO as Hex, blobVersionedHashes: [`0x01${"cd".repeat(31)}` as Hex] };
    const signed = await acct.signTransaction(tx);
    const sig = await decodeRawTransaction(signed);
    const wrapped = serializeTransaction(
      { ...tx, sidecars: [{ blob: `0x${"11".repeat(64)}`, commitment: `0x${"22".repeat(48)}`, proof: `0x${"33".repeat(48)}` }] } as never,
      { r: (await import("viem")).parseTransaction(signed).r!, s: (await import("viem")).parseTransaction(signed).s!, yParity: (await import("viem")).parseTransaction(signed).yParity! },
    );
    expect(wrapped.length).toBeGreaterThan(signed.length);
    const d = await decodeRawTransaction(wrapped);
    expect(d.blobSidecars).toBe(true);
    expect(d.hash).toBe(sig.hash);
    expect(d.hash).toBe(keccak256(signed));
    expect(d.from).toBe(acct.address.toLowerCase());
  });
});

describe("POST /v1/premium/private-relay", () => {
  it("relays a transaction of each type to the builders only, $0.50 each, reporting a refusing builder", async () => {
    const [bundles, raw] = [s.devnet.privateBuilders.byName("sim-bundles"), s.devnet.privateBuilders.byName("sim-raw")];
    raw.setRefusing(true);
    try {
      const acct = privateKeyToAccount(generatePrivateKey());
      const txs = await eachType(acct, 0);
      for (const [type, tx] of Object.entries(txs)) {
        const unpaid = await s.call("POST", "/v1/premium/private-relay", { body: { raw_tx: tx } });
        expect(unpaid.status, type).toBe(402);
        const before = balance();
        const sentBefore = bundles.received.length;
        const r = await relayPaid(tx);
        expect(r.status, `${type}: ${JSON.stringify(r.json)}`).toBe(200);
        expect(r.json).toMatchObject({ hash: keccak256(tx), from: acct.address.toLowerCase(), chain_id: CHAIN, accepted_by: ["sim-bundles"] });
        const [b, rw] = r.json.builders;
        expect(b).toMatchObject({ builder: "sim-bundles", method: "eth_sendBundle", accepted: true, error: null });
        expect(b.target_blocks).toHaveLength(3);
        expect(b.target_blocks[0].block).toBe((BigInt(r.json.head_block) + 1n).toString());
        expect(rw).toMatchObject({ builder: "sim-raw", method: "eth_sendRawTransaction", accepted: false });
        expect(rw.error).toContain("not accepting");
        expect(before - balance(), type).toBe(500_000n);
        // The bundle builder got the very bytes, once per target block.
        const got = bundles.received.slice(sentBefore);
        expect(got).toHaveLength(3);
        expect(got.every((g) => g.txs[0] === tx.toLowerCase() && g.txs.length === 1)).toBe(true);
      }
      // The node is only read: no public-mempool method was ever called on it.
      expect(s.devnet.ethereum!.calls.get("eth_sendRawTransaction") ?? 0).toBe(0);
    } finally {
      raw.setRefusing(false);
    }
  });

  it("both builders accept: both are named", async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    const tx = await acct.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
    const r = await relayPaid(tx);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.accepted_by).toEqual(["sim-bundles", "sim-raw"]);
    expect(s.devnet.privateBuilders.byName("sim-raw").received.at(-1)).toMatchObject({ method: "eth_sendRawTransaction", txs: [tx.toLowerCase()] });
  });

  it("refuses before payment, charging nothing: malformed, unsigned, wrong chain, nonce used, hash known", async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    const used = await acct.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: 3, ...fees, gas: 21_000n, to: TO });
    s.devnet.ethereum!.accounts.setNonce(acct.address, 4n);
    const other = privateKeyToAccount(generatePrivateKey());
    const known = await other.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
    s.devnet.ethereum!.accounts.markKnown(keccak256(known));
    const wrongChain = await other.signTransaction({ type: "eip1559", chainId: 1, nonce: 0, ...fees, gas: 21_000n, to: TO });
    const unsigned = serializeTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
    const cases: [string, string, number, string][] = [
      ["malformed", "0x02deadbeef", 400, "invalid_transaction"],
      ["unsigned", unsigned, 400, "invalid_transaction"],
      ["wrong chain", wrongChain, 400, "transaction_wrong_chain"],
      ["pre-EIP-155", EIP155_RAW, 400, "transaction_wrong_chain"],
      ["nonce used", used, 409, "transaction_already_mined"],
      ["hash known", known, 409, "transaction_already_mined"],
    ];
    const sent = s.devnet.privateBuilders.builders.map((b) => b.received.length);
    for (const [label, tx, status, code] of cases) {
      const before = balance();
      const unpaid = await s.call("POST", "/v1/premium/private-relay", { body: { raw_tx: tx } });
      expect(unpaid.status, `${label}: ${JSON.stringify(unpaid.json)}`).toBe(status);
      expect(unpaid.json.error.code, label).toBe(code);
      const paid = await relayPaid(tx);
      expect(paid.status, label).toBe(status);
      expect(balance(), label).toBe(before);
    }
    expect(s.devnet.privateBuilders.builders.map((b) => b.received.length)).toEqual(sent);
  });

  it("every builder refusing after settlement: 200, accepted false, each builder's reason, charged once", async () => {
    for (const b of s.devnet.privateBuilders.builders) b.setRefusing(true);
    try {
      const acct = privateKeyToAccount(generatePrivateKey());
      const tx = await acct.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
      const before = balance();
      const r = await relayPaid(tx);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toMatchObject({ accepted: false, accepted_by: [], hash: keccak256(tx) });
      expect(r.json.builders.map((b: any) => [b.builder, b.accepted, typeof b.error])).toEqual([
        ["sim-bundles", false, "string"],
        ["sim-raw", false, "string"],
      ]);
      expect(r.json.note).toMatch(/payment stands/);
      expect(before - balance()).toBe(500_000n);
    } finally {
      for (const b of s.devnet.privateBuilders.builders) b.setRefusing(false);
    }
  });
});

/**
 * A send cannot be recalled, so the relay settles before it sends. The bug
 * this guards against: the transaction used to go to the builders first and
 * the payment to settle after, so a payer whose funds left in between got
 * the irreversible work for free.
 */
describe("POST /v1/premium/private-relay settles before it sends", () => {
  const sent = () => s.devnet.privateBuilders.builders.map((b) => b.received.length);
  const terms = async (raw: string) => {
    const r = await fetch(`${s.url}/v1/premium/private-relay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ raw_tx: raw }) });
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!);
  };
  const post = async (raw: string, header: string) => {
    const r = await fetch(`${s.url}/v1/premium/private-relay`, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header }, body: JSON.stringify({ raw_tx: raw }) });
    return { status: r.status, json: (await r.json()) as any, headers: r.headers };
  };
  const newTx = async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    return acct.signTransaction({ type: "eip1559", chainId: CHAIN, nonce: 0, ...fees, gas: 21_000n, to: TO });
  };

  it("a settlement that fails sends nothing to any builder and charges nothing", async () => {
    const key = s.devnet.payers[3]!.privateKey;
    const payer = createPayer(key, { networks: ["eip155:84532"] });
    const owner = privateKeyToAccount(key);
    const tx = await newTx();
    const { header } = await payer.signFor(await terms(tx));
    const before = sent();
    const payee = s.devnet.evm.usdcBalanceOf(s.devnet.payTo);
    // Verified, then, just before the settlement transaction executes, the payer's USDC leaves (a real signed transfer).
    s.devnet.evm.beforeNextTransaction(async () => {
      const chain = s.devnet.evm.chain;
      const drain = await owner.signTransaction({
        type: "legacy",
        chainId: s.devnet.evm.chainId,
        nonce: chain.transactionCount(owner.address),
        gasPrice: 1000n * 10n ** 9n,
        gas: 100_000n,
        to: s.devnet.evm.usdcAddress,
        data: encodeFunctionData({ abi: usdcAbi, functionName: "transfer", args: [SINK, s.devnet.evm.usdcBalanceOf(owner.address)] }),
      });
      await chain.sendRawTransaction(drain);
    });
    const r = await post(tx, header);
    expect(r.status, JSON.stringify(r.json)).toBe(402);
    expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error).toMatch(/^settlement_failed/);
    expect(decodePaymentResponseHeader(r.headers.get("payment-response")!).success).toBe(false);
    expect(s.devnet.evm.usdcBalanceOf(owner.address)).toBe(0n);
    expect(s.devnet.evm.usdcBalanceOf(s.devnet.payTo)).toBe(payee);
    // Not one request reached a builder.
    expect(sent()).toEqual(before);
  });

  it("a settled payment sends once; a retry with the same payment, or the same payment identifier, sends nothing again", async () => {
    const tx = await newTx();
    const id = generatePaymentId();
    const signed = async () => {
      const { payload } = await s.payer.signFor(await terms(tx));
      return encodePaymentSignatureHeader({ ...payload, extensions: appendPaymentIdentifierToExtensions(structuredClone(payload.extensions ?? {}), id) } as PaymentPayload);
    };
    const header = await signed();
    const before = sent();
    const paid0 = balance();
    const first = await post(tx, header);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toMatchObject({ accepted: true, accepted_by: ["sim-bundles", "sim-raw"] });
    // Sent once: one bundle per target block to the bundle builder, one raw transaction to the other.
    expect(sent()).toEqual([before[0]! + 3, before[1]! + 1]);
    expect(paid0 - balance()).toBe(500_000n);

    const again = await post(tx, header);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const fresh = await post(tx, await signed());
    expect(fresh.status).toBe(200);
    expect(fresh.json).toEqual(first.json);
    expect(sent()).toEqual([before[0]! + 3, before[1]! + 1]);
    expect(paid0 - balance()).toBe(500_000n);
  });

  it("two concurrent requests with one payment send once", async () => {
    const tx = await newTx();
    const { header } = await s.payer.signFor(await terms(tx));
    const before = sent();
    const paid0 = balance();
    const [a, b] = await Promise.all([post(tx, header), post(tx, header)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0], JSON.stringify([a.json, b.json])).toBe(200);
    // The other waits for the first and gets its stored answer, or is told the payment is in progress.
    if (statuses[1] === 200) expect(a.json).toEqual(b.json);
    else expect(JSON.stringify(a.status === 200 ? b.json : a.json)).toMatch(/payment_in_progress|authorization_already_used/);
    expect(sent()).toEqual([before[0]! + 3, before[1]! + 1]);
    expect(paid0 - balance()).toBe(500_000n);
  });
});
