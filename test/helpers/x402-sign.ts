/**
 * EIP-3009 authorisations signed by hand, for the payments the official
 * client would never make (a window in the past, another EIP-712 domain, a
 * forged `from`). Every field can be chosen; defaults are a valid payment
 * for `req`: its payTo and amount, valid from 0 to 5 minutes from now, a
 * fresh random nonce, the domain its `extra` and network name.
 */
import { randomBytes } from "node:crypto";
import { bytesToHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { authorizationTypes } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { USDC } from "../../src/x402/networks.js";

const SEPOLIA_USDC = USDC["eip155:84532"];

/** Exact-scheme requirements for USDC on Base Sepolia (the devnet chain's token): 0.1 USDC to `payTo` unless `over` says otherwise. */
export function sepoliaUsdcRequirements(payTo: Address, over: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: SEPOLIA_USDC.network,
    amount: "100000",
    asset: SEPOLIA_USDC.asset,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: SEPOLIA_USDC.name, version: SEPOLIA_USDC.version },
    ...over,
  };
}

export interface HandSignedOverrides {
  from?: Address;
  to?: Address;
  value?: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
  /** EIP-712 domain fields (default: the requirements' extra.name/version, chain id and asset). */
  name?: string;
  version?: string;
  chainId?: number;
  verifyingContract?: Address;
}

export async function signAuthorization(key: Hex, req: PaymentRequirements, over: HandSignedOverrides = {}): Promise<PaymentPayload> {
  const signer = privateKeyToAccount(key);
  const message = {
    from: over.from ?? signer.address,
    to: over.to ?? (req.payTo as Address),
    value: over.value ?? BigInt(req.amount),
    validAfter: over.validAfter ?? 0n,
    validBefore: over.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 300),
    nonce: over.nonce ?? bytesToHex(randomBytes(32)),
  };
  const signature = await signer.signTypedData({
    domain: {
      name: over.name ?? String(req.extra?.name),
      version: over.version ?? String(req.extra?.version),
      chainId: over.chainId ?? Number(req.network.split(":")[1]),
      verifyingContract: over.verifyingContract ?? (req.asset as Address),
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return {
    x402Version: 2,
    accepted: req,
    payload: {
      authorization: {
        from: message.from,
        to: message.to,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
        nonce: message.nonce,
      },
      signature,
    },
  } as PaymentPayload;
}
