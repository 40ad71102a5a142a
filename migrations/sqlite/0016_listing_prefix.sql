-- The listing's `prefix` filter (`read/listing.rs` `starts_with`): a byte-order range on the mint and on the
-- symbol; SQLite's default collation (BINARY) is byte order. (The mint's is the primary key's twin, kept so
-- both trees describe one schema.)
CREATE INDEX launches_mint_prefix ON launches (mint);
CREATE INDEX launches_symbol_prefix ON launches (symbol);
