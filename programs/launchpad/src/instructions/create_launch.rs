//! `create_launch`: launches a token on a config's curve.
//!
//! The mint is a Token-2022 mint at `["mint", creator, salt]`, so a client can derive it for a creator and the
//! creator's signature is the only one a launch needs (the service preparing launches holds no keys). The mint
//! carries the metadata-pointer and token-metadata extensions on itself; the metadata is made immutable, the
//! whole supply is minted into the pool's base vault, then the mint authority is removed. The mint never has a
//! freeze authority. An optional first buy by the creator is a `swap` in the same transaction.

use crate::constants::*;
use crate::errors::{CurveResultExt, LaunchpadError};
use crate::events::EvtCreateLaunch;
use crate::state::{Config, Pool, PoolStatus};
use anchor_lang::prelude::*;
use anchor_lang::system_program;
use anchor_spl::token_2022::spl_token_2022::{
    extension::{BaseStateWithExtensions, StateWithExtensions},
    instruction::AuthorityType,
    state::Mint as SplMint,
};
use anchor_spl::token_interface::{
    self, spl_pod::optional_keys::OptionalNonZeroPubkey,
    spl_token_metadata_interface::state::TokenMetadata, Mint, MintTo, SetAuthority, Token2022,
    TokenAccount, TokenInterface, TokenMetadataInitialize, TokenMetadataUpdateAuthority,
};
use curve::SafeMath;

#[derive(AnchorSerialize, AnchorDeserialize, Clone, Debug, PartialEq, Eq)]
pub struct CreateLaunchArgs {
    /// 1 to 32 characters.
    pub name: String,
    /// 1 to 10 uppercase ASCII letters or digits.
    pub symbol: String,
    /// Metadata JSON location, 1 to 200 bytes.
    pub uri: String,
    /// Any value the creator has not used before; the mint is `["mint", creator, salt]`.
    pub salt: u64,
}

#[event_cpi]
#[derive(Accounts)]
#[instruction(args: CreateLaunchArgs)]
pub struct CreateLaunch<'info> {
    #[account(mut)]
    pub creator: Signer<'info>,
    pub config: Box<Account<'info, Config>>,
    /// CHECK: PDA that holds the mint and metadata authorities for the length of this instruction only.
    #[account(seeds = [MINT_AUTHORITY_SEED], bump)]
    pub mint_authority: UncheckedAccount<'info>,
    #[account(
        init,
        payer = creator,
        seeds = [MINT_SEED, creator.key().as_ref(), &args.salt.to_le_bytes()],
        bump,
        mint::decimals = TOKEN_DECIMALS,
        mint::authority = mint_authority,
        mint::token_program = base_token_program,
        extensions::metadata_pointer::metadata_address = mint,
    )]
    pub mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(
        init,
        payer = creator,
        space = 8 + Pool::INIT_SPACE,
        seeds = [POOL_SEED, mint.key().as_ref()],
        bump,
    )]
    pub pool: Box<Account<'info, Pool>>,
    #[account(
        init,
        payer = creator,
        seeds = [BASE_VAULT_SEED, pool.key().as_ref()],
        bump,
        token::mint = mint,
        token::authority = pool,
        token::token_program = base_token_program,
    )]
    pub base_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    #[account(address = config.quote_mint @ LaunchpadError::InvalidQuoteMint)]
    pub quote_mint: Box<InterfaceAccount<'info, Mint>>,
    #[account(
        init,
        payer = creator,
        seeds = [QUOTE_VAULT_SEED, pool.key().as_ref()],
        bump,
        token::mint = quote_mint,
        token::authority = pool,
        token::token_program = quote_token_program,
    )]
    pub quote_vault: Box<InterfaceAccount<'info, TokenAccount>>,
    pub base_token_program: Program<'info, Token2022>,
    pub quote_token_program: Interface<'info, TokenInterface>,
    pub system_program: Program<'info, System>,
}

/// Checks name, symbol and URI against the launch rules.
pub fn validate_metadata(name: &str, symbol: &str, uri: &str) -> Result<()> {
    let chars = name.chars().count();
    require!(
        chars >= 1 && chars <= MAX_NAME_CHARS as usize && !name.chars().any(char::is_control),
        LaunchpadError::InvalidName
    );
    require!(
        !symbol.is_empty()
            && symbol.len() <= MAX_SYMBOL_CHARS as usize
            && symbol
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
        LaunchpadError::InvalidSymbol
    );
    require!(
        !uri.is_empty()
            && uri.len() <= MAX_URI_BYTES as usize
            && !uri.chars().any(char::is_control),
        LaunchpadError::InvalidUri
    );
    Ok(())
}

