-- x402 batch-settlement (docs/batch-settlement.md): payment channels in the escrow contract, the
-- vouchers charged against them, and every transaction that moved their money.
--
-- x402_channels: one row per channel (its id is the EIP-712 hash of its configuration). The columns
-- of @x402/evm's server `Channel` (the official ChannelStorage's record) plus Vigil's bookkeeping.
-- `version` is bumped by every write: a write names the version it read (compare-and-swap), so any
-- number of processes change a channel one at a time without holding a lock across statements
-- (src/x402/channel-store.ts). A channel whose record the protocol deletes (refunded to the end) is
-- kept, closed, for its history; a new deposit reopens it.
CREATE TABLE x402_channels (
  channel_id text PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1,
  network text NOT NULL,
  payer text NOT NULL,
  payer_authorizer text NOT NULL,
  receiver text NOT NULL,
  receiver_authorizer text NOT NULL,
  token text NOT NULL,
  withdraw_delay integer NOT NULL,
  salt text NOT NULL,
  -- What the service has charged, cumulatively, and the payer's latest voucher (its ceiling and signature).
  charged_atomic bigint NOT NULL DEFAULT 0,
  signed_max_atomic bigint NOT NULL DEFAULT 0,
  signature text,
  -- The chain's state as last known: the escrowed balance (deposits less refunds and withdrawals; claims
  -- do not lower it), what has been claimed of it, a pending withdrawal's start (unix seconds, 0: none).
  balance_atomic bigint NOT NULL DEFAULT 0,
  claimed_atomic bigint NOT NULL DEFAULT 0,
  withdraw_requested_at bigint NOT NULL DEFAULT 0,
  refund_nonce bigint NOT NULL DEFAULT 0,
  onchain_synced_at timestamptz,
  last_request_at timestamptz,
  -- A request between its check and its charge (the reservation that serializes a channel's requests).
  pending_id text,
  pending_max_atomic bigint,
  pending_until timestamptz,
  -- Bookkeeping: deposits made through the service, claims swept to the receiver, refunds, the payer's
  -- finalized withdrawals, and charges that could no longer be claimed (the payer withdrew first).
  deposited_atomic bigint NOT NULL DEFAULT 0,
  settled_atomic bigint NOT NULL DEFAULT 0,
  refunded_atomic bigint NOT NULL DEFAULT 0,
  withdrawn_atomic bigint NOT NULL DEFAULT 0,
  forfeited_atomic bigint NOT NULL DEFAULT 0,
  calls bigint NOT NULL DEFAULT 0,
  -- The answer of the latest charged call, sealed, for a retry of the same voucher (docs/idempotency.md).
  answer_request_hash text,
  answer_status integer,
  answer_sealed bytea,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX x402_channels_payer ON x402_channels (payer);
-- The keeper's work lists: channels with charges not yet claimed, and open channels by last use.
CREATE INDEX x402_channels_unclaimed ON x402_channels (last_request_at) WHERE charged_atomic > claimed_atomic;
CREATE INDEX x402_channels_open ON x402_channels (last_request_at) WHERE closed_at IS NULL;

-- Every transaction that moved channel money, with its hash: deposits, claim batches, settlements to
-- the receiver, refunds, and the payers' own withdrawals as the chain showed them. A row is written
-- `sending` before the transaction is handed to the facilitator and finished when its outcome is
-- known, so a process that dies in between leaves a row the keeper reconciles from the chain.
CREATE TABLE x402_channel_ops (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('deposit', 'claim', 'settle', 'refund', 'withdrawal')),
  status text NOT NULL CHECK (status IN ('sending', 'confirmed', 'failed')),
  network text NOT NULL,
  channel_id text,
  amount_atomic bigint,
  -- A claim batch's rows: [{"channelId", "totalClaimed", "claimed"}] (the amount each adds).
  entries jsonb,
  tx_hash text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX x402_channel_ops_channel ON x402_channel_ops (channel_id, created_at);
CREATE INDEX x402_channel_ops_open ON x402_channel_ops (created_at) WHERE status = 'sending';

-- Where the keeper has read the escrow's events up to, per network, and that block's hash: a chain whose
-- block at the cursor has another hash (a reorg, a devnet started afresh) is read again from its state.
CREATE TABLE x402_escrow_cursor (
  network text PRIMARY KEY,
  block bigint NOT NULL,
  block_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A named lease a background job takes so that one process at a time runs it (src/db/job-lease.ts):
-- taken and renewed by one statement each, no session state.
CREATE TABLE job_leases (
  name text PRIMARY KEY,
  owner text NOT NULL,
  until timestamptz NOT NULL
);
