//! The launchpad program: launches Token-2022 tokens on a bonding curve and trades them up to an exact
//! graduation.
//!
//! * `initialize` (the upgrade authority, once), `create_config`, `set_config_disabled`, `propose_admin`,
//!   `accept_admin`, `propose_partner`, `accept_partner`, `sync_config_partner` (under `instructions/admin/`):
//!   the program's admin, partner and pinned quote mints, one config per (preset, quote) holding exactly the
//!   preset pinned in `crates/curve`, configs disabled for new launches, two-step handovers.
//! * `create_launch`: a metadata-carrying Token-2022 mint at a creator-derived address, the whole supply in
//!   the pool's vault, no mint or freeze authority, immutable metadata.
//! * `swap`: buy or sell on the curve, exact in, with a minimum out; the buy that reaches the threshold is
//!   filled up to it and the rest refunded. A swap may name a referral account, paid the config's referral
//!   share of the partner's part of the fee at trade time.
//! * `swap_exact_out`: buy an exact number of tokens, or sell for an exact amount of quote, with a maximum
//!   in; an exact-out buy that reaches the threshold completes the curve as the exact-in buy does.
//! * `claim_trading_fee`: creator and partner each claim their accrued share of the trading fees.
//! * `propose_creator`, `accept_creator` (under `instructions/creator/`): the creator role's two-step
//!   handover; every creator claim follows the role.
//! * `migrate` (anyone, once the curve is complete): opens the AMM pool at the final curve price with the
//!   migration supply and the raised quote, two equal permanently locked positions (creator, partner).
//! * `claim_surplus`, `claim_locked_lp_fee`: after migration, the surplus (once per party) and the AMM
//!   fees of each party's locked position.
//! * `set_fee_shares`, `claim_fee_share`, `share_locked_lp_fee` (under `instructions/fee_shares/`): creator
//!   fees shared among up to 10 recipients, each claiming its own credit, the locked creator position's fees
//!   included.
//!
//! All money math is in `crates/curve`; this program moves tokens and keeps state.
#![allow(unexpected_cfgs)]
// Anchor's generated code trips these; the handlers themselves keep to checked math.
#![allow(clippy::result_large_err, clippy::too_many_arguments)]

use anchor_lang::prelude::*;

pub mod constants;
pub mod errors;
pub mod events;
pub mod instructions;
pub mod state;
pub mod utils;

pub use constants::*;
pub use errors::LaunchpadError;
pub use events::*;
pub use instructions::*;
pub use state::*;

declare_id!("6NpjqXdtL6aWKrifyWxp1e9bYXvqhcYL51T3JTQgNKRu");

/// Who may `initialize` the program when it is not owned by the upgradeable loader (a non-upgradeable loader,
/// a genesis or native load). `None`: such a deployment cannot be initialized at all. A deployment through the
/// upgradeable loader ignores this and requires the program's upgrade authority instead. To deploy
/// non-upgradeably, set this to the intended admin's key and rebuild (see `docs/deploying.md`).
pub const INITIALIZE_AUTHORITY: Option<Pubkey> = None;

#[program]
pub mod launchpad {
    use super::*;

    /// Creates the program's global account: the signer (the program's upgrade authority) becomes the admin;
    /// `partner` receives the partner share of fees; the USDC mint is pinned.
    pub fn initialize(ctx: Context<Initialize>, partner: Pubkey) -> Result<()> {
        instructions::admin::initialize::handler(ctx, partner)
    }

    /// Creates the config of one (preset, quote). Admin only. It must equal the pinned preset.
    pub fn create_config(ctx: Context<CreateConfig>, args: CreateConfigArgs) -> Result<()> {
        instructions::admin::create_config::handler(ctx, args)
    }

    /// Disables (or re-enables) a config for new launches. Admin only. Existing pools are unaffected.
    pub fn set_config_disabled(ctx: Context<SetConfigDisabled>, disabled: bool) -> Result<()> {
        instructions::admin::set_config_disabled::handler(ctx, disabled)
    }

    /// Proposes a new admin (replacing any earlier proposal). Admin only.
    pub fn propose_admin(ctx: Context<ProposeAdmin>, new_admin: Pubkey) -> Result<()> {
        instructions::admin::propose_admin::handler(ctx, new_admin)
    }

