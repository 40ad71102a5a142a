//! What a refused change is set aside as, and how it is read back (the table is [`index::store::quarantine`]).
//!
//! The raw bytes are what the chain gave: an event's instruction data (`EVENT_IX_TAG_LE ++ discriminator ++
//! borsh`, exactly as the program emitted it) with its key in `meta`; an account write's data with its
//! address and version. Changes the index derives rather than reads (a launch, token-account balances, an
//! oracle price, closings, a backfill's holder list) are their fields as JSON. Read back, a change goes
//! through the processor again (enriched and priced as when it came), so a replay writes what the stream
//! would have.

use crate::decode::{decode_account_data, launchpad_event};
use anchor_lang::prelude::Pubkey;
use anchor_lang::Event as _;
use index::model::*;
use index::store::quarantine::Entry;
use sdk::events::{decode_amm_event, decode_event, AmmEvent};
use serde_json::{json, Value};

/// The event's instruction data as its program emitted it.
fn emitted(data: Vec<u8>) -> Vec<u8> {
    [anchor_lang::event::EVENT_IX_TAG_LE, &data].concat()
}

fn event_meta(k: &EventKey, program: Pubkey) -> Value {
    json!({
        "signature": k.signature,
        "ix_index": k.ix_index,
        "inner_index": k.inner_index,
        "slot": k.slot,
        "tx_index": k.tx_index,
        "program": program.to_string(),
    })
}

fn version_meta(address: &Pubkey, v: Version) -> Value {
    json!({"address": address.to_string(), "slot": v.slot, "write_version": v.write_version})
}

fn entry(ident: String, kind: &str, slot: u64, raw: Vec<u8>, meta: Value) -> Entry {
    Entry {
        ident,
        kind: kind.into(),
        slot,
        raw,
        meta: meta.to_string(),
    }
}

fn event_entry(k: &EventKey, program: Pubkey, data: Vec<u8>) -> Entry {
    entry(
        format!("event:{}:{}:{}", k.signature, k.ix_index, k.inner_index),
        "event",
        k.slot,
        emitted(data),
        event_meta(k, program),
    )
}

fn amm_data(e: &AmmEvent) -> Vec<u8> {
    match e {
        AmmEvent::CreatePool(e) => e.data(),
        AmmEvent::CreatePosition(e) => e.data(),
        AmmEvent::AddLiquidity(e) => e.data(),
        AmmEvent::RemoveLiquidity(e) => e.data(),
        AmmEvent::LockPosition(e) => e.data(),
        AmmEvent::Swap(e) => e.data(),
        AmmEvent::ClaimPositionFee(e) => e.data(),
    }
}

fn owner_of(kind: AccountKind) -> Pubkey {
    match kind {
        AccountKind::Config | AccountKind::Pool | AccountKind::FeeShares => launchpad::ID,
        AccountKind::AmmPool | AccountKind::Position => amm::ID,
    }
}

/// What `change` is set aside as. A trade keeps the trader's balance before it (`wallet_before`, which its
/// event's bytes do not carry) in the meta.
pub fn entry_of(change: &Change) -> Entry {
    let mut e = entry_of_change(change);
    let before = match change {
        Change::Event(ev) => ev.market_trade().and_then(|m| m.wallet_before),
        _ => None,
    };
    if let (Some(b), Ok(mut meta)) = (before, serde_json::from_str::<Value>(&e.meta)) {
        meta["wallet_before"] = json!(b.to_string());
        e.meta = meta.to_string();
    }
    e
}

/// The trader's balance before a quarantined trade, when it was known ([`entry_of`]).
pub fn wallet_before_of(e: &Entry) -> Option<u64> {
    let meta: Value = serde_json::from_str(&e.meta).ok()?;
    meta.get("wallet_before")?.as_str()?.parse().ok()
}

