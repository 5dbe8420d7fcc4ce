/**
 * The devnet's batch-settlement escrow on its own, no anvil needed: its ABI
 * against the real contract's compiled one (vendored), its ids and digests
 * against the official client's EIP-712 types, that a write which reverts
 * part way (after the escrow has credited a channel, or after a multicall's
 * first item) leaves no trace, that snapshots are copies, and that a
 * collector re-entering the escrow meets the reentrancy guard. The
 * differential test against the real contracts is evm-batch-settlement.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Abi,
  type Address,
  type Hex,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  encodeAbiParameters,
  encodeFunctionData,
  hashTypedData,
  http,
  keccak256,
  toFunctionSelector,
} from "viem";
import { getEip712Domain } from "viem/actions";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { BATCH_SETTLEMENT_DOMAIN, claimBatchTypes, refundTypes, voucherTypes } from "@x402/evm";
import { ManualClock } from "../../src/core/clock.js";
import {
  BATCH_SETTLEMENT_ADDRESS as ESCROW,
  DEVNET_CHAIN_ID,
  DEVNET_USDC_ADDRESS as USDC,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS as COLLECTOR,
  ExecutionReverted,
  SimulatedBatchSettlement,
  SimulatedChain,
  SimulatedErc3009DepositCollector,
  SimulatedUsdc,
  batchSettlementAbi,
  depositCollectorAbi,
  startDevnetEvm,
  type CallFrame,
  type DevnetEvm,
} from "../../devnet/evm.js";
import { ERC3009_COLLECTOR_ARTIFACT, ESCROW_ARTIFACT } from "../helpers/anvil-batch-settlement.js";
import { channelConfig, channelIdOf, depositCollectorData, escrowData, signClaimBatch, signRefund, voucherClaim } from "../helpers/batch-settlement-sign.js";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const FAR_FUTURE = 4_102_444_800n;
const escrowDomain = { ...BATCH_SETTLEMENT_DOMAIN, chainId: DEVNET_CHAIN_ID, verifyingContract: ESCROW } as const;

interface AbiParam {
  type: string;
  indexed?: boolean;
  components?: readonly AbiParam[];
}
const paramShape = (p: AbiParam): unknown => ({ type: p.type, indexed: p.indexed ?? false, components: p.components?.map(paramShape) });

/** Each function, event and error by name, parameter types (tuples expanded) and mutability. */
function abiShape(abi: Abi): string[] {
  return abi
    .flatMap((item) => {
      if (item.type !== "function" && item.type !== "event" && item.type !== "error") return [];
      const fn = item.type === "function" ? { outputs: item.outputs.map(paramShape), mutability: item.stateMutability } : {};
      return [JSON.stringify({ type: item.type, name: item.name, inputs: item.inputs.map(paramShape), ...fn })];
    })
    .sort();
}

