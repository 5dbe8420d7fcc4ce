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
 * block delivered by one relay or two. A sixth bidder, "Flashbots", bids with
 * a key of the reviewed default key table (chains/ethereum/builder-keys.ts)
 * and never wins, so a bid is named without any BUILDER_PUBKEYS setting.
 * BUILDER_PUBKEYS names Titan, beaverbuild and rsync-builder only: BuilderNet
 * and Quasar are named from the extra-data of the blocks they win.
 *
 * The auction also says how the proposer is paid, which the devnet's L1
 * (ethereum.ts) builds into that slot's block: usually the builder's coinbase
 * and a last transaction paying the bid to the proposer's fee recipient;
 * about 1 in 10 the proposer's fee recipient is the coinbase itself (it earns
 * the bid as fees); about 1 in 20 the last transaction pays 3 % less than the
 * relays claim; now and then a beacon withdrawal credits the fee recipient in
 * the same block. Given that chain, a delivered row names the L1 block of its
 * slot (hash, number, parent, gas); slots before the chain's first block keep
 * made-up hashes, and slots whose block is not produced yet are not served.
 * Tests turn one relay's mode to "fail" (503), "timeout" (never answers) or
 * "garbage" (a malformed page).
 */
import { createHash } from "node:crypto";
import { HttpReply, startJsonRpcServer } from "./jsonrpc-server.js";
import { BEACON_GENESIS_S, SLOT_SECONDS } from "../src/chains/ethereum/relays.js";
import { DEFAULT_BUILDER_KEYS } from "../src/chains/ethereum/builder-keys.js";

export type RelayMode = "ok" | "fail" | "timeout" | "garbage";

export const DEVNET_RELAYS = ["sim-flashbots", "sim-ultrasound", "sim-aestus"] as const;
export type DevnetRelayName = (typeof DEVNET_RELAYS)[number];

const devnetKey = (name: string) => `0x${createHash("sha384").update(`devnet-builder:${name}`).digest("hex")}`;
const devnetAddress = (label: string) => `0x${createHash("sha256").update(label).digest().subarray(0, 20).toString("hex")}`;
const FLASHBOTS_KEY = DEFAULT_BUILDER_KEYS.find((k) => k.name === "Flashbots")!.pubkey;

/**
 * The simulated builders: real names, made-up keys (but Flashbots', from the default table), their
 * weight in the auction, and the coinbase their blocks use. The coinbases are the builders' public
 * addresses: Titan's from its docs (docs.titanbuilder.xyz, "Coinbase"); BuilderNet's, rsync's and
 * Quasar's as the coinbase of mainnet blocks carrying their extra-data tags (blocks 22869878 and
 * 17034869, and block 0xf62064a4… of 2025-12-08); beaverbuild's as third-party label lists name
 * the address relayscan tracks (flashbots/relayscan vars/builder_addresses.go).
 */
export const DEVNET_BUILDERS = [
  { name: "Titan", weight: 40, coinbase: "0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97", extraData: "Titan (titanbuilder.xyz)" },
  { name: "BuilderNet", weight: 28, coinbase: "0xdadb0d80178819f2319190d340ce9a924f783711", extraData: "BuilderNet (Flashbots)" },
  { name: "beaverbuild", weight: 16, coinbase: "0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5", extraData: "beaverbuild.org" },
  { name: "Quasar", weight: 10, coinbase: "0x396343362be2a4da1ce0c1c210945346fb82aa49", extraData: "Quasar (quasar.win)" },
  { name: "rsync-builder", weight: 6, coinbase: "0x1f9090aae28b8a3dceadf281b0f12828e676c326", extraData: "rsync-builder.xyz" },
  { name: "Flashbots", weight: 0, coinbase: devnetAddress("devnet:flashbots-coinbase"), extraData: "Flashbots" },
].map((b) => ({ ...b, pubkey: b.name === "Flashbots" ? FLASHBOTS_KEY : devnetKey(b.name) }));

/**
 * The builders whose (made-up) keys the devnet publishes in BUILDER_PUBKEYS. Flashbots' key is named
 * by the default table; BuilderNet and Quasar publish no key list on mainnet, so the devnet publishes
 * none either and the service names them from their blocks' extra-data (ingest/builder-names.ts).
 */
export const PUBLISHED_BUILDERS: readonly string[] = ["Titan", "beaverbuild", "rsync-builder"];

/** How the slot's block pays its proposer. */
export type PaymentKind = "last_tx" | "coinbase_is_proposer" | "short_last_tx";

