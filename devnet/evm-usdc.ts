/**
 * Simulated USDC: FiatToken v2.2's ERC-20 and EIP-3009 behaviour (transfer,
 * approve, transferWithAuthorization, receiveWithAuthorization,
 * cancelAuthorization) with its revert strings and events, decoded and
 * encoded with the real ABI. No pause or blacklist. Signatures are checked
 * against the token's own EIP-712 domain, so a signature made for another
 * chain or token recovers to another address and reverts.
 */
import {
  type Abi,
  type Address,
  type DecodeFunctionDataReturnType,
  type Hex,
  concat,
  decodeFunctionData,
  domainSeparator,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  hashTypedData,
  hexToBigInt,
  keccak256,
  numberToHex,
  parseAbi,
  size,
  toHex,
} from "viem";
import { LRUCache } from "lru-cache";
import { type CallFrame, ExecutionReverted, type SimulatedContract, SIMULATED_CODE, ZERO_ADDRESS, lower, revert } from "./evm-contract.js";
import { recoverSignerAddress, splitSignature } from "./secp256k1-recover.js";

/**
 * Signers already recovered, by digest and signature. One x402 payment is
 * checked by the token three times (the facilitator's eth_call, its
 * eth_estimateGas, and the transaction itself) with the same digest and
 * signature, and each secp256k1 recovery cost milliseconds of the devnet's
 * one thread (bench/README.md, http). Recovery is a pure function of the two,
 * so the answer is kept; a signature that does not recover is not.
 */
const recovered = new LRUCache<string, Address>({ max: 10_000 });

/** The signer of `digest`; the claimed signer's key, when seen before, is confirmed rather than recovered anew (secp256k1-recover.ts). */
function recoverSigner(digest: Hex, signature: Hex, claimed: Address): Address {
  const key = digest + signature.slice(2);
  const known = recovered.get(key);
  if (known) return known;
  const address = recoverSignerAddress(digest, splitSignature(signature), [claimed]);
  recovered.set(key, address);
  return address;
}

/** secp256k1 n / 2: FiatToken's ECRecover rejects malleable high-s signatures. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export const usdcAbi = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function currency() view returns (string)",
  "function decimals() view returns (uint8)",
  "function version() view returns (string)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address account) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function CANCEL_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function transferFrom(address from, address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

const authorizationFields = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

const usdcTypes = {
  TransferWithAuthorization: authorizationFields,
  ReceiveWithAuthorization: authorizationFields,
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const typeHash = (s: string) => keccak256(toHex(s));

type UsdcCall = DecodeFunctionDataReturnType<typeof usdcAbi>;
type CallOf<N extends UsdcCall["functionName"]> = Extract<UsdcCall, { functionName: N }>;
/** The functions that change the token's state; every other one is a view. */
type WriteFunction = "transfer" | "approve" | "transferFrom" | "transferWithAuthorization" | "receiveWithAuthorization" | "cancelAuthorization";

const result = (functionName: string, value: unknown): Hex => encodeFunctionResult({ abi: usdcAbi as Abi, functionName, result: value });

interface UsdcState {
  balances: Map<string, bigint>;
  allowances: Map<string, bigint>;
  /** `${authorizer}:${nonce}` (lower case) → used or canceled */
  authorizations: Set<string>;
  totalSupply: bigint;
}

export interface UsdcOptions {
  address: Address;
  name: string;
  version: string;
  symbol: string;
  decimals: number;
  chainId: number;
}

/** USDC with FiatToken v2.2's EIP-3009 semantics and revert strings (no pause or blacklist). */
export class SimulatedUsdc implements SimulatedContract {
  readonly code = SIMULATED_CODE;
  private state: UsdcState = { balances: new Map(), allowances: new Map(), authorizations: new Set(), totalSupply: 0n };
  private readonly domain: { name: string; version: string; chainId: number; verifyingContract: Address };

  constructor(readonly options: UsdcOptions) {
    this.domain = {
      name: options.name,
      version: options.version,
      chainId: options.chainId,
      verifyingContract: options.address,
    };
  }

  balanceOf(address: string): bigint {
    return this.state.balances.get(lower(address)) ?? 0n;
  }

  authorizationState(authorizer: string, nonce: Hex): boolean {
    return this.state.authorizations.has(`${lower(authorizer)}:${lower(nonce)}`);
  }

  get totalSupply(): bigint {
    return this.state.totalSupply;
  }

  /** Devnet faucet: creates tokens out of thin air (no event; genesis allocation style). */
  mint(address: string, amount: bigint): void {
    if (amount < 0n) throw new Error("mint amount must be non-negative");
    this.state.balances.set(lower(address), this.balanceOf(address) + amount);
    this.state.totalSupply += amount;
  }

