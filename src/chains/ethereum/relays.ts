/**
 * The MEV-Boost relay data API (flashbots/relay-specs `apis/relay/data`):
 *   GET {relay}/relay/v1/data/bidtraces/proposer_payload_delivered?limit=&cursor=
 *   GET {relay}/relay/v1/data/bidtraces/builder_blocks_received?slot=
 * Every number in a row is a JSON string. The parsers are pure and strict: a
 * page that is not a list of well-formed rows is refused whole (the relay
 * answered garbage), never half-read. The client goes through the one
 * upstream client (timeouts, capped bodies, retries with jitter).
 */
import { z } from "zod";
import { UpstreamClient } from "../../core/upstream.js";

/** Beacon chain genesis (Unix s) and slot length: slot time = genesis + 12 × slot. */
export const BEACON_GENESIS_S = 1_606_824_023;
export const SLOT_SECONDS = 12;
export const slotTime = (slot: number): number => BEACON_GENESIS_S + SLOT_SECONDS * slot;
export const slotAt = (unixS: number): number => Math.floor((unixS - BEACON_GENESIS_S) / SLOT_SECONDS);

export const DELIVERED_PATH = "/relay/v1/data/bidtraces/proposer_payload_delivered";
export const RECEIVED_PATH = "/relay/v1/data/bidtraces/builder_blocks_received";
/** Rows per page asked of proposer_payload_delivered (bloXroute relays cap at 100). */
export const PAGE_LIMIT = 100;

export interface BidTrace {
  slot: number;
  blockNumber: number;
  blockHash: string;
  parentHash: string;
  builderPubkey: string;
  proposerPubkey: string;
  proposerFeeRecipient: string;
  gasLimit: bigint;
  gasUsed: bigint;
  /** Wei paid to the proposer's fee recipient, as the relay claims it. */
  value: bigint;
  numTx: number;
}

export interface ReceivedBid extends BidTrace {
  timestampMs: number | null;
}

const uintString = z.string().regex(/^\d{1,78}$/);
const smallUint = z.string().regex(/^\d{1,15}$/).transform(Number);
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((s) => s.toLowerCase());
const pubkey = z.string().regex(/^0x[0-9a-fA-F]{96}$/).transform((s) => s.toLowerCase());
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase());

const traceRow = z.object({
  slot: smallUint,
  parent_hash: hash,
  block_hash: hash,
  builder_pubkey: pubkey,
  proposer_pubkey: pubkey,
  proposer_fee_recipient: address,
  gas_limit: uintString.transform(BigInt),
  gas_used: uintString.transform(BigInt),
  value: uintString.transform(BigInt),
  block_number: smallUint,
  num_tx: smallUint,
});

const receivedRow = traceRow.extend({
  timestamp_ms: smallUint.optional(),
});

function toTrace(r: z.infer<typeof traceRow>): BidTrace {
  return {
    slot: r.slot,
    blockNumber: r.block_number,
    blockHash: r.block_hash,
    parentHash: r.parent_hash,
    builderPubkey: r.builder_pubkey,
    proposerPubkey: r.proposer_pubkey,
    proposerFeeRecipient: r.proposer_fee_recipient,
    gasLimit: r.gas_limit,
    gasUsed: r.gas_used,
    value: r.value,
    numTx: r.num_tx,
  };
}

/** Why a page was refused (first problem only; no body echoed). */
export class RelayGarbage extends Error {}

function parsePage<T extends z.ZodType>(body: unknown, row: T, what: string): z.infer<T>[] {
  if (!Array.isArray(body)) throw new RelayGarbage(`${what}: expected a JSON list, got ${body === null ? "null" : typeof body}`);
  return body.map((r, i) => {
    const p = row.safeParse(r);
    if (!p.success) throw new RelayGarbage(`${what}[${i}]: ${p.error.issues[0]?.path.join(".") ?? ""} ${p.error.issues[0]?.message ?? "invalid"}`.trim());
    return p.data;
  });
}

