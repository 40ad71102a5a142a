//! `swap`: buy or sell on the curve, exact in, with a minimum out. (Its exact-out twin,
//! [`super::swap_exact_out`], shares the accounts and [`settle`].)
//!
//! Fees are taken in the quote token at the config's schedule for the time since launch, and split between
//! the creator and the partner. A swap may name a referral account (the associated quote account of any wallet
//! but the trader): it is paid the config's referral share of the partner's part at trade time, out of the
//! quote vault; the creator's part never changes. Referrals are an open rebate: a trader can name a second
//! wallet of its own (see `docs/protocol.md` for the partner's exposure); vaults are refused. A buy that reaches the threshold is filled exactly up to it: the trader pays
//! only the missing quote plus its fee (the rest of the offer never leaves the wallet, and the event says how
//! much), receives every unsold token, and the pool is marked complete. Later curve swaps are refused.

use crate::constants::POOL_SEED;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::{EvtCurveComplete, EvtSwap};
use crate::state::{Config, Pool, PoolStatus};
use crate::utils::token::{transfer_from_pool, transfer_from_user};
use anchor_lang::prelude::*;
use anchor_spl::associated_token::get_associated_token_address_with_program_id;
use anchor_spl::token_interface::{Mint, Token2022, TokenAccount, TokenInterface};
use curve::{split_fee, split_referral, SafeMath, Side, SwapResult};

/// `SwapArgs::side` of a buy (quote in, tokens out).
pub const SIDE_BUY: u8 = 0;
/// `SwapArgs::side` of a sell (tokens in, quote out).
pub const SIDE_SELL: u8 = 1;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapArgs {
    /// [`SIDE_BUY`] or [`SIDE_SELL`].
    pub side: u8,
    /// Quote offered (buy, fee included) or tokens sold (sell).
    pub amount_in: u64,
    /// Least tokens (buy) or quote after fee (sell) the trader accepts.
    pub min_amount_out: u64,
}

#[event_cpi]
#[derive(Accounts)]
pub struct Swap<'info> {
    pub trader: Signer<'info>,
    pub config: Box<Account<'info, Config>>,
    #[account(
        mut,
        seeds = [POOL_SEED, base_mint.key().as_ref()],
        bump = pool.bump,
        has_one = config,
        has_one = base_mint,
        has_one = quote_mint,
        has_one = base_vault,
        has_one = quote_vault,
    )]
    pub pool: Box<Account<'info, Pool>>,
    pub base_mint: Box<InterfaceAccount<'info, Mint>>,
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub base_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    /// The trader's token account (receives on a buy, pays on a sell).
    #[account(mut, token::mint = base_mint, token::token_program = base_token_program)]
    pub trader_base_account: Box<InterfaceAccount<'info, TokenAccount>>,
    /// The trader's quote account (pays on a buy, receives on a sell).
    #[account(mut, token::mint = quote_mint, token::token_program = quote_token_program)]
    pub trader_quote_account: Box<InterfaceAccount<'info, TokenAccount>>,
    pub base_token_program: Program<'info, Token2022>,
    pub quote_token_program: Interface<'info, TokenInterface>,
    /// Optional: the referral's quote account, paid the config's referral share of the partner's fee.
    #[account(mut, token::mint = quote_mint, token::token_program = quote_token_program)]
    pub referral_quote_account: Option<Box<InterfaceAccount<'info, TokenAccount>>>,
}

/// The side a swap's `side` byte names.
pub fn side_of(side: u8) -> Result<Side> {
    match side {
        SIDE_BUY => Ok(Side::Buy),
        SIDE_SELL => Ok(Side::Sell),
        _ => err!(LaunchpadError::InvalidSide),
    }
}

/// What a swap was asked for, as its event reports it.
pub struct Request {
    pub side: u8,
    /// Exact in: the amount offered. Exact out: the most the trader would pay.
    pub amount_offered: u64,
    /// Exact in: the least accepted out. Exact out: the exact amount asked for.
    pub min_amount_out: u64,
    pub exact_out: bool,
}

/// The pool's fee now and the clock, once the pool is checked to be on its curve.
pub fn fee_now(accounts: &Swap) -> Result<(u16, i64)> {
    match accounts.pool.status {
        PoolStatus::Bonding => {}
        PoolStatus::Complete => return err!(LaunchpadError::CurveComplete),
        PoolStatus::Migrated => return err!(LaunchpadError::PoolMigrated),
    }
    let now = Clock::get()?.unix_timestamp;
    let fee_bps = accounts
        .config
        .fee_schedule()
        .fee_bps_at(now.saturating_sub(accounts.pool.launch_timestamp));
    Ok((fee_bps, now))
}

pub fn handler(ctx: Context<Swap>, args: SwapArgs) -> Result<()> {
    let side = side_of(args.side)?;
    let (fee_bps, now) = fee_now(ctx.accounts)?;
    let config = &ctx.accounts.config;
    let segments = config.curve_segments();
    let result = config
        .market(&segments)
        .swap_exact_in(&ctx.accounts.pool.state(), side, args.amount_in, fee_bps)
        .or_launchpad()?;
    require!(
        result.amount_out >= args.min_amount_out,
        LaunchpadError::SlippageExceeded
    );
    let request = Request {
        side: args.side,
        amount_offered: args.amount_in,
        min_amount_out: args.min_amount_out,
        exact_out: false,
    };
    settle(ctx, side, &result, fee_bps, now, request)
}

