/**
 * Shutdown of the HTTP servers: requests in flight finish, idle keep-alive
 * connections are closed at once, and a client that holds a connection with
 * a half-sent request cannot hold the shutdown past the drain time.
 */
import { describe, expect, it } from "vitest";
import http from "node:http";
import net from "node:net";
import { closeServer } from "../../src/http/close-server.js";
import { startTestApp } from "../helpers/app.js";

const listen = (server: http.Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));

/** A socket that sends the start of a request and never the rest; resolves when the server closes it. */
function halfRequest(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  const opened = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.on("connect", () => socket.write("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
  socket.on("error", () => {});
  return { opened, closed };
}

describe("closing the HTTP server", () => {
  it("lets a request in flight finish, and cuts a half-sent request at the drain time", async () => {
    const server = http.createServer((_req, res) => setTimeout(() => res.end("done"), 300));
    const port = await listen(server);
    const agent = new http.Agent({ keepAlive: true });
    // An idle keep-alive connection: a finished request whose socket stays in the agent's pool.
    const slowGet = () =>
      new Promise<string>((resolve, reject) =>
        http.get({ port, host: "127.0.0.1", agent }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve(body));
        }).on("error", reject),
      );
    expect(await slowGet()).toBe("done");
    const half = halfRequest(port);
    await half.opened;
    const inFlight = slowGet();
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const closing = closeServer(server, 1_000);
    expect(await inFlight).toBe("done");
    const halfClosedAt = await half.closed;
    await closing;
    const took = Date.now() - started;
    expect(halfClosedAt - started).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(10_000);
    agent.destroy();
  });

  it("the app's close does not wait on a client that never finishes its request", async () => {
    const t = await startTestApp({}, { shutdownDrainMs: 500 });
    const port = Number(new URL(t.url).port);
    const half = halfRequest(port);
    await half.opened;
    const started = Date.now();
    await t.close();
    await half.closed;
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("keeps an idle keep-alive connection open past Node's 5 s default, so a client that reuses it late gets its answer", async () => {
    const t = await startTestApp({});
    try {
      const port = Number(new URL(t.url).port);
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => {});
      let received = "";
      socket.on("data", (c) => (received += c.toString("latin1")));
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      let isClosed = false;
      void closed.then(() => (isClosed = true));
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      const answers = () => received.split("HTTP/1.1 200").length - 1;
      const get = async (n: number) => {
        socket.write(`GET /v1/paywall HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
        for (let i = 0; i < 200 && answers() < n; i++) await new Promise((r) => setTimeout(r, 25));
        return answers();
      };
      expect(await get(1)).toBe(1);
      // Idle for longer than Node's default keep-alive timeout (5 s): the server keeps the connection.
      await new Promise((r) => setTimeout(r, 6_500));
      expect(isClosed).toBe(false);
      expect(await get(2)).toBe(2);
      socket.destroy();
    } finally {
      await t.close();
    }
  });
});
