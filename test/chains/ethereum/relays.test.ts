/**
 * The relay data API parsers (strict: a page with any malformed row is
 * refused whole, never half-read), RELAY_URLS and BUILDER_PUBKEYS parsing,
 * builder matching, the nearest-rank percentile, and the devnet auction.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseDelivered, parseReceived, parseRelayUrls, RelayGarbage, slotAt, slotTime } from "../../../src/chains/ethereum/relays.js";
import { builderFromExtraData, builderKeyNames, builderName, matchBuilder, parseBuilderPubkeys, PUBKEY_RE } from "../../../src/chains/ethereum/builders.js";
import { DEFAULT_BUILDER_KEYS } from "../../../src/chains/ethereum/builder-keys.js";
import { nearestRankIndex } from "../../../src/ingest/relay-store.js";
import { auctionAt, DEVNET_BUILDERS } from "../../../devnet/relays.js";

const key = (c: string) => `0x${c.repeat(96)}`;
// A row as a mainnet relay serves it (every number a string).
const row = {
  slot: "10452112",
  parent_hash: `0x${"ab".repeat(32)}`,
  block_hash: `0x${"CD".repeat(32)}`,
  builder_pubkey: key("a"),
  proposer_pubkey: key("b"),
  proposer_fee_recipient: `0x${"1f".repeat(20)}`,
  gas_limit: "36000000",
  gas_used: "17654321",
  value: "54321987654321098",
  block_number: "21234567",
  num_tx: "187",
};

describe("parseDelivered / parseReceived", () => {
  it("reads a well-formed page exactly (wei as bigint, hashes lower-cased)", () => {
    const [r] = parseDelivered([row]);
    expect(r).toMatchObject({ slot: 10452112, blockNumber: 21234567, value: 54321987654321098n, gasUsed: 17654321n, numTx: 187, blockHash: `0x${"cd".repeat(32)}` });
    const [b] = parseReceived([{ ...row, timestamp: "1733000000", timestamp_ms: "1733000000123", optimistic_submission: true }]);
    expect(b!.timestampMs).toBe(1733000000123);
    expect(parseDelivered([])).toEqual([]);
  });

  it("keeps a uint256 value exact", () => {
    const max = (2n ** 256n - 1n).toString();
    expect(parseDelivered([{ ...row, value: max }])[0]!.value).toBe(2n ** 256n - 1n);
  });

  it("refuses a page with any bad row, naming the field", () => {
    for (const bad of [{ ...row, value: 12 }, { ...row, value: "-1" }, { ...row, slot: "1e9" }, { ...row, block_hash: "0x12" }, { ...row, builder_pubkey: undefined }]) {
      expect(() => parseDelivered([row, bad])).toThrow(RelayGarbage);
    }
    expect(() => parseDelivered({ rows: [row] })).toThrow(/expected a JSON list/);
    expect(() => parseDelivered(null)).toThrow(RelayGarbage);
  });

  it("property: any JSON either parses into rows that match their input or throws RelayGarbage", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.array(fc.record({ slot: fc.oneof(fc.string(), fc.constant("7")), value: fc.oneof(fc.string(), fc.nat().map(String)) }))), (body) => {
        try {
          const rows = parseDelivered(body);
          expect(Array.isArray(body) && (body as unknown[]).length === rows.length).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(RelayGarbage);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("property: a well-formed row with one field replaced by junk is refused", () => {
    const fields = Object.keys(row) as (keyof typeof row)[];
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.oneof(fc.integer(), fc.constant(null), fc.constant(""), fc.string({ maxLength: 3 }).map((s) => `x${s}`)), (field, junk) => {
        expect(() => parseReceived([{ ...row, [field]: junk }])).toThrow(RelayGarbage);
      }),
    );
  });
});

describe("slots", () => {
  it("slot time is the beacon genesis plus 12 s a slot, and back", () => {
    expect(slotTime(0)).toBe(1606824023);
    fc.assert(fc.property(fc.integer({ min: 0, max: 50_000_000 }), (s) => void expect(slotAt(slotTime(s) + 11)).toBe(s)));
  });
});

describe("RELAY_URLS", () => {
  it("names relays by host or by name=url, drops a mev-boost pubkey and refuses duplicates", () => {
    expect(parseRelayUrls("https://0xac6e77@boost-relay.flashbots.net, us=https://relay.ultrasound.money/")).toEqual([
      { id: "relay:boost-relay.flashbots.net", url: "https://boost-relay.flashbots.net" },
      { id: "relay:us", url: "https://relay.ultrasound.money" },
    ]);
    expect(parseRelayUrls(undefined)).toEqual([]);
    expect(() => parseRelayUrls("https://a.example,https://a.example/x")).toThrow(/two relays named/);
    expect(() => parseRelayUrls("ftp://a.example")).toThrow(/http/);
  });
});

describe("builder names", () => {
  const names = parseBuilderPubkeys(JSON.stringify({ [key("A")]: "Titan", [key("c")]: "Titan", [key("d")]: "beaverbuild" }));

  it("parses the key table and refuses bad keys or names", () => {
    expect(names.get(key("a"))).toBe("Titan");
    expect(() => parseBuilderPubkeys(JSON.stringify({ "0x12": "x" }))).toThrow(/BLS public key/);
    expect(() => parseBuilderPubkeys(JSON.stringify({ [key("e")]: "" }))).toThrow(/name/);
    expect(() => parseBuilderPubkeys("[]")).toThrow(/JSON object/);
  });

  it("shows an unnamed key as its prefix, never an invented name", () => {
    expect(builderName(names, key("e"))).toBe(`0x${"e".repeat(10)}…`);
  });

  it("matches exact names first, then substrings, then key prefixes, over every key of a builder", () => {
    const seen = [key("a"), key("d"), key("e")];
    expect(matchBuilder(names, "TITAN", seen)).toEqual({ name: "Titan", keys: [key("a"), key("c")] });
    expect(matchBuilder(names, "beaver", seen)).toEqual({ name: "beaverbuild", keys: [key("d")] });
    expect(matchBuilder(names, "0xeeee", seen)?.keys).toEqual([key("e")]);
    expect(matchBuilder(names, "nobody", seen)).toBeNull();
  });

  it("ships a reviewed default table: well-formed keys, each once, each with its source", () => {
    const keys = DEFAULT_BUILDER_KEYS.map((e) => e.pubkey);
    expect(keys.length).toBeGreaterThan(10);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of DEFAULT_BUILDER_KEYS) {
      expect(e.pubkey).toMatch(PUBKEY_RE);
      expect(e.source.where).toMatch(/\S/);
      expect(e.source.commit ?? "page").toMatch(/^([0-9a-f]{40}|page)$/);
    }
  });

  it("names the keys builders publish (Titan's and bloXroute's pages) and the 2023 data set's, each from its one source", () => {
    const named = builderKeyNames(undefined);
    // docs.titanbuilder.xyz/builder-public-keys lists this key; so does no other source of the table.
    const titan = "0x8226fb149bfe7b4967ffe82ecb9084ffd5bbf0303de0b88f68fdd8297cdffe80f611fa27bc05506b4fba12e2eb5bc5a5";
    expect(builderName(named, titan.toUpperCase().replace("0X", "0x"))).toBe("Titan");
    expect(DEFAULT_BUILDER_KEYS.find((e) => e.pubkey === titan)!.source.where).toBe("https://docs.titanbuilder.xyz/builder-public-keys");
    // The IMC 2023 data set's beaverbuild row, at the commit it was read.
    const beaver = DEFAULT_BUILDER_KEYS.find((e) => e.pubkey.startsWith("0x96a59d355b1f"))!;
    expect(beaver.name).toBe("beaverbuild");
    expect(beaver.source.commit).toBe("e21641cbaf1741bad44aea42c505a1b6d88edaff");
    expect(DEFAULT_BUILDER_KEYS.filter((e) => e.name === "Titan")).toHaveLength(22);
    // One builder, one spelling: every name is one the table's sources agree on.
    expect(new Set(DEFAULT_BUILDER_KEYS.map((e) => e.name))).toEqual(
      new Set(["Flashbots", "Eden", "bloXroute", "Manifold", "Blocknative", "builder0x69", "Titan", "beaverbuild", "rsync-builder", "eth-builder", "Manta-builder"]),
    );
  });

  it("names a listed key without any setting; BUILDER_PUBKEYS extends the table and overrides a listed name", () => {
    const flashbots = DEFAULT_BUILDER_KEYS.find((e) => e.name === "Flashbots")!.pubkey;
    expect(builderName(builderKeyNames(undefined), flashbots)).toBe("Flashbots");
    const table = builderKeyNames(JSON.stringify({ [flashbots]: "Flashbots (old key)", [key("f")]: "Quasar" }));
    expect(table.get(flashbots)).toBe("Flashbots (old key)");
    expect(table.get(key("f"))).toBe("Quasar");
    expect(table.size).toBe(DEFAULT_BUILDER_KEYS.length + 1);
    expect(() => builderKeyNames("{")).toThrow();
  });

  it("reads builder tags from block extra data (published tags, relayscan aliases)", () => {
    expect(builderFromExtraData("Titan (titanbuilder.xyz)")).toBe("Titan");
    expect(builderFromExtraData("BuilderNet (Flashbots)")).toBe("BuilderNet");
    expect(builderFromExtraData("geth/v1.14")).toBeNull();
  });
});

describe("nearest-rank percentile", () => {
  it("is the value at rank ceil(p/100 · n)", () => {
    expect(nearestRankIndex(50, 4)).toBe(1);
    expect(nearestRankIndex(99, 100)).toBe(98);
    expect(nearestRankIndex(25, 1)).toBe(0);
    fc.assert(fc.property(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 10_000 }), (p, n) => {
      const i = nearestRankIndex(p, n);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(i).toBeLessThan(n);
      expect((i + 1) * 100).toBeGreaterThanOrEqual(p * n);
    }));
  });
});

describe("devnet auctions", () => {
  it("are deterministic, won by the highest bid, with shares near the builders' weights", () => {
    const wins = new Map<string, number>();
    let mev = 0;
    for (let s = 10_000_000; s < 10_003_000; s++) {
      const a = auctionAt(s);
      expect(auctionAt(s)).toEqual(a);
      if (!a) continue;
      mev++;
      const top = a.bids.reduce((m, b) => (b.value > m ? b.value : m), 0n);
      expect(top).toBe(a.value);
      wins.set(a.winner.name, (wins.get(a.winner.name) ?? 0) + 1);
    }
    expect(mev / 3000).toBeGreaterThan(0.85);
    for (const b of DEVNET_BUILDERS) expect(Math.abs((wins.get(b.name) ?? 0) / mev - b.weight / 100)).toBeLessThan(0.04);
  });

  it("say how the proposer is paid: mostly the full bid in a last transaction, sometimes as coinbase, sometimes short", () => {
    const kinds = new Map<string, number>();
    let mev = 0;
    let withdrawals = 0;
    for (let s = 10_000_000; s < 10_003_000; s++) {
      const a = auctionAt(s);
      if (!a) continue;
      mev++;
      kinds.set(a.payment.kind, (kinds.get(a.payment.kind) ?? 0) + 1);
      if (a.payment.withdrawalGwei > 0n) withdrawals++;
      expect(a.payment.paid).toBe(a.payment.kind === "short_last_tx" ? (a.value * 97n) / 100n : a.value);
      expect(a.feeRecipient).toMatch(/^0x[0-9a-f]{40}$/);
      expect(a.winner.coinbase).toMatch(/^0x[0-9a-f]{40}$/);
    }
    expect(Math.abs((kinds.get("coinbase_is_proposer") ?? 0) / mev - 0.1)).toBeLessThan(0.03);
    expect(Math.abs((kinds.get("short_last_tx") ?? 0) / mev - 0.05)).toBeLessThan(0.02);
    expect(Math.abs(withdrawals / mev - 0.25)).toBeLessThan(0.04);
  });
});
