/**
 * Simulated private block builder endpoints on loopback, one JSON-RPC server
 * each, answering what a builder's RPC answers to a searcher:
 * `eth_sendBundle` ({txs, blockNumber} → {bundleHash}) and
 * `eth_sendRawTransaction` (→ the transaction hash). Each transaction is
 * decoded and its sender recovered, as a builder does before it simulates;
 * an undecodable one is refused (-32602). A builder can be set to refuse
 * everything (tests: one of two refusing). Every submission is recorded with
 * the X-Flashbots-Signature address it carried, if any.
 */
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex, type TransactionSerialized } from "viem";
import { JsonRpcError, startJsonRpcServer, type JsonRpcServer } from "./jsonrpc-server.js";

export interface BuilderSubmission {
  method: "eth_sendBundle" | "eth_sendRawTransaction";
  txs: string[];
  blockNumber: string | null;
  /** Address part of X-Flashbots-Signature, or null when unsigned. */
  signer: string | null;
}

export interface DevnetBuilder {
  name: string;
  url: string;
  /** `#raw` builders take eth_sendRawTransaction in the relay's configuration. */
  method: "eth_sendBundle" | "eth_sendRawTransaction";
  received: BuilderSubmission[];
  setRefusing(refusing: boolean): void;
}

export interface DevnetPrivateBuilders {
  builders: DevnetBuilder[];
  /** PRIVATE_RELAY_BUILDERS for the app. */
  setting: string;
  byName(name: string): DevnetBuilder;
  close(): Promise<void>;
}

/** The devnet's builders: one taking bundles, one taking raw transactions. */
export const DEVNET_PRIVATE_BUILDERS = [
  { name: "sim-bundles", method: "eth_sendBundle" },
  { name: "sim-raw", method: "eth_sendRawTransaction" },
] as const;

async function checkTx(raw: unknown): Promise<string> {
  if (typeof raw !== "string" || !/^0x([0-9a-fA-F]{2})+$/.test(raw)) throw new JsonRpcError(-32602, "transaction must be 0x-hex");
  try {
    parseTransaction(raw as Hex);
    await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
  } catch {
    throw new JsonRpcError(-32602, "transaction does not decode");
  }
  return keccak256(raw as Hex);
}

export async function startDevnetPrivateBuilders(opts: { host?: string } = {}): Promise<DevnetPrivateBuilders> {
  const servers: JsonRpcServer[] = [];
  const builders: DevnetBuilder[] = [];
  for (const spec of DEVNET_PRIVATE_BUILDERS) {
    let refusing = false;
    let signer: string | null = null;
    const received: BuilderSubmission[] = [];
    const refuseIfSet = () => {
      if (refusing) throw new JsonRpcError(-32000, `${spec.name} is not accepting transactions`);
    };
    const server = await startJsonRpcServer({
      host: opts.host,
      port: 0,
      maxBodyBytes: 2 * 1024 * 1024,
      intercept: (req) => {
        const header = req.headers["x-flashbots-signature"];
        signer = typeof header === "string" ? (header.split(":")[0]?.toLowerCase() ?? null) : null;
        return undefined;
      },
      rpc: {
        methods: {
          params: "positional",
          table: {
            eth_sendBundle: async (p) => {
              refuseIfSet();
              const b = p[0] as { txs?: unknown; blockNumber?: unknown } | undefined;
              if (!b || !Array.isArray(b.txs) || b.txs.length === 0 || typeof b.blockNumber !== "string") throw new JsonRpcError(-32602, "bundle needs txs and blockNumber");
              const hashes = await Promise.all(b.txs.map(checkTx));
              received.push({ method: "eth_sendBundle", txs: b.txs as string[], blockNumber: b.blockNumber, signer });
              return { bundleHash: keccak256(`0x${hashes.map((h) => h.slice(2)).join("")}${BigInt(b.blockNumber).toString(16).padStart(16, "0")}` as Hex) };
            },
            eth_sendRawTransaction: async (p) => {
              refuseIfSet();
              const hash = await checkTx(p[0]);
              received.push({ method: "eth_sendRawTransaction", txs: [p[0] as string], blockNumber: null, signer });
              return hash;
            },
          },
        },
      },
    });
    servers.push(server);
    builders.push({ name: spec.name, url: server.url, method: spec.method, received, setRefusing: (r) => void (refusing = r) });
  }
  return {
    builders,
    setting: builders.map((b) => `${b.name}=${b.url}${b.method === "eth_sendRawTransaction" ? "#raw" : ""}`).join(","),
    byName: (name) => {
      const b = builders.find((x) => x.name === name);
      if (!b) throw new Error(`no devnet builder ${name}`);
      return b;
    },
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
