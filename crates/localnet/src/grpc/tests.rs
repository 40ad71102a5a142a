use super::filter::{is_token_account_data, AccountView, DataSlice, Filters, TxFacts};
use super::*;
use solana_pubkey::Pubkey;
use solana_signature::Signature;
use std::collections::HashMap;
use yellowstone_grpc_proto::cuckoo::CuckooFilter;
use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter::Filter as Kind;
use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_lamports::Cmp;
use yellowstone_grpc_proto::geyser::subscribe_request_filter_accounts_filter_memcmp::Data;

fn key(b: u8) -> Pubkey {
    Pubkey::new_from_array([b; 32])
}

fn accounts_request(
    filters: Vec<(&str, pb::SubscribeRequestFilterAccounts)>,
) -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        accounts: filters
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect(),
        ..Default::default()
    }
}

fn account_filters(filters: Vec<(&str, pb::SubscribeRequestFilterAccounts)>) -> Filters {
    Filters::parse(&accounts_request(filters)).unwrap_or_else(|e| panic!("filters refused: {e}"))
}

fn data_filter(kind: Kind) -> pb::SubscribeRequestFilterAccountsFilter {
    pb::SubscribeRequestFilterAccountsFilter { filter: Some(kind) }
}

fn memcmp(offset: u64, data: Data) -> pb::SubscribeRequestFilterAccountsFilter {
    data_filter(Kind::Memcmp(
        pb::SubscribeRequestFilterAccountsFilterMemcmp {
            offset,
            data: Some(data),
        },
    ))
}

fn view<'a>(
    pubkey: &'a Pubkey,
    owner: &'a Pubkey,
    lamports: u64,
    data: &'a [u8],
) -> AccountView<'a> {
    AccountView {
        pubkey,
        owner,
        lamports,
        data,
        has_txn_signature: true,
    }
}

#[test]
fn empty_account_filter_matches_everything() {
    let f = account_filters(vec![("all", Default::default())]);
    assert_eq!(
        f.accounts_matching(&view(&key(1), &key(2), 5, b"")),
        vec!["all"]
    );
}

#[test]
fn account_and_owner_lists_restrict_together() {
    let f = account_filters(vec![
        (
            "by_key",
            pb::SubscribeRequestFilterAccounts {
                account: vec![key(1).to_string(), key(3).to_string()],
                ..Default::default()
            },
        ),
        (
            "by_owner",
            pb::SubscribeRequestFilterAccounts {
                owner: vec![key(9).to_string()],
                ..Default::default()
            },
        ),
        (
            "both",
            pb::SubscribeRequestFilterAccounts {
                account: vec![key(1).to_string()],
                owner: vec![key(9).to_string()],
                ..Default::default()
            },
        ),
    ]);
    assert_eq!(
        f.accounts_matching(&view(&key(1), &key(9), 0, b"")),
        vec!["both", "by_key", "by_owner"]
    );
    assert_eq!(
        f.accounts_matching(&view(&key(1), &key(8), 0, b"")),
        vec!["by_key"]
    );
    assert_eq!(
        f.accounts_matching(&view(&key(2), &key(9), 0, b"")),
        vec!["by_owner"]
    );
    assert!(f
        .accounts_matching(&view(&key(2), &key(8), 0, b""))
        .is_empty());
}

#[test]
fn memcmp_in_bytes_base58_and_base64() {
    let data = [0u8, 1, 2, 3, 4, 5, 6, 7];
    let cases = [
        (memcmp(2, Data::Bytes(vec![2, 3, 4])), true),
        (
            memcmp(2, Data::Base58(bs58::encode([2u8, 3, 4]).into_string())),
            true,
        ),
        (memcmp(6, Data::Base64("Bgc=".into())), true),
        (memcmp(0, Data::Bytes(vec![1])), false),
        // Past the end of the data: no match, no panic.
        (memcmp(7, Data::Bytes(vec![7, 8])), false),
        (memcmp(u64::from(u32::MAX), Data::Bytes(vec![0])), false),
        // Empty data always matches.
        (memcmp(8, Data::Bytes(vec![])), true),
    ];
    for (i, (filter, expected)) in cases.into_iter().enumerate() {
        let f = account_filters(vec![(
            "m",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![filter],
                ..Default::default()
            },
        )]);
        let matched = !f
            .accounts_matching(&view(&key(1), &key(2), 0, &data))
            .is_empty();
        assert_eq!(matched, expected, "case {i}");
    }
}

