//! Decode: Yellowstone updates into [`Change`]s. Accounts are recognised by their Anchor discriminator and
//! events by the `emit_cpi!` self-invocation data in inner instructions, never by log text. Anything that
//! does not decode is reported to the caller (counted and logged), never fatal.

use crate::model::*;
use anchor_lang::prelude::Pubkey;
use sdk::accounts::{self as acc, LaunchpadAccount};
use sdk::events::{decode_amm_event, decode_event, LaunchpadEvent};
use yellowstone_grpc_proto::prelude::{SubscribeUpdateAccount, SubscribeUpdateTransaction};

/// Why an update did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("{what}: missing field {field}")]
    Missing {
        what: &'static str,
        field: &'static str,
    },
    #[error("bad public key ({len} bytes) in {what}")]
    BadKey { what: &'static str, len: usize },
    #[error("account {address} owned by {owner}: data does not decode as any known account")]
    UnknownAccount { address: Pubkey, owner: Pubkey },
    #[error("transaction {signature}: instruction {ix_index}.{inner_index} of {program} carries event data that does not decode")]
    UnknownEvent {
        signature: String,
        ix_index: u32,
        inner_index: u32,
        program: Pubkey,
    },
    #[error(
        "transaction {signature}: inner instruction names account index {index}, out of range"
    )]
    BadAccountIndex { signature: String, index: u32 },
}

fn key(bytes: &[u8], what: &'static str) -> Result<Pubkey, DecodeError> {
    <[u8; 32]>::try_from(bytes)
        .map(Pubkey::new_from_array)
        .map_err(|_| DecodeError::BadKey {
            what,
            len: bytes.len(),
        })
}

/// Decodes one account of the launchpad or AMM program. Accounts the index does not keep (the global
/// settings) decode to `Ok(None)`.
pub fn decode_account_data(
    address: Pubkey,
    owner: Pubkey,
    version: Version,
    lamports: u64,
    data: &[u8],
) -> Result<Option<Change>, DecodeError> {
    if lamports == 0 {
        return Ok(Some(Change::Closed { address, version }));
    }
    let state = if owner == launchpad::ID {
        match acc::decode_account(data) {
            Some(LaunchpadAccount::Config(c)) => AccountState::Config(c),
            Some(LaunchpadAccount::Pool(p)) => AccountState::Pool(p),
            Some(LaunchpadAccount::Global(_)) => return Ok(None),
            None => return Err(DecodeError::UnknownAccount { address, owner }),
        }
    } else if owner == amm::ID {
        use anchor_lang::Discriminator;
        let disc = data.get(..8);
        if disc == Some(acc::AmmPool::DISCRIMINATOR) {
            acc::decode_amm_pool(data)
                .map(|p| AccountState::AmmPool(Box::new(p)))
                .ok_or(DecodeError::UnknownAccount { address, owner })?
        } else if disc == Some(acc::Position::DISCRIMINATOR) {
            acc::decode_position(data)
                .map(|p| AccountState::Position(Box::new(p)))
                .ok_or(DecodeError::UnknownAccount { address, owner })?
        } else {
            return Err(DecodeError::UnknownAccount { address, owner });
        }
    } else {
        return Ok(None);
    };
    Ok(Some(Change::Account(Box::new(AccountWrite {
        address,
        version,
        state,
        data: data.to_vec(),
        progress_bps: None,
    }))))
}

/// Decodes an account update from the stream.
pub fn decode_account_update(
    update: &SubscribeUpdateAccount,
) -> Result<Option<Change>, DecodeError> {
    let info = update.account.as_ref().ok_or(DecodeError::Missing {
        what: "account update",
        field: "account",
    })?;
    let version = Version {
        slot: update.slot,
        write_version: info.write_version,
    };
    decode_account_data(
        key(&info.pubkey, "account pubkey")?,
        key(&info.owner, "account owner")?,
        version,
        info.lamports,
        &info.data,
    )
}

