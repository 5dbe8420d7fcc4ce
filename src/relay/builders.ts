/**
 * The private builder endpoints the relay fans out to (PRIVATE_RELAY_BUILDERS:
 * `name=url`, `name=url#raw`), and one submission to one builder.
 *
 * Methods (docs/private-relay.md): `eth_sendBundle` (the default, the one
 * every builder RPC accepts) sends a one-transaction bundle for each of the
 * next `targetBlocks` blocks; `eth_sendRawTransaction` (`#raw`) sends the
 * transaction once, for builders whose RPC takes it privately. Requests are
 * signed with X-Flashbots-Signature (`address:signature`, an EIP-191
 * signature of the hex keccak256 of the body) when a signing key is set.
 * A submission is never retried here: a send is not idempotent on the wire.
 */
import { keccak256, toHex, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { UpstreamClient, UpstreamError, describeError } from "../core/upstream.js";

export type BuilderMethod = "eth_sendBundle" | "eth_sendRawTransaction";

export interface BuilderEndpoint {
  name: string;
  /** As configured (it may carry an API key: never shown). */
  url: string;
  /** Origin and path only (shown in /v1/private-relay/info). */
  publicUrl: string;
  method: BuilderMethod;
}

/** PRIVATE_RELAY_BUILDERS → endpoints; throws on a malformed entry. */
export function parsePrivateBuilders(setting: string | undefined): BuilderEndpoint[] {
  const out: BuilderEndpoint[] = [];
  for (const entry of (setting ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = entry.indexOf("=");
    const name = entry.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new Error(`private builder entry must be name=url: ${name || "(no name)"}`);
    const u = new URL(entry.slice(eq + 1));
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`private builder URL must be http(s): ${u.protocol}`);
    const method: BuilderMethod = u.hash === "#raw" ? "eth_sendRawTransaction" : "eth_sendBundle";
    if (u.hash !== "" && u.hash !== "#raw" && u.hash !== "#bundle") throw new Error(`private builder ${name}: unknown method ${u.hash}`);
    u.hash = "";
    if (out.some((b) => b.name === name)) throw new Error(`two private builders named ${name}`);
    out.push({ name, url: u.toString(), publicUrl: `${u.origin}${u.pathname}`.replace(/\/$/, ""), method });
  }
  return out;
}

export interface Submission {
  builder: string;
  method: BuilderMethod;
  accepted: boolean;
  /** Target blocks the builder accepted the bundle for (eth_sendBundle). */
  blocks: { block: string; accepted: boolean; error?: string }[];
  /** The builder's answer: bundle hash or transaction hash. */
  reply: string | null;
  /** Why it refused or could not be reached. */
  error: string | null;
}

export class BuilderClient {
  readonly endpoint: BuilderEndpoint;
  private readonly client: UpstreamClient;
  private readonly signer: PrivateKeyAccount | null;
  private id = 0;

  constructor(endpoint: BuilderEndpoint, opts: { signingKey?: string; timeoutMs?: number } = {}) {
    this.endpoint = endpoint;
    this.signer = opts.signingKey ? privateKeyToAccount(opts.signingKey as Hex) : null;
    this.client = new UpstreamClient({
      url: endpoint.url,
      name: `private builder ${endpoint.name}`,
      failureCode: "private_relay_failed",
      notConfigured: { code: "private_relay_not_configured", message: "No private builder is configured (PRIVATE_RELAY_BUILDERS)." },
      timeoutMs: opts.timeoutMs ?? 5_000,
      attempts: 1,
      maxResponseBytes: 256 * 1024,
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** One JSON-RPC call, signed when a key is set; returns the result or throws (UpstreamError). */
  private async call(method: string, params: unknown[]): Promise<unknown> {
    const body = { jsonrpc: "2.0", id: ++this.id, method, params };
    const headers: Record<string, string> = {};
    if (this.signer) {
      const digest = keccak256(toHex(JSON.stringify(body)));
      headers["x-flashbots-signature"] = `${this.signer.address}:${await this.signer.signMessage({ message: digest })}`;
    }
    const reply = (await this.client.json({ path: "", body, idempotent: false, call: method, headers })) as Record<string, unknown> | null;
    if (reply && typeof reply === "object" && reply.error) {
      const e = reply.error as { message?: unknown; code?: unknown };
      throw new UpstreamError("private_relay_failed", `refused: ${typeof e.message === "string" ? e.message.slice(0, 200) : "error"}`, { rpcCode: e.code });
    }
    if (!reply || typeof reply !== "object" || !("result" in reply)) throw new UpstreamError("private_relay_failed", "malformed answer", {});
    return reply.result;
  }

  /** Sends the transaction; never throws (the outcome says what happened). */
  async submit(raw: string, nextBlock: bigint, targetBlocks: number): Promise<Submission> {
    const base = { builder: this.endpoint.name, method: this.endpoint.method };
    const why = (e: unknown) => (e instanceof UpstreamError ? e.message : describeError(e)).replace(/^private builder \S+ /, "");
    if (this.endpoint.method === "eth_sendRawTransaction") {
      try {
        const result = await this.call("eth_sendRawTransaction", [raw]);
        return { ...base, accepted: true, blocks: [], reply: typeof result === "string" ? result : null, error: null };
      } catch (e) {
        return { ...base, accepted: false, blocks: [], reply: null, error: why(e) };
      }
    }
    const blocks: Submission["blocks"] = [];
    let reply: string | null = null;
    const targets = Array.from({ length: targetBlocks }, (_, i) => nextBlock + BigInt(i));
    const outcomes = await Promise.all(
      targets.map(async (n) => {
        try {
          const r = (await this.call("eth_sendBundle", [{ txs: [raw], blockNumber: `0x${n.toString(16)}` }])) as { bundleHash?: unknown } | null;
          return { n, ok: true as const, hash: r && typeof r.bundleHash === "string" ? r.bundleHash : null };
        } catch (e) {
          return { n, ok: false as const, error: why(e) };
        }
      }),
    );
    for (const o of outcomes) {
      blocks.push(o.ok ? { block: o.n.toString(), accepted: true } : { block: o.n.toString(), accepted: false, error: o.error });
      if (o.ok && reply === null) reply = o.hash;
    }
    const accepted = outcomes.some((o) => o.ok);
    const error = accepted ? null : (outcomes.find((o) => !o.ok) as { error: string } | undefined)?.error ?? "refused";
    return { ...base, accepted, blocks, reply, error };
  }
}
