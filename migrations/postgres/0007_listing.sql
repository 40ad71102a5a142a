-- Per-launch market state for the token view and the listing, written by the indexer in the same transaction as
-- the trades and pool accounts that change it (see docs/market-data.md). `price` and `ath_price` are fixed-point
-- (whole quote per whole token times 10^18, as in market_trades); `market_cap` is price times supply (base
-- units), so whole quote times 10^24, left-padded with zeros to 39 digits so that text order is numeric order.
-- `stale` rows (launches indexed before this table existed) are recomputed when the store opens.
CREATE TABLE launch_stats (
    mint TEXT PRIMARY KEY,
    status TEXT NOT NULL DEFAULT 'bonding',
    progress_bps BIGINT NOT NULL DEFAULT 0,
    supply TEXT NOT NULL DEFAULT '1000000000000000',
    price TEXT NOT NULL DEFAULT '0',
    market_cap TEXT NOT NULL DEFAULT '000000000000000000000000000000000000000',
    ath_price TEXT NOT NULL DEFAULT '0',
    last_trade_time BIGINT NOT NULL DEFAULT 0,
    last_trade_seq TEXT NOT NULL DEFAULT '',
    -- The rolling 24h volume (the hourly candles from `volume_window` on), quote padded like market_cap;
    -- rewritten with every trade and, once the window moves past it, by the indexer's sweep.
    volume_24h TEXT NOT NULL DEFAULT '000000000000000000000000000000000000000',
    volume_24h_base TEXT NOT NULL DEFAULT '0',
    volume_window BIGINT NOT NULL DEFAULT 0,
    stale BIGINT NOT NULL DEFAULT 0
);
INSERT INTO launch_stats (mint, stale) SELECT mint, 1 FROM launches;
-- One index per listing sort, each ending in the mint (the tiebreaker).
CREATE INDEX launch_stats_market_cap ON launch_stats (market_cap, mint);
CREATE INDEX launch_stats_last_trade ON launch_stats (last_trade_time, mint);
CREATE INDEX launch_stats_progress ON launch_stats (progress_bps, mint);
CREATE INDEX launch_stats_volume ON launch_stats (volume_24h, mint);
CREATE INDEX launch_stats_volume_window ON launch_stats (volume_window);
CREATE INDEX launch_stats_stale ON launch_stats (stale);
CREATE INDEX launches_new ON launches (created_at, created_slot, mint);
CREATE INDEX launches_preset_quote ON launches (preset, quote);

-- Images uploaded at prepare, content-addressed by the SHA-256 of their bytes.
CREATE TABLE images (
    hash TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    data BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
ALTER TABLE launch_metadata ADD COLUMN image_hash TEXT;
ALTER TABLE launch_metadata ADD COLUMN website TEXT;
ALTER TABLE launch_metadata ADD COLUMN twitter TEXT;
ALTER TABLE launch_metadata ADD COLUMN telegram TEXT;
