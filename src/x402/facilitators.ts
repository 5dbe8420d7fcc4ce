/** Builds the facilitator client for the configured mode. */
import { HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/http";

export const CDP_FACILITATOR_URL = "https://api.cdp.coinbase.com/platform/v2/x402";

export type FacilitatorSettings =
  | { mode: "cdp"; apiKeyId?: string; apiKeySecret?: string }
  | { mode: "http"; url: string }
  | {
      mode: "local";
      rpcUrl: string;
      privateKey: `0x${string}` | readonly `0x${string}`[];
      network: "eip155:8453" | "eip155:84532";
      /** Bound on the settlement's receipt wait (createLocalFacilitator's default when absent); no config key sets it yet. */
      confirmationTimeoutMs?: number;
    };

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
      const { rpcUrl, privateKey, network, confirmationTimeoutMs } = s;
      return { client: createLocalFacilitator({ rpcUrl, privateKey, network, ...(confirmationTimeoutMs ? { confirmationTimeoutMs } : {}) }), label: "local" };
    }
  }
}

/**
 * Start-up sanity: asks the facilitator's /supported once and refuses to
 * start when it does not settle x402 v2 `exact` payments on the configured
 * network (every paid call would fail at verification). A facilitator that
 * cannot be reached at start-up is only warned about: it may come back, and
 * until then paid calls answer 502 facilitator_unavailable and charge nothing.
 * Returns the schemes it settles on the network, or null when it could not
 * be asked.
 */
export async function checkFacilitatorSupport(
  client: FacilitatorClient,
  network: string,
  label: string,
  log: { warn(obj: object, msg: string): void },
): Promise<string[] | null> {
  let kinds: { x402Version: number; scheme: string; network: string }[];
  try {
    kinds = (await client.getSupported()).kinds ?? [];
  } catch (e) {
    log.warn({ facilitator: label, err: (e as Error).message }, "the facilitator's /supported could not be read at start-up; paid calls fail until it answers");
    return null;
  }
  const schemes = kinds.filter((k) => k.x402Version === 2 && k.network === network).map((k) => k.scheme);
  if (schemes.includes("exact")) return schemes;
  const offered = kinds.map((k) => `v${k.x402Version} ${k.scheme} on ${k.network}`).join(", ") || "nothing";
  throw new Error(
    `The facilitator ${label} does not support x402 v2 "exact" payments on ${network} (its /supported lists: ${offered}). ` +
      "Set X402_NETWORK to a network it supports, or configure another facilitator (FACILITATOR_MODE, FACILITATOR_URL).",
  );
}
