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

-- Each table: the old one renamed away (with its key, whose name the new key takes), the partitioned one made under the old name with
-- the same columns (`LIKE`: names, types, NOT NULL, defaults) and the new key, the partitions its rows need
-- made, the rows copied, the old table dropped (with its indexes), the indexes made again.
ALTER TABLE trades RENAME TO trades_unpartitioned;
ALTER TABLE trades_unpartitioned RENAME CONSTRAINT trades_pkey TO trades_unpartitioned_pkey;
CREATE TABLE trades (LIKE trades_unpartitioned INCLUDING DEFAULTS, PRIMARY KEY (signature, ix_index, inner_index, slot))
    PARTITION BY RANGE (slot);
SELECT launchpad_partition('trades', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM trades_unpartitioned) r;
INSERT INTO trades SELECT * FROM trades_unpartitioned;
DROP TABLE trades_unpartitioned;
CREATE INDEX trades_mint ON trades (mint, slot DESC);
CREATE INDEX trades_trader ON trades (trader);
CREATE INDEX trades_slot ON trades (slot);
CREATE INDEX trades_referrer ON trades (referrer);

ALTER TABLE market_trades RENAME TO market_trades_unpartitioned;
ALTER TABLE market_trades_unpartitioned RENAME CONSTRAINT market_trades_pkey TO market_trades_unpartitioned_pkey;
CREATE TABLE market_trades (LIKE market_trades_unpartitioned INCLUDING DEFAULTS, PRIMARY KEY (signature, ix_index, inner_index, slot))
    PARTITION BY RANGE (slot);
SELECT launchpad_partition('market_trades', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM market_trades_unpartitioned) r;
INSERT INTO market_trades SELECT * FROM market_trades_unpartitioned;
DROP TABLE market_trades_unpartitioned;
CREATE UNIQUE INDEX market_trades_mint_seq ON market_trades (mint, seq, slot);
CREATE INDEX market_trades_mint_wallet ON market_trades (mint, wallet, seq);
CREATE INDEX market_trades_wallet ON market_trades (wallet, seq);
CREATE INDEX market_trades_mint_time ON market_trades (mint, time);
CREATE INDEX market_trades_slot ON market_trades (slot);

ALTER TABLE amm_swaps RENAME TO amm_swaps_unpartitioned;
ALTER TABLE amm_swaps_unpartitioned RENAME CONSTRAINT amm_swaps_pkey TO amm_swaps_unpartitioned_pkey;
CREATE TABLE amm_swaps (LIKE amm_swaps_unpartitioned INCLUDING DEFAULTS, PRIMARY KEY (signature, ix_index, inner_index, slot))
    PARTITION BY RANGE (slot);
SELECT launchpad_partition('amm_swaps', s, 216000) FROM (SELECT DISTINCT slot - slot % 216000 AS s FROM amm_swaps_unpartitioned) r;
INSERT INTO amm_swaps SELECT * FROM amm_swaps_unpartitioned;
DROP TABLE amm_swaps_unpartitioned;
CREATE INDEX amm_swaps_pool ON amm_swaps (pool, slot DESC);
CREATE INDEX amm_swaps_slot ON amm_swaps (slot);

ALTER TABLE feed_events RENAME TO feed_events_unpartitioned;
ALTER TABLE feed_events_unpartitioned RENAME CONSTRAINT feed_events_pkey TO feed_events_unpartitioned_pkey;
CREATE TABLE feed_events (LIKE feed_events_unpartitioned INCLUDING DEFAULTS, PRIMARY KEY (seq, written_at))
    PARTITION BY RANGE (written_at);
SELECT launchpad_partition('feed_events', s, 3600) FROM (SELECT DISTINCT written_at - written_at % 3600 AS s FROM feed_events_unpartitioned) r;
INSERT INTO feed_events SELECT * FROM feed_events_unpartitioned;
DROP TABLE feed_events_unpartitioned;
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