#[test]
fn datasize_lamports_and_all_filters_anded() {
    let f = account_filters(vec![(
        "f",
        pb::SubscribeRequestFilterAccounts {
            filters: vec![
                data_filter(Kind::Datasize(4)),
                data_filter(Kind::Lamports(
                    pb::SubscribeRequestFilterAccountsFilterLamports {
                        cmp: Some(Cmp::Gt(10)),
                    },
                )),
                memcmp(0, Data::Bytes(vec![9])),
            ],
            ..Default::default()
        },
    )]);
    let matches = |lamports, data: &[u8]| {
        !f.accounts_matching(&view(&key(1), &key(2), lamports, data))
            .is_empty()
    };
    assert!(matches(11, &[9, 0, 0, 0]));
    assert!(!matches(10, &[9, 0, 0, 0]), "lamports not > 10");
    assert!(!matches(11, &[9, 0, 0]), "datasize 3");
    assert!(!matches(11, &[8, 0, 0, 0]), "memcmp");

    for (cmp, lamports, expected) in [
        (Cmp::Eq(5), 5, true),
        (Cmp::Eq(5), 6, false),
        (Cmp::Ne(5), 6, true),
        (Cmp::Lt(5), 4, true),
        (Cmp::Lt(5), 5, false),
    ] {
        let f = account_filters(vec![(
            "l",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![data_filter(Kind::Lamports(
                    pb::SubscribeRequestFilterAccountsFilterLamports { cmp: Some(cmp) },
                ))],
                ..Default::default()
            },
        )]);
        assert_eq!(
            !f.accounts_matching(&view(&key(1), &key(2), lamports, b""))
                .is_empty(),
            expected,
            "{cmp:?} {lamports}"
        );
    }
}

#[test]
fn token_account_state() {
    let mut token = vec![0u8; 165];
    assert!(!is_token_account_data(&token), "uninitialized");
    token[108] = 1;
    assert!(is_token_account_data(&token));
    token[108] = 2;
    assert!(is_token_account_data(&token), "frozen");
    token[108] = 3;
    assert!(!is_token_account_data(&token), "invalid state");
    token[108] = 1;
    let mut extended = token.clone();
    extended.extend_from_slice(&[2, 0, 0]);
    assert!(
        is_token_account_data(&extended),
        "token-2022 account with extensions"
    );
    extended[165] = 1;
    assert!(!is_token_account_data(&extended), "token-2022 mint");
    assert!(!is_token_account_data(&token[..82]), "a mint");

    let f = account_filters(vec![(
        "t",
        pb::SubscribeRequestFilterAccounts {
            filters: vec![data_filter(Kind::TokenAccountState(true))],
            ..Default::default()
        },
    )]);
    assert_eq!(
        f.accounts_matching(&view(&key(1), &key(2), 0, &token)),
        vec!["t"]
    );
}

#[test]
fn nonempty_txn_signature() {
    let f = account_filters(vec![(
        "tx",
        pb::SubscribeRequestFilterAccounts {
            nonempty_txn_signature: Some(true),
            ..Default::default()
        },
    )]);
    let (account, owner) = (key(1), key(2));
    let mut v = view(&account, &owner, 0, b"");
    assert_eq!(f.accounts_matching(&v), vec!["tx"]);
    v.has_txn_signature = false;
    assert!(f.accounts_matching(&v).is_empty());
}

#[test]
fn cuckoo_account_filter() {
    let mut cuckoo = CuckooFilter::<[u8; 32]>::with_capacity(16).expect("cuckoo filter");
    cuckoo.insert(&key(7).to_bytes()).expect("insert");
    let f = account_filters(vec![(
        "c",
        pb::SubscribeRequestFilterAccounts {
            cuckoo_accounts_filter: Some(pb::CuckooFilter::from(&cuckoo)),
            ..Default::default()
        },
    )]);
    assert_eq!(
        f.accounts_matching(&view(&key(7), &key(2), 0, b"")),
        vec!["c"]
    );
    assert!(f
        .accounts_matching(&view(&key(8), &key(2), 0, b""))
        .is_empty());
}

