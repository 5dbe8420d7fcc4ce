import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Address, recoverTypedDataAddress } from "viem";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { startDevnetEvm, type DevnetEvm } from "../../devnet/evm.js";
import { createLocalFacilitator, type LocalFacilitator } from "../../src/x402/local-facilitator.js";
import { DEFAULT_MAX_PAYMENT_ATOMIC, createPayer } from "../../src/x402/payer.js";
import { authorizationTypes } from "@x402/evm";

const USDC_SEPOLIA: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

const req = (payTo: Address, amount: string, over: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: "exact",
  network: "eip155:84532",
  amount,
  asset: USDC_SEPOLIA,
  payTo,
  maxTimeoutSeconds: 300,
  extra: { name: "USDC", version: "2" },
  ...over,
});
const required = (accepts: PaymentRequirements[]): PaymentRequired => ({
  x402Version: 2,
  error: "Payment required",
  resource: { url: "http://127.0.0.1/paid", description: "paid", mimeType: "application/json" },
  accepts,
});

describe("payer", () => {
  let dev: DevnetEvm;
  let facilitator: LocalFacilitator;
  let server: http.Server;
  let url: string;
  const payTo = () => dev.accounts[1]!.address;
  const bodies: string[] = [];

  beforeAll(async () => {
    dev = await startDevnetEvm({ accounts: 10 });
    facilitator = createLocalFacilitator({ rpcUrl: dev.url, privateKey: dev.accounts[9]!.privateKey, network: "eip155:84532" });
    // A minimal x402 resource over a real socket: 402 with PAYMENT-REQUIRED, then verify + settle with the local facilitator.
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => {
        void (async () => {
          bodies.push(Buffer.concat(chunks).toString("utf8"));
          const price = new URL(request.url ?? "/", "http://x").searchParams.get("price") ?? "50000";
          const requirement = req(payTo(), price);
          const header = request.headers["payment-signature"];
          if (typeof header !== "string") {
            response
              .writeHead(402, { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequiredHeader(required([requirement])) })
              .end("{}");
            return;
          }
          const payload = decodePaymentSignatureHeader(header);
          const verified = await facilitator.verify(payload, requirement);
          if (!verified.isValid) {
            response.writeHead(402, { "content-type": "application/json" }).end(JSON.stringify(verified));
            return;
          }
          const settled = await facilitator.settle(payload, requirement);
          response
            .writeHead(settled.success ? 200 : 402, { "content-type": "application/json", "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled) })
            .end(JSON.stringify({ ok: settled.success }));
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dev.close();
  });

  it("signs a v2 EIP-3009 payload for Base Sepolia USDC under the USDC domain", async () => {
    const payer = createPayer(dev.accounts[0]!.privateKey);
    const r = req(payTo(), "100000");
    const signed = await payer.signFor(required([r]));
    expect(signed.headerName).toBe("PAYMENT-SIGNATURE");
    const decoded = decodePaymentSignatureHeader(signed.header);
    expect(decoded).toEqual(signed.payload);
    expect(decoded.x402Version).toBe(2);
    expect(decoded.accepted).toEqual(r);
    const auth = (decoded.payload as { authorization: Record<string, string>; signature: `0x${string}` }).authorization;
    expect(auth.from).toBe(payer.address);
    expect(auth.value).toBe("100000");
    const signer = await recoverTypedDataAddress({
      domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: USDC_SEPOLIA },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: auth.from as Address,
        to: auth.to as Address,
        value: BigInt(auth.value!),
        validAfter: BigInt(auth.validAfter!),
        validBefore: BigInt(auth.validBefore!),
        nonce: auth.nonce as `0x${string}`,
      },
      signature: (decoded.payload as { signature: `0x${string}` }).signature,
    });
    expect(signer).toBe(payer.address);
  });

  it("pays up to 25 USDC by default and refuses more", async () => {
    const payer = createPayer(dev.accounts[0]!.privateKey);
    expect(payer.maxAmountAtomic).toBe(DEFAULT_MAX_PAYMENT_ATOMIC);
    await expect(payer.signFor(required([req(payTo(), "25000000")]))).resolves.toBeTruthy();
    await expect(payer.signFor(required([req(payTo(), "25000001")]))).rejects.toThrow(/spend/i);
    // A lower cap is honoured too.
    const frugal = createPayer(dev.accounts[0]!.privateKey, { maxAmountAtomic: 10_000n });
    await expect(frugal.signFor(required([req(payTo(), "10001")]))).rejects.toThrow();
    await expect(frugal.signFor(required([req(payTo(), "10000")]))).resolves.toBeTruthy();
  });

  it("pays only USDC: other assets in accepts are ignored, and v1 is refused", async () => {
    const payer = createPayer(dev.accounts[0]!.privateKey);
    const other = req(payTo(), "1000", { asset: "0x0000000000000000000000000000000000000bad" });
    await expect(payer.signFor(required([other]))).rejects.toThrow();
    const signed = await payer.signFor(required([other, req(payTo(), "1000")]));
    expect(signed.payload.accepted.asset).toBe(USDC_SEPOLIA);
    await expect(payer.signFor({ ...required([req(payTo(), "1000")]), x402Version: 1 })).rejects.toThrow(/version 2/);
  });

  it("payFetch does the 402 → sign → retry dance over a real socket and the devnet ledger moves", async () => {
    const payer = createPayer(dev.accounts[3]!.privateKey);
    const before = dev.usdcBalanceOf(payTo());
    bodies.length = 0;
    const res = await payer.payFetch(`${url}/paid?price=75000`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const receipt = res.headers.get("payment-response");
    expect(receipt).toBeTruthy();
    expect(dev.usdcBalanceOf(payTo())).toBe(before + 75_000n);
    // The same body was sent twice: once unpaid, once paid.
    expect(bodies).toEqual(['{"hello":"world"}', '{"hello":"world"}']);

    // A non-402 answer is returned as is, and nothing is paid.
    const plain = await createPayer(dev.accounts[3]!.privateKey).payFetch(dev.url, { method: "GET" });
    expect(plain.status).toBe(405);
  });

  it("payFetch refuses to pay above its cap", async () => {
    const payer = createPayer(dev.accounts[3]!.privateKey, { maxAmountAtomic: 1_000n });
    const before = dev.usdcBalanceOf(payTo());
    await expect(payer.payFetch(`${url}/paid?price=5000`)).rejects.toThrow();
    expect(dev.usdcBalanceOf(payTo())).toBe(before);
  });
});
