-- Holders: the Token-2022 token accounts of launched mints (streamed with the `token_account_state` filter and
-- kept only when the mint is a launch the index knows; backfilled per mint). Forward-only in (slot,
-- write_version) like the program accounts. A closed account stays as a row with amount 0 and closed = 1, so a
-- replayed older update can never bring it back. `amount` fits INTEGER: a launched mint's whole supply is 10^15
-- base units. `vault` is 1 for the launchpad's base vault and the AMM's vaults (owned by the pools): they are
-- not holders.
CREATE TABLE token_accounts (
    address TEXT PRIMARY KEY,
    mint TEXT NOT NULL,
    owner TEXT NOT NULL,
    amount INTEGER NOT NULL,
    vault INTEGER NOT NULL,
    closed INTEGER NOT NULL,
    slot INTEGER NOT NULL,
    write_version INTEGER NOT NULL
);
CREATE INDEX token_accounts_mint_amount ON token_accounts (mint, amount DESC);
CREATE INDEX token_accounts_mint_owner ON token_accounts (mint, owner);
CREATE INDEX token_accounts_owner ON token_accounts (owner);

-- Holders per mint: distinct owners with a positive balance, vaults excluded. Maintained in the batch's
-- transaction from the token-account writes that changed whether an owner holds.
CREATE TABLE holder_counts (
    mint TEXT PRIMARY KEY,
    holders INTEGER NOT NULL
);
