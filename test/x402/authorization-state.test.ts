/**
 * The authorisation reader (src/x402/authorization-state.ts) against the
 * devnet's EVM JSON-RPC with its simulated USDC: what it concludes about one
 * EIP-3009 authorisation. "Used elsewhere" burns a payment row, so it must
 * come from evidence, never from a log that was not looked for:
 * - a settlement mined right after the reader last looked at the head (viem
 *   caches eth_blockNumber for 4 s) is `paid`; it once was `used_elsewhere`
 *   and the payer's money was lost (test/e2e/payment-commit-cut.test.ts);
 * - used by a transfer elsewhere, or cancelled: `used_elsewhere`;
 * - used, its log beyond the search window: `used_unattributed` (no verdict),
 *   unless the settlement's own transaction is given as a hint;
 * - behind a provider that caps eth_getLogs at 1,000 blocks (as hosted RPCs
 *   do, each with its own message), the 10,000-block search still finds the
 *   settlement: the reader splits a refused range instead of answering 502.
 */
import http_ from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { randomBytes } from "node:crypto";
import { bytesToHex, createWalletClient, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { authorizationTypes } from "@x402/evm";
import { DEVNET_CHAIN_ID, DEVNET_USDC_ADDRESS, startDevnetEvm, usdcAbi, type DevnetEvm } from "../../devnet/evm.js";
import { createAuthorizationReader, type AuthorizationReader } from "../../src/x402/authorization-state.js";
import { USDC } from "../../src/x402/networks.js";

const PRICE = 100_000n;
const domain = { name: "USDC", version: "2", chainId: DEVNET_CHAIN_ID, verifyingContract: DEVNET_USDC_ADDRESS } as const;

describe("authorisation reader on the devnet chain", () => {
  let dev: DevnetEvm;
  let reader: AuthorizationReader;
  let payer: { address: Address; privateKey: Hex };
  let payTo: Address;
  let other: Address;
  let relayer: ReturnType<typeof createWalletClient>;

  beforeAll(async () => {
    dev = await startDevnetEvm({ accounts: 4 });
    [payer, { address: payTo }, { address: other }] = dev.accounts as [typeof payer, typeof payer, typeof payer];
    relayer = createWalletClient({ account: privateKeyToAccount(dev.accounts[3]!.privateKey), chain: baseSepolia, transport: http(dev.url) });
    reader = createAuthorizationReader({ rpcUrl: dev.url, usdc: USDC["eip155:84532"], payTo });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await dev?.close();
  });

  /** Signs and submits transferWithAuthorization(payer → to, value); returns the nonce and the transaction. */
  async function transfer(to: Address, value = PRICE): Promise<{ nonce: Hex; tx: Hex }> {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const message = { from: payer.address, to, value, validAfter: 0n, validBefore: now + 600n, nonce: bytesToHex(randomBytes(32)) };
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({ domain, types: authorizationTypes, primaryType: "TransferWithAuthorization", message });
    const tx = await relayer.writeContract({
      chain: baseSepolia,
      account: relayer.account!,
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature],
    });
    expect(dev.chain.getTransaction(tx)?.status).toBe("success");
    return { nonce: message.nonce, tx };
  }

  it("an unused authorisation is unused", async () => {
    expect(await reader.check(payer.address, bytesToHex(randomBytes(32)), PRICE)).toEqual({ state: "unused" });
  });

  it("a settlement mined after the reader's last look at the head is paid, not 'used elsewhere'", async () => {
    // The process clock stands still: no cache of the reader's client expires between the two checks.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const earlier = await transfer(payTo);
      expect(await reader.check(payer.address, earlier.nonce, PRICE)).toEqual({ state: "paid", txHash: earlier.tx });
      const later = await transfer(payTo);
      expect(await reader.check(payer.address, later.nonce, PRICE)).toEqual({ state: "paid", txHash: later.tx });
    } finally {
      vi.useRealTimers();
    }
  });

  it("used by a transfer elsewhere, for another amount, or cancelled: used_elsewhere", async () => {
    const elsewhere = await transfer(other);
    expect(await reader.check(payer.address, elsewhere.nonce, PRICE)).toEqual({ state: "used_elsewhere" });
    const less = await transfer(payTo, PRICE - 1n);
    expect(await reader.check(payer.address, less.nonce, PRICE)).toEqual({ state: "used_elsewhere" });
    // Even given as a hint, a transaction that did not pay us proves nothing for us.
    expect(await reader.check(payer.address, less.nonce, PRICE, { txHash: less.tx })).toEqual({ state: "used_elsewhere" });

    const nonce = bytesToHex(randomBytes(32));
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain,
      types: { CancelAuthorization: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }] },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce },
    });
    await relayer.writeContract({ chain: baseSepolia, account: relayer.account!, address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "cancelAuthorization", args: [payer.address, nonce, signature] });
    expect(await reader.check(payer.address, nonce, PRICE)).toEqual({ state: "used_elsewhere" });
  });

  it("used, with its log beyond the search window: no verdict, unless the settlement's transaction is named", async () => {
    const paid = await transfer(payTo);
    const elsewhere = await transfer(other);
    for (let i = 0; i < 10_001; i++) dev.chain.mine();
    // Not found is not "used elsewhere": the row is left for a later look (or the operator).
    expect(await reader.check(payer.address, paid.nonce, PRICE)).toEqual({ state: "used_unattributed" });
    expect(await reader.check(payer.address, elsewhere.nonce, PRICE)).toEqual({ state: "used_unattributed" });
    // The transaction our facilitator reported settles it from its receipt.
    expect(await reader.check(payer.address, paid.nonce, PRICE, { txHash: paid.tx })).toEqual({ state: "paid", txHash: paid.tx });
    // Another authorisation's transaction named as the hint proves nothing.
    expect(await reader.check(payer.address, elsewhere.nonce, PRICE, { txHash: paid.tx })).toEqual({ state: "used_unattributed" });
  });

  it("behind a provider that caps eth_getLogs ranges, a settlement 3,000 blocks back is still found", async () => {
    const CAP = 1_000n;
    let refused = 0;
    let searched = 0;
    // A JSON-RPC front of the devnet node that refuses wider log queries the way hosted providers do.
    const proxy = http_.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", async () => {
        const call = JSON.parse(body) as { id: number; method: string; params: { fromBlock?: string; toBlock?: string }[] };
        if (call.method === "eth_getLogs") {
          const { fromBlock, toBlock } = call.params[0]!;
          if (BigInt(toBlock!) - BigInt(fromBlock!) + 1n > CAP) {
            refused++;
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -32005, message: `query exceeds max block range ${CAP}` } }));
            return;
          }
          searched++;
        }
        const upstream = await fetch(dev.url, { method: "POST", headers: { "content-type": "application/json" }, body });
        res.setHeader("content-type", "application/json");
        res.end(await upstream.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const capped = createAuthorizationReader({ rpcUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, usdc: USDC["eip155:84532"], payTo });
      const paid = await transfer(payTo);
      const elsewhere = await transfer(other);
      for (let i = 0; i < 3_000; i++) dev.chain.mine();
      expect(await capped.check(payer.address, paid.nonce, PRICE)).toEqual({ state: "paid", txHash: paid.tx });
      expect(await capped.check(payer.address, elsewhere.nonce, PRICE)).toEqual({ state: "used_elsewhere" });
      expect(refused).toBeGreaterThan(0);
      expect(searched).toBeGreaterThan(0);
      // Unused and never settled: no log search at all.
      expect(await capped.check(payer.address, bytesToHex(randomBytes(32)), PRICE)).toEqual({ state: "unused" });
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });
});