/// Moves the tokens of a priced swap (the trader pays first), records the pool's new state and fees, and
/// emits the swap (and, when it completes the curve, the completion).
pub fn settle(
    ctx: Context<Swap>,
    side: Side,
    result: &SwapResult,
    fee_bps: u16,
    now: i64,
    request: Request,
) -> Result<()> {
    let accounts = &ctx.accounts;
    let pool = &accounts.pool;
    let config = &accounts.config;
    let segments = config.curve_segments();
    let market = config.market(&segments);
    let split = split_fee(result.fee, config.creator_fee_share_bps).or_launchpad()?;
    let referrer = accounts
        .referral_quote_account
        .as_ref()
        .map(|r| r.owner)
        .unwrap_or_default();
    let partner = match &accounts.referral_quote_account {
        Some(r) => {
            require_keys_neq!(r.owner, accounts.trader.key(), LaunchpadError::SelfReferral);
            // The referral is a wallet's own associated account: never a vault (every vault of either program
            // is a seeded PDA, not an associated account), so no share lands where nobody tracks it.
            require_keys_eq!(
                r.key(),
                get_associated_token_address_with_program_id(
                    &r.owner,
                    &accounts.quote_mint.key(),
                    &accounts.quote_token_program.key()
                ),
                LaunchpadError::ReferralNotAssociated
            );
            split_referral(split.partner, config.referral_share_bps).or_launchpad()?
        }
        None => curve::ReferralSplit {
            referral: 0,
            partner: split.partner,
        },
    };

    // Take from the trader first, then pay out.
    let trader = accounts.trader.to_account_info();
    match side {
        Side::Buy => {
            transfer_from_user(
                accounts.quote_token_program.to_account_info(),
                &accounts.quote_mint,
                accounts.trader_quote_account.to_account_info(),
                accounts.quote_vault.to_account_info(),
                trader,
                result.amount_in,
            )?;
            transfer_from_pool(
                pool,
                accounts.base_token_program.to_account_info(),
                &accounts.base_mint,
                accounts.base_vault.to_account_info(),
                accounts.trader_base_account.to_account_info(),
                result.amount_out,
            )?;
        }
        Side::Sell => {
            transfer_from_user(
                accounts.base_token_program.to_account_info(),
                &accounts.base_mint,
                accounts.trader_base_account.to_account_info(),
                accounts.base_vault.to_account_info(),
                trader,
                result.amount_in,
            )?;
            transfer_from_pool(
                pool,
                accounts.quote_token_program.to_account_info(),
                &accounts.quote_mint,
                accounts.quote_vault.to_account_info(),
                accounts.trader_quote_account.to_account_info(),
                result.amount_out,
            )?;
        }
    }
    if let Some(referral) = &accounts.referral_quote_account {
        transfer_from_pool(
            pool,
            accounts.quote_token_program.to_account_info(),
            &accounts.quote_mint,
            accounts.quote_vault.to_account_info(),
            referral.to_account_info(),
            partner.referral,
        )?;
    }

    let mint_key = accounts.base_mint.key();
    let progress_bps = market.progress_bps(&result.next).or_launchpad()?;
    let trader_key = accounts.trader.key();
    let pool_key = pool.key();
    let pool = &mut ctx.accounts.pool;
    pool.set_state(result.next);
    pool.creator_fee_unclaimed = pool
        .creator_fee_unclaimed
        .safe_add(split.creator)
        .or_launchpad()?;
    pool.partner_fee_unclaimed = pool
        .partner_fee_unclaimed
        .safe_add(partner.partner)
        .or_launchpad()?;
    if result.completes {
        pool.status = PoolStatus::Complete;
        pool.complete_timestamp = now;
    }
    let swap_event = EvtSwap {
        pool: pool_key,
        mint: mint_key,
        trader: trader_key,
        side: request.side,
        amount_offered: request.amount_offered,
        amount_in: result.amount_in,
        amount_out: result.amount_out,
        min_amount_out: request.min_amount_out,
        fee: result.fee,
        creator_fee: split.creator,
        partner_fee: partner.partner,
        refund: result.refund,
        fee_bps,
        sqrt_price: pool.sqrt_price,
        base_reserve: pool.base_reserve,
        quote_reserve: pool.quote_reserve,
        progress_bps,
        creator_fee_unclaimed: pool.creator_fee_unclaimed,
        partner_fee_unclaimed: pool.partner_fee_unclaimed,
        complete: result.completes,
        timestamp: now,
        exact_out: request.exact_out,
        referrer,
        referral_fee: partner.referral,
    };
    let complete_event = result.completes.then(|| EvtCurveComplete {
        pool: pool_key,
        mint: mint_key,
        trader: trader_key,
        sqrt_price: pool.sqrt_price,
        base_reserve: pool.base_reserve,
        quote_reserve: pool.quote_reserve,
        timestamp: now,
    });
    emit_cpi!(swap_event);
    if let Some(e) = complete_event {
        emit_cpi!(e);
    }
    Ok(())
}
