-- Cross-chain quotes (POST /swap/cross-chain/quote), kept so a build and the status polls refer to what
-- the provider actually quoted, and the transfers they became, with every status transition.
CREATE TABLE cross_chain_quotes (
    quote_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    from_chain TEXT NOT NULL,
    to_chain TEXT NOT NULL,
    token_in TEXT NOT NULL,
    token_out TEXT NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    min_amount_out TEXT NOT NULL,
    taker TEXT NOT NULL,
    recipient TEXT NOT NULL,
    -- The provider's own id for the transfer (Relay's requestId, LI.FI's step id).
    provider_ref TEXT,
    -- The provider's quote as it answered, and our quote as the caller received it.
    provider_quote TEXT NOT NULL,
    quote TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    built_at INTEGER
);
CREATE INDEX cross_chain_quotes_taker ON cross_chain_quotes (taker);

-- A transfer exists once its origin transaction is reported to the status endpoint.
CREATE TABLE cross_chain_transfers (
    quote_id TEXT PRIMARY KEY REFERENCES cross_chain_quotes (quote_id),
    wallet TEXT NOT NULL,
    origin_chain TEXT NOT NULL,
    origin_tx_hash TEXT NOT NULL,
    to_chain TEXT NOT NULL,
    status TEXT NOT NULL,
    substatus TEXT NOT NULL,
    destination_tx_hash TEXT,
    amount_received TEXT,
    message TEXT,
    started_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX cross_chain_transfers_wallet ON cross_chain_transfers (wallet, status);

-- Every status transition, in order (seq 0 is the first state seen).
CREATE TABLE cross_chain_events (
    quote_id TEXT NOT NULL REFERENCES cross_chain_quotes (quote_id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    substatus TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (quote_id, seq)
);
