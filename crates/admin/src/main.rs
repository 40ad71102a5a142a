//! `launchpad-admin`: sets up and administers the launchpad on a real cluster (or the localnet) over JSON-RPC,
//! signing with a Solana CLI keypair file the operator names. Prints each transaction's signature; reruns do
//! nothing twice.
//!
//! ```text
//! launchpad-admin --url https://api.devnet.solana.com --keypair ~/.config/solana/deployer.json initialize --partner <KEY> --usdc-mint <MINT>
//! launchpad-admin ... configs                     # creates the six preset configs that are missing
//! launchpad-admin ... disable fair usdc           # (enable fair usdc) new launches on a config
//! launchpad-admin ... propose-admin <KEY> | accept-admin | propose-partner <KEY> | accept-partner
//! launchpad-admin --url ... show
//! launchpad-admin hide-comment 42 --by alice --reason spam --database-url postgres://...
//! launchpad-admin hide-wallet <WALLET> --by alice --reason "scam links" --database-url postgres://...
//! launchpad-admin unhide-comment 42 --by alice --reason "appeal granted" --database-url postgres://...
//! launchpad-admin unhide-wallet <WALLET> --by alice --reason "appeal granted" --database-url postgres://...
//! ```

use anyhow::Context;
use clap::{Parser, Subcommand};
use curve::{Preset, QuoteAsset};
use index::store::comments::Unhidden;
use launchpad_admin::{self as admin, Role};
use solana_commitment_config::CommitmentConfig;
use solana_pubkey::Pubkey;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;

/// `--version`: the version and the commit it was built from (`LAUNCHPAD_COMMIT` in the build's environment,
/// as deploy/Containerfile sets it: docs/deploying.md). Read by the binary alone, so a new commit rebuilds
/// only the binary.
fn version() -> &'static str {
    let commit = option_env!("LAUNCHPAD_COMMIT").unwrap_or("unknown");
    Box::leak(format!("{} (commit {commit})", env!("CARGO_PKG_VERSION")).into_boxed_str())
}

