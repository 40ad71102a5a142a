//! A wallet's-eye toolkit for tests and examples that drive a running chain over JSON-RPC: funded
//! keypairs, sending transactions, and the launchpad actions (launch, buy, sell, migrate, claims, AMM swaps)
//! built with the SDK, as a wallet would.

use anchor_lang::solana_program::instruction::Instruction;
use curve::Preset;
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY, SIDE_SELL};
use solana_keypair::Keypair;
use solana_pubkey::Pubkey;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signature::Signature;
use solana_signer::Signer;
use solana_transaction::Transaction;

pub const SOL: u64 = 1_000_000_000;

/// A loopback port free at the moment of asking (for a process a test starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Signs with `signers` (the first pays) and waits for confirmation.
pub async fn send(
    rpc: &RpcClient,
    ixs: &[Instruction],
    signers: &[&Keypair],
) -> anyhow::Result<Signature> {
    let blockhash = rpc.get_latest_blockhash().await?;
    let tx =
        Transaction::new_signed_with_payer(ixs, Some(&signers[0].pubkey()), signers, blockhash);
    Ok(rpc.send_and_confirm_transaction(&tx).await?)
}

/// A new keypair holding `lamports` from the faucet.
pub async fn funded(rpc: &RpcClient, lamports: u64) -> anyhow::Result<Keypair> {
    let k = Keypair::new();
    let sig = rpc.request_airdrop(&k.pubkey(), lamports).await?;
    anyhow::ensure!(
        rpc.confirm_transaction(&sig).await?,
        "airdrop not confirmed"
    );
    Ok(k)
}

pub use sdk::launchpad_ix::{wrap_sol, wsol_account};

/// Launches a `preset` token against SOL.
pub async fn launch(
    rpc: &RpcClient,
    creator: &Keypair,
    preset: Preset,
    salt: u64,
    symbol: &str,
) -> anyhow::Result<(LaunchKeys, Signature)> {
    let keys = LaunchKeys::derive(creator.pubkey(), salt, preset as u8, sdk::ids::NATIVE_MINT);
    let args = CreateLaunchArgs {
        name: format!("{symbol} Token"),
        symbol: symbol.into(),
        uri: format!("https://example.org/{symbol}.json"),
        salt,
    };
    let sig = send(rpc, &[lix::create_launch(&keys, args)], &[creator]).await?;
    Ok((keys, sig))
}

/// The instructions of a buy with `lamports` of SOL (wrapped in the same transaction).
pub fn buy_instructions(keys: &LaunchKeys, buyer: &Pubkey, lamports: u64) -> Vec<Instruction> {
    let mut ixs = wrap_sol(buyer, lamports);
    ixs.push(lix::create_ata_idempotent(
        buyer,
        buyer,
        &keys.mint,
        &sdk::ids::TOKEN_2022_PROGRAM,
    ));
    ixs.push(lix::swap_with_ata(
        keys,
        buyer,
        SwapArgs {
            side: SIDE_BUY,
            amount_in: lamports,
            min_amount_out: 1,
        },
    ));
    ixs
}

/// Buys with `lamports` of SOL (wrapped in the same transaction).
pub async fn buy(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    buyer: &Keypair,
    lamports: u64,
) -> anyhow::Result<Signature> {
    let ixs = buy_instructions(keys, &buyer.pubkey(), lamports);
    send(rpc, &ixs, &[buyer]).await
}

/// Sells `tokens` base units for wrapped SOL.
pub async fn sell(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    seller: &Keypair,
    tokens: u64,
) -> anyhow::Result<Signature> {
    let ixs = [
        lix::create_ata_idempotent(
            &seller.pubkey(),
            &seller.pubkey(),
            &sdk::ids::NATIVE_MINT,
            &sdk::ids::TOKEN_PROGRAM,
        ),
        lix::swap_with_ata(
            keys,
            &seller.pubkey(),
            SwapArgs {
                side: SIDE_SELL,
                amount_in: tokens,
                min_amount_out: 0,
            },
        ),
    ];
    send(rpc, &ixs, &[seller]).await
}

/// The token balance of `owner`'s associated account for `mint` (0 if it has none).
pub async fn token_balance(
    rpc: &RpcClient,
    owner: &Pubkey,
    mint: &Pubkey,
    program: &Pubkey,
) -> u64 {
    let ata = sdk::associated_token_address(owner, mint, program);
    match rpc.get_token_account_balance(&ata).await {
        Ok(b) => b.amount.parse().unwrap_or(0),
        Err(_) => 0,
    }
}

/// Migrates a completed pool (permissionless).
pub async fn migrate(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    migrator: &Keypair,
) -> anyhow::Result<Signature> {
    send(rpc, &[lix::migrate(keys, &migrator.pubkey())], &[migrator]).await
}

