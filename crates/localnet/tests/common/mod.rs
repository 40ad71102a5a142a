//! Helpers shared by the localnet tests: a started localnet with a client, funded wallets, and a launch
//! with a buy sent as a wallet would.
#![allow(dead_code)]

use anchor_lang::solana_program::instruction::Instruction;
use curve::Preset;
use localnet::{Localnet, LocalnetConfig};
use sdk::launchpad_ix::{self as lix, CreateLaunchArgs, LaunchKeys, SwapArgs, SIDE_BUY};
use solana_commitment_config::CommitmentConfig;
use solana_keypair::Keypair;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_signer::Signer;

pub use localnet::testkit::SOL;

pub async fn start() -> (Localnet, RpcClient) {
    let net = Localnet::start(LocalnetConfig::ephemeral())
        .await
        .expect("localnet starts");
    let rpc = RpcClient::new_with_commitment(net.rpc_url(), CommitmentConfig::confirmed());
    (net, rpc)
}

pub async fn send(
    rpc: &RpcClient,
    ixs: &[Instruction],
    signers: &[&Keypair],
) -> solana_signature::Signature {
    localnet::testkit::send(rpc, ixs, signers)
        .await
        .expect("transaction lands")
}

/// Launch + wrap SOL + buy, as a wallet would, in two transactions.
pub async fn launch_and_buy(
    rpc: &RpcClient,
    creator: &Keypair,
    buyer: &Keypair,
) -> (LaunchKeys, solana_signature::Signature) {
    let keys = LaunchKeys::derive(
        creator.pubkey(),
        7,
        Preset::Fair as u8,
        sdk::ids::NATIVE_MINT,
    );
    let args = CreateLaunchArgs {
        name: "Local Token".into(),
        symbol: "LOCAL".into(),
        uri: "https://example.org/l.json".into(),
        salt: 7,
    };
    send(rpc, &[lix::create_launch(&keys, args)], &[creator]).await;
    let wsol = sdk::associated_token_address(
        &buyer.pubkey(),
        &sdk::ids::NATIVE_MINT,
        &sdk::ids::TOKEN_PROGRAM,
    );
    let ixs = [
        lix::create_ata_idempotent(
            &buyer.pubkey(),
            &buyer.pubkey(),
            &sdk::ids::NATIVE_MINT,
            &sdk::ids::TOKEN_PROGRAM,
        ),
        solana_system_interface::instruction::transfer(&buyer.pubkey(), &wsol, SOL),
        anchor_spl::token::spl_token::instruction::sync_native(&sdk::ids::TOKEN_PROGRAM, &wsol)
            .unwrap(),
        lix::create_ata_idempotent(
            &buyer.pubkey(),
            &buyer.pubkey(),
            &keys.mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        ),
        lix::swap_with_ata(
            &keys,
            &buyer.pubkey(),
            SwapArgs {
                side: SIDE_BUY,
                amount_in: SOL / 2,
                min_amount_out: 1,
            },
        ),
    ];
    let sig = send(rpc, &ixs, &[buyer]).await;
    (keys, sig)
}

pub async fn funded(rpc: &RpcClient, lamports: u64) -> Keypair {
    localnet::testkit::funded(rpc, lamports)
        .await
        .expect("airdrop lands")
}
