/**
 * The one loopback HTTP server under every simulated upstream of the devnet
 * that speaks JSON-RPC (the EVM node, monerod). It binds 127.0.0.1 on a free
 * port by default and answers:
 *
 *   1. `intercept` first, when given (tests inject failures there);
 *   2. a plain route `"<METHOD> <path>"` with the JSON object of its body
 *      (monerod's /get_info, /get_transactions, the devnet's /devnet/send …);
 *   3. JSON-RPC 2.0 on `rpc.path` (or on any POST path when none is given):
 *      single requests and, when `rpc.maxBatch` is set, batches, answered in
 *      order; notifications get no answer (204 when nothing is left);
 *   4. otherwise 405 for a method other than POST, 404 for a path.
 *
 * Invariants: a JSON-RPC failure is always an HTTP 200 carrying an error
 * object (parse error -32700, invalid request -32600, unknown method -32601,
 * bad params -32602, a handler's JsonRpcError as thrown, anything else
 * -32603); an observer (`onCall`) never changes an answer; a body over
 * `maxBodyBytes` is refused with 413 before it is parsed.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";

/** A JSON-RPC error as the server answers it (code, message, optional data). */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/** Thrown by a plain route to answer with another status than 200. */
export class HttpReply extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
    this.name = "HttpReply";
  }
}

export type JsonRpcId = string | number | null;

/** Positional params (Ethereum: `params` is an array) or named ones (monerod: an object). */
export type JsonRpcMethods =
  | { params: "positional"; table: Readonly<Record<string, (params: unknown[]) => unknown>> }
  | { params: "named"; table: Readonly<Record<string, (params: Record<string, unknown>) => unknown>> };

export interface JsonRpcOptions {
  /** The JSON-RPC path; absent: every POST path that is not a plain route. */
  path?: string;
  methods: JsonRpcMethods;
  /** Largest batch accepted; absent: batches are refused as invalid requests. */
  maxBatch?: number;
  /** monerod answers a request without `id` with this id; absent: such a request is a notification. */
  idWhenMissing?: JsonRpcId;
  /** Message of the -32601 error for an unknown method. */
  unknownMethodMessage?: (method: string) => string;
  /** Sees every well-formed call before it runs (request counting); its failures are ignored. */
  onCall?: (method: string, params: unknown) => void;
  /** Runs every method call (the EVM node serialises them); default: call directly. */
  run?: <T>(call: () => Promise<T>) => Promise<T>;
}

export type PlainRoute = (body: Record<string, unknown>, url: URL) => unknown;

export interface JsonRpcServerOptions {
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  maxBodyBytes: number;
  rpc: JsonRpcOptions;
  /** Plain JSON routes, keyed "METHOD /path"; a POST body is parsed as a JSON object ({} when empty or not an object). */
  routes?: Readonly<Record<string, PlainRoute>>;
  /** Answers before anything else when it returns a reply (the request body is discarded). */
  intercept?: (req: http.IncomingMessage) => { status: number; body: unknown } | undefined;
  /** Adds permissive CORS headers and answers OPTIONS preflights (browser wallets talk to the EVM node). */
  cors?: boolean;
  /** Serialises answers; default JSON.stringify (monerod writes u64 as bare integers). */
  stringify?: (body: unknown) => string;
  log?: Logger;
}

export interface JsonRpcServer {
  url: string;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: unknown; result: unknown }
  | { jsonrpc: "2.0"; id: unknown; error: { code: number; message: string; data?: unknown } };

const failure = (id: unknown, code: number, message: string, data?: unknown): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

/** Answers one parsed JSON-RPC message (a request or a batch); undefined when nothing is owed (notifications). */
export async function answerJsonRpc(message: unknown, o: JsonRpcOptions): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  const missingId = o.idWhenMissing === undefined ? null : o.idWhenMissing;
  if (Array.isArray(message)) {
    if (o.maxBatch === undefined) return failure(missingId, -32600, "invalid request: batches are not supported");
    if (message.length === 0 || message.length > o.maxBatch) {
      return failure(missingId, -32600, `batch must hold 1..${o.maxBatch} requests`);
    }
    const out: JsonRpcResponse[] = [];
    // In order, one at a time: a batch is a script, later calls may depend on earlier ones.
    for (const item of message) {
      const r = await answerOne(item, o, missingId);
      if (r) out.push(r);
    }
    return out.length ? out : undefined;
  }
  return answerOne(message, o, missingId);
}

