import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  domainSeparator,
  encodeFunctionData,
  http,
  keccak256,
  parseEventLogs,
  parseSignature,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import { ManualClock } from "../../src/core/clock.js";
import {
  DEVNET_CHAIN_ID,
  DEVNET_USDC_ADDRESS,
  DEVNET_USDC_PER_ACCOUNT,
  MULTICALL3_ADDRESS,
  deriveDevnetAccounts,
  startDevnetEvm,
  usdcAbi,
  type DevnetEvm,
} from "../../devnet/evm.js";
import { authorizationTypes } from "@x402/evm";

const MAINNET_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);


interface Auth {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

let nonceCounter = 0;
const freshNonce = (): Hex => keccak256(toHex(`evm-test-nonce-${++nonceCounter}-${Math.random()}`));

async function signAuth(
  key: Hex,
  auth: Auth,
  domain: { name: string; version: string; chainId: number; verifyingContract: Address } = {
    name: "USDC",
    version: "2",
    chainId: DEVNET_CHAIN_ID,
    verifyingContract: DEVNET_USDC_ADDRESS,
  },
): Promise<Hex> {
  return privateKeyToAccount(key).signTypedData({ domain, types: authorizationTypes, primaryType: "TransferWithAuthorization", message: auth });
}

async function rpc(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

describe("devnet EVM: JSON-RPC surface", () => {
  let dev: DevnetEvm;
  const seen: string[] = [];
  beforeAll(async () => {
    dev = await startDevnetEvm({ onRequest: (m) => seen.push(m) });
  });
  afterAll(async () => {
    await dev.close();
  });

  it("listens on loopback and answers as Base Sepolia, never mainnet", async () => {
    expect(dev.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await rpc(dev.url, { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: "0x14a34",
    });
    expect(await rpc(dev.url, { jsonrpc: "2.0", id: "n", method: "net_version" })).toMatchObject({ result: "84532" });
    const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
    expect(await client.getChainId()).toBe(84532);
  });

  it("answers batches in order, skips notifications, and reports JSON-RPC errors", async () => {
    const out = (await rpc(dev.url, [
      { jsonrpc: "2.0", id: 7, method: "eth_blockNumber", params: [] },
      { jsonrpc: "2.0", method: "eth_chainId", params: [] },
      { jsonrpc: "2.0", id: 8, method: "eth_noSuchThing", params: [] },
      { jsonrpc: "2.0", id: 9, method: "eth_getBalance", params: ["not-an-address", "latest"] },
      { jsonrpc: "2.0", id: 10, method: "eth_chainId", params: [] },
    ])) as { id: unknown; result?: unknown; error?: { code: number } }[];
    expect(out.map((r) => r.id)).toEqual([7, 8, 9, 10]);
    expect(out[0]!.result).toMatch(/^0x[0-9a-f]+$/);
    expect(out[1]!.error?.code).toBe(-32601);
    expect(out[2]!.error?.code).toBe(-32602);
    expect(out[3]!.result).toBe("0x14a34");

    const bad = await fetch(dev.url, { method: "POST", body: "{not json" });
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await rpc(dev.url, [])).toMatchObject({ error: { code: -32600 } });
    expect((await fetch(dev.url)).status).toBe(405);
  });

  it("funds the mnemonic accounts with 1,000 USDC each and plenty of ETH", async () => {
    expect(dev.accounts).toHaveLength(10);
    // The well-known first addresses of `test test … junk` at m/44'/60'/0'/0/i.
    expect(dev.accounts[0]!.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(dev.accounts[1]!.address).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(dev.accounts[9]!.address).toBe("0xa0Ee7A142d267C1f36714E4a8F75612F20a79720");
    for (const a of dev.accounts) expect(privateKeyToAccount(a.privateKey).address).toBe(a.address);

    const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
    for (const a of dev.accounts) {
      expect(await client.readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "balanceOf", args: [a.address] })).toBe(
        DEVNET_USDC_PER_ACCOUNT,
      );
      expect(dev.usdcBalanceOf(a.address)).toBe(1_000_000_000n);
    }
    expect(await client.readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "totalSupply" })).toBe(10_000_000_000n);
    expect(await client.getBalance({ address: dev.accounts[3]!.address })).toBeGreaterThanOrEqual(10n ** 21n);
    // A brand-new key can pay gas too.
    expect(await client.getBalance({ address: privateKeyToAccount(generatePrivateKey()).address })).toBeGreaterThan(10n ** 18n);
  });

