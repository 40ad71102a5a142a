-- The launchpad index. Amounts are u64/u128 on chain and exceed BIGINT, so they are stored as decimal text
-- (cast to NUMERIC for analytics). Public keys and signatures are base58 text. Times are unix seconds.
-- Account tables keep (slot, write_version) and only move forward; event tables are keyed by
-- (signature, ix_index, inner_index): the outer instruction and the position among its inner instructions.

CREATE TABLE indexer_cursor (
    stream TEXT PRIMARY KEY,
    slot BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE configs (
    address TEXT PRIMARY KEY,
    preset TEXT NOT NULL,
    quote TEXT NOT NULL,
    quote_mint TEXT NOT NULL,
    quote_decimals BIGINT NOT NULL,
    partner TEXT NOT NULL,
    threshold TEXT NOT NULL,
    sale_supply TEXT NOT NULL,
    migration_supply TEXT NOT NULL,
    creator_fee_share_bps BIGINT NOT NULL,
    cliff_fee_bps BIGINT NOT NULL,
    final_fee_bps BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL
);

CREATE TABLE launches (
    mint TEXT PRIMARY KEY,
    pool TEXT NOT NULL UNIQUE,
    config TEXT NOT NULL,
    creator TEXT NOT NULL,
    quote_mint TEXT NOT NULL,
    name TEXT NOT NULL,
    symbol TEXT NOT NULL,
    uri TEXT NOT NULL,
    preset TEXT NOT NULL,
    quote TEXT NOT NULL,
    salt TEXT NOT NULL,
    created_slot BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    -- NULL when the launch was backfilled from account state rather than seen in its transaction.
    signature TEXT
);
CREATE INDEX launches_recent ON launches (created_at DESC, mint);
CREATE INDEX launches_creator ON launches (creator);

CREATE TABLE pools (
    address TEXT PRIMARY KEY,
    mint TEXT NOT NULL UNIQUE,
    config TEXT NOT NULL,
    creator TEXT NOT NULL,
    quote_mint TEXT NOT NULL,
    status TEXT NOT NULL,
    sqrt_price TEXT NOT NULL,
    base_reserve TEXT NOT NULL,
    quote_reserve TEXT NOT NULL,
    -- Progress to graduation; NULL if the pool was written before its config was known.
    progress_bps BIGINT,
    creator_fee_unclaimed TEXT NOT NULL,
    partner_fee_unclaimed TEXT NOT NULL,
    creator_fee_claimed TEXT NOT NULL,
    partner_fee_claimed TEXT NOT NULL,
    creator_surplus_unclaimed TEXT NOT NULL,
    partner_surplus_unclaimed TEXT NOT NULL,
    launch_timestamp BIGINT NOT NULL,
    complete_timestamp BIGINT NOT NULL,
    migrate_timestamp BIGINT NOT NULL,
    -- NULL until migrated.
    amm_pool TEXT,
    migrated_base TEXT NOT NULL,
    migrated_quote TEXT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL
);
CREATE INDEX pools_creator ON pools (creator);

CREATE TABLE amm_pools (
    address TEXT PRIMARY KEY,
    mint_a TEXT NOT NULL,
    mint_b TEXT NOT NULL,
    vault_a TEXT NOT NULL,
    vault_b TEXT NOT NULL,
    creator TEXT NOT NULL,
    fee_bps BIGINT NOT NULL,
    reserve_a TEXT NOT NULL,
    reserve_b TEXT NOT NULL,
    liquidity TEXT NOT NULL,
    locked_liquidity TEXT NOT NULL,
    fee_growth_a TEXT NOT NULL,
    fee_growth_b TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL
);
CREATE INDEX amm_pools_mint_a ON amm_pools (mint_a);
CREATE INDEX amm_pools_mint_b ON amm_pools (mint_b);

CREATE TABLE amm_positions (
    address TEXT PRIMARY KEY,
    pool TEXT NOT NULL,
    owner TEXT NOT NULL,
    position_id TEXT NOT NULL,
    liquidity TEXT NOT NULL,
    locked_liquidity TEXT NOT NULL,
    fees_owed_a TEXT NOT NULL,
    fees_owed_b TEXT NOT NULL,
    fees_claimed_a TEXT NOT NULL,
    fees_claimed_b TEXT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL
);
CREATE INDEX amm_positions_owner ON amm_positions (owner);
CREATE INDEX amm_positions_pool ON amm_positions (pool);

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
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX trades_mint ON trades (mint, slot DESC);
CREATE INDEX trades_trader ON trades (trader);
CREATE INDEX trades_slot ON trades (slot);

CREATE TABLE curve_completions (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    pool TEXT NOT NULL,
    mint TEXT NOT NULL,
    trader TEXT NOT NULL,
    sqrt_price TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX curve_completions_slot ON curve_completions (slot);

CREATE TABLE claims (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    pool TEXT NOT NULL,
    mint TEXT NOT NULL,
    claimer TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount TEXT NOT NULL,
    base_amount TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX claims_claimer ON claims (claimer);
CREATE INDEX claims_slot ON claims (slot);

CREATE TABLE migrations (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    pool TEXT NOT NULL,
    mint TEXT NOT NULL,
    amm_pool TEXT NOT NULL,
    creator_position TEXT NOT NULL,
    partner_position TEXT NOT NULL,
    base_amount TEXT NOT NULL,
    quote_amount TEXT NOT NULL,
    liquidity_per_position TEXT NOT NULL,
    surplus TEXT NOT NULL,
    creator_surplus TEXT NOT NULL,
    partner_surplus TEXT NOT NULL,
    burnt_base TEXT NOT NULL,
    sqrt_price TEXT NOT NULL,
    migrator TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX migrations_slot ON migrations (slot);

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
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX amm_swaps_pool ON amm_swaps (pool, slot DESC);
CREATE INDEX amm_swaps_slot ON amm_swaps (slot);

-- Liquidity events of the AMM: create (a position), add, remove, lock, claim (position fees).
CREATE TABLE amm_liquidity (
    signature TEXT NOT NULL,
    ix_index BIGINT NOT NULL,
    inner_index BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    pool TEXT NOT NULL,
    position TEXT NOT NULL,
    owner TEXT NOT NULL,
    kind TEXT NOT NULL,
    liquidity TEXT NOT NULL,
    amount_a TEXT NOT NULL,
    amount_b TEXT NOT NULL,
    time BIGINT NOT NULL,
    PRIMARY KEY (signature, ix_index, inner_index)
);
CREATE INDEX amm_liquidity_position ON amm_liquidity (position);
CREATE INDEX amm_liquidity_slot ON amm_liquidity (slot);

-- Account writes of slots that may still die (processed commitment only), to roll a dead fork back.
CREATE TABLE account_versions (
    address TEXT NOT NULL,
    kind TEXT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (address, slot, write_version)
);
CREATE INDEX account_versions_slot ON account_versions (slot);

-- Fee accruals and claims per wallet and pool: the creator's and the partner's share of each curve trade,
-- each party's surplus at migration, and every claim (trading, surplus, locked-lp).
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
