/**
 * /v1/q/address-risk: what the service knows of an Ethereum address, from
 *   - the node: its code (`eth_getCode`): an EOA, an EOA delegated under
 *     EIP-7702 (code `0xef0100` ‖ delegate), or a contract;
 *   - the public risk lists (RISK_LISTS, chains/ethereum/risk-lists.ts: the
 *     same set the counter-MEV scores read);
 *   - the approval scan (feeds/counter-mev.ts `approvalRiskOf`, handed in
 *     by app.ts; the counter-MEV feed's window and scoring): the address as a flagged
 *     spender, as a risky token, as the owner of dangling approvals, and its
 *     reverted transactions;
 *   - the lending indexer: positions (lowest health factor), liquidations
 *     suffered as borrower and made as liquidator within the retention;
 *   - the builder data: blocks whose fee recipient it was (stored headers)
 *     and MEV-Boost payloads paying it as proposer fee recipient.
 * Score (docs/ethereum.md, Address risk): each list factor weighs its
 * risk-list weight (sanctioned, blocklist, exploit 100; phishing 50; …); a
 * malicious spender 60, a risky token 40, dangling approvals held 20; a
 * liquidatable position 30; a liquidation suffered 20; a position at
 * HF ≤ 1.1 10; the sum is capped at 100 and banded critical ≥ 90, high
 * 60–89, medium 25–59, low < 25. Builder and proposer roles and reverted
 * transactions are reported, not scored.
 *
 * The answer says how old each source is (`lending_age_s`, `approvals.age_s`,
 * the lists' `age_s`); stale lending or approval data is reported as such
 * and scores nothing.
 */
import { z } from "zod";
import { unavailable } from "../../core/errors.js";
import { UpstreamError } from "../../core/upstream.js";
import { isLiquidatable, wadToNumber, WAD, baseToUsd } from "../../chains/ethereum/lending.js";
import { cursors, liquidationsSince, positionsOf } from "../../ingest/index.js";
import { FACTOR_WEIGHTS, type RiskLists } from "../../chains/ethereum/risk-lists.js";
import { isFlaggedBand, RISKY_TOKEN_SCORE, type ApprovalRisk } from "../../chains/ethereum/approval-risk.js";
import type { QuestionDef } from "../question.js";
import { parseAddress, type LendingQuestionDeps } from "./lending.js";

/** Weights of the signals that are not list factors (list factors weigh FACTOR_WEIGHTS). */
export const RISK_WEIGHTS = { malicious_spender: 60, risky_token: 40, dangling_approvals: 20, liquidatable: 30, liquidated: 20, at_risk: 10 } as const;
export const AT_RISK_HF = (110n * WAD) / 100n;

export const addressRiskAnswer = z.object({
  addr: z.string(),
  account_kind: z.enum(["eoa", "eoa_delegated", "contract", "unknown"]).describe("from eth_getCode; unknown when the node does not serve it"),
  delegate: z.string().nullable().describe("EIP-7702 delegate of a delegated EOA"),
  risk_score: z.number().int().describe("0–100: the sum of the flags' weights, capped"),
  risk_band: z.enum(["critical", "high", "medium", "low"]),
  flags: z.array(z.object({ flag: z.string(), weight: z.number().int(), detail: z.string() })),
  lists: z
    .array(z.object({ list: z.string(), factor: z.string().describe("the list's factor; a structured list: the entry's factors joined by '+', or 'per_entry' when the address is not on it"), listed: z.boolean(), age_s: z.number().int() }))
    .describe("every configured list, whether the address is on it, and the list's age"),
  approvals: z
    .object({
      present: z.boolean().describe("whether the approval scan has run"),
      fresh: z.boolean().describe("stale data is reported and scores nothing"),
      age_s: z.number().int().nullable().describe("age of the newest scanned block"),
      window: z.object({ from_block: z.number().int(), to_block: z.number().int(), blocks: z.number().int() }).describe("the blocks this reflects: the counter-MEV feed's default window"),
      as_spender: z
        .object({ risk_score: z.number().int(), risk_band: z.string().nullable(), distinct_victims: z.number().int(), unlimited_live: z.boolean(), factors: z.array(z.string()), top_flag: z.string().nullable() })
        .nullable()
        .describe("the address as an approval spender in the window, scored as the feed scores spenders"),
      as_token: z
        .object({ risk_score: z.number().int(), risk_band: z.string().nullable(), approvals: z.number().int(), flagged_share: z.number(), factors: z.array(z.string()), top_flag: z.string().nullable() })
        .nullable()
        .describe("the address as a token with live approvals in the window"),
      dangling: z
        .array(z.object({ token: z.string(), spender: z.string(), unlimited: z.boolean(), risk_score: z.number().int(), risk_band: z.string(), reason: z.string() }))
        .describe("the address's own live allowances to an EOA or a high/critical spender"),
      failed_txs: z.number().int().describe("reverted transactions it sent in the window (reported, not scored)"),
    })
    .describe("what the counter-MEV approval scan knows of the address"),
  lending: z.object({
    positions: z.number().int(),
    lowest_health_factor: z.number().nullable(),
    liquidatable: z.boolean(),
    debt_usd: z.string().nullable().describe("debt of the lowest-HF position"),
    liquidated_as_borrower: z.number().int().describe("liquidations suffered within the retention"),
    liquidations_as_liquidator: z.number().int().describe("liquidations made within the retention"),
  }),
  lending_age_s: z.number().int().nullable().describe("age of the lending data; null when nothing is indexed"),
  lending_fresh: z.boolean(),
  builder: z.object({
    fee_recipient_blocks: z.number().int().describe("stored blocks whose fee recipient is the address"),
    proposer_payloads: z.number().int().describe("stored MEV-Boost payloads paying it as proposer fee recipient"),
  }),
  method: z.string(),
});

