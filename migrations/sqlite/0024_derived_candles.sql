-- Migration 0024 (issue 44, storage per trade): candles of four intervals only, and no index nothing reads.
--
-- Candles are stored for 1s, 15s, 1m and 1h; 5m and 15m are derived on read from the 1m candles, 4h and 1d
-- from the 1h ones (crates/index/src/market.rs, `STORED_INTERVALS`, `derive`): a derived candle is the merge
-- of the stored ones that start in it, which is exactly the candle of their trades. A trade so writes 4
-- candles instead of 8. The derived intervals' rows go: every one of them is the merge of 1m or 1h candles
-- kept (the 1h ones always; the 1m ones for ever unless --candle-retention pruned them, in which case the
-- 5m and 15m candles older than the 1m ones kept go too, as the release notes say).
DELETE FROM candles WHERE interval_secs IN (300, 900, 14400, 86400);

-- `trades` is read by its key, by slot (retention) and by referrer (referral sums): the indexes by mint and
-- by trader served no query (the market series is `market_trades`, indexed by mint and wallet), and the
-- referrer's index holds the trades that name a referrer only.
DROP INDEX trades_mint;
DROP INDEX trades_trader;
DROP INDEX trades_referrer;
CREATE INDEX trades_referrer ON trades (referrer) WHERE referrer IS NOT NULL;

-- (PostgreSQL also leaves half of each page of `pools` and `amm_pools` free for their rows' next versions;
-- SQLite rewrites a row in place.)
