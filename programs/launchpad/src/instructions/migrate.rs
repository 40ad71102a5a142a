//! `migrate`: permissionless, once the curve is complete. Opens the AMM pool at the curve's final price with
//! the migration supply (20%) and the raised quote, gives the creator and the partner one position each of
//! exactly equal liquidity, locks both permanently, and marks the pool migrated.
//!
//! The AMM pool is created with this launch's pool PDA as its creator (`["pool", launch_pool, mint_a,
//! mint_b]` under the AMM), so nobody can occupy its address ahead of the migration. Quote the AMM does not
//! take at the final price is surplus, claimable once by each party; an odd token the AMM cannot take is
//! burnt (see `curve::amm::plan_migration`). A second call fails with `AlreadyMigrated`.

use crate::constants::POOL_SEED;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::EvtMigrate;
use crate::state::{Config, Pool, PoolStatus};
use amm::cpi::accounts as amm_accounts;
use amm::program::Amm;
use anchor_lang::prelude::*;
use anchor_spl::token_interface::{self, Burn, Mint, Token2022, TokenAccount, TokenInterface};
use curve::amm::{plan_migration, DEFAULT_SWAP_FEE_BPS};

/// AMM position id of the creator's locked position.
pub const CREATOR_POSITION_ID: u64 = 0;
/// AMM position id of the partner's locked position.
pub const PARTNER_POSITION_ID: u64 = 1;

/// The AMM pool a launch migrates into, and the (mint_a, mint_b) order the AMM wants.
pub fn amm_pool_address(
    launch_pool: &Pubkey,
    base_mint: &Pubkey,
    quote_mint: &Pubkey,
) -> (Pubkey, Pubkey, Pubkey) {
    let (a, b) = if base_mint < quote_mint {
        (base_mint, quote_mint)
    } else {
        (quote_mint, base_mint)
    };
    let pool = Pubkey::find_program_address(
        &[amm::POOL_SEED, launch_pool.as_ref(), a.as_ref(), b.as_ref()],
        &amm::ID,
    )
    .0;
    (pool, *a, *b)
}

/// The AMM position of `owner` with `id` in `amm_pool`.
pub fn amm_position_address(amm_pool: &Pubkey, owner: &Pubkey, id: u64) -> Pubkey {
    Pubkey::find_program_address(
        &[
            amm::POSITION_SEED,
            amm_pool.as_ref(),
            owner.as_ref(),
            &id.to_le_bytes(),
        ],
        &amm::ID,
    )
    .0
}

#[event_cpi]
#[derive(Accounts)]
pub struct Migrate<'info> {
    /// Anyone; pays the rent of the AMM accounts.
    #[account(mut)]
    pub migrator: Signer<'info>,
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
    #[account(mut)]
    pub base_mint: Box<InterfaceAccount<'info, Mint>>,
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(mut)]
    pub base_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(mut)]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    /// CHECK: created by the AMM; its address is checked against the launch in the handler.
    #[account(mut)]
    pub amm_pool: UncheckedAccount<'info>,
    /// CHECK: created by the AMM (seeds checked there).
    #[account(mut)]
    pub amm_vault_a: UncheckedAccount<'info>,
    /// CHECK: created by the AMM (seeds checked there).
    #[account(mut)]
    pub amm_vault_b: UncheckedAccount<'info>,
    /// CHECK: created by the AMM (seeds checked there).
    #[account(mut)]
    pub creator_position: UncheckedAccount<'info>,
    /// CHECK: created by the AMM (seeds checked there).
    #[account(mut)]
    pub partner_position: UncheckedAccount<'info>,
    /// CHECK: the AMM's event authority (checked by the AMM).
    pub amm_event_authority: UncheckedAccount<'info>,
    pub amm_program: Program<'info, Amm>,
    pub base_token_program: Program<'info, Token2022>,
    pub quote_token_program: Interface<'info, TokenInterface>,
    pub system_program: Program<'info, System>,
}

