//! Instruction builders, PDAs and quotes for the AMM.

use crate::ids;
use amm::{accounts as acc, instruction as ix};
pub use amm::{
    AddLiquidityArgs, AmmPool, Position, RemoveLiquidityArgs, SwapArgs as AmmSwapArgs,
    SwapExactOutArgs as AmmSwapExactOutArgs,
};
use anchor_lang::prelude::Pubkey;
use anchor_lang::solana_program::instruction::Instruction;
use anchor_lang::{InstructionData, ToAccountMetas};

fn build(accounts: impl ToAccountMetas, data: impl InstructionData) -> Instruction {
    Instruction {
        program_id: amm::ID,
        accounts: accounts.to_account_metas(None),
        data: data.data(),
    }
}

pub fn event_authority() -> Pubkey {
    amm::EVENT_AUTHORITY_AND_BUMP.0
}

pub fn position_address(pool: &Pubkey, owner: &Pubkey, id: u64) -> Pubkey {
    Pubkey::find_program_address(
        &[
            amm::POSITION_SEED,
            pool.as_ref(),
            owner.as_ref(),
            &id.to_le_bytes(),
        ],
        &amm::ID,
    )
    .0
}

/// The vault of `pool` holding `mint` (its token-account owner is the pool).
pub fn vault_address(pool: &Pubkey, mint: &Pubkey) -> Pubkey {
    Pubkey::find_program_address(&[amm::VAULT_SEED, pool.as_ref(), mint.as_ref()], &amm::ID).0
}

/// Every address of one AMM pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmmKeys {
    pub creator: Pubkey,
    pub mint_a: Pubkey,
    pub mint_b: Pubkey,
    pub pool: Pubkey,
    pub vault_a: Pubkey,
    pub vault_b: Pubkey,
    pub token_program_a: Pubkey,
    pub token_program_b: Pubkey,
}

impl AmmKeys {
    /// The pool `creator` makes for two mints (given in any order) with their token programs.
    pub fn new(
        creator: Pubkey,
        (mint_x, program_x): (Pubkey, Pubkey),
        (mint_y, program_y): (Pubkey, Pubkey),
    ) -> Self {
        let ((mint_a, token_program_a), (mint_b, token_program_b)) = if mint_x < mint_y {
            ((mint_x, program_x), (mint_y, program_y))
        } else {
            ((mint_y, program_y), (mint_x, program_x))
        };
        let pool = Pubkey::find_program_address(
            &[
                amm::POOL_SEED,
                creator.as_ref(),
                mint_a.as_ref(),
                mint_b.as_ref(),
            ],
            &amm::ID,
        )
        .0;
        let vault = |m: &Pubkey| vault_address(&pool, m);
        AmmKeys {
            creator,
            mint_a,
            mint_b,
            pool,
            vault_a: vault(&mint_a),
            vault_b: vault(&mint_b),
            token_program_a,
            token_program_b,
        }
    }

    /// The keys stored in a decoded pool account.
    pub fn from_pool(address: Pubkey, pool: &AmmPool) -> Self {
        AmmKeys {
            creator: pool.creator,
            mint_a: pool.mint_a,
            mint_b: pool.mint_b,
            pool: address,
            vault_a: pool.vault_a,
            vault_b: pool.vault_b,
            token_program_a: pool.token_program_a,
            token_program_b: pool.token_program_b,
        }
    }

    /// `owner`'s associated token accounts for (a, b).
    pub fn owner_accounts(&self, owner: &Pubkey) -> (Pubkey, Pubkey) {
        (
            crate::associated_token_address(owner, &self.mint_a, &self.token_program_a),
            crate::associated_token_address(owner, &self.mint_b, &self.token_program_b),
        )
    }
}

