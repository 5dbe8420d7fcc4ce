/**
 * A TCP proxy on loopback that a test can cut, to play a database outage
 * without stopping the machine's shared PostgreSQL: the processes under test
 * connect to the proxy, the proxy to the real server. `cut()` destroys every
 * open connection (both sides) and stops listening, so new connections are
 * refused; `reopen()` listens again on the same port.
 */
import net from "node:net";

export interface TcpProxy {
  readonly port: number;
  /** Connections open through the proxy now. */
  open(): number;
  /** Connections accepted since start. */
  accepted(): number;
  cut(): Promise<void>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let accepted = 0;
  const onConnection = (client: net.Socket) => {
    accepted++;
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  let server = net.createServer(onConnection);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const { client, upstream } of [...pairs]) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    await closed;
  };
  return {
    port,
    open: () => pairs.size,
    accepted: () => accepted,
    cut,
    reopen: async () => {
      server = net.createServer(onConnection);
      await listen(port);
    },
    close: async () => {
      if (server.listening) await cut();
    },
  };
}
