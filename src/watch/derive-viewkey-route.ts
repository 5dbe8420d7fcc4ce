/**
 * POST /v1/private/derive-viewkey — free, 6 per minute per IP (enforced by the
 * router from rateLimit): a Zcash seed phrase in, the account's viewing keys out.
 * The phrase lives in this call's memory only: never logged, stored or echoed.
 */
import { z } from "zod";
import { defineRoute } from "../http/route-table.js";
import { deriveViewingKeys, warmUpZcashKeys } from "../chains/zcash/derive.js";
import { MAX_ACCOUNT } from "../chains/zcash/zip32.js";
import type { ZcashNetwork } from "../chains/zcash/network.js";

/** Longest accepted phrase field: 24 words of at most 8 letters plus generous whitespace. */
export const MAX_PHRASE_LENGTH = 1000;

const phraseField = z.string().max(MAX_PHRASE_LENGTH);

/**
 * The input, with `network` defaulting to the service's own Zcash network
 * (ZCASH_NETWORK, as read from the node at start-up): on a testnet service a
 * caller who names no network gets the keys of the wallets this service
 * watches, not mainnet keys it could never scan. An explicit `network` wins.
 */
export function deriveViewkeyInputFor(serviceNetwork: ZcashNetwork) {
  return z
    .object({
      chain: z.literal("zcash"),
      seed: phraseField.optional().describe("BIP-39 English mnemonic, 12 or 24 words. Never logged, stored or echoed."),
      phrase: phraseField.optional().describe("Alias of `seed`."),
      account: z.number().int().min(0).max(MAX_ACCOUNT).default(0).describe("ZIP-32 account index."),
      network: z
        .enum(["mainnet", "testnet", "regtest"])
        .default(serviceNetwork)
        .describe(`Zcash network of the keys; default: this service's network (${serviceNetwork}).`),
    })
    .refine((v) => v.seed !== undefined || v.phrase !== undefined, { message: "`seed` (or its alias `phrase`) is required", path: ["seed"] })
    .refine((v) => v.seed === undefined || v.phrase === undefined, { message: "give `seed` or `phrase`, not both", path: ["phrase"] });
}

/** The input of a mainnet service. */
export const deriveViewkeyInput = deriveViewkeyInputFor("mainnet");

export const deriveViewkeyOutput = z.object({
  chain: z.literal("zcash"),
  network: z.enum(["mainnet", "testnet", "regtest"]),
  account: z.number().int(),
  ufvk: z.string(),
  uivk: z.string(),
  saplingExtendedFvk: z.string(),
  transparentAccountXpub: z.string(),
  transparentAccountPubkey: z.string(),
  defaultAddress: z.string(),
  diversifierIndex: z.number().int(),
  defaultSaplingAddress: z.string(),
  defaultTransparentAddress: z.string(),
  warning: z.string(),
});

/**
 * Builds the Zcash curve tables so that the first derive-viewkey call costs
 * what every later one does (see docs/zcash-keys.md, "Performance"): the
 * watch module's warm-up, run once the API listens. Best effort: a failure
 * only means the first request builds the tables itself.
 */
export function warmUpDeriveViewkey(): void {
  try {
    warmUpZcashKeys();
  } catch {
    // the first request builds them
  }
}

/** The route of a service on `serviceNetwork` (the app passes ZCASH_NETWORK). */
export function deriveViewkeyRouteFor(serviceNetwork: ZcashNetwork) {
  return defineRoute({
    method: "POST",
    path: "/v1/private/derive-viewkey",
    operationId: "deriveViewkey",
    summary: "Derive a Zcash unified full viewing key (and Sapling/transparent viewing keys) from a seed phrase",
    description:
      "Free, 6 requests per minute per IP. Returns the account's UFVK, UIVK, Sapling extended FVK, transparent account xpub and default unified address. " +
      "The phrase is used in memory for this request only: never logged, stored or echoed. Deriving offline with `npx vigil zcash derive-ufvk` is safer.",
    tags: ["private-watch", "zcash"],
    mcpTool: "service_private_watch_derive_viewkey",
    input: deriveViewkeyInputFor(serviceNetwork),
    inputAlternatives: { sets: [["seed"], ["phrase"]], exactlyOne: true },
    output: deriveViewkeyOutput,
    rateLimit: { points: 6, windowSeconds: 60 },
    handler: async (input) => deriveViewingKeys({ mnemonic: (input.seed ?? input.phrase)!, account: input.account, network: input.network }),
  });
}

/** The route of a mainnet service. */
export const deriveViewkeyRoute = deriveViewkeyRouteFor("mainnet");
