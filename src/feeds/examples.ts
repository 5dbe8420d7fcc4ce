/**
 * Example answers of the paid feeds, for catalogues and agents (the bazaar
 * extension of each route's 402, `RouteDef.example`): what a call on mainnet
 * on 2026-01-01 looks like, shortened to one or two rows per list so the 402
 * stays small. Each is typed by its route's output schema, and
 * test/http/route-examples.test.ts parses it with that schema and checks
 * that the values are ones a real answer could hold.
 */
import type { z } from "zod";
import type { BuilderStatsOutput } from "./builder-stats.js";
import type { OpportunitiesOutput } from "./opportunities.js";
import type { CounterMevOutput } from "./counter-mev.js";
import type { PuzzleRiskOutput } from "./puzzle-risk.js";

/** 2026-01-01T00:00:00Z, the instant the examples describe. */
const AS_OF_MS = 1_767_225_600_000;
const RELAYS = ["relay:flashbots", "relay:ultrasound", "relay:bloxroute", "relay:aestus"];
const TITAN_KEY = "0x8216e00e1dc8e15c362ce8083ad01feeb04688dd3a18998a37db1c3c8b641372398c504e1aca2cbddd87c4075482b42f";
const BEAVER_KEY = "0x96a59d355b1f65e270b29981dd113625732539e955a1beeecbc471dd0196c4804574ff871d47ed34ff6d921061e9fc27";

export const BUILDER_STATS_EXAMPLE = {
  window: "24h",
  window_s: 86_400,
  from_s: 1_767_139_199,
  as_of_ms: 1_767_225_599_000,
  generated_at_ms: AS_OF_MS + 2_000,
  source_age_s: 3,
  stale_after_s: 600,
  stale: false,
  present: true,
  relays_ok: RELAYS,
  relays_down: [],
  total_slots: 7_153,
  builders: [
    {
      builder: "Titan",
      pubkeys: [TITAN_KEY],
      slots_won: 3_312,
      share_pct: 46.3,
      bids: 7_101,
      bid_percentiles_wei: {
        p10: "4725424507171964",
        p25: "8022178868032725",
        p50: "16635320648777701",
        p75: "35335930578861144",
        p90: "61234567890123456",
        p99: "264126526864864384",
      },
      hourly_wins: [133, 134, 138, 146, 138, 135, 132, 139, 137, 138, 136, 139, 143, 144, 137, 134, 131, 142, 142, 141, 136, 144, 138, 135],
    },
    {
      builder: "beaverbuild",
      pubkeys: [BEAVER_KEY],
      slots_won: 1_517,
      share_pct: 21.21,
      bids: 6_984,
      bid_percentiles_wei: {
        p10: "4013367858432717",
        p25: "7233273436320438",
        p50: "15176035117600486",
        p75: "32227510225133186",
        p90: "57834281778081960",
        p99: "248807188306702249",
      },
      hourly_wins: [57, 62, 64, 64, 63, 69, 65, 66, 57, 65, 61, 66, 67, 68, 56, 61, 62, 67, 58, 64, 65, 66, 65, 59],
    },
  ],
  global: {
    delivered_blocks: 7_153,
    delivered_value_percentiles_wei: {
      p10: "5118271390011273",
      p25: "9917113054018724",
      p50: "23456789012345678",
      p75: "41870122566301229",
      p90: "72219805544120019",
      p99: "311522950110428881",
    },
    bids: 41_306,
    bid_percentiles_wei: {
      p10: "3807113004812377",
      p25: "7010348811524480",
      p50: "15011946201311785",
      p75: "31006221887450172",
      p90: "55320871120345511",
      p99: "240113387790312008",
    },
    hourly_slots: [297, 296, 298, 297, 299, 297, 299, 298, 300, 300, 296, 299, 300, 296, 300, 296, 299, 298, 300, 296, 298, 298, 300, 296],
  },
} satisfies z.input<typeof BuilderStatsOutput>;