#[test]
fn malformed_filters_are_invalid_arguments() {
    let bad = [
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                account: vec!["not a key".into()],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                owner: vec!["111".into()],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![memcmp(0, Data::Base58("0OIl".into()))],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![memcmp(0, Data::Base64("!!".into()))],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![data_filter(Kind::TokenAccountState(false))],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                filters: vec![pb::SubscribeRequestFilterAccountsFilter { filter: None }],
                ..Default::default()
            },
        )]),
        accounts_request(vec![(
            "a",
            pb::SubscribeRequestFilterAccounts {
                cuckoo_accounts_filter: Some(pb::CuckooFilter {
                    data: vec![0; 24],
                    ..Default::default()
                }),
                ..Default::default()
            },
        )]),
        pb::SubscribeRequest {
            transactions: HashMap::from([(
                "t".to_string(),
                pb::SubscribeRequestFilterTransactions {
                    signature: Some("nope".into()),
                    ..Default::default()
                },
            )]),
            ..Default::default()
        },
        pb::SubscribeRequest {
            transactions: HashMap::from([(
                "t".to_string(),
                pb::SubscribeRequestFilterTransactions {
                    account_required: vec!["x".into()],
                    ..Default::default()
                },
            )]),
            ..Default::default()
        },
        pb::SubscribeRequest {
            commitment: Some(7),
            ..Default::default()
        },
        pb::SubscribeRequest {
            accounts_data_slice: vec![pb::SubscribeRequestAccountsDataSlice {
                offset: u64::MAX,
                length: 2,
            }],
            ..Default::default()
        },
    ];
    for (i, request) in bad.iter().enumerate() {
        match Filters::parse(request) {
            Ok(_) => panic!("case {i} accepted"),
            Err(status) => {
                assert_eq!(
                    status.code(),
                    tonic::Code::InvalidArgument,
                    "case {i}: {status}"
                );
                assert!(!status.message().is_empty());
            }
        }
    }
    let entries = pb::SubscribeRequest {
        entry: HashMap::from([("e".to_string(), pb::SubscribeRequestFilterEntry::default())]),
        ..Default::default()
    };
    assert_eq!(
        Filters::parse(&entries).err().map(|s| s.code()),
        Some(tonic::Code::Unimplemented)
    );
}