impl<'info> Migrate<'info> {
    /// (mint, vault, token program) of the AMM's side a, then side b.
    fn sides(&self) -> [(AccountInfo<'info>, AccountInfo<'info>, AccountInfo<'info>); 2] {
        let base = (
            self.base_mint.to_account_info(),
            self.base_vault.to_account_info(),
            self.base_token_program.to_account_info(),
        );
        let quote = (
            self.quote_mint.to_account_info(),
            self.quote_vault.to_account_info(),
            self.quote_token_program.to_account_info(),
        );
        if self.base_mint.key() < self.quote_mint.key() {
            [base, quote]
        } else {
            [quote, base]
        }
    }

    #[inline(never)]
    fn create_amm_pool(&self, signer: &[&[&[u8]]]) -> Result<()> {
        let [(mint_a, _, prog_a), (mint_b, _, prog_b)] = self.sides();
        amm::cpi::create_pool(
            CpiContext::new_with_signer(
                self.amm_program.key(),
                amm_accounts::CreatePool {
                    payer: self.migrator.to_account_info(),
                    creator: self.pool.to_account_info(),
                    mint_a,
                    mint_b,
                    pool: self.amm_pool.to_account_info(),
                    vault_a: self.amm_vault_a.to_account_info(),
                    vault_b: self.amm_vault_b.to_account_info(),
                    token_program_a: prog_a,
                    token_program_b: prog_b,
                    system_program: self.system_program.to_account_info(),
                    event_authority: self.amm_event_authority.to_account_info(),
                    program: self.amm_program.to_account_info(),
                },
                signer,
            ),
            DEFAULT_SWAP_FEE_BPS,
        )
    }

    #[inline(never)]
    fn create_position(
        &self,
        position: AccountInfo<'info>,
        owner: Pubkey,
        id: u64,
        signer: &[&[&[u8]]],
    ) -> Result<()> {
        amm::cpi::create_position(
            CpiContext::new_with_signer(
                self.amm_program.key(),
                amm_accounts::CreatePosition {
                    payer: self.migrator.to_account_info(),
                    authority: self.pool.to_account_info(),
                    pool: self.amm_pool.to_account_info(),
                    position,
                    system_program: self.system_program.to_account_info(),
                    event_authority: self.amm_event_authority.to_account_info(),
                    program: self.amm_program.to_account_info(),
                },
                signer,
            ),
            owner,
            id,
        )
    }

    /// Deposits `base` and `quote` from the launch's vaults into `position`, locked.
    #[inline(never)]
    fn deposit_locked(
        &self,
        position: AccountInfo<'info>,
        liquidity: u128,
        base: u64,
        quote: u64,
        signer: &[&[&[u8]]],
    ) -> Result<()> {
        let [(mint_a, from_a, prog_a), (mint_b, from_b, prog_b)] = self.sides();
        let (max_a, max_b) = if self.base_mint.key() < self.quote_mint.key() {
            (base, quote)
        } else {
            (quote, base)
        };
        amm::cpi::add_liquidity(
            CpiContext::new_with_signer(
                self.amm_program.key(),
                amm_accounts::AddLiquidity {
                    depositor: self.pool.to_account_info(),
                    pool: self.amm_pool.to_account_info(),
                    position,
                    mint_a,
                    mint_b,
                    vault_a: self.amm_vault_a.to_account_info(),
                    vault_b: self.amm_vault_b.to_account_info(),
                    depositor_a: from_a,
                    depositor_b: from_b,
                    token_program_a: prog_a,
                    token_program_b: prog_b,
                    event_authority: self.amm_event_authority.to_account_info(),
                    program: self.amm_program.to_account_info(),
                },
                signer,
            ),
            amm::AddLiquidityArgs {
                liquidity,
                max_a,
                max_b,
                lock: true,
            },
        )
    }
}

pub fn handler(ctx: Context<Migrate>) -> Result<()> {
    let accounts = &ctx.accounts;
    let pool = &accounts.pool;
    match pool.status {
        PoolStatus::Bonding => return err!(LaunchpadError::CurveNotComplete),
        PoolStatus::Migrated => return err!(LaunchpadError::AlreadyMigrated),
        PoolStatus::Complete => {}
    }
    let (expected_pool, _, _) = amm_pool_address(&pool.key(), &pool.base_mint, &pool.quote_mint);
    require_keys_eq!(
        accounts.amm_pool.key(),
        expected_pool,
        LaunchpadError::InvalidAmmAccount
    );
    let plan = plan_migration(
        pool.base_reserve,
        pool.quote_reserve,
        pool.sqrt_price,
        accounts.config.creator_surplus_share_bps,
    )
    .or_launchpad()?;

    let mint_key = pool.base_mint;
    let bump = [pool.bump];
    let seeds = pool.signer_seeds(&bump);
    let signer: &[&[&[u8]]] = &[&seeds];
    accounts.create_amm_pool(signer)?;
    let creator_position = accounts.creator_position.to_account_info();
    let partner_position = accounts.partner_position.to_account_info();
    // Both positions belong to the pool itself: their fees go to whoever holds the role when they are
    // claimed (`claim_locked_lp_fee`), through a creator handover or a partner handover alike.
    accounts.create_position(
        creator_position.clone(),
        pool.key(),
        CREATOR_POSITION_ID,
        signer,
    )?;
    accounts.create_position(
        partner_position.clone(),
        pool.key(),
        PARTNER_POSITION_ID,
        signer,
    )?;
    // The first deposit sets the price (liquidity 0 = "mint sqrt(a * b)"); the second mints the same liquidity.
    accounts.deposit_locked(
        creator_position,
        0,
        plan.base_per_position,
        plan.quote_per_position,
        signer,
    )?;
    accounts.deposit_locked(
        partner_position,
        plan.liquidity_per_position,
        plan.base_per_position,
        plan.quote_per_position,
        signer,
    )?;
    if plan.burnt_base > 0 {
        token_interface::burn(
            CpiContext::new_with_signer(
                accounts.base_token_program.key(),
                Burn {
                    mint: accounts.base_mint.to_account_info(),
                    from: accounts.base_vault.to_account_info(),
                    authority: pool.to_account_info(),
                },
                signer,
            ),
            plan.burnt_base,
        )?;
    }

    let now = Clock::get()?.unix_timestamp;
    let event = EvtMigrate {
        pool: pool.key(),
        mint: mint_key,
        amm_pool: accounts.amm_pool.key(),
        creator_position: accounts.creator_position.key(),
        partner_position: accounts.partner_position.key(),
        base_amount: plan.base_per_position * 2,
        quote_amount: plan.quote_per_position * 2,
        liquidity_per_position: plan.liquidity_per_position,
        surplus: plan.surplus,
        creator_surplus: plan.creator_surplus,
        partner_surplus: plan.partner_surplus,
        burnt_base: plan.burnt_base,
        sqrt_price: pool.sqrt_price,
        migrator: accounts.migrator.key(),
        timestamp: now,
    };
    let pool = &mut ctx.accounts.pool;
    pool.status = PoolStatus::Migrated;
    pool.amm_pool = event.amm_pool;
    pool.migrate_timestamp = now;
    pool.migrated_base = event.base_amount;
    pool.migrated_quote = event.quote_amount;
    pool.burnt_base = plan.burnt_base;
    pool.base_reserve = 0;
    pool.quote_reserve = 0;
    pool.creator_surplus_unclaimed = plan.creator_surplus;
    pool.partner_surplus_unclaimed = plan.partner_surplus;
    emit_cpi!(event);
    Ok(())
}
