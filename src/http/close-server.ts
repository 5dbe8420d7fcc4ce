/**
 * Closing an HTTP server on shutdown: stop accepting, close the idle
 * keep-alive connections at once, let requests in flight finish, and after
 * `drainMs` close whatever is still open (a client that holds a connection
 * with a half-sent request, or a slow reader), so a shutdown never waits on
 * a client forever.
 */
import type { ServerType } from "@hono/node-server";
import type { Server } from "node:http";

/** How long a shutdown lets requests in flight finish before it closes their connections. */
export const SHUTDOWN_DRAIN_MS = 10_000;

export function closeServer(server: ServerType, drainMs = SHUTDOWN_DRAIN_MS): Promise<void> {
  const http = server as Server;
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => http.closeAllConnections?.(), drainMs);
    force.unref();
    http.close(() => {
      clearTimeout(force);
      resolve();
    });
    http.closeIdleConnections?.();
  });
}