async function answerOne(req: unknown, o: JsonRpcOptions, missingId: JsonRpcId): Promise<JsonRpcResponse | undefined> {
  if (!req || typeof req !== "object" || Array.isArray(req)) return failure(missingId, -32600, "invalid request");
  const r = req as JsonRpcRequest;
  const isNotification = !("id" in r) && o.idWhenMissing === undefined;
  const id = r.id ?? missingId;
  if (typeof r.method !== "string") return failure(id, -32600, "invalid request: missing method");
  const method = r.method;
  let call: (() => unknown) | undefined;
  let params: unknown;
  if (o.methods.params === "positional") {
    const positional = r.params === undefined ? [] : r.params;
    if (!Array.isArray(positional)) return failure(id, -32602, "params must be an array");
    params = positional;
    const fn = Object.hasOwn(o.methods.table, method) ? o.methods.table[method] : undefined;
    call = fn && (() => fn(positional));
  } else {
    const named = r.params && typeof r.params === "object" && !Array.isArray(r.params) ? (r.params as Record<string, unknown>) : {};
    params = named;
    const fn = Object.hasOwn(o.methods.table, method) ? o.methods.table[method] : undefined;
    call = fn && (() => fn(named));
  }
  try {
    o.onCall?.(method, params);
  } catch {
    // An observer's failure must not change what the server answers.
  }
  if (!call) {
    if (isNotification) return undefined;
    return failure(id, -32601, o.unknownMethodMessage?.(method) ?? "Method not found");
  }
  try {
    const result = await (o.run ? o.run(async () => call()) : Promise.resolve().then(call));
    return isNotification ? undefined : { jsonrpc: "2.0", id, result };
  } catch (err) {
    if (isNotification) return undefined;
    if (err instanceof JsonRpcError) return failure(id, err.code, err.message, err.data);
    return failure(id, -32603, `internal error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Reads the body up to `limit` bytes; null when it is larger (the rest is drained, not kept). */
function readBody(req: http.IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) tooLarge = true;
      else chunks.push(c);
    });
    req.on("end", () => resolve(tooLarge ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startJsonRpcServer(options: JsonRpcServerOptions): Promise<JsonRpcServer> {
  const { rpc, routes = {}, log } = options;
  const stringify = options.stringify ?? ((b: unknown) => JSON.stringify(b));

  const handle = async (req: http.IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const url = new URL(req.url ?? "/", "http://loopback");
    const route = routes[`${req.method} ${url.pathname}`];
    const isRpc = req.method === "POST" && !route && (rpc.path === undefined || rpc.path === url.pathname);
    if (!route && !isRpc) {
      req.resume();
      if (req.method !== "POST") throw new HttpReply(405, { error: "use POST" });
      throw new HttpReply(404, { error: "not found" });
    }
    const text = await readBody(req, options.maxBodyBytes);
    if (text === null) {
      return isRpc
        ? { status: 413, body: failure(rpc.idWhenMissing ?? null, -32600, "request body too large") }
        : { status: 413, body: { error: "body too large" } };
    }
    if (isRpc) {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return { status: 200, body: failure(rpc.idWhenMissing ?? null, -32700, "parse error") };
      }
      return { status: 200, body: await answerJsonRpc(message, rpc) };
    }
    let body: Record<string, unknown> = {};
    if (text.trim() !== "") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new HttpReply(400, { error: "invalid JSON" });
      }
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    }
    return { status: 200, body: await route!(body, url) };
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      if (body === undefined) {
        // Only notifications were sent: nothing is owed.
        res.writeHead(status === 200 ? 204 : status).end();
        return;
      }
      const text = stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    };
    if (options.cors) {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", "content-type");
      if (req.method === "OPTIONS") {
        req.resume();
        res.writeHead(204).end();
        return;
      }
    }
    const intercepted = options.intercept?.(req);
    if (intercepted) {
      req.resume();
      reply(intercepted.status, intercepted.body);
      return;
    }
    handle(req).then(
      (r) => reply(r.status, r.body),
      (e: unknown) => {
        if (e instanceof HttpReply) reply(e.status, e.body);
        else {
          log?.error({ err: e }, "devnet request failed");
          reply(500, { error: "internal error" });
        }
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
