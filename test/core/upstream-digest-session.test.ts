/**
 * Regression: Vigil could not talk to a real monerod behind `--rpc-login`.
 *
 * monerod's HTTP server (epee) keeps a digest session per TCP connection: a
 * request whose nonce was issued on another connection is answered 401
 * `stale=true` with a fresh nonce for this one. The upstream client sent its
 * requests over a pool of up to 16 kept-alive connections sharing one
 * nonce, so the answer to a challenge usually left on a different socket
 * than the challenge came from: every call ended in "authentication
 * challenge repeated" (502 chain_rpc_failed) although the credentials were
 * right. Found by the real-node suite (test/real/monero-regtest-node.test.ts).
 * The server below plays epee's rule; the client must get every call
 * through, one after another and several at once.
 */
import http from "node:http";
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamClient } from "../../src/core/upstream.js";

const md5 = (x: string) => createHash("md5").update(x).digest("hex");

/** A digest server that, like epee, binds each nonce to the connection it was issued on. */
function epeeLikeServer(user: string, pass: string) {
  const nonceOf = new WeakMap<Socket, string>();
  const sockets = new Set<Socket>();
  let stale = 0;
  const s = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const h = req.headers.authorization ?? "";
      const p: Record<string, string> = {};
      for (const m of h.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) p[m[1]!] = m[2] ?? m[3] ?? "";
      const mine = nonceOf.get(req.socket);
      const ha1 = md5(`${user}:node:${pass}`);
      const expected = md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${md5(`${req.method}:${p.uri}`)}`);
      if (h.startsWith("Digest ") && mine !== undefined && p.nonce === mine && p.response === expected) {
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":1}');
        return;
      }
      const isStale = h.startsWith("Digest ") && p.nonce !== mine;
      if (isStale) stale++;
      const nonce = randomBytes(12).toString("base64");
      nonceOf.set(req.socket, nonce);
      res.writeHead(401, { "www-authenticate": `Digest qop="auth",algorithm=MD5,realm="node",nonce="${nonce}",stale=${isStale}` }).end();
    });
  });
  s.on("connection", (c) => {
    sockets.add(c);
    c.on("close", () => sockets.delete(c));
  });
  return {
    listen: () => new Promise<string>((r) => s.listen(0, "127.0.0.1", () => r(`127.0.0.1:${(s.address() as AddressInfo).port}`))),
    staleAnswers: () => stale,
    close: () => {
      for (const c of sockets) c.destroy();
      return new Promise<void>((r) => s.close(() => r()));
    },
  };
}

describe("UpstreamClient against a server with a digest session per connection (monerod --rpc-login)", () => {
  const server = epeeLikeServer("vigil", "s3cret");
  let hostPort: string;
  beforeAll(async () => {
    hostPort = await server.listen();
  });
  afterAll(() => server.close());

  it("gets every call through, one after another and ten at once, without a retry", async () => {
    const retries: string[] = [];
    const c = new UpstreamClient({
      url: `http://vigil:s3cret@${hostPort}`,
      name: "Test node",
      failureCode: "chain_rpc_failed",
      notConfigured: { code: "chain_not_configured", message: "No test node.", details: { chain: "test" } },
      attempts: 3,
      sleep: async () => {},
      onRetry: (i) => retries.push(i.error),
    });
    try {
      for (let i = 0; i < 5; i++) expect(await c.json({ path: "/json_rpc", body: { i }, idempotent: true })).toEqual({ ok: 1 });
      const many = await Promise.all(Array.from({ length: 10 }, (_, i) => c.json({ path: "/json_rpc", body: { i }, idempotent: true })));
      expect(many).toEqual(Array.from({ length: 10 }, () => ({ ok: 1 })));
      expect(retries).toEqual([]);
      expect(server.staleAnswers()).toBe(0);
    } finally {
      await c.close();
    }
  });
});