export interface AddressRiskDeps extends LendingQuestionDeps {
  lists: RiskLists;
  /** The approval scan's view of an address, scored as the counter-MEV feed scores it over its window. */
  approvalRisk: (address: string) => Promise<ApprovalRisk>;
}

/** How the score is made, said with every answer. */
const ADDRESS_RISK_METHOD =
  "docs/ethereum.md, Address risk: list factors at their risk-list weight (sanctioned/blocklist/exploit 100, phishing 50, …); approval scan (counter-MEV window): malicious spender 60, risky token 40, dangling approvals 20; liquidatable 30, liquidated 20, HF ≤ 1.1 10; stale sources score nothing; capped at 100; critical ≥ 90, high ≥ 60, medium ≥ 25";

const band = (score: number) => (score >= 90 ? "critical" : score >= 60 ? "high" : score >= 25 ? "medium" : "low");

export function addressRiskQuestion(deps: AddressRiskDeps): QuestionDef {
  const { db, rpc, clock } = deps;
  return {
    path: "address-risk",
    summary: "What the service knows of an Ethereum address: account kind, public-list hits, approval risk (malicious spender, risky token, dangling approvals), lending positions and liquidations, builder roles, with a 0–100 score",
    source: "ethereum",
    params: [{ name: "addr", required: true, description: "Ethereum address", format: "0x-address" }],
    answer: addressRiskAnswer,
    example: {
      params: { addr: "0x7776a078888720127287969d0ed7dc926f35e318" },
      answer: {
        addr: "0x7776a078888720127287969d0ed7dc926f35e318",
        account_kind: "eoa",
        delegate: null,
        risk_score: 60,
        risk_band: "high",
        flags: [
          {
            flag: "malicious_spender",
            weight: 60,
            detail: "approval spender scored 100 (critical; eoa), live allowances from 14 owner(s) in blocks 24142801–24150000",
          },
        ],
        lists: [
          { list: "ofac-sdn", factor: "sanctioned", listed: false, age_s: 3_600 },
          { list: "approval-exploits", factor: "per_entry", listed: false, age_s: 3_600 },
        ],
        approvals: {
          present: true,
          fresh: true,
          age_s: 24,
          window: { from_block: 24_142_801, to_block: 24_150_000, blocks: 7_200 },
          as_spender: { risk_score: 100, risk_band: "critical", distinct_victims: 14, unlimited_live: true, factors: ["eoa"], top_flag: "eoa" },
          as_token: null,
          dangling: [],
          failed_txs: 0,
        },
        lending: { positions: 0, lowest_health_factor: null, liquidatable: false, debt_usd: null, liquidated_as_borrower: 0, liquidations_as_liquidator: 0 },
        lending_age_s: 12,
        lending_fresh: true,
        builder: { fee_recipient_blocks: 0, proposer_payloads: 0 },
        method: ADDRESS_RISK_METHOD,
      } satisfies z.input<typeof addressRiskAnswer>,
    },
    available: () => rpc.configured,
    check: (p) => void parseAddress(p.addr),
    answerQuestion: async (p, signal) => {
      const addr = parseAddress(p.addr);
      if (!rpc.configured) throw unavailable("chain_not_configured", "No Ethereum node is configured (ETH_RPC_URL).", { chain: "ethereum", source: "eth_rpc" });
      let code: string | null;
      try {
        code = String(await rpc.call("eth_getCode", [addr, "latest"], signal)).toLowerCase();
      } catch (e) {
        // The node answered with a JSON-RPC error (method not served): the kind stays unknown. A node that is down fails the answer.
        if (e instanceof UpstreamError && e.rpcCode !== undefined) code = null;
        else throw e;
      }
      const delegated = code !== null && /^0xef0100[0-9a-f]{40}$/.test(code);
      const kind = code === null ? "unknown" : code === "0x" ? "eoa" : delegated ? "eoa_delegated" : "contract";

      const nowMs = clock.now();
      const nowS = Math.floor(nowMs / 1000);
      const ids = deps.markets.map((m) => m.id);
      const cs = new Map((await cursors(db)).map((c) => [c.market, c]));
      const times = ids.map((id) => cs.get(id)?.lastBlockTimeS ?? null);
      const lendingAge = times.some((t) => t === null) ? null : Math.max(0, nowS - Math.min(...(times as number[])));
      const lendingFresh = lendingAge !== null && lendingAge <= deps.maxAgeSeconds;
      const positions = await positionsOf(db, addr, ids);
      const suffered = await liquidationsSince(db, ids, 0, addr);
      const made = await db
        .selectFrom("lending_liquidations")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("liquidator", "=", addr)
        .executeTakeFirstOrThrow();
      const [blocks, payloads] = await Promise.all([
        db.selectFrom("eth_headers").select((eb) => eb.fn.countAll<string>().as("n")).where("miner", "=", addr).executeTakeFirstOrThrow(),
        db.selectFrom("relay_payloads").select((eb) => eb.fn.count<string>("slot").distinct().as("n")).where("proposer_fee_recipient", "=", addr).executeTakeFirstOrThrow(),
      ]);

      const approvals = await deps.approvalRisk(addr);
      const approvalsFresh = approvals.present && !approvals.stale;

      const flags: { flag: string; weight: number; detail: string }[] = [];
      const hits = deps.lists.lookup(addr);
      for (const h of hits)
        for (const f of h.factors) flags.push({ flag: f, weight: FACTOR_WEIGHTS[f], detail: `listed on ${h.list}${h.kind === "any" ? "" : ` as a ${h.kind}`}${h.label ? ` (${h.label})` : ""}` });
      if (approvalsFresh) {
        const sp = approvals.spender;
        if (sp && isFlaggedBand(sp.risk_band))
          flags.push({ flag: "malicious_spender", weight: RISK_WEIGHTS.malicious_spender, detail: `approval spender scored ${sp.risk_score} (${sp.risk_band}; ${sp.top_flag ?? "score"}), live allowances from ${sp.distinct_victims} owner(s) in blocks ${approvals.window.from_block}–${approvals.window.to_block}` });
        const tk = approvals.token;
        if (tk && tk.risk_score >= RISKY_TOKEN_SCORE)
          flags.push({ flag: "risky_token", weight: RISK_WEIGHTS.risky_token, detail: `token scored ${tk.risk_score} (${tk.risk_band}; ${tk.top_flag ?? "score"}) over ${tk.approvals} live approval(s)` });
        if (approvals.dangling.length > 0)
          flags.push({ flag: "dangling_approvals", weight: RISK_WEIGHTS.dangling_approvals, detail: `${approvals.dangling.length} live allowance(s) to a risky spender, worst ${approvals.dangling[0]!.spender} (${approvals.dangling[0]!.reason})` });
      }
      const worst = positions[0];
      if (lendingFresh && worst) {
        if (isLiquidatable(worst.healthFactorWad, worst.debtBase)) flags.push({ flag: "liquidatable", weight: RISK_WEIGHTS.liquidatable, detail: `${worst.market} health factor ${wadToNumber(worst.healthFactorWad)}` });
        else if (worst.healthFactorWad <= AT_RISK_HF) flags.push({ flag: "at_risk", weight: RISK_WEIGHTS.at_risk, detail: `${worst.market} health factor ${wadToNumber(worst.healthFactorWad)}` });
      }
      if (suffered.length > 0) flags.push({ flag: "liquidated", weight: RISK_WEIGHTS.liquidated, detail: `${suffered.length} liquidation(s) as borrower, newest in block ${suffered[0]!.blockNumber}` });
      const score = Math.min(100, flags.reduce((a, f) => a + f.weight, 0));

      return addressRiskAnswer.parse({
        addr,
        account_kind: kind,
        delegate: delegated ? `0x${code!.slice(8)}` : null,
        risk_score: score,
        risk_band: band(score),
        flags,
        lists: deps.lists.lists.map((l) => {
          const hit = hits.filter((h) => h.list === l.name);
          const factor = l.format === "addresses" ? l.factor : hit.length ? [...new Set(hit.flatMap((h) => h.factors))].join("+") : "per_entry";
          return { list: l.name, factor, listed: hit.length > 0, age_s: Math.max(0, Math.floor((nowMs - l.modifiedMs) / 1000)) };
        }),
        approvals: {
          present: approvals.present,
          fresh: approvalsFresh,
          age_s: approvals.age_s,
          window: approvals.window,
          as_spender: approvals.spender,
          as_token: approvals.token,
          dangling: approvals.dangling,
          failed_txs: approvals.failed_txs,
        },
        lending: {
          positions: positions.length,
          lowest_health_factor: worst ? wadToNumber(worst.healthFactorWad) : null,
          liquidatable: worst ? isLiquidatable(worst.healthFactorWad, worst.debtBase) : false,
          debt_usd: worst ? baseToUsd(worst.debtBase) : null,
          liquidated_as_borrower: suffered.length,
          liquidations_as_liquidator: Number(made.n),
        },
        lending_age_s: lendingAge,
        lending_fresh: lendingFresh,
        builder: { fee_recipient_blocks: Number(blocks.n), proposer_payloads: Number(payloads.n) },
        method: ADDRESS_RISK_METHOD,
      });
    },
  };
}
