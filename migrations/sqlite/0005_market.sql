-- The market series: every curve and AMM trade of a launched token as one series, written with the trade
-- events (same key), ordered by `seq` (slot, position in the slot, instruction, inner instruction; 40 digits).
-- `price` is the spot price after the trade: whole quote per whole token times 10^18, rounded down.
CREATE TABLE market_trades (
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
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE UNIQUE INDEX market_trades_mint_seq ON market_trades (mint, seq);
CREATE INDEX market_trades_mint_wallet ON market_trades (mint, wallet, seq);
CREATE INDEX market_trades_wallet ON market_trades (wallet, seq);
CREATE INDEX market_trades_mint_time ON market_trades (mint, time);
CREATE INDEX market_trades_slot ON market_trades (slot);

-- Candles rolled up from market_trades as they are inserted (a replayed trade is not inserted twice, so it
-- never counts twice; a dead slot's candles are recomputed from the trades that remain). Prices as in
-- market_trades; volumes in base units; open_seq/close_seq are the seq of the first and last trade.
CREATE TABLE candles (
    mint TEXT NOT NULL,
    interval_secs INTEGER NOT NULL,
    start_time INTEGER NOT NULL,
    open TEXT NOT NULL,
    high TEXT NOT NULL,
    low TEXT NOT NULL,
    close TEXT NOT NULL,
    volume_base TEXT NOT NULL,
    volume_quote TEXT NOT NULL,
    trades INTEGER NOT NULL,
    open_seq TEXT NOT NULL,
    close_seq TEXT NOT NULL,
    PRIMARY KEY (mint, interval_secs, start_time)
);