fn entry_of_change(change: &Change) -> Entry {
    match change {
        Change::Event(Event::Trade(t)) => event_entry(&t.key, launchpad::ID, t.event.data()),
        Change::Event(Event::CurveComplete(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::Claim(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::Migrate(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::CreatorProposed(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::CreatorTransferred(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::FeeSharesSet(k, e)) => event_entry(k, launchpad::ID, e.data()),
        Change::Event(Event::Amm(k, e, _)) => event_entry(k, amm::ID, amm_data(e)),
        Change::Event(Event::Launch(l)) => {
            let fields = json!({
                "mint": l.mint.to_string(), "pool": l.pool.to_string(), "config": l.config.to_string(),
                "creator": l.creator.to_string(), "quote_mint": l.quote_mint.to_string(),
                "name": l.name, "symbol": l.symbol, "uri": l.uri, "preset": l.preset, "quote": l.quote,
                "salt": l.salt, "created_slot": l.created_slot, "created_at": l.created_at,
                "signature": l.signature,
            });
            entry(
                format!("launch:{}", l.mint),
                "launch",
                l.created_slot,
                fields.to_string().into_bytes(),
                json!({}),
            )
        }
        Change::Account(w) => {
            let mut meta = version_meta(&w.address, w.version);
            meta["owner"] = json!(owner_of(w.state.kind()).to_string());
            entry(
                format!(
                    "account:{}:{}:{}",
                    w.address, w.version.slot, w.version.write_version
                ),
                "account",
                w.version.slot,
                w.data.clone(),
                meta,
            )
        }
        Change::TokenAccount(w) => {
            let mut meta = version_meta(&w.address, w.version);
            meta["balance"] = match &w.balance {
                Some(b) => json!({
                    "mint": b.mint.to_string(), "owner": b.owner.to_string(),
                    "amount": b.amount, "vault": b.vault,
                }),
                None => Value::Null,
            };
            entry(
                format!(
                    "token_account:{}:{}:{}",
                    w.address, w.version.slot, w.version.write_version
                ),
                "token_account",
                w.version.slot,
                meta.to_string().into_bytes(),
                json!({}),
            )
        }
        Change::Closed { address, version } => entry(
            format!(
                "closed:{address}:{}:{}",
                version.slot, version.write_version
            ),
            "closed",
            version.slot,
            version_meta(address, *version).to_string().into_bytes(),
            json!({}),
        ),
        Change::Oracle(p) => {
            let mut meta = version_meta(&p.address, p.version);
            meta["price"] = json!(p.price);
            meta["conf"] = json!(p.conf);
            meta["exponent"] = json!(p.exponent);
            meta["publish_time"] = json!(p.publish_time);
            entry(
                format!(
                    "oracle:{}:{}:{}",
                    p.address, p.version.slot, p.version.write_version
                ),
                "oracle",
                p.version.slot,
                meta.to_string().into_bytes(),
                json!({}),
            )
        }
        Change::TokenHolders {
            mint,
            version,
            present,
        } => {
            let mut meta = version_meta(mint, *version);
            meta["present"] = json!(present.iter().map(|k| k.to_string()).collect::<Vec<_>>());
            entry(
                format!(
                    "token_holders:{mint}:{}:{}",
                    version.slot, version.write_version
                ),
                "token_holders",
                version.slot,
                meta.to_string().into_bytes(),
                json!({}),
            )
        }
    }
}

fn field<'a>(v: &'a Value, name: &str) -> Result<&'a Value, String> {
    v.get(name).ok_or_else(|| format!("missing `{name}`"))
}

fn u64_of(v: &Value, name: &str) -> Result<u64, String> {
    field(v, name)?
        .as_u64()
        .ok_or_else(|| format!("`{name}` is not an unsigned integer"))
}

fn i64_of(v: &Value, name: &str) -> Result<i64, String> {
    field(v, name)?
        .as_i64()
        .ok_or_else(|| format!("`{name}` is not an integer"))
}

fn str_of<'a>(v: &'a Value, name: &str) -> Result<&'a str, String> {
    field(v, name)?
        .as_str()
        .ok_or_else(|| format!("`{name}` is not a string"))
}

fn key_of(v: &Value, name: &str) -> Result<Pubkey, String> {
    str_of(v, name)?
        .parse()
        .map_err(|e| format!("`{name}`: {e}"))
}

fn version_of(v: &Value) -> Result<Version, String> {
    Ok(Version {
        slot: u64_of(v, "slot")?,
        write_version: u64_of(v, "write_version")?,
    })
}

fn json_of(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))
}

