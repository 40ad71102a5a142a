//! What a fresh localnet sets up: an admin and a partner (fresh keys every run, never written to the
//! repository), a local USDC-like mint (6 decimals), the launchpad deployed as if through the upgradeable loader
//! with the admin as its upgrade authority and initialized by it (pinning that mint), and one config per
//! preset x quote, pinned in `crates/curve`.

use crate::chain::Chain;
use anyhow::{anyhow, Context};
use curve::{Preset, QuoteAsset};
use sdk::launchpad_ix as lix;
use solana_keypair::Keypair;
use solana_pubkey::Pubkey;
use solana_signer::Signer;
use solana_transaction::{versioned::VersionedTransaction, Transaction};

/// Keys and addresses a bootstrapped localnet runs with.
pub struct Bootstrap {
    /// The launchpad's upgrade authority (and, once initialized, its admin).
    pub admin: Pubkey,
    pub partner: Keypair,
    pub usdc_mint: Pubkey,
    pub usdc_authority: Keypair,
}

fn send(
    chain: &mut Chain,
    ixs: &[anchor_lang::solana_program::instruction::Instruction],
    signers: &[&Keypair],
) -> anyhow::Result<()> {
    let (blockhash, _) = chain.latest_blockhash();
    let tx =
        Transaction::new_signed_with_payer(ixs, Some(&signers[0].pubkey()), signers, blockhash);
    let record = chain
        .process(VersionedTransaction::from(tx))
        .map_err(|e| anyhow!("transaction refused: {e}"))?;
    record.meta.status.clone().map_err(|e| {
        anyhow!(
            "transaction failed: {e}; logs: {:?}",
            record.meta.log_messages
        )
    })
}

/// The launchpad's program account as the upgradeable loader's `Program`, pointing at a program-data account
/// that names `authority` as upgrade authority (deployed at slot 0, so the natively loaded program stays the
/// one the program cache runs; [`crate::upgradeable_loader`] runs it). The program tests use these too.
pub fn upgradeable_launchpad_accounts(
    authority: Option<Pubkey>,
) -> anyhow::Result<[(Pubkey, solana_account::Account); 2]> {
    use anchor_lang::solana_program::bpf_loader_upgradeable::{
        self as loader, UpgradeableLoaderState,
    };
    let rent = solana_rent::Rent::default();
    let program_data = lix::program_data_address();
    let account = |state: UpgradeableLoaderState, executable: bool| -> anyhow::Result<_> {
        let data = bincode::serialize(&state)?;
        Ok(solana_account::Account {
            lamports: rent.minimum_balance(data.len()),
            data,
            owner: loader::ID,
            executable,
            rent_epoch: 0,
        })
    };
    Ok([
        (
            launchpad::ID,
            account(
                UpgradeableLoaderState::Program {
                    programdata_address: program_data,
                },
                true,
            )?,
        ),
        (
            program_data,
            account(
                UpgradeableLoaderState::ProgramData {
                    slot: 0,
                    upgrade_authority_address: authority,
                },
                false,
            )?,
        ),
    ])
}

/// A fresh USDC-like classic mint (6 decimals) paid by `payer`, with a new mint authority.
fn create_usdc_mint(chain: &mut Chain, payer: &Keypair) -> anyhow::Result<(Pubkey, Keypair)> {
    let usdc_authority = Keypair::new();
    let usdc = Keypair::new();
    let token = anchor_spl::token::ID;
    let len = anchor_spl::token::spl_token::state::Mint::LEN;
    let ixs = [
        solana_system_interface::instruction::create_account(
            &payer.pubkey(),
            &usdc.pubkey(),
            chain.minimum_balance(len),
            len as u64,
            &token,
        ),
        anchor_spl::token::spl_token::instruction::initialize_mint2(
            &token,
            &usdc.pubkey(),
            &usdc_authority.pubkey(),
            None,
            6,
        )?,
    ];
    send(chain, &ixs, &[payer, &usdc]).context("creating the USDC mint")?;
    Ok((usdc.pubkey(), usdc_authority))
}

/// A chain as a fresh cluster deployment leaves it: the launchpad deployed (upgradeable, `authority` its
/// upgrade authority), a USDC-like mint, nothing initialized.
pub fn deploy_only(chain: &mut Chain, authority: Pubkey) -> anyhow::Result<Bootstrap> {
    let payer = Keypair::new();
    let partner = Keypair::new();
    chain
        .airdrop(&payer.pubkey(), 10 * 1_000_000_000)
        .map_err(|e| anyhow!("{e}"))?;
    let (usdc_mint, usdc_authority) = create_usdc_mint(chain, &payer)?;
    for (address, account) in upgradeable_launchpad_accounts(Some(authority))? {
        chain.bank().store_account(&address, &account.into());
    }
    Ok(Bootstrap {
        admin: authority,
        partner,
        usdc_mint,
        usdc_authority,
    })
}

pub fn bootstrap(chain: &mut Chain) -> anyhow::Result<Bootstrap> {
    let admin = Keypair::new();
    let partner = Keypair::new();
    chain
        .airdrop(&admin.pubkey(), 1_000 * 1_000_000_000)
        .map_err(|e| anyhow!("{e}"))?;
    chain
        .airdrop(&partner.pubkey(), 10 * 1_000_000_000)
        .map_err(|e| anyhow!("{e}"))?;
    let (usdc_mint, usdc_authority) = create_usdc_mint(chain, &admin)?;
    for (address, account) in upgradeable_launchpad_accounts(Some(admin.pubkey()))? {
        chain.bank().store_account(&address, &account.into());
    }
    send(
        chain,
        &[lix::initialize(
            &admin.pubkey(),
            &partner.pubkey(),
            &usdc_mint,
            Some(lix::program_data_address()),
        )],
        &[&admin],
    )
    .context("initializing the launchpad")?;
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let mint = match quote {
                QuoteAsset::Sol => sdk::ids::NATIVE_MINT,
                QuoteAsset::Usdc => usdc_mint,
            };
            let ix = lix::create_preset_config(&admin.pubkey(), preset, quote, &mint)
                .map_err(|e| anyhow!("{e}"))?;
            send(chain, &[ix], &[&admin])
                .with_context(|| format!("config {} {}", preset.name(), quote.name()))?;
        }
    }
    Ok(Bootstrap {
        admin: admin.pubkey(),
        partner,
        usdc_mint,
        usdc_authority,
    })
}

use anchor_lang::solana_program::program_pack::Pack as _;
