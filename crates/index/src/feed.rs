//! What a live-feed event says, as data. The indexer stores it in `feed_events.payload` inside the batch's
//! transaction; the API renders it in the feed's wire format (`docs/live-feed.md`). Amounts are base units,
//! prices fixed-point ([`crate::market`]); names are the index's own, not the wire's.

use serde::{Deserialize, Serialize};

/// The kinds of feed events, as they appear in `feed_events.kind` and on the wire.
pub const KINDS: [&str; 9] = [
    "launch",
    "trade",
    "curve",
    "complete",
    "migrate",
    "claim",
    "comment",
    "creator",
    "fee-shares",
];

/// One event's data, by kind (the envelope — slot, signature, time, mint, wallet — is in its own columns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedData {
    /// A launch seen in its creating transaction.
    Launch {
        creator: String,
        name: String,
        symbol: String,
        uri: String,
        preset: String,
        quote: String,
        quote_mint: String,
        pool: String,
        config: String,
    },
    /// A trade on the curve or the AMM.
    Trade(FeedTrade),
    /// The curve's state after a curve trade.
    Curve {
        pool: String,
        progress_bps: u16,
        base_reserve: u64,
        /// At graduation exactly the threshold.
        quote_reserve: u64,
        fee_bps: u16,
        /// The spot price after the trade, fixed-point.
        price: u128,
        complete: bool,
    },
    /// The curve completed (graduated).
    Complete { pool: String, trader: String },
    /// The pool migrated into the AMM.
    Migrate {
        pool: String,
        amm_pool: String,
        base_amount: u64,
        quote_amount: u64,
    },
    /// A claim paid.
    Claim {
        pool: String,
        wallet: String,
        /// `trading`, `surplus` or `locked-lp`.
        claim_kind: String,
        amount: u64,
        base_amount: u64,
    },
    /// A signed comment (or reply) posted through the API (`crate::store::comments`).
    Comment(FeedComment),
    /// The creator role proposed to a wallet (or the proposal withdrawn), or accepted by it: the role as it
    /// stands after the instruction.
    Creator {
        pool: String,
        /// `proposed`, `withdrawn` or `accepted`.
        change: String,
        /// The role's holder after the instruction.
        creator: String,
        /// The wallet proposed after the instruction (`None`: none).
        pending_creator: Option<String>,
        /// The holder before an acceptance (`None` for a proposal).
        previous_creator: Option<String>,
    },
    /// The creator role set how the creator fees are shared: the whole list after the instruction.
    FeeShares {
        pool: String,
        /// The creator role's holder, who set them.
        creator: String,
        recipients: Vec<FeedShare>,
        /// Final: they can no longer change.
        locked: bool,
    },
}

/// One fee-share recipient: its wallet and its share of the creator fees in basis points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedShare {
    pub wallet: String,
    pub bps: u16,
}

/// A comment as the feed carries it: what the comment list shows for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedComment {
    pub id: i64,
    pub wallet: String,
    /// The comment replied to (`None` for a top-level comment).
    pub reply_to: Option<i64>,
    /// As posted (text only: the page renders it as text).
    pub text: String,
    /// The author's balance of the token when posting, base units.
    pub holding: u64,
    /// The author's display name then, if any.
    pub name: Option<String>,
}

/// A trade of the market series ([`crate::market::MarketTrade`]) as the feed keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedTrade {
    /// `curve` or `amm`.
    pub venue: String,
    pub pool: String,
    /// `buy` or `sell`.
    pub side: String,
    pub wallet: String,
    pub amount_in: u64,
    pub amount_out: u64,
    pub base_amount: u64,
    pub quote_amount: u64,
    pub fee: u64,
    /// `quote` or `base`.
    pub fee_token: String,
    /// The spot price after the trade, fixed-point.
    pub price: u128,
    /// The trade's place in the series (the trade list's cursor).
    pub seq: String,
    /// The curve's progress after a curve trade (`None` on the AMM).
    pub progress_bps: Option<u16>,
}

impl FeedData {
    /// The kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            FeedData::Launch { .. } => "launch",
            FeedData::Trade(_) => "trade",
            FeedData::Curve { .. } => "curve",
            FeedData::Complete { .. } => "complete",
            FeedData::Migrate { .. } => "migrate",
            FeedData::Claim { .. } => "claim",
            FeedData::Comment(_) => "comment",
            FeedData::Creator { .. } => "creator",
            FeedData::FeeShares { .. } => "fee-shares",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_survives_its_stored_form_with_full_precision() {
        let trade = FeedData::Trade(FeedTrade {
            venue: "curve".into(),
            pool: "P".into(),
            side: "buy".into(),
            wallet: "W".into(),
            amount_in: u64::MAX,
            amount_out: 1,
            base_amount: 1,
            quote_amount: u64::MAX,
            fee: 7,
            fee_token: "quote".into(),
            price: u128::MAX,
            seq: "0".repeat(40),
            progress_bps: Some(10_000),
        });
        let text = serde_json::to_string(&trade).unwrap();
        assert_eq!(serde_json::from_str::<FeedData>(&text).unwrap(), trade);
        assert_eq!(trade.kind(), "trade");
    }

    #[test]
    fn every_kind_is_listed_and_role_changes_survive_their_stored_form() {
        let creator = FeedData::Creator {
            pool: "P".into(),
            change: "accepted".into(),
            creator: "B".into(),
            pending_creator: None,
            previous_creator: Some("A".into()),
        };
        let shares = FeedData::FeeShares {
            pool: "P".into(),
            creator: "B".into(),
            recipients: vec![
                FeedShare {
                    wallet: "W".into(),
                    bps: 7_000,
                },
                FeedShare {
                    wallet: "V".into(),
                    bps: 3_000,
                },
            ],
            locked: true,
        };
        for data in [creator, shares] {
            let text = serde_json::to_string(&data).unwrap();
            assert_eq!(serde_json::from_str::<FeedData>(&text).unwrap(), data);
            assert!(KINDS.contains(&data.kind()), "{}", data.kind());
        }
    }
}
