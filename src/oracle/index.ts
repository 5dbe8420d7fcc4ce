/**
 * The face of the Penny Oracle: every question of the contract (Monero,
 * Zcash, Ethereum fees, lending, builders, address risk) in one registry,
 * its routes and the `service_q` dispatcher tool, and the flash-loan
 * catalogue. The builder and lending questions read what Ethereum ingestion
 * stored; address risk also reads the feeds' approval scan.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import type { IngestModule } from "../ingest/index.js";
import { createOracleRegistry, type OracleRegistry } from "./registry.js";
import { oracleRoutes } from "./routes.js";
import type { QuestionDef } from "./question.js";
import { moneroQuestions } from "./questions/monero.js";
import { ethereumQuestions } from "./questions/ethereum.js";
import { zcashQuestions } from "./questions/zcash.js";
import { builderQuestions, relayFreshnessSources } from "./questions/builders.js";
import { combineFreshnessSources, lendingFreshnessSource, lendingQuestions } from "./questions/lending.js";
import { addressRiskQuestion, type AddressRiskDeps } from "./questions/address-risk.js";
import { flashloanRoutes } from "./flashloan-routes.js";
import { SPEC_QUESTIONS } from "./spec-questions.js";

export type { OracleRegistry } from "./registry.js";
export { zecPoolsAnswer } from "./questions/zcash.js";

export interface OracleModule extends ServiceModule {
  registry: OracleRegistry;
}

/** `risk`: the public risk lists and the approval scan's score of an address (the feeds module offers both). */
export function createOracleModule(ctx: ModuleContext, ingest: IngestModule, risk: Pick<AddressRiskDeps, "lists" | "approvalRisk">): OracleModule {
  const { config, clock, upstreams } = ctx;
  const { relays, lending } = ingest.reads;
  const questions: QuestionDef[] = [
    ...moneroQuestions({ daemon: upstreams.moneroDaemon, clock }),
    ...ethereumQuestions({
      rpc: upstreams.ethRpc,
      db: ctx.database.db,
      clock,
      maxAgeSeconds: config.ETH_MAX_AGE_SECONDS,
      extraSources: combineFreshnessSources(relayFreshnessSources(relays), lendingFreshnessSource(lending)),
    }),
    ...lendingQuestions(lending),
    addressRiskQuestion({ ...lending, ...risk }),
    ...builderQuestions(relays),
    ...zcashQuestions({ zebrad: upstreams.zebrad, clock }),
  ];
  // Every question of the contract is listed; the ones without a declaration yet as not implemented.
  const registry = createOracleRegistry(questions, clock, SPEC_QUESTIONS);
  return {
    name: "oracle",
    registry,
    routes: [...oracleRoutes(registry), ...registry.routes, ...flashloanRoutes({ rpc: upstreams.ethRpc, clock })],
    tools: registry.tools,
  };
}