  snapshot(): UsdcState {
    return {
      balances: new Map(this.state.balances),
      allowances: new Map(this.state.allowances),
      authorizations: new Set(this.state.authorizations),
      totalSupply: this.state.totalSupply,
    };
  }

  restore(snapshot: unknown): void {
    this.state = snapshot as UsdcState;
  }

  executionGas(data: Hex): bigint {
    const selector = data.slice(0, 10);
    const fn = this.selectorNames.get(selector);
    switch (fn) {
      case "transferWithAuthorization":
      case "receiveWithAuthorization":
        return 60_000n;
      case "cancelAuthorization":
        return 35_000n;
      case "transfer":
      case "transferFrom":
      case "approve":
        return 30_000n;
      default:
        return 3_000n;
    }
  }

  private readonly selectorNames = new Map<string, string>(
    usdcAbi
      .filter((item) => item.type === "function")
      .map((item) => {
        const sig = `${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
        return [keccak256(toHex(sig)).slice(0, 10), item.name] as const;
      }),
  );

  async call(frame: CallFrame): Promise<Hex> {
    if (frame.value !== 0n) throw new ExecutionReverted("0x");
    let decoded: UsdcCall;
    try {
      decoded = decodeFunctionData({ abi: usdcAbi, data: frame.data });
    } catch {
      // Unknown selector or malformed arguments: FiatToken has no fallback.
      throw new ExecutionReverted("0x");
    }
    switch (decoded.functionName) {
      case "transfer":
        this.transfer(frame, frame.sender, decoded.args[0], decoded.args[1]);
        return result("transfer", true);
      case "approve":
        return this.approve(frame, decoded);
      case "transferFrom":
        return this.transferFrom(frame, decoded);
      case "transferWithAuthorization":
      case "receiveWithAuthorization":
        return this.useAuthorization(frame, decoded);
      case "cancelAuthorization":
        return this.cancelAuthorization(frame, decoded);
      default:
        return this.view(decoded);
    }
  }

  /** The read-only functions: metadata, balances and allowances, the EIP-712 domain and type hashes, nonce states. */
  private view(decoded: Exclude<UsdcCall, CallOf<WriteFunction>>): Hex {
    switch (decoded.functionName) {
      case "name":
        return result("name", this.options.name);
      case "symbol":
        return result("symbol", this.options.symbol);
      case "currency":
        return result("currency", "USD");
      case "decimals":
        return result("decimals", this.options.decimals);
      case "version":
        return result("version", this.options.version);
      case "totalSupply":
        return result("totalSupply", this.state.totalSupply);
      case "balanceOf":
        return result("balanceOf", this.balanceOf(decoded.args[0]));
      case "allowance":
        return result("allowance", this.state.allowances.get(`${lower(decoded.args[0])}:${lower(decoded.args[1])}`) ?? 0n);
      case "DOMAIN_SEPARATOR":
        return result("DOMAIN_SEPARATOR", domainSeparator({ domain: this.domain }));
      case "TRANSFER_WITH_AUTHORIZATION_TYPEHASH":
        return result(
          "TRANSFER_WITH_AUTHORIZATION_TYPEHASH",
          typeHash(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        );
      case "RECEIVE_WITH_AUTHORIZATION_TYPEHASH":
        return result(
          "RECEIVE_WITH_AUTHORIZATION_TYPEHASH",
          typeHash(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
          ),
        );
      case "CANCEL_AUTHORIZATION_TYPEHASH":
        return result("CANCEL_AUTHORIZATION_TYPEHASH", typeHash("CancelAuthorization(address authorizer,bytes32 nonce)"));
      case "authorizationState":
        return result("authorizationState", this.authorizationState(decoded.args[0], decoded.args[1]));
    }
  }

  private approve(frame: CallFrame, decoded: CallOf<"approve">): Hex {
    const [spender, value] = decoded.args;
    if (lower(spender) === lower(ZERO_ADDRESS)) revert("ERC20: approve to the zero address");
    this.state.allowances.set(`${lower(frame.sender)}:${lower(spender)}`, value);
    this.emit(frame, "Approval", { owner: frame.sender, spender }, encodeAbiParameters([{ type: "uint256" }], [value]));
    return result("approve", true);
  }

  private transferFrom(frame: CallFrame, decoded: CallOf<"transferFrom">): Hex {
    const [from, to, value] = decoded.args;
    const key = `${lower(from)}:${lower(frame.sender)}`;
    const allowed = this.state.allowances.get(key) ?? 0n;
    if (value > allowed) revert("ERC20: transfer amount exceeds allowance");
    this.transfer(frame, from, to, value);
    this.state.allowances.set(key, allowed - value);
    return result("transferFrom", true);
  }

  /** transferWithAuthorization / receiveWithAuthorization (EIP-3009), either signature form. */
  private async useAuthorization(frame: CallFrame, decoded: CallOf<"transferWithAuthorization" | "receiveWithAuthorization">): Promise<Hex> {
    const args = decoded.args;
    const [from, to, value, validAfter, validBefore, nonce] = args;
    const signature = args.length === 9 ? packSignature(args[6], args[7], args[8]) : args[6];
    const primaryType = decoded.functionName === "transferWithAuthorization" ? "TransferWithAuthorization" : "ReceiveWithAuthorization";
    if (primaryType === "ReceiveWithAuthorization" && lower(to) !== lower(frame.sender)) {
      revert("FiatTokenV2: caller must be the payee");
    }
    // Order and messages as in FiatTokenV2_2._transferWithAuthorization.
    if (!(frame.timestamp > validAfter)) revert("FiatTokenV2: authorization is not yet valid");
    if (!(frame.timestamp < validBefore)) revert("FiatTokenV2: authorization is expired");
    this.requireUnused(from, nonce);
    const digest = hashTypedData({
      domain: this.domain,
      types: usdcTypes,
      primaryType,
      message: { from, to, value, validAfter, validBefore, nonce },
    });
    await this.requireValidSignature(frame, from, digest, signature);
    this.state.authorizations.add(`${lower(from)}:${lower(nonce)}`);
    this.emit(frame, "AuthorizationUsed", { authorizer: from, nonce }, "0x");
    this.transfer(frame, from, to, value);
    return "0x";
  }

  private async cancelAuthorization(frame: CallFrame, decoded: CallOf<"cancelAuthorization">): Promise<Hex> {
    const args = decoded.args;
    const [authorizer, nonce] = args;
    const signature = args.length === 5 ? packSignature(args[2], args[3], args[4]) : args[2];
    this.requireUnused(authorizer, nonce);
    const digest = hashTypedData({
      domain: this.domain,
      types: usdcTypes,
      primaryType: "CancelAuthorization",
      message: { authorizer, nonce },
    });
    await this.requireValidSignature(frame, authorizer, digest, signature);
    this.state.authorizations.add(`${lower(authorizer)}:${lower(nonce)}`);
    this.emit(frame, "AuthorizationCanceled", { authorizer, nonce }, "0x");
    return "0x";
  }

  private requireUnused(authorizer: Address, nonce: Hex): void {
    if (this.authorizationState(authorizer, nonce)) revert("FiatTokenV2: authorization is used or canceled");
  }

  /** SignatureChecker.isValidSignatureNow: ECRecover for EOAs; contracts here implement no EIP-1271. */
  private async requireValidSignature(frame: CallFrame, signer: Address, digest: Hex, signature: Hex): Promise<void> {
    if (frame.chain.getCode(signer) !== "0x") revert("FiatTokenV2: invalid signature");
    if (size(signature) !== 65) revert("ECRecover: invalid signature length");
    const s = hexToBigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130, 132), 16);
    if (s > SECP256K1_HALF_N) revert("ECRecover: invalid signature 's' value");
    if (v !== 27 && v !== 28) revert("ECRecover: invalid signature 'v' value");
    let signerOf: Address;
    try {
      signerOf = recoverSigner(digest, signature, signer);
    } catch {
      revert("ECRecover: invalid signature");
    }
    if (lower(signerOf) !== lower(signer)) revert("FiatTokenV2: invalid signature");
  }

  private transfer(frame: CallFrame, from: Address, to: Address, value: bigint): void {
    if (lower(from) === lower(ZERO_ADDRESS)) revert("ERC20: transfer from the zero address");
    if (lower(to) === lower(ZERO_ADDRESS)) revert("ERC20: transfer to the zero address");
    const balance = this.balanceOf(from);
    if (value > balance) revert("ERC20: transfer amount exceeds balance");
    this.state.balances.set(lower(from), balance - value);
    this.state.balances.set(lower(to), this.balanceOf(to) + value);
    this.emit(frame, "Transfer", { from, to }, encodeAbiParameters([{ type: "uint256" }], [value]));
  }

  private emit(
    frame: CallFrame,
    eventName: "Transfer" | "Approval" | "AuthorizationUsed" | "AuthorizationCanceled",
    indexed: Record<string, unknown>,
    data: Hex,
  ): void {
    const topics = encodeEventTopics({ abi: usdcAbi as Abi, eventName, args: indexed }) as Hex[];
    frame.emit({ topics, data });
  }
}

function packSignature(v: number, r: Hex, s: Hex): Hex {
  return concat([r, s, numberToHex(v, { size: 1 })]);
}
