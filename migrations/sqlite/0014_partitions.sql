-- The same keys as PostgreSQL's partitioned tables (see migrations/postgres/0014_partitions.sql), so that one
-- statement writes both: the event tables' keys gain `slot`, the feed's `seq` key gains `written_at` and its
-- `event_key` is indexed, not unique (the one writer keeps it unique). SQLite keeps one table each and prunes
-- with DELETE. Each table is made again under a new name, filled, and renamed over the old one.
DROP VIEW fee_ledger;

CREATE TABLE trades_next (
    signature TEXT NOT NULL,
    ix_index INTEGER NOT NULL,
    inner_index INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    pool TEXT NOT NULL,
    mint TEXT NOT NULL,
    trader TEXT NOT NULL,
    side TEXT NOT NULL,
    amount_offered TEXT NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    min_amount_out TEXT NOT NULL,
    fee TEXT NOT NULL,
    creator_fee TEXT NOT NULL,
    partner_fee TEXT NOT NULL,
    refund TEXT NOT NULL,
    fee_bps INTEGER NOT NULL,
    price TEXT,
    sqrt_price TEXT NOT NULL,
    base_reserve TEXT NOT NULL,
    quote_reserve TEXT NOT NULL,
    progress_bps INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    time INTEGER NOT NULL,
    referrer TEXT,
    referral_fee TEXT NOT NULL DEFAULT '0',
    PRIMARY KEY (signature, ix_index, inner_index, slot)
);
INSERT INTO trades_next SELECT * FROM trades;
DROP TABLE trades;
ALTER TABLE trades_next RENAME TO trades;
CREATE INDEX trades_mint ON trades (mint, slot DESC);
CREATE INDEX trades_trader ON trades (trader);
CREATE INDEX trades_slot ON trades (slot);
CREATE INDEX trades_referrer ON trades (referrer);

CREATE TABLE market_trades_next (
    signature TEXT NOT NULL,
    ix_index INTEGER NOT NULL,
    inner_index INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    seq TEXT NOT NULL,
    time INTEGER NOT NULL,
    mint TEXT NOT NULL,
    venue TEXT NOT NULL,
    pool TEXT NOT NULL,
    wallet TEXT NOT NULL,
    side TEXT NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    base_amount TEXT NOT NULL,
    quote_amount TEXT NOT NULL,
    fee TEXT NOT NULL,
    fee_token TEXT NOT NULL,
    price TEXT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index, slot)
);
INSERT INTO market_trades_next SELECT * FROM market_trades;
DROP TABLE market_trades;
ALTER TABLE market_trades_next RENAME TO market_trades;
CREATE UNIQUE INDEX market_trades_mint_seq ON market_trades (mint, seq, slot);
CREATE INDEX market_trades_mint_wallet ON market_trades (mint, wallet, seq);
CREATE INDEX market_trades_wallet ON market_trades (wallet, seq);
CREATE INDEX market_trades_mint_time ON market_trades (mint, time);
CREATE INDEX market_trades_slot ON market_trades (slot);

CREATE TABLE amm_swaps_next (
    signature TEXT NOT NULL,
    ix_index INTEGER NOT NULL,
    inner_index INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    pool TEXT NOT NULL,
    trader TEXT NOT NULL,
    a_to_b INTEGER NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    fee TEXT NOT NULL,
    reserve_a TEXT NOT NULL,
    reserve_b TEXT NOT NULL,
    time INTEGER NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index, slot)
);
INSERT INTO amm_swaps_next SELECT * FROM amm_swaps;
DROP TABLE amm_swaps;
ALTER TABLE amm_swaps_next RENAME TO amm_swaps;
CREATE INDEX amm_swaps_pool ON amm_swaps (pool, slot DESC);
CREATE INDEX amm_swaps_slot ON amm_swaps (slot);

CREATE TABLE feed_events_next (
    seq INTEGER NOT NULL,
    event_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    mint TEXT NOT NULL,
    wallet TEXT,
    slot INTEGER NOT NULL,
    signature TEXT NOT NULL,
    time INTEGER NOT NULL,
    payload TEXT NOT NULL,
    written_at INTEGER NOT NULL,
    PRIMARY KEY (seq, written_at)
);
INSERT INTO feed_events_next SELECT * FROM feed_events;
DROP TABLE feed_events;
ALTER TABLE feed_events_next RENAME TO feed_events;
CREATE INDEX feed_events_event_key ON feed_events (event_key);
CREATE INDEX feed_events_written_at ON feed_events (written_at);

CREATE VIEW fee_ledger AS
SELECT t.signature, t.ix_index, t.inner_index, t.slot, t.pool, t.mint, l.creator AS wallet,
       'trading' AS kind, 'accrual' AS entry, t.creator_fee AS amount, t.time
FROM trades t JOIN launches l ON l.pool = t.pool
UNION ALL
SELECT t.signature, t.ix_index, t.inner_index, t.slot, t.pool, t.mint, c.partner AS wallet,
       'trading' AS kind, 'accrual' AS entry, t.partner_fee AS amount, t.time
FROM trades t JOIN launches l ON l.pool = t.pool JOIN configs c ON c.address = l.config
UNION ALL
SELECT m.signature, m.ix_index, m.inner_index, m.slot, m.pool, m.mint, l.creator AS wallet,
       'surplus' AS kind, 'accrual' AS entry, m.creator_surplus AS amount, m.time
FROM migrations m JOIN launches l ON l.pool = m.pool
UNION ALL
SELECT m.signature, m.ix_index, m.inner_index, m.slot, m.pool, m.mint, c.partner AS wallet,
       'surplus' AS kind, 'accrual' AS entry, m.partner_surplus AS amount, m.time
FROM migrations m JOIN launches l ON l.pool = m.pool JOIN configs c ON c.address = l.config
UNION ALL
SELECT signature, ix_index, inner_index, slot, pool, mint, claimer AS wallet,
       kind, 'claim' AS entry, amount, time
FROM claims;
