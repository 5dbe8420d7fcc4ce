/** USDC on the two networks Vigil advertises. The EIP-712 domain name differs per chain. */
export interface UsdcAsset {
  network: "eip155:8453" | "eip155:84532";
  chainId: number;
  asset: `0x${string}`;
  /** EIP-712 domain name and version of the token contract. */
  name: string;
  version: string;
  decimals: 6;
}

export const USDC: Record<UsdcAsset["network"], UsdcAsset> = {
  "eip155:8453": {
    network: "eip155:8453",
    chainId: 8453,
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    name: "USD Coin",
    version: "2",
    decimals: 6,
  },
  "eip155:84532": {
    network: "eip155:84532",
    chainId: 84532,
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    name: "USDC",
    version: "2",
    decimals: 6,
  },
};
