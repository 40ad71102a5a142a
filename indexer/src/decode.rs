//! Decode: Yellowstone updates into [`Change`]s. Accounts are recognised by their Anchor discriminator and
//! events by the `emit_cpi!` self-invocation data in inner instructions, never by log text. Anything that
//! does not decode is reported to the caller (counted and logged), never fatal.

use anchor_lang::prelude::Pubkey;
use index::model::*;
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
            Some(LaunchpadAccount::FeeShares(s)) => AccountState::FeeShares(s),
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

/// A token-account update of the holders subscription: a Token-2022 token account (its balance, `vault`
/// left for [`is_vault`] once the launch is known), or a closed account (owned by the system program with no
/// lamports: the store acts only on the token accounts it indexes). `None` for anything else.
pub fn decode_token_update(
    address: Pubkey,
    owner: Pubkey,
    version: Version,
    lamports: u64,
    data: &[u8],
) -> Option<TokenAccountWrite> {
    let balance = if lamports == 0 {
        if owner != sdk::ids::SYSTEM_PROGRAM && owner != sdk::ids::TOKEN_2022_PROGRAM {
            return None;
        }
        None
    } else if owner == sdk::ids::TOKEN_2022_PROGRAM {
        let (mint, owner, amount) = acc::decode_token_account(data)?;
        Some(TokenBalance {
            mint,
            owner,
            amount,
            vault: false,
        })
    } else {
        return None;
    };
    Some(TokenAccountWrite {
        address,
        version,
        balance,
    })
}

/// Whether a token account is a vault rather than a holder's: owned by the launch's pool (the launchpad's
/// base vault), or the vault of the AMM pool that owns it (AMM vaults are PDAs of their pool and mint).
pub fn is_vault(address: &Pubkey, balance: &TokenBalance, launch_pool: &Pubkey) -> bool {
    balance.owner == *launch_pool
        || (!balance.owner.is_on_curve()
            && sdk::amm_ix::vault_address(&balance.owner, &balance.mint) == *address)
}

