/**
 * The inputs of every route in the table, keyed by operationId, for the
 * shared checks of test/http/every-route.test.ts: a valid input, one that its
 * schema refuses, and the refusals the route answers from its input alone
 * (bad keys, a missing or wrong credential, an id that names nothing), each
 * with the code it is answered with. test/core/error-code-coverage.test.ts
 * reads the refusals' codes as codes the tests produce.
 */
import type { ErrorCode } from "../../src/core/errors.js";

/** A route's input as one object, as the router assembles it (path params, header fields and body/query). */
export type Input = Record<string, unknown>;

/** What the fixtures refer to, made by the test before the checks run. */
export interface State {
  alice: { address: string; viewKey: string };
  /** Another devnet Monero wallet's view key: a key that does not belong to alice's address. */
  otherViewKey: string;
  /** A devnet Zcash wallet: its default unified address, unified full viewing key and unified incoming viewing key. */
  zcash: { address: string; ufvk: string; uivk: string };
  hookUrl: string;
  watchId: string;
  watchToken: string;
  quoteId: string;
  /** A checkout invoice of the watch, and a checkout key of it. */
  invoiceId: string;
  keyId: string;
  /** A live notice on the `bounties` board and its owner token. */
  noticeId: string;
  noticeToken: string;
}

/** An input the schema accepts that the route refuses, and the code of its answer. */
export interface Refusal {
  input(st: State): Input;
  code: ErrorCode;
}

export interface Fixture {
  valid(st: State): Input;
  /** Input with one wrong-typed or out-of-range field; null when the route takes no input to get wrong. */
  invalid: ((st: State) => Input) | null;
  /** Every refusal a client can cause with this route's input alone (answered before any payment on a paid route). */
  refusals: Refusal[];
}

/** The EIP-155 example transaction (chain 1): inspect decodes it and says the devnet (1337) would refuse it. */
const EIP155_VECTOR =
  "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";
/** An EIP-1559 transfer signed for the devnet L1 (1337) by the key 0x46…46, nonce 0: the relay's precheck passes it. */
export const DEVNET_TX =
  "0x02f86d8205398084773594008502540be4008252089435353535353535353535353535353535353535358080c001a09f3daf6852efcd47c006b03716bfcfd7cbf41ab28b1c2b7e678f11c8108869dda055ad095ee7456263e934defdccc7224453cec0f51be5e0ca58eab977484dfd39";
const PHRASE12 = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
/** A well-formed id no watch, quote, invoice, key or notice has. */
const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000";
/** The shape of a Sprout address (zt…, 95 Base58 characters): recognised, and not supported. */
const SPROUT_ADDRESS = `zt${"A".repeat(93)}`;

// Unknown names are ignored (request-input.ts), so a route without input has nothing to get wrong.
const noInput: Fixture = { valid: () => ({}), invalid: null, refusals: [] };
const wrongWatchToken = (input: (st: State) => Input): Refusal => ({ input: (st) => ({ ...input(st), watchToken: "not-the-token" }), code: "invalid_watch_token" });

const topupValid = (st: State): Input => ({ watchId: st.watchId, watchToken: st.watchToken });
const topup: Fixture = {
  valid: topupValid,
  invalid: (st) => ({ watchId: 42, watchToken: st.watchToken }),
  refusals: [wrongWatchToken(topupValid), { input: (st) => ({ watchId: NO_SUCH_ID, watchToken: st.watchToken }), code: "invalid_watch_token" }],
};
const watchByIdValid = (st: State): Input => ({ id: st.watchId, watchToken: st.watchToken });
const watchUpdateValid = (st: State): Input => ({ ...watchByIdValid(st), subaddressLookahead: { accounts: 3, minors: 20 } });
const watchById: Fixture = {
  valid: watchByIdValid,
  invalid: (st) => ({ id: "not-a-uuid", watchToken: st.watchToken }),
  refusals: [wrongWatchToken(watchByIdValid), { input: (st) => ({ id: st.watchId }), code: "invalid_watch_token" }],
};

