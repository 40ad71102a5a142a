use anchor_lang::prelude::*;

/// The program's singleton (`["global"]`): who may create configs, and the partner (launchpad operator).
#[account]
#[derive(InitSpace, Debug, PartialEq, Eq)]
pub struct Global {
    pub admin: Pubkey,
    /// Receives the partner share of trading fees of every config created afterwards.
    pub partner: Pubkey,
    pub bump: u8,
}