    /// The proposed admin takes over.
    pub fn accept_admin(ctx: Context<AcceptAdmin>) -> Result<()> {
        instructions::admin::accept_admin::handler(ctx)
    }

    /// Proposes a new partner (replacing any earlier proposal). Admin only.
    pub fn propose_partner(ctx: Context<ProposePartner>, new_partner: Pubkey) -> Result<()> {
        instructions::admin::propose_partner::handler(ctx, new_partner)
    }

    /// The proposed partner takes over as the global partner.
    pub fn accept_partner(ctx: Context<AcceptPartner>) -> Result<()> {
        instructions::admin::accept_partner::handler(ctx)
    }

    /// Gives a config the global partner (after a partner handover). Anyone may call it.
    pub fn sync_config_partner(ctx: Context<SyncConfigPartner>) -> Result<()> {
        instructions::admin::sync_config_partner::handler(ctx)
    }

    /// Launches a token: mint with metadata, pool, vaults, the whole supply in the pool.
    pub fn create_launch(ctx: Context<CreateLaunch>, args: CreateLaunchArgs) -> Result<()> {
        instructions::create_launch::handler(ctx, args)
    }

    /// Buys or sells on the curve, exact in, with a minimum out.
    pub fn swap(ctx: Context<Swap>, args: SwapArgs) -> Result<()> {
        instructions::swap::handler(ctx, args)
    }

    /// Buys an exact number of tokens or sells for an exact amount of quote, with a maximum in.
    pub fn swap_exact_out(ctx: Context<Swap>, args: SwapExactOutArgs) -> Result<()> {
        instructions::swap_exact_out::handler(ctx, args)
    }

    /// The creator proposes the wallet to hand the creator role to (the default key withdraws it).
    pub fn propose_creator(ctx: Context<ProposeCreator>, new_creator: Pubkey) -> Result<()> {
        instructions::creator::propose_creator::handler(ctx, new_creator)
    }

    /// The proposed wallet accepts and becomes the pool's creator.
    pub fn accept_creator(ctx: Context<AcceptCreator>) -> Result<()> {
        instructions::creator::accept_creator::handler(ctx)
    }

    /// Pays the signer's accrued share of trading fees (creator, partner, or both if they are one wallet).
    pub fn claim_trading_fee(ctx: Context<ClaimTradingFee>) -> Result<()> {
        instructions::claim_trading_fee::handler(ctx)
    }

    /// Moves a completed curve into the AMM: pool at the final curve price, two equal locked positions
    /// (creator, partner), surplus recorded. Permissionless; once.
    pub fn migrate(ctx: Context<Migrate>) -> Result<()> {
        instructions::migrate::handler(ctx)
    }

    /// Pays the signer's part of the migration surplus, once.
    pub fn claim_surplus(ctx: Context<ClaimSurplus>) -> Result<()> {
        instructions::claim_surplus::handler(ctx)
    }

    /// Pays the AMM fees earned by the signer's locked position (CPI into the AMM).
    pub fn claim_locked_lp_fee(ctx: Context<ClaimLockedLpFee>) -> Result<()> {
        instructions::claim_locked_lp_fee::handler(ctx)
    }

    /// The creator role shares the creator fees among 1 to 10 wallets (bps summing to 10,000), optionally
    /// locking the shares for good. Fees earned under the old shares (the pool's, and after migration the
    /// creator position's, collected here) are credited by them first; dropped recipients may be paid out.
    pub fn set_fee_shares<'info>(
        ctx: Context<'info, SetFeeShares<'info>>,
        args: SetFeeSharesArgs,
    ) -> Result<()> {
        instructions::fee_shares::set_fee_shares::handler(ctx, args)
    }

    /// A recipient of shared creator fees claims its credit (quote, and tokens when it names an account).
    pub fn claim_fee_share(ctx: Context<ClaimFeeShare>) -> Result<()> {
        instructions::fee_shares::claim_fee_share::handler(ctx)
    }

    /// Collects a shared pool's locked creator position fees and credits them to the recipients. Anyone.
    pub fn share_locked_lp_fee(ctx: Context<ShareLockedLpFee>) -> Result<()> {
        instructions::fee_shares::share_locked_lp_fee::handler(ctx)
    }
}
