//! The SOL/USD price the service shows USD values with: Pyth's price feed account on Solana, a
//! `PriceUpdateV2` account of the Pyth receiver program, read like any other account (the indexer streams
//! it, the localnet seeds and moves one at the same address).
//!
//! The account (Borsh after Anchor's 8-byte discriminator): the write authority (32 bytes), the verification
//! level (an enum: `0` partial with a `u8` signature count, or `1` full), the price message (feed id, price,
//! confidence, exponent, publish time, previous publish time, EMA price, EMA confidence) and the slot it was
//! posted at. Only what the service needs is decoded; anything else (another feed, another layout) is
//! refused rather than guessed at.

use anchor_lang::prelude::Pubkey;
use anchor_lang::pubkey;

/// Pyth's receiver program, which owns price update accounts.
pub const PYTH_RECEIVER_PROGRAM: Pubkey = pubkey!("rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ");

/// The SOL/USD price feed account Pyth keeps updated on mainnet (the sponsored feed, shard 0). The localnet
/// seeds its own account at the same address, so no cluster needs configuring.
pub const SOL_USD_PRICE_ACCOUNT: Pubkey = pubkey!("7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE");

/// Pyth's feed id of SOL/USD.
pub const SOL_USD_FEED_ID: [u8; 32] = [
    0xef, 0x0d, 0x8b, 0x6f, 0xda, 0x2c, 0xeb, 0xa4, 0x1d, 0xa1, 0x5d, 0x40, 0x95, 0xd1, 0xda, 0x39,
    0x2a, 0x0d, 0x2f, 0x8e, 0xd0, 0xc6, 0xc7, 0xbc, 0x0f, 0x4c, 0xfa, 0xc8, 0xc2, 0x80, 0xb5, 0x6d,
];

/// Anchor's discriminator of `PriceUpdateV2` (the first 8 bytes of `sha256("account:PriceUpdateV2")`).
pub const PRICE_UPDATE_DISCRIMINATOR: [u8; 8] = [34, 241, 35, 99, 157, 126, 244, 205];

/// Size of a `PriceUpdateV2` account.
pub const PRICE_UPDATE_LEN: usize = 134;

/// A decoded price: `price * 10^exponent` dollars, `conf` likewise, published at `publish_time` (unix
/// seconds, the publishers' clock) and posted to Solana at `posted_slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriceUpdate {
    pub feed_id: [u8; 32],
    pub price: i64,
    pub conf: u64,
    pub exponent: i32,
    pub publish_time: i64,
    pub posted_slot: u64,
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
}

/// Decodes a `PriceUpdateV2` account's data; `None` unless it is one.
pub fn decode_price_update(data: &[u8]) -> Option<PriceUpdate> {
    let mut r = Reader(data);
    if r.take::<8>()? != PRICE_UPDATE_DISCRIMINATOR {
        return None;
    }
    r.take::<32>()?; // write authority
    match r.take::<1>()?[0] {
        0 => {
            r.take::<1>()?; // signatures checked
        }
        1 => {}
        _ => return None,
    }
    let feed_id = r.take::<32>()?;
    let price = i64::from_le_bytes(r.take()?);
    let conf = u64::from_le_bytes(r.take()?);
    let exponent = i32::from_le_bytes(r.take()?);
    let publish_time = i64::from_le_bytes(r.take()?);
    r.take::<8>()?; // previous publish time
    r.take::<8>()?; // EMA price
    r.take::<8>()?; // EMA confidence
    let posted_slot = u64::from_le_bytes(r.take()?);
    Some(PriceUpdate {
        feed_id,
        price,
        conf,
        exponent,
        publish_time,
        posted_slot,
    })
}

/// The account data of a fully verified `PriceUpdateV2` carrying `update` (what the localnet seeds; the
/// EMA fields repeat the price).
pub fn encode_price_update(update: &PriceUpdate, write_authority: &Pubkey) -> Vec<u8> {
    let mut out = Vec::with_capacity(PRICE_UPDATE_LEN);
    out.extend_from_slice(&PRICE_UPDATE_DISCRIMINATOR);
    out.extend_from_slice(write_authority.as_ref());
    out.push(1); // full verification
    out.extend_from_slice(&update.feed_id);
    out.extend_from_slice(&update.price.to_le_bytes());
    out.extend_from_slice(&update.conf.to_le_bytes());
    out.extend_from_slice(&update.exponent.to_le_bytes());
    out.extend_from_slice(&update.publish_time.to_le_bytes());
    out.extend_from_slice(&update.publish_time.to_le_bytes());
    out.extend_from_slice(&update.price.to_le_bytes());
    out.extend_from_slice(&update.conf.to_le_bytes());
    out.extend_from_slice(&update.posted_slot.to_le_bytes());
    // The account is sized for the longer (partial) verification level; a full one leaves a byte spare.
    out.resize(PRICE_UPDATE_LEN, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_discriminator_is_anchors() {
        use sha2::Digest;
        let h = sha2::Sha256::digest(b"account:PriceUpdateV2");
        assert_eq!(h[..8], PRICE_UPDATE_DISCRIMINATOR);
    }

    #[test]
    fn an_encoded_update_decodes_to_itself_and_anything_else_is_refused() {
        let u = PriceUpdate {
            feed_id: SOL_USD_FEED_ID,
            price: 14_212_345_678,
            conf: 7_000_000,
            exponent: -8,
            publish_time: 1_790_000_000,
            posted_slot: 42,
        };
        let data = encode_price_update(&u, &Pubkey::new_unique());
        assert_eq!(data.len(), 134);
        assert_eq!(decode_price_update(&data), Some(u));
        // A partially verified update has one more byte before the message.
        let mut partial = data[..40].to_vec();
        partial.extend_from_slice(&[0, 9]);
        partial.extend_from_slice(&data[41..133]);
        assert_eq!(decode_price_update(&partial), Some(u));
        assert_eq!(decode_price_update(&data[..132]), None);
        let mut wrong = data.clone();
        wrong[0] ^= 1;
        assert_eq!(decode_price_update(&wrong), None);
        let mut level = data;
        level[40] = 2;
        assert_eq!(decode_price_update(&level), None);
    }
}