  it("exposes the USDC token metadata and the Base Sepolia EIP-712 domain", async () => {
    const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
    const read = (functionName: "name" | "version" | "decimals" | "symbol" | "DOMAIN_SEPARATOR") =>
      client.readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName });
    expect(await read("name")).toBe("USDC");
    expect(await read("version")).toBe("2");
    expect(await read("decimals")).toBe(6);
    expect(await read("symbol")).toBe("USDC");
    expect(await read("DOMAIN_SEPARATOR")).toBe(
      domainSeparator({ domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: DEVNET_USDC_ADDRESS } }),
    );
    expect(await read("DOMAIN_SEPARATOR")).not.toBe(
      domainSeparator({ domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: MAINNET_USDC } }),
    );
    expect(await client.getCode({ address: DEVNET_USDC_ADDRESS })).not.toBe(undefined);
    expect((await client.getCode({ address: DEVNET_USDC_ADDRESS }))!.length).toBeGreaterThan(2);
    expect((await client.getCode({ address: MULTICALL3_ADDRESS }))!.length).toBeGreaterThan(2);
    expect(await client.getCode({ address: dev.accounts[0]!.address })).toBe(undefined);
    // Mainnet USDC does not exist here.
    expect(await client.getCode({ address: MAINNET_USDC })).toBe(undefined);
  });

  it("batches reads through Multicall3 (viem multicall) with per-call failure", async () => {
    const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
    const results = await client.multicall({
      contracts: [
        { address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "balanceOf", args: [dev.accounts[2]!.address] },
        { address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "name" },
        {
          address: DEVNET_USDC_ADDRESS,
          abi: usdcAbi,
          functionName: "transferWithAuthorization",
          args: [dev.accounts[2]!.address, dev.accounts[3]!.address, 1n, 0n, 1n, freshNonce(), "0x1234"],
        },
      ],
    });
    expect(results[0]).toEqual({ status: "success", result: 1_000_000_000n });
    expect(results[1]).toEqual({ status: "success", result: "USDC" });
    expect(results[2]!.status).toBe("failure");
  });

  it("serves blocks with base fees and a fee history", async () => {
    const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
    const block = await client.getBlock({ blockTag: "latest" });
    expect(block.baseFeePerGas).toBeGreaterThan(0n);
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const fees = await client.estimateFeesPerGas();
    expect(fees.maxFeePerGas).toBeGreaterThan(fees.maxPriorityFeePerGas);
    const history = await client.getFeeHistory({ blockCount: 4, rewardPercentiles: [50] });
    expect(history.baseFeePerGas.length).toBe(history.gasUsedRatio.length + 1);
    expect(await client.getBlock({ blockNumber: 10_000_000n }).catch((e: Error) => e.name)).toBe("BlockNotFoundError");
  });
});

