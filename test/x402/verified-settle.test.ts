/**
 * A settle of a payment the local facilitator has just verified skips the official scheme's second
 * signature check (src/x402/verified-settle.ts). Every outcome must be the official settle's: each
 * case runs through a facilitator that takes the short way and one that settles through the official
 * scheme only (settleVerifiedOnce: false), on the same devnet chain, and the answers are compared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Address, type Hex, createPublicClient, http as http_, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { startDevnetEvm, usdcAbi, type DevnetEvm } from "../../devnet/evm.js";
import { createLocalFacilitator, type LocalFacilitator } from "../../src/x402/local-facilitator.js";
import { hasTransfer, transferErrorReason, SettleReasons } from "../../src/x402/verified-settle.js";
import { sepoliaUsdcRequirements, signAuthorization, type HandSignedOverrides } from "../helpers/x402-sign.js";

const USDC_SEPOLIA: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const nowS = () => Math.floor(Date.now() / 1000);

/** What a caller reads of a settle answer, but the hash (whether there is one) and the payer (each case has its own). */
const outcome = (r: SettleResponse) => ({
  success: r.success,
  errorReason: r.errorReason,
  network: r.network,
  hasTransaction: /^0x[0-9a-f]{64}$/.test(r.transaction),
});

describe("settling a payment the facilitator verified: the official outcomes, one signature check", () => {
  let dev: DevnetEvm;
  const calls: string[] = [];
  let short: LocalFacilitator;
  let official: LocalFacilitator;
  /** A third facilitator that moves payments behind the others' backs. */
  let other: LocalFacilitator;
  let req: PaymentRequirements;

  beforeAll(async () => {
    dev = await startDevnetEvm({ accounts: 12, onRequest: (m) => calls.push(m) });
    const at = { rpcUrl: dev.url, network: "eip155:84532" } as const;
    short = createLocalFacilitator({ ...at, privateKey: dev.accounts[9]!.privateKey });
    official = createLocalFacilitator({ ...at, privateKey: dev.accounts[10]!.privateKey, settleVerifiedOnce: false });
    other = createLocalFacilitator({ ...at, privateKey: dev.accounts[11]!.privateKey, settleVerifiedOnce: false });
    req = sepoliaUsdcRequirements(dev.accounts[8]!.address);
  });
  afterAll(async () => {
    await dev.close();
  });

  /** A funded payer of its own for each facilitator, so both run the same case side by side. */
  const freshPayer = (funds: bigint) => {
    const key = generatePrivateKey();
    if (funds > 0n) dev.mintUsdc(privateKeyToAccount(key).address, funds);
    return { key, address: privateKeyToAccount(key).address };
  };

  /** Runs `steps` once against each facilitator and expects the same outcome from both. */
  async function same(steps: (f: LocalFacilitator) => Promise<[SettleResponse, PaymentPayload]>): Promise<SettleResponse> {
    const [[a, pa], [b, pb]] = await Promise.all([steps(short), steps(official)]);
    expect(outcome(a)).toEqual(outcome(b));
    // Both name the authorisation's payer.
    for (const [r, p] of [[a, pa], [b, pb]] as const) expect(r.payer).toBe((p.payload as { authorization: { from: string } }).authorization.from);
    return a;
  }

  it("a verified payment settles once, moves exactly the amount, and the settle asks nothing of the payer's signature", async () => {
    const before = dev.usdcBalanceOf(req.payTo);
    const r = await same(async (f) => {
      const p = freshPayer(100_000n);
      const payload = await signAuthorization(p.key, req);
      expect(await f.verify(payload, req)).toMatchObject({ isValid: true });
      const settled = await f.settle(payload, req);
      expect(dev.usdcBalanceOf(p.address)).toBe(0n);
      return [settled, payload];
    });
    expect(r).toMatchObject({ success: true, network: "eip155:84532" });
    expect(dev.usdcBalanceOf(req.payTo)).toBe(before + 200_000n);

    // The short way: verify asks for the payer's code (the official signature check); settle does not.
    const p = freshPayer(100_000n);
    const payload = await signAuthorization(p.key, req);
    calls.length = 0;
    expect(await short.verify(payload, req)).toMatchObject({ isValid: true });
    expect(calls.filter((m) => m === "eth_getCode")).toHaveLength(1);
    calls.length = 0;
    const settled = await short.settle(payload, req);
    expect(settled).toMatchObject({ success: true, payer: p.address });
    expect(calls.filter((m) => m === "eth_getCode")).toHaveLength(0);
    const chain = createPublicClient({ chain: baseSepolia, transport: http_(dev.url) });
    const receipt = await chain.getTransactionReceipt({ hash: settled.transaction as Hex });
    const transfers = parseEventLogs({ abi: usdcAbi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers.map((t) => t.args)).toEqual([{ from: p.address, to: req.payTo, value: 100_000n }]);

    // A settle with nothing verified before it goes the official way (the payer's code is asked).
    const unverified = await signAuthorization(freshPayer(100_000n).key, req);
    calls.length = 0;
    expect(await short.settle(unverified, req)).toMatchObject({ success: true });
    expect(calls.filter((m) => m === "eth_getCode")).toHaveLength(1);
  });

  it("one verification serves one settle: the same payload again is refused as the official settle refuses it", async () => {
    const r = await same(async (f) => {
      const payload = await signAuthorization(freshPayer(200_000n).key, req);
      expect(await f.verify(payload, req)).toMatchObject({ isValid: true });
      expect(await f.settle(payload, req)).toMatchObject({ success: true });
      return [await f.settle(payload, req), payload];
    });
    expect(r).toMatchObject({ success: false, errorReason: SettleReasons.nonceAlreadyUsed, transaction: "" });
  });

  /**
   * A fresh payer with exactly the price signs a payment (with `over`), the facilitator verifies it,
   * `meanwhile` happens, then it settles; the payer's balance afterwards is `balanceAfter`.
   */
  const settleAfter = (meanwhile: (p: { key: Hex }, payload: PaymentPayload) => Promise<void>, balanceAfter: bigint, over: HandSignedOverrides = {}) =>
    same(async (f) => {
      const p = freshPayer(100_000n);
      const payload = await signAuthorization(p.key, req, over);
      expect(await f.verify(payload, req)).toMatchObject({ isValid: true });
      await meanwhile(p, payload);
      const settled = await f.settle(payload, req);
      expect(dev.usdcBalanceOf(p.address)).toBe(balanceAfter);
      return [settled, payload];
    });

  it("an authorisation that expires between verify and settle is refused before anything is sent", async () => {
    const r = await settleAfter(() => new Promise((done) => setTimeout(done, 3_100)), 100_000n, { validBefore: BigInt(nowS() + 8) });
    expect(r).toMatchObject({ success: false, errorReason: SettleReasons.validBeforeExpired, transaction: "" });
  });

  it("an authorisation used elsewhere between verify and settle: nonce already used, nothing moves twice", async () => {
    const r = await settleAfter(async (_, payload) => {
      expect(await other.settle(payload, req)).toMatchObject({ success: true });
    }, 0n);
    expect(r).toMatchObject({ success: false, errorReason: SettleReasons.nonceAlreadyUsed, transaction: "" });
  });

  it("a payer whose balance went elsewhere between verify and settle: insufficient balance", async () => {
    // The payer spends the same funds on another authorisation first.
    const r = await settleAfter(async (p) => {
      expect(await other.settle(await signAuthorization(p.key, req), req)).toMatchObject({ success: true });
    }, 0n);
    expect(r).toMatchObject({ success: false, errorReason: SettleReasons.insufficientBalance, transaction: "" });
  });

  it("a verification covers only the requirements it was made for", async () => {
    const elsewhere = { ...req, payTo: dev.accounts[7]!.address };
    const r = await same(async (f) => {
      const payload = await signAuthorization(freshPayer(100_000n).key, req);
      expect(await f.verify(payload, req)).toMatchObject({ isValid: true });
      return [await f.settle(payload, elsewhere), payload];
    });
    expect(r).toMatchObject({ success: false, errorReason: "invalid_exact_evm_recipient_mismatch" });
    // And only the payload it was made for: other authorisation fields under the same signature.
    const r2 = await same(async (f) => {
      const payload = await signAuthorization(freshPayer(100_000n).key, req);
      expect(await f.verify(payload, req)).toMatchObject({ isValid: true });
      const auth = (payload.payload as { authorization: Record<string, string> }).authorization;
      const tampered: PaymentPayload = { ...payload, payload: { ...payload.payload, authorization: { ...auth, validBefore: String(nowS() + 3600) } } };
      return [await f.settle(tampered, req), tampered];
    });
    expect(r2).toMatchObject({ success: false, errorReason: "invalid_exact_evm_signature" });
  });
});

describe("verified-settle's readings", () => {
  it("names a failed broadcast as @x402/evm does", () => {
    expect(transferErrorReason(new Error('execution reverted: "FiatTokenV2: authorization is used or canceled"'))).toBe(SettleReasons.nonceAlreadyUsed);
    expect(transferErrorReason(new Error("execution reverted: ERC20: transfer amount exceeds balance"))).toBe(SettleReasons.insufficientBalance);
    expect(transferErrorReason(new Error("FiatTokenV2: authorization is expired"))).toBe(SettleReasons.validBeforeExpired);
    expect(transferErrorReason(new Error("FiatTokenV2: authorization is not yet valid"))).toBe(SettleReasons.validAfterInFuture);
    expect(transferErrorReason(new Error("FiatTokenV2: invalid signature"))).toBe(SettleReasons.invalidSignature);
    expect(transferErrorReason("out of gas")).toBe(SettleReasons.transactionFailed);
  });

  it("finds a Transfer only of the exact amount, between the exact parties, by the token", () => {
    const token = USDC_SEPOLIA;
    const from = "0x1111111111111111111111111111111111111111";
    const to = "0x2222222222222222222222222222222222222222";
    const topic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
    const pad = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, "0")}` as Hex;
    const log = (address: Address, value: bigint) =>
      ({ address, topics: [topic, pad(from), pad(to)], data: pad(`0x${value.toString(16)}`), blockNumber: 1n, logIndex: 0, transactionIndex: 0, blockHash: pad("0x1"), transactionHash: pad("0x2"), removed: false }) as never;
    expect(hasTransfer([log(token, 5n)], token, { from, to, value: 5n })).toBe(true);
    expect(hasTransfer([log(token, 4n)], token, { from, to, value: 5n })).toBe(false);
    expect(hasTransfer([log("0x3333333333333333333333333333333333333333", 5n)], token, { from, to, value: 5n })).toBe(false);
    expect(hasTransfer([log(token, 5n)], token, { from: to, to: from, value: 5n })).toBe(false);
  });
});
