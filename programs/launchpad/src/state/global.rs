use anchor_lang::prelude::*;

/// The program's singleton (`["global"]`): who may create and disable configs, the partner (launchpad
/// operator), the quote mints every config must use, and any handover in progress.
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct Global {
    pub admin: Pubkey,
    /// Receives the partner share of trading fees of every config created (or synced) afterwards.
    pub partner: Pubkey,
    pub bump: u8,
    /// The quote mint of SOL configs: the classic token program's wrapped-SOL mint.
    pub sol_mint: Pubkey,
    /// The quote mint of USDC configs, pinned at initialization (a classic SPL Token mint, 6 decimals).
    pub usdc_mint: Pubkey,
    /// The admin proposed by the current admin, until it accepts (or another proposal replaces it).
    pub pending_admin: Option<Pubkey>,
    /// The partner proposed by the admin, until it accepts.
    pub pending_partner: Option<Pubkey>,
}
