/**
 * Account state of the devnet's Ethereum L1, beside its blocks: nonces,
 * ether balances, contract code and storage, and the transaction hashes the
 * node knows. It answers eth_getTransactionCount, eth_getBalance, eth_getCode,
 * eth_getStorageAt and eth_getTransactionByHash; tests and the devnet set the
 * state through the hooks. It has no mempool: eth_sendRawTransaction is not
 * served, so nothing the private relay does can reach a public mempool here.
 */
import { JsonRpcError } from "./jsonrpc-server.js";

export interface DevnetAccounts {
  setNonce(address: string, nonce: bigint): void;
  setEthBalance(address: string, wei: bigint): void;
  setCode(address: string, code: string): void;
  setStorage(address: string, slot: bigint, value: bigint): void;
  /** The node now knows this transaction (as if mined or seen in its pool). */
  markKnown(hash: string, tx?: Record<string, unknown>): void;
  methods: Record<string, (params: unknown[]) => unknown>;
}

const addr = (v: unknown): string => {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new JsonRpcError(-32602, "invalid address");
  return v.toLowerCase();
};
const hex = (v: bigint) => `0x${v.toString(16)}`;

export function createDevnetAccounts(): DevnetAccounts {
  const nonces = new Map<string, bigint>();
  const balances = new Map<string, bigint>();
  const code = new Map<string, string>();
  const storage = new Map<string, bigint>();
  const known = new Map<string, Record<string, unknown>>();
  return {
    setNonce: (a, n) => nonces.set(a.toLowerCase(), n),
    setEthBalance: (a, w) => balances.set(a.toLowerCase(), w),
    setCode: (a, c) => code.set(a.toLowerCase(), c.toLowerCase()),
    setStorage: (a, slot, v) => storage.set(`${a.toLowerCase()}:${slot}`, v),
    markKnown: (h, tx) => known.set(h.toLowerCase(), { hash: h.toLowerCase(), ...tx }),
    methods: {
      eth_getTransactionCount: (p) => hex(nonces.get(addr(p[0])) ?? 0n),
      eth_getBalance: (p) => hex(balances.get(addr(p[0])) ?? 0n),
      eth_getCode: (p) => code.get(addr(p[0])) ?? "0x",
      eth_getStorageAt: (p) => {
        const a = addr(p[0]);
        if (typeof p[1] !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(p[1])) throw new JsonRpcError(-32602, "invalid storage slot");
        return `0x${(storage.get(`${a}:${BigInt(p[1])}`) ?? 0n).toString(16).padStart(64, "0")}`;
      },
      eth_getTransactionByHash: (p) => {
        if (typeof p[0] !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(p[0])) throw new JsonRpcError(-32602, "invalid transaction hash");
        return known.get(p[0].toLowerCase()) ?? null;
      },
    },
  };
}
