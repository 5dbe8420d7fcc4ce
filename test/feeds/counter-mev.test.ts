/**
 * The counter-MEV feed end to end on the devnet: the devnet L1 emits
 * Approval events (some to risky spenders) and reverted bot transactions;
 * the scan job ingests them over real JSON-RPC; the free summary is checked
 * field by field against the spec's shape, the paid feed is bought with a
 * devnet payment, its bots are recomputed here from the node's receipts, its
 * dangling approvals from the node's allowance(), and the summary is the
 * redaction of the paid answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { scanApprovalsOnce } from "../../src/feeds/approval-scan.js";
import { DEVNET_BOTS, DEVNET_ETH_USD, DEVNET_RISKY_TOKEN, DEVNET_SPENDERS } from "../../devnet/ethereum-activity.js";
import { BOT_MIN_FAILS, scoreSpender, scoreToken, summarizeCounterMev } from "../../src/feeds/counter-mev.js";
import { bandOf } from "../../src/chains/ethereum/approval-risk.js";

let s: WatchStack;

const rpc = async (method: string, params: unknown[]) => {
  const r = await fetch(s.devnet.ethereum!.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await r.json()) as { result: any }).result;
};
const balance = () => s.devnet.evm.usdcBalanceOf(s.payer.address);
const keys = (o: object) => Object.keys(o).sort();

beforeAll(async () => {
  s = await startWatchStack({ https: false });
}, 60_000);
afterAll(async () => s?.close());

describe("scoring (pure)", () => {
  it("follows the documented bands and bonuses", () => {
    expect(scoreSpender({ factors: ["exploit"], unlimitedLive: true, distinctVictims: 1 })).toEqual({ score: 100, band: "critical", topFlag: "exploit" });
    expect(scoreSpender({ factors: ["phishing_risk"], unlimitedLive: false, distinctVictims: 1 })).toEqual({ score: 50, band: "medium", topFlag: "phishing_risk" });
    expect(scoreSpender({ factors: ["phishing_risk"], unlimitedLive: true, distinctVictims: 5 })).toEqual({ score: 70, band: "high", topFlag: "phishing_risk" });
    expect(scoreSpender({ factors: [], unlimitedLive: true, distinctVictims: 9 })).toEqual({ score: 20, band: "low", topFlag: "unlimited_allowance" });
    expect(scoreSpender({ factors: [], unlimitedLive: false, distinctVictims: 0 })).toEqual({ score: 0, band: null, topFlag: null });
    expect(scoreToken(["phishing_risk"], 0.5)).toEqual({ score: 80, band: "high", topFlag: "phishing_risk" });
    expect(scoreToken([], 0.1)).toEqual({ score: 6, band: "low", topFlag: "approvals_to_flagged_spenders" });
    expect([bandOf(90), bandOf(89), bandOf(60), bandOf(59), bandOf(25), bandOf(24), bandOf(1), bandOf(0)]).toEqual(["critical", "high", "high", "medium", "medium", "low", "low", null]);
  });
});

describe("counter-MEV on the devnet", () => {
  it("before any scan: the summary says not present, the paid feed is 503 and charges nothing", async () => {
    const r = await s.call("GET", "/v1/counter-mev/summary");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ present: false, as_of_ms: null, freshness: { age_s: null, stale: true } });
    const before = balance();
    const p = await s.paidGet("/v1/premium/counter-mev");
    expect(p.status).toBe(503);
    expect(p.json.error.code).toBe("source_stale");
    expect(balance()).toBe(before);
  });

  it("the scan ingests the devnet's approvals and reverted transactions", async () => {
    let runs = 0;
    let r;
    do {
      r = await scanApprovalsOnce(s.t.app.approvalScan);
      runs++;
    } while (r.more && runs < 20);
    expect(r.more).toBe(false);
    expect(runs).toBeGreaterThan(1);
    const again = await scanApprovalsOnce(s.t.app.approvalScan);
    expect(again.from).toBeNull();
  });

  it("the summary has exactly the spec's shape, field by field", async () => {
    const r = await s.call("GET", "/v1/counter-mev/summary");
    expect(r.status).toBe(200);
    const j = r.json;
    expect(keys(j)).toEqual(
      ["as_of_ms", "generated_at_ms", "freshness", "chain", "block_window", "totals", "risk_distribution", "top", "note", "premium_endpoint", "present", "source_freshness_s"].sort(),
    );
    expect(Number.isInteger(j.as_of_ms) && Number.isInteger(j.generated_at_ms)).toBe(true);
    expect(keys(j.freshness)).toEqual(["age_s", "stale", "stale_after_s"]);
    expect(j.freshness.stale).toBe(false);
    expect(j.chain).toBe("eip155:1337");
    expect(keys(j.block_window)).toEqual(["blocks", "from_block", "to_block"]);
    expect(j.block_window.blocks).toBe(j.block_window.to_block - j.block_window.from_block + 1);
    expect(j.block_window.to_block).toBe(Number(s.devnet.ethereum!.head().number) - 2);
    expect(keys(j.totals)).toEqual(["bleeding_bots", "dangling_approvals", "gas_bleed_eth", "gas_bleed_usd", "malicious_spenders", "risky_tokens"]);
    for (const k of ["risky_tokens", "malicious_spenders", "dangling_approvals", "bleeding_bots"]) expect(Number.isInteger(j.totals[k]), k).toBe(true);
    expect(typeof j.totals.gas_bleed_eth).toBe("number");
    expect(typeof j.totals.gas_bleed_usd).toBe("number");
    expect(keys(j.risk_distribution)).toEqual(["dangling_approvals", "malicious_spenders", "risky_tokens"]);
    for (const k of Object.keys(j.risk_distribution)) {
      expect(keys(j.risk_distribution[k])).toEqual(["critical", "high", "low", "medium"]);
      for (const v of Object.values(j.risk_distribution[k])) expect(Number.isInteger(v)).toBe(true);
    }
    expect(keys(j.top)).toEqual(["bleeding_bots", "malicious_spenders", "risky_tokens"]);
    expect(j.top.malicious_spenders.length).toBeGreaterThan(0);
    for (const m of j.top.malicious_spenders) expect(keys(m)).toEqual(["address", "distinct_victims", "risk_band", "risk_score", "top_flag"]);
    expect(j.top.bleeding_bots.length).toBeGreaterThan(0);
    for (const b of j.top.bleeding_bots) expect(keys(b)).toEqual(["addr", "dominant_reason", "gas_burned_usd"]);
    expect(j.top.risky_tokens.length).toBeGreaterThan(0);
    expect(j.premium_endpoint).toBe("/v1/premium/counter-mev");
    expect(j.present).toBe(true);
    expect(j.source_freshness_s).toBe(j.freshness.age_s);
    expect(typeof j.note).toBe("string");
  });

  it("the paid feed ($0.05) flags the risky spenders and token, and its numbers match the node", async () => {
    expect((await s.call("GET", "/v1/premium/counter-mev")).status).toBe(402);
    expect((await s.call("GET", "/v1/premium/counter-mev?min_band=severe")).status).toBe(400);
    const before = balance();
    const r = await s.paidGet("/v1/premium/counter-mev");
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(before - balance()).toBe(50_000n);
    const a = r.json;
    expect(a.eth_usd).toBe(DEVNET_ETH_USD);
    expect(a.risk_lists).toEqual(["approval-exploits", "devnet-risk-list"]);

    // Spenders: the risky ones are high or critical, the well-known routers are not.
    const band = (addr: string) => a.spenders.find((x: any) => x.address === addr)?.risk_band;
    for (const k of ["sushiRp2", "drainerListed", "drainerUnlisted", "deprecatedRouter"] as const) {
      const sp = a.spenders.find((x: any) => x.address === DEVNET_SPENDERS[k].address);
      if (sp) expect(["critical", "high"], k).toContain(sp.risk_band);
    }
    expect(a.spenders.find((x: any) => x.address === DEVNET_SPENDERS.sushiRp2.address)?.top_flag ?? "exploit").toBe("exploit");
    expect(a.spenders.find((x: any) => x.address === DEVNET_SPENDERS.drainerUnlisted.address)?.kind ?? "eoa").toBe("eoa");
    for (const k of ["universalRouter", "permit2", "oneInch"] as const) expect([undefined, "low"], k).toContain(band(DEVNET_SPENDERS[k].address));
    expect(a.totals.malicious_spenders).toBe(a.spenders.filter((x: any) => ["critical", "high"].includes(x.risk_band)).length);
    expect(a.totals.malicious_spenders).toBeGreaterThanOrEqual(3);

    const token = a.tokens.find((t: any) => t.address === DEVNET_RISKY_TOKEN);
    expect(token).toMatchObject({ top_flag: "phishing_risk" });
    expect(token.risk_score).toBeGreaterThanOrEqual(50);

    // Dangling approvals: the live allowance the node reports, to an EOA or a flagged spender.
    expect(a.dangling_approvals.length).toBe(a.totals.dangling_approvals);
    expect(a.dangling_approvals.length).toBeGreaterThan(0);
    for (const d of a.dangling_approvals.slice(0, 20)) {
      const live = await rpc("eth_call", [{ to: d.token, data: `0xdd62ed3e${d.owner.slice(2).padStart(64, "0")}${d.spender.slice(2).padStart(64, "0")}` }, "latest"]);
      expect(BigInt(live).toString(), `${d.token} ${d.owner} ${d.spender}`).toBe(d.allowance);
      expect(BigInt(d.allowance)).toBeGreaterThan(0n);
      expect(["critical", "high"]).toContain(band(d.spender));
    }

    // Bleeding bots: recomputed from the node's receipts over the window.
    const perBot = new Map<string, { n: number; burn: bigint }>();
    for (let n = a.block_window.from_block; n <= a.block_window.to_block; n++) {
      for (const rc of (await rpc("eth_getBlockReceipts", [`0x${n.toString(16)}`])) ?? []) {
        if (rc.status !== "0x0") continue;
        const cur = perBot.get(rc.from) ?? { n: 0, burn: 0n };
        perBot.set(rc.from, { n: cur.n + 1, burn: cur.burn + BigInt(rc.gasUsed) * BigInt(rc.effectiveGasPrice) });
      }
    }
    const expected = [...perBot].filter(([, v]) => v.n >= BOT_MIN_FAILS);
    expect(a.bleeding_bots.map((b: any) => b.addr).sort()).toEqual(expected.map(([k]) => k).sort());
    for (const b of a.bleeding_bots) {
      expect(DEVNET_BOTS).toContain(b.addr);
      expect(b.gas_burned_wei).toBe(perBot.get(b.addr)!.burn.toString());
      expect(b.failed_txs).toBe(perBot.get(b.addr)!.n);
      expect(b.reasons.out_of_gas + b.reasons.reverted + b.reasons.priority_gas_auction).toBe(b.failed_txs);
    }
    const totalBurn = expected.reduce((x, [, v]) => x + v.burn, 0n);
    // ETH figures are whole gwei (wei / 10^9, truncated).
    expect(a.totals.gas_bleed_eth).toBe(Number(totalBurn / 10n ** 9n) / 1e9);
    expect(a.totals.gas_bleed_usd).toBeCloseTo(a.totals.gas_bleed_eth * DEVNET_ETH_USD, 1);
    expect(a.bleeding_bots.some((b: any) => b.reasons.out_of_gas > 0)).toBe(true);
    expect(a.bleeding_bots.some((b: any) => b.reasons.priority_gas_auction > 0)).toBe(true);

    // The free summary is the redaction of this very answer.
    const summary = await s.call("GET", "/v1/counter-mev/summary");
    expect(summary.json).toEqual(summarizeCounterMev(a));
  });

  it("min_band narrows the lists but not the totals", async () => {
    const r = await s.paidGet("/v1/premium/counter-mev?min_band=critical");
    expect(r.status).toBe(200);
    expect(r.json.spenders.every((x: any) => x.risk_band === "critical")).toBe(true);
    expect(r.json.dangling_approvals.every((x: any) => x.risk_band === "critical")).toBe(true);
    const all = await s.call("GET", "/v1/counter-mev/summary");
    expect(r.json.totals).toEqual(all.json.totals);
  });
});

/**
 * /v1/q/address-risk reads the same approval scan (and the same risk-list
 * set) as this feed: a spender, token or owner the scan flags gets the signal
 * and a higher score, with the feed's own numbers; an address the scan never
 * met gets none.
 */
