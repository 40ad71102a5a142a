-- Shared creator fees and referral fees (issue 29).
--
-- One row per launch whose creator role shared its creator fees: the FeeShares account's latest state,
-- moved only forward in (slot, write_version) like the other program accounts. `recipients` lists every
-- wallet with a slot (a share now, or a balance left to claim), each between single spaces, so that a
-- wallet's shares are found with `recipients LIKE '% ' || wallet || ' %'` (base58 holds no space). Only
-- launches that share have a row, a small table beside `pools`.
CREATE TABLE fee_shares (
    address TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    locked BIGINT NOT NULL,
    recipients TEXT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL
);
CREATE INDEX fee_shares_pool ON fee_shares (pool);

-- The referral a trade named (its quote account's owner) and what it was paid at trade time, out of the
-- partner's part of the fee. Trades without one have NULL and '0'.
ALTER TABLE trades ADD COLUMN referrer TEXT;
ALTER TABLE trades ADD COLUMN referral_fee TEXT NOT NULL DEFAULT '0';
CREATE INDEX trades_referrer ON trades (referrer);
