-- Notice boards. A notice's text is stored exactly as posted (validated, never rewritten);
-- rendering escapes it. The owner token is kept only as its SHA-256.
-- Ranking state: weight_atomic is the USDC paid in boosts (money, exact); score_anchor is the
-- decayed boost score at score_anchor_ms (a ranking number, not money; see src/board/ranking.ts).
CREATE TABLE notices (
  id uuid PRIMARY KEY,
  board text NOT NULL,
  handle text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  url text,
  contact text,
  tags jsonb NOT NULL DEFAULT '[]',
  owner_token_hash bytea NOT NULL,
  status text NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'removed')),
  created_ms bigint NOT NULL,
  updated_ms bigint NOT NULL,
  weight_atomic bigint NOT NULL DEFAULT 0 CHECK (weight_atomic >= 0),
  boosts_count integer NOT NULL DEFAULT 0,
  score_anchor double precision NOT NULL DEFAULT 0,
  score_anchor_ms bigint NOT NULL
);
CREATE INDEX notices_board_idx ON notices (board, created_ms) WHERE status = 'live';
CREATE INDEX notices_boosted_idx ON notices (score_anchor_ms) WHERE status = 'live' AND weight_atomic > 0;

-- One row per paid boost, written in the paywall's transaction (it commits with the settlement).
CREATE TABLE notice_boosts (
  id uuid PRIMARY KEY,
  notice_id uuid NOT NULL REFERENCES notices (id),
  amount_atomic bigint NOT NULL CHECK (amount_atomic > 0),
  payer text NOT NULL,
  payment_nonce text NOT NULL UNIQUE,
  created_ms bigint NOT NULL
);
CREATE INDEX notice_boosts_notice_idx ON notice_boosts (notice_id, created_ms);
