/**
 * Builder names learned from blocks, against the devnet's simulated relays
 * and its L1 over real loopback sockets: the relay poller reads the newest
 * delivered block of each key no reviewed table names (BuilderNet and Quasar,
 * whose keys the devnet does not publish) and names the key from the block's
 * extra-data. A node that fails or answers another block leaves the poll ok
 * and nothing learned until a later run; a tag that names nobody leaves the
 * key a hex prefix, asked again only a day later (injected clock); at most
 * `maxKeys` keys a run; the answers use reviewed names first, then learned.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { RelayClient, parseRelayUrls, slotAt, slotTime } from "../../src/chains/ethereum/relays.js";
import { builderKeyNames, builderName } from "../../src/chains/ethereum/builders.js";
import { EthRpc } from "../../src/chains/ethereum/rpc.js";
import { ManualClock } from "../../src/core/clock.js";
import { startDevnetEthereum, type DevnetEthereum } from "../../devnet/ethereum.js";
import { startDevnetRelays, auctionAt, DEVNET_BUILDERS, type DevnetRelays } from "../../devnet/relays.js";
import { pollRelaysOnce, type RelayPollerDeps } from "../../src/ingest/relay-poller.js";
import { extraDataText, learnBuilderNames, namesWithLearned, UNNAMED_RETRY_MS } from "../../src/ingest/builder-names.js";
import { builderQuestions, type BuilderQuestionDeps } from "../../src/oracle/questions/builders.js";
import { createOracleRegistry } from "../../src/oracle/registry.js";
import { computeBuilderStats } from "../../src/feeds/builder-stats.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

let db: TestDatabase;
let eth: DevnetEthereum;
let sim: DevnetRelays;
let rpc: EthRpc;
let deps: RelayPollerDeps;
let qdeps: BuilderQuestionDeps;
const warnings: string[] = [];
/** The learner's clock (moved by a day below); the answers run on real time, as the relays do. */
const clock = new ManualClock(Date.now());
const realClock = { now: () => Date.now() };
/**
 * The relays' time: at least 15 min behind, so the test moves it on (and new
 * slots arrive) only when it says so; and just before a slot Quasar wins, so
 * the slot the retry test moves it to is long past, whatever the time of day
 * (Quasar wins about one slot in twelve; a fixed offset once left its next
 * win 1.4 s short of the margin the chain needs).
 */
const quasarSlot = (() => {
  let s = slotAt((Date.now() - 900_000) / 1000);
  while (auctionAt(s)?.winner.name !== "Quasar") s--;
  return s;
})();
let relayNow = slotTime(quasarSlot - 1) * 1000 + 1_000;
const RELAY_HISTORY_SLOTS = 150;
/**
 * Blocks of L1 history reaching back past the relays' oldest slot: a slot before the chain's first
 * block keeps a made-up block hash, which the tests below cannot retag. (The default 256 blocks
 * fell short whenever Quasar's last win lay more than about 30 slots back: one run in fifteen.)
 */
const chainHistory = Math.ceil((Date.now() / 1000 - slotTime(quasarSlot - 1 - RELAY_HISTORY_SLOTS)) / 12) + 16;
const builder = (name: string) => DEVNET_BUILDERS.find((b) => b.name === name)!;
const prefix = (key: string) => `${key.slice(0, 12)}…`;

beforeAll(async () => {
  db = await openTestDatabase();
  eth = await startDevnetEthereum({ history: chainHistory });
  sim = await startDevnetRelays({ historySlots: RELAY_HISTORY_SLOTS, chain: eth.mevBoost, now: () => relayNow });
  rpc = new EthRpc({ urls: [eth.url], attemptsPerUrl: 1, timeoutMs: 10_000 });
  const endpoints = parseRelayUrls(sim.relayUrls);
  const names = builderKeyNames(sim.builderPubkeys);
  deps = {
    db: db.db,
    clock,
    relays: endpoints.map((e) => new RelayClient(e, { timeoutMs: 30_000, attempts: 1 })),
    // Long enough that moving the clock a day keeps the stored payloads.
    retentionSeconds: 30 * 86_400,
    warn: (_info, message) => void warnings.push(message),
    learnNames: { rpc, names },
  };
  qdeps = { db: db.db, clock: realClock, relays: endpoints, names, maxAgeSeconds: 3600 };
});

afterAll(async () => {
  await Promise.all(deps.relays.map((r) => r.close()));
  await rpc.close();
  await sim.close();
  await eth.close();
  await db.close();
});

const learned = async () => new Map((await db.db.selectFrom("builder_key_names").selectAll().execute()).map((r) => [r.pubkey, r]));
const blockCalls = () => eth.calls.get("eth_getBlockByHash") ?? 0;
/** The stored delivered blocks of a key, newest first. */
const payloadsOf = async (key: string) =>
  (await sql<{ h: string; n: string }>`SELECT block_hash AS h, block_number::text AS n FROM relay_payloads WHERE builder_pubkey = ${key} ORDER BY slot DESC`.execute(db.db)).rows;