fn tx_filters(filters: Vec<(&str, pb::SubscribeRequestFilterTransactions)>) -> Filters {
    Filters::parse(&pb::SubscribeRequest {
        transactions: filters
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect(),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("filters refused: {e}"))
}

fn tx(keys: &[u8]) -> TxFacts {
    TxFacts {
        signature: Signature::from([1u8; 64]),
        keys: keys.iter().map(|b| key(*b)).collect(),
        ..Default::default()
    }
}

#[test]
fn account_include_exclude_required() {
    let s = |keys: &[u8]| keys.iter().map(|b| key(*b).to_string()).collect::<Vec<_>>();
    let f = tx_filters(vec![
        (
            "include",
            pb::SubscribeRequestFilterTransactions {
                account_include: s(&[1, 2]),
                ..Default::default()
            },
        ),
        (
            "exclude",
            pb::SubscribeRequestFilterTransactions {
                account_exclude: s(&[3]),
                ..Default::default()
            },
        ),
        (
            "required",
            pb::SubscribeRequestFilterTransactions {
                account_required: s(&[1, 4]),
                ..Default::default()
            },
        ),
        (
            "combined",
            pb::SubscribeRequestFilterTransactions {
                account_include: s(&[1]),
                account_exclude: s(&[3]),
                account_required: s(&[4]),
                ..Default::default()
            },
        ),
    ]);
    assert_eq!(
        f.transactions_matching(&tx(&[1, 4])),
        vec!["combined", "exclude", "include", "required"]
    );
    assert_eq!(
        f.transactions_matching(&tx(&[2])),
        vec!["exclude", "include"]
    );
    assert_eq!(
        f.transactions_matching(&tx(&[1, 3, 4])),
        vec!["include", "required"]
    );
    assert!(f.transactions_matching(&tx(&[3])).is_empty());
    assert_eq!(f.transactions_matching(&tx(&[5])), vec!["exclude"]);
}

#[test]
fn vote_failed_and_signature() {
    let sig = Signature::from([1u8; 64]);
    let f = tx_filters(vec![
        ("all", Default::default()),
        (
            "ok_non_vote",
            pb::SubscribeRequestFilterTransactions {
                vote: Some(false),
                failed: Some(false),
                ..Default::default()
            },
        ),
        (
            "failed",
            pb::SubscribeRequestFilterTransactions {
                failed: Some(true),
                ..Default::default()
            },
        ),
        (
            "vote",
            pb::SubscribeRequestFilterTransactions {
                vote: Some(true),
                ..Default::default()
            },
        ),
        (
            "sig",
            pb::SubscribeRequestFilterTransactions {
                signature: Some(sig.to_string()),
                ..Default::default()
            },
        ),
        (
            "other_sig",
            pb::SubscribeRequestFilterTransactions {
                signature: Some(Signature::from([2u8; 64]).to_string()),
                ..Default::default()
            },
        ),
    ]);
    let ok = tx(&[1]);
    assert_eq!(
        f.transactions_matching(&ok),
        vec!["all", "ok_non_vote", "sig"]
    );
    let failed = TxFacts {
        failed: true,
        ..tx(&[1])
    };
    assert_eq!(
        f.transactions_matching(&failed),
        vec!["all", "failed", "sig"]
    );
    let vote = TxFacts {
        is_vote: true,
        ..tx(&[1])
    };
    assert_eq!(f.transactions_matching(&vote), vec!["all", "sig", "vote"]);
}

#[test]
fn token_account_expansion() {
    let f = tx_filters(vec![
        (
            "plain",
            pb::SubscribeRequestFilterTransactions {
                account_include: vec![key(9).to_string()],
                ..Default::default()
            },
        ),
        (
            "all",
            pb::SubscribeRequestFilterTransactions {
                account_include: vec![key(9).to_string()],
                token_accounts: Some(pb::TokenAccountExpansionControlFlag::All as i32),
                ..Default::default()
            },
        ),
        (
            "changed",
            pb::SubscribeRequestFilterTransactions {
                account_include: vec![key(9).to_string()],
                token_accounts: Some(pb::TokenAccountExpansionControlFlag::BalanceChanged as i32),
                ..Default::default()
            },
        ),
    ]);
    let holds = TxFacts {
        token_owners: vec![key(9)],
        ..tx(&[1])
    };
    assert_eq!(f.transactions_matching(&holds), vec!["all"]);
    let changed = TxFacts {
        token_owners: vec![key(9)],
        changed_token_owners: vec![key(9)],
        ..tx(&[1])
    };
    assert_eq!(f.transactions_matching(&changed), vec!["all", "changed"]);
}

#[test]
fn slots_by_commitment() {
    let f = Filters::parse(&pb::SubscribeRequest {
        slots: HashMap::from([
            (
                "every".to_string(),
                pb::SubscribeRequestFilterSlots::default(),
            ),
            (
                "at_commitment".to_string(),
                pb::SubscribeRequestFilterSlots {
                    filter_by_commitment: Some(true),
                    ..Default::default()
                },
            ),
        ]),
        commitment: Some(pb::CommitmentLevel::Confirmed as i32),
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.slots_matching(ChainSlotStatus::Processed), vec!["every"]);
    assert_eq!(
        f.slots_matching(ChainSlotStatus::Confirmed),
        vec!["at_commitment", "every"]
    );
    assert_eq!(f.slots_matching(ChainSlotStatus::Finalized), vec!["every"]);
}

#[test]
fn data_slices() {
    let data: Vec<u8> = (0..10).collect();
    let slice = |s: &[(u64, u64)]| {
        DataSlice::parse(
            &s.iter()
                .map(|&(offset, length)| pb::SubscribeRequestAccountsDataSlice { offset, length })
                .collect::<Vec<_>>(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    assert_eq!(slice(&[]).apply(&data), data, "no slices: whole data");
    assert_eq!(slice(&[(2, 3)]).apply(&data), vec![2, 3, 4]);
    assert_eq!(
        slice(&[(0, 2), (8, 2)]).apply(&data),
        vec![0, 1, 8, 9],
        "concatenated"
    );
    assert_eq!(
        slice(&[(8, 5)]).apply(&data),
        vec![8, 9],
        "clipped at the end"
    );
    assert_eq!(
        slice(&[(20, 5)]).apply(&data),
        Vec::<u8>::new(),
        "past the end"
    );
    assert_eq!(
        slice(&[(3, 0)]).apply(&data),
        Vec::<u8>::new(),
        "zero length"
    );
    assert!(DataSlice::parse(&[pb::SubscribeRequestAccountsDataSlice {
        offset: u64::MAX,
        length: 1
    }])
    .is_err());
}

#[test]
fn ping_only_requests_keep_filters() {
    let ping = Some(pb::SubscribeRequestPing { id: 1 });
    assert!(filter::is_ping_only(&pb::SubscribeRequest {
        ping,
        ..Default::default()
    }));
    assert!(!filter::is_ping_only(&pb::SubscribeRequest::default()));
    let with_filter = pb::SubscribeRequest {
        ping,
        blocks_meta: HashMap::from([("m".to_string(), pb::SubscribeRequestFilterBlocksMeta {})]),
        ..Default::default()
    };
    assert!(!filter::is_ping_only(&with_filter));
}

#[test]
fn transaction_error_is_bincode() {
    let err =
        solana_transaction_error::TransactionError::InsufficientFundsForRent { account_index: 3 };
    let encoded = convert::transaction_error(&err);
    let decoded: solana_transaction_error::TransactionError =
        bincode::deserialize(&encoded.err).expect("bincode");
    assert_eq!(decoded, err);
}
