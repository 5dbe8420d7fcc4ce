/**
 * The devnet's x402 facilitator: an HTTP service on loopback speaking the
 * facilitator API as @x402/core's HTTPFacilitatorClient calls it, as a
 * hosted facilitator (Coinbase's CDP) is called in production:
 *
 *   GET  /supported → {kinds, extensions, signers}
 *   POST /verify    {x402Version, paymentPayload, paymentRequirements} → VerifyResponse
 *   POST /settle    the same body → SettleResponse
 *
 * Its work is the project's own local facilitator (src/x402/local-facilitator.ts)
 * against the devnet's Base Sepolia chain, with the devnet's facilitator gas
 * key: the verification and settlement a service in `local` mode does itself,
 * moved into the devnet's process. A payment it refuses is a 200 carrying
 * isValid:false / success:false and the reason. A request that is not a
 * facilitator request — invalid JSON, no paymentPayload or
 * paymentRequirements object, a payload or requirements not of the x402
 * shape, a top-level x402Version other than the payload's — is a 400
 * {error: reason}; a chain it cannot reach is a 502, anything unexpected a
 * 500, each with {error}. Tests make it fail: "http503" (every request
 * answers 503), "garbage" (a 200 that is no facilitator answer), "hang"
 * (nothing is answered).
 */
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import { parsePaymentPayload, PaymentRequirementsV1Schema, PaymentRequirementsV2Schema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { createLocalFacilitator, LocalFacilitatorRpcError, type LocalFacilitatorNetwork } from "../src/x402/local-facilitator.js";
import { HttpReply, startJsonRpcServer } from "./jsonrpc-server.js";
import { DEVNET_NETWORK } from "./evm-network.js";

export type FacilitatorFailure = null | "http503" | "garbage" | "hang";
export type FacilitatorEndpoint = "supported" | "verify" | "settle";

export interface DevnetFacilitatorOptions {
  host?: string;
  port?: number;
  /** The JSON-RPC of the chain it settles on (the devnet's EVM node). */
  rpcUrl: string;
  /** The key that pays the settlements' gas, or several (the local facilitator spreads settlements over them). */
  privateKey: Hex | readonly Hex[];
  /** Default: the devnet's network, Base Sepolia. */
  network?: LocalFacilitatorNetwork;
  /** Bound on a settlement's receipt wait; the local facilitator's default when absent. */
  confirmationTimeoutMs?: number;
  log?: Logger;
}

export interface DevnetFacilitator {
  /** The FACILITATOR_URL of a service in `http` mode. */
  url: string;
  /** The gas-paying address (listed under signers in /supported). */
  address: Address;
  network: LocalFacilitatorNetwork;
  /** Requests that reached each endpoint (injected failures are not counted). */
  calls: Record<FacilitatorEndpoint, number>;
  /** Makes every request fail in the given way (null: healthy again). */
  setFailure(mode: FacilitatorFailure): void;
  close(): Promise<void>;
}

/** A payment request is a few kilobytes; anything far larger is refused before it is parsed. */
const MAX_BODY_BYTES = 64 * 1024;
/** How long a hanging facilitator holds a request (past any client's deadline). */
const HANG_MS = 60_000;

export interface PaymentRequest {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const badRequest = (reason: string) => new HttpReply(400, { error: reason });

/** The first problem a schema found, as "where: what". */
function firstIssue(where: string, error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  return `${[where, ...(issue?.path ?? []).map(String)].join(".")}: ${issue?.message ?? "invalid"}`;
}

/** The body of /verify and /settle checked against the x402 shapes; anything else is refused with a 400 naming the problem. */
export function paymentRequest(body: Record<string, unknown>): PaymentRequest {
  const { x402Version, paymentPayload, paymentRequirements } = body;
  if (!isObject(paymentPayload) || !isObject(paymentRequirements)) {
    throw badRequest("the body must be a JSON object with x402Version and the objects paymentPayload and paymentRequirements");
  }
  const payload = parsePaymentPayload(paymentPayload);
  if (!payload.success) throw badRequest(firstIssue("paymentPayload", payload.error));
  if (x402Version !== payload.data.x402Version) throw badRequest(`x402Version must be the payment payload's (${payload.data.x402Version})`);
  const schema = payload.data.x402Version === 1 ? PaymentRequirementsV1Schema : PaymentRequirementsV2Schema;
  const requirements = schema.safeParse(paymentRequirements);
  if (!requirements.success) throw badRequest(firstIssue("paymentRequirements", requirements.error));
  // The objects as sent, not as parsed: the schemas drop fields the facilitator still reads.
  return { payload: paymentPayload as unknown as PaymentPayload, requirements: paymentRequirements as unknown as PaymentRequirements };
}

/** A facilitator operation's answer; its throws become the status a hosted facilitator answers them with. */
async function answered<T>(operation: "verify" | "settle", run: () => Promise<T>, log: Logger | undefined): Promise<T> {
  try {
    return await run();
  } catch (e) {
    // The chain behind it is unreachable: a gateway failure, not a verdict on the payment.
    if (e instanceof LocalFacilitatorRpcError) throw new HttpReply(502, { error: e.message });
    log?.error({ err: e }, `devnet facilitator ${operation} failed`);
    throw new HttpReply(500, { error: `${operation} failed: ${e instanceof Error ? e.message : String(e)}` });
  }
}

export async function startDevnetFacilitator(opts: DevnetFacilitatorOptions): Promise<DevnetFacilitator> {
  const network = opts.network ?? DEVNET_NETWORK;
  const facilitator = createLocalFacilitator({
    rpcUrl: opts.rpcUrl,
    privateKey: opts.privateKey,
    network,
    ...(opts.confirmationTimeoutMs ? { confirmationTimeoutMs: opts.confirmationTimeoutMs } : {}),
  });
  const failure = { mode: null as FacilitatorFailure };
  const calls: Record<FacilitatorEndpoint, number> = { supported: 0, verify: 0, settle: 0 };
  const held = new Set<NodeJS.Timeout>();

  /** The injected failure, if any; else the request is counted. "garbage" answers for the endpoint. */
  const guard = async (endpoint: FacilitatorEndpoint): Promise<"garbage" | undefined> => {
    if (failure.mode === "http503") throw new HttpReply(503, { error: "facilitator unavailable" });
    if (failure.mode === "hang") {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => (held.delete(t), resolve()), HANG_MS);
        t.unref();
        held.add(t);
      });
    }
    if (failure.mode === "garbage") return "garbage";
    calls[endpoint]++;
    return undefined;
  };
  const garbage = "<html><body>502 Bad Gateway</body></html>";

  const server = await startJsonRpcServer({
    host: opts.host ?? "127.0.0.1",
    port: opts.port ?? 0,
    maxBodyBytes: MAX_BODY_BYTES,
    log: opts.log,
    // No JSON-RPC here: the facilitator API is plain routes.
    rpc: { path: "/rpc", methods: { params: "named", table: {} } },
    routes: {
      "GET /supported": async () => ((await guard("supported")) ? garbage : facilitator.getSupported()),
      "POST /verify": async (body) => {
        if (await guard("verify")) return garbage;
        const { payload, requirements } = paymentRequest(body);
        return answered("verify", () => facilitator.verify(payload, requirements), opts.log);
      },
      "POST /settle": async (body) => {
        if (await guard("settle")) return garbage;
        const { payload, requirements } = paymentRequest(body);
        return answered("settle", () => facilitator.settle(payload, requirements), opts.log);
      },
    },
  });
  return {
    url: server.url,
    address: facilitator.address,
    network,
    calls,
    setFailure: (mode) => void (failure.mode = mode),
    close: async () => {
      for (const t of held) clearTimeout(t);
      await server.close();
    },
  };
}
