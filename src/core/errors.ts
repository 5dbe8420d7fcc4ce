/**
 * One error type for every layer, and one registry of every error code the
 * service answers with. Each surface (HTTP, MCP, CLI) maps a ServiceError
 * once: HTTP answers `{"error": {"code", "message", "details"}}` with `status`.
 *
 * Invariants (test/core/errors-registry.test.ts):
 *   - every code thrown anywhere in src/ is a key of ERROR_CODES (codes are
 *     typed by the keys, so a new code is registered before it can be thrown);
 *   - a ServiceError's status is the one registered for its code: no call
 *     site writes a status, and the helpers (`badRequest`, `unavailable`, …)
 *     take only codes registered with their status;
 *   - docs/errors.md lists exactly these codes, statuses and descriptions.
 */
export type ErrorDetails = Record<string, unknown>;

export interface ErrorCodeInfo {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 431 | 500 | 502 | 503 | 504;
  /** What the code means to a client, one sentence (the docs table is made of these). */
  description: string;
}

export const ERROR_CODES = {
  // 400: bad input
  invalid_json: { status: 400, description: "The request body is not valid JSON, or not a JSON object." },
  invalid_input: { status: 400, description: "The input failed validation; `details.issues[]` lists `{path, message}` per failing field." },
  input_too_large: { status: 400, description: "The CLI's standard input is larger than one seed phrase can be." },
  invalid_amount: { status: 400, description: "An amount is not a decimal of the unit (e.g. 0.25)." },
  invalid_address: { status: 400, description: "Not a valid address for the chain, or an address of another network." },
  invalid_view_key: { status: 400, description: "The view key is malformed (Monero: 64 hex characters; Zcash: a unified full viewing key)." },
  view_key_mismatch: { status: 400, description: "The view key does not belong to the address." },
  invalid_lookahead: { status: 400, description: "The subaddress look-ahead is outside the supported range." },
  subaddress_settings_not_applicable: { status: 400, description: "`subaddressLookahead` and `invoiceAccount` apply to Monero primary-address watches only (not Zcash, not a Monero subaddress)." },
  nothing_to_update: { status: 400, description: "A watch update named no setting to change." },
  address_required: { status: 400, description: "A Monero historical scan needs the address the view key belongs to." },
  invalid_height: { status: 400, description: "A block height is negative, above the chain tip, or birthdayHeight is above toHeight." },
  range_too_large: { status: 400, description: "The historical scan range is longer (or holds more transactions) than the server scans in one call; `details` suggests a birthdayHeight." },
  invalid_webhook_url: { status: 400, description: "The webhook URL breaks a URL rule; `details.rule` names it (see docs/webhooks.md)." },
  invalid_mnemonic: { status: 400, description: "The seed phrase is not a string." },
  invalid_mnemonic_word_count: { status: 400, description: "The seed phrase does not have 12 or 24 words." },
  unknown_mnemonic_word: { status: 400, description: "A word of the seed phrase is not in the BIP-39 English list (the word is not echoed)." },
  invalid_mnemonic_checksum: { status: 400, description: "The seed phrase's BIP-39 checksum does not match." },
  invalid_encoding: { status: 400, description: "A Zcash unified key or address is not well-formed Bech32m / ZIP 316." },
  invalid_checksum: { status: 400, description: "A Zcash address or key has a bad Bech32 / Bech32m checksum, or the wrong checksum variant." },
  unknown_prefix: { status: 400, description: "A Zcash key or address has a human-readable prefix this service does not know." },
  wrong_network: { status: 400, description: "A Zcash key or address is for another network than the one expected." },
  unsupported_metadata: { status: 400, description: "A Zcash unified key carries must-understand metadata of a newer ZIP 316 revision." },
  invalid_key_item: { status: 400, description: "An item inside a Zcash unified viewing key is not a valid key." },
  key_not_address: { status: 400, description: "The address field holds a Zcash viewing key, not an address." },
  address_not_ufvk: { status: 400, description: "The view key field holds a Zcash address, not a unified full viewing key." },
  uivk_not_ufvk: { status: 400, description: "A unified incoming viewing key was given where a unified full viewing key is needed." },
  uivk_not_address: { status: 400, description: "A unified incoming viewing key was given where a unified address is needed." },
  ufvk_not_address: { status: 400, description: "A unified full viewing key was given where a unified address is needed." },
  ufvk_not_uivk: { status: 400, description: "A unified full viewing key was given where a unified incoming viewing key is needed." },
  address_not_uivk: { status: 400, description: "A unified address was given where a unified incoming viewing key is needed." },
  sapling_fvk_not_ufvk: { status: 400, description: "A legacy Sapling extended viewing key was given; supply the unified full viewing key." },
  spending_key_not_viewing_key: { status: 400, description: "A spending key or seed phrase was given where a viewing key is needed: never share it." },
  unsupported_address: { status: 400, description: "A Zcash address kind this service does not support (Sprout)." },
  address_not_in_ufvk: { status: 400, description: "The Zcash address is not derived from the unified full viewing key." },
  checkout_chain_mismatch: { status: 400, description: "The invoice's `chain` is not the chain of the watch it pays (an invoice pays the watched wallet)." },
  checkout_auth_required: { status: 400, description: "Creating an invoice needs either `checkoutKey` or both `watchId` and `watchToken`, not both kinds." },
  invalid_transaction: { status: 400, description: "The raw transaction is not a well-formed signed Ethereum transaction (malformed bytes, unsigned, or no recoverable sender)." },
  transaction_wrong_chain: { status: 400, description: "The transaction is signed for another chain than the relay's node, or carries no chain id (pre-EIP-155, replayable)." },
  // 401: missing or wrong credential
  invalid_checkout_key: { status: 401, description: "Unknown, malformed or revoked checkout key." },
  invalid_watch_token: { status: 401, description: "Unknown watch or wrong watch token: the same answer for both, so nothing is revealed." },
  invalid_metrics_token: { status: 401, description: "GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`; it was missing or wrong." },
  invalid_notice_token: { status: 401, description: "Editing or removing a notice needs its owner token in `x-notice-token`; it was missing or wrong." },
  // 403: refused
  checkout_key_cap_exceeded: { status: 403, description: "The invoice's `amountUsdCents` is above the checkout key's `maxAmountUsdCents`." },
  // 404: not found
  invoice_not_found: { status: 404, description: "No checkout invoice has this id." },
  invoice_not_cancellable: { status: 409, description: "Only a pending invoice can be cancelled: once a payment is seen, or the invoice is paid, underpaid, expired or cancelled, it stays as it is." },
  checkout_key_not_found: { status: 404, description: "No live checkout key by this id belongs to the watch (the same answer for a wrong token)." },
  not_found: { status: 404, description: "No route has this method and path." },
  quote_not_found: { status: 404, description: "No coin quote by this id belongs to the watch (the same answer for a wrong token)." },
  unknown_question: { status: 404, description: "The oracle has no question by this name; `details.valid_questions` lists the ones it has." },
  unknown_board: { status: 404, description: "No notice board has this id; `GET /v1/board` lists them." },
  notice_not_found: { status: 404, description: "No live notice has this id on this board (never posted, removed, or expired)." },
  slot_not_delivered: { status: 404, description: "No MEV-Boost relay delivered a block for this slot, or it is older than the stored relay history." },
  // 405: other method
  method_not_allowed: { status: 405, description: "The path exists for other methods; the `Allow` header lists them." },
  // 409: conflicting state
  payment_in_progress: { status: 409, description: "The same payment authorisation is being processed by another request." },
  payment_identifier_conflict: { status: 409, description: "The payment identifier (payment-identifier extension) was used by this payer for a different request." },
  transaction_already_mined: { status: 409, description: "The transaction's nonce is below its sender's on-chain nonce, or the node already knows its hash: relaying it again would do nothing." },
  watch_dead: { status: 409, description: "The watch was retired after 50 consecutive failed deliveries; it takes no top-ups or tests." },
  // 413: too large
  payload_too_large: { status: 413, description: "The request body is over 64 KB." },
  webhook_body_too_large: { status: 413, description: "A webhook body would be over 64 KB; it is refused before signing." },
  // 429: rate limited
  rate_limited: { status: 429, description: "Too many requests from this IP; `Retry-After` says when to retry (seconds)." },
  // 431: header too large
  payment_header_too_large: { status: 431, description: "The PAYMENT-SIGNATURE (or X-PAYMENT) header is over 8192 bytes; it is refused before decoding." },
  // 500: a bug
  internal_error: { status: 500, description: "An unexpected error; `details.requestId` finds the log line." },
  // 502: an upstream answered badly or not at all
  chain_rpc_failed: { status: 502, description: "The chain node could not be reached or answered badly." },
  chain_network_mismatch: { status: 502, description: "The chain node runs another network than the one this service watches." },
  chain_tree_mismatch: {
    status: 502,
    description:
      "The chain server's note commitment tree state disagrees with its blocks (tree sizes or the root at the scanned height do not match the commitments it served); no Merkle path is handed out. `details.pool` names the tree.",
  },
  chain_server_outdated: { status: 502, description: "The chain server (lightwalletd) predates a network upgrade that is active on its chain (Ironwood): it would hide payments, so it is not used." },
  price_provider_failed: { status: 502, description: "A USD price provider could not be reached or answered badly (it then gives no price; clients see price_unavailable)." },
  chain_schedule_unknown: { status: 502, description: "The Ethereum node reports a chain id this service has no fork schedule for; `details.chainId` names it." },
  facilitator_unavailable: { status: 502, description: "The x402 facilitator could not be reached; nothing was charged." },
  payment_unresolved: { status: 502, description: "The chain marks this payment authorisation as used, but its transaction was not found yet, so the service cannot tell whether it was this call's settlement: money may have moved. The payment is kept pending for the operator's reconciler and the work has not been done; retry later with the same payment, which is never charged twice." },
  private_relay_failed: { status: 502, description: "A private builder refused the transaction or could not be reached. The private relay reports it per builder (`builders[].error` of its answer, `accepted` false when all refused), since it sends only after the payment settled." },
  // 503: a dependency is not configured
  private_relay_not_configured: { status: 503, description: "This server has no private builder endpoint (PRIVATE_RELAY_BUILDERS), so it relays nothing." },
  chain_not_configured: { status: 503, description: "This server has no node (or scanner) for the chain." },
  paywall_not_configured: { status: 503, description: "This server has no PAY_TO address configured, so paid routes are disabled." },
  price_unavailable: { status: 503, description: "No fresh USD price of the coin: the price providers are unreachable or disagree; retry shortly." },
  quote_collision: { status: 503, description: "No free amount tag was found for a coin quote (too many open quotes at once); retry shortly." },
  invoice_tag_collision: { status: 503, description: "No free amount tag was found for an invoice on this wallet (too many open invoices at once); retry shortly." },
  checkout_chain_unavailable: { status: 503, description: "Invoices on this chain are not offered yet (Zcash invoices wait for Zcash scanning), or the server has no scanner for it." },
  coin_payments_not_configured: { status: 503, description: "This server has no receiving wallet (or no scanner) for paying in this coin." },
  master_key_not_configured: { status: 503, description: "This server has no MASTER_KEY, so watches cannot be created." },
  relays_not_configured: { status: 503, description: "This server polls no MEV-Boost relay (RELAY_URLS), so the builder questions cannot answer." },
  relay_failed: { status: 502, description: "A MEV-Boost relay's data API could not be reached, timed out or answered garbage; `details.relay` names it." },
  database_unavailable: { status: 503, description: "The database could not be reached (a dropped or refused connection, a server restarting); the request's writes were rolled back. Retry after `Retry-After` seconds; a paid call retried with the same payment is never charged twice." },
  database_full: { status: 503, description: "The database has no room left on its disk (or the embedded database is under its reserve, PGLITE_MIN_FREE_MB); the request's writes were refused and rolled back, nothing was charged, and reads still work. Retry after `Retry-After` seconds, once the operator has freed space." },
  source_stale: { status: 503, description: "The ingested data behind the answer is missing or older than its limit; `details.source` names the source and `details.age_s` its age. Stale data is never passed off as fresh." },
  // 504: a bounded job ran out of time
  scan_timeout: { status: 504, description: "The historical scan ran out of time; `details.scanned_through` says how far it got: narrow the range and retry." },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The status registered for a code. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]["status"];
