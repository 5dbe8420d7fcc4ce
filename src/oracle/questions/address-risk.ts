/**
 * /v1/q/address-risk: what the service knows of an Ethereum address, from
 *   - the node: its code (`eth_getCode`): an EOA, an EOA delegated under
 *     EIP-7702 (code `0xef0100` ‖ delegate), or a contract;
 *   - the configured public lists (address-lists.ts, ADDRESS_RISK_LISTS);
 *   - the lending indexer: positions (lowest health factor), liquidations
 *     suffered as borrower and made as liquidator within the retention;
 *   - the builder data: blocks whose fee recipient it was (stored headers)
 *     and MEV-Boost payloads paying it as proposer fee recipient.
 * Score (docs/ethereum.md, Address risk): list hits weigh 100 (sanctioned,
 * blocklist, exploit) or 50 (phishing); a liquidatable position 30; a
 * liquidation suffered 20; a position at HF ≤ 1.1 10; the sum is capped at
 * 100 and banded critical ≥ 90, high 60–89, medium 25–59, low < 25. Builder
 * and proposer roles are reported, not scored.
 *
 * The answer says how old each source is (`lending_age_s`, the lists'
 * `age_s`); stale lending data is reported as such (`lending_fresh` false)
 * and scores nothing.
 */
import { z } from "zod";
import { unavailable } from "../../core/errors.js";
import { UpstreamError } from "../../core/upstream.js";
import { isLiquidatable, wadToNumber, WAD, baseToUsd } from "../../chains/ethereum/lending.js";
import { cursors, liquidationsSince, positionsOf } from "../lending-store.js";
import type { AddressLists } from "../address-lists.js";
import type { QuestionDef } from "../question.js";
import { parseAddress, type LendingQuestionDeps } from "./lending.js";

export const RISK_WEIGHTS = { sanctioned: 100, blocklist: 100, exploit: 100, phishing: 50, liquidatable: 30, liquidated: 20, at_risk: 10 } as const;
export const AT_RISK_HF = (110n * WAD) / 100n;

export const addressRiskAnswer = z.object({
  addr: z.string(),
  account_kind: z.enum(["eoa", "eoa_delegated", "contract", "unknown"]).describe("from eth_getCode; unknown when the node does not serve it"),
  delegate: z.string().nullable().describe("EIP-7702 delegate of a delegated EOA"),
  risk_score: z.number().int().describe("0–100: the sum of the flags' weights, capped"),
  risk_band: z.enum(["critical", "high", "medium", "low"]),
  flags: z.array(z.object({ flag: z.string(), weight: z.number().int(), detail: z.string() })),
  lists: z.array(z.object({ list: z.string(), factor: z.string(), listed: z.boolean(), age_s: z.number().int() })).describe("every configured list, whether the address is on it, and the list's age"),
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
  lists: AddressLists;
}

const band = (score: number) => (score >= 90 ? "critical" : score >= 60 ? "high" : score >= 25 ? "medium" : "low");

export function addressRiskQuestion(deps: AddressRiskDeps): QuestionDef {
  const { db, rpc, clock } = deps;
  return {
    path: "address-risk",
    summary: "What the service knows of an Ethereum address: account kind, public-list hits, lending positions and liquidations, builder roles, with a 0–100 score",
    source: "ethereum",
    params: [{ name: "addr", required: true, description: "Ethereum address", format: "0x-address" }],
    answer: addressRiskAnswer,
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

      const flags: { flag: string; weight: number; detail: string }[] = [];
      const hits = deps.lists.lookup(addr);
      for (const h of hits) flags.push({ flag: h.factor, weight: RISK_WEIGHTS[h.factor], detail: `listed on ${h.list}` });
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
        lists: deps.lists.lists.map((l) => ({ list: l.name, factor: l.factor, listed: l.addresses.has(addr), age_s: Math.max(0, Math.floor((nowMs - l.modifiedMs) / 1000)) })),
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
        method: "docs/ethereum.md, Address risk: list hits 100 (phishing 50), liquidatable 30, liquidated 20, HF ≤ 1.1 10; capped at 100; critical ≥ 90, high ≥ 60, medium ≥ 25",
      });
    },
  };
}
