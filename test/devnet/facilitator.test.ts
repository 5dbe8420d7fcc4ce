/**
 * The devnet's x402 facilitator over real loopback sockets, called by the
 * official HTTPFacilitatorClient of @x402/core as a service in `http` mode
 * calls it: /supported, a real EIP-3009 authorisation signed by the project's
 * payer with a funded devnet account verified and settled on the devnet
 * chain, the same authorisation refused when replayed, malformed requests
 * refused with 400 and a reason, and the failures tests can inject.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTPFacilitatorClient } from "@x402/core/http";
import { FacilitatorResponseError, type PaymentPayload, type PaymentRequired, type PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEVNET_NETWORK, DEVNET_USDC_ADDRESS, startDevnetEvm, type DevnetEvm } from "../../devnet/evm.js";
import { startDevnetFacilitator, type DevnetFacilitator } from "../../devnet/facilitator.js";
import { createPayer } from "../../src/x402/payer.js";

const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const PRICE = 25_000n;

const requirements = (): PaymentRequirements => ({
  scheme: "exact",
  network: DEVNET_NETWORK,
  amount: PRICE.toString(),
  asset: DEVNET_USDC_ADDRESS,
  payTo: PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: "USDC", version: "2" },
});

/** A payment signed by the project's payer (the official x402 client) for the requirements above. */
async function signedPayment(payerKey: `0x${string}`): Promise<PaymentPayload> {
  const required: PaymentRequired = { x402Version: 2, resource: { url: "http://127.0.0.1/v1/test", mimeType: "application/json" }, accepts: [requirements()] } as PaymentRequired;
  return (await createPayer(payerKey, { networks: [DEVNET_NETWORK] }).signFor(required)).payload;
}