describe("devnet EVM: EIP-3009 transferWithAuthorization", () => {
  let dev: DevnetEvm;
  const clock = new ManualClock(T0);
  const nowS = () => BigInt(Math.floor(clock.now() / 1000));
  const accounts = deriveDevnetAccounts(10);
  const payer = accounts[0]!;
  const payee = accounts[1]!;
  const relayer = accounts[8]!;
  const methods = new Set<string>();

  beforeAll(async () => {
    dev = await startDevnetEvm({ clock, onRequest: (m) => methods.add(m) });
  });
  afterAll(async () => {
    await dev.close();
  });

  const publicClient = () => createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
  const relayerWallet = () => createWalletClient({ account: privateKeyToAccount(relayer.privateKey), chain: baseSepolia, transport: http(dev.url) });

  const auth = (over: Partial<Auth> = {}): Auth => ({
    from: payer.address,
    to: payee.address,
    value: 250_000n,
    validAfter: 0n,
    validBefore: nowS() + 300n,
    nonce: freshNonce(),
    ...over,
  });

  async function simulate(a: Auth, signature: Hex): Promise<string> {
    try {
      await publicClient().simulateContract({
        account: relayer.address,
        address: DEVNET_USDC_ADDRESS,
        abi: usdcAbi,
        functionName: "transferWithAuthorization",
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
      });
      return "ok";
    } catch (err) {
      return (err as Error).message;
    }
  }

  it("settles a signed authorisation (v,r,s overload) with Transfer and AuthorizationUsed logs", async () => {
    const a = auth();
    const sig = await signAuth(payer.privateKey, a);
    const { r, s, v } = parseSignature(sig);
    const before = { payer: dev.usdcBalanceOf(payer.address), payee: dev.usdcBalanceOf(payee.address) };
    const height = await publicClient().getBlockNumber();

    const hash = await relayerWallet().writeContract({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, Number(v), r, s],
    });
    const receipt = await publicClient().waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.blockNumber).toBe(height + 1n);
    expect(receipt.from.toLowerCase()).toBe(relayer.address.toLowerCase());
    const logs = parseEventLogs({ abi: usdcAbi, logs: receipt.logs });
    expect(logs.map((l) => l.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
    expect(logs[1]!.args).toEqual({ from: payer.address, to: payee.address, value: 250_000n });
    expect(logs[0]!.args).toEqual({ authorizer: payer.address, nonce: a.nonce });

    expect(dev.usdcBalanceOf(payer.address)).toBe(before.payer - 250_000n);
    expect(dev.usdcBalanceOf(payee.address)).toBe(before.payee + 250_000n);
    expect(
      await publicClient().readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "authorizationState", args: [payer.address, a.nonce] }),
    ).toBe(true);

    const tx = await publicClient().getTransaction({ hash });
    expect(tx.hash).toBe(hash);
    expect(tx.to?.toLowerCase()).toBe(DEVNET_USDC_ADDRESS.toLowerCase());
    expect(tx.type).toBe("eip1559");
    expect("chainId" in tx ? tx.chainId : undefined).toBe(84532);
    const block = await publicClient().getBlock({ blockNumber: receipt.blockNumber });
    expect(block.transactions).toEqual([hash]);
    expect(block.timestamp).toBe(nowS());

    const found = await publicClient().getContractEvents({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      eventName: "Transfer",
      args: { to: payee.address },
      fromBlock: 0n,
    });
    expect(found.some((l) => l.transactionHash === hash && l.args.value === 250_000n)).toBe(true);
  });

  it("settles with the bytes-signature overload too", async () => {
    const a = auth({ value: 1n });
    const sig = await signAuth(payer.privateKey, a);
    const before = dev.usdcBalanceOf(payee.address);
    const hash = await relayerWallet().writeContract({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, sig],
    });
    expect((await publicClient().waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(dev.usdcBalanceOf(payee.address)).toBe(before + 1n);
  });

  it("reverts with FiatToken's reasons: used nonce, time window, signature, balance", async () => {
    // Replay of a settled nonce.
    const used = auth({ value: 5n });
    const usedSig = await signAuth(payer.privateKey, used);
    const h = await relayerWallet().writeContract({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [used.from, used.to, used.value, used.validAfter, used.validBefore, used.nonce, usedSig],
    });
    await publicClient().waitForTransactionReceipt({ hash: h });
    expect(await simulate(used, usedSig)).toContain("FiatTokenV2: authorization is used or canceled");

    // Not yet valid: FiatToken requires now > validAfter (strictly).
    const early = auth({ validAfter: nowS() });
    expect(await simulate(early, await signAuth(payer.privateKey, early))).toContain("FiatTokenV2: authorization is not yet valid");
    const earlier = auth({ validAfter: nowS() - 1n });
    expect(await simulate(earlier, await signAuth(payer.privateKey, earlier))).toBe("ok");

    // Expired: requires now < validBefore; the injected clock decides.
    const expiring = auth({ validBefore: nowS() + 10n });
    const expiringSig = await signAuth(payer.privateKey, expiring);
    expect(await simulate(expiring, expiringSig)).toBe("ok");
    clock.advance(10_000);
    expect(await simulate(expiring, expiringSig)).toContain("FiatTokenV2: authorization is expired");

    // Signed by someone else.
    const forged = auth();
    expect(await simulate(forged, await signAuth(accounts[4]!.privateKey, forged))).toContain("FiatTokenV2: invalid signature");
    // Signed correctly, then the value was changed.
    const tampered = auth({ value: 10n });
    const tamperedSig = await signAuth(payer.privateKey, tampered);
    expect(await simulate({ ...tampered, value: 11n }, tamperedSig)).toContain("FiatTokenV2: invalid signature");
    // Malformed signatures.
    expect(await simulate(forged, "0x1234")).toContain("ECRecover: invalid signature length");

    // A fresh key has no USDC.
    const poorKey = generatePrivateKey();
    const poor = auth({ from: privateKeyToAccount(poorKey).address });
    expect(await simulate(poor, await signAuth(poorKey, poor))).toContain("ERC20: transfer amount exceeds balance");
  });

  it("never accepts a mainnet-domain (USD Coin, 8453) signature", async () => {
    const a = auth();
    const mainnetSig = await signAuth(payer.privateKey, a, {
      name: "USD Coin",
      version: "2",
      chainId: 8453,
      verifyingContract: MAINNET_USDC,
    });
    expect(await simulate(a, mainnetSig)).toContain("FiatTokenV2: invalid signature");
    // Even with the devnet's contract address, the mainnet name or chain id do not recover to the payer.
    const nameOnly = await signAuth(payer.privateKey, a, { name: "USD Coin", version: "2", chainId: 84532, verifyingContract: DEVNET_USDC_ADDRESS });
    expect(await simulate(a, nameOnly)).toContain("FiatTokenV2: invalid signature");
    const chainOnly = await signAuth(payer.privateKey, a, { name: "USDC", version: "2", chainId: 8453, verifyingContract: DEVNET_USDC_ADDRESS });
    expect(await simulate(a, chainOnly)).toContain("FiatTokenV2: invalid signature");

    // Forced on-chain (explicit gas skips estimation): mined, reverted, no money moved.
    const before = dev.usdcBalanceOf(payer.address);
    const hash = await relayerWallet().writeContract({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, mainnetSig],
      gas: 200_000n,
    });
    const receipt = await publicClient().waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("reverted");
    expect(receipt.logs).toEqual([]);
    expect(dev.usdcBalanceOf(payer.address)).toBe(before);
    expect(
      await publicClient().readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "authorizationState", args: [payer.address, a.nonce] }),
    ).toBe(false);

    // And a transaction signed for Base mainnet is refused outright.
    const count = await publicClient().getTransactionCount({ address: relayer.address });
    const raw = await privateKeyToAccount(relayer.privateKey).signTransaction({
      type: "eip1559",
      to: DEVNET_USDC_ADDRESS,
      data: encodeFunctionData({ abi: usdcAbi, functionName: "transfer", args: [payee.address, 1n] }),
      nonce: count,
      gas: 100_000n,
      maxFeePerGas: 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 6n,
      chainId: base.id,
    });
    expect(await rpc(dev.url, { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] })).toMatchObject({
      error: { message: expect.stringContaining("invalid chain id") },
    });
  });

  it("validates raw transactions: nonce, fee cap, duplicates", async () => {
    const wallet = relayerWallet();
    const count = await publicClient().getTransactionCount({ address: relayer.address });
    const sign = (nonce: number, maxFeePerGas = 10n ** 9n, value = 1n) =>
      wallet.signTransaction({
        to: payee.address,
        value,
        nonce,
        gas: 21_000n,
        maxFeePerGas,
        maxPriorityFeePerGas: 1n,
        chainId: 84532,
      });
    const send = (raw: Hex) => rpc(dev.url, { jsonrpc: "2.0", id: 1, method: "eth_sendRawTransaction", params: [raw] });
    expect(await send(await sign(count + 1))).toMatchObject({ error: { message: expect.stringContaining("nonce too high") } });
    expect(await send(await sign(count, 1n))).toMatchObject({ error: { message: expect.stringContaining("less than block base fee") } });
    const ok = await sign(count);
    const ethBefore = await publicClient().getBalance({ address: payee.address });
    expect(await send(ok)).toMatchObject({ result: keccak256(ok) });
    expect(await publicClient().getBalance({ address: payee.address })).toBe(ethBefore + 1n);
    expect(await send(ok)).toMatchObject({ error: { message: "already known" } });
    expect(await send(await sign(count, 10n ** 9n, 2n))).toMatchObject({ error: { message: expect.stringContaining("nonce too low") } });
  });

  it("supports receiveWithAuthorization (payee only), cancelAuthorization and plain ERC-20 calls", async () => {
    const payeeWallet = createWalletClient({ account: privateKeyToAccount(payee.privateKey), chain: baseSepolia, transport: http(dev.url) });
    const payerWallet = createWalletClient({ account: privateKeyToAccount(payer.privateKey), chain: baseSepolia, transport: http(dev.url) });
    const client = publicClient();

    // receiveWithAuthorization: signed under its own type, and only the payee may submit it.
    const a = auth({ value: 7n });
    const receiveSig = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: { name: "USDC", version: "2", chainId: DEVNET_CHAIN_ID, verifyingContract: DEVNET_USDC_ADDRESS },
      types: { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization },
      primaryType: "ReceiveWithAuthorization",
      message: a,
    });
    const receiveArgs = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, receiveSig] as const;
    await expect(
      client.simulateContract({ account: relayer.address, address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "receiveWithAuthorization", args: receiveArgs }),
    ).rejects.toThrow(/caller must be the payee/);
    // A TransferWithAuthorization signature does not work for receive (different type hash).
    await expect(
      client.simulateContract({
        account: payee.address,
        address: DEVNET_USDC_ADDRESS,
        abi: usdcAbi,
        functionName: "receiveWithAuthorization",
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, await signAuth(payer.privateKey, a)],
      }),
    ).rejects.toThrow(/invalid signature/);
    const before = dev.usdcBalanceOf(payee.address);
    const rh = await payeeWallet.writeContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "receiveWithAuthorization", args: receiveArgs });
    expect((await client.waitForTransactionReceipt({ hash: rh })).status).toBe("success");
    expect(dev.usdcBalanceOf(payee.address)).toBe(before + 7n);

    // cancelAuthorization burns a nonce before it is used.
    const c = auth({ value: 9n });
    const cancelSig = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: { name: "USDC", version: "2", chainId: DEVNET_CHAIN_ID, verifyingContract: DEVNET_USDC_ADDRESS },
      types: { CancelAuthorization: [{ name: "authorizer", type: "address" }, { name: "nonce", type: "bytes32" }] },
      primaryType: "CancelAuthorization",
      message: { authorizer: payer.address, nonce: c.nonce },
    });
    const ch = await relayerWallet().writeContract({
      address: DEVNET_USDC_ADDRESS,
      abi: usdcAbi,
      functionName: "cancelAuthorization",
      args: [payer.address, c.nonce, cancelSig],
    });
    const cancelReceipt = await client.waitForTransactionReceipt({ hash: ch });
    expect(parseEventLogs({ abi: usdcAbi, logs: cancelReceipt.logs }).map((l) => l.eventName)).toEqual(["AuthorizationCanceled"]);
    expect(await simulate(c, await signAuth(payer.privateKey, c))).toContain("authorization is used or canceled");

    // ERC-20 transfer / approve / transferFrom.
    const th = await payerWallet.writeContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "transfer", args: [payee.address, 3n] });
    expect((await client.waitForTransactionReceipt({ hash: th })).status).toBe("success");
    expect(dev.usdcBalanceOf(payee.address)).toBe(before + 10n);
    const ah = await payerWallet.writeContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "approve", args: [relayer.address, 4n] });
    await client.waitForTransactionReceipt({ hash: ah });
    expect(await client.readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "allowance", args: [payer.address, relayer.address] })).toBe(4n);
    await expect(
      client.simulateContract({ account: relayer.address, address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "transferFrom", args: [payer.address, payee.address, 5n] }),
    ).rejects.toThrow(/exceeds allowance/);
    const fh = await relayerWallet().writeContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "transferFrom", args: [payer.address, payee.address, 4n] });
    expect((await client.waitForTransactionReceipt({ hash: fh })).status).toBe("success");
    expect(dev.usdcBalanceOf(payee.address)).toBe(before + 14n);
    expect(await client.readContract({ address: DEVNET_USDC_ADDRESS, abi: usdcAbi, functionName: "allowance", args: [payer.address, relayer.address] })).toBe(0n);
  });

  it("answers the methods viem and the x402 facilitator use", () => {
    for (const m of [
      "eth_chainId",
      "eth_call",
      "eth_estimateGas",
      "eth_getTransactionCount",
      "eth_getBlockByNumber",
      "eth_maxPriorityFeePerGas",
      "eth_sendRawTransaction",
      "eth_getTransactionReceipt",
      "eth_getTransactionByHash",
      "eth_getLogs",
    ]) {
      expect(methods).toContain(m);
    }
  });
});

describe("devnet EVM: clock-driven blocks", () => {
  it("mines empty blocks as the injected clock advances when a block time is set", async () => {
    const clock = new ManualClock(T0);
    const dev = await startDevnetEvm({ clock, blockTimeSeconds: 2, accounts: 1 });
    try {
      const client = createPublicClient({ chain: baseSepolia, transport: http(dev.url) });
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(0n);
      clock.advance(10_000);
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(5n);
      const b = await client.getBlock({ blockTag: "latest" });
      expect(b.timestamp).toBe(BigInt(T0 / 1000 + 10));
      // A clock that goes backwards never makes block time go backwards.
      clock.set(T0);
      dev.chain.mine();
      expect(dev.chain.latest.timestamp).toBe(BigInt(T0 / 1000 + 10));
      expect(dev.accounts).toHaveLength(1);
    } finally {
      await dev.close();
    }
  });

  it("closes its socket", async () => {
    const dev = await startDevnetEvm({ accounts: 0 });
    await dev.close();
    await expect(fetch(dev.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});
