/**
 * The local facilitator's verify reaches "valid" for a good plain EIP-3009 payment without the
 * official scheme's signature recovery (src/x402/quick-verify.ts). Every answer must be the official
 * verify's: each case runs through a facilitator that takes the quick way and one that verifies
 * through the official scheme only (quickVerify: false), on the same devnet chain, and the answers are
 * compared whole. The official verify is watched (a spy that calls through): a good payment never
 * reaches it on the quick way, every refused one does.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type Address, type Hex, numberToHex, serializeErc6492Signature } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { PaymentPayload, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { startDevnetEvm, type DevnetEvm } from "../../devnet/evm.js";
import { createLocalFacilitator, type LocalFacilitator } from "../../src/x402/local-facilitator.js";
import { sepoliaUsdcRequirements, signAuthorization, type HandSignedOverrides } from "../helpers/x402-sign.js";
import { startRpcProxy } from "../helpers/rpc-proxy.js";

const N = secp256k1.Point.Fn.ORDER;
const nowS = () => Math.floor(Date.now() / 1000);

describe("verifying a payment the quick way: the official answers", () => {
  let dev: DevnetEvm;
  let quick: LocalFacilitator;
  let official: LocalFacilitator;
  let req: PaymentRequirements;
  const officialVerify = vi.spyOn(ExactEvmScheme.prototype, "verify");

  beforeAll(async () => {
    dev = await startDevnetEvm({ accounts: 12 });
    const at = { rpcUrl: dev.url, network: "eip155:84532" } as const;
    quick = createLocalFacilitator({ ...at, privateKey: dev.accounts[9]!.privateKey });
    official = createLocalFacilitator({ ...at, privateKey: dev.accounts[10]!.privateKey, quickVerify: false, settleVerifiedOnce: false });
    req = sepoliaUsdcRequirements(dev.accounts[8]!.address);
  });
  afterEach(() => officialVerify.mockClear());
  afterAll(async () => {
    officialVerify.mockRestore();
    await dev.close();
  });

  const funded = (funds = 1_000_000n) => {
    const key = generatePrivateKey();
    if (funds > 0n) dev.mintUsdc(privateKeyToAccount(key).address, funds);
    return key;
  };

  /** Both facilitators' answers to the same payment, which must be equal; the quick one's is returned. */
  async function same(payload: PaymentPayload, requirements = req): Promise<VerifyResponse> {
    const a = await quick.verify(payload, requirements);
    const b = await official.verify(payload, requirements);
    expect(a).toEqual(b);
    return a;
  }

  /** The quick facilitator's calls into the official verify while `run` runs. */
  async function officialCalls(run: () => Promise<unknown>): Promise<number> {
    officialVerify.mockClear();
    await run();
    // The official-only facilitator's own calls are counted too: one per `same`.
    return officialVerify.mock.calls.length;
  }

  /** `payload` with its signature replaced. */
  const withSignature = (payload: PaymentPayload, signature: Hex): PaymentPayload => ({ ...payload, payload: { ...payload.payload, signature } });
  const signatureOf = (payload: PaymentPayload) => (payload.payload as { signature: Hex }).signature;

  it("a good payment is valid without the official verify, from a new payer and from one that pays again and again", async () => {
    const key = funded();
    for (let i = 0; i < 18; i++) {
      // From the 16th payment on, the payer's key has its table (quick-verify.ts).
      const payload = await signAuthorization(key, req);
      expect(await officialCalls(async () => expect(await same(payload)).toEqual({ isValid: true, invalidReason: undefined, payer: privateKeyToAccount(key).address }))).toBe(1);
    }
  });

  it("a signature made with v as 0/1, not 27/28: the official answer", async () => {
    const payload = await signAuthorization(funded(), req);
    const sig = signatureOf(payload);
    const v01 = `${sig.slice(0, 130)}${numberToHex(Number.parseInt(sig.slice(130), 16) - 27, { size: 1 }).slice(2)}` as Hex;
    expect(await officialCalls(async () => expect((await same(withSignature(payload, v01))).isValid).toBe(false))).toBe(2);
  });

  const refusals: [string, (key: Hex) => Promise<PaymentPayload>, string?][] = [
    ["another key signed for the payer", async (key) => signAuthorization(generatePrivateKey(), req, { from: privateKeyToAccount(key).address }), "invalid_exact_evm_signature"],
    ["the parity flipped", async (key) => {
      const p = await signAuthorization(key, req);
      const sig = signatureOf(p);
      return withSignature(p, `${sig.slice(0, 130)}${sig.endsWith("1b") ? "1c" : "1b"}` as Hex);
    }, "invalid_exact_evm_signature"],
    ["s mirrored with the parity flipped (the same key recovers; the token refuses a high s)", async (key) => {
      const p = await signAuthorization(key, req);
      const sig = signatureOf(p);
      const s = N - BigInt(`0x${sig.slice(66, 130)}`);
      return withSignature(p, `${sig.slice(0, 66)}${numberToHex(s, { size: 32 }).slice(2)}${sig.endsWith("1b") ? "1c" : "1b"}` as Hex);
    }],
    ["another EIP-712 domain", (key) => signAuthorization(key, req, { name: "USD Coin" }), "invalid_exact_evm_signature"],
    ["another recipient", (key) => signAuthorization(key, req, { to: dev.accounts[7]!.address })],
    ["an authorisation about to expire", (key) => signAuthorization(key, req, { validBefore: BigInt(nowS() + 3) })],
    ["an authorisation not valid yet", (key) => signAuthorization(key, req, { validAfter: BigInt(nowS() + 600) })],
    ["another amount", (key) => signAuthorization(key, req, { value: 99_999n })],
    ["a payer without the funds", () => signAuthorization(funded(0n), req)],
    ["a payer with code (the token's own address)", async () => {
      const signer = generatePrivateKey();
      return signAuthorization(signer, req, { from: req.asset as Address });
    }],
    ["an ERC-6492 wrapped signature from a factory not allowed", async (key) => {
      const p = await signAuthorization(key, req);
      return withSignature(p, serializeErc6492Signature({ address: dev.accounts[6]!.address, data: "0xdeadbeef", signature: signatureOf(p) }));
    }, "eip6492_factory_not_allowed"],
    ["r zero", async (key) => {
      const p = await signAuthorization(key, req);
      const sig = signatureOf(p);
      return withSignature(p, `0x${"00".repeat(32)}${sig.slice(66)}` as Hex);
    }, "invalid_exact_evm_signature"],
  ];

  it.each(refusals)("%s: refused with the official reason, by the official verify", async (_, make, reason) => {
    const key = funded();
    // The payer is known to the quick facilitator first, so its key is tried, not just recovered.
    await same(await signAuthorization(key, req));
    const payload = await make(key);
    let answer: VerifyResponse | undefined;
    expect(await officialCalls(async () => void (answer = await same(payload)))).toBe(2);
    expect(answer!.isValid).toBe(false);
    if (reason) expect(answer!.invalidReason).toBe(reason);
  });

  it("a nonce already used: refused with the official reason", async () => {
    const key = funded();
    const payload = await signAuthorization(key, req);
    expect(await quick.settle(payload, req)).toMatchObject({ success: true });
    const answer = await same(payload);
    expect(answer).toMatchObject({ isValid: false });
  });

  it("requirements that differ from what the payload accepted: the official answer", async () => {
    const payload = await signAuthorization(funded(), req);
    for (const other of [
      { ...req, extra: { name: "USDC" } },
      { ...req, amount: "100001" },
      { ...req, payTo: dev.accounts[7]!.address },
    ] as PaymentRequirements[]) {
      expect((await same(payload, other)).isValid).toBe(false);
    }
    const accepted = { ...payload, accepted: { ...payload.accepted, scheme: "upto" } } as PaymentPayload;
    expect(await same(accepted)).toMatchObject({ isValid: false });
  });

  it("many payers at once, some good and some forged: each the official answer", async () => {
    const keys = Array.from({ length: 6 }, () => funded());
    const payloads = await Promise.all(
      keys.flatMap((key, i) => [signAuthorization(key, req), signAuthorization(keys[(i + 1) % keys.length]!, req, { from: privateKeyToAccount(key).address } as HandSignedOverrides)]),
    );
    const answers = await Promise.all(payloads.map((p) => quick.verify(p, req)));
    const expected = await Promise.all(payloads.map((p) => official.verify(p, req)));
    expect(answers).toEqual(expected);
    expect(answers.map((a) => a.isValid)).toEqual(keys.flatMap(() => [true, false]));
  });

  it.each([
    ["a good payment: valid", 1_000_000n, { isValid: true }],
    ["a payer without the funds: the official refusal, not an RPC error", 0n, { isValid: false, invalidReason: "invalid_exact_evm_insufficient_balance" }],
  ])("the quick road's simulation answer is lost: the official verify alone decides — %s", async (_, funds, expected) => {
    // Only the first eth_call's answer is lost: the quick road's simulation. The official verify's own calls all get through.
    let calls = 0;
    const proxy = await startRpcProxy(dev.url, async (m) => (m === "eth_call" && ++calls === 1 ? "lose" : "send"));
    try {
      const lossy = createLocalFacilitator({ rpcUrl: proxy.url, network: "eip155:84532", privateKey: dev.accounts[5]!.privateKey, rpcRetryCount: 0 });
      const payload = await signAuthorization(funded(funds), req);
      const answer = await officialCalls(async () => expect(await lossy.verify(payload, req)).toMatchObject(expected));
      expect(answer).toBe(1);
      expect(calls).toBeGreaterThan(1);
      expect(await lossy.verify(payload, req)).toEqual(await official.verify(payload, req));
    } finally {
      await proxy.close();
    }
  });
});
