-- Bounded storage (docs/operations.md, "Storage and retention"). The four tables that grow with every trade
-- are partitioned by range, so that retention drops whole partitions instead of deleting rows:
-- `trades`, `market_trades` and `amm_swaps` by slot (216,000 slots a partition, about a day at 400 ms a
-- slot), `feed_events` by the hour it was written (`written_at`, 3,600 seconds a partition). Slot, not block
-- time, because slot is part of every event's identity: a replayed or recovered event lands on the same
-- key, so the idempotent insert (`ON CONFLICT ... DO NOTHING`) still finds it. A partitioned table's unique
-- keys must hold its partition key: the event tables' keys gain `slot`; the feed's `seq` key gains
-- `written_at`, and its `event_key` is kept unique by its one writer at a time (the feed's advisory lock).
-- The indexer makes each partition before it writes into it, and the next one ahead (launchpad_partition);
-- retention drops the old ones (launchpad_drop_partition). The widths are part of the schema: they are
-- `index::store::partitions` in the code and must not change once partitions exist.

-- The partition of `parent` holding `key` (ranges `width` wide, named `<parent>_p<key / width>`), made if
-- missing. Returns its name.
CREATE FUNCTION launchpad_partition(parent TEXT, key BIGINT, width BIGINT) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    lo BIGINT;
    part TEXT;
BEGIN
    IF key < 0 OR width <= 0 THEN
        RAISE EXCEPTION 'no partition of % for key % (width %)', parent, key, width;
    END IF;
    lo := key - key % width;
    part := parent || '_p' || (lo / width);
    EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
                   part, parent, lo, lo + width);
    RETURN part;
END
$$;

