//! The messages a wallet signs to post a comment or set its profile (Sign-In-With-Solana style), built by
//! the server from the request's fields so that a signature only ever authorizes exactly what the request
//! says; verified with ed25519 against the wallet's public key. Nothing secret is ever sent: the wallet signs
//! where it lives. The exact format is documented in `docs/api.md` ("Signed messages").

use crate::error::{ApiError, ErrorCode};
use sha2::{Digest, Sha256};
use solana_pubkey::Pubkey;
use solana_signature::Signature;

/// The latest expiration time a message may carry: this far after now, seconds.
pub const MAX_LIFETIME_SECS: i64 = 600;

/// The lengths of a nonce, characters (ASCII letters and digits).
pub const NONCE_LEN: std::ops::RangeInclusive<usize> = 8..=40;

/// SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// What every signed message ends with.
pub struct Envelope<'a> {
    /// The host the request was sent to (its `Host` header, as sent).
    pub domain: &'a str,
    pub wallet: &'a Pubkey,
    pub nonce: &'a str,
    /// Unix seconds.
    pub expires_at: i64,
}

/// The message a comment (or reply) is posted with.
pub fn comment(e: &Envelope, mint: &Pubkey, reply_to: Option<i64>, text: &str) -> String {
    let reply_to = reply_to.map_or_else(|| "none".to_string(), |id| id.to_string());
    format!(
        "{} wants you to post a comment with your Solana account:\n{}\n\nToken: {mint}\nReply to: {reply_to}\n\
         Text SHA-256: {}\nNonce: {}\nExpiration Time: {}",
        e.domain,
        e.wallet,
        sha256_hex(text.as_bytes()),
        e.nonce,
        e.expires_at
    )
}

/// The message a profile is set with; `avatar` is the SHA-256 (hex) of the avatar's bytes as sent.
pub fn profile(e: &Envelope, name: &str, avatar: Option<&str>) -> String {
    format!(
        "{} wants you to set your profile with your Solana account:\n{}\n\nName: {name}\nAvatar SHA-256: {}\n\
         Nonce: {}\nExpiration Time: {}",
        e.domain,
        e.wallet,
        avatar.unwrap_or("none"),
        e.nonce,
        e.expires_at
    )
}

/// What a signed write carries beside what it says: its nonce, expiry and signature, each named when
/// missing, the envelope checked against `now` (the time the write is judged at, kept for the store).
pub struct Signed<'a> {
    pub nonce: &'a str,
    pub expires_at: i64,
    pub signature: &'a str,
    pub now: i64,
}

impl<'a> Signed<'a> {
    pub fn read(
        nonce: Option<&'a str>,
        expires_at: Option<i64>,
        signature: Option<&'a str>,
        now: i64,
    ) -> Result<Self, ApiError> {
        let nonce = crate::error::required("nonce", nonce)?;
        let expires_at = expires_at.ok_or_else(|| ApiError::missing("expiresAt"))?;
        let signature = crate::error::required("signature", signature)?;
        check_envelope(nonce, expires_at, now)?;
        Ok(Self {
            nonce,
            expires_at,
            signature,
            now,
        })
    }

    /// The envelope `wallet` signed for `domain`.
    pub fn envelope<'b>(&'b self, domain: &'b str, wallet: &'b Pubkey) -> Envelope<'b> {
        Envelope {
            domain,
            wallet,
            nonce: self.nonce,
            expires_at: self.expires_at,
        }
    }
}

/// Checks a nonce's form and a message's expiration time against `now` (unix seconds).
pub fn check_envelope(nonce: &str, expires_at: i64, now: i64) -> Result<(), ApiError> {
    if !NONCE_LEN.contains(&nonce.len()) || !nonce.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::invalid(format!(
            "`nonce` must be {} to {} ASCII letters and digits",
            NONCE_LEN.start(),
            NONCE_LEN.end()
        )));
    }
    if expires_at <= now {
        return Err(ApiError::new(
            ErrorCode::MessageExpired,
            format!("the message expired at {expires_at} (now {now}): sign a new one"),
        ));
    }
    if expires_at > now + MAX_LIFETIME_SECS {
        return Err(ApiError::new(
            ErrorCode::MessageExpired,
            format!(
                "`expiresAt` is more than {MAX_LIFETIME_SECS} s ahead (now {now}): sign one that expires sooner"
            ),
        ));
    }
    Ok(())
}