export interface SlotPayment {
  kind: PaymentKind;
  /** What the proposer's fee recipient really receives from the block (wei), withdrawals aside. */
  paid: bigint;
  /** A beacon withdrawal to the fee recipient in the same block (gwei), or 0. */
  withdrawalGwei: bigint;
}

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
  /** The proposer's fee recipient (the relays' proposer_fee_recipient). */
  feeRecipient: string;
  payment: SlotPayment;
}

/** The fee recipient the relays report for a slot's proposer (5,000 made-up proposers). */
export const proposerFeeRecipient = (slot: number) => `0x${h(`fee-recipient:${slot % 5000}`).subarray(0, 20).toString("hex")}`;

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
  const k = uniform(`payment:${slot}`);
  const kind: PaymentKind = k < 0.1 ? "coinbase_is_proposer" : k < 0.15 ? "short_last_tx" : "last_tx";
  const paid = kind === "short_last_tx" ? (value * 97n) / 100n : value;
  // A withdrawal sweep (0.01–0.06 ETH) reaching the fee recipient in a quarter of the blocks.
  const withdrawalGwei = uniform(`withdrawal:${slot}`) < 0.25 ? 10_000_000n + BigInt(Math.floor(uniform(`wd-amount:${slot}`) * 50_000_000)) : 0n;
  return { slot, winner, value, relays, bids, feeRecipient: proposerFeeRecipient(slot), payment: { kind, paid, withdrawalGwei } };
}

/** The L1 block of a slot, as the relays report it (ethereum.ts produces it). */
export interface SlotBlock {
  number: bigint;
  hash: string;
  parentHash: string;
  gasUsed: bigint;
  gasLimit: bigint;
  txCount: number;
}

/** The devnet L1 as the relays see it. */
export interface DevnetMevChain {
  /** The first slot the chain has a block for; older slots keep made-up blocks. */
  firstSlot(): number;
  /** The block of a slot (producing due blocks first), or null when it has none yet. */
  blockOfSlot(slot: number): SlotBlock | null;
}

function traceRow(a: SlotAuction, builder: string, value: bigint, block: SlotBlock | undefined) {
  return {
    slot: String(a.slot),
    parent_hash: block?.parentHash ?? hex32(`block:${a.slot - 1}`),
    block_hash: block?.hash ?? hex32(`block:${a.slot}`),
    builder_pubkey: builder,
    proposer_pubkey: `0x${createHash("sha384").update(`proposer:${a.slot % 5000}`).digest("hex")}`,
    proposer_fee_recipient: a.feeRecipient,
    gas_limit: String(block?.gasLimit ?? 45_000_000n),
    gas_used: String(block?.gasUsed ?? 12_000_000 + Math.floor(uniform(`gas:${a.slot}`) * 20_000_000)),
    value: value.toString(),
    block_number: String(block?.number ?? a.slot - 7_600_000),
    num_tx: String(block?.txCount ?? 80 + Math.floor(uniform(`ntx:${a.slot}`) * 250)),
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

export async function startDevnetRelays(opts: { host?: string; now?: () => number; historySlots?: number; chain?: DevnetMevChain } = {}): Promise<DevnetRelays> {
  const now = opts.now ?? Date.now;
  const history = opts.historySlots ?? 600;
  const modes: Record<DevnetRelayName, RelayMode> = { "sim-flashbots": "ok", "sim-ultrasound": "ok", "sim-aestus": "ok" };
  const currentSlot = () => Math.floor((now() / 1000 - BEACON_GENESIS_S) / SLOT_SECONDS);
  const pending = new Set<NodeJS.Timeout>();
  /** The L1 block a slot's rows name: undefined = made up (no chain, or before it), null = not produced yet. */
  const blockOf = (slot: number): SlotBlock | null | undefined => {
    const chain = opts.chain;
    if (!chain || slot < chain.firstSlot()) return undefined;
    return chain.blockOfSlot(slot);
  };

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
        if (!a || !a.relays.includes(relay)) continue;
        const block = blockOf(s);
        if (block !== null) rows.push(traceRow(a, a.winner.pubkey, a.value, block));
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
      const block = blockOf(slot);
      if (block === null) return [];
      return a.bids.map((b) => ({ ...traceRow(a, b.builder.pubkey, b.value, block), timestamp: String(Math.floor(b.ms / 1000)), timestamp_ms: String(b.ms), optimistic_submission: false }));
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
    builderPubkeys: JSON.stringify(Object.fromEntries(DEVNET_BUILDERS.filter((b) => PUBLISHED_BUILDERS.includes(b.name)).map((b) => [b.pubkey, b.name]))),
    setMode: (relay, mode) => void (modes[relay] = mode),
    currentSlot,
    close: async () => {
      for (const t of pending) clearTimeout(t);
      await server.close();
    },
  };
}
