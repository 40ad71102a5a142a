//! Instruction builders for the launchpad program. Each takes the few keys a caller knows and derives the
//! rest.

use crate::{ids, pda};
use anchor_lang::prelude::Pubkey;
use anchor_lang::solana_program::instruction::Instruction;
use anchor_lang::{InstructionData, ToAccountMetas};
use curve::{Preset, PresetConfig, QuoteAsset};
use launchpad::{accounts as acc, instruction as ix};
pub use launchpad::{
    CreateConfigArgs, CreateLaunchArgs, CurveSegment, FeeRecipient, FeeScheduleParams,
    SetFeeSharesArgs, SwapArgs, SwapExactOutArgs, SIDE_BUY, SIDE_SELL,
};

fn build(accounts: impl ToAccountMetas, data: impl InstructionData) -> Instruction {
    Instruction {
        program_id: launchpad::ID,
        accounts: accounts.to_account_metas(None),
        data: data.data(),
    }
}

/// The token program of a quote mint: wrapped SOL and USDC are classic SPL mints.
pub fn quote_token_program(_quote_mint: &Pubkey) -> Pubkey {
    ids::TOKEN_PROGRAM
}

/// The program-data account of the launchpad under the upgradeable loader.
pub fn program_data_address() -> Pubkey {
    anchor_lang::solana_program::bpf_loader_upgradeable::get_program_data_address(&launchpad::ID)
}

/// `initialize` signed by `admin` (the upgrade authority), naming `partner` and pinning `usdc_mint`;
/// `program_data` is the program's program-data account (None only for a non-upgradeable deployment).
pub fn initialize(
    admin: &Pubkey,
    partner: &Pubkey,
    usdc_mint: &Pubkey,
    program_data: Option<Pubkey>,
) -> Instruction {
    build(
        acc::Initialize {
            admin: *admin,
            global: pda::global(),
            program: launchpad::ID,
            program_data,
            usdc_mint: *usdc_mint,
            token_program: ids::TOKEN_PROGRAM,
            system_program: ids::SYSTEM_PROGRAM,
        },
        ix::Initialize { partner: *partner },
    )
}

/// Disables (or re-enables) `config` for new launches.
pub fn set_config_disabled(admin: &Pubkey, config: &Pubkey, disabled: bool) -> Instruction {
    build(
        acc::SetConfigDisabled {
            admin: *admin,
            global: pda::global(),
            config: *config,
        },
        ix::SetConfigDisabled { disabled },
    )
}

pub fn propose_admin(admin: &Pubkey, new_admin: &Pubkey) -> Instruction {
    build(
        acc::ProposeAdmin {
            admin: *admin,
            global: pda::global(),
        },
        ix::ProposeAdmin {
            new_admin: *new_admin,
        },
    )
}

pub fn accept_admin(new_admin: &Pubkey) -> Instruction {
    build(
        acc::AcceptAdmin {
            new_admin: *new_admin,
            global: pda::global(),
        },
        ix::AcceptAdmin {},
    )
}

pub fn propose_partner(admin: &Pubkey, new_partner: &Pubkey) -> Instruction {
    build(
        acc::ProposePartner {
            admin: *admin,
            global: pda::global(),
        },
        ix::ProposePartner {
            new_partner: *new_partner,
        },
    )
}

pub fn accept_partner(new_partner: &Pubkey) -> Instruction {
    build(
        acc::AcceptPartner {
            new_partner: *new_partner,
            global: pda::global(),
        },
        ix::AcceptPartner {},
    )
}

/// Copies the global partner into `config` (anyone may send it).
pub fn sync_config_partner(config: &Pubkey) -> Instruction {
    build(
        acc::SyncConfigPartner {
            global: pda::global(),
            config: *config,
        },
        ix::SyncConfigPartner {},
    )
}

/// The create_config arguments of a preset built by `crates/curve`.
pub fn config_args(cfg: &PresetConfig) -> CreateConfigArgs {
    CreateConfigArgs {
        preset: cfg.preset as u8,
        quote: cfg.quote as u8,
        sqrt_start_price: cfg.sqrt_start_price,
        segments: cfg
            .curve()
            .segments
            .iter()
            .map(|s| CurveSegment {
                sqrt_price_upper: s.sqrt_price_upper,
                liquidity: s.liquidity,
            })
            .collect(),
        fees: cfg.fees.into(),
        threshold: cfg.threshold,
        creator_fee_share_bps: cfg.creator_fee_share_bps,
        creator_surplus_share_bps: cfg.creator_surplus_share_bps,
        referral_share_bps: cfg.referral_share_bps,
    }
}

