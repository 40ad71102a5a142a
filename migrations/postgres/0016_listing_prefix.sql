-- The listing's `prefix` filter (`read/listing.rs` `starts_with`): a byte-order range on the mint and on the
-- symbol, which PostgreSQL serves from an index only under the "C" collation, whatever the database's.
CREATE INDEX launches_mint_prefix ON launches (mint COLLATE "C");
CREATE INDEX launches_symbol_prefix ON launches (symbol COLLATE "C");
