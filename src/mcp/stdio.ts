/**
 * `vigil mcp`: the MCP server on standard input/output for desktop agents.
 * In-process, it serves the tools of this process's app; pointed at a
 * running API, it relays every JSON-RPC message to that API's /mcp, so the
 * agent talks to the same server (and the same payments) as HTTP clients.
 * Nothing but MCP messages may reach stdout: logs go to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { mcpServerOver, type McpService } from "./server.js";

export interface StdioHandle {
  /** Resolves when the client closes standard input. */
  closed: Promise<void>;
  close(): Promise<void>;
}

function onClosed(transport: StdioServerTransport): Promise<void> {
  return new Promise((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
}

/**
 * Serves this process's tools over stdio. The service may still be starting
 * (a promise): `initialize` is answered at once, tool calls when it is ready.
 */
export async function serveMcpStdio(
  service: McpService | Promise<McpService>,
  version: string,
  log: Logger,
  opts: { onInitialized?: () => void } = {},
): Promise<StdioHandle> {
  const transport = new StdioServerTransport();
  const server = mcpServerOver(version, service, { ip: "stdio", log });
  if (opts.onInitialized) server.oninitialized = opts.onInitialized;
  const closed = onClosed(transport);
  process.stdin.once("end", () => void server.close());
  await server.connect(transport);
  return { closed, close: () => server.close() };
}

/** The /mcp endpoint of an API given by its base URL or its MCP URL. */
export function mcpEndpoint(url: string): URL {
  const u = new URL(url);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/mcp";
  return u;
}

/** Relays stdio to the Streamable HTTP endpoint of a running API. */
export async function proxyMcpStdio(url: string, log: Logger): Promise<StdioHandle> {
  const upstream = new StreamableHTTPClientTransport(mcpEndpoint(url));
  const local = new StdioServerTransport();
  const closed = onClosed(local);
  const fail = (message: JSONRPCMessage, err: unknown) => {
    log.warn({ err: (err as Error).message }, "MCP relay: the API did not answer");
    if (isJSONRPCRequest(message)) {
      void local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: `The Vigil API at ${url} did not answer: ${(err as Error).message}` } });
    }
  };
  local.onmessage = (message) => {
    upstream.send(message).catch((err: unknown) => fail(message, err));
  };
  upstream.onmessage = (message) => {
    void local.send(message);
  };
  upstream.onerror = (err) => log.warn({ err: err.message }, "MCP relay error");
  await upstream.start();
  await local.start();
  process.stdin.once("end", () => void local.close());
  return {
    closed,
    close: async () => {
      await local.close();
      await upstream.close();
    },
  };
}