/// Reads a quarantined entry back into its change (before enrichment and pricing).
pub fn change_of(e: &Entry) -> Result<Change, String> {
    let meta: Value = serde_json::from_str(&e.meta).map_err(|e| format!("meta: {e}"))?;
    match e.kind.as_str() {
        "event" => {
            let key = EventKey {
                signature: str_of(&meta, "signature")?.to_string(),
                ix_index: u64_of(&meta, "ix_index")? as u32,
                inner_index: u64_of(&meta, "inner_index")? as u32,
                slot: u64_of(&meta, "slot")?,
                tx_index: u64_of(&meta, "tx_index")?,
            };
            let program = key_of(&meta, "program")?;
            let event = if program == launchpad::ID {
                decode_event(&e.raw)
                    .and_then(|ev| launchpad_event(key, ev))
                    .flatten()
            } else if program == amm::ID {
                decode_amm_event(&e.raw).map(|ev| Event::Amm(key, Box::new(ev), None))
            } else {
                None
            };
            event
                .map(Change::Event)
                .ok_or_else(|| format!("the bytes do not decode as an event of {program}"))
        }
        "launch" => {
            let v = json_of(&e.raw)?;
            Ok(Change::Event(Event::Launch(Box::new(Launch {
                mint: key_of(&v, "mint")?,
                pool: key_of(&v, "pool")?,
                config: key_of(&v, "config")?,
                creator: key_of(&v, "creator")?,
                quote_mint: key_of(&v, "quote_mint")?,
                name: str_of(&v, "name")?.into(),
                symbol: str_of(&v, "symbol")?.into(),
                uri: str_of(&v, "uri")?.into(),
                preset: str_of(&v, "preset")?.into(),
                quote: str_of(&v, "quote")?.into(),
                salt: u64_of(&v, "salt")?,
                created_slot: u64_of(&v, "created_slot")?,
                created_at: i64_of(&v, "created_at")?,
                signature: v
                    .get("signature")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }))))
        }
        "account" => decode_account_data(
            key_of(&meta, "address")?,
            key_of(&meta, "owner")?,
            version_of(&meta)?,
            1,
            &e.raw,
        )
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "an account the index does not keep".to_string()),
        "token_account" => {
            let v = json_of(&e.raw)?;
            let balance = match field(&v, "balance")? {
                Value::Null => None,
                b => Some(TokenBalance {
                    mint: key_of(b, "mint")?,
                    owner: key_of(b, "owner")?,
                    amount: u64_of(b, "amount")?,
                    vault: field(b, "vault")?.as_bool().unwrap_or(false),
                }),
            };
            Ok(Change::TokenAccount(Box::new(TokenAccountWrite {
                address: key_of(&v, "address")?,
                version: version_of(&v)?,
                balance,
            })))
        }
        "closed" => {
            let v = json_of(&e.raw)?;
            Ok(Change::Closed {
                address: key_of(&v, "address")?,
                version: version_of(&v)?,
            })
        }
        "oracle" => {
            let v = json_of(&e.raw)?;
            Ok(Change::Oracle(Box::new(OraclePrice {
                address: key_of(&v, "address")?,
                version: version_of(&v)?,
                price: i64_of(&v, "price")?,
                conf: u64_of(&v, "conf")?,
                exponent: i64_of(&v, "exponent")? as i32,
                publish_time: i64_of(&v, "publish_time")?,
            })))
        }
        "token_holders" => {
            let v = json_of(&e.raw)?;
            let present = field(&v, "present")?
                .as_array()
                .ok_or("`present` is not a list")?
                .iter()
                .map(|k| {
                    k.as_str()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| "`present` holds a bad key".to_string())
                })
                .collect::<Result<Vec<Pubkey>, String>>()?;
            Ok(Change::TokenHolders {
                mint: key_of(&v, "address")?,
                version: version_of(&v)?,
                present,
            })
        }
        other => Err(format!("unknown kind `{other}`")),
    }
}
