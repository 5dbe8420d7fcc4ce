/**
 * A Penny Oracle question: one declaration per /v1/q/* path. The registry
 * turns each into a paid route in the route table (price $0.001), lists it in
 * GET /v1/q, answers it through the free MCP dispatcher `service_q`, caches
 * answers 10 s per (question, params) and adds `as_of_ms`. Declarations live
 * in oracle/questions/<chain>.ts and call the chain's plain fact functions.
 */
import type { z } from "zod";

export interface QuestionParam {
  name: string;
  required: boolean;
  description: string;
  /** Allowed values when the parameter is an enumeration. */
  allowed?: readonly string[];
  default?: string;
  /** Human hint about the unit or format, e.g. "0x-address" or "minutes". */
  format?: string;
  /** Free-text parameters: what a value may be (checked before payment; published in OpenAPI). */
  pattern?: { regex: RegExp; message: string };
  /** Longest value accepted (default 200). */
  maxLength?: number;
}

export interface QuestionDef<P extends Record<string, string | undefined> = Record<string, string | undefined>> {
  /** Path below /v1/q/, e.g. "xmr/height". */
  path: string;
  summary: string;
  /** Which upstream answers it; used for per-chain availability. */
  source: "monero" | "zcash" | "ethereum" | "relays" | "lending" | "internal";
  params: readonly QuestionParam[];
  /** Schema of the flat JSON answer (without as_of_ms, which the registry adds to it). */
  answer: z.ZodObject;
  /**
   * A realistic call for catalogues and agents (the bazaar extension of the
   * 402): parameters and the answer they get, without as_of_ms (the registry
   * adds it). Mainnet-like values; test/http/route-examples.test.ts holds
   * every paid route to one, accepted by the schemas.
   */
  example?: { params?: Record<string, string>; answer: Record<string, unknown> };
  /**
   * Refuses parameters the schema cannot judge alone (e.g. an asset not in a
   * catalogue) with a 400, before payment and before the cache.
   */
  check?: (params: P) => void;
  /** Whether the source is configured/reachable right now (for the catalogue). */
  available: () => boolean;
  /**
   * Computes the answer. Throws ServiceError 503 (e.g. `chain_not_configured`)
   * or 502 (`chain_rpc_failed`) when the source is down: never stale data.
   */
  answerQuestion: (params: P, signal?: AbortSignal) => Promise<Record<string, unknown>>;
}