const pollAll = async () => {
  let res;
  do res = await pollRelaysOnce(deps);
  while (res.some((r) => r.more));
  return res;
};
const ask = (q: string, p: Record<string, string>, d: BuilderQuestionDeps = qdeps) => createOracleRegistry(builderQuestions(d), realClock).ask(q, p);

describe("builder names learned from blocks", () => {
  it("the devnet publishes no key for BuilderNet and Quasar: they are hex prefixes before learning", async () => {
    const published = Object.values(JSON.parse(sim.builderPubkeys));
    expect(published).toEqual(expect.arrayContaining(["Titan", "beaverbuild", "rsync-builder"]));
    expect(published).not.toContain("BuilderNet");
    expect(published).not.toContain("Quasar");
  });

  it("a node that fails leaves the poll ok and nothing learned", async () => {
    eth.setFailure("http503");
    try {
      const res = await pollAll();
      expect(res.every((r) => r.ok)).toBe(true);
      expect((await payloadsOf(builder("BuilderNet").pubkey)).length).toBeGreaterThan(0);
      expect((await learned()).size).toBe(0);
      expect(warnings.some((w) => /could not be asked for the block/.test(w))).toBe(true);
    } finally {
      eth.setFailure(null);
    }
  });

  it("a node answering another block than the one asked is not believed", async () => {
    eth.setWrongBlockByHash(true);
    warnings.length = 0;
    try {
      const before = blockCalls();
      const res = await pollRelaysOnce(deps);
      expect(res.every((r) => r.ok)).toBe(true);
      // Both unnamed keys were asked, neither learned.
      expect(blockCalls() - before).toBe(2);
      expect((await learned()).size).toBe(0);
      expect(warnings.filter((w) => /does not match/.test(w))).toHaveLength(2);
    } finally {
      eth.setWrongBlockByHash(false);
    }
  });

  it("learns at most maxKeys keys a run; a tag that names nobody is stored without a name", async () => {
    // Every stored Quasar block now carries a tag of no known builder.
    const quasar = builder("Quasar");
    for (const p of await payloadsOf(quasar.pubkey)) eth.retag(p.h, "someone's rig \u00e9");
    const before = blockCalls();
    await learnBuilderNames({ ...deps.learnNames!, maxKeys: 1, db: db.db, clock });
    expect(blockCalls() - before).toBe(1);
    expect((await learned()).size).toBe(1);

    const res = await pollRelaysOnce(deps);
    expect(res.every((r) => r.ok)).toBe(true);
    // Only the unnamed keys are asked: the reviewed ones (Titan, beaverbuild, rsync, Flashbots) never.
    expect(blockCalls() - before).toBe(2);
    const rows = await learned();
    expect([...rows.keys()].sort()).toEqual([builder("BuilderNet").pubkey, quasar.pubkey].sort());
    const bn = rows.get(builder("BuilderNet").pubkey)!;
    const newest = (await payloadsOf(builder("BuilderNet").pubkey))[0]!;
    expect(bn).toMatchObject({ name: "BuilderNet", tag: "BuilderNet (Flashbots)", block_hash: newest.h, block_number: newest.n });
    expect(rows.get(quasar.pubkey)).toMatchObject({ name: null, tag: "someone's rig \u00e9" });
  });

  it("the answers name the learned key and keep the other a hex prefix", async () => {
    const share = await ask("builder-share", { builder: "BuilderNet", window: "24h" });
    expect(share).toMatchObject({ builder: "BuilderNet", matched: true });
    const won = await sql<{ n: string }>`
      SELECT count(DISTINCT slot) AS n FROM relay_payloads WHERE builder_pubkey = ${builder("BuilderNet").pubkey} AND slot_time_s >= ${String(Math.floor(Date.now() / 1000) - 86_400)}`.execute(db.db);
    expect(share.slots_won).toBe(Number(won.rows[0]!.n));
    expect(share.slots_won).toBeGreaterThan(0);
    const bid = await ask("builder-bid", { builder: "buildernet", pct: "50", window: "24h" });
    expect(bid).toMatchObject({ builder: "BuilderNet", matched: true });
    expect(bid.samples).toBeGreaterThan(0);
    const q = await ask("builder-share", { builder: "Quasar", window: "24h" });
    expect(q).toMatchObject({ matched: false, slots_won: 0 });
    const stats = await computeBuilderStats({ ctx: { ...qdeps }, input: { window: "24h" } });
    const names = stats.builders.map((b) => b.builder);
    expect(names).toContain("BuilderNet");
    expect(names).toContain(prefix(builder("Quasar").pubkey));
    expect(names).not.toContain("Quasar");
  });

  it("reviewed names win over learned ones", async () => {
    const bn = builder("BuilderNet").pubkey;
    const reviewed = builderKeyNames(JSON.stringify({ ...JSON.parse(sim.builderPubkeys), [bn]: "BuilderNet (operator's own)" }));
    expect(builderName(await namesWithLearned(db.db, reviewed), bn)).toBe("BuilderNet (operator's own)");
    const share = await ask("builder-share", { builder: "BuilderNet", window: "24h" }, { ...qdeps, names: reviewed });
    expect(share).toMatchObject({ builder: "BuilderNet (operator's own)", matched: true });
  });

  it("a key whose tag named nobody is not asked again within a day, and is after it (its newest block)", async () => {
    const quasar = builder("Quasar").pubkey;
    const first = (await learned()).get(quasar)!;
    // The tag is Quasar's again (a builder fixing its tag), but a day has not passed.
    for (const p of await payloadsOf(quasar)) eth.retag(p.h, "Quasar (quasar.win)");
    clock.advance(UNNAMED_RETRY_MS - 60_000);
    let before = blockCalls();
    expect((await pollRelaysOnce(deps)).every((r) => r.ok)).toBe(true);
    expect(blockCalls()).toBe(before);
    expect((await learned()).get(quasar)).toEqual(first);

    clock.advance(60_000);
    // New slots reach the relays, one of them Quasar's: the retry reads that newest block.
    let next = sim.currentSlot() + 1;
    while (auctionAt(next)?.winner.name !== "Quasar") next++;
    expect(next).toBe(quasarSlot);
    expect(slotTime(next) * 1000).toBeLessThan(Date.now() - 24_000);
    relayNow = slotTime(next) * 1000 + 1_000;
    before = blockCalls();
    await pollRelaysOnce(deps);
    expect(blockCalls() - before).toBe(1);
    const row = (await learned()).get(quasar)!;
    const newest = (await payloadsOf(quasar))[0]!;
    expect(row).toMatchObject({ name: "Quasar", tag: "Quasar (quasar.win)", block_hash: newest.h, learned_ms: String(clock.now()) });
    expect(newest.h).toBe(eth.mevBoost.blockOfSlot(next)!.hash);
    expect(row.block_hash).not.toBe(first.block_hash);
    const q = await ask("builder-share", { builder: "quasar", window: "24h" });
    expect(q).toMatchObject({ builder: "Quasar", matched: true });
    expect(q.slots_won).toBeGreaterThan(0);
    // Named keys are never asked again.
    clock.advance(2 * UNNAMED_RETRY_MS);
    before = blockCalls();
    await pollRelaysOnce(deps);
    expect(blockCalls()).toBe(before);
  });

  it("top-builder answers with a learned name: with no reviewed table, every key is named from its blocks", async () => {
    const none = new Map<string, string>();
    // Every key is due (none reviewed); Flashbots' blocks carry a tag no alias rule names, so it stays unnamed.
    const r = await learnBuilderNames({ ...deps.learnNames!, names: none, maxKeys: 16, db: db.db, clock });
    expect(r.skipped).toBe(0);
    const rows = await learned();
    for (const name of ["Titan", "BuilderNet", "beaverbuild", "Quasar", "rsync-builder"]) expect(rows.get(builder(name).pubkey)?.name, name).toBe(name);
    const top = await ask("top-builder", { window: "24h" }, { ...qdeps, names: none });
    const slots = await sql<{ k: string; n: string }>`
      SELECT builder_pubkey AS k, count(DISTINCT slot) AS n FROM relay_payloads
      WHERE slot_time_s >= ${String(Math.floor(Date.now() / 1000) - 86_400)} GROUP BY builder_pubkey`.execute(db.db);
    // The most slots won; two builders may tie for it (the devnet draws each slot's winner).
    const most = Math.max(...slots.rows.map((x) => Number(x.n)));
    const leaders = slots.rows.filter((x) => Number(x.n) === most).map((x) => DEVNET_BUILDERS.find((b) => b.pubkey === x.k)!.name);
    expect(top).toMatchObject({ matched: true });
    expect(leaders).toContain(top.builder);
    expect(top.slots_won).toBe(most);
  });

  it("no Ethereum node configured: no learning", async () => {
    const none = new EthRpc({ urls: [] });
    await db.db.deleteFrom("builder_key_names").execute();
    warnings.length = 0;
    try {
      const r = await pollRelaysOnce({ ...deps, learnNames: { ...deps.learnNames!, rpc: none } });
      expect(r.every((x) => x.ok)).toBe(true);
      expect((await learned()).size).toBe(0);
      // Not even tried: no warning about a node.
      expect(warnings).toEqual([]);
    } finally {
      await none.close();
    }
  });
});

describe("extraDataText", () => {
  const hex = (b: number[]) => `0x${Buffer.from(b).toString("hex")}`;
  it("decodes UTF-8, replaces invalid bytes and control characters, drops NUL padding, bounds the length", () => {
    expect(extraDataText(hex([...Buffer.from("beaverbuild.org")]))).toBe("beaverbuild.org");
    expect(extraDataText(hex([0x51, 0xff, 0x52]))).toBe("Q\ufffdR");
    expect(extraDataText(hex([0x41, 0x00, 0x42, 0x00, 0x00]))).toBe("A\ufffdB");
    expect(extraDataText("0x")).toBe("");
    expect(Array.from(extraDataText(hex([...Buffer.from("é".repeat(100))]))).length).toBe(64);
  });
});
