//! `set_fee_shares`: the pool's creator role shares its creator fees among 1 to 10 wallets, in basis points
//! summing to 10,000, and may lock them (then they are final). Sent with `create_launch` in one transaction,
//! the shares hold from the first trade.
//!
//! Fees always accrue under the shares in force when they were earned. Before new shares apply, the creator
//! fees the pool holds are credited by the old shares, and after migration so are the locked creator
//! position's uncollected AMM fees: they are collected into the pool's vaults in the same instruction, which
//! then needs the optional vault and AMM accounts (without them it fails with `SettlementAccountsMissing`).
//! The first time, no shares are in force yet: the creator fees not yet claimed by the creator role (and after
//! migration the creator position's uncollected fees) are shared too: claim them first to keep them.
//!
//! A recipient dropped from the list keeps its balance: it is paid out in this instruction to any token
//! account of its own named among the remaining accounts (its quote account, and its token account when it has
//! a token balance), otherwise it keeps a slot at share 0 until it claims. Slots are bounded
//! ([`crate::state::FEE_SHARE_SLOTS`]): when former recipients holding balances would not fit, the change fails
//! with `FeeSharesFull` unless they are paid out.
//!
//! Refused while a creator handover is pending (`HandoverPending`): the role's income is frozen for the
//! wallet that was offered it. From the first call on, the creator role no longer claims trading fees or the
//! creator position's AMM fees itself (unless it is a recipient); the surplus stays the creator role's.

use crate::constants::{FEE_SHARES_SEED, POOL_SEED};
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::{EvtClaim, EvtFeeSharesSet, CLAIM_KIND_FEE_SHARE, CLAIM_KIND_LOCKED_LP_SHARED};
use crate::state::{FeeRecipient, FeeShares, Pool, PoolStatus};
use crate::utils::locked_position::{collect_creator_fees_into_shares, Collect};
use crate::utils::token::transfer_from_pool;
use amm::program::Amm;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{Mint, Token2022, TokenAccount, TokenInterface};
use curve::SafeMath;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Debug, PartialEq, Eq)]
pub struct SetFeeSharesArgs {
    /// The recipients in order (the first also receives the rounding dust of each credit).
    pub recipients: Vec<FeeRecipient>,
    /// Make these shares final.
    pub lock: bool,
}

#[event_cpi]
#[derive(Accounts)]
pub struct SetFeeShares<'info> {
    /// The pool's creator role; pays for the shares account the first time.
    #[account(mut)]
    pub creator: Signer<'info>,
    #[account(
        mut,
        seeds = [POOL_SEED, pool.base_mint.as_ref()],
        bump = pool.bump,
        has_one = creator @ LaunchpadError::NotEntitled,
    )]
    pub pool: Box<Account<'info, Pool>>,
    #[account(
        init_if_needed,
        payer = creator,
        space = 8 + FeeShares::INIT_SPACE,
        seeds = [FEE_SHARES_SEED, pool.key().as_ref()],
        bump,
    )]
    pub fee_shares: Box<Account<'info, FeeShares>>,
    pub system_program: Program<'info, System>,
    // Optional: the pool's vaults (to pay out dropped recipients, and after migration to receive the creator
    // position's fees) and, after migration, the AMM accounts of the creator position.
    #[account(address = pool.base_mint)]
    pub base_mint: Option<Box<InterfaceAccount<'info, Mint>>>,
    #[account(address = pool.quote_mint)]
    pub quote_mint: Option<Box<InterfaceAccount<'info, Mint>>>,
    #[account(mut, address = pool.base_vault)]
    pub base_vault: Option<Box<InterfaceAccount<'info, TokenAccount>>>,
    #[account(mut, address = pool.quote_vault)]
    pub quote_vault: Option<Box<InterfaceAccount<'info, TokenAccount>>>,
    pub base_token_program: Option<Program<'info, Token2022>>,
    pub quote_token_program: Option<Interface<'info, TokenInterface>>,
    /// CHECK: the launch's AMM pool (address checked; the AMM checks the rest).
    #[account(mut, address = pool.amm_pool @ LaunchpadError::InvalidAmmAccount)]
    pub amm_pool: Option<UncheckedAccount<'info>>,
    /// CHECK: the pool's locked creator position (address checked in the handler).
    #[account(mut)]
    pub position: Option<UncheckedAccount<'info>>,
    /// CHECK: the AMM's vault (checked by the AMM).
    #[account(mut)]
    pub amm_vault_a: Option<UncheckedAccount<'info>>,
    /// CHECK: the AMM's vault (checked by the AMM).
    #[account(mut)]
    pub amm_vault_b: Option<UncheckedAccount<'info>>,
    /// CHECK: the AMM's event authority (checked by the AMM).
    pub amm_event_authority: Option<UncheckedAccount<'info>>,
    pub amm_program: Option<Program<'info, Amm>>,
}