describe("the devnet x402 facilitator", () => {
  let evm: DevnetEvm;
  let facilitator: DevnetFacilitator;
  let client: HTTPFacilitatorClient;

  beforeAll(async () => {
    evm = await startDevnetEvm();
    facilitator = await startDevnetFacilitator({ rpcUrl: evm.url, privateKey: generatePrivateKey() });
    client = new HTTPFacilitatorClient({ url: facilitator.url, timeoutMs: 10_000 });
  });
  afterAll(async () => {
    await facilitator?.close();
    await evm?.close();
  });

  it("lists x402 v2 exact on the devnet network, signed by its gas key", async () => {
    const supported = await client.getSupported();
    expect(supported.kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: "exact", network: DEVNET_NETWORK }));
    expect(Object.values(supported.signers).flat()).toContain(facilitator.address);
    expect(facilitator.calls.supported).toBe(1);
  });

  it("verifies and settles a real EIP-3009 authorisation on the chain, and refuses it replayed", async () => {
    const payer = evm.accounts[2]!;
    const payload = await signedPayment(payer.privateKey);
    const [payer0, payee0] = [evm.usdcBalanceOf(payer.address), evm.usdcBalanceOf(PAY_TO)];

    const verified = await client.verify(payload, requirements());
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await client.settle(payload, requirements());
    expect(settled).toMatchObject({ success: true, network: DEVNET_NETWORK, payer: payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const tx = evm.chain.getTransaction(settled.transaction)!;
    expect(tx).toMatchObject({ from: facilitator.address, to: DEVNET_USDC_ADDRESS, status: "success" });
    expect(evm.usdcBalanceOf(payer.address)).toBe(payer0 - PRICE);
    expect(evm.usdcBalanceOf(PAY_TO)).toBe(payee0 + PRICE);

    // The same authorisation again: its nonce is used on chain, so neither verify nor settle accepts it, and nothing moves.
    const again = await client.verify(payload, requirements());
    expect(again.isValid).toBe(false);
    expect(again.invalidReason).toMatch(/nonce/);
    const resettled = await client.settle(payload, requirements());
    expect(resettled).toMatchObject({ success: false, transaction: "" });
    expect(resettled.errorReason).toMatch(/nonce/);
    expect(evm.usdcBalanceOf(payer.address)).toBe(payer0 - PRICE);
    expect(evm.usdcBalanceOf(PAY_TO)).toBe(payee0 + PRICE);
  });

  it("refuses a payment it cannot accept with a 200 and the reason, as a facilitator does", async () => {
    const payload = await signedPayment(evm.accounts[3]!.privateKey);
    const tooMuch = { ...requirements(), amount: (PRICE + 1n).toString() };
    const verified = await client.verify(payload, tooMuch);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBeTruthy();
    const otherNetwork = await client.verify(payload, { ...requirements(), network: "eip155:8453" });
    expect(otherNetwork).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
  });

  it("answers requests that are not facilitator requests with 400 and the reason, and stays up", async () => {
    const payload = await signedPayment(evm.accounts[4]!.privateKey);
    const post = (path: string, body: string) => fetch(`${facilitator.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const good = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() };
    const cases: [string, string, RegExp][] = [
      ["invalid JSON", "{not json", /JSON/],
      ["not an object", "[1, 2]", /paymentPayload and paymentRequirements/],
      ["no requirements", JSON.stringify({ x402Version: 2, paymentPayload: payload }), /paymentPayload and paymentRequirements/],
      ["requirements a string", JSON.stringify({ ...good, paymentRequirements: "exact" }), /paymentPayload and paymentRequirements/],
      ["amount a number", JSON.stringify({ ...good, paymentRequirements: { ...requirements(), amount: 25000 } }), /^paymentRequirements\.amount: /],
      ["payload without accepted", JSON.stringify({ ...good, paymentPayload: { ...payload, accepted: undefined } }), /^paymentPayload\.accepted: /],
      ["unknown payload version", JSON.stringify({ ...good, x402Version: 7, paymentPayload: { ...payload, x402Version: 7 } }), /^paymentPayload\.x402Version: /],
      ["top-level version differs", JSON.stringify({ ...good, x402Version: 1 }), /x402Version must be the payment payload's \(2\)/],
    ];
    for (const path of ["/verify", "/settle"]) {
      for (const [name, body, reason] of cases) {
        const r = await post(path, body);
        expect(r.status, `${path} ${name}`).toBe(400);
        expect(((await r.json()) as { error: string }).error, `${path} ${name}`).toMatch(reason);
      }
    }
    // The client reports such an answer as a failed call, not as a verdict on the payment.
    await expect(client.verify({ ...payload, accepted: undefined } as unknown as PaymentPayload, requirements())).rejects.toThrow(/Facilitator verify failed \(400\)/);
    // Still serving: the well-formed request is verified.
    expect((await client.verify(payload, requirements())).isValid).toBe(true);
  });

  it("fails as told: 503, a 200 that is no answer, no answer at all; then serves again", async () => {
    const payload = await signedPayment(evm.accounts[5]!.privateKey);
    const calls = { ...facilitator.calls };
    try {
      facilitator.setFailure("http503");
      await expect(client.verify(payload, requirements())).rejects.toThrow(/\(503\)/);
      await expect(client.getSupported()).rejects.toThrow(/\(503\)/);
      facilitator.setFailure("garbage");
      await expect(client.settle(payload, requirements())).rejects.toBeInstanceOf(FacilitatorResponseError);
      facilitator.setFailure("hang");
      const impatient = new HTTPFacilitatorClient({ url: facilitator.url, timeoutMs: 300 });
      await expect(impatient.verify(payload, requirements())).rejects.toThrow(/timed out|timeout/i);
    } finally {
      facilitator.setFailure(null);
    }
    // Injected failures reach no endpoint; the payment was never settled.
    expect(facilitator.calls).toEqual(calls);
    expect((await client.settle(payload, requirements())).success).toBe(true);
  });

  it("answers 502 when the chain behind it cannot be reached", async () => {
    const cut = await startDevnetFacilitator({ rpcUrl: "http://127.0.0.1:9", privateKey: generatePrivateKey() });
    try {
      const payload = await signedPayment(evm.accounts[6]!.privateKey);
      const r = await fetch(`${cut.url}/settle`, { method: "POST", body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() }) });
      expect(r.status).toBe(502);
      expect(((await r.json()) as { error: string }).error).toMatch(/cannot reach the RPC/);
      await expect(new HTTPFacilitatorClient({ url: cut.url }).verify(payload, requirements())).rejects.toThrow(/\(502\)/);
    } finally {
      await cut.close();
    }
  });
});