/// Verifies that `signature` (base58, as wallets' `signMessage` return it encoded) is `wallet`'s over
/// `message`'s UTF-8 bytes.
pub fn verify(wallet: &Pubkey, message: &str, signature: &str) -> Result<(), ApiError> {
    let bad = || {
        ApiError::new(
            ErrorCode::MessageSignatureInvalid,
            "`signature` is not the wallet's signature of the message this request describes",
        )
    };
    let sig: Signature = signature.trim().parse().map_err(|_| bad())?;
    if sig.verify(wallet.as_ref(), message.as_bytes()) {
        Ok(())
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solana_keypair::Keypair;
    use solana_signer::Signer;

    fn envelope(wallet: &Pubkey) -> Envelope<'_> {
        Envelope {
            domain: "launchpad.example",
            wallet,
            nonce: "abcdefgh1234",
            expires_at: 1_800_000_000,
        }
    }

    #[test]
    fn the_comment_message_is_exactly_the_documented_one() {
        let wallet: Pubkey = "11111111111111111111111111111112".parse().unwrap();
        let mint: Pubkey = "So11111111111111111111111111111111111111112"
            .parse()
            .unwrap();
        assert_eq!(
            comment(&envelope(&wallet), &mint, Some(7), "gm"),
            "launchpad.example wants you to post a comment with your Solana account:\n\
             11111111111111111111111111111112\n\nToken: So11111111111111111111111111111111111111112\n\
             Reply to: 7\nText SHA-256: 0f8a6f1d1a3e5b8a6fcb2a9f8f2b5d5ab5c1a4d3ba3bf0a6ae2c2f95e4f7ec0b\n\
             Nonce: abcdefgh1234\nExpiration Time: 1800000000"
                .replace(
                    "0f8a6f1d1a3e5b8a6fcb2a9f8f2b5d5ab5c1a4d3ba3bf0a6ae2c2f95e4f7ec0b",
                    &sha256_hex(b"gm")
                )
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn only_the_wallets_signature_over_the_same_message_verifies() {
        let kp = Keypair::new();
        let other = Keypair::new();
        let wallet = kp.pubkey();
        let mint = Pubkey::new_unique();
        let message = comment(&envelope(&wallet), &mint, None, "hello");
        let sig = kp.sign_message(message.as_bytes()).to_string();
        assert_eq!(verify(&wallet, &message, &sig), Ok(()));
        let forged = other.sign_message(message.as_bytes()).to_string();
        let err = verify(&wallet, &message, &forged).unwrap_err();
        assert_eq!(err.code, ErrorCode::MessageSignatureInvalid);
        let changed = comment(&envelope(&wallet), &mint, None, "hello!");
        assert_eq!(
            verify(&wallet, &changed, &sig).unwrap_err().code,
            ErrorCode::MessageSignatureInvalid
        );
        assert_eq!(
            verify(&wallet, &message, "not base58").unwrap_err().code,
            ErrorCode::MessageSignatureInvalid
        );
    }

    #[test]
    fn nonces_and_expiry_are_checked() {
        let now = 1_000;
        assert_eq!(check_envelope("abcdefgh", now + 1, now), Ok(()));
        assert_eq!(check_envelope("abcdefgh", now + 600, now), Ok(()));
        for (nonce, exp, code) in [
            ("abcdefgh", now, ErrorCode::MessageExpired),
            ("abcdefgh", now - 5, ErrorCode::MessageExpired),
            ("abcdefgh", now + 601, ErrorCode::MessageExpired),
            ("short", now + 10, ErrorCode::InvalidParams),
            ("abcd efgh", now + 10, ErrorCode::InvalidParams),
            (&"a".repeat(41), now + 10, ErrorCode::InvalidParams),
        ] {
            assert_eq!(
                check_envelope(nonce, exp, now).unwrap_err().code,
                code,
                "{nonce} {exp}"
            );
        }
    }
}