/// Credits the creator fees the pool holds to the recipients by their current shares.
pub fn settle_creator_fees(pool: &mut Pool, shares: &mut FeeShares) -> Result<()> {
    let amount = pool.creator_fee_unclaimed;
    shares.credit(amount, false)?;
    pool.creator_fee_claimed = pool.creator_fee_claimed.safe_add(amount).or_launchpad()?;
    pool.creator_fee_unclaimed = 0;
    Ok(())
}

impl<'info> SetFeeShares<'info> {
    /// After migration: the creator position's uncollected AMM fees, collected into the pool's vaults and
    /// credited by the shares in force. Returns (base, quote) collected.
    fn collect_creator_position(&mut self) -> Result<(u64, u64)> {
        let missing = || error!(LaunchpadError::SettlementAccountsMissing);
        let base_mint = self.base_mint.as_ref().ok_or_else(missing)?;
        let quote_mint = self.quote_mint.as_ref().ok_or_else(missing)?;
        let base_vault = self.base_vault.as_ref().ok_or_else(missing)?;
        let quote_vault = self.quote_vault.as_ref().ok_or_else(missing)?;
        let base_program = self.base_token_program.as_ref().ok_or_else(missing)?;
        let quote_program = self.quote_token_program.as_ref().ok_or_else(missing)?;
        let amm_pool = self.amm_pool.as_ref().ok_or_else(missing)?;
        let position = self.position.as_ref().ok_or_else(missing)?;
        let vault_a = self.amm_vault_a.as_ref().ok_or_else(missing)?;
        let vault_b = self.amm_vault_b.as_ref().ok_or_else(missing)?;
        let event_authority = self.amm_event_authority.as_ref().ok_or_else(missing)?;
        let amm_program = self.amm_program.as_ref().ok_or_else(missing)?;
        let base_is_a = base_mint.key() < quote_mint.key();
        let base = (
            base_mint.to_account_info(),
            base_vault.to_account_info(),
            base_program.to_account_info(),
        );
        let quote = (
            quote_mint.to_account_info(),
            quote_vault.to_account_info(),
            quote_program.to_account_info(),
        );
        let ((mint_a, to_a, prog_a), (mint_b, to_b, prog_b)) = if base_is_a {
            (base, quote)
        } else {
            (quote, base)
        };
        collect_creator_fees_into_shares(
            &self.pool,
            &mut self.fee_shares,
            Collect {
                amm_program: &amm_program.to_account_info(),
                amm_pool: &amm_pool.to_account_info(),
                position: &position.to_account_info(),
                mint_a: &mint_a,
                mint_b: &mint_b,
                vault_a: &vault_a.to_account_info(),
                vault_b: &vault_b.to_account_info(),
                to_a: &to_a,
                to_b: &to_b,
                token_program_a: &prog_a,
                token_program_b: &prog_b,
                amm_event_authority: &event_authority.to_account_info(),
            },
            base_is_a,
        )
    }

