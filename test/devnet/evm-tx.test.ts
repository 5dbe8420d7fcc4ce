/**
 * Signed-transaction decoding of the simulated EVM, with transactions
 * signed by viem exactly as wallets and the facilitator sign them.
 */
import { describe, expect, it } from "vitest";
import { keccak256, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { checkEnvelope, decodeSignedTransaction, priceTransaction, yParityOf, type ParsedTransaction } from "../../devnet/evm-tx.js";
import { deriveDevnetAccounts, DEVNET_CHAIN_ID } from "../../devnet/evm.js";
import { JsonRpcError } from "../../devnet/jsonrpc-server.js";

const [payer] = deriveDevnetAccounts(1);
const account = privateKeyToAccount(payer!.privateKey);
const to = "0x000000000000000000000000000000000000dEaD";

const eip1559 = (o: { chainId?: number; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint } = {}) =>
  account.signTransaction({
    type: "eip1559",
    chainId: o.chainId ?? DEVNET_CHAIN_ID,
    to,
    nonce: 0,
    gas: 21_000n,
    maxFeePerGas: o.maxFeePerGas ?? 10n ** 9n,
    maxPriorityFeePerGas: o.maxPriorityFeePerGas ?? 10n ** 6n,
  });

const legacy = (o: { chainId?: number; gasPrice?: bigint; to?: `0x${string}` | null } = {}) =>
  account.signTransaction({
    type: "legacy",
    ...(o.chainId !== undefined ? { chainId: o.chainId } : {}),
    to: o.to === null ? undefined : (o.to ?? to),
    nonce: 0,
    gas: 21_000n,
    gasPrice: o.gasPrice ?? 10n ** 9n,
  } as Parameters<typeof account.signTransaction>[0]);

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<JsonRpcError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonRpcError);
    expect((e as JsonRpcError).code).toBe(-32000);
    return e as JsonRpcError;
  }
  throw new Error("expected a refusal");
}

describe("signed transaction decoding", () => {
  it("recovers the sender and hashes the raw envelope", async () => {
    const raw = await eip1559();
    const d = await decodeSignedTransaction(raw);
    expect(d.from).toBe(account.address);
    expect(d.hash).toBe(keccak256(raw));
    expect(checkEnvelope(d.parsed, DEVNET_CHAIN_ID)).toEqual({ type: "eip1559", chainId: DEVNET_CHAIN_ID, to });
  });

  it("refuses bytes that are not a signed transaction", async () => {
    expect((await refusal(decodeSignedTransaction("0x02c0" as Hex))).message).toMatch(/^invalid transaction: /);
  });

  it("refuses other chains, replayable legacy signatures and contract creation", async () => {
    const mainnet = await decodeSignedTransaction(await eip1559({ chainId: 8453 }));
    expect((await refusal(() => checkEnvelope(mainnet.parsed, DEVNET_CHAIN_ID))).message).toBe("invalid chain id for signer: have 8453 want 84532");
    const replayable = await decodeSignedTransaction(await legacy());
    expect((await refusal(() => checkEnvelope(replayable.parsed, DEVNET_CHAIN_ID))).message).toMatch(/only replay-protected/);
    const create = await decodeSignedTransaction(await legacy({ chainId: DEVNET_CHAIN_ID, to: null }));
    expect((await refusal(() => checkEnvelope(create.parsed, DEVNET_CHAIN_ID))).message).toMatch(/contract creation/);
  });

  it("prices EIP-1559 transactions at min(base fee + tip, fee cap) and refuses caps under the base fee", async () => {
    const { parsed } = await decodeSignedTransaction(await eip1559({ maxFeePerGas: 100n, maxPriorityFeePerGas: 30n }));
    expect(priceTransaction(parsed, "eip1559", 50n)).toEqual({ feeCap: 100n, effectiveGasPrice: 80n });
    expect(priceTransaction(parsed, "eip1559", 90n)).toEqual({ feeCap: 100n, effectiveGasPrice: 100n });
    expect((await refusal(() => priceTransaction(parsed, "eip1559", 101n))).message).toMatch(/max fee per gas less than block base fee/);
    // viem will not sign a tip above the cap; other signers will, so the node checks it.
    const greedyTip = { ...parsed, type: "eip1559", maxFeePerGas: 10n, maxPriorityFeePerGas: 11n } as ParsedTransaction;
    expect((await refusal(() => priceTransaction(greedyTip, "eip1559", 1n))).message).toMatch(/priority fee per gas higher/);
  });

  it("prices legacy transactions at their gas price and refuses them under the base fee", async () => {
    const { parsed } = await decodeSignedTransaction(await legacy({ chainId: DEVNET_CHAIN_ID, gasPrice: 70n }));
    expect(priceTransaction(parsed, "legacy", 70n)).toEqual({ feeCap: 70n, effectiveGasPrice: 70n });
    expect((await refusal(() => priceTransaction(parsed, "legacy", 71n))).message).toBe("transaction underpriced: gasPrice 70, baseFee 71");
  });

  it("reads the y parity from typed signatures, EIP-155 v and pre-EIP-155 v alike", async () => {
    const typed = (await decodeSignedTransaction(await eip1559())).parsed;
    expect([0, 1]).toContain(yParityOf(typed));
    expect(yParityOf(typed)).toBe(typed.yParity);
    const eip155 = (await decodeSignedTransaction(await legacy({ chainId: DEVNET_CHAIN_ID }))).parsed;
    expect(yParityOf(eip155)).toBe(Number(eip155.v! - BigInt(35 + 2 * DEVNET_CHAIN_ID)));
    const old = (await decodeSignedTransaction(await legacy())).parsed;
    expect(yParityOf(old)).toBe(Number(old.v! - 27n));
  });
});