pub fn create_pool(keys: &AmmKeys, payer: &Pubkey, fee_bps: u16) -> Instruction {
    build(
        acc::CreatePool {
            payer: *payer,
            creator: keys.creator,
            mint_a: keys.mint_a,
            mint_b: keys.mint_b,
            pool: keys.pool,
            vault_a: keys.vault_a,
            vault_b: keys.vault_b,
            token_program_a: keys.token_program_a,
            token_program_b: keys.token_program_b,
            system_program: ids::SYSTEM_PROGRAM,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::CreatePool { fee_bps },
    )
}

/// `owner`'s position `id`, created with the owner's signature (the owner signs the transaction).
pub fn create_position(keys: &AmmKeys, payer: &Pubkey, owner: &Pubkey, id: u64) -> Instruction {
    create_position_by(keys, payer, owner, owner, id)
}

/// `owner`'s position `id`, created with `authority`'s signature: the owner itself, or the pool's creator.
pub fn create_position_by(
    keys: &AmmKeys,
    payer: &Pubkey,
    authority: &Pubkey,
    owner: &Pubkey,
    id: u64,
) -> Instruction {
    build(
        acc::CreatePosition {
            payer: *payer,
            authority: *authority,
            pool: keys.pool,
            position: position_address(&keys.pool, owner, id),
            system_program: ids::SYSTEM_PROGRAM,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::CreatePosition { owner: *owner, id },
    )
}

/// Deposit from `depositor`'s associated accounts into `position`.
pub fn add_liquidity(
    keys: &AmmKeys,
    depositor: &Pubkey,
    position: &Pubkey,
    args: AddLiquidityArgs,
) -> Instruction {
    let (depositor_a, depositor_b) = keys.owner_accounts(depositor);
    build(
        acc::AddLiquidity {
            depositor: *depositor,
            pool: keys.pool,
            position: *position,
            mint_a: keys.mint_a,
            mint_b: keys.mint_b,
            vault_a: keys.vault_a,
            vault_b: keys.vault_b,
            depositor_a,
            depositor_b,
            token_program_a: keys.token_program_a,
            token_program_b: keys.token_program_b,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::AddLiquidity { args },
    )
}

pub fn remove_liquidity(
    keys: &AmmKeys,
    owner: &Pubkey,
    position: &Pubkey,
    args: RemoveLiquidityArgs,
) -> Instruction {
    let (owner_a, owner_b) = keys.owner_accounts(owner);
    build(
        acc::RemoveLiquidity {
            owner: *owner,
            pool: keys.pool,
            position: *position,
            mint_a: keys.mint_a,
            mint_b: keys.mint_b,
            vault_a: keys.vault_a,
            vault_b: keys.vault_b,
            owner_a,
            owner_b,
            token_program_a: keys.token_program_a,
            token_program_b: keys.token_program_b,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::RemoveLiquidity { args },
    )
}

pub fn permanent_lock(
    keys: &AmmKeys,
    owner: &Pubkey,
    position: &Pubkey,
    liquidity: u128,
) -> Instruction {
    build(
        acc::PermanentLock {
            owner: *owner,
            pool: keys.pool,
            position: *position,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::PermanentLock { liquidity },
    )
}

/// The accounts of `swap` and `swap_exact_out` between `trader`'s associated accounts.
fn swap_accounts(keys: &AmmKeys, trader: &Pubkey) -> acc::Swap {
    let (trader_a, trader_b) = keys.owner_accounts(trader);
    acc::Swap {
        trader: *trader,
        pool: keys.pool,
        mint_a: keys.mint_a,
        mint_b: keys.mint_b,
        vault_a: keys.vault_a,
        vault_b: keys.vault_b,
        trader_a,
        trader_b,
        token_program_a: keys.token_program_a,
        token_program_b: keys.token_program_b,
        event_authority: event_authority(),
        program: amm::ID,
    }
}

/// A swap between `trader`'s associated accounts.
pub fn swap(keys: &AmmKeys, trader: &Pubkey, args: AmmSwapArgs) -> Instruction {
    build(swap_accounts(keys, trader), ix::Swap { args })
}

/// An exact-out swap between `trader`'s associated accounts: exactly `amount_out` for at most
/// `max_amount_in`.
pub fn swap_exact_out(keys: &AmmKeys, trader: &Pubkey, args: AmmSwapExactOutArgs) -> Instruction {
    build(swap_accounts(keys, trader), ix::SwapExactOut { args })
}

pub fn claim_position_fee(keys: &AmmKeys, owner: &Pubkey, position: &Pubkey) -> Instruction {
    let (owner_a, owner_b) = keys.owner_accounts(owner);
    build(
        acc::ClaimPositionFee {
            owner: *owner,
            pool: keys.pool,
            position: *position,
            mint_a: keys.mint_a,
            mint_b: keys.mint_b,
            vault_a: keys.vault_a,
            vault_b: keys.vault_b,
            owner_a,
            owner_b,
            token_program_a: keys.token_program_a,
            token_program_b: keys.token_program_b,
            event_authority: event_authority(),
            program: amm::ID,
        },
        ix::ClaimPositionFee {},
    )
}

/// Fees a position could claim now.
pub fn claimable_fees(pool: &AmmPool, position: &Position) -> curve::Result<(u64, u64)> {
    let l = position
        .liquidity
        .checked_add(position.locked_liquidity)
        .ok_or(curve::CurveError::MathOverflow)?;
    let a = curve::amm::fees_earned(pool.fee_growth_a, position.fee_growth_checkpoint_a, l)?;
    let b = curve::amm::fees_earned(pool.fee_growth_b, position.fee_growth_checkpoint_b, l)?;
    Ok((
        position.fees_owed_a.saturating_add(a),
        position.fees_owed_b.saturating_add(b),
    ))
}