pub fn create_config(admin: &Pubkey, quote_mint: &Pubkey, args: CreateConfigArgs) -> Instruction {
    build(
        acc::CreateConfig {
            admin: *admin,
            global: pda::global(),
            config: pda::config(args.preset, quote_mint),
            quote_mint: *quote_mint,
            system_program: ids::SYSTEM_PROGRAM,
        },
        ix::CreateConfig { args },
    )
}

/// `create_config` for a named preset and quote mint, with the config pinned for it in `crates/curve`.
pub fn create_preset_config(
    admin: &Pubkey,
    preset: Preset,
    quote: QuoteAsset,
    quote_mint: &Pubkey,
) -> curve::Result<Instruction> {
    let cfg = curve::pinned_preset(preset, quote);
    Ok(create_config(admin, quote_mint, config_args(cfg)))
}

/// Every address of one launch, derived from its creator and salt (or mint) and its config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchKeys {
    pub creator: Pubkey,
    pub config: Pubkey,
    pub mint: Pubkey,
    pub pool: Pubkey,
    pub base_vault: Pubkey,
    pub quote_mint: Pubkey,
    pub quote_vault: Pubkey,
    pub quote_token_program: Pubkey,
}

impl LaunchKeys {
    pub fn new(creator: Pubkey, config: Pubkey, quote_mint: Pubkey, mint: Pubkey) -> Self {
        let pool = pda::pool(&mint);
        LaunchKeys {
            creator,
            config,
            mint,
            pool,
            base_vault: pda::base_vault(&pool),
            quote_mint,
            quote_vault: pda::quote_vault(&pool),
            quote_token_program: quote_token_program(&quote_mint),
        }
    }

    pub fn derive(creator: Pubkey, salt: u64, preset: u8, quote_mint: Pubkey) -> Self {
        Self::new(
            creator,
            pda::config(preset, &quote_mint),
            quote_mint,
            pda::mint(&creator, salt),
        )
    }
}

