//! The launchpad's administration against any cluster over JSON-RPC: what `launchpad-admin` runs. Every action
//! first reads the chain and does nothing when the wanted state is already there, so a rerun is harmless.

use anchor_lang::solana_program::instruction::Instruction;
use anchor_lang::AccountDeserialize;
use anyhow::{bail, Context};
use curve::{Preset, QuoteAsset};
use launchpad::{Config, Global};
use sdk::launchpad_ix as lix;
use sdk::pda;
use solana_keypair::Keypair;
use solana_pubkey::Pubkey;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signature::Signature;
use solana_signer::Signer;
use solana_transaction::Transaction;

/// What one step did: the signature of the transaction it sent, or why it sent none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Sent(String, Signature),
    Skipped(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Sent(what, sig) => write!(f, "{what}: {sig}"),
            Outcome::Skipped(why) => write!(f, "{why}: nothing to do"),
        }
    }
}

async fn send(
    rpc: &RpcClient,
    signer: &Keypair,
    ix: Instruction,
    what: String,
) -> anyhow::Result<Outcome> {
    send_all(rpc, signer, &[ix], what).await
}

/// `ixs` in one transaction: all land or none does.
async fn send_all(
    rpc: &RpcClient,
    signer: &Keypair,
    ixs: &[Instruction],
    what: String,
) -> anyhow::Result<Outcome> {
    let blockhash = rpc.get_latest_blockhash().await?;
    let tx = Transaction::new_signed_with_payer(ixs, Some(&signer.pubkey()), &[signer], blockhash);
    let sig = rpc
        .send_and_confirm_transaction(&tx)
        .await
        .with_context(|| what.clone())?;
    Ok(Outcome::Sent(what, sig))
}

async fn read<T: AccountDeserialize>(
    rpc: &RpcClient,
    address: &Pubkey,
) -> anyhow::Result<Option<T>> {
    let accounts = rpc.get_multiple_accounts(&[*address]).await?;
    match accounts.into_iter().next().flatten() {
        None => Ok(None),
        Some(a) => Ok(Some(T::try_deserialize(&mut a.data.as_slice())?)),
    }
}

/// The global state, if the program is initialized.
pub async fn global(rpc: &RpcClient) -> anyhow::Result<Option<Global>> {
    read(rpc, &pda::global()).await
}

/// The config of (preset, quote), if created.
pub async fn config(
    rpc: &RpcClient,
    preset: Preset,
    quote: QuoteAsset,
    usdc_mint: &Pubkey,
) -> anyhow::Result<Option<Config>> {
    read(
        rpc,
        &pda::config(preset as u8, &quote_mint(quote, usdc_mint)),
    )
    .await
}

fn quote_mint(quote: QuoteAsset, usdc_mint: &Pubkey) -> Pubkey {
    match quote {
        QuoteAsset::Sol => sdk::ids::NATIVE_MINT,
        QuoteAsset::Usdc => *usdc_mint,
    }
}

/// Initializes the launchpad with `signer` (its upgrade authority) as admin; refuses to run against a global
/// state that names another partner or USDC mint.
pub async fn initialize(
    rpc: &RpcClient,
    signer: &Keypair,
    partner: &Pubkey,
    usdc_mint: &Pubkey,
) -> anyhow::Result<Outcome> {
    if let Some(g) = global(rpc).await? {
        if g.partner != *partner || g.usdc_mint != *usdc_mint {
            bail!(
                "already initialized with partner {} and USDC mint {}, not {partner} and {usdc_mint}",
                g.partner,
                g.usdc_mint
            );
        }
        return Ok(Outcome::Skipped("initialize: already initialized".into()));
    }
    let ix = lix::initialize(
        &signer.pubkey(),
        partner,
        usdc_mint,
        Some(lix::program_data_address()),
    );
    send(rpc, signer, ix, "initialize".into()).await
}

/// Creates every preset config that does not exist yet, with the USDC mint pinned in the global state.
pub async fn create_configs(rpc: &RpcClient, signer: &Keypair) -> anyhow::Result<Vec<Outcome>> {
    let g = global(rpc)
        .await?
        .context("not initialized: run `initialize` first")?;
    let mut out = Vec::new();
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let what = format!("config {} {}", preset.name(), quote.name());
            if config(rpc, preset, quote, &g.usdc_mint).await?.is_some() {
                out.push(Outcome::Skipped(format!("{what}: exists")));
                continue;
            }
            let ix = lix::create_preset_config(
                &signer.pubkey(),
                preset,
                quote,
                &quote_mint(quote, &g.usdc_mint),
            )
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            out.push(send(rpc, signer, ix, what).await?);
        }
    }
    Ok(out)
}

