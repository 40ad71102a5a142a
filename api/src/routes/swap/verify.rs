//! What `POST /swap/record` checks before it stores a record: the transaction on its chain. A record is
//! *verified* when the chain shows it: the transaction landed, `address` signed it (Solana) or sent it
//! (EVM), and `address` gave up `tokenIn` and received `tokenOut`. Amounts are stored as the chain shows
//! them: a recorded amount above what moved (an invented one, or the quote's `amountOut` of a swap that
//! slipped) is replaced by what moved. A transaction that failed on chain is stored as `failed` whatever the
//! record said; one the chain contradicts (another signer or sender, tokens that did not move that way) is
//! refused and nothing is stored; one the node does not know yet is stored unverified (a later record of the
//! same hash verifies it).

use crate::error::ApiError;
use crate::state::AppState;
use anchor_lang::prelude::Pubkey;
use std::collections::BTreeMap;

/// Slack on a native-SOL leg, lamports: the wallet's SOL balance also pays rent for accounts the swap
/// creates (a token account is about 0.002 SOL), so the SOL received can show this much less than the swap
/// paid out.
pub const SOL_RENT_SLACK: u128 = 5_000_000;

pub use swap_core::verdict::{contradicts, Verdict};

/// How much of each mint `owner` gained (positive) or gave up (negative) in a Solana transaction, from its
/// token balances before and after; native SOL (the wrapped-SOL mint) also counts the lamports of `owner`'s
/// own account, less the fee when it paid it.
pub fn solana_deltas(
    keys: &[Pubkey],
    meta: &solana_transaction_status_client_types::UiTransactionStatusMeta,
    owner: &Pubkey,
) -> BTreeMap<Pubkey, i128> {
    use solana_transaction_status_client_types::option_serializer::OptionSerializer;
    let mut deltas: BTreeMap<Pubkey, i128> = BTreeMap::new();
    let owner_text = owner.to_string();
    let sum = |balances: &OptionSerializer<
        Vec<solana_transaction_status_client_types::UiTransactionTokenBalance>,
    >,
               sign: i128,
               deltas: &mut BTreeMap<Pubkey, i128>| {
        if let OptionSerializer::Some(list) = balances {
            for b in list {
                let mine = matches!(&b.owner, OptionSerializer::Some(o) if *o == owner_text);
                if let (true, Ok(mint), Ok(amount)) = (
                    mine,
                    b.mint.parse::<Pubkey>(),
                    b.ui_token_amount.amount.parse::<i128>(),
                ) {
                    *deltas.entry(mint).or_default() += sign * amount;
                }
            }
        }
    };
    sum(&meta.pre_token_balances, -1, &mut deltas);
    sum(&meta.post_token_balances, 1, &mut deltas);
    if let Some(i) = keys.iter().position(|k| k == owner) {
        let (pre, post) = (
            meta.pre_balances.get(i).copied().unwrap_or(0),
            meta.post_balances.get(i).copied().unwrap_or(0),
        );
        let fee = if i == 0 { i128::from(meta.fee) } else { 0 };
        *deltas.entry(sdk::ids::NATIVE_MINT).or_default() +=
            i128::from(post) - i128::from(pre) + fee;
    }
    deltas
}

/// The record against the deltas: `tokenIn` must have gone down and `tokenOut` up; the amounts to store are
/// the recorded ones, each lowered to what moved when it says more (a native-SOL leg allows
/// [`SOL_RENT_SLACK`] for the rent the wallet also paid or got back).
pub fn verified_amounts(
    deltas: &BTreeMap<Pubkey, i128>,
    token_in: &Pubkey,
    token_out: &Pubkey,
    amount_in: u128,
    amount_out: u128,
) -> Result<(u128, u128), ApiError> {
    let slack = |mint: &Pubkey| {
        if *mint == sdk::ids::NATIVE_MINT {
            SOL_RENT_SLACK
        } else {
            0
        }
    };
    let gave = u128::try_from(-deltas.get(token_in).copied().unwrap_or(0)).unwrap_or(0);
    let got = u128::try_from(deltas.get(token_out).copied().unwrap_or(0)).unwrap_or(0);
    if gave == 0 {
        return Err(contradicts("`address` gave up none of `tokenIn`"));
    }
    if got == 0 {
        return Err(contradicts("`address` received none of `tokenOut`"));
    }
    let bounded = |claimed: u128, moved: u128, mint: &Pubkey| {
        if claimed <= moved.saturating_add(slack(mint)) {
            claimed
        } else {
            moved
        }
    };
    Ok((
        bounded(amount_in, gave, token_in),
        bounded(amount_out, got, token_out),
    ))
}