pub fn create_launch(keys: &LaunchKeys, args: CreateLaunchArgs) -> Instruction {
    build(
        acc::CreateLaunch {
            creator: keys.creator,
            config: keys.config,
            mint_authority: pda::mint_authority(),
            mint: keys.mint,
            pool: keys.pool,
            base_vault: keys.base_vault,
            quote_mint: keys.quote_mint,
            quote_vault: keys.quote_vault,
            base_token_program: ids::TOKEN_2022_PROGRAM,
            quote_token_program: keys.quote_token_program,
            system_program: ids::SYSTEM_PROGRAM,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::CreateLaunch { args },
    )
}

/// The accounts of `swap` and `swap_exact_out`.
fn swap_accounts(
    keys: &LaunchKeys,
    trader: &Pubkey,
    trader_base_account: &Pubkey,
    trader_quote_account: &Pubkey,
    referral_quote_account: Option<Pubkey>,
) -> acc::Swap {
    acc::Swap {
        trader: *trader,
        config: keys.config,
        pool: keys.pool,
        base_mint: keys.mint,
        quote_mint: keys.quote_mint,
        base_vault: keys.base_vault,
        quote_vault: keys.quote_vault,
        trader_base_account: *trader_base_account,
        trader_quote_account: *trader_quote_account,
        base_token_program: ids::TOKEN_2022_PROGRAM,
        quote_token_program: keys.quote_token_program,
        referral_quote_account,
        event_authority: pda::event_authority(),
        program: launchpad::ID,
    }
}

/// `trader`'s associated token accounts of the launch's token and quote.
fn trader_atas(keys: &LaunchKeys, trader: &Pubkey) -> (Pubkey, Pubkey) {
    (
        crate::associated_token_address(trader, &keys.mint, &ids::TOKEN_2022_PROGRAM),
        crate::associated_token_address(trader, &keys.quote_mint, &keys.quote_token_program),
    )
}

/// A swap between `trader`'s token accounts (by default their associated token accounts, see
/// [`swap_with_ata`]).
pub fn swap(
    keys: &LaunchKeys,
    trader: &Pubkey,
    trader_base_account: &Pubkey,
    trader_quote_account: &Pubkey,
    args: SwapArgs,
) -> Instruction {
    swap_referred(
        keys,
        trader,
        trader_base_account,
        trader_quote_account,
        args,
        None,
    )
}

/// A swap that names `referral_quote_account` (any quote account not the trader's): it is paid the config's
/// referral share of the partner's part of the fee at trade time.
pub fn swap_referred(
    keys: &LaunchKeys,
    trader: &Pubkey,
    trader_base_account: &Pubkey,
    trader_quote_account: &Pubkey,
    args: SwapArgs,
    referral_quote_account: Option<Pubkey>,
) -> Instruction {
    build(
        swap_accounts(
            keys,
            trader,
            trader_base_account,
            trader_quote_account,
            referral_quote_account,
        ),
        ix::Swap { args },
    )
}

/// A swap between `trader`'s associated token accounts.
pub fn swap_with_ata(keys: &LaunchKeys, trader: &Pubkey, args: SwapArgs) -> Instruction {
    let (base, quote) = trader_atas(keys, trader);
    swap(keys, trader, &base, &quote, args)
}

/// An exact-out swap between `trader`'s token accounts: exactly `amount_out` for at most `max_amount_in`.
pub fn swap_exact_out(
    keys: &LaunchKeys,
    trader: &Pubkey,
    trader_base_account: &Pubkey,
    trader_quote_account: &Pubkey,
    args: SwapExactOutArgs,
) -> Instruction {
    swap_exact_out_referred(
        keys,
        trader,
        trader_base_account,
        trader_quote_account,
        args,
        None,
    )
}

/// [`swap_exact_out`] naming a referral quote account (see [`swap_referred`]).
pub fn swap_exact_out_referred(
    keys: &LaunchKeys,
    trader: &Pubkey,
    trader_base_account: &Pubkey,
    trader_quote_account: &Pubkey,
    args: SwapExactOutArgs,
    referral_quote_account: Option<Pubkey>,
) -> Instruction {
    build(
        swap_accounts(
            keys,
            trader,
            trader_base_account,
            trader_quote_account,
            referral_quote_account,
        ),
        ix::SwapExactOut { args },
    )
}

/// An exact-out swap between `trader`'s associated token accounts.
pub fn swap_exact_out_with_ata(
    keys: &LaunchKeys,
    trader: &Pubkey,
    args: SwapExactOutArgs,
) -> Instruction {
    let (base, quote) = trader_atas(keys, trader);
    swap_exact_out(keys, trader, &base, &quote, args)
}

pub fn claim_trading_fee(
    keys: &LaunchKeys,
    claimer: &Pubkey,
    claimer_quote_account: &Pubkey,
) -> Instruction {
    build(
        acc::ClaimTradingFee {
            claimer: *claimer,
            config: keys.config,
            pool: keys.pool,
            quote_mint: keys.quote_mint,
            quote_vault: keys.quote_vault,
            claimer_quote_account: *claimer_quote_account,
            quote_token_program: keys.quote_token_program,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ClaimTradingFee {},
    )
}

/// Creates `owner`'s associated token account if it does not exist (idempotent).
pub fn create_ata_idempotent(
    payer: &Pubkey,
    owner: &Pubkey,
    mint: &Pubkey,
    token_program: &Pubkey,
) -> Instruction {
    anchor_spl::associated_token::spl_associated_token_account::instruction::create_associated_token_account_idempotent(
        payer,
        owner,
        mint,
        token_program,
    )
}

impl LaunchKeys {
    /// The AMM pool this launch migrates into (created by the launch's pool PDA).
    pub fn amm_keys(&self) -> crate::amm_ix::AmmKeys {
        crate::amm_ix::AmmKeys::new(
            self.pool,
            (self.mint, ids::TOKEN_2022_PROGRAM),
            (self.quote_mint, self.quote_token_program),
        )
    }

    /// The creator's locked AMM position (owned by the launch's pool; whoever holds the creator role claims
    /// its fees).
    pub fn creator_position(&self) -> Pubkey {
        crate::amm_ix::position_address(
            &self.amm_keys().pool,
            &self.pool,
            launchpad::CREATOR_POSITION_ID,
        )
    }

    /// The partner's locked AMM position (owned by the launch's pool; the config's partner claims its fees).
    pub fn partner_position(&self) -> Pubkey {
        crate::amm_ix::position_address(
            &self.amm_keys().pool,
            &self.pool,
            launchpad::PARTNER_POSITION_ID,
        )
    }
}

/// Migrates a completed launch into the AMM.
pub fn migrate(keys: &LaunchKeys, migrator: &Pubkey) -> Instruction {
    let amm = keys.amm_keys();
    build(
        acc::Migrate {
            migrator: *migrator,
            config: keys.config,
            pool: keys.pool,
            base_mint: keys.mint,
            quote_mint: keys.quote_mint,
            base_vault: keys.base_vault,
            quote_vault: keys.quote_vault,
            amm_pool: amm.pool,
            amm_vault_a: amm.vault_a,
            amm_vault_b: amm.vault_b,
            creator_position: keys.creator_position(),
            partner_position: keys.partner_position(),
            amm_event_authority: crate::amm_ix::event_authority(),
            amm_program: amm::ID,
            base_token_program: ids::TOKEN_2022_PROGRAM,
            quote_token_program: keys.quote_token_program,
            system_program: ids::SYSTEM_PROGRAM,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::Migrate {},
    )
}

pub fn claim_surplus(
    keys: &LaunchKeys,
    claimer: &Pubkey,
    claimer_quote_account: &Pubkey,
) -> Instruction {
    build(
        acc::ClaimSurplus {
            claimer: *claimer,
            config: keys.config,
            pool: keys.pool,
            quote_mint: keys.quote_mint,
            quote_vault: keys.quote_vault,
            claimer_quote_account: *claimer_quote_account,
            quote_token_program: keys.quote_token_program,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ClaimSurplus {},
    )
}

/// Claims the AMM fees of `position` (the claimer's creator or partner position) into the claimer's
/// associated token accounts.
pub fn claim_locked_lp_fee(keys: &LaunchKeys, claimer: &Pubkey, position: &Pubkey) -> Instruction {
    let (claimer_a, claimer_b) = keys.amm_keys().owner_accounts(claimer);
    claim_locked_lp_fee_to(keys, claimer, position, &claimer_a, &claimer_b)
}

/// Claims the AMM fees of `position` into the token accounts `claimer_a` and `claimer_b` (any accounts of
/// the AMM pool's mints, e.g. another wallet's).
pub fn claim_locked_lp_fee_to(
    keys: &LaunchKeys,
    claimer: &Pubkey,
    position: &Pubkey,
    claimer_a: &Pubkey,
    claimer_b: &Pubkey,
) -> Instruction {
    let amm = keys.amm_keys();
    let (claimer_a, claimer_b) = (*claimer_a, *claimer_b);
    build(
        acc::ClaimLockedLpFee {
            claimer: *claimer,
            config: keys.config,
            pool: keys.pool,
            amm_pool: amm.pool,
            position: *position,
            mint_a: amm.mint_a,
            mint_b: amm.mint_b,
            amm_vault_a: amm.vault_a,
            amm_vault_b: amm.vault_b,
            claimer_a,
            claimer_b,
            token_program_a: amm.token_program_a,
            token_program_b: amm.token_program_b,
            amm_event_authority: crate::amm_ix::event_authority(),
            amm_program: amm::ID,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ClaimLockedLpFee {},
    )
}

impl LaunchKeys {
    /// The launch's fee-shares account (exists once its creator role shared the creator fees).
    pub fn fee_shares(&self) -> Pubkey {
        pda::fee_shares(&self.pool)
    }
}

/// The creator role (`creator`) shares the creator fees among `recipients` (and locks them for good with
/// `lock`). Sent after `create_launch` in the same transaction, the shares hold from the first trade. Before
/// migration only; after it use [`set_fee_shares_settling`].
pub fn set_fee_shares(
    keys: &LaunchKeys,
    creator: &Pubkey,
    recipients: Vec<FeeRecipient>,
    lock: bool,
) -> Instruction {
    set_fee_shares_settling(keys, creator, recipients, lock, false, &[])
}

/// [`set_fee_shares`] naming the launch's vaults, and with `migrated` its AMM accounts: the creator position's
/// uncollected AMM fees are credited by the old shares before the new ones apply (required after migration).
/// `payout_accounts` are token accounts of dropped recipients (their quote account, and their Token-2022
/// account of the launch's token when they hold tokens): each is paid its balance in the same instruction and
/// frees its slot.
pub fn set_fee_shares_settling(
    keys: &LaunchKeys,
    creator: &Pubkey,
    recipients: Vec<FeeRecipient>,
    lock: bool,
    migrated: bool,
    payout_accounts: &[Pubkey],
) -> Instruction {
    let vaults = migrated || !payout_accounts.is_empty();
    let amm = keys.amm_keys();
    let some = |on: bool, key: Pubkey| on.then_some(key);
    let mut ix = build(
        acc::SetFeeShares {
            creator: *creator,
            pool: keys.pool,
            fee_shares: keys.fee_shares(),
            system_program: anchor_lang::system_program::ID,
            base_mint: some(vaults, keys.mint),
            quote_mint: some(vaults, keys.quote_mint),
            base_vault: some(vaults, keys.base_vault),
            quote_vault: some(vaults, keys.quote_vault),
            base_token_program: some(vaults, ids::TOKEN_2022_PROGRAM),
            quote_token_program: some(vaults, keys.quote_token_program),
            amm_pool: some(migrated, amm.pool),
            position: some(migrated, keys.creator_position()),
            amm_vault_a: some(migrated, amm.vault_a),
            amm_vault_b: some(migrated, amm.vault_b),
            amm_event_authority: some(migrated, crate::amm_ix::event_authority()),
            amm_program: some(migrated, amm::ID),
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::SetFeeShares {
            args: SetFeeSharesArgs { recipients, lock },
        },
    );
    ix.accounts.extend(
        payout_accounts
            .iter()
            .map(|a| anchor_lang::solana_program::instruction::AccountMeta::new(*a, false)),
    );
    ix
}

/// A fee-share recipient claims its quote into `quote_account`, and its tokens into `base_account` if given.
pub fn claim_fee_share(
    keys: &LaunchKeys,
    recipient: &Pubkey,
    quote_account: &Pubkey,
    base_account: Option<Pubkey>,
) -> Instruction {
    build(
        acc::ClaimFeeShare {
            recipient: *recipient,
            pool: keys.pool,
            fee_shares: keys.fee_shares(),
            base_mint: keys.mint,
            quote_mint: keys.quote_mint,
            base_vault: keys.base_vault,
            quote_vault: keys.quote_vault,
            recipient_quote_account: *quote_account,
            recipient_base_account: base_account,
            base_token_program: ids::TOKEN_2022_PROGRAM,
            quote_token_program: keys.quote_token_program,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ClaimFeeShare {},
    )
}

/// Collects a shared launch's locked creator position fees into its vaults, credited to the recipients.
pub fn share_locked_lp_fee(keys: &LaunchKeys, sender: &Pubkey) -> Instruction {
    let amm = keys.amm_keys();
    build(
        acc::ShareLockedLpFee {
            sender: *sender,
            pool: keys.pool,
            fee_shares: keys.fee_shares(),
            amm_pool: amm.pool,
            position: keys.creator_position(),
            mint_a: amm.mint_a,
            mint_b: amm.mint_b,
            amm_vault_a: amm.vault_a,
            amm_vault_b: amm.vault_b,
            base_vault: keys.base_vault,
            quote_vault: keys.quote_vault,
            token_program_a: amm.token_program_a,
            token_program_b: amm.token_program_b,
            amm_event_authority: crate::amm_ix::event_authority(),
            amm_program: amm::ID,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ShareLockedLpFee {},
    )
}

/// The pool's creator (`creator`, the role's holder now) proposes `new_creator` for the role (the default key
/// withdraws the proposal).
pub fn propose_creator(keys: &LaunchKeys, creator: &Pubkey, new_creator: &Pubkey) -> Instruction {
    build(
        acc::ProposeCreator {
            creator: *creator,
            pool: keys.pool,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::ProposeCreator {
            new_creator: *new_creator,
        },
    )
}

/// The proposed wallet takes the creator role.
pub fn accept_creator(keys: &LaunchKeys, new_creator: &Pubkey) -> Instruction {
    build(
        acc::AcceptCreator {
            new_creator: *new_creator,
            pool: keys.pool,
            event_authority: pda::event_authority(),
            program: launchpad::ID,
        },
        ix::AcceptCreator {},
    )
}

/// `owner`'s wrapped-SOL associated token account.
pub fn wsol_account(owner: &Pubkey) -> Pubkey {
    crate::associated_token_address(owner, &ids::NATIVE_MINT, &ids::TOKEN_PROGRAM)
}

/// Closes `owner`'s wrapped-SOL account: whatever it holds (a refund, a sale, a claim) and its rent return to
/// the wallet as SOL. The last instruction of any transaction that wraps SOL or is paid in SOL.
pub fn unwrap_sol(owner: &Pubkey) -> Instruction {
    anchor_spl::token::spl_token::instruction::close_account(
        &ids::TOKEN_PROGRAM,
        &wsol_account(owner),
        owner,
        owner,
        &[],
    )
    .expect("close_account of a valid account builds")
}

/// Creates `owner`'s wrapped-SOL account if needed and moves `lamports` into it (a buy in SOL pays from it).
pub fn wrap_sol(owner: &Pubkey, lamports: u64) -> Vec<Instruction> {
    let wsol = wsol_account(owner);
    vec![
        create_ata_idempotent(owner, owner, &ids::NATIVE_MINT, &ids::TOKEN_PROGRAM),
        solana_system_interface::instruction::transfer(owner, &wsol, lamports),
        anchor_spl::token::spl_token::instruction::sync_native(&ids::TOKEN_PROGRAM, &wsol)
            .expect("sync_native of a valid account builds"),
    ]
}
