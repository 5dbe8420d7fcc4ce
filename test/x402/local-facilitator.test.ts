import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Address, type Hex, createPublicClient, createWalletClient, http as http_, parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { FacilitatorResponseError } from "@x402/core/types";
import { startDevnetEvm, usdcAbi, type DevnetEvm } from "../../devnet/evm.js";
import { createLocalFacilitator, FEE_TTL_MS, LocalFacilitatorRpcError, type LocalFacilitator } from "../../src/x402/local-facilitator.js";
import { createPayer } from "../../src/x402/payer.js";
import { sepoliaUsdcRequirements, signAuthorization } from "../helpers/x402-sign.js";
import { startRpcProxy } from "../helpers/rpc-proxy.js";

const USDC_SEPOLIA: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const USDC_BASE: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";


const requirements = (over: Partial<PaymentRequirements> = {}): PaymentRequirements =>
  sepoliaUsdcRequirements("0x70997970C51812dc3A010C7d01b50e0d17dc79C8", over);

const paymentRequired = (req: PaymentRequirements): PaymentRequired => ({
  x402Version: 2,
  error: "Payment required",
  resource: { url: "http://127.0.0.1/v1/test", description: "test", mimeType: "application/json" },
  accepts: [req],
});

const nowS = () => Math.floor(Date.now() / 1000);
const execFileAsync = promisify(execFile);