/** A proposer_payload_delivered page → its rows; throws RelayGarbage for anything else. */
export function parseDelivered(body: unknown): BidTrace[] {
  return parsePage(body, traceRow, "proposer_payload_delivered").map(toTrace);
}

/** A builder_blocks_received page → its rows; throws RelayGarbage for anything else. */
export function parseReceived(body: unknown): ReceivedBid[] {
  return parsePage(body, receivedRow, "builder_blocks_received").map((r) => ({ ...toTrace(r), timestampMs: r.timestamp_ms ?? null }));
}

export interface RelayEndpoint {
  /** Source id shown in data-freshness: "relay:<name>". */
  id: string;
  /** Base URL without credentials (safe to show). */
  url: string;
}

/**
 * Parses RELAY_URLS: comma-separated `url` or `name=url`. A mev-boost style
 * `https://0x<pubkey>@host` has its pubkey part dropped (the data API needs
 * none). The id is "relay:<name>", the name defaulting to the host.
 */
export function parseRelayUrls(setting: string | undefined): RelayEndpoint[] {
  if (!setting) return [];
  const out: RelayEndpoint[] = [];
  for (const raw of setting.split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = raw.indexOf("=");
    const named = eq > 0 && !raw.slice(0, eq).includes("/");
    const name = named ? raw.slice(0, eq).trim() : undefined;
    const u = new URL(named ? raw.slice(eq + 1).trim() : raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`relay URL must be http(s): ${u.protocol}`);
    u.username = "";
    u.password = "";
    const id = `relay:${name ?? u.hostname}`;
    if (!/^relay:[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`relay name must be 1-64 of A-Z a-z 0-9 . _ -: ${name ?? u.hostname}`);
    if (out.some((r) => r.id === id)) throw new Error(`two relays named ${id}; give them names with name=url`);
    out.push({ id, url: u.toString().replace(/\/$/, "") });
  }
  return out;
}

export interface RelayClientOptions {
  timeoutMs?: number;
  attempts?: number;
}

/** One relay's data API. */
export class RelayClient {
  readonly id: string;
  readonly url: string;
  private readonly client: UpstreamClient;
  private readonly basePath: string;

  constructor(endpoint: RelayEndpoint, opts: RelayClientOptions = {}) {
    this.id = endpoint.id;
    this.url = endpoint.url;
    const u = new URL(endpoint.url);
    this.basePath = u.pathname.replace(/\/$/, "");
    this.client = new UpstreamClient({
      url: u.origin,
      name: `relay ${endpoint.id.slice(6)}`,
      failureCode: "relay_failed",
      notConfigured: { code: "relays_not_configured", message: "No MEV-Boost relay is configured (RELAY_URLS)." },
      timeoutMs: opts.timeoutMs ?? 8_000,
      attempts: opts.attempts ?? 2,
      maxResponseBytes: 8 * 1024 * 1024,
    });
  }

  /** The newest delivered payloads (below `cursor` when given), newest first. */
  async delivered(opts: { cursor?: number; limit?: number }, signal?: AbortSignal): Promise<BidTrace[]> {
    const q = new URLSearchParams({ limit: String(opts.limit ?? PAGE_LIMIT) });
    if (opts.cursor !== undefined) q.set("cursor", String(opts.cursor));
    const body = await this.client.json({ path: `${this.basePath}${DELIVERED_PATH}?${q}`, method: "GET", idempotent: true, call: "proposer_payload_delivered", signal });
    return this.checked(() => parseDelivered(body));
  }

  /** Every bid the relay received for one slot. */
  async received(slot: number, signal?: AbortSignal): Promise<ReceivedBid[]> {
    const body = await this.client.json({ path: `${this.basePath}${RECEIVED_PATH}?slot=${slot}`, method: "GET", idempotent: true, call: "builder_blocks_received", signal });
    return this.checked(() => parseReceived(body));
  }

  private checked<T>(parse: () => T): T {
    try {
      return parse();
    } catch (e) {
      if (!(e instanceof RelayGarbage)) throw e;
      this.client.noteFailure(e.message);
      throw this.client.error(`relay ${this.id.slice(6)} answered garbage: ${e.message}`, { relay: this.id });
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
