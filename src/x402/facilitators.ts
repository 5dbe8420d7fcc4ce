/** Builds the facilitator client for the configured mode. */
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/http";

export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

export type FacilitatorSettings =
  | { mode: "cdp"; apiKeyId?: string; apiKeySecret?: string }
  | { mode: "http"; url: string }
  | { mode: "local"; rpcUrl: string; privateKey: `0x${string}`; network: "eip155:8453" | "eip155:84532" };

export interface ConfiguredFacilitator {
  client: FacilitatorClient;
  /** What GET /v1/paywall shows as `facilitator`. */
  label: string;
}

export async function createFacilitator(s: FacilitatorSettings): Promise<ConfiguredFacilitator> {
  switch (s.mode) {
    case "cdp": {
      // Loaded only in this mode: the CDP SDK is heavy.
      const { createFacilitatorConfig } = await import("@coinbase/x402");
      const cfg = createFacilitatorConfig(s.apiKeyId, s.apiKeySecret);
      return { client: new HTTPFacilitatorClient({ ...cfg, timeoutMs: 30_000 }), label: cfg.url ?? CDP_FACILITATOR_URL };
    }
    case "http":
      return { client: new HTTPFacilitatorClient({ url: s.url, timeoutMs: 30_000 }), label: s.url };
    case "local": {
      const { createLocalFacilitator } = await import("./local-facilitator.js");
      return { client: createLocalFacilitator({ rpcUrl: s.rpcUrl, privateKey: s.privateKey, network: s.network }), label: "local" };
    }
  }
}