#[derive(Parser)]
#[command(version = version(), about = "Administers the launchpad over JSON-RPC")]
struct Args {
    /// JSON-RPC URL of the cluster.
    #[arg(long, env = "RPC_URL", default_value = "http://127.0.0.1:8899")]
    url: String,
    /// Solana CLI keypair file that signs (and pays); not needed for `show`.
    #[arg(long, env = "ADMIN_KEYPAIR")]
    keypair: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Initializes the launchpad (the keypair must be its upgrade authority).
    Initialize {
        #[arg(long)]
        partner: Pubkey,
        #[arg(long)]
        usdc_mint: Pubkey,
    },
    /// Creates every preset config that is missing.
    Configs,
    /// Stops new launches on a config (`fair|distribute|shield` `sol|usdc`).
    Disable {
        preset: String,
        quote: String,
    },
    /// Resumes new launches on a config.
    Enable {
        preset: String,
        quote: String,
    },
    ProposeAdmin {
        new_admin: Pubkey,
    },
    AcceptAdmin,
    ProposePartner {
        new_partner: Pubkey,
    },
    /// Accepts the partner role, then gives every config the new partner.
    AcceptPartner,
    /// Prints the global state and the configs.
    Show,
    /// Adds a new route key to the index (the keys API replicas seal quoted routes with, shared through the
    /// database) and keeps only the one before it. The new key verifies on a replica once it restarts and
    /// signs 600 s after it was made: restart every replica within that. Needs no keypair; prints no secret.
    RotateRouteKeys {
        /// The index: postgres://user:password@host/database or sqlite://path.
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Hides a comment (or reply) from every reader; recorded with who, when and why, never deleted.
    HideComment {
        /// The comment's id (`id` in the API's comment lists).
        id: i64,
        /// Who hides it (recorded).
        #[arg(long)]
        by: String,
        /// Why (recorded).
        #[arg(long)]
        reason: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Hides every comment of a wallet, past and future (it can no longer post); recorded, never deleted.
    HideWallet {
        wallet: Pubkey,
        #[arg(long)]
        by: String,
        #[arg(long)]
        reason: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Shows a hidden comment again (the reverse of `hide-comment`); recorded with who, when and why beside
    /// the hide's record.
    UnhideComment {
        id: i64,
        #[arg(long)]
        by: String,
        #[arg(long)]
        reason: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
    /// Shows a hidden wallet's comments again and lets it post (the reverse of `hide-wallet`); recorded.
    UnhideWallet {
        wallet: Pubkey,
        #[arg(long)]
        by: String,
        #[arg(long)]
        reason: String,
        #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
        database_url: String,
    },
}

fn preset_quote(preset: &str, quote: &str) -> anyhow::Result<(Preset, QuoteAsset)> {
    Ok((
        Preset::from_name(preset).with_context(|| format!("unknown preset {preset:?}"))?,
        QuoteAsset::from_name(quote).with_context(|| format!("unknown quote {quote:?}"))?,
    ))
}

/// The moderation commands (they need the index, not a keypair): what they did, or `None` for another
/// command.
async fn moderate(command: &Command) -> anyhow::Result<Option<String>> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs() as i64;
    let (database_url, by, reason) = match command {
        Command::HideComment {
            database_url,
            by,
            reason,
            ..
        }
        | Command::HideWallet {
            database_url,
            by,
            reason,
            ..
        }
        | Command::UnhideComment {
            database_url,
            by,
            reason,
            ..
        }
        | Command::UnhideWallet {
            database_url,
            by,
            reason,
            ..
        } => (database_url, by, reason),
        _ => return Ok(None),
    };
    anyhow::ensure!(
        !by.trim().is_empty() && !reason.trim().is_empty(),
        "--by and --reason are recorded with the action: both are required"
    );
    let (by, reason) = (by.trim(), reason.trim());
    let store = index::Store::connect(database_url).await?;
    Ok(Some(match command {
        Command::HideComment { id, .. } => {
            if !store.hide_comment(*id, by, reason, now).await? {
                anyhow::bail!("no comment {id}");
            }
            format!("comment {id} hidden by {by}: {reason}")
        }
        Command::HideWallet { wallet, .. } => {
            let wallet = wallet.to_string();
            if store.hide_wallet(&wallet, by, reason, now).await? {
                format!("wallet {wallet} hidden by {by}: {reason}")
            } else {
                format!("wallet {wallet} was hidden already: nothing to do")
            }
        }
        Command::UnhideComment { id, .. } => {
            match store.unhide_comment(*id, by, reason, now).await? {
                Unhidden::Missing => anyhow::bail!("no comment {id}"),
                Unhidden::NotHidden => format!("comment {id} is not hidden: nothing to do"),
                Unhidden::Shown {
                    wallet_hidden: false,
                } => format!("comment {id} unhidden by {by}: {reason}"),
                Unhidden::Shown {
                    wallet_hidden: true,
                } => format!(
                    "comment {id} unhidden by {by}: {reason} (its wallet is still hidden: \
                     unhide-wallet shows it)"
                ),
            }
        }
        Command::UnhideWallet { wallet, .. } => {
            let wallet = wallet.to_string();
            if store.unhide_wallet(&wallet, by, reason, now).await? {
                format!("wallet {wallet} unhidden by {by}: {reason}")
            } else {
                format!("wallet {wallet} is not hidden: nothing to do")
            }
        }
        _ => unreachable!("matched above"),
    }))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rpc = RpcClient::new_with_commitment(args.url.clone(), CommitmentConfig::confirmed());
    if let Command::Show = args.command {
        print!("{}", admin::show(&rpc).await?);
        return Ok(());
    }
    if let Command::RotateRouteKeys { database_url } = &args.command {
        let store = index::Store::connect(database_url).await?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs() as i64;
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let keys = store.rotate_route_key(&secret, now).await?;
        println!(
            "route key {} added (kept: {}); it signs 600 s from now: restart every API replica before then",
            keys[0].id,
            keys.iter().map(|k| k.id.to_string()).collect::<Vec<_>>().join(", ")
        );
        return Ok(());
    }
    if let Some(done) = moderate(&args.command).await? {
        println!("{done}");
        return Ok(());
    }
    let path = args
        .keypair
        .context("--keypair (or ADMIN_KEYPAIR) names the signing keypair file")?;
    let signer = solana_keypair::read_keypair_file(&path)
        .map_err(|e| anyhow::anyhow!("reading keypair {}: {e}", path.display()))?;
    let outcomes = match args.command {
        Command::Initialize { partner, usdc_mint } => {
            vec![admin::initialize(&rpc, &signer, &partner, &usdc_mint).await?]
        }
        Command::Configs => admin::create_configs(&rpc, &signer).await?,
        Command::Disable { preset, quote } => {
            let (p, q) = preset_quote(&preset, &quote)?;
            vec![admin::set_disabled(&rpc, &signer, p, q, true).await?]
        }
        Command::Enable { preset, quote } => {
            let (p, q) = preset_quote(&preset, &quote)?;
            vec![admin::set_disabled(&rpc, &signer, p, q, false).await?]
        }
        Command::ProposeAdmin { new_admin } => {
            vec![admin::propose(&rpc, &signer, Role::Admin, &new_admin).await?]
        }
        Command::AcceptAdmin => admin::accept(&rpc, &signer, Role::Admin).await?,
        Command::ProposePartner { new_partner } => {
            vec![admin::propose(&rpc, &signer, Role::Partner, &new_partner).await?]
        }
        Command::AcceptPartner => admin::accept(&rpc, &signer, Role::Partner).await?,
        Command::Show
        | Command::RotateRouteKeys { .. }
        | Command::HideComment { .. }
        | Command::HideWallet { .. }
        | Command::UnhideComment { .. }
        | Command::UnhideWallet { .. } => unreachable!("handled above"),
    };
    for o in outcomes {
        println!("{o}");
    }
    Ok(())
}