/// Sends `claim` (built for the claimer's wrapped-SOL account), creating that account first if needed.
async fn claim_into_wsol(
    rpc: &RpcClient,
    claimer: &Keypair,
    claim: impl FnOnce(&Pubkey, &Pubkey) -> Instruction,
) -> anyhow::Result<Signature> {
    let owner = claimer.pubkey();
    let ixs = [
        lix::create_ata_idempotent(
            &owner,
            &owner,
            &sdk::ids::NATIVE_MINT,
            &sdk::ids::TOKEN_PROGRAM,
        ),
        claim(&owner, &wsol_account(&owner)),
    ];
    send(rpc, &ixs, &[claimer]).await
}

/// Claims `claimer`'s bonding-phase trading fees (creator or partner) into its wrapped-SOL account.
pub async fn claim_trading_fee(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    claimer: &Keypair,
) -> anyhow::Result<Signature> {
    claim_into_wsol(rpc, claimer, |c, a| lix::claim_trading_fee(keys, c, a)).await
}

/// Claims `claimer`'s share of the migration surplus.
pub async fn claim_surplus(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    claimer: &Keypair,
) -> anyhow::Result<Signature> {
    claim_into_wsol(rpc, claimer, |c, a| lix::claim_surplus(keys, c, a)).await
}

/// Creates `owner`'s token accounts for both mints of the launch's AMM pool.
fn amm_accounts(keys: &LaunchKeys, owner: &Pubkey) -> Vec<Instruction> {
    let amm = keys.amm_keys();
    vec![
        lix::create_ata_idempotent(owner, owner, &amm.mint_a, &amm.token_program_a),
        lix::create_ata_idempotent(owner, owner, &amm.mint_b, &amm.token_program_b),
    ]
}

/// Claims the AMM fees earned by `claimer`'s locked position (`position`).
pub async fn claim_locked_lp_fee(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    claimer: &Keypair,
    position: &Pubkey,
) -> anyhow::Result<Signature> {
    let mut ixs = amm_accounts(keys, &claimer.pubkey());
    ixs.push(lix::claim_locked_lp_fee(keys, &claimer.pubkey(), position));
    send(rpc, &ixs, &[claimer]).await
}

/// Buys the token on the launch's AMM pool with `lamports` of SOL.
pub async fn amm_buy(
    rpc: &RpcClient,
    keys: &LaunchKeys,
    trader: &Keypair,
    lamports: u64,
) -> anyhow::Result<Signature> {
    let amm = keys.amm_keys();
    let mut ixs = wrap_sol(&trader.pubkey(), lamports);
    ixs.extend(amm_accounts(keys, &trader.pubkey()));
    ixs.push(sdk::amm_ix::swap(
        &amm,
        &trader.pubkey(),
        sdk::amm_ix::AmmSwapArgs {
            a_to_b: amm.mint_a == sdk::ids::NATIVE_MINT,
            amount_in: lamports,
            min_amount_out: 1,
        },
    ));
    send(rpc, &ixs, &[trader]).await
}

/// Transfers `tokens` base units of a launched (Token-2022, 6 decimals) mint from `from`'s associated
/// account to `to`'s, creating `to`'s first (a plain `transfer_checked`, as a wallet sends tokens).
pub async fn transfer_tokens(
    rpc: &RpcClient,
    mint: &Pubkey,
    from: &Keypair,
    to: &Pubkey,
    tokens: u64,
) -> anyhow::Result<Signature> {
    use anchor_spl::token_2022::spl_token_2022::instruction::transfer_checked;
    let program = sdk::ids::TOKEN_2022_PROGRAM;
    let source = sdk::associated_token_address(&from.pubkey(), mint, &program);
    let destination = sdk::associated_token_address(to, mint, &program);
    let ixs = [
        lix::create_ata_idempotent(&from.pubkey(), to, mint, &program),
        transfer_checked(
            &program,
            &source,
            mint,
            &destination,
            &from.pubkey(),
            &[],
            tokens,
            curve::constants::TOKEN_DECIMALS,
        )?,
    ];
    send(rpc, &ixs, &[from]).await
}

/// Closes `owner`'s (empty) associated account of a launched mint, the rent going back to the owner.
pub async fn close_token_account(
    rpc: &RpcClient,
    mint: &Pubkey,
    owner: &Keypair,
) -> anyhow::Result<Signature> {
    use anchor_spl::token_2022::spl_token_2022::instruction::close_account;
    let program = sdk::ids::TOKEN_2022_PROGRAM;
    let account = sdk::associated_token_address(&owner.pubkey(), mint, &program);
    let ix = close_account(&program, &account, &owner.pubkey(), &owner.pubkey(), &[])?;
    send(rpc, &[ix], &[owner]).await
}

/// A Token-2022 token account's data without extensions (the 165-byte SPL layout, initialized), for feeding
/// generated account updates to the indexer.
pub fn token_account_data(mint: &Pubkey, owner: &Pubkey, amount: u64) -> Vec<u8> {
    let mut d = vec![0u8; 165];
    d[..32].copy_from_slice(mint.as_ref());
    d[32..64].copy_from_slice(owner.as_ref());
    d[64..72].copy_from_slice(&amount.to_le_bytes());
    d[108] = 1;
    d
}