/** Monero and Zcash watch keys a watch-creating route refuses before anything is paid or written. */
function watchKeyRefusals(base: (st: State) => Input): Refusal[] {
  const monero = (st: State, over: Input): Input => ({ ...base(st), chain: "monero", address: st.alice.address, viewKey: st.alice.viewKey, ...over });
  const zcash = (st: State, over: Input): Input => ({ ...base(st), chain: "zcash", address: st.zcash.address, viewKey: st.zcash.ufvk, ...over });
  return [
    { input: (st) => monero(st, { address: "4notAnAddress" }), code: "invalid_address" },
    { input: (st) => monero(st, { viewKey: "zz" }), code: "invalid_view_key" },
    { input: (st) => monero(st, { viewKey: st.otherViewKey }), code: "view_key_mismatch" },
    { input: (st) => zcash(st, { address: SPROUT_ADDRESS }), code: "unsupported_address" },
    { input: (st) => zcash(st, { address: st.zcash.uivk }), code: "key_not_address" },
    { input: (st) => zcash(st, { viewKey: st.zcash.uivk }), code: "uivk_not_ufvk" },
    { input: (st) => zcash(st, { viewKey: st.zcash.address }), code: "address_not_ufvk" },
    { input: (st) => zcash(st, { viewKey: PHRASE12 }), code: "spending_key_not_viewing_key" },
  ];
}

const watchCreateValid = (st: State): Input => ({ chain: "monero", address: st.alice.address, viewKey: st.alice.viewKey, webhookUrl: st.hookUrl });
const invoiceAuth = (st: State): Input => ({ watchId: st.watchId, watchToken: st.watchToken, amountUsdCents: 100 });
const boardNotFound: Refusal = { input: () => ({ board: "no-such-board" }), code: "unknown_board" };

