//! The real `solana-rpc-client` against a running localnet: airdrops, a launch and a buy sent as signed
//! transactions, account and program queries, transactions with their inner instructions, expired
//! blockhashes, and malformed requests answered with JSON-RPC errors while the server keeps serving.

use crate::common;

use common::*;
use sdk::launchpad_ix::{self as lix, SwapArgs, SIDE_BUY};
use serde_json::{json, Value};
use solana_commitment_config::CommitmentConfig;
use solana_rpc_client_api::config::{
    RpcAccountInfoConfig, RpcProgramAccountsConfig, RpcTransactionConfig,
};
use solana_rpc_client_api::filter::{Memcmp, RpcFilterType};
use solana_signer::Signer;
use solana_transaction::Transaction;
use solana_transaction_status::{EncodedTransaction, UiTransactionEncoding};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standard_client_round_trip() {
    let (net, rpc) = start().await;
    assert!(!rpc.get_version().await.unwrap().solana_core.is_empty());
    rpc.get_health().await.unwrap();
    // Slots advance on the timer (every 400 ms; allow a loaded machine ten seconds).
    let slot = rpc.get_slot().await.unwrap();
    let start = std::time::Instant::now();
    while rpc.get_slot().await.unwrap() <= slot {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "slots advance on the timer"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(rpc.get_block_height().await.unwrap() > 0);
    assert!(
        rpc.get_minimum_balance_for_rent_exemption(165)
            .await
            .unwrap()
            > 0
    );

    let creator = funded(&rpc, 5 * SOL).await;
    let buyer = funded(&rpc, 5 * SOL).await;
    assert_eq!(rpc.get_balance(&buyer.pubkey()).await.unwrap(), 5 * SOL);
    let (keys, sig) = launch_and_buy(&rpc, &creator, &buyer).await;

    // Accounts, decoded with the SDK.
    let pool = rpc.get_account(&keys.pool).await.unwrap();
    let pool = sdk::accounts::decode_pool(&pool.data).unwrap();
    assert!(pool.quote_reserve > 0);
    let many = rpc
        .get_multiple_accounts(&[keys.pool, keys.mint, solana_pubkey::Pubkey::new_unique()])
        .await
        .unwrap();
    assert!(many[0].is_some() && many[1].is_some() && many[2].is_none());
    let bal = rpc
        .get_token_account_balance(&sdk::associated_token_address(
            &buyer.pubkey(),
            &keys.mint,
            &sdk::ids::TOKEN_2022_PROGRAM,
        ))
        .await
        .unwrap();
    assert_eq!(bal.decimals, 6);
    assert!(bal.amount.parse::<u64>().unwrap() > 0);
    let by_owner = rpc
        .get_token_accounts_by_owner(
            &buyer.pubkey(),
            solana_rpc_client_api::request::TokenAccountsFilter::Mint(keys.mint),
        )
        .await
        .unwrap();
    assert_eq!(by_owner.len(), 1);

    // Program accounts with memcmp (pool discriminator + creator) and dataSize filters.
    use anchor_lang::{Discriminator, Space};
    let filters = vec![
        RpcFilterType::Memcmp(Memcmp::new_raw_bytes(
            0,
            launchpad::Pool::DISCRIMINATOR.to_vec(),
        )),
        RpcFilterType::Memcmp(Memcmp::new_raw_bytes(
            8 + 32,
            creator.pubkey().to_bytes().to_vec(),
        )),
    ];
    let config = RpcProgramAccountsConfig {
        filters: Some(filters),
        account_config: RpcAccountInfoConfig {
            encoding: Some(solana_account_decoder::UiAccountEncoding::Base64Zstd),
            ..Default::default()
        },
        ..Default::default()
    };
    let pools = rpc
        .get_program_ui_accounts_with_config(&launchpad::ID, config)
        .await
        .unwrap();
    assert_eq!(pools.len(), 1);
    assert_eq!(pools[0].0, keys.pool);
    let configs = rpc
        .get_program_ui_accounts_with_config(
            &launchpad::ID,
            RpcProgramAccountsConfig {
                filters: Some(vec![RpcFilterType::DataSize(
                    8 + launchpad::Config::INIT_SPACE as u64,
                )]),
                account_config: RpcAccountInfoConfig {
                    encoding: Some(solana_account_decoder::UiAccountEncoding::Base64),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(configs.len(), 6, "six configs bootstrapped");

    // The buy transaction, in json and base64, with inner instructions carrying the emit_cpi! event.
    for encoding in [UiTransactionEncoding::Json, UiTransactionEncoding::Base64] {
        let tx = rpc
            .get_transaction_with_config(
                &sig,
                RpcTransactionConfig {
                    encoding: Some(encoding),
                    max_supported_transaction_version: Some(0),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let meta = tx.transaction.meta.unwrap();
        assert!(meta.err.is_none());
        let logs: Option<Vec<String>> = meta.log_messages.into();
        // Natively run programs print `msg!` to stdout, not to the log collector (see the README); the
        // runtime's own invoke/success lines are there.
        let logs = logs.unwrap();
        assert!(
            logs.iter()
                .any(|l| l == &format!("Program {} success", launchpad::ID)),
            "{logs:#?}"
        );
        let inner: Option<Vec<solana_transaction_status::UiInnerInstructions>> =
            meta.inner_instructions.into();
        let events: Vec<_> = inner
            .unwrap()
            .into_iter()
            .flat_map(|i| i.instructions)
            .filter_map(|ix| match ix {
                solana_transaction_status::UiInstruction::Compiled(c) => {
                    bs58::decode(c.data).into_vec().ok()
                }
                _ => None,
            })
            .filter_map(|data| sdk::events::decode_event(&data))
            .collect();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, sdk::events::LaunchpadEvent::Swap(_))),
            "{encoding:?}: {events:?}"
        );
        if encoding == UiTransactionEncoding::Base64 {
            assert!(matches!(
                tx.transaction.transaction,
                EncodedTransaction::Binary(..)
            ));
        }
    }
    let statuses = rpc.get_signature_statuses(&[sig]).await.unwrap();
    assert!(statuses.value[0]
        .as_ref()
        .unwrap()
        .satisfies_commitment(CommitmentConfig::finalized()));

    // Fees: 5,000 lamports per signature, legacy or v0.
    let blockhash = rpc.get_latest_blockhash().await.unwrap();
    let ix = solana_system_interface::instruction::transfer(&buyer.pubkey(), &creator.pubkey(), 1);
    let legacy = solana_message::Message::new_with_blockhash(
        std::slice::from_ref(&ix),
        Some(&buyer.pubkey()),
        &blockhash,
    );
    assert_eq!(rpc.get_fee_for_message(&legacy).await.unwrap(), 5_000);
    let v0 =
        solana_message::v0::Message::try_compile(&buyer.pubkey(), &[ix], &[], blockhash).unwrap();
    assert_eq!(rpc.get_fee_for_message(&v0).await.unwrap(), 5_000);

    // Simulation reports logs and units without changing anything.
    let blockhash = rpc.get_latest_blockhash().await.unwrap();
    let ix = lix::swap_with_ata(
        &keys,
        &buyer.pubkey(),
        SwapArgs {
            side: SIDE_BUY,
            amount_in: 1_000,
            min_amount_out: u64::MAX,
        },
    );
    let tx = Transaction::new_signed_with_payer(&[ix], Some(&buyer.pubkey()), &[&buyer], blockhash);
    let sim = rpc.simulate_transaction(&tx).await.unwrap().value;
    assert!(sim.err.is_some(), "slippage makes the simulation fail");
    let slippage = u32::from(launchpad::LaunchpadError::SlippageExceeded);
    assert!(sim
        .logs
        .unwrap()
        .iter()
        .any(|l| l.contains(&format!("custom program error: {slippage:#x}"))));
    // And sending it fails preflight with the simulation attached.
    let err = rpc.send_transaction(&tx).await.unwrap_err();
    assert!(err.to_string().contains("simulation failed"), "{err}");
    net.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_blockhash_is_rejected() {
    let (net, rpc) = start().await;
    let payer = funded(&rpc, SOL).await;
    let old = rpc.get_latest_blockhash().await.unwrap();
    {
        let mut chain = net.chain.lock().unwrap();
        for _ in 0..160 {
            chain.advance_slot().unwrap();
        }
    }
    assert!(!rpc
        .is_blockhash_valid(&old, CommitmentConfig::processed())
        .await
        .unwrap());
    let ix = solana_system_interface::instruction::transfer(
        &payer.pubkey(),
        &solana_pubkey::Pubkey::new_unique(),
        1_000_000,
    );
    let tx = Transaction::new_signed_with_payer(&[ix], Some(&payer.pubkey()), &[&payer], old);
    let err = rpc.send_transaction(&tx).await.unwrap_err();
    assert!(
        err.to_string().to_lowercase().contains("blockhash"),
        "{err}"
    );
    net.shutdown().await;
}

async fn raw(url: &str, body: &str) -> Value {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_json_rpc_errors_and_the_server_keeps_serving() {
    let (net, rpc) = start().await;
    let url = net.rpc_url();
    let code = |v: &Value| v["error"]["code"].as_i64();
    assert_eq!(code(&raw(&url, "{not json").await), Some(-32700));
    assert_eq!(code(&raw(&url, "[]").await), Some(-32600));
    assert_eq!(
        code(&raw(&url, r#"{"id":1,"method":"getSlot"}"#).await),
        Some(-32600)
    );
    assert_eq!(
        code(&raw(&url, r#"{"jsonrpc":"2.0","id":1,"method":"getNothing"}"#).await),
        Some(-32601)
    );
    assert_eq!(
        code(
            &raw(
                &url,
                r#"{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["not-a-key"]}"#
            )
            .await
        ),
        Some(-32602)
    );
    assert_eq!(
        code(
            &raw(
                &url,
                r#"{"jsonrpc":"2.0","id":1,"method":"getBalance","params":[]}"#
            )
            .await
        ),
        Some(-32602)
    );
    assert_eq!(
        code(
            &raw(
                &url,
                r#"{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["%%%"]}"#
            )
            .await
        ),
        Some(-32602)
    );
    assert_eq!(
        code(&raw(&url, r#"{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":["AAAA",{"encoding":"base64"}]}"#).await),
        Some(-32602)
    );
    // A batch mixes results and errors, in order.
    let batch = raw(
        &url,
        r#"[{"jsonrpc":"2.0","id":1,"method":"getSlot"},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#,
    )
    .await;
    assert!(batch[0]["result"].is_u64());
    assert_eq!(code(&batch[1]), Some(-32601));
    // Still serving.
    assert!(rpc.get_slot().await.is_ok());

    // Local extensions: USDC to a wallet, and the clock forward.
    let wallet = solana_pubkey::Pubkey::new_unique();
    let minted = raw(&url, &json!({"jsonrpc":"2.0","id":1,"method":"localnet_mintUsdc","params":[wallet.to_string(), 5_000_000]}).to_string()).await;
    let ata: solana_pubkey::Pubkey = minted["result"]["tokenAccount"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        rpc.get_token_account_balance(&ata).await.unwrap().amount,
        "5000000"
    );
    let before = raw(&url, r#"{"jsonrpc":"2.0","id":1,"method":"localnet_info"}"#).await["result"]
        ["unixTimestamp"]
        .as_i64()
        .unwrap();
    let after = raw(
        &url,
        r#"{"jsonrpc":"2.0","id":1,"method":"localnet_advanceClock","params":[600]}"#,
    )
    .await["result"]["unixTimestamp"]
        .as_i64()
        .unwrap();
    assert!(after >= before + 600);
    assert_eq!(
        code(
            &raw(
                &url,
                r#"{"jsonrpc":"2.0","id":1,"method":"localnet_advanceClock","params":[-5]}"#
            )
            .await
        ),
        Some(-32602)
    );
    net.shutdown().await;
}

/// `getSignaturesForAddress` pages an address's history newest first with `before`/`until`/`limit` (failed
/// transactions included, with their error), and `getBlock` lists a slot's transactions in block order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signatures_for_an_address_page_newest_first_and_blocks_list_their_transactions() {
    use solana_rpc_client::rpc_client::GetConfirmedSignaturesForAddress2Config as Page;
    let (net, rpc) = start().await;
    let payer = funded(&rpc, SOL).await;
    let to = solana_pubkey::Pubkey::new_unique();
    let mut sent = Vec::new();
    for i in 0..5 {
        let ix =
            solana_system_interface::instruction::transfer(&payer.pubkey(), &to, 1_000_000 + i);
        let blockhash = rpc.get_latest_blockhash().await.unwrap();
        let tx =
            Transaction::new_signed_with_payer(&[ix], Some(&payer.pubkey()), &[&payer], blockhash);
        sent.push(rpc.send_and_confirm_transaction(&tx).await.unwrap());
    }
    let page = |before, until, limit| Page {
        before,
        until,
        limit,
        commitment: Some(CommitmentConfig::confirmed()),
    };
    let all = rpc
        .get_signatures_for_address_with_config(&to, page(None, None, None))
        .await
        .unwrap();
    let newest_first: Vec<String> = sent.iter().rev().map(|s| s.to_string()).collect();
    assert_eq!(
        all.iter().map(|s| s.signature.clone()).collect::<Vec<_>>(),
        newest_first
    );
    assert!(all.windows(2).all(|w| w[0].slot > w[1].slot));
    assert!(all
        .iter()
        .all(|s| s.err.is_none() && s.block_time.is_some() && s.confirmation_status.is_some()));
    // Two at a time from before the newest, until the oldest (exclusive).
    let middle = rpc
        .get_signatures_for_address_with_config(&to, page(Some(sent[4]), Some(sent[0]), Some(2)))
        .await
        .unwrap();
    assert_eq!(
        middle
            .iter()
            .map(|s| s.signature.clone())
            .collect::<Vec<_>>(),
        newest_first[1..3].to_vec()
    );
    let rest = rpc
        .get_signatures_for_address_with_config(&to, page(Some(sent[2]), Some(sent[0]), Some(2)))
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].signature, sent[1].to_string());
    let too_many = rpc
        .get_signatures_for_address_with_config(&to, page(None, None, Some(1001)))
        .await
        .unwrap_err();
    assert!(too_many.to_string().contains("Invalid limit"), "{too_many}");

    // The block of the first transfer holds it (and only it: one transaction per slot here).
    let block = rpc
        .get_block_with_config(
            all[4].slot,
            solana_rpc_client_api::config::RpcBlockConfig {
                transaction_details: Some(
                    solana_transaction_status::TransactionDetails::Signatures,
                ),
                rewards: Some(false),
                commitment: Some(CommitmentConfig::confirmed()),
                max_supported_transaction_version: Some(0),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(block.signatures, Some(vec![sent[0].to_string()]));
    assert!(block.transactions.is_none());
    let full = rpc
        .get_block_with_config(
            all[4].slot,
            solana_rpc_client_api::config::RpcBlockConfig {
                encoding: Some(UiTransactionEncoding::Base64),
                max_supported_transaction_version: Some(0),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let txs = full.transactions.unwrap();
    assert_eq!(txs.len(), 1);
    assert_eq!(txs[0].transaction.decode().unwrap().signatures[0], sent[0]);
    let future = rpc.get_slot().await.unwrap() + 1_000;
    let missing = rpc.get_block(future).await.unwrap_err();
    assert!(missing.to_string().contains("not available"), "{missing}");
    net.shutdown().await;
}