pub fn handler(ctx: Context<CreateLaunch>, args: CreateLaunchArgs) -> Result<()> {
    validate_metadata(&args.name, &args.symbol, &args.uri)?;
    let accounts = &ctx.accounts;
    let config = &accounts.config;
    require!(!config.disabled, LaunchpadError::ConfigDisabled);
    let now = Clock::get()?.unix_timestamp;

    let mint_info = accounts.mint.to_account_info();
    let authority = accounts.mint_authority.to_account_info();
    let token_program = accounts.base_token_program.to_account_info();
    let bump = [ctx.bumps.mint_authority];
    let seeds: &[&[u8]] = &[MINT_AUTHORITY_SEED, &bump];
    let signer: &[&[&[u8]]] = &[seeds];

    // Token-2022 grows the mint for the metadata but moves no lamports: top it up to rent exemption first.
    let metadata = TokenMetadata {
        update_authority: OptionalNonZeroPubkey(authority.key()),
        mint: mint_info.key(),
        name: args.name.clone(),
        symbol: args.symbol.clone(),
        uri: args.uri.clone(),
        additional_metadata: vec![],
    };
    let new_len = {
        let data = mint_info.try_borrow_data()?;
        StateWithExtensions::<SplMint>::unpack(&data)?
            .try_get_new_account_len_for_variable_len_extension(&metadata)?
    };
    let shortfall = Rent::get()?
        .minimum_balance(new_len)
        .saturating_sub(mint_info.lamports());
    if shortfall > 0 {
        system_program::transfer(
            CpiContext::new(
                accounts.system_program.key(),
                system_program::Transfer {
                    from: accounts.creator.to_account_info(),
                    to: mint_info.clone(),
                },
            ),
            shortfall,
        )?;
    }
    token_interface::token_metadata_initialize(
        CpiContext::new_with_signer(
            token_program.key(),
            TokenMetadataInitialize {
                program_id: token_program.clone(),
                metadata: mint_info.clone(),
                update_authority: authority.clone(),
                mint_authority: authority.clone(),
                mint: mint_info.clone(),
            },
            signer,
        ),
        args.name.clone(),
        args.symbol.clone(),
        args.uri.clone(),
    )?;
    // Immutable metadata: no update authority.
    token_interface::token_metadata_update_authority(
        CpiContext::new_with_signer(
            token_program.key(),
            TokenMetadataUpdateAuthority {
                program_id: token_program.clone(),
                metadata: mint_info.clone(),
                current_authority: authority.clone(),
                new_authority: authority.clone(),
            },
            signer,
        ),
        OptionalNonZeroPubkey::default(),
    )?;
    // The whole supply into the pool, then no mint authority ever again.
    let supply = config
        .sale_supply
        .safe_add(config.migration_supply)
        .or_launchpad()?;
    token_interface::mint_to(
        CpiContext::new_with_signer(
            token_program.key(),
            MintTo {
                mint: mint_info.clone(),
                to: accounts.base_vault.to_account_info(),
                authority: authority.clone(),
            },
            signer,
        ),
        supply,
    )?;
    token_interface::set_authority(
        CpiContext::new_with_signer(
            token_program.key(),
            SetAuthority {
                current_authority: authority.clone(),
                account_or_mint: mint_info.clone(),
            },
            signer,
        ),
        AuthorityType::MintTokens,
        None,
    )?;

    let segments = config.curve_segments();
    let state = config.market(&segments).initial_state().or_launchpad()?;
    let pool_key = accounts.pool.key();
    let event = EvtCreateLaunch {
        pool: pool_key,
        config: config.key(),
        mint: mint_info.key(),
        creator: accounts.creator.key(),
        quote_mint: accounts.quote_mint.key(),
        base_vault: accounts.base_vault.key(),
        quote_vault: accounts.quote_vault.key(),
        preset: config.preset,
        quote: config.quote,
        name: args.name,
        symbol: args.symbol,
        uri: args.uri,
        salt: args.salt,
        sqrt_price: state.sqrt_price,
        base_reserve: state.base_reserve,
        quote_reserve: state.quote_reserve,
        launch_timestamp: now,
    };
    let pool = &mut ctx.accounts.pool;
    pool.set_inner(Pool {
        config: event.config,
        creator: event.creator,
        base_mint: event.mint,
        quote_mint: event.quote_mint,
        base_vault: event.base_vault,
        quote_vault: event.quote_vault,
        status: PoolStatus::Bonding,
        sqrt_price: state.sqrt_price,
        base_reserve: state.base_reserve,
        quote_reserve: state.quote_reserve,
        creator_fee_unclaimed: 0,
        partner_fee_unclaimed: 0,
        creator_fee_claimed: 0,
        partner_fee_claimed: 0,
        launch_timestamp: now,
        complete_timestamp: 0,
        salt: args.salt,
        bump: ctx.bumps.pool,
        amm_pool: Pubkey::default(),
        migrate_timestamp: 0,
        migrated_base: 0,
        migrated_quote: 0,
        burnt_base: 0,
        creator_surplus_unclaimed: 0,
        partner_surplus_unclaimed: 0,
        creator_surplus_claimed: false,
        partner_surplus_claimed: false,
        pending_creator: Pubkey::default(),
        fee_shared: false,
    });
    emit_cpi!(event);
    Ok(())
}