/** The watch, checkout and key-derivation routes. */
const PRIVATE_FIXTURES: Record<string, Fixture> = {
  privateWatchInfo: noInput,
  privateWatchHealth: noInput,
  privateWatchSnippets: { valid: () => ({ lang: "python" }), invalid: () => ({ lang: "cobol" }), refusals: [] },
  privateWatchCreate: {
    valid: watchCreateValid,
    invalid: (st) => ({ ...watchCreateValid(st), birthdayHeight: "soon" }),
    refusals: [...watchKeyRefusals(watchCreateValid), { input: (st) => ({ ...watchCreateValid(st), webhookUrl: "http://127.0.0.1:0/hook" }), code: "invalid_webhook_url" }],
  },
  privateTopup: topup,
  privateTopup1: topup,
  privateTopup5: topup,
  privateTopupCustom: {
    valid: (st) => ({ ...topupValid(st), amountAtomic: "250000" }),
    invalid: (st) => ({ ...topupValid(st), amountAtomic: true }),
    refusals: [wrongWatchToken((st) => ({ ...topupValid(st), amountAtomic: "250000" }))],
  },
  privateWatchStatus: watchById,
  privateWatchCancel: watchById,
  privateWatchUpdate: {
    valid: watchUpdateValid,
    invalid: (st) => ({ ...watchByIdValid(st), subaddressLookahead: { accounts: 51, minors: 1 } }),
    refusals: [
      wrongWatchToken(watchUpdateValid),
      { input: (st) => ({ id: st.watchId, invoiceAccount: 1 }), code: "invalid_watch_token" },
      { input: watchByIdValid, code: "nothing_to_update" },
    ],
  },
  privateWatchTest: watchById,
  privateHistorical: {
    valid: (st) => ({ chain: "monero", address: st.alice.address, viewKey: st.alice.viewKey }),
    invalid: (st) => ({ chain: "monero", address: st.alice.address, viewKey: st.alice.viewKey, birthdayHeight: "genesis" }),
    refusals: [
      { input: (st) => ({ chain: "monero", viewKey: st.alice.viewKey }), code: "address_required" },
      { input: (st) => ({ chain: "monero", address: st.alice.address, viewKey: st.otherViewKey }), code: "view_key_mismatch" },
      { input: (st) => ({ chain: "monero", address: st.alice.address, viewKey: st.alice.viewKey, birthdayHeight: 2, toHeight: 1 }), code: "invalid_height" },
      { input: (st) => ({ chain: "zcash", viewKey: st.zcash.address }), code: "address_not_ufvk" },
    ],
  },
  coinTopupQuote: {
    valid: (st) => ({ ...topupValid(st), chain: "monero", amountUsdCents: 200 }),
    invalid: (st) => ({ ...topupValid(st), chain: "monero", amountUsdCents: 199 }),
    refusals: [wrongWatchToken((st) => ({ ...topupValid(st), chain: "monero", amountUsdCents: 200 }))],
  },
  coinTopupQuoteStatus: {
    valid: (st) => ({ quoteId: st.quoteId, watchToken: st.watchToken }),
    invalid: (st) => ({ quoteId: "not-a-uuid", watchToken: st.watchToken }),
    refusals: [
      { input: (st) => ({ quoteId: NO_SUCH_ID, watchToken: st.watchToken }), code: "quote_not_found" },
      { input: (st) => ({ quoteId: st.quoteId, watchToken: "not-the-token" }), code: "quote_not_found" },
    ],
  },
  coinWatchCreate: {
    valid: watchCreateValid,
    invalid: (st) => ({ ...watchCreateValid(st), amountUsdCents: "lots" }),
    refusals: [{ input: (st) => ({ ...watchCreateValid(st), address: "4notAnAddress" }), code: "invalid_address" }],
  },
  coinWalletEvents: noInput,
  checkoutSummary: noInput,
  checkoutPayPage: noInput,
  favicon: noInput,
  checkoutInvoiceCreate: {
    valid: invoiceAuth,
    invalid: (st) => ({ ...invoiceAuth(st), amountUsdCents: "ten" }),
    refusals: [
      { input: () => ({ amountUsdCents: 100 }), code: "checkout_auth_required" },
      { input: (st) => ({ ...invoiceAuth(st), checkoutKey: "ck_x" }), code: "checkout_auth_required" },
      { input: () => ({ checkoutKey: "ck_not-a-key", amountUsdCents: 100 }), code: "invalid_checkout_key" },
      { input: (st) => ({ ...invoiceAuth(st), chain: "zcash" }), code: "checkout_chain_mismatch" },
      wrongWatchToken(invoiceAuth),
    ],
  },
  checkoutInvoiceList: {
    valid: topupValid,
    invalid: (st) => ({ ...topupValid(st), status: "lost" }),
    refusals: [wrongWatchToken(topupValid)],
  },
  checkoutInvoiceStatus: { valid: (st) => ({ invoiceId: st.invoiceId }), invalid: () => ({ invoiceId: "not-a-uuid" }), refusals: [{ input: () => ({ invoiceId: NO_SUCH_ID }), code: "invoice_not_found" }] },
  checkoutInvoiceQr: { valid: (st) => ({ invoiceId: st.invoiceId }), invalid: () => ({ invoiceId: "not-a-uuid" }), refusals: [{ input: () => ({ invoiceId: NO_SUCH_ID }), code: "invoice_not_found" }] },
  checkoutInvoiceCancel: {
    valid: (st) => ({ invoiceId: st.invoiceId, watchToken: st.watchToken }),
    invalid: (st) => ({ invoiceId: "not-a-uuid", watchToken: st.watchToken }),
    refusals: [
      { input: (st) => ({ invoiceId: NO_SUCH_ID, watchToken: st.watchToken }), code: "invoice_not_found" },
      { input: (st) => ({ invoiceId: st.invoiceId, watchToken: "not-the-token" }), code: "invoice_not_found" },
    ],
  },
  checkoutKeyCreate: {
    valid: (st) => ({ ...topupValid(st), label: "every route" }),
    invalid: (st) => ({ ...topupValid(st), maxAmountUsdCents: "many" }),
    refusals: [wrongWatchToken(topupValid)],
  },
  checkoutKeyRevoke: {
    valid: (st) => ({ keyId: st.keyId, watchToken: st.watchToken }),
    invalid: (st) => ({ keyId: "not-a-uuid", watchToken: st.watchToken }),
    refusals: [
      { input: (st) => ({ keyId: NO_SUCH_ID, watchToken: st.watchToken }), code: "checkout_key_not_found" },
      { input: (st) => ({ keyId: st.keyId, watchToken: "not-the-token" }), code: "checkout_key_not_found" },
    ],
  },
  deriveViewkey: {
    valid: () => ({ chain: "zcash", seed: PHRASE12 }),
    invalid: () => ({ chain: "zcash", seed: PHRASE12, account: "one" }),
    refusals: [
      { input: () => ({ chain: "zcash", seed: "abandon abandon abandon" }), code: "invalid_mnemonic_word_count" },
      { input: () => ({ chain: "zcash", seed: PHRASE12.replace("about", "abouts") }), code: "unknown_mnemonic_word" },
      { input: () => ({ chain: "zcash", seed: PHRASE12.replace("about", "abandon") }), code: "invalid_mnemonic_checksum" },
    ],
  },
};

