/**
 * The official `exact` EVM verify for the local facilitator, with a cheaper road to its "valid" for
 * the payment nearly every paid call carries: a plain EIP-3009 authorisation signed by an account
 * without code.
 *
 * @x402/evm checks the signature by recovering the signer with viem's `recoverAddress`, on the copy
 * of @noble/curves 1.x that viem pins: about 2.3 ms on the Intel bench VM, more under load, and the
 * largest single cost of a paid call in the service (bench/README.md, "A verify that recovers the
 * payer for less"). Neither can be swapped from outside the library. Here the same checks run in the
 * same order with the official pieces (the EIP-712 types, the asset check, the token's ABI), except
 * that the signer comes from signer-recovery.ts: @noble/curves 2 recovers it for about half the
 * cost, and a payer seen before is confirmed against its remembered key for less again. Property
 * tests hold that to viem's answers (test/x402/signer-recovery.test.ts).
 *
 * The road only ever answers "valid", and only when every check the official verify makes has
 * passed: the scheme, the EIP-712 domain, the network, no ERC-6492 wrapper, no code at the payer,
 * the signature, the recipient, the time window, the amount, the asset being a contract, and the
 * simulated `transferWithAuthorization` (which runs the token's own signature check). Anything
 * else — a check that fails, an RPC that fails, a payment of another kind — goes to the official
 * verify, which then gives its own answer and reason. So the outcomes are the official ones
 * (test/x402/quick-verify.test.ts compares them case by case); only the cost of a good payment
 * differs.
 */
import type { Network, PaymentPayload, PaymentRequirements, SchemeNetworkFacilitator, VerifyResponse } from "@x402/core/types";
import { authorizationTypes, eip3009ABI, startAssetContractCheck, type toFacilitatorEvmSigner } from "@x402/evm";
import { getAddress, hashTypedData, isAddressEqual, isErc6492Signature, parseSignature, type Hex } from "viem";
import { signerRecovery, splitSignature, type RecoverSigner } from "./signer-recovery.js";
import { plainEip3009, type Eip3009Payload } from "./verified-settle.js";

type FacilitatorEvmSigner = ReturnType<typeof toFacilitatorEvmSigner>;

export interface QuickVerifyOptions {
  /** The signer the official scheme was built with. */
  signer: FacilitatorEvmSigner;
  /** The chain id of the one network the facilitator serves. */
  chainId: number;
  /** The payers' keys, shared by every scheme instance of the facilitator. */
  recover: RecoverSigner;
}

/**
 * Payers' keys for a facilitator: 1,024 remembered (a few hundred bytes each). A payer's key gets a
 * window-4 table (110–130 kB of heap, ~8 ms to build, ~0.6 ms saved on each confirmation) at its
 * 16th payment, and the 32 most recent such payers keep theirs (4 MiB at most). So a payer that pays
 * once or now and then costs no table (recovered in ~1.6 ms, or confirmed in ~1.3 ms), one that pays
 * per call is confirmed in ~0.7 ms, and payers that take tables from each other in turn add at most
 * ~8 ms per 16 payments (~0.5 ms a payment): all below the official check's ~2.3 ms
 * (bench:signer-recovery, Intel bench VM).
 */
export function payerRecovery(): RecoverSigner {
  return signerRecovery({ maxKeys: 1024, maxTables: 32, tableWindow: 4, tableAfter: 16 });
}

/** True only when the official verify would answer {isValid: true} (see the header); false sends the payment to it. */
async function passesEveryCheck(options: QuickVerifyOptions, payload: PaymentPayload, requirements: PaymentRequirements, p: Eip3009Payload): Promise<boolean> {
  const { signer, chainId, recover } = options;
  const auth = p.authorization;
  if (payload.accepted.scheme !== "exact" || requirements.scheme !== "exact") return false;
  const extra = requirements.extra as { name?: string; version?: string } | undefined;
  if (!extra?.name || !extra?.version) return false;
  if (payload.accepted.network !== requirements.network) return false;
  if (isErc6492Signature(p.signature)) return false;
  const asset = getAddress(requirements.asset);
  const digest = hashTypedData({
    domain: { name: extra.name, version: extra.version, chainId, verifyingContract: asset },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: auth.from,
      to: auth.to,
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce,
    },
  });
  const assetCheck = startAssetContractCheck(signer, requirements.network, requirements.asset);
  // Its outcome is taken at once (a failure reads "failed"), so no road out leaves a rejection unhandled;
  // a refusal waits for it, so no RPC call of this verify outlives it.
  const assetReason = assetCheck.await().then(
    (reason) => reason,
    () => "failed",
  );
  const refuse = async () => {
    await assetReason;
    return false;
  };
  const code = await signer.getCode({ address: auth.from });
  if (code && code !== "0x") return refuse();
  if (!isAddressEqual(recover(digest, splitSignature(p.signature), [auth.from]), auth.from)) return refuse();
  if (getAddress(auth.to) !== getAddress(requirements.payTo)) return refuse();
  const now = Math.floor(Date.now() / 1000);
  if (BigInt(auth.validBefore) < BigInt(now + 6) || BigInt(auth.validAfter) > BigInt(now)) return refuse();
  if (BigInt(auth.value) !== BigInt(requirements.amount)) return refuse();
  if ((await assetReason) !== "") return false;
  const sig = parseSignature(p.signature);
  await signer.readContract({
    address: asset,
    abi: eip3009ABI,
    functionName: "transferWithAuthorization",
    args: [getAddress(auth.from), getAddress(auth.to), BigInt(auth.value), BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, sig.v ?? sig.yParity, sig.r, sig.s],
  });
  return true;
}

/** The official scheme, whose verify reaches "valid" the cheaper way when it can. */
export function verifyQuickly(official: SchemeNetworkFacilitator, options: QuickVerifyOptions): SchemeNetworkFacilitator {
  return {
    scheme: official.scheme,
    caipFamily: official.caipFamily,
    getExtra: (network: Network) => official.getExtra(network),
    getSigners: (network: string) => official.getSigners(network),
    settle: (payload, requirements, context) => official.settle(payload, requirements, context),

    async verify(payload, requirements, context): Promise<VerifyResponse> {
      const p = plainEip3009(payload);
      if (p) {
        let valid = false;
        try {
          valid = await passesEveryCheck(options, payload, requirements, p);
        } catch {
          // A check that throws (a malformed field, an RPC failure, a reverted simulation): the official verify answers.
        }
        if (valid) return { isValid: true, invalidReason: undefined, payer: p.authorization.from };
      }
      return official.verify(payload, requirements, context);
    },
  };
}