/// The SOL/USD price in a Pyth price update account; `None` for anything else (another feed, another
/// account of the receiver program), which the index does not keep.
pub fn decode_oracle(address: Pubkey, version: Version, data: &[u8]) -> Option<OraclePrice> {
    let u = sdk::oracle::decode_price_update(data)?;
    (address == sdk::oracle::SOL_USD_PRICE_ACCOUNT && u.feed_id == sdk::oracle::SOL_USD_FEED_ID)
        .then_some(OraclePrice {
            address,
            version,
            price: u.price,
            conf: u.conf,
            exponent: u.exponent,
            publish_time: u.publish_time,
        })
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
    let (address, owner) = (
        key(&info.pubkey, "account pubkey")?,
        key(&info.owner, "account owner")?,
    );
    if owner == sdk::oracle::PYTH_RECEIVER_PROGRAM {
        return Ok(decode_oracle(address, version, &info.data).map(|p| Change::Oracle(Box::new(p))));
    }
    if owner != launchpad::ID && owner != amm::ID {
        return Ok(
            decode_token_update(address, owner, version, info.lamports, &info.data)
                .map(|w| Change::TokenAccount(Box::new(w))),
        );
    }
    decode_account_data(address, owner, version, info.lamports, &info.data)
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
                tx_index: info.index,
            };
            // `Some(None)`: an event the index does not keep (none today).
            let decoded = if program == launchpad::ID {
                decode_event(&ix.data).and_then(|e| launchpad_event(event_key, e))
            } else {
                decode_amm_event(&ix.data).map(|e| Some(Event::Amm(event_key, Box::new(e), None)))
            };
            match decoded {
                Some(Some(e)) => events.push(e),
                Some(None) => {}
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

/// The index's event for a launchpad event: `Some(None)` for one it does not keep, `None` for one it cannot
/// read (a swap whose side byte is neither a buy nor a sell).
pub(crate) fn launchpad_event(key: EventKey, event: LaunchpadEvent) -> Option<Option<Event>> {
    Some(Some(match event {
        LaunchpadEvent::CreateLaunch(e) => Event::Launch(Box::new(Launch {
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
        })),
        LaunchpadEvent::Swap(e) => Event::Trade(Box::new(Trade {
            key,
            side: curve::Side::try_from(e.side).ok()?,
            event: e,
            market: None,
        })),
        LaunchpadEvent::CurveComplete(e) => Event::CurveComplete(key, e),
        LaunchpadEvent::Claim(e) => Event::Claim(key, e),
        LaunchpadEvent::Migrate(e) => Event::Migrate(key, Box::new(e)),
        LaunchpadEvent::CreatorProposed(e) => Event::CreatorProposed(key, e),
        LaunchpadEvent::CreatorTransferred(e) => Event::CreatorTransferred(key, e),
        LaunchpadEvent::FeeSharesSet(e) => Event::FeeSharesSet(key, Box::new(e)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use yellowstone_grpc_proto::prelude::{
        InnerInstruction, InnerInstructions, Message, SubscribeUpdateTransactionInfo, Transaction,
        TransactionError, TransactionStatusMeta,
    };

    fn tx(program: Pubkey, data: Vec<u8>, failed: bool) -> SubscribeUpdateTransaction {
        SubscribeUpdateTransaction {
            transaction: Some(SubscribeUpdateTransactionInfo {
                signature: vec![1; 64],
                transaction: Some(Transaction {
                    signatures: vec![vec![1; 64]],
                    message: Some(Message {
                        account_keys: vec![vec![2; 32], program.to_bytes().to_vec()],
                        ..Default::default()
                    }),
                }),
                meta: Some(TransactionStatusMeta {
                    err: failed.then(|| TransactionError { err: vec![1] }),
                    inner_instructions: vec![InnerInstructions {
                        index: 3,
                        instructions: vec![InnerInstruction {
                            program_id_index: 1,
                            data,
                            ..Default::default()
                        }],
                    }],
                    ..Default::default()
                }),
                ..Default::default()
            }),
            slot: 5,
            ..Default::default()
        }
    }

    fn claim_event() -> Vec<u8> {
        use anchor_lang::{AnchorSerialize, Discriminator};
        let e = sdk::events::EvtClaim {
            pool: Pubkey::new_unique(),
            mint: Pubkey::new_unique(),
            claimer: Pubkey::new_unique(),
            kind: 1,
            amount: 7,
            creator_fee_unclaimed: 0,
            partner_fee_unclaimed: 0,
            timestamp: 9,
            base_amount: 0,
        };
        let mut d = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
        d.extend_from_slice(sdk::events::EvtClaim::DISCRIMINATOR);
        e.serialize(&mut d).unwrap();
        d
    }

    #[test]
    fn events_are_keyed_by_signature_and_instruction_position() {
        let (events, errors) = decode_transaction_update(&tx(launchpad::ID, claim_event(), false));
        assert!(errors.is_empty());
        let [Event::Claim(key, e)] = events.as_slice() else {
            panic!("one claim expected: {events:?}")
        };
        assert_eq!((key.ix_index, key.inner_index, key.slot), (3, 0, 5));
        assert_eq!(key.signature, bs58::encode([1u8; 64]).into_string());
        assert_eq!(e.amount, 7);
    }

    /// The creator role's changes and new fee shares are kept (the feed carries them), keyed like any event.
    #[test]
    fn creator_and_fee_share_changes_are_decoded() {
        use anchor_lang::{AnchorSerialize, Discriminator};
        let (pool, mint, a, b) = (
            Pubkey::new_unique(),
            Pubkey::new_unique(),
            Pubkey::new_unique(),
            Pubkey::new_unique(),
        );
        let tagged = |disc: &[u8], event: &dyn Fn(&mut Vec<u8>)| {
            let mut d = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
            d.extend_from_slice(disc);
            event(&mut d);
            d
        };
        let transferred = sdk::events::EvtCreatorTransferred {
            pool,
            mint,
            previous_creator: a,
            creator: b,
            timestamp: 9,
        };
        let shares = sdk::events::EvtFeeSharesSet {
            pool,
            mint,
            creator: b,
            recipients: vec![launchpad::state::FeeRecipient {
                wallet: a,
                bps: 10_000,
            }],
            locked: true,
            timestamp: 10,
        };
        let (events, errors) = decode_transaction_update(&tx(
            launchpad::ID,
            tagged(sdk::events::EvtCreatorTransferred::DISCRIMINATOR, &|d| {
                transferred.serialize(d).unwrap()
            }),
            false,
        ));
        assert!(errors.is_empty(), "{errors:?}");
        let [Event::CreatorTransferred(key, e)] = events.as_slice() else {
            panic!("one handover expected: {events:?}")
        };
        assert_eq!((key.ix_index, key.inner_index, key.slot), (3, 0, 5));
        assert_eq!(e, &transferred);
        let (events, _) = decode_transaction_update(&tx(
            launchpad::ID,
            tagged(sdk::events::EvtFeeSharesSet::DISCRIMINATOR, &|d| {
                shares.serialize(d).unwrap()
            }),
            false,
        ));
        let [Event::FeeSharesSet(_, e)] = events.as_slice() else {
            panic!("new fee shares expected: {events:?}")
        };
        assert_eq!(**e, shares);
    }

    #[test]
    fn failed_transactions_and_other_programs_carry_no_events() {
        assert!(
            decode_transaction_update(&tx(launchpad::ID, claim_event(), true))
                .0
                .is_empty()
        );
        let (events, errors) =
            decode_transaction_update(&tx(Pubkey::new_unique(), claim_event(), false));
        assert!(events.is_empty() && errors.is_empty());
    }

    #[test]
    fn malformed_data_is_reported_not_fatal() {
        let mut bad = anchor_lang::event::EVENT_IX_TAG_LE.to_vec();
        bad.extend_from_slice(&[0; 4]);
        let (events, errors) = decode_transaction_update(&tx(amm::ID, bad, false));
        assert!(events.is_empty());
        assert!(matches!(
            errors.as_slice(),
            [DecodeError::UnknownEvent { .. }]
        ));
        let v = Version {
            slot: 1,
            write_version: 1,
        };
        let a = Pubkey::new_unique();
        assert!(decode_account_data(a, launchpad::ID, v, 1, &[1, 2, 3]).is_err());
        assert!(matches!(
            decode_account_data(a, launchpad::ID, v, 0, &[]),
            Ok(Some(Change::Closed { .. }))
        ));
    }

    /// Random-input fuzzing of what the indexer decodes from the chain (`scripts/fuzz` runs these with many
    /// more cases): valid discriminators followed by random bytes, so the input gets past the first check
    /// into the borsh layouts. No input makes a decoder panic or allocate past its input.
    mod fuzz {
        use super::*;
        use anchor_lang::event::EVENT_IX_TAG_LE;
        use anchor_lang::Discriminator;
        use proptest::collection::vec;
        use proptest::prelude::*;

        fn account_discriminators() -> Vec<&'static [u8]> {
            vec![
                acc::Global::DISCRIMINATOR,
                acc::Config::DISCRIMINATOR,
                acc::Pool::DISCRIMINATOR,
                acc::FeeShares::DISCRIMINATOR,
                acc::AmmPool::DISCRIMINATOR,
                acc::Position::DISCRIMINATOR,
            ]
        }

        fn event_discriminators() -> Vec<&'static [u8]> {
            use sdk::events::{amm_events as a, *};
            vec![
                EvtSwap::DISCRIMINATOR,
                EvtCreateLaunch::DISCRIMINATOR,
                EvtCurveComplete::DISCRIMINATOR,
                EvtClaim::DISCRIMINATOR,
                EvtMigrate::DISCRIMINATOR,
                EvtCreatorProposed::DISCRIMINATOR,
                EvtCreatorTransferred::DISCRIMINATOR,
                EvtFeeSharesSet::DISCRIMINATOR,
                a::EvtCreatePool::DISCRIMINATOR,
                a::EvtCreatePosition::DISCRIMINATOR,
                a::EvtAddLiquidity::DISCRIMINATOR,
                a::EvtRemoveLiquidity::DISCRIMINATOR,
                a::EvtLockPosition::DISCRIMINATOR,
                a::EvtSwap::DISCRIMINATOR,
                a::EvtClaimPositionFee::DISCRIMINATOR,
            ]
        }

        proptest! {
            #[test]
            fn fuzz_account_decoding_never_panics(
                which in 0usize..6,
                owner in 0usize..3,
                tail in vec(any::<u8>(), 0..1200),
                lamports in 1u64..,
            ) {
                let mut data = account_discriminators()[which].to_vec();
                data.extend(tail);
                let owner = [launchpad::ID, amm::ID, Pubkey::new_unique()][owner];
                let version = Version { slot: 1, write_version: 0 };
                let _ = decode_account_data(Pubkey::new_unique(), owner, version, lamports, &data);
                let _ = decode_token_update(Pubkey::new_unique(), sdk::ids::TOKEN_2022_PROGRAM, version, lamports, &data);
                let _ = decode_oracle(Pubkey::new_unique(), version, &data);
            }

            #[test]
            fn fuzz_event_decoding_never_panics(
                which in 0usize..15,
                tail in vec(any::<u8>(), 0..600),
                tagged in any::<bool>(),
            ) {
                let mut data = if tagged { EVENT_IX_TAG_LE.to_vec() } else { Vec::new() };
                data.extend_from_slice(event_discriminators()[which]);
                data.extend(tail);
                let _ = decode_event(&data);
                let _ = decode_amm_event(&data);
            }

            #[test]
            fn fuzz_a_streamed_transaction_never_panics_its_decoder(
                data in vec(any::<u8>(), 0..300),
                which in 0usize..15,
            ) {
                // An inner instruction carrying an event's tag and discriminator, then random bytes.
                let mut ix = EVENT_IX_TAG_LE.to_vec();
                ix.extend_from_slice(event_discriminators()[which]);
                ix.extend(data);
                let _ = decode_transaction_update(&tx(launchpad::ID, ix.clone(), false));
                let _ = decode_transaction_update(&tx(amm::ID, ix, false));
            }
        }
    }
}