/** The notice boards. */
const BOARD_FIXTURES: Record<string, Fixture> = {
  boardList: noInput,
  boardLeaderboard: { valid: () => ({ limit: "5" }), invalid: () => ({ limit: "0" }), refusals: [] },
  boardFeedRss: { valid: () => ({ board: "bounties" }), invalid: () => ({ board: "b".repeat(65) }), refusals: [boardNotFound] },
  boardFeedJson: { valid: () => ({ board: "bounties" }), invalid: () => ({ board: "b".repeat(65) }), refusals: [boardNotFound] },
  boardRead: { valid: () => ({ board: "bounties" }), invalid: () => ({ board: "bounties", limit: "1000" }), refusals: [boardNotFound] },
  boardPost: {
    valid: () => ({ board: "bounties", title: "Every route", body: "A notice from the shared checks." }),
    invalid: () => ({ board: "bounties", title: 42, body: "x" }),
    refusals: [{ input: () => ({ board: "no-such-board", title: "Every route", body: "A notice from the shared checks." }), code: "unknown_board" }],
  },
  boardNotice: {
    valid: (st) => ({ board: "bounties", id: st.noticeId }),
    invalid: () => ({ board: "bounties", id: "not-a-uuid" }),
    refusals: [
      { input: () => ({ board: "bounties", id: NO_SUCH_ID }), code: "notice_not_found" },
      { input: (st) => ({ board: "no-such-board", id: st.noticeId }), code: "unknown_board" },
    ],
  },
  boardEdit: {
    valid: (st) => ({ board: "bounties", id: st.noticeId, ownerToken: st.noticeToken, title: "Edited by the shared checks" }),
    invalid: (st) => ({ board: "bounties", id: st.noticeId, ownerToken: st.noticeToken, title: 42 }),
    refusals: [
      { input: (st) => ({ board: "bounties", id: st.noticeId, ownerToken: "not-the-token", title: "Not mine" }), code: "invalid_notice_token" },
      { input: (st) => ({ board: "bounties", id: st.noticeId, title: "Not mine" }), code: "invalid_notice_token" },
    ],
  },
  boardRemove: {
    valid: (st) => ({ board: "bounties", id: st.noticeId, ownerToken: st.noticeToken }),
    invalid: (st) => ({ board: "bounties", id: "not-a-uuid", ownerToken: st.noticeToken }),
    refusals: [{ input: (st) => ({ board: "bounties", id: st.noticeId, ownerToken: "not-the-token" }), code: "invalid_notice_token" }],
  },
  boardBoost: {
    valid: (st) => ({ board: "bounties", id: st.noticeId, amountAtomic: "150000" }),
    invalid: (st) => ({ board: "bounties", id: st.noticeId, amountAtomic: true }),
    refusals: [{ input: () => ({ board: "bounties", id: NO_SUCH_ID, amountAtomic: "150000" }), code: "notice_not_found" }],
  },
};