describe("devnet batch-settlement escrow: ABI, ids and digests, all-or-nothing writes", () => {
  let dev: DevnetEvm;
  let payer: PrivateKeyAccount;
  let receiver: PrivateKeyAccount;
  let receiverAuth: PrivateKeyAccount;
  let relayer: PrivateKeyAccount;
  let send: (from: PrivateKeyAccount, data: Hex) => Promise<"success" | "reverted">;
  let read: (data: Hex) => Promise<Hex>;

  beforeAll(async () => {
    dev = await startDevnetEvm({ clock: new ManualClock(T0), accounts: 6 });
    const keys = dev.accounts.map((a) => privateKeyToAccount(a.privateKey));
    [relayer, payer, receiver, receiverAuth] = [keys[0]!, keys[1]!, keys[4]!, keys[5]!];
    const chain = defineChain({ id: DEVNET_CHAIN_ID, name: "devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [dev.url] } } });
    const client = createPublicClient({ chain, transport: http(dev.url) });
    send = async (from, data) => {
      const wallet = createWalletClient({ account: from, chain, transport: http(dev.url) });
      // A fixed gas limit, so a transaction that reverts is mined rather than refused by the estimate.
      const hash = await wallet.sendTransaction({ to: ESCROW, data, gas: 2_000_000n });
      return (await client.waitForTransactionReceipt({ hash })).status;
    };
    read = async (data) => (await client.call({ to: ESCROW, data })).data ?? "0x";
  });
  afterAll(async () => {
    await dev?.close();
  });

  const parties = () => ({ payer: payer.address, receiver: receiver.address, receiverAuthorizer: receiverAuth.address });
  const depositData = async (config = channelConfig(parties(), 1), amount = 5_000_000n, salt = 1n, signer = payer) =>
    escrowData("deposit", [config, amount, COLLECTOR, await depositCollectorData(signer, config, amount, { salt, validBefore: FAR_FUTURE })]);

  it("has every function, event and error of the real contracts' ABIs, with the same types", () => {
    expect(abiShape(batchSettlementAbi as Abi)).toEqual(abiShape(ESCROW_ARTIFACT.abi));
    expect(abiShape(depositCollectorAbi as Abi)).toEqual(abiShape(ERC3009_COLLECTOR_ARTIFACT.abi));
  });

  it("names channels and hashes vouchers, refunds and claim batches as the official client does", async () => {
    const config = channelConfig(parties(), 7, { withdrawDelay: 3600 });
    const id = channelIdOf(config);
    expect(dev.escrow.channelId(config)).toBe(id);
    expect(await read(escrowData("getChannelId", [config]))).toBe(id);
    expect(await read(escrowData("getVoucherDigest", [id, 42n]))).toBe(
      hashTypedData({ domain: escrowDomain, types: voucherTypes, primaryType: "Voucher", message: { channelId: id, maxClaimableAmount: 42n } }),
    );
    expect(await read(escrowData("getRefundDigest", [id, 3n, 42n]))).toBe(
      hashTypedData({ domain: escrowDomain, types: refundTypes, primaryType: "Refund", message: { channelId: id, nonce: 3n, amount: 42n } }),
    );
    const row = await voucherClaim(payer, config, 42n, 40n);
    const batch = (claims: { channelId: Hex; maxClaimableAmount: bigint; totalClaimed: bigint }[]) =>
      hashTypedData({ domain: escrowDomain, types: claimBatchTypes, primaryType: "ClaimBatch", message: { claims } });
    expect(await read(escrowData("getClaimBatchDigest", [[row]]))).toBe(batch([{ channelId: id, maxClaimableAmount: 42n, totalClaimed: 40n }]));
    expect(await read(escrowData("getClaimBatchDigest", [[]]))).toBe(batch([]));
  });

  it("answers eip712Domain as viem's getEip712Domain expects it", async () => {
    const client = createPublicClient({ transport: http(dev.url) });
    const { domain, extensions, fields } = await getEip712Domain(client, { address: ESCROW });
    expect(domain).toEqual({ ...escrowDomain, salt: `0x${"00".repeat(32)}` });
    expect({ extensions, fields }).toEqual({ extensions: [], fields: "0x0f" });
  });

  it("a deposit whose pull fails after the channel was credited leaves no trace; the same deposit well signed opens it", async () => {
    const config = channelConfig(parties(), 2);
    const id = channelIdOf(config);
    const before = { payer: dev.usdcBalanceOf(payer.address), escrow: dev.usdcBalanceOf(ESCROW) };
    expect(await send(relayer, await depositData(config, 5_000_000n, 1n, receiver))).toBe("reverted");
    expect(dev.escrow.channel(id)).toEqual({ balance: 0n, totalClaimed: 0n });
    expect({ payer: dev.usdcBalanceOf(payer.address), escrow: dev.usdcBalanceOf(ESCROW) }).toEqual(before);
    const erc3009Nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [id, 1n]));
    expect(dev.usdc.authorizationState(payer.address, erc3009Nonce)).toBe(false);

    expect(await send(relayer, await depositData(config))).toBe("success");
    expect(dev.escrow.channel(id)).toEqual({ balance: 5_000_000n, totalClaimed: 0n });
    expect(dev.escrow.escrowed(USDC)).toBe(dev.usdcBalanceOf(ESCROW));
  });

  it("a multicall whose second item reverts undoes its first (a claim)", async () => {
    const config = channelConfig(parties(), 3);
    const id = channelIdOf(config);
    expect(await send(relayer, await depositData(config, 4_000_000n, 3n))).toBe("success");
    const claims = [await voucherClaim(payer, config, 2_000_000n, 1_000_000n)];
    const claim = escrowData("claimWithSignature", [claims, await signClaimBatch(receiverAuth, claims)]);
    const staleRefund = escrowData("refundWithSignature", [config, 1n, 9n, await signRefund(receiverAuth, config, 9n, 1n)]);
    const receiverBefore = dev.escrow.receiver(receiver.address, USDC);

    expect(await send(relayer, escrowData("multicall", [[claim, staleRefund]]))).toBe("reverted");
    expect(dev.escrow.channel(id)).toEqual({ balance: 4_000_000n, totalClaimed: 0n });
    expect(dev.escrow.receiver(receiver.address, USDC)).toEqual(receiverBefore);

    expect(await send(relayer, escrowData("multicall", [[claim]]))).toBe("success");
    expect(dev.escrow.channel(id)).toEqual({ balance: 4_000_000n, totalClaimed: 1_000_000n });
  });

  it("a snapshot is a copy: restoring it undoes later writes, and later writes do not reach it", async () => {
    const config = channelConfig(parties(), 4);
    const id = channelIdOf(config);
    expect(await send(relayer, await depositData(config, 3_000_000n, 4n))).toBe("success");
    const saved = dev.escrow.snapshot();
    expect(await send(receiver, escrowData("refund", [config, 1_000_000n]))).toBe("success");
    expect(dev.escrow.channel(id).balance).toBe(2_000_000n);
    expect(dev.escrow.refundNonce(id)).toBe(1n);

    dev.escrow.restore(saved);
    expect(dev.escrow.channel(id).balance).toBe(3_000_000n);
    expect(dev.escrow.refundNonce(id)).toBe(0n);
    // A write after the restore must not reach the snapshot: restoring it again undoes that write too.
    expect(await send(receiver, escrowData("refund", [config, 500_000n]))).toBe("success");
    dev.escrow.restore(saved);
    expect(dev.escrow.channel(id).balance).toBe(3_000_000n);
    expect(dev.escrow.refundNonce(id)).toBe(0n);
  });
});

