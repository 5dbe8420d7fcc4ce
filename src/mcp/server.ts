/**
 * The MCP server over the route table. `createMcpService` builds, once, the
 * published tools and the limiters; `server(caller)` makes an SDK `Server`
 * that lists those tools and serves calls for one caller (a stateless HTTP
 * request, or the stdio client). The transports live in `http.ts` and
 * `stdio.ts`.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createRateLimiter } from "../core/rate-limit.js";
import { ServiceError, errorBody } from "../core/errors.js";
import type { Database } from "../db/types.js";
import type { Paywall } from "../x402/paywall.js";
import { httpRoutes, type TableEntry } from "../http/route-table.js";
import { createRateLimiters, type RateLimitSettings } from "../http/rate-limits.js";
import { callTool, type CallDeps, type CallerInfo } from "./call.js";
import { publishedTools, type PublishedTool } from "./tools.js";
import { mcpAccessCheck, type McpAccessCheck, type McpAccessSettings } from "./origin-guard.js";

export const MCP_SERVER_NAME = "vigil";

export interface McpServiceDeps {
  table: readonly TableEntry[];
  paywall: Paywall;
  db: Database;
  log: Logger;
  site: { baseUrl: string };
  version: string;
  /** The store of the HTTP limiters: a route's own limit counts calls from both transports where the store is shared. */
  rateLimits: RateLimitSettings;
  /** Free dispatcher (service_q) calls per client per minute. */
  dispatchPerMinute: number;
  /** Which Origin and Host headers the HTTP transport serves (origin-guard.ts). */
  access: McpAccessSettings;
}

/** Who a server serves: an HTTP request (its request id), or a stdio client (a fresh id per call). */
export type ServerCaller = Omit<CallerInfo, "requestId"> & { requestId?: string };

/**
 * An SDK `Server` for one caller whose tools come from `service`, which may
 * still be starting: `initialize` is answered at once (it needs nothing but
 * the name, version and capabilities), tools/list and tools/call wait for
 * the service. `vigil mcp` on stdio answers a client within its start-up
 * timeout this way while the app opens its database and upstreams.
 */
export function mcpServerOver(version: string, service: McpService | Promise<McpService>, caller: ServerCaller): Server {
  const s = new Server(
    { name: MCP_SERVER_NAME, version, title: "Vigil" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Vigil watches Monero and Zcash addresses with view keys and sends signed webhooks, and answers single chain facts. " +
        "Free tools answer at once; paid tools answer an unpaid call with x402 PaymentRequired terms (isError) and take the signed " +
        'payment in _meta["x402/payment"]. service_q asks any oracle question for free (rate-limited per client).',
    },
  );
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await service).tools.map((t) => t.tool) }));
  // A stdio client makes many calls on one connection: each gets its own request id (for the logs and internal_error).
  s.setRequestHandler(CallToolRequestSchema, async (req) =>
    (await service).call(req.params.name, req.params.arguments, req.params._meta, { ...caller, requestId: caller.requestId ?? randomUUID() }),
  );
  return s;
}

export interface McpService {
  tools: readonly PublishedTool[];
  version: string;
  /** A server for one caller, with the tools registered. */
  server(caller: ServerCaller): Server;
  /** The Origin/Host check every HTTP request to the endpoint passes first (stdio has neither). */
  httpAccess: McpAccessCheck;
  /** Calls one tool directly (the same path as a tools/call request). */
  call(name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, caller: CallerInfo): Promise<CallToolResult>;
}

export function createMcpService(deps: McpServiceDeps): McpService {
  // The tools' JSON Schemas are built on first use (a tools/list, a call, the server card), not at start-up:
  // a quarter of a second of zod work that an API process which never sees an MCP client does not pay.
  let built: { tools: readonly PublishedTool[]; byName: Map<string, PublishedTool> } | undefined;
  const published = () => {
    if (!built) {
      const tools = publishedTools(deps.table, { freeDispatchPerMinute: deps.dispatchPerMinute, channel: deps.paywall.terms?.channel });
      built = { tools, byName: new Map(tools.map((t) => [t.tool.name, t])) };
    }
    return built;
  };
  const callDeps: CallDeps = {
    paywall: deps.paywall,
    db: deps.db,
    site: deps.site,
    limiters: createRateLimiters(httpRoutes(deps.table), deps.rateLimits),
    dispatchLimiter: createRateLimiter(deps.rateLimits.store, "rl_mcp_dispatch", deps.dispatchPerMinute, 60),
    dispatchPerMinute: deps.dispatchPerMinute,
  };

  async function call(name: string, args: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, caller: CallerInfo): Promise<CallToolResult> {
    const { byName } = published();
    const tool = byName.get(name);
    if (!tool) {
      const err = new ServiceError("not_found", `No tool "${name}". tools/list names every tool.`, { tools: [...byName.keys()] });
      return { isError: true, content: [{ type: "text", text: JSON.stringify(errorBody(err)) }], _meta: { "vigil/status": 404 } };
    }
    return callTool(callDeps, tool, args, meta, caller);
  }

  const service: McpService = {
    get tools() {
      return published().tools;
    },
    version: deps.version,
    server: (caller) => mcpServerOver(deps.version, service, caller),
    httpAccess: mcpAccessCheck(deps.access),
    call,
  };
  return service;
}
