-- Paying in coin: quotes for watch credit paid in XMR (ZEC later) to the service's own wallet,
-- the service wallets' watches, and every output those wallets received with what became of it.

-- One watch per configured service receiving wallet (created on the first quote).
CREATE TABLE coin_wallets (
  chain text NOT NULL,
  address text NOT NULL,
  watch_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, address)
);

CREATE TABLE coin_quotes (
  id uuid PRIMARY KEY,
  watch_id uuid NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('topup', 'watch-crypto')),
  chain text NOT NULL CHECK (chain IN ('monero', 'zcash')),
  pay_to text NOT NULL,
  amount_atomic bigint NOT NULL CHECK (amount_atomic > 0),
  memo text,
  usd_cents integer NOT NULL,
  credit_atomic bigint NOT NULL,
  rate_num text NOT NULL,
  rate_den text NOT NULL,
  confirmations integer NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirming', 'settled', 'expired', 'cancelled')),
  seen_txid text,
  seen_index text,
  seen_at timestamptz,
  settled_at timestamptz,
  credited_atomic bigint,
  expires_at timestamptz NOT NULL,
  reserved_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Two open quotes on one wallet never share an amount: the amount is what identifies the quote.
CREATE UNIQUE INDEX coin_quotes_open_amount_idx ON coin_quotes (pay_to, amount_atomic) WHERE status IN ('pending', 'confirming');
CREATE INDEX coin_quotes_watch_idx ON coin_quotes (watch_id, created_at);
CREATE INDEX coin_quotes_seen_idx ON coin_quotes (seen_txid, seen_index) WHERE seen_txid IS NOT NULL;

-- Every output a service wallet received, with its disposition; nothing paid is silently lost:
-- `SELECT * FROM coin_receipts WHERE disposition <> 'matched'` is the operator's list to look at.
CREATE TABLE coin_receipts (
  chain text NOT NULL,
  txid text NOT NULL,
  output_index text NOT NULL,
  address text NOT NULL,
  amount_atomic bigint NOT NULL,
  quote_id uuid,
  disposition text NOT NULL CHECK (disposition IN ('matched', 'unmatched', 'reorged', 'reorged_after_settlement', 'watch_gone')),
  note text,
  first_seen_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (chain, txid, output_index)
);