-- The partitions of `parent` and their ranges [lo, hi), lowest first.
CREATE FUNCTION launchpad_partitions(parent TEXT) RETURNS TABLE (name TEXT, lo BIGINT, hi BIGINT)
LANGUAGE sql STABLE AS $$
    SELECT c.relname::TEXT,
           substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \(''?([0-9]+)')::BIGINT,
           substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''?([0-9]+)')::BIGINT
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent::regclass
    ORDER BY 2
$$;

-- Drops `part`, which must be a partition of `parent` (its rows go with it).
CREATE FUNCTION launchpad_drop_partition(parent TEXT, part TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM launchpad_partitions(parent) p WHERE p.name = part) THEN
        RAISE EXCEPTION '% is not a partition of %', part, parent;
    END IF;
    EXECUTE format('DROP TABLE %I', part);
END
$$;

-- The view reads `trades`: it is made again over the partitioned table below.
DROP VIEW fee_ledger;

-- Each table: the old one renamed away with its indexes, the partitioned one made under the old name, the
-- partitions its rows need made, the rows copied, the indexes made, the old table dropped.
ALTER TABLE trades RENAME TO trades_unpartitioned;
ALTER TABLE trades_unpartitioned RENAME CONSTRAINT trades_pkey TO trades_unpartitioned_pkey;
ALTER INDEX trades_mint RENAME TO trades_unpartitioned_mint;
ALTER INDEX trades_trader RENAME TO trades_unpartitioned_trader;
ALTER INDEX trades_slot RENAME TO trades_unpartitioned_slot;
ALTER INDEX trades_referrer RENAME TO trades_unpartitioned_referrer;
CREATE TABLE trades (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
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
    fee_bps BIGINT NOT NULL,
    price TEXT,
    sqrt_price TEXT NOT NULL,
    base_reserve TEXT NOT NULL,
    quote_reserve TEXT NOT NULL,
    progress_bps BIGINT NOT NULL,
    complete BIGINT NOT NULL,
    time BIGINT NOT NULL,
    referrer TEXT,
    referral_fee TEXT NOT NULL DEFAULT '0',
    PRIMARY KEY (signature, ix_index, inner_index, slot)
) PARTITION BY RANGE (slot);
SELECT launchpad_partition('trades', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM trades_unpartitioned) r;
INSERT INTO trades SELECT * FROM trades_unpartitioned;
CREATE INDEX trades_mint ON trades (mint, slot DESC);
CREATE INDEX trades_trader ON trades (trader);
CREATE INDEX trades_slot ON trades (slot);
CREATE INDEX trades_referrer ON trades (referrer);
DROP TABLE trades_unpartitioned;

ALTER TABLE market_trades RENAME TO market_trades_unpartitioned;
ALTER TABLE market_trades_unpartitioned RENAME CONSTRAINT market_trades_pkey TO market_trades_unpartitioned_pkey;
ALTER INDEX market_trades_mint_seq RENAME TO market_trades_unpartitioned_mint_seq;
ALTER INDEX market_trades_mint_wallet RENAME TO market_trades_unpartitioned_mint_wallet;
ALTER INDEX market_trades_wallet RENAME TO market_trades_unpartitioned_wallet;
ALTER INDEX market_trades_mint_time RENAME TO market_trades_unpartitioned_mint_time;
ALTER INDEX market_trades_slot RENAME TO market_trades_unpartitioned_slot;
CREATE TABLE market_trades (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    seq TEXT NOT NULL,
    time BIGINT NOT NULL,
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
) PARTITION BY RANGE (slot);
SELECT launchpad_partition('market_trades', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM market_trades_unpartitioned) r;
INSERT INTO market_trades SELECT * FROM market_trades_unpartitioned;
CREATE UNIQUE INDEX market_trades_mint_seq ON market_trades (mint, seq, slot);
CREATE INDEX market_trades_mint_wallet ON market_trades (mint, wallet, seq);
CREATE INDEX market_trades_wallet ON market_trades (wallet, seq);
CREATE INDEX market_trades_mint_time ON market_trades (mint, time);
CREATE INDEX market_trades_slot ON market_trades (slot);
DROP TABLE market_trades_unpartitioned;

ALTER TABLE amm_swaps RENAME TO amm_swaps_unpartitioned;
ALTER TABLE amm_swaps_unpartitioned RENAME CONSTRAINT amm_swaps_pkey TO amm_swaps_unpartitioned_pkey;
ALTER INDEX amm_swaps_pool RENAME TO amm_swaps_unpartitioned_pool;
ALTER INDEX amm_swaps_slot RENAME TO amm_swaps_unpartitioned_slot;
CREATE TABLE amm_swaps (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    pool TEXT NOT NULL,
    trader TEXT NOT NULL,
    a_to_b BIGINT NOT NULL,
    amount_in TEXT NOT NULL,
    amount_out TEXT NOT NULL,
    fee TEXT NOT NULL,
    reserve_a TEXT NOT NULL,
    reserve_b TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index, slot)
) PARTITION BY RANGE (slot);
SELECT launchpad_partition('amm_swaps', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM amm_swaps_unpartitioned) r;
INSERT INTO amm_swaps SELECT * FROM amm_swaps_unpartitioned;
CREATE INDEX amm_swaps_pool ON amm_swaps (pool, slot DESC);
CREATE INDEX amm_swaps_slot ON amm_swaps (slot);
DROP TABLE amm_swaps_unpartitioned;

ALTER TABLE feed_events RENAME TO feed_events_unpartitioned;
ALTER TABLE feed_events_unpartitioned RENAME CONSTRAINT feed_events_pkey TO feed_events_unpartitioned_pkey;
ALTER TABLE feed_events_unpartitioned RENAME CONSTRAINT feed_events_event_key_key TO feed_events_unpartitioned_event_key_key;
ALTER INDEX feed_events_written_at RENAME TO feed_events_unpartitioned_written_at;
CREATE TABLE feed_events (
    seq BIGINT NOT NULL,
    event_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    mint TEXT NOT NULL,
    wallet TEXT,
    slot BIGINT NOT NULL,
    signature TEXT NOT NULL,
    time BIGINT NOT NULL,
    payload TEXT NOT NULL,
    written_at BIGINT NOT NULL,
    PRIMARY KEY (seq, written_at)
) PARTITION BY RANGE (written_at);
SELECT launchpad_partition('feed_events', s, 3600) FROM (SELECT DISTINCT written_at - written_at % 3600 AS s FROM feed_events_unpartitioned) r;
INSERT INTO feed_events SELECT * FROM feed_events_unpartitioned;
CREATE INDEX feed_events_event_key ON feed_events (event_key);
CREATE INDEX feed_events_written_at ON feed_events (written_at);
DROP TABLE feed_events_unpartitioned;

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
