-- Swaps recorded by clients (POST /swap/record), for analytics and attribution; one row per transaction hash.
CREATE TABLE swap_records (
    tx_hash TEXT PRIMARY KEY,
    chain_key TEXT NOT NULL,
    dex_id TEXT NOT NULL,
    token_in TEXT NOT NULL,
    token_out TEXT NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    protocol_fee TEXT,
    fee_bps INTEGER,
    address TEXT NOT NULL,
    status TEXT NOT NULL,
    source TEXT,
    client_id TEXT,
    client_name TEXT,
    client_source TEXT,
    recorded_at INTEGER NOT NULL
);
CREATE INDEX swap_records_address ON swap_records (address);