export const FEE_HISTORY_CSV_EXAMPLE =
  "block,timestamp,base_fee_wei,base_fee_gwei,gas_used,gas_limit,blob_gas_used,excess_blob_gas,hash\r\n" +
  "24149999,2025-12-31T23:59:47.000Z,186421906,0.186421906,23061348,45000000,917504,81220315,0xb76e14e5fc79d58558ae18cf470d552555514cf98107f4b84f40870156f2718a\r\n" +
  "24150000,2025-12-31T23:59:59.000Z,187654321,0.187654321,23055525,45000000,786432,81089243,0x12ea18e3b2b87c62d6239b7a396d60663ddb9f299b046b095a24493b61d26e25\r\n";

export const BUILDER_BIDS_CSV_EXAMPLE =
  "slot,slot_time,builder,builder_pubkey,value_wei,value_eth,won\r\n" +
  `13366798,2025-12-31T23:59:59.000Z,Titan,${TITAN_KEY},23456789012345678,0.023456789012345678,true\r\n` +
  `13366798,2025-12-31T23:59:59.000Z,beaverbuild,${BEAVER_KEY},22987110433201555,0.022987110433201555,false\r\n`;

export const OPPORTUNITIES_EXAMPLE = {
  as_of_ms: 1_767_225_587_000,
  generated_at_ms: AS_OF_MS,
  source_age_s: 13,
  stale_after_s: 144,
  stale: false,
  present: true,
  filters: { max_hf: "1.1", min_debt_usd: "10000", protocol: "all", limit: 1, bonus_bps: null },
  totals: { at_risk: 312, at_risk_debt_usd: "96182056.98", liquidatable_now: 2, universe_size: 41_873, liquidations_24h: 57, liquidators_24h: 9 },
  assumptions: {
    gas_units: 450_000,
    base_fee_gwei: "0.187654321",
    tip_gwei: "1",
    eth_usd: "3350.00",
    protocol_fee_bps: 1_000,
    swap_cost_bps: 30,
    flash_fee_bps: 0,
    note: "Gross opportunities: liquidators usually pay most of the bonus to block builders, and oracle-update auctions (Chainlink SVR) return much of it to the protocol. Values of positions not yet liquidatable assume they reach HF 1. Each row's bonus is what its protocol pays (bonus_source) unless bonus_bps is given. Model: docs/feeds.md.",
  },
  opportunities: [
    {
      rank: 1,
      borrower: "0x568c6d6649bd926e6bedd9e4a3ad52ad67daad01",
      protocol: "aave",
      market: "aave-v3-core",
      health_factor: 1.009355,
      liquidatable: false,
      price_drop_to_liquidation_pct: 0.92,
      isolated_market: null,
      collateral_usd: "1011489.02",
      debt_usd: "811712.17",
      close_factor_bps: 5_000,
      bonus_bps: 600,
      bonus_source: "aave_position_reserve",
      collateral_reserve: "0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0",
      emode_category: null,
      protocol_fee_bps: 1_000,
      repayable_usd: "405856.08",
      gross_bonus_usd: "24351.36",
      protocol_cut_usd: "2435.13",
      swap_cost_usd: "1290.62",
      gas_usd: "1.79",
      net_usd: "20623.82",
      win_share_bps: 1_250,
      expected_value_usd: "2577.97",
      refreshed_block: 24_149_998,
    },
  ],
} satisfies z.input<typeof OpportunitiesOutput>;