describe("local facilitator against the devnet chain", () => {
  let dev: DevnetEvm;
  let facilitator: LocalFacilitator;
  const methods = new Set<string>();

  beforeAll(async () => {
    dev = await startDevnetEvm({ onRequest: (m) => methods.add(m) });
    facilitator = createLocalFacilitator({ rpcUrl: dev.url, privateKey: dev.accounts[9]!.privateKey, network: "eip155:84532" });
  });
  afterAll(async () => {
    await dev.close();
  });

  const payerKey = () => dev.accounts[0]!.privateKey;
  const payerAddress = () => dev.accounts[0]!.address;
  const payTo = () => dev.accounts[1]!.address;

  it("advertises exact and batch-settlement on Base Sepolia with its gas-paying signer, and no receiverAuthorizer", async () => {
    const supported = await facilitator.getSupported();
    // The service signs its own claims and refunds: this facilitator only pays gas, so it offers no authorizer.
    expect(supported.kinds).toEqual([
      { x402Version: 2, scheme: "exact", network: "eip155:84532" },
      { x402Version: 2, scheme: "batch-settlement", network: "eip155:84532" },
    ]);
    expect(supported.signers["eip155:*"]).toEqual([dev.accounts[9]!.address]);
    expect(facilitator.address).toBe(dev.accounts[9]!.address);
  });

  it("verifies and settles a payment signed by the official client; the ledger moves exactly the amount", async () => {
    const req = requirements({ payTo: payTo() });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(req));
    expect(payload.accepted).toEqual(req);

    const before = { payer: dev.usdcBalanceOf(payerAddress()), payTo: dev.usdcBalanceOf(payTo()) };
    expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true, payer: payerAddress() });
    // Verify alone moves nothing.
    expect(dev.usdcBalanceOf(payerAddress())).toBe(before.payer);

    const settled = await facilitator.settle(payload, req);
    expect(settled).toMatchObject({ success: true, network: "eip155:84532", payer: payerAddress() });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(dev.usdcBalanceOf(payerAddress())).toBe(before.payer - 100_000n);
    expect(dev.usdcBalanceOf(payTo())).toBe(before.payTo + 100_000n);

    const client = createPublicClient({ chain: baseSepolia, transport: http_(dev.url) });
    const receipt = await client.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(facilitator.address.toLowerCase());
    const transfers = parseEventLogs({ abi: usdcAbi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.address.toLowerCase()).toBe(USDC_SEPOLIA.toLowerCase());
    expect(transfers[0]!.args).toEqual({ from: payerAddress(), to: payTo(), value: 100_000n });

    // Replay of the same payload: refused by verify and by settle, and nothing moves.
    const again = await facilitator.verify(payload, req);
    expect(again).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    const resettle = await facilitator.settle(payload, req);
    expect(resettle).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used", transaction: "" });
    expect(dev.usdcBalanceOf(payerAddress())).toBe(before.payer - 100_000n);
  });

  it("refuses a wrong amount", async () => {
    const req = requirements({ payTo: payTo() });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(req));
    const dearer = requirements({ payTo: payTo(), amount: "200000" });
    expect(await facilitator.verify(payload, dearer)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch",
    });
    expect(await facilitator.settle(payload, dearer)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_payload_authorization_value_mismatch",
    });
    // An overpayment is refused as well: the exact scheme means exact.
    const over = await signAuthorization(payerKey(), req, { value: 100_001n });
    expect(await facilitator.verify(over, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch" });
  });

  it("refuses a wrong recipient", async () => {
    const req = requirements({ payTo: payTo() });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(req));
    const elsewhere = requirements({ payTo: dev.accounts[2]!.address });
    expect(await facilitator.verify(payload, elsewhere)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_recipient_mismatch" });
    expect(await facilitator.settle(payload, elsewhere)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_recipient_mismatch" });
  });

  it("refuses a wrong network", async () => {
    const req = requirements({ payTo: payTo() });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(req));
    const mainnetReq = requirements({ payTo: payTo(), network: "eip155:8453", asset: USDC_BASE, extra: { name: "USD Coin", version: "2" } });
    expect(await facilitator.verify(payload, mainnetReq)).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
    expect(await facilitator.settle(payload, mainnetReq)).toMatchObject({ success: false, errorReason: "invalid_network", transaction: "" });
    // The payload says it was made for another network than the requirements.
    const mismatched: PaymentPayload = { ...payload, accepted: { ...payload.accepted, network: "eip155:8453" } };
    expect(await facilitator.verify(mismatched, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_network_mismatch" });
  });

  it("refuses expired and not-yet-valid authorisations", async () => {
    const req = requirements({ payTo: payTo() });
    const expired = await signAuthorization(payerKey(), req, { validBefore: BigInt(nowS() - 10) });
    expect(await facilitator.verify(expired, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_before" });
    expect(await facilitator.settle(expired, req)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_payload_authorization_valid_before" });
    // Expiring within the 6 s block-time margin counts as expired too.
    const nearlyExpired = await signAuthorization(payerKey(), req, { validBefore: BigInt(nowS() + 3) });
    expect(await facilitator.verify(nearlyExpired, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_before" });

    const early = await signAuthorization(payerKey(), req, { validAfter: BigInt(nowS() + 600) });
    expect(await facilitator.verify(early, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_after" });
    expect(await facilitator.settle(early, req)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_payload_authorization_valid_after" });
  });

  it("refuses a bad signature", async () => {
    const req = requirements({ payTo: payTo() });
    // Someone else signs an authorisation drawing on the payer's balance.
    const forged = await signAuthorization(dev.accounts[4]!.privateKey, req, { from: payerAddress() });
    expect(await facilitator.verify(forged, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    expect(await facilitator.settle(forged, req)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_signature" });
    // A genuine signature over different fields.
    const genuine = await signAuthorization(payerKey(), req);
    const auth = (genuine.payload as { authorization: Record<string, string> }).authorization;
    const tampered: PaymentPayload = { ...genuine, payload: { ...genuine.payload, authorization: { ...auth, validBefore: String(nowS() + 3600) } } };
    expect(await facilitator.verify(tampered, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    const garbage: PaymentPayload = { ...genuine, payload: { ...genuine.payload, signature: "0xdeadbeef" } };
    expect(await facilitator.verify(garbage, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
  });

  it("refuses a payer without the balance (a fresh key)", async () => {
    const req = requirements({ payTo: payTo() });
    const freshKey = generatePrivateKey();
    const { payload } = await createPayer(freshKey).signFor(paymentRequired(req));
    expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_insufficient_balance" });
    expect(await facilitator.settle(payload, req)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_insufficient_balance" });
    // Funded later, the same signed payload goes through: the refusal was about the balance only.
    dev.mintUsdc(privateKeyToAccount(freshKey).address, 100_000n);
    expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true });
    expect(await facilitator.settle(payload, req)).toMatchObject({ success: true });
    expect(dev.usdcBalanceOf(privateKeyToAccount(freshKey).address)).toBe(0n);
  });

  it("never lets a mainnet-domain signature through on the devnet", async () => {
    // Signed for Base mainnet USDC: recovers to someone else under the devnet domain.
    const req = requirements({ payTo: payTo() });
    const mainnetSigned = await signAuthorization(payerKey(), req, { name: "USD Coin", chainId: 8453, verifyingContract: USDC_BASE });
    expect(await facilitator.verify(mainnetSigned, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    expect(await facilitator.settle(mainnetSigned, req)).toMatchObject({ success: false });

    // Requirements that claim the mainnet name: the signature matches them, but the devnet's token
    // rejects it on-chain, and the facilitator names the cause.
    const wrongName = requirements({ payTo: payTo(), extra: { name: "USD Coin", version: "2" } });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(wrongName));
    const before = dev.usdcBalanceOf(payerAddress());
    expect(await facilitator.verify(payload, wrongName)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_token_name_mismatch" });
    const settled = await facilitator.settle(payload, wrongName);
    expect(settled.success).toBe(false);
    expect(settled.errorReason).toBe("invalid_exact_evm_signature");
    expect(dev.usdcBalanceOf(payerAddress())).toBe(before);
  });

  it("refuses malformed payloads and other versions with a reason instead of throwing", async () => {
    const req = requirements({ payTo: payTo() });
    const { payload } = await createPayer(payerKey()).signFor(paymentRequired(req));
    const noAuth = { ...payload, payload: { signature: "0x00" } } as PaymentPayload;
    expect(await facilitator.verify(noAuth, req)).toMatchObject({ isValid: false, invalidReason: "invalid_payload" });
    expect(await facilitator.settle(noAuth, req)).toMatchObject({ success: false, errorReason: "invalid_payload" });
    const badValue = {
      ...payload,
      payload: { ...payload.payload, authorization: { ...(payload.payload as { authorization: object }).authorization, value: "1e5" } },
    } as PaymentPayload;
    expect(await facilitator.verify(badValue, req)).toMatchObject({ isValid: false, invalidReason: "invalid_payload" });
    expect(await facilitator.verify({ ...payload, x402Version: 1 }, req)).toMatchObject({ isValid: false, invalidReason: "invalid_x402_version" });
    expect(await facilitator.verify(payload, { ...req, scheme: "upto" })).toMatchObject({ isValid: false, invalidReason: "unsupported_scheme" });
    expect(await facilitator.verify(payload, { ...req, extra: {} })).toMatchObject({ isValid: false, invalidReason: "invalid_payment_requirements" });
  });

  it("settles concurrent payments from one facilitator key without nonce races, and a concurrent replay only once", async () => {
    const req = requirements({ payTo: payTo() });
    const payers = [2, 3, 4, 5, 6].map((i) => dev.accounts[i]!);
    const payloads = await Promise.all(payers.map(async (p) => (await createPayer(p.privateKey).signFor(paymentRequired(req))).payload));
    const before = dev.usdcBalanceOf(payTo());
    const results = await Promise.all(payloads.map((p) => facilitator.settle(p, req)));
    expect(results.map((r) => r.success)).toEqual([true, true, true, true, true]);
    expect(new Set(results.map((r) => r.transaction)).size).toBe(5);
    expect(dev.usdcBalanceOf(payTo())).toBe(before + 500_000n);

    const { payload } = await createPayer(dev.accounts[7]!.privateKey).signFor(paymentRequired(req));
    const twice = await Promise.all([facilitator.settle(payload, req), facilitator.settle(payload, req)]);
    expect(twice.filter((r) => r.success)).toHaveLength(1);
    expect(dev.usdcBalanceOf(payTo())).toBe(before + 600_000n);
  });

  it("used exactly the JSON-RPC methods the devnet documents", () => {
    for (const m of [
      "eth_chainId",
      "eth_getCode",
      "eth_call",
      "eth_getTransactionCount",
      "eth_getBlockByNumber",
      "eth_maxPriorityFeePerGas",
      "eth_estimateGas",
      "eth_sendRawTransaction",
      "eth_getTransactionReceipt",
    ]) {
      expect(methods).toContain(m);
    }
    // Everything asked was answered by a real handler: the broadcast names its chain id, so viem
    // never asks the node to fill the transaction (eth_fillTransaction, a round trip in the queue).
    expect([...methods].sort()).toEqual(
      [
        "eth_call",
        "eth_chainId",
        "eth_estimateGas",
        "eth_getBlockByNumber",
        "eth_getCode",
        "eth_getTransactionCount",
        "eth_getTransactionReceipt",
        "eth_maxPriorityFeePerGas",
        "eth_sendRawTransaction",
      ].sort(),
    );
  });
});

describe("local facilitator when the RPC is unreachable or wrong", () => {
  it("settle against a stopped RPC throws LocalFacilitatorRpcError (determinate: nothing was broadcast)", async () => {
    const dev = await startDevnetEvm({ accounts: 3 });
    const facilitator = createLocalFacilitator({
      rpcUrl: dev.url,
      privateKey: dev.accounts[2]!.privateKey,
      network: "eip155:84532",
      rpcRetryCount: 0,
      rpcTimeoutMs: 2_000,
    });
    const req = requirements({ payTo: dev.accounts[1]!.address });
    const { payload } = await createPayer(dev.accounts[0]!.privateKey).signFor(paymentRequired(req));
    expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true });
    await dev.close();

    const settleError = await facilitator.settle(payload, req).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(settleError).toBeInstanceOf(LocalFacilitatorRpcError);
    expect(settleError).toBeInstanceOf(FacilitatorResponseError);
    expect((settleError as LocalFacilitatorRpcError).operation).toBe("settle");
    expect((settleError as LocalFacilitatorRpcError).indeterminate).toBe(false);
    expect((settleError as Error).message).toMatch(/RPC failed/);

    // verify does not disguise the outage as an invalid signature either.
    await expect(facilitator.verify(payload, req)).rejects.toBeInstanceOf(LocalFacilitatorRpcError);
  });

  it("a facilitator that never reached its RPC says so", async () => {
    const dev = await startDevnetEvm({ accounts: 1 });
    const url = dev.url;
    await dev.close();
    const facilitator = createLocalFacilitator({ rpcUrl: url, privateKey: generatePrivateKey(), network: "eip155:84532", rpcRetryCount: 0 });
    const req = requirements();
    const payload = await signAuthorization(generatePrivateKey(), req);
    await expect(facilitator.verify(payload, req)).rejects.toThrow(/cannot reach the RPC/);
    await expect(facilitator.settle(payload, req)).rejects.toBeInstanceOf(LocalFacilitatorRpcError);
  });

  it("a mainnet facilitator pointed at the devnet refuses to work", async () => {
    const dev = await startDevnetEvm({ accounts: 2 });
    try {
      const facilitator = createLocalFacilitator({ rpcUrl: dev.url, privateKey: dev.accounts[1]!.privateKey, network: "eip155:8453" });
      const req = requirements({ network: "eip155:8453", asset: USDC_BASE, extra: { name: "USD Coin", version: "2" }, payTo: dev.accounts[1]!.address });
      const payload = await signAuthorization(dev.accounts[0]!.privateKey, req, { chainId: 8453 });
      await expect(facilitator.verify(payload, req)).rejects.toThrow(/serves chain 84532.*eip155:8453/);
      await expect(facilitator.settle(payload, req)).rejects.toThrow(/serves chain 84532/);
      expect(dev.usdcBalanceOf(dev.accounts[0]!.address)).toBe(1_000_000_000n);
    } finally {
      await dev.close();
    }
  });
});

/** A proxy that loses the answers to chosen methods (the request reaches the node either way). */
const startLossyProxy = (target: string, lose: Set<string>) => startRpcProxy(target, async (m) => (lose.has(m) ? "lose" : "send"));

describe("local facilitator when answers are lost after the broadcast", () => {
  it.each([
    ["settled without a verify before it", false],
    ["verified first (the settle skips the second signature check)", true],
  ])("a lost eth_sendRawTransaction answer throws with indeterminate=true, and the transfer did land: %s", async (_, verifyFirst) => {
    const dev = await startDevnetEvm({ accounts: 3 });
    const proxy = await startLossyProxy(dev.url, new Set(["eth_sendRawTransaction"]));
    try {
      const facilitator = createLocalFacilitator({
        rpcUrl: proxy.url,
        privateKey: dev.accounts[2]!.privateKey,
        network: "eip155:84532",
        rpcRetryCount: 0,
      });
      const req = requirements({ payTo: dev.accounts[1]!.address });
      const { payload } = await createPayer(dev.accounts[0]!.privateKey).signFor(paymentRequired(req));
      if (verifyFirst) expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true });
      const err = await facilitator.settle(payload, req).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LocalFacilitatorRpcError);
      expect((err as LocalFacilitatorRpcError).indeterminate).toBe(true);
      // Which is why the caller must reconcile: the money moved.
      expect(dev.usdcBalanceOf(dev.accounts[1]!.address)).toBe(1_000_100_000n);
      const client = createPublicClient({ chain: baseSepolia, transport: http_(dev.url) });
      const auth = (payload.payload as { authorization: { from: Address; nonce: Hex } }).authorization;
      expect(
        await client.readContract({ address: USDC_SEPOLIA, abi: usdcAbi, functionName: "authorizationState", args: [auth.from, auth.nonce] }),
      ).toBe(true);
    } finally {
      await proxy.close();
      await dev.close();
    }
  });

  it.each([
    ["settled without a verify before it", false],
    ["verified first (the settle skips the second signature check)", true],
  ])("a lost receipt gives settlement_pending with the hash, and a retry of the same payload reconciles: %s", async (_, verifyFirst) => {
    const dev = await startDevnetEvm({ accounts: 3 });
    const lose = new Set(["eth_getTransactionReceipt", "eth_getTransactionByHash", "eth_blockNumber"]);
    const proxy = await startLossyProxy(dev.url, lose);
    try {
      const facilitator = createLocalFacilitator({
        rpcUrl: proxy.url,
        privateKey: dev.accounts[2]!.privateKey,
        network: "eip155:84532",
        rpcRetryCount: 0,
        confirmationTimeoutMs: 1_500,
      });
      const req = requirements({ payTo: dev.accounts[1]!.address });
      const { payload } = await createPayer(dev.accounts[0]!.privateKey).signFor(paymentRequired(req));
      if (verifyFirst) expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true });
      const first = await facilitator.settle(payload, req);
      expect(first).toMatchObject({ success: false, errorReason: "settlement_pending" });
      expect(first.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(dev.usdcBalanceOf(dev.accounts[1]!.address)).toBe(1_000_100_000n);

      lose.clear();
      const retry = await facilitator.settle(payload, req);
      expect(retry).toMatchObject({ success: true, transaction: first.transaction });
      // Reconciled, not re-broadcast: exactly one transfer.
      expect(dev.usdcBalanceOf(dev.accounts[1]!.address)).toBe(1_000_100_000n);
    } finally {
      await proxy.close();
      await dev.close();
    }
  });
});

/**
 * A proxy that holds the answers to `method` until `n` of its requests wait
 * at once (or `maxWaitMs` passed), and records the most that ever waited together.
 */
async function startGatedProxy(target: string, method: string, n: number, maxWaitMs: number) {
  let waiting: (() => void)[] = [];
  let most = 0;
  const releaseAll = () => {
    const w = waiting;
    waiting = [];
    for (const r of w) r();
  };
  const proxy = await startRpcProxy(target, async (m) => {
    if (m !== method) return "send";
    await new Promise<void>((release) => {
      waiting.push(release);
      most = Math.max(most, waiting.length);
      if (waiting.length >= n) releaseAll();
      else setTimeout(releaseAll, maxWaitMs);
    });
    return "send";
  });
  return { ...proxy, most: () => most };
}

describe("local facilitator: concurrent settlements", () => {
  it("estimate their gas side by side; only the broadcasts take turns", async () => {
    const dev = await startDevnetEvm({ accounts: 6 });
    // Each gas estimate is answered only once two are asked at the same time (or after 3 s).
    const proxy = await startGatedProxy(dev.url, "eth_estimateGas", 2, 3_000);
    try {
      const facilitator = createLocalFacilitator({ rpcUrl: proxy.url, privateKey: dev.accounts[5]!.privateKey, network: "eip155:84532" });
      const req = requirements({ payTo: dev.accounts[4]!.address });
      const payloads = await Promise.all([0, 1].map(async (i) => (await createPayer(dev.accounts[i]!.privateKey).signFor(paymentRequired(req))).payload));
      for (const p of payloads) expect(await facilitator.verify(p, req)).toMatchObject({ isValid: true });
      const settled = await Promise.all(payloads.map((p) => facilitator.settle(p, req)));
      expect(settled).toMatchObject([{ success: true }, { success: true }]);
      // Inside the broadcast queue the second estimate would wait for the first settlement's send.
      expect(proxy.most()).toBe(2);
      expect(dev.usdcBalanceOf(dev.accounts[4]!.address)).toBe(1_000_200_000n);
    } finally {
      await proxy.close();
      await dev.close();
    }
  });
});

describe("local facilitator with several gas keys", () => {
  it("broadcasts side by side, one settlement per key at a time, each key's nonces in order; lists every key", async () => {
    const dev = await startDevnetEvm({ accounts: 9 });
    // Each broadcast is answered only once three are asked at the same time (or after 3 s): one key
    // broadcasts one at a time, so only three keys can have three in flight.
    const proxy = await startGatedProxy(dev.url, "eth_sendRawTransaction", 3, 3_000);
    try {
      const keys = [6, 7, 8].map((i) => dev.accounts[i]!);
      const facilitator = createLocalFacilitator({ rpcUrl: proxy.url, privateKey: keys.map((k) => k.privateKey), network: "eip155:84532" });
      expect(facilitator.addresses).toEqual(keys.map((k) => k.address));
      expect((await facilitator.getSupported()).signers["eip155:*"]).toEqual(keys.map((k) => k.address));
      const req = requirements({ payTo: dev.accounts[5]!.address });
      const payloads = await Promise.all([0, 1, 2, 3, 4, 0].map(async (i) => (await createPayer(dev.accounts[i]!.privateKey).signFor(paymentRequired(req))).payload));
      const settled = await Promise.all(payloads.map((p) => facilitator.settle(p, req)));
      expect(settled.map((r) => r.success)).toEqual([true, true, true, true, true, true]);
      expect(proxy.most()).toBe(3);
      expect(dev.usdcBalanceOf(dev.accounts[5]!.address)).toBe(1_000_600_000n);
      // Two settlements per key, with nonces 0 and 1: none lost, none reused.
      const chain = createPublicClient({ chain: baseSepolia, transport: http_(dev.url) });
      const senders = await Promise.all(settled.map((r) => chain.getTransaction({ hash: r.transaction as Hex })));
      for (const k of keys) {
        expect(senders.filter((t) => t.from === k.address.toLowerCase() || t.from === k.address).map((t) => t.nonce).sort()).toEqual([0, 1]);
      }
    } finally {
      await proxy.close();
      await dev.close();
    }
  });

  it("refuses no key and a key given twice", () => {
    const key = generatePrivateKey();
    const at = { rpcUrl: "http://127.0.0.1:9", network: "eip155:84532" } as const;
    expect(() => createLocalFacilitator({ ...at, privateKey: [] })).toThrow(/at least one gas key/);
    expect(() => createLocalFacilitator({ ...at, privateKey: [key, key] })).toThrow(/given twice/);
  });
});

describe("local facilitator round trips to the RPC", () => {
  type Counted = { dev: DevnetEvm; calls: string[]; pay: (payer: number) => ReturnType<LocalFacilitator["settle"]>; count: (m: string) => number };
  /** Runs `body` with a devnet chain that lists every JSON-RPC method asked of it, in order, and a facilitator on it (key: the last account). */
  async function withCounted(body: (c: Counted) => Promise<void>): Promise<void> {
    const calls: string[] = [];
    const dev = await startDevnetEvm({ accounts: 6, onRequest: (m) => calls.push(m) });
    const facilitator = createLocalFacilitator({ rpcUrl: dev.url, privateKey: dev.accounts[5]!.privateKey, network: "eip155:84532" });
    const req = requirements({ payTo: dev.accounts[4]!.address });
    const pay = async (payer: number) => {
      const { payload } = await createPayer(dev.accounts[payer]!.privateKey).signFor(paymentRequired(req));
      expect(await facilitator.verify(payload, req)).toMatchObject({ isValid: true });
      return facilitator.settle(payload, req);
    };
    const count = (m: string) => calls.filter((c) => c === m).length;
    try {
      await body({ dev, calls, pay, count });
    } finally {
      await dev.close();
    }
  }

  it("asks for the payer's code once per verify and not again to settle what it verified, and counts the key's nonce itself", async () => {
    await withCounted(async ({ dev, calls, pay, count }) => {
      expect(await pay(0)).toMatchObject({ success: true });
      // The first payment read the chain id and the key's pending nonce once.
      expect(count("eth_chainId")).toBe(1);
      expect(count("eth_getTransactionCount")).toBe(1);
      for (const payer of [1, 2]) {
        calls.length = 0;
        expect(await pay(payer)).toMatchObject({ success: true });
        // Settling a payment it has just verified, the facilitator does not check the signer again.
        expect(count("eth_getCode")).toBe(1);
        expect(count("eth_getTransactionCount")).toBe(0);
        expect(count("eth_call")).toBe(1);
        expect(count("eth_estimateGas")).toBe(1);
        expect(count("eth_sendRawTransaction")).toBe(1);
        // The fee estimate is kept for FEE_TTL_MS: read again at most once here, on a slow machine.
        expect(count("eth_maxPriorityFeePerGas")).toBeLessThanOrEqual(1);
        expect(count("eth_getBlockByNumber")).toBeLessThanOrEqual(1);
      }
      expect(dev.usdcBalanceOf(dev.accounts[4]!.address)).toBe(1_000_300_000n);
    });
  });

  it("reads the fees again once they are FEE_TTL_MS old", async () => {
    await withCounted(async ({ calls, pay, count }) => {
      expect(await pay(0)).toMatchObject({ success: true });
      await new Promise((r) => setTimeout(r, FEE_TTL_MS + 200));
      calls.length = 0;
      expect(await pay(1)).toMatchObject({ success: true });
      expect(count("eth_maxPriorityFeePerGas")).toBe(1);
    });
  });

  it("a key also used elsewhere: the node's 'nonce too low' makes it read the nonce again, and the payment still settles", async () => {
    await withCounted(async ({ dev, calls, pay, count }) => {
      expect(await pay(0)).toMatchObject({ success: true });
      // Somebody else sends from the facilitator's key: the nonce counted here is now one short.
      const wallet = createWalletClient({ account: privateKeyToAccount(dev.accounts[5]!.privateKey), chain: baseSepolia, transport: http_(dev.url) });
      await wallet.sendTransaction({ to: dev.accounts[3]!.address, value: 1n });
      calls.length = 0;
      const settled = await pay(1);
      expect(settled).toMatchObject({ success: true });
      expect(count("eth_getTransactionCount")).toBe(1);
      // The refused broadcast and the one that landed.
      expect(count("eth_sendRawTransaction")).toBe(2);
      expect(dev.usdcBalanceOf(dev.accounts[4]!.address)).toBe(1_000_200_000n);
      // And the count goes on from there.
      calls.length = 0;
      expect(await pay(2)).toMatchObject({ success: true });
      expect(count("eth_getTransactionCount")).toBe(0);
    });
  });
});

describe("local facilitator and the rest of the process", () => {
  it("verifying and settling leave no promise hooks behind (an AsyncLocalStorage once run would slow every promise of the process)", async () => {
    // In a process of its own: this worker runs other test files too, and one of them may have turned the hooks on.
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "helpers", "promise-hooks-child.ts");
    const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", child], { timeout: 60_000 });
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ before: 0, after: 0, verified: true, settled: true });
  });
});
