//! A launch's deploy transaction, read back from the chain: whether it holds our program's `create_launch`.

use crate::error::ApiError;
use solana_pubkey::Pubkey;
use swap_core::solana::account_keys;

/// Whether the landed transaction `tx` holds the launchpad program's `create_launch` (by its Anchor
/// discriminator, as a top-level instruction) of `mint` by `creator` with metadata `uri`: its accounts at
/// the positions the program's `CreateLaunch` accounts give `creator` and `mint`, resolved through the
/// transaction's address lookup tables. `UNAVAILABLE` when the transaction cannot be decoded.
pub fn launches(
    tx: &solana_transaction_status_client_types::EncodedConfirmedTransactionWithStatusMeta,
    mint: &Pubkey,
    creator: &Pubkey,
    uri: &str,
) -> Result<bool, ApiError> {
    use anchor_lang::{AnchorDeserialize, Discriminator, ToAccountMetas};
    let (decoded, keys) = account_keys(tx)
        .ok_or_else(|| ApiError::unavailable("the deploy transaction cannot be decoded"))?;
    // Where `creator` and `mint` sit among `create_launch`'s accounts, from the program's own type.
    let (creator_at, mint_at) = {
        let (c, m) = (Pubkey::new_unique(), Pubkey::new_unique());
        let metas = launchpad::accounts::CreateLaunch {
            creator: c,
            config: Pubkey::default(),
            mint_authority: Pubkey::default(),
            mint: m,
            pool: Pubkey::default(),
            base_vault: Pubkey::default(),
            quote_mint: Pubkey::default(),
            quote_vault: Pubkey::default(),
            base_token_program: Pubkey::default(),
            quote_token_program: Pubkey::default(),
            system_program: Pubkey::default(),
            event_authority: Pubkey::default(),
            program: Pubkey::default(),
        }
        .to_account_metas(None);
        let at = |k: Pubkey| metas.iter().position(|a| a.pubkey == k);
        (at(c), at(m))
    };
    let (Some(creator_at), Some(mint_at)) = (creator_at, mint_at) else {
        return Ok(false);
    };
    let key = |ix: &solana_message::compiled_instruction::CompiledInstruction, at: usize| {
        ix.accounts
            .get(at)
            .and_then(|i| keys.get(usize::from(*i)))
            .copied()
    };
    Ok(decoded.message.instructions().iter().any(|ix| {
        keys.get(usize::from(ix.program_id_index)) == Some(&launchpad::ID)
            && ix
                .data
                .strip_prefix(launchpad::instruction::CreateLaunch::DISCRIMINATOR)
                .and_then(|args| {
                    launchpad::instruction::CreateLaunch::deserialize(&mut &args[..]).ok()
                })
                .is_some_and(|c| c.args.uri == uri)
            && key(ix, creator_at) == Some(*creator)
            && key(ix, mint_at) == Some(*mint)
    }))
}
