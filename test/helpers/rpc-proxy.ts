/**
 * A loopback JSON-RPC proxy in front of a node (the devnet's chain), for the facilitator's tests of
 * lost answers: every request reaches the node; `answer(method)` then decides what the client gets:
 * the node's answer ("send", after the promise settles) or none at all ("lose": the socket is cut).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export async function startRpcProxy(target: string, answer: (method: string) => Promise<"send" | "lose">): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const method = (JSON.parse(body) as { method?: string }).method ?? "";
        const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
        const text = await upstream.text();
        if ((await answer(method)) === "lose") {
          req.socket.destroy();
          return;
        }
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

