/**
 * Simulated MEV-Boost relays on loopback: three relay data APIs on one
 * server, under /sim-flashbots, /sim-ultrasound and /sim-aestus, answering
 * proposer_payload_delivered (cursor paging, newest first) and
 * builder_blocks_received (?slot=) in the shape of flashbots/relay-specs.
 * Slots follow the wall clock on mainnet's slot numbering; every slot's
 * auction is a pure function of the slot number, so the relays agree with
 * each other: about 9 in 10 slots have a MEV-Boost block, won by one of five
 * real builder names with shares near 40/28/16/10/6 %, each builder bidding a
 * few times per slot below the winner's bid (realistic spread), the winning
 * block delivered by one relay or two. Tests turn one relay's mode to
 * "fail" (503), "timeout" (never answers) or "garbage" (a malformed page).
 */
import { createHash } from "node:crypto";
import { HttpReply, startJsonRpcServer } from "./jsonrpc-server.js";
import { BEACON_GENESIS_S, SLOT_SECONDS } from "../chains/ethereum/relays.js";

export type RelayMode = "ok" | "fail" | "timeout" | "garbage";

export const DEVNET_RELAYS = ["sim-flashbots", "sim-ultrasound", "sim-aestus"] as const;
export type DevnetRelayName = (typeof DEVNET_RELAYS)[number];

/** The simulated builders: real names, made-up keys, and their weight in the auction. */
export const DEVNET_BUILDERS = [
  { name: "Titan", weight: 40 },
  { name: "BuilderNet", weight: 28 },
  { name: "beaverbuild", weight: 16 },
  { name: "Quasar", weight: 10 },
  { name: "rsync-builder", weight: 6 },
].map((b) => ({ ...b, pubkey: `0x${createHash("sha384").update(`devnet-builder:${b.name}`).digest("hex")}` }));

const h = (s: string) => createHash("sha256").update(s).digest();
/** Uniform in [0, 1) from a label. */
const uniform = (s: string) => h(s).readUInt32BE(0) / 2 ** 32;
const hex32 = (s: string) => `0x${h(s).toString("hex")}`;

export interface SlotAuction {
  slot: number;
  winner: (typeof DEVNET_BUILDERS)[number];
  /** Winning bid, wei. */
  value: bigint;
  /** Relays that delivered the block. */
  relays: DevnetRelayName[];
  /** Every builder's bids, ascending per builder; the winner's last equals `value`. */
  bids: { builder: (typeof DEVNET_BUILDERS)[number]; value: bigint; ms: number }[];
}

/** The auction of a slot, or null for a slot without a MEV-Boost block. */
export function auctionAt(slot: number): SlotAuction | null {
  if (uniform(`mevboost:${slot}`) < 0.1) return null;
  const total = DEVNET_BUILDERS.reduce((a, b) => a + b.weight, 0);
  let pick = uniform(`winner:${slot}`) * total;
  const winner = DEVNET_BUILDERS.find((b) => (pick -= b.weight) < 0) ?? DEVNET_BUILDERS[0]!;
  // Block value: 0.005 ETH floor plus a heavy tail up to ~0.5 ETH.
  const u = uniform(`value:${slot}`);
  const value = 5_000_000_000_000_000n + BigInt(Math.floor(u ** 4 * 5e17));
  const primary = DEVNET_RELAYS[slot % DEVNET_RELAYS.length]!;
  const relays: DevnetRelayName[] = [primary];
  if (uniform(`second:${slot}`) < 0.4) relays.push(DEVNET_RELAYS[(slot + 1) % DEVNET_RELAYS.length]!);
  const start = (BEACON_GENESIS_S + SLOT_SECONDS * slot) * 1000;
  const bids: SlotAuction["bids"] = [];
  for (const b of DEVNET_BUILDERS) {
    // Final bid: the winner's value; others 85–99.9 % of it.
    const final = b === winner ? value : (value * BigInt(850 + Math.floor(uniform(`bid:${slot}:${b.name}`) * 149))) / 1000n;
    // Three bids rising toward the final one over the last seconds before the slot.
    for (let i = 0; i < 3; i++) bids.push({ builder: b, value: i === 2 ? final : (final * BigInt(94 + 3 * i)) / 100n, ms: start - 3000 + i * 1000 });
  }
  return { slot, winner, value, relays, bids };
}

