/**
 * The builder questions end to end on the devnet: the relay poller ingests
 * the simulated relays over loopback, then /v1/q/top-builder, builder-share,
 * builder-bid, block-value and proposer-payment are bought with devnet x402
 * payments; bad parameters are refused before payment with the allowed
 * values listed; the catalogue lists the questions and one data-freshness
 * source per relay; a relay that goes down shows in data-freshness and in
 * the answers while the others keep them coming.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { pollRelaysOnce } from "../../src/oracle/relay-poller.js";
import { backgroundJobs } from "../../src/workers.js";
import { auctionAt, DEVNET_BUILDERS } from "../../src/devnet/relays.js";
import { startDevnet } from "../../src/devnet/index.js";
import { loadConfig } from "../../src/config.js";
import { tempDir } from "../helpers/app.js";

let s: WatchStack;
const RELAY_IDS = ["relay:sim-flashbots", "relay:sim-ultrasound", "relay:sim-aestus"];

const paidGet = async (path: string) => {
  const r = await s.payer.payFetch(`${s.url}${path}`);
  return { status: r.status, json: (await r.json()) as any };
};

beforeAll(async () => {
  s = await startWatchStack({ https: false });
  while ((await pollRelaysOnce(s.t.app.relays)).some((r) => r.more));
}, 60_000);

afterAll(async () => {
  await s?.close();
});

describe("builder questions on the devnet", () => {
  it("the catalogue lists them with allowed values and units, and a data-freshness source per relay", async () => {
    const r = await s.call("GET", "/v1/q");
    const byPath = new Map((r.json.questions as any[]).map((q) => [q.question, q]));
    for (const q of ["top-builder", "builder-share", "builder-bid", "block-value", "proposer-payment"]) {
      expect(byPath.get(q)?.available, q).toBe(true);
      expect(byPath.get(q)?.source, q).toBe("relays");
    }
    expect(byPath.get("builder-bid").params).toEqual([
      expect.objectContaining({ name: "builder", required: true }),
      expect.objectContaining({ name: "pct", allowed: ["25", "50", "75", "90", "99"], default: "50", format: "percent" }),
      expect.objectContaining({ name: "window", allowed: ["1h", "24h", "7d", "30d"], default: "24h", format: "duration" }),
    ]);
    expect(byPath.get("data-freshness").params[0].allowed).toEqual(["eth_rpc", ...RELAY_IDS, "lending"]);
  });

  it("the worker's job list carries the relay poller", () => {
    expect(backgroundJobs(s.t.app, async () => ({}) as never, 1000).some((j) => j.name === "relay poller")).toBe(true);
  });

  it("bad parameters are a 400 listing the allowed values, before any payment", async () => {
    const w = await s.call("GET", "/v1/q/top-builder?window=1y");
    expect(w.status).toBe(400);
    expect(JSON.stringify(w.json)).toContain("1h, 24h, 7d, 30d");
    const p = await s.call("GET", "/v1/q/builder-bid?builder=Titan&pct=42");
    expect(p.status).toBe(400);
    expect(JSON.stringify(p.json)).toContain("25, 50, 75, 90, 99");
    expect((await s.call("GET", "/v1/q/builder-share")).status).toBe(400);
    expect((await s.call("GET", "/v1/q/data-freshness?source=relay:nope")).status).toBe(400);
  });

  it("top-builder and builder-share: paid answers from the ingested slots", async () => {
    expect((await s.call("GET", "/v1/q/top-builder")).status).toBe(402);
    const top = await paidGet("/v1/q/top-builder?window=1h");
    expect(top.status).toBe(200);
    expect(top.json).toMatchObject({ window: "1h", builder: "Titan", matched: true, relays_down: [], relays_ok: RELAY_IDS });
    expect(top.json.total_slots).toBeGreaterThan(100);
    expect(top.json.share_pct).toBeGreaterThan(25);
    expect(top.json.source_age_s).toBeLessThan(60);
    expect(typeof top.json.as_of_ms).toBe("number");
    const share = await paidGet("/v1/q/builder-share?builder=beaver&window=1h");
    expect(share.json).toMatchObject({ builder: "beaverbuild", matched: true, total_slots: top.json.total_slots });
    expect(share.json.share_pct).toBeCloseTo((share.json.slots_won * 100) / share.json.total_slots, 2);
    const nobody = await paidGet("/v1/q/builder-share?builder=nobody");
    expect(nobody.json).toMatchObject({ matched: false, slots_won: 0, share_pct: 0 });
  });

  it("builder-bid and block-value: nearest-rank percentiles in wei and exact ETH", async () => {
    const bid = await paidGet("/v1/q/builder-bid?builder=Titan&pct=90&window=1h");
    expect(bid.status).toBe(200);
    expect(bid.json).toMatchObject({ builder: "Titan", pct: 90 });
    expect(bid.json.samples).toBeGreaterThan(0);
    expect(BigInt(bid.json.value_wei)).toBeGreaterThan(0n);
    expect(bid.json.value_eth).toMatch(/^0\.\d+$/);
    const p50 = await paidGet("/v1/q/block-value?window=1h");
    const p99 = await paidGet("/v1/q/block-value?pct=99&window=1h");
    expect(p50.json.samples).toBe(p99.json.samples);
    expect(BigInt(p99.json.value_wei)).toBeGreaterThanOrEqual(BigInt(p50.json.value_wei));
    expect(BigInt(p50.json.value_wei)).toBeGreaterThanOrEqual(5_000_000_000_000_000n);
  });

  it("proposer-payment: the newest delivered block with the relays that delivered it", async () => {
    const r = await paidGet("/v1/q/proposer-payment");
    expect(r.status).toBe(200);
    const a = auctionAt(r.json.slot)!;
    expect(r.json).toMatchObject({ builder: a.winner.name, builder_pubkey: a.winner.pubkey, relay_claimed_wei: a.value.toString(), method: "relay_claim", conflicting_blocks: false });
    expect(r.json.relays.length).toBeGreaterThanOrEqual(1);
    expect(DEVNET_BUILDERS.map((b) => b.name)).toContain(r.json.builder);
  });

  it("a relay that goes down shows in data-freshness while the others keep answering", async () => {
    s.devnet.relays!.setMode("sim-ultrasound", "garbage");
    try {
      await pollRelaysOnce(s.t.app.relays);
      const down = await paidGet("/v1/q/data-freshness?source=relay:sim-ultrasound");
      expect(down.json).toMatchObject({ source: "relay:sim-ultrasound", configured: true, fresh: false, node_reachable: false });
      expect(down.json.last_error).toMatch(/garbage/);
      const up = await paidGet("/v1/q/data-freshness?source=relay:sim-flashbots");
      expect(up.json).toMatchObject({ fresh: true, node_reachable: true, last_error: null });
      expect(up.json.stored_blocks).toBeGreaterThan(0);
      const v = await paidGet("/v1/q/block-value?pct=75");
      expect(v.status).toBe(200);
      expect(v.json.relays_down).toEqual(["relay:sim-ultrasound"]);
    } finally {
      s.devnet.relays!.setMode("sim-ultrasound", "ok");
    }
  });

  it("a set RELAY_URLS replaces only the relay simulators, with its own BUILDER_PUBKEYS", async () => {
    const d = await startDevnet({ dataDir: tempDir("vigil-devnet-relays-"), blockSeconds: 0, relayUrls: "us=https://relay.ultrasound.money", builderPubkeys: "{}" });
    try {
      expect(d.relays).toBeUndefined();
      expect(d.configOverlay).toMatchObject({ RELAY_URLS: "us=https://relay.ultrasound.money", BUILDER_PUBKEYS: "{}", EVM_RPC_URL: d.evmUrl });
      expect(d.ethereum).toBeDefined();
    } finally {
      await d.close();
    }
  });

  it("relay settings: defaults, and a bad RELAY_URLS is refused at start", () => {
    const c = loadConfig({ DEVNET: "off" });
    expect(c).toMatchObject({ RELAY_RETENTION_HOURS: 720, RELAY_MAX_AGE_SECONDS: 600 });
    expect(c.RELAY_URLS).toBeUndefined();
    expect(() => loadConfig({ DEVNET: "off", RELAY_URLS: "not a url" })).toThrow(/RELAY_URLS/);
    expect(loadConfig({ DEVNET: "off", RELAY_URLS: "fb=https://boost-relay.flashbots.net,https://relay.ultrasound.money" }).RELAY_URLS).toContain("fb=");
  });
});