export const COUNTER_MEV_EXAMPLE = {
  as_of_ms: 1_767_225_575_000,
  generated_at_ms: AS_OF_MS,
  freshness: { age_s: 25, stale_after_s: 300, stale: false },
  chain: "ethereum",
  block_window: { from_block: 24_142_801, to_block: 24_150_000, blocks: 7_200 },
  totals: { risky_tokens: 3, malicious_spenders: 11, dangling_approvals: 164, bleeding_bots: 27, gas_bleed_eth: 0.84213377, gas_bleed_usd: 2821.15 },
  risk_distribution: {
    malicious_spenders: { critical: 6, high: 3, medium: 2, low: 41 },
    risky_tokens: { critical: 0, high: 1, medium: 2, low: 19 },
    dangling_approvals: { critical: 120, high: 44, medium: 0, low: 0 },
  },
  note: "Scores follow the documented model (docs/feeds.md, Counter-MEV): public risk-list factors, EOA spenders, unlimited live allowances, victim counts; bleeding bots are senders with repeated reverted transactions.",
  premium_endpoint: "/v1/premium/counter-mev",
  present: true,
  source_freshness_s: 25,
  filters: { min_band: "high", window_blocks: 7_200 },
  eth_usd: 3350,
  risk_lists: ["ofac-sdn", "approval-exploits"],
  spenders: [
    {
      address: "0x7776a078888720127287969d0ed7dc926f35e318",
      risk_score: 100,
      risk_band: "critical",
      distinct_victims: 14,
      top_flag: "eoa",
      kind: "eoa",
      approvals: 19,
      unlimited_live: true,
      factors: ["eoa"],
      labels: [],
    },
  ],
  tokens: [
    {
      address: "0xea08b2a450c5c1468ceb6d399f14ae6a52074de6",
      risk_score: 70,
      risk_band: "high",
      approvals: 48,
      flagged_share: 0.35,
      top_flag: "phishing_risk",
      factors: ["phishing_risk"],
      labels: ["airdrop-claim lure"],
    },
  ],
  dangling_approvals: [
    {
      token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
      owner: "0x6451df811448636c054e6119d71f974249ee9699",
      spender: "0x7776a078888720127287969d0ed7dc926f35e318",
      allowance: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
      unlimited: true,
      approved_block: 24_147_112,
      allowance_checked_block: 24_150_000,
      risk_score: 100,
      risk_band: "critical",
      reason: "spender is an externally owned account",
    },
  ],
  bleeding_bots: [
    {
      addr: "0xaff30ccf456fa5e8a77ab940564e649495427187",
      gas_burned_usd: 412.87,
      dominant_reason: "reverted",
      failed_txs: 96,
      gas_burned_wei: "123245671200000000",
      gas_burned_eth: 0.1232456712,
      reasons: { out_of_gas: 4, reverted: 88, priority_gas_auction: 4 },
    },
  ],
} satisfies z.input<typeof CounterMevOutput>;

export const PUZZLE_RISK_EXAMPLE = {
  as_of_ms: 1_767_225_599_000,
  generated_at_ms: AS_OF_MS,
  freshness: { age_s: 1, stale_after_s: 120, stale: false },
  chain: "multi",
  chains: { ethereum: { head_block: 24_150_000, chain_id: 1 } },
  head_block: 24_150_000,
  totals: {
    watched: 24,
    funded: 17,
    by_class: { unfunded: 7, locked_no_payout: 3, frontrun_bait: 5, owner_only_payout: 6, claimable: 2, indeterminate: 1 },
    eth_locked_no_payout: 4.2,
    eth_at_frontrun_risk: 7.35,
    eth_claimable: 0.4,
  },
  contracts: [
    {
      address: "0x742a037409ea92ebfcdf06fe40c1d01d4952c151",
      label: "Riddle quiz",
      chain: "ethereum",
      classification: "frontrun_bait",
      reason:
        "quiz template: Try(answer) pays whoever sends the right answer first, and the answer travels in public calldata; the admin can also replace the hash (New) or sweep the balance (Stop)",
      balance_wei: "2500000000000000000",
      balance_eth: 2.5,
      frontrun_exposed: true,
      code_bytes: 1_174,
      signals: ["selector:0x3853682c", "selector:0xc76de3e9", "selector:0xed8df164", "selector:0xbedf0f4a", "call", "caller_gate", "keccak"],
    },
  ],
  note: "Static classification from bytecode, balance and the stored answer hash (docs/feeds.md, Puzzle risk). A front-run-exposed claim should go through the private relay (/v1/private-relay/info).",
  premium_endpoint: "/v1/premium/puzzle-risk",
  present: true,
  source_freshness_s: 1,
} satisfies z.input<typeof PuzzleRiskOutput>;
