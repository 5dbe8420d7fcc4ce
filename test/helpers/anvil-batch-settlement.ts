/**
 * x402's batch-settlement contracts, the real ones, on an anvil node: the
 * escrow (x402BatchSettlement) and its ERC-3009 deposit collector, from the
 * compiled artifacts vendored in test/vectors/x402-batch-settlement/.
 *
 * They are deployed as on a public chain, through the standard CREATE2
 * deployer (present on anvil at start) with the salts and constructor
 * arguments of deployment.json, and each must land at the canonical address
 * @x402/evm hard-codes. Copying runtime code with anvil_setCode would not do:
 * both contracts hold immutables (the escrow its EIP-712 domain, the
 * collector the escrow's address) that only their constructors write.
 */
import fs from "node:fs";
import path from "node:path";
import { type Abi, type Address, type Hex, concat, encodeAbiParameters, getAddress, getContractAddress } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { AnvilNode } from "./anvil.js";

const VECTORS = path.resolve(import.meta.dirname, "..", "vectors", "x402-batch-settlement");

export interface ContractArtifact {
  contractName: string;
  abi: Abi;
  /** Creation code, without constructor arguments. */
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface Deployment {
  create2Deployer: Address;
  contracts: { name: string; salt: Hex; address: Address }[];
}

function readVector<T>(file: string): T {
  return JSON.parse(fs.readFileSync(path.join(VECTORS, file), "utf8")) as T;
}

export const ESCROW_ARTIFACT = readVector<ContractArtifact>("x402BatchSettlement.json");
export const ERC3009_COLLECTOR_ARTIFACT = readVector<ContractArtifact>("ERC3009DepositCollector.json");
const DEPLOYMENT = readVector<Deployment>("deployment.json");

function placement(name: string): { salt: Hex; address: Address } {
  const entry = DEPLOYMENT.contracts.find((c) => c.name === name);
  if (!entry) throw new Error(`deployment.json names no ${name}`);
  return { salt: entry.salt, address: getAddress(entry.address) };
}

/** Sends salt ‖ init code to the CREATE2 deployer and checks the contract is where CREATE2 and deployment.json both say. */
async function deployCreate2(node: AnvilNode, from: PrivateKeyAccount, name: string, initCode: Hex): Promise<Address> {
  const { salt, address } = placement(name);
  const deployer = getAddress(DEPLOYMENT.create2Deployer);
  const predicted = getContractAddress({ opcode: "CREATE2", from: deployer, salt, bytecode: initCode });
  if (predicted !== address) throw new Error(`${name}: CREATE2 gives ${predicted}, deployment.json says ${address}`);
  if ((await node.client.getCode({ address: deployer })) === undefined) throw new Error("anvil has no CREATE2 deployer at its standard address");
  const hash = await node.wallet(from).sendTransaction({ account: from, chain: node.chain, to: deployer, data: concat([salt, initCode]) });
  const receipt = await node.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`deploying ${name} through the CREATE2 deployer reverted`);
  const code = await node.client.getCode({ address });
  if (!code || code === "0x") throw new Error(`${name}: no code at ${address} after its deployment`);
  return address;
}

/**
 * Deploys the escrow, then the ERC-3009 collector bound to it, at their
 * canonical addresses; `from` pays the gas. Throws if either lands anywhere
 * else or leaves no code.
 */
export async function installBatchSettlement(node: AnvilNode, from: PrivateKeyAccount): Promise<{ escrow: Address; collector: Address }> {
  const escrow = await deployCreate2(node, from, "x402BatchSettlement", ESCROW_ARTIFACT.bytecode);
  const collectorInit = concat([ERC3009_COLLECTOR_ARTIFACT.bytecode, encodeAbiParameters([{ type: "address" }], [escrow])]);
  const collector = await deployCreate2(node, from, "ERC3009DepositCollector", collectorInit);
  return { escrow, collector };
}