/** The oracle's questions, the feeds and the private relay. */
const DATA_FIXTURES: Record<string, Fixture> = {
  oracleCatalogue: noInput,
  q_xmr_height: noInput,
  q_xmr_mempool: noInput,
  q_xmr_fee: noInput,
  q_xmr_fee_estimate: noInput,
  q_xmr_last_block: noInput,
  q_zec_height: noInput,
  q_zec_mempool: noInput,
  q_zec_last_block: noInput,
  q_zec_pools: noInput,
  q_base_fee: noInput,
  q_cheapest_flashloan: { valid: () => ({ asset: "WETH" }), invalid: () => ({ asset: "WETH", chain: "base" }), refusals: [] },
  q_data_freshness: { valid: () => ({ source: "eth_rpc" }), invalid: () => ({ source: "tea_leaves" }), refusals: [] },
  q_top_builder: { valid: () => ({ window: "7d" }), invalid: () => ({ window: "1y" }), refusals: [] },
  q_builder_share: { valid: () => ({ builder: "Titan" }), invalid: () => ({ builder: "Titan", window: "2d" }), refusals: [] },
  q_builder_bid: { valid: () => ({ builder: "Titan", pct: "90" }), invalid: () => ({ builder: "Titan", pct: "42" }), refusals: [] },
  q_block_value: { valid: () => ({ pct: "50", window: "1h" }), invalid: () => ({ pct: "101" }), refusals: [] },
  q_proposer_payment: noInput,
  q_liquidatable: {
    valid: () => ({ addr: "0x00000000000000000000000000000000000a11ce" }),
    invalid: () => ({ addr: "0x00000000000000000000000000000000000a11ce", protocol: "euler" }),
    refusals: [],
  },
  q_at_risk_count: { valid: () => ({ max_hf: "1.05", min_debt_usd: "1000" }), invalid: () => ({ protocol: "maker" }), refusals: [] },
  q_address_risk: { valid: () => ({ addr: "0x00000000000000000000000000000000000a11ce" }), invalid: () => ({ addr: "" }), refusals: [] },
  q_recent_liquidations: { valid: () => ({ since_min: "60", protocol: "aave" }), invalid: () => ({ since_min: "60", protocol: "euler" }), refusals: [] },
  zecIronwood: noInput,
  zecIronwoodHistory: { valid: () => ({ window_ms: "86400000", max_points: "100" }), invalid: () => ({ window_ms: "60000" }), refusals: [] },
  premiumBuilderStats: { valid: () => ({ window: "6h" }), invalid: () => ({ window: "1y" }), refusals: [] },
  premiumBuilderStatsSample: noInput,
  premiumOpportunities: { valid: () => ({ max_hf: "1.1", limit: "10" }), invalid: () => ({ limit: "9999" }), refusals: [] },
  premiumOpportunitiesSample: noInput,
  premiumFeeHistoryCsv: { valid: () => ({ limit: "10" }), invalid: () => ({ from_block: "abc" }), refusals: [] },
  premiumBuilderBidsCsv: { valid: () => ({ window: "1h", limit: "10" }), invalid: () => ({ limit: "ten" }), refusals: [] },
  premiumCounterMev: { valid: () => ({ min_band: "high" }), invalid: () => ({ min_band: "severe" }), refusals: [] },
  counterMevSummary: noInput,
  premiumPuzzleRisk: noInput,
  puzzleRiskSummary: noInput,
  puzzleRiskLookup: { valid: () => ({ address: `0x${"12".repeat(20)}` }), invalid: () => ({ address: "0x12" }), refusals: [] },
  privateRelayInfo: noInput,
  privateRelayInspect: {
    valid: () => ({ raw_tx: EIP155_VECTOR }),
    invalid: () => ({ raw_tx: "not hex" }),
    refusals: [{ input: () => ({ raw_tx: "0x02deadbeef" }), code: "invalid_transaction" }],
  },
  premiumPrivateRelay: {
    valid: () => ({ raw_tx: DEVNET_TX }),
    invalid: () => ({ raw_tx: 42 }),
    refusals: [
      { input: () => ({ raw_tx: "0x02deadbeef" }), code: "invalid_transaction" },
      { input: () => ({ raw_tx: EIP155_VECTOR }), code: "transaction_wrong_chain" },
    ],
  },
  flashloanProviders: { valid: () => ({ multi_asset: "true" }), invalid: () => ({ max_fee_bps: "cheap" }), refusals: [] },
};

export const FIXTURES: Record<string, Fixture> = {
  index: noInput,
  paywallInfo: noInput,
  openapi: noInput,
  openapiRoot: noInput,
  llmsTxt: noInput,
  x402Discovery: noInput,
  mcpServerCard: noInput,
  health: noInput,
  ...DATA_FIXTURES,
  ...PRIVATE_FIXTURES,
  ...BOARD_FIXTURES,
};
