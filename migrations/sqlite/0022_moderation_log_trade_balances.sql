-- Migration 0022: the moderation log, and the balance before each trade.

-- Every operator moderation action on the community layer (issue 43), in order: hides and unhides of comments
-- and wallets, with who, when and why. A hide also lives on its row (comments.hidden_*, comment_hidden_wallets)
-- and an unhide clears that; the log keeps both, so nothing an operator did is ever lost.
CREATE TABLE moderation_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    -- 'hide' or 'unhide'.
    action TEXT NOT NULL,
    -- 'comment' (subject: its id) or 'wallet' (subject: its address).
    target TEXT NOT NULL,
    subject TEXT NOT NULL,
    by_whom TEXT NOT NULL,
    reason TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX moderation_log_subject ON moderation_log (target, subject, id);

-- The hides made before the log, oldest first.
INSERT INTO moderation_log (action, target, subject, by_whom, reason, at)
SELECT 'hide', target, subject, by_whom, reason, at FROM (
    SELECT 'comment' AS target, CAST(id AS TEXT) AS subject, COALESCE(hidden_by, '') AS by_whom,
        COALESCE(hidden_reason, '') AS reason,
        hidden_at AS at FROM comments WHERE hidden_at IS NOT NULL
    UNION ALL
    SELECT 'wallet', wallet, hidden_by, hidden_reason, hidden_at FROM comment_hidden_wallets
) h ORDER BY at, target, subject;

-- PnL (issue 43): the trader's balance of the token just before the trade's transaction (the transaction's own
-- pre-token balances of the trader's accounts of the mint), base units; NULL for trades indexed before this
-- column and for a trader's second trade in one transaction. PnL reconciles with it before applying the
-- trade, so a transfer between two trades is accounted where it happened (crates/index/src/pnl.rs).
ALTER TABLE market_trades ADD COLUMN wallet_before TEXT;