describe("devnet batch-settlement escrow: the reentrancy guard", () => {
  /** A collector that calls back into the escrow (settle) while the escrow's deposit is running. */
  class ReenteringCollector extends SimulatedErc3009DepositCollector {
    override async call(frame: CallFrame): Promise<Hex> {
      return frame.chain.innerCall(frame, this.escrow, escrowData("settle", [frame.self, USDC]));
    }
  }

  it("refuses a write made from inside another with ReentrancyGuardReentrantCall(), as the real contract does", async () => {
    const chain = new SimulatedChain({ chainId: DEVNET_CHAIN_ID, clock: new ManualClock(T0) });
    const usdc = new SimulatedUsdc({ address: USDC, name: "USDC", version: "2", symbol: "USDC", decimals: 6, chainId: DEVNET_CHAIN_ID });
    const evil: Address = "0x00000000000000000000000000000000000e7117";
    chain.deployContract(USDC, usdc);
    chain.deployContract(ESCROW, new SimulatedBatchSettlement({ address: ESCROW, chainId: DEVNET_CHAIN_ID }));
    chain.deployContract(evil, new ReenteringCollector(ESCROW));
    const payer = privateKeyToAccount(`0x${"11".repeat(32)}`);
    const config = channelConfig({ payer: payer.address, receiver: evil, receiverAuthorizer: evil }, 1);
    const data = encodeFunctionData({ abi: batchSettlementAbi, functionName: "deposit", args: [config, 1n, evil, "0x"] });

    const failure = await chain.simulate({ from: payer.address, to: ESCROW, value: 0n, data }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ExecutionReverted);
    const revertData = (failure as ExecutionReverted).data;
    expect(revertData.slice(0, 10)).toBe(toFunctionSelector("ReentrancyGuardReentrantCall()"));
    expect(decodeErrorResult({ abi: batchSettlementAbi, data: revertData }).errorName).toBe("ReentrancyGuardReentrantCall");
  });
});
