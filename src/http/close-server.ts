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

/**
 * How long an idle keep-alive connection stays open: longer than the idle
 * timeouts of the clients and proxies in front of the service (undici and
 * Node's fetch 4 s, load balancers commonly 60 s), so the client side closes
 * first. With Node's default of 5 s, a client whose event loop ran a little
 * late sent its next request on a connection the server had just closed, and
 * got ECONNRESET for a request the service never saw. Shutdown still closes
 * idle connections at once (closeServer).
 */
export const KEEP_ALIVE_MS = 65_000;

/** Sets the service's keep-alive (KEEP_ALIVE_MS) on a server; headers must still arrive within a second more. */
export function keepConnections<S extends ServerType>(server: S): S {
  const http = server as Server;
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}

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