    /// Pays each recipient dropped by `next` its balance, into the token accounts of its own found among
    /// `accounts` (one of the quote mint, one of the token's mint). A balance with no such account stays in its
    /// slot. Returns the payouts as (wallet, quote, base).
    fn pay_out_dropped(
        &mut self,
        next: &[FeeRecipient],
        accounts: &[AccountInfo<'info>],
    ) -> Result<Vec<(Pubkey, u64, u64)>> {
        let mut paid = Vec::new();
        if accounts.is_empty() {
            return Ok(paid);
        }
        let missing = || error!(LaunchpadError::SettlementAccountsMissing);
        let base_mint = self.base_mint.as_ref().ok_or_else(missing)?;
        let quote_mint = self.quote_mint.as_ref().ok_or_else(missing)?;
        let base_vault = self.base_vault.as_ref().ok_or_else(missing)?;
        let quote_vault = self.quote_vault.as_ref().ok_or_else(missing)?;
        let base_program = self.base_token_program.as_ref().ok_or_else(missing)?;
        let quote_program = self.quote_token_program.as_ref().ok_or_else(missing)?;
        let count = (self.fee_shares.count as usize).min(self.fee_shares.slots.len());
        for i in 0..count {
            let slot = self.fee_shares.slots[i];
            if next.iter().any(|r| r.wallet == slot.wallet)
                || (slot.quote_unclaimed == 0 && slot.base_unclaimed == 0)
            {
                continue;
            }
            let quote_to = own_account(accounts, &slot.wallet, &quote_mint.key());
            let base_to = own_account(accounts, &slot.wallet, &base_mint.key());
            let quote = if quote_to.is_some() {
                slot.quote_unclaimed
            } else {
                0
            };
            let base = if base_to.is_some() {
                slot.base_unclaimed
            } else {
                0
            };
            if let (Some(to), true) = (quote_to, quote > 0) {
                transfer_from_pool(
                    &self.pool,
                    quote_program.to_account_info(),
                    quote_mint,
                    quote_vault.to_account_info(),
                    to.clone(),
                    quote,
                )?;
            }
            if let (Some(to), true) = (base_to, base > 0) {
                transfer_from_pool(
                    &self.pool,
                    base_program.to_account_info(),
                    base_mint,
                    base_vault.to_account_info(),
                    to.clone(),
                    base,
                )?;
            }
            if quote == 0 && base == 0 {
                continue;
            }
            let s = &mut self.fee_shares.slots[i];
            s.quote_unclaimed = s.quote_unclaimed.safe_sub(quote).or_launchpad()?;
            s.quote_claimed = s.quote_claimed.safe_add(quote).or_launchpad()?;
            s.base_unclaimed = s.base_unclaimed.safe_sub(base).or_launchpad()?;
            s.base_claimed = s.base_claimed.safe_add(base).or_launchpad()?;
            paid.push((slot.wallet, quote, base));
        }
        Ok(paid)
    }
}

/// The first of `accounts` that is a token account of `mint` owned by `wallet` (the token program checks the
/// rest when it is paid).
fn own_account<'a, 'info>(
    accounts: &'a [AccountInfo<'info>],
    wallet: &Pubkey,
    mint: &Pubkey,
) -> Option<&'a AccountInfo<'info>> {
    accounts.iter().find(|info| {
        let is_token =
            *info.owner == anchor_spl::token::ID || *info.owner == anchor_spl::token_2022::ID;
        is_token
            && info
                .try_borrow_data()
                .ok()
                .and_then(|data| TokenAccount::try_deserialize(&mut &data[..]).ok())
                .is_some_and(|t| t.owner == *wallet && t.mint == *mint)
    })
}

pub fn handler<'info>(
    ctx: Context<'info, SetFeeShares<'info>>,
    args: SetFeeSharesArgs,
) -> Result<()> {
    require_keys_eq!(
        ctx.accounts.pool.pending_creator,
        Pubkey::default(),
        LaunchpadError::HandoverPending
    );
    let pool_key = ctx.accounts.pool.key();
    let now = Clock::get()?.unix_timestamp;
    let mut collected = (0u64, 0u64);
    let mut paid = Vec::new();
    if ctx.accounts.pool.fee_shared {
        require!(
            !ctx.accounts.fee_shares.locked,
            LaunchpadError::FeeSharesLocked
        );
        let accounts = &mut *ctx.accounts;
        settle_creator_fees(&mut accounts.pool, &mut accounts.fee_shares)?;
        if accounts.pool.status == PoolStatus::Migrated {
            collected = accounts.collect_creator_position()?;
        }
        paid = accounts.pay_out_dropped(&args.recipients, ctx.remaining_accounts)?;
    } else {
        let shares = &mut ctx.accounts.fee_shares;
        shares.pool = pool_key;
        shares.bump = ctx.bumps.fee_shares;
    }
    let accounts = &mut *ctx.accounts;
    let (pool, shares) = (&mut accounts.pool, &mut accounts.fee_shares);
    shares.replace(&args.recipients)?;
    shares.locked = args.lock;
    pool.fee_shared = true;
    settle_creator_fees(pool, shares)?;
    let (creator_fee_unclaimed, partner_fee_unclaimed) =
        (pool.creator_fee_unclaimed, pool.partner_fee_unclaimed);
    let claim = |claimer: Pubkey, kind: u8, amount: u64, base_amount: u64| EvtClaim {
        pool: pool_key,
        mint: pool.base_mint,
        claimer,
        kind,
        amount,
        creator_fee_unclaimed,
        partner_fee_unclaimed,
        timestamp: now,
        base_amount,
    };
    let mut claims = Vec::with_capacity(paid.len() + 1);
    if collected != (0, 0) {
        claims.push(claim(
            accounts.creator.key(),
            CLAIM_KIND_LOCKED_LP_SHARED,
            collected.1,
            collected.0,
        ));
    }
    for (wallet, quote, base) in paid {
        claims.push(claim(wallet, CLAIM_KIND_FEE_SHARE, quote, base));
    }
    let event = EvtFeeSharesSet {
        pool: pool_key,
        mint: pool.base_mint,
        creator: pool.creator,
        recipients: args.recipients,
        locked: args.lock,
        timestamp: now,
    };
    for c in claims {
        emit_cpi!(c);
    }
    emit_cpi!(event);
    Ok(())
}
