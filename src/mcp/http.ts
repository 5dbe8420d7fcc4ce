/**
 * MCP over Streamable HTTP, stateless with JSON responses: every POST gets a
 * fresh server and transport (a stateless transport serves one request), so
 * any API process answers any call. Mounted at /mcp of the API app and, with
 * MCP_PORT, at / and /mcp of a small app of its own that shares the API's
 * middleware (request id, CORS, general per-IP limit, body limit). Every
 * method on the endpoint first passes the Origin and Host check of
 * `origin-guard.ts` (DNS-rebinding protection): a refused request gets 403
 * and a JSON-RPC error, and reaches no server.
 */
import { Hono, type Context } from "hono";
import type { Logger } from "pino";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { RateLimiter } from "../core/rate-limit.js";
import { installMiddleware } from "../http/middleware.js";
import { installFallbacks } from "../http/fallbacks.js";
import type { HttpEnv } from "../http/respond.js";
import type { McpService } from "./server.js";
import { serverCard } from "./card.js";
import { refusalBody } from "./origin-guard.js";

export const MCP_PATH = "/mcp";
export const SERVER_CARD_PATH = "/.well-known/mcp/server-card.json";

/** Answers one Streamable HTTP POST (JSON-RPC messages; the answer is JSON, not an event stream). */
export async function handleMcpRequest(service: McpService, request: Request, caller: { requestId: string; ip: string; log: Logger }): Promise<Response> {
  const server = service.server(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    // The answer is already complete in JSON mode; Cache-Control because a tool result may carry secrets shown once.
    response.headers.set("Cache-Control", "no-store");
    return response;
  } finally {
    await server.close();
  }
}

/** The 403 for a request whose Origin or Host the service does not serve MCP to, or undefined to go on. */
function refused(service: McpService, c: Context<HttpEnv>): Response | undefined {
  const verdict = service.httpAccess({ origin: c.req.header("origin"), host: c.req.header("host") });
  if (verdict.allowed) return undefined;
  c.get("log").info({ reason: verdict.reason, origin: c.req.header("origin"), host: c.req.header("host") }, "MCP request refused (DNS-rebinding protection)");
  return c.json(refusalBody(verdict), 403);
}

/** Mounts the MCP endpoint at `paths` of an app that has the shared middleware. */
export function mountMcp(app: Hono<HttpEnv>, service: McpService, paths: readonly string[] = [MCP_PATH]): void {
  for (const path of paths) {
    // Stateless: no server-sent event stream to open (GET) and no session to end (DELETE).
    app.on(["GET", "DELETE"], path, (c) =>
      refused(service, c) ??
      c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; POST JSON-RPC messages." }, id: null }, 405, {
        Allow: "POST",
      }),
    );
    app.post(path, async (c) => {
      const refusal = refused(service, c);
      if (refusal) return refusal;
      const res = await handleMcpRequest(service, c.req.raw, { requestId: c.get("requestId"), ip: c.get("ip"), log: c.get("log") });
      // Through the context, so the headers the middleware prepared (CORS) are kept.
      return c.newResponse(res.body, res);
    });
  }
}

export interface McpAppDeps {
  service: McpService;
  log: Logger;
  trustProxyHops: number;
  generalLimiter: RateLimiter;
  /** The URL this app is reached at (read per request: known once it listens). */
  site: { baseUrl: string };
}

/** The MCP server alone (MCP_PORT): Streamable HTTP at / and /mcp, and its server card. */
export function buildMcpApp(deps: McpAppDeps): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  installMiddleware(app, { log: deps.log, trustProxyHops: deps.trustProxyHops, generalLimiter: deps.generalLimiter });
  app.get(SERVER_CARD_PATH, (c) => c.json(serverCard(deps.service, `${deps.site.baseUrl}/mcp`), 200, { "Cache-Control": "public, max-age=300" }));
  mountMcp(app, deps.service, ["/", MCP_PATH]);
  installFallbacks(app, []);
  return app;
}