/// The events of a transaction, in execution order, plus what failed to decode. Failed transactions carry
/// no events (their state changes were rolled back).
pub fn decode_transaction_update(
    update: &SubscribeUpdateTransaction,
) -> (Vec<Event>, Vec<DecodeError>) {
    let mut events = Vec::new();
    let mut errors = Vec::new();
    let Some(info) = update.transaction.as_ref() else {
        errors.push(DecodeError::Missing {
            what: "transaction update",
            field: "transaction",
        });
        return (events, errors);
    };
    let signature = bs58::encode(&info.signature).into_string();
    let Some(meta) = info.meta.as_ref() else {
        errors.push(DecodeError::Missing {
            what: "transaction update",
            field: "meta",
        });
        return (events, errors);
    };
    if meta.err.is_some() {
        return (events, errors);
    }
    let Some(message) = info.transaction.as_ref().and_then(|t| t.message.as_ref()) else {
        errors.push(DecodeError::Missing {
            what: "transaction update",
            field: "message",
        });
        return (events, errors);
    };
    // Account keys as the instructions index them: static keys, then loaded writable, then loaded readonly.
    let keys: Vec<&Vec<u8>> = message
        .account_keys
        .iter()
        .chain(meta.loaded_writable_addresses.iter())
        .chain(meta.loaded_readonly_addresses.iter())
        .collect();
    for group in &meta.inner_instructions {
        for (inner_index, ix) in group.instructions.iter().enumerate() {
            let inner_index = inner_index as u32;
            let Some(program) = keys.get(ix.program_id_index as usize) else {
                errors.push(DecodeError::BadAccountIndex {
                    signature: signature.clone(),
                    index: ix.program_id_index,
                });
                continue;
            };
            let Ok(program) = key(program, "program id") else {
                continue;
            };
            // Only a program's own event authority can sign an `emit_cpi!` instruction to it, and the
            // transaction succeeded, so data under the event tag to our program is an event it emitted.
            if (program != launchpad::ID && program != amm::ID)
                || !ix.data.starts_with(anchor_lang::event::EVENT_IX_TAG_LE)
            {
                continue;
            }
            let event_key = EventKey {
                signature: signature.clone(),
                ix_index: group.index,
                inner_index,
                slot: update.slot,
            };
            let decoded = if program == launchpad::ID {
                decode_event(&ix.data).map(|e| launchpad_event(event_key, e))
            } else {
                decode_amm_event(&ix.data).map(|e| Event::Amm(event_key, Box::new(e)))
            };
            match decoded {
                Some(e) => events.push(e),
                None => errors.push(DecodeError::UnknownEvent {
                    signature: signature.clone(),
                    ix_index: group.index,
                    inner_index,
                    program,
                }),
            }
        }
    }
    (events, errors)
}

fn launchpad_event(key: EventKey, event: LaunchpadEvent) -> Event {
    match event {
        LaunchpadEvent::CreateLaunch(e) => Event::Launch(Launch {
            mint: e.mint,
            pool: e.pool,
            config: e.config,
            creator: e.creator,
            quote_mint: e.quote_mint,
            name: e.name,
            symbol: e.symbol,
            uri: e.uri,
            preset: curve::Preset::from_u8(e.preset)
                .map_or("unknown", |p| p.name())
                .to_string(),
            quote: curve::QuoteAsset::from_u8(e.quote)
                .map_or("unknown", |q| q.name())
                .to_string(),
            salt: e.salt,
            created_slot: key.slot,
            created_at: e.launch_timestamp,
            signature: Some(key.signature),
        }),
        LaunchpadEvent::Swap(e) => Event::Trade(Box::new(Trade {
            key,
            event: e,
            price: None,
        })),
        LaunchpadEvent::CurveComplete(e) => Event::CurveComplete(key, e),
        LaunchpadEvent::Claim(e) => Event::Claim(key, e),
        LaunchpadEvent::Migrate(e) => Event::Migrate(key, Box::new(e)),
    }
}

/// The average execution price of a curve trade in whole quote per whole token, fee excluded.
pub fn trade_price(e: &sdk::events::EvtSwap, quote_decimals: u8) -> Option<String> {
    let (quote, base) = if e.side == 0 {
        (e.amount_in.checked_sub(e.fee)?, e.amount_out)
    } else {
        (e.amount_out.checked_add(e.fee)?, e.amount_in)
    };
    curve::display::execution_price(
        quote,
        quote_decimals,
        base,
        curve::constants::TOKEN_DECIMALS,
        12,
    )
}
