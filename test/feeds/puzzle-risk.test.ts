/**
 * Puzzle risk: the classifier on bytecode the test describes, then the feed
 * end to end on the devnet L1 (code, balances and answer hashes read over
 * JSON-RPC): the summary's shape field by field, the lookup, a paid call with
 * a devnet payment, and the summary as the redaction of the paid answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toBytes } from "viem";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";
import { classifyPuzzle } from "../../src/feeds/puzzle-classify.js";
import { summarizePuzzleRisk } from "../../src/feeds/puzzle-risk.js";
import { assemble, DEVNET_PUZZLES, QUIZ_CODE } from "../../devnet/puzzles.js";

const keys = (o: object) => Object.keys(o).sort();

describe("classifyPuzzle on described bytecode", () => {
  it("gives each devnet contract its verdict", () => {
    for (const p of DEVNET_PUZZLES) {
      const v = classifyPuzzle({ code: p.code, balanceWei: p.balance, knownAnswer: p.answer, storedHash: p.storedHash });
      expect(v.classification, p.label).toBe(p.expected);
      expect(v.reason.length, p.label).toBeGreaterThan(10);
      expect(v.frontrunExposed, p.label).toBe(p.expected === "frontrun_bait");
    }
  });

  it("a quiz whose stored hash matches the published answer is bait; swapped it is an owner-only trap", () => {
    const live = classifyPuzzle({ code: QUIZ_CODE, balanceWei: 1n, knownAnswer: "echo", storedHash: keccak256(toBytes("echo")) });
    expect(live.classification).toBe("frontrun_bait");
    expect(live.signals).toEqual(expect.arrayContaining(["selector:0x3853682c", "selector:0xed8df164", "selector:0xbedf0f4a"]));
    const swapped = classifyPuzzle({ code: QUIZ_CODE, balanceWei: 1n, knownAnswer: "echo", storedHash: keccak256(toBytes("other")) });
    expect(swapped.classification).toBe("owner_only_payout");
    // Without a known answer nothing says the hash was swapped: still bait.
    expect(classifyPuzzle({ code: QUIZ_CODE, balanceWei: 1n }).classification).toBe("frontrun_bait");
  });

  it("reads opcodes, not push data; proxies and empty code are indeterminate", () => {
    // A PUSH32 whose data holds the Try selector and a CALL byte: neither is code.
    const hidden = assemble([`63${"3853682c"}f1${"00".repeat(26)}`, 0x50, 0x00]);
    expect(classifyPuzzle({ code: hidden, balanceWei: 10n }).classification).toBe("locked_no_payout");
    expect(classifyPuzzle({ code: "0x", balanceWei: 10n })).toMatchObject({ classification: "indeterminate", reason: "no contract code at this address" });
    const minimalProxy = `0x363d3d373d3d3d363d73${"ab".repeat(20)}5af43d82803e903d91602b57fd5bf3`;
    expect(classifyPuzzle({ code: minimalProxy, balanceWei: 10n }).classification).toBe("indeterminate");
    expect(classifyPuzzle({ code: `0xef0100${"cd".repeat(20)}`, balanceWei: 10n }).classification).toBe("indeterminate");
    expect(classifyPuzzle({ code: QUIZ_CODE, balanceWei: 0n }).classification).toBe("unfunded");
    // SELFDESTRUCT is a payout path too.
    expect(classifyPuzzle({ code: assemble([0x33, 0xff]), balanceWei: 10n }).classification).toBe("claimable");
  });
});

describe("puzzle risk on the devnet", () => {
  let s: WatchStack;
  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
  }, 60_000);
  afterAll(async () => s?.close());

  it("the summary has exactly the spec's shape, field by field", async () => {
    const r = await s.call("GET", "/v1/puzzle-risk/summary");
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const j = r.json;
    expect(keys(j)).toEqual(
      ["as_of_ms", "generated_at_ms", "freshness", "chain", "chains", "head_block", "totals", "top", "note", "premium_endpoint", "present", "source_freshness_s"].sort(),
    );
    expect(keys(j.freshness)).toEqual(["age_s", "stale", "stale_after_s"]);
    expect(j.chain).toBe("multi");
    const head = Number(s.devnet.ethereum!.head().number);
    expect(j.chains).toEqual({ "eip155:1337": { head_block: head, chain_id: 1337 } });
    expect(j.head_block).toBe(head);
    expect(keys(j.totals)).toEqual(["by_class", "eth_at_frontrun_risk", "eth_claimable", "eth_locked_no_payout", "funded", "watched"]);
    expect(j.totals.by_class).toEqual({ unfunded: 1, locked_no_payout: 1, frontrun_bait: 2, owner_only_payout: 2, claimable: 1, indeterminate: 1 });
    expect(j.totals.watched).toBe(DEVNET_PUZZLES.length);
    expect(j.totals.funded).toBe(DEVNET_PUZZLES.filter((p) => p.balance > 0n).length);
    expect(j.totals.eth_locked_no_payout).toBe(3);
    expect(j.totals.eth_at_frontrun_risk).toBe(2.5);
    expect(j.totals.eth_claimable).toBe(0.1);
    expect(j.top).toHaveLength(5);
    for (const t of j.top) expect(keys(t)).toEqual(["address", "balance_eth", "chain", "classification", "frontrun_exposed", "label"]);
    expect(j.top.map((t: any) => t.balance_eth)).toEqual([3, 2, 1.2, 0.7, 0.5]);
    expect(j.top[1]).toMatchObject({ label: "Riddle quiz", classification: "frontrun_bait", frontrun_exposed: true, chain: "eip155:1337" });
    expect(j).toMatchObject({ premium_endpoint: "/v1/premium/puzzle-risk", present: true, freshness: { stale: false } });
    expect(j.source_freshness_s).toBe(j.freshness.age_s);
  });

  it("the lookup gives one contract's verdict with its reason, watched or not", async () => {
    for (const p of DEVNET_PUZZLES) {
      const r = await s.call("GET", `/v1/puzzle-risk/lookup?address=${p.address.toUpperCase().replace("0X", "0x")}`);
      expect(r.status, p.label).toBe(200);
      expect(r.json, p.label).toMatchObject({ address: p.address, label: p.label, watched: true, classification: p.expected });
      expect(r.json.reason.length).toBeGreaterThan(10);
    }
    const eoa = await s.call("GET", `/v1/puzzle-risk/lookup?address=0x${"12".repeat(20)}`);
    expect(eoa.json).toMatchObject({ watched: false, label: null, classification: "indeterminate", reason: "no contract code at this address" });
    const bad = await s.call("GET", "/v1/puzzle-risk/lookup?address=0x1234");
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
  });

  it("the paid feed ($0.05) is the whole annotated watchlist; the summary is its redaction", async () => {
    expect((await s.call("GET", "/v1/premium/puzzle-risk")).status).toBe(402);
    const before = s.devnet.evm.usdcBalanceOf(s.payer.address);
    const res = await s.payer.payFetch(`${s.url}/v1/premium/puzzle-risk`);
    const a = (await res.json()) as any;
    expect(res.status, JSON.stringify(a)).toBe(200);
    expect(before - s.devnet.evm.usdcBalanceOf(s.payer.address)).toBe(50_000n);
    expect(a.contracts).toHaveLength(DEVNET_PUZZLES.length);
    for (const p of DEVNET_PUZZLES) {
      const row = a.contracts.find((c: any) => c.address === p.address);
      expect(row, p.label).toMatchObject({ classification: p.expected, balance_wei: p.balance.toString(), code_bytes: (p.code.length - 2) / 2 });
    }
    const summary = await s.call("GET", "/v1/puzzle-risk/summary");
    expect(summary.json).toEqual(summarizePuzzleRisk(a));
  });
});
