-- The community layer (issue 43): signed comments and replies per token, the nonces of signed messages (a
-- replay is refused), operator hides (recorded, never deleted) and profiles (a signed display name and avatar).
-- The messages and their signatures are kept with what they authorized, so a post can be re-verified later.
CREATE TABLE comments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mint TEXT NOT NULL,
    wallet TEXT NOT NULL,
    -- The comment replied to (one level: always a top-level comment); NULL for a top-level comment.
    parent_id BIGINT,
    text TEXT NOT NULL,
    -- The author's balance of the token (base units) in the index when the comment was posted.
    holding BIGINT NOT NULL,
    -- Visible replies (what the `top` order sorts by).
    replies BIGINT NOT NULL DEFAULT 0,
    message TEXT NOT NULL,
    signature TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    hidden_at BIGINT,
    hidden_by TEXT,
    hidden_reason TEXT
);
CREATE INDEX comments_by_mint ON comments (mint, parent_id, id);
CREATE INDEX comments_by_wallet ON comments (wallet, id);

CREATE TABLE comment_hidden_wallets (
    wallet TEXT PRIMARY KEY,
    hidden_at BIGINT NOT NULL,
    hidden_by TEXT NOT NULL,
    hidden_reason TEXT NOT NULL
);

-- A signed message's nonce, recorded when the message is used; kept until it expires (the expiry refuses it
-- after that).
CREATE TABLE signed_nonces (
    wallet TEXT NOT NULL,
    nonce TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (wallet, nonce)
);

CREATE TABLE profiles (
    wallet TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    -- The name normalized (NFKC, trimmed, lowercased): unique, so names are unique case-insensitively.
    name_key TEXT NOT NULL UNIQUE,
    -- SHA-256 (hex) of the avatar in the image store.
    avatar_hash TEXT,
    message TEXT NOT NULL,
    signature TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