describe("address-risk from the approval scan", () => {
  const risk = async (addr: string) => {
    const r = await s.paidGet(`/v1/q/address-risk?addr=${addr}`);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json;
  };
  const approvalFlags = (j: any) => j.flags.filter((f: any) => ["malicious_spender", "risky_token", "dangling_approvals"].includes(f.flag)).map((f: any) => f.flag);

  it("flags what the scan flags, scored as the feed scores it, and nothing for an address it never met", async () => {
    // The scan has run (above); the paid feed is the reference.
    const feed = await s.paidGet("/v1/premium/counter-mev?min_band=low");
    expect(feed.status).toBe(200);
    const window = feed.json.block_window;

    // An unlisted drainer EOA: no list names it; only the scan knows it.
    const drainer = DEVNET_SPENDERS.drainerUnlisted.address;
    const row = feed.json.spenders.find((x: any) => x.address === drainer);
    expect(row).toMatchObject({ risk_band: "critical" });
    const d = await risk(drainer);
    expect(d.lists.every((l: any) => !l.listed)).toBe(true);
    expect(d.approvals).toMatchObject({ present: true, fresh: true, window: { from_block: window.from_block, to_block: window.to_block, blocks: window.blocks } });
    expect(d.approvals.as_spender).toMatchObject({ risk_score: row.risk_score, risk_band: row.risk_band, distinct_victims: row.distinct_victims, unlimited_live: row.unlimited_live, top_flag: row.top_flag });
    expect(d.flags).toContainEqual(expect.objectContaining({ flag: "malicious_spender", weight: 60 }));
    expect(d.risk_score).toBe(60);
    expect(d.risk_band).toBe("high");

    // The listed risky token: its list factor (the shared set) plus the scan's token score.
    const tokenRow = feed.json.tokens.find((x: any) => x.address === DEVNET_RISKY_TOKEN);
    const t = await risk(DEVNET_RISKY_TOKEN);
    expect(t.flags).toContainEqual(expect.objectContaining({ flag: "phishing_risk", weight: 50, detail: expect.stringContaining("devnet-risk-list") }));
    expect(t.approvals.as_token).toMatchObject({ risk_score: tokenRow.risk_score, approvals: tokenRow.approvals });
    expect(t.flags).toContainEqual(expect.objectContaining({ flag: "risky_token", weight: 40 }));
    expect(t.risk_score).toBe(90);

    // An owner holding a dangling approval: the victim side.
    const dangling = feed.json.dangling_approvals[0];
    const o = await risk(dangling.owner);
    expect(o.approvals.dangling).toContainEqual(expect.objectContaining({ token: dangling.token, spender: dangling.spender, risk_score: dangling.risk_score }));
    expect(o.flags).toContainEqual(expect.objectContaining({ flag: "dangling_approvals", weight: 20 }));
    expect(o.risk_score).toBeGreaterThanOrEqual(20);

    // A bot: its reverted transactions are reported, not scored.
    const botRow = feed.json.bleeding_bots[0];
    expect(DEVNET_BOTS).toContain(botRow.addr);
    const bot = await risk(botRow.addr);
    expect(bot.approvals.failed_txs).toBe(botRow.failed_txs);
    expect(bot.flags).toEqual([]);

    // An address the scan never met: no approval signal, no score.
    const unknown = await risk("0x00000000000000000000000000000000000b0b01");
    expect(unknown.approvals).toMatchObject({ present: true, as_spender: null, as_token: null, dangling: [], failed_txs: 0 });
    expect(approvalFlags(unknown)).toEqual([]);
    expect(unknown.risk_score).toBe(0);
    expect(d.risk_score).toBeGreaterThan(unknown.risk_score);
  });
});