/// Disables (or re-enables) the config of (preset, quote) for new launches.
pub async fn set_disabled(
    rpc: &RpcClient,
    signer: &Keypair,
    preset: Preset,
    quote: QuoteAsset,
    disabled: bool,
) -> anyhow::Result<Outcome> {
    let g = global(rpc).await?.context("not initialized")?;
    let what = format!(
        "config {} {} disabled={disabled}",
        preset.name(),
        quote.name()
    );
    let c = config(rpc, preset, quote, &g.usdc_mint)
        .await?
        .with_context(|| format!("{what}: no such config"))?;
    if c.disabled == disabled {
        return Ok(Outcome::Skipped(what));
    }
    let address = pda::config(preset as u8, &quote_mint(quote, &g.usdc_mint));
    send(
        rpc,
        signer,
        lix::set_config_disabled(&signer.pubkey(), &address, disabled),
        what,
    )
    .await
}

/// Proposes `new` as admin (or partner), unless it already is or is already proposed.
pub async fn propose(
    rpc: &RpcClient,
    signer: &Keypair,
    role: Role,
    new: &Pubkey,
) -> anyhow::Result<Outcome> {
    let g = global(rpc).await?.context("not initialized")?;
    let (current, pending) = role.of(&g);
    let what = format!("propose {} {new}", role.name());
    if current == *new || pending == Some(*new) {
        return Ok(Outcome::Skipped(what));
    }
    let ix = match role {
        Role::Admin => lix::propose_admin(&signer.pubkey(), new),
        Role::Partner => lix::propose_partner(&signer.pubkey(), new),
    };
    send(rpc, signer, ix, what).await
}

/// The signer accepts the admin (or partner) role proposed to it. A partner's acceptance and the sync of every
/// config that still names another partner go in one transaction: there is no moment when the new partner holds
/// the role while a config still pays the outgoing key (often rotated because it leaked).
pub async fn accept(rpc: &RpcClient, signer: &Keypair, role: Role) -> anyhow::Result<Vec<Outcome>> {
    let g = global(rpc).await?.context("not initialized")?;
    let (current, pending) = role.of(&g);
    let me = signer.pubkey();
    let mut out = Vec::new();
    let mut ixs = Vec::new();
    let mut what = Vec::new();
    if current == me {
        out.push(Outcome::Skipped(format!(
            "accept {}: already {}",
            role.name(),
            role.name()
        )));
    } else if pending != Some(me) {
        bail!("{me} is not the proposed {}", role.name());
    } else {
        ixs.push(match role {
            Role::Admin => lix::accept_admin(&me),
            Role::Partner => lix::accept_partner(&me),
        });
        what.push(format!("accept {}", role.name()));
    }
    if role == Role::Partner {
        for preset in Preset::ALL {
            for quote in QuoteAsset::ALL {
                let step = format!("sync partner of config {} {}", preset.name(), quote.name());
                match config(rpc, preset, quote, &g.usdc_mint).await? {
                    Some(c) if c.partner != me => {
                        let address = pda::config(preset as u8, &quote_mint(quote, &g.usdc_mint));
                        ixs.push(lix::sync_config_partner(&address));
                        what.push(step);
                    }
                    _ => out.push(Outcome::Skipped(step)),
                }
            }
        }
    }
    if !ixs.is_empty() {
        out.push(send_all(rpc, signer, &ixs, what.join(", ")).await?);
    }
    Ok(out)
}

/// A role handed over in two steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Admin,
    Partner,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Partner => "partner",
        }
    }

    fn of(self, g: &Global) -> (Pubkey, Option<Pubkey>) {
        match self {
            Role::Admin => (g.admin, g.pending_admin),
            Role::Partner => (g.partner, g.pending_partner),
        }
    }
}

/// The global state and the six configs, as text.
pub async fn show(rpc: &RpcClient) -> anyhow::Result<String> {
    let Some(g) = global(rpc).await? else {
        return Ok("not initialized\n".into());
    };
    let mut out = format!(
        "admin            {}\npending admin    {:?}\npartner          {}\npending partner  {:?}\nSOL mint         {}\nUSDC mint        {}\n",
        g.admin, g.pending_admin, g.partner, g.pending_partner, g.sol_mint, g.usdc_mint
    );
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let state = match config(rpc, preset, quote, &g.usdc_mint).await? {
                None => "missing".to_string(),
                Some(c) => format!(
                    "partner {}{}",
                    c.partner,
                    if c.disabled { ", disabled" } else { "" }
                ),
            };
            out += &format!("config {:<10} {:<4} {state}\n", preset.name(), quote.name());
        }
    }
    Ok(out)
}