function traceRow(a: SlotAuction, builder: string, value: bigint) {
  return {
    slot: String(a.slot),
    parent_hash: hex32(`block:${a.slot - 1}`),
    block_hash: hex32(`block:${a.slot}`),
    builder_pubkey: builder,
    proposer_pubkey: `0x${createHash("sha384").update(`proposer:${a.slot % 5000}`).digest("hex")}`,
    proposer_fee_recipient: `0x${h(`fee-recipient:${a.slot % 5000}`).subarray(0, 20).toString("hex")}`,
    gas_limit: "45000000",
    gas_used: String(12_000_000 + Math.floor(uniform(`gas:${a.slot}`) * 20_000_000)),
    value: value.toString(),
    block_number: String(a.slot - 7_600_000),
    num_tx: String(80 + Math.floor(uniform(`ntx:${a.slot}`) * 250)),
  };
}

export interface DevnetRelays {
  url: string;
  /** The RELAY_URLS setting pointing at the three relays. */
  relayUrls: string;
  /** The BUILDER_PUBKEYS setting naming the simulated builders. */
  builderPubkeys: string;
  setMode(relay: DevnetRelayName, mode: RelayMode): void;
  /** The slot the relays consider current. */
  currentSlot(): number;
  close(): Promise<void>;
}

export async function startDevnetRelays(opts: { host?: string; now?: () => number; historySlots?: number } = {}): Promise<DevnetRelays> {
  const now = opts.now ?? Date.now;
  const history = opts.historySlots ?? 600;
  const modes: Record<DevnetRelayName, RelayMode> = { "sim-flashbots": "ok", "sim-ultrasound": "ok", "sim-aestus": "ok" };
  const currentSlot = () => Math.floor((now() / 1000 - BEACON_GENESIS_S) / SLOT_SECONDS);
  const pending = new Set<NodeJS.Timeout>();

  const guard = async (relay: DevnetRelayName): Promise<"garbage" | undefined> => {
    const mode = modes[relay];
    if (mode === "fail") throw new HttpReply(503, { code: 503, message: "relay unavailable" });
    if (mode === "timeout") {
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => (pending.delete(t), resolve()), 60_000);
        t.unref();
        pending.add(t);
      });
    }
    return mode === "garbage" ? "garbage" : undefined;
  };

  const routes: Record<string, (body: Record<string, unknown>, url: URL) => unknown> = {};
  for (const relay of DEVNET_RELAYS) {
    routes[`GET /${relay}/relay/v1/data/bidtraces/proposer_payload_delivered`] = async (_b, url) => {
      if (await guard(relay)) return [{ slot: "soon", value: -1 }];
      const limit = Math.min(200, Math.max(1, Number(url.searchParams.get("limit") ?? 200) || 200));
      const cursor = url.searchParams.get("cursor");
      const top = cursor === null ? currentSlot() : Math.min(currentSlot(), Number(cursor) - 1);
      const rows = [];
      for (let s = top; s > currentSlot() - history && rows.length < limit; s--) {
        const a = auctionAt(s);
        if (a && a.relays.includes(relay)) rows.push(traceRow(a, a.winner.pubkey, a.value));
      }
      return rows;
    };
    routes[`GET /${relay}/relay/v1/data/bidtraces/builder_blocks_received`] = async (_b, url) => {
      if (await guard(relay)) return { error: "<html>bad gateway</html>" };
      const slot = Number(url.searchParams.get("slot"));
      if (!Number.isInteger(slot) || slot <= 0) throw new HttpReply(400, { code: 400, message: "need slot" });
      if (slot > currentSlot()) return [];
      const a = auctionAt(slot);
      if (!a) return [];
      return a.bids.map((b) => ({ ...traceRow(a, b.builder.pubkey, b.value), timestamp: String(Math.floor(b.ms / 1000)), timestamp_ms: String(b.ms), optimistic_submission: false }));
    };
  }
  const server = await startJsonRpcServer({
    host: opts.host ?? "127.0.0.1",
    maxBodyBytes: 1024,
    rpc: { path: "/rpc", methods: { params: "named", table: {} } },
    routes,
  });
  return {
    url: server.url,
    relayUrls: DEVNET_RELAYS.map((r) => `${r}=${server.url}/${r}`).join(","),
    builderPubkeys: JSON.stringify(Object.fromEntries(DEVNET_BUILDERS.map((b) => [b.pubkey, b.name]))),
    setMode: (relay, mode) => void (modes[relay] = mode),
    currentSlot,
    close: async () => {
      for (const t of pending) clearTimeout(t);
      await server.close();
    },
  };
}