/** The codes registered with a status (what a helper such as `badRequest` may be given). */
export type CodeWithStatus<S extends ErrorCodeInfo["status"]> = { [C in ErrorCode]: StatusOf<C> extends S ? C : never }[ErrorCode];

/** The HTTP status of a code: the registry is the one place a code's status is written. */
export function statusOf(code: ErrorCode): ErrorCodeInfo["status"] {
  return ERROR_CODES[code].status;
}

export class ServiceError extends Error {
  readonly code: ErrorCode;
  /** Always the status registered for `code` (never passed by hand). */
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers (e.g. Retry-After on 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super(message);
    this.name = "ServiceError";
    this.status = statusOf(code);
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

// Helpers name the status class at the call site; the type admits only codes registered with it.
export const badRequest = (code: CodeWithStatus<400>, message: string, details?: ErrorDetails) => new ServiceError(code, message, details);
export const unauthorized = (code: CodeWithStatus<401>, message: string) => new ServiceError(code, message);
export const forbidden = (code: CodeWithStatus<403>, message: string) => new ServiceError(code, message);
export const notFound = (code: CodeWithStatus<404>, message: string) => new ServiceError(code, message);
export const conflict = (code: CodeWithStatus<409>, message: string, details?: ErrorDetails) => new ServiceError(code, message, details);
/** An upstream (node, facilitator, relay) answered badly or not at all. */
export const upstreamFailed = (code: CodeWithStatus<502>, message: string, details?: ErrorDetails) => new ServiceError(code, message, details);
/** A dependency is absent or down; the request may work later. */
export const unavailable = (code: CodeWithStatus<503>, message: string, details?: ErrorDetails, headers?: Record<string, string>) =>
  new ServiceError(code, message, details, headers);

/** One failing field of an `invalid_input` answer (`details.issues[]`). */
export interface InputIssue {
  /** The field's path, joined with dots ("" for the input itself). */
  path: string;
  message: string;
}

/** A schema's validation issues (a zod error) as the `{path, message}` list every surface answers with. */
export function inputIssues(error: { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] }): InputIssue[] {
  return error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

export function errorBody(err: ServiceError): { error: { code: string; message: string; details?: ErrorDetails } } {
  return { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
}