/// What a record says happened: the signer, the transaction, the tokens and the amounts, as sent.
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    pub address: &'a str,
    pub tx_hash: &'a str,
    pub token_in: &'a str,
    pub token_out: &'a str,
    pub amount_in: &'a str,
    pub amount_out: &'a str,
}

/// A Solana record against its transaction (`getTransaction` at `confirmed`).
pub async fn solana(state: &AppState, req: Claim<'_>) -> Result<Verdict, ApiError> {
    let parse = |name: &str, v: &str| {
        v.trim()
            .parse::<Pubkey>()
            .map_err(|_| ApiError::invalid(format!("`{name}` is not a Solana address")))
    };
    let (owner, token_in, token_out) = (
        parse("address", req.address)?,
        parse("tokenIn", req.token_in)?,
        parse("tokenOut", req.token_out)?,
    );
    let signature = req
        .tx_hash
        .trim()
        .parse::<solana_signature::Signature>()
        .map_err(|_| ApiError::invalid("`txHash` is not a Solana transaction signature"))?;
    let tx = match crate::solana::confirmed_transaction(&state.rpc, &signature).await {
        Ok(tx) => tx,
        Err(e) => {
            // "not found" and an unreachable node alike: the record is kept, unverified.
            tracing::debug!(
                "record: getTransaction {signature}: {}",
                crate::redact::redact(&e.to_string())
            );
            return Ok(Verdict::Unverified);
        }
    };
    let Some(meta) = tx.transaction.meta.as_ref() else {
        return Ok(Verdict::Unverified);
    };
    let Some((decoded, keys)) = crate::solana::account_keys(&tx) else {
        return Ok(Verdict::Unverified);
    };
    let signers = usize::from(decoded.message.header().num_required_signatures);
    if !keys.iter().take(signers).any(|k| *k == owner) {
        return Err(contradicts("`address` did not sign it"));
    }
    if meta.err.is_some() {
        return Ok(Verdict::Failed);
    }
    let amounts = |name: &str, v: &str| {
        v.trim()
            .parse::<u128>()
            .map_err(|_| ApiError::invalid(format!("`{name}` must be an integer in base units")))
    };
    let (amount_in, amount_out) = verified_amounts(
        &solana_deltas(&keys, meta, &owner),
        &token_in,
        &token_out,
        amounts("amountIn", req.amount_in)?,
        amounts("amountOut", req.amount_out)?,
    )?;
    Ok(Verdict::Verified(amount_in, amount_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_need_both_directions_and_amounts_are_at_most_what_moved() {
        let (a, b) = (Pubkey::new_unique(), Pubkey::new_unique());
        let d = BTreeMap::from([(a, -1_000i128), (b, 900i128)]);
        assert_eq!(
            verified_amounts(&d, &a, &b, 1_000, 900).unwrap(),
            (1_000, 900)
        );
        assert_eq!(verified_amounts(&d, &a, &b, 999, 800).unwrap(), (999, 800));
        // Invented amounts become what moved.
        assert_eq!(
            verified_amounts(&d, &a, &b, 5_000, 2_700).unwrap(),
            (1_000, 900)
        );
        // The reverse direction is not this swap, nor is a mint the transaction never moved.
        assert!(verified_amounts(&d, &b, &a, 1, 1).is_err());
        assert!(verified_amounts(&d, &a, &Pubkey::new_unique(), 1, 1).is_err());
        // Native SOL legs allow the rent of accounts the swap created.
        let sol = sdk::ids::NATIVE_MINT;
        let d = BTreeMap::from([(a, -1_000i128), (sol, 1_000_000_000 - 2_039_280)]);
        assert_eq!(
            verified_amounts(&d, &a, &sol, 1_000, 1_000_000_000).unwrap(),
            (1_000, 1_000_000_000)
        );
        assert_eq!(
            verified_amounts(&d, &a, &sol, 1_000, 1_010_000_000).unwrap(),
            (1_000, 1_000_000_000 - 2_039_280)
        );
    }
}
