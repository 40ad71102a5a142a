//! The live feed's wire format: one JSON object per event, `seq` first, then `kind`, `slot`, `signature`,
//! `time`, `mint` and the kind's fields (`docs/live-feed.md`), rendered from the data the index stores.

use curve::display::fixed_price_to_decimal;
use index::feed::{FeedData, FeedTrade};
use index::read::{FeedRecord, Payload};
use serde_json::{json, Map, Value};

/// The event object of `r`, as sent.
pub fn render(r: &FeedRecord) -> String {
    let body = match &r.payload {
        Payload::Data(data) => {
            let mut object = Map::new();
            object.insert("kind".into(), r.kind.clone().into());
            object.insert("slot".into(), r.slot.into());
            object.insert("signature".into(), r.signature.clone().into());
            object.insert("time".into(), r.time.into());
            object.insert("mint".into(), r.mint.clone().into());
            if let Value::Object(fields) = fields(r, data) {
                object.extend(fields);
            }
            Value::Object(object).to_string()
        }
        Payload::Rendered(text) => text.clone(),
    };
    with_seq(r.seq, &body)
}

/// `{"seq":N,` in front of the object's other fields.
fn with_seq(seq: i64, object: &str) -> String {
    let rest = object.strip_prefix('{').unwrap_or("}");
    let sep = if rest.starts_with('}') { "" } else { "," };
    format!("{{\"seq\":{seq}{sep}{rest}")
}

/// The kind's own fields.
fn fields(r: &FeedRecord, data: &FeedData) -> Value {
    match data {
        FeedData::Launch {
            creator,
            name,
            symbol,
            uri,
            preset,
            quote,
            quote_mint,
            pool,
            config,
        } => json!({
            "creator": creator, "name": name, "symbol": symbol, "uri": uri, "preset": preset,
            "quote": quote, "quoteMint": quote_mint, "pool": pool, "config": config,
        }),
        FeedData::Trade(t) => trade(r, t),
        FeedData::Curve {
            pool,
            progress_bps,
            base_reserve,
            quote_reserve,
            fee_bps,
            price,
            complete,
        } => json!({
            "pool": pool,
            "progressBps": progress_bps,
            // At graduation the quote reserve is exactly the threshold.
            "quoteRaised": quote_reserve.to_string(),
            "currentFeeBps": fee_bps,
            "price": fixed_price_to_decimal(*price),
            "baseReserve": base_reserve.to_string(),
            "quoteReserve": quote_reserve.to_string(),
            "complete": complete,
        }),
        FeedData::Complete { pool, trader } => json!({ "pool": pool, "trader": trader }),
        FeedData::Migrate {
            pool,
            amm_pool,
            base_amount,
            quote_amount,
        } => json!({
            "pool": pool, "ammPool": amm_pool,
            "baseAmount": base_amount.to_string(), "quoteAmount": quote_amount.to_string(),
        }),
        FeedData::Claim {
            pool,
            wallet,
            claim_kind,
            amount,
            base_amount,
        } => json!({
            "pool": pool, "wallet": wallet, "claimKind": claim_kind,
            "amount": amount.to_string(), "baseAmount": base_amount.to_string(),
        }),
        FeedData::Comment(c) => crate::routes::community::feed_fields(c),
        FeedData::Creator {
            pool,
            change,
            creator,
            pending_creator,
            previous_creator,
        } => json!({
            "pool": pool, "change": change, "creator": creator,
            "pendingCreator": pending_creator, "previousCreator": previous_creator,
        }),
        // `recipients` and `locked` as the token view's `feeShares`.
        FeedData::FeeShares {
            pool,
            creator,
            recipients,
            locked,
        } => json!({
            "pool": pool, "creator": creator, "locked": locked,
            "recipients": recipients.iter().map(|r| json!({ "wallet": r.wallet, "bps": r.bps })).collect::<Vec<_>>(),
        }),
    }
}

/// A trade: the entry `GET /launchpad/trades/{mint}` lists, and the curve's progress after it.
fn trade(r: &FeedRecord, t: &FeedTrade) -> Value {
    json!({
        "signature": r.signature,
        "slot": r.slot,
        "time": r.time,
        "venue": t.venue,
        "pool": t.pool,
        "side": t.side,
        "wallet": t.wallet,
        "amountIn": t.amount_in.to_string(),
        "amountOut": t.amount_out.to_string(),
        "baseAmount": t.base_amount.to_string(),
        "quoteAmount": t.quote_amount.to_string(),
        "fee": t.fee.to_string(),
        "feeToken": t.fee_token,
        "priceAfter": fixed_price_to_decimal(t.price),
        "cursor": t.seq,
        "progressBps": t.progress_bps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(payload: Payload) -> FeedRecord {
        FeedRecord {
            seq: 42,
            kind: "complete".into(),
            mint: "M".into(),
            wallet: None,
            slot: 7,
            signature: "S".into(),
            time: 1_700_000_000,
            payload,
        }
    }

    #[test]
    fn an_event_is_its_envelope_and_its_fields_with_seq_first() {
        let r = record(Payload::Data(FeedData::Complete {
            pool: "P".into(),
            trader: "T".into(),
        }));
        let text = render(&r);
        assert!(text.starts_with("{\"seq\":42,"), "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({"seq": 42, "kind": "complete", "slot": 7, "signature": "S", "time": 1_700_000_000,
                   "mint": "M", "pool": "P", "trader": "T"})
        );
    }

    #[test]
    fn role_changes_carry_the_state_after_them() {
        let mut r = record(Payload::Data(FeedData::Creator {
            pool: "P".into(),
            change: "accepted".into(),
            creator: "B".into(),
            pending_creator: None,
            previous_creator: Some("A".into()),
        }));
        r.kind = "creator".into();
        let v: Value = serde_json::from_str(&render(&r)).unwrap();
        assert_eq!(
            v,
            json!({"seq": 42, "kind": "creator", "slot": 7, "signature": "S", "time": 1_700_000_000,
                   "mint": "M", "pool": "P", "change": "accepted", "creator": "B",
                   "pendingCreator": null, "previousCreator": "A"})
        );
        let mut r = record(Payload::Data(FeedData::FeeShares {
            pool: "P".into(),
            creator: "B".into(),
            recipients: vec![index::feed::FeedShare {
                wallet: "W".into(),
                bps: 10_000,
            }],
            locked: false,
        }));
        r.kind = "fee-shares".into();
        let v: Value = serde_json::from_str(&render(&r)).unwrap();
        assert_eq!(v["recipients"], json!([{"wallet": "W", "bps": 10_000}]));
        assert_eq!(
            (&v["kind"], &v["locked"]),
            (&json!("fee-shares"), &json!(false))
        );
    }

    #[test]
    fn a_row_an_earlier_release_rendered_is_sent_as_it_was() {
        let r = record(Payload::Rendered(
            "{\"kind\":\"complete\",\"pool\":\"P\"}".into(),
        ));
        assert_eq!(
            render(&r),
            "{\"seq\":42,\"kind\":\"complete\",\"pool\":\"P\"}"
        );
        assert_eq!(
            render(&record(Payload::Rendered("{}".into()))),
            "{\"seq\":42}"
        );
    }
}
