//! `launchpad-admin hide-comment`, `hide-wallet` and their reverses `unhide-comment`, `unhide-wallet` run as
//! an operator runs them, against an index with comments in it: the hidden ones are no longer listed, every
//! row is still there with who hid it and why, an unhide lists them again and the moderation log keeps both
//! actions with who, when and why, and a command without its record (`--by`, `--reason`) or naming no
//! comment changes nothing.

use index::read::CommentOrder;
use index::store::comments::{NewComment, Target};
use index::Store;

async fn run(db: &str, args: &[&str], ok: bool) -> String {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_launchpad-admin"))
        .args(args)
        .arg("--database-url")
        .arg(db)
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.success(), ok, "{args:?}:\n{text}");
    text
}

fn comment(wallet: &str, n: u32) -> NewComment {
    NewComment {
        mint: "MintMintMint".into(),
        wallet: wallet.into(),
        reply_to: None,
        text: format!("comment {n}"),
        holding: 0,
        name: None,
        message: "m".into(),
        signature: format!("sig{n}"),
        nonce: format!("nonce{n}"),
        expires_at: i64::MAX,
        now: 1_000 + i64::from(n),
        slot: 1,
    }
}

#[tokio::test]
async fn an_operator_hides_a_comment_and_a_wallet_without_deleting_them() {
    let dir = std::env::temp_dir().join(format!("admin-moderation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite://{}/index.db", dir.display());
    let store = Store::open(&db).await.unwrap();
    let wallet_a = "11111111111111111111111111111112";
    let wallet_b = "So11111111111111111111111111111111111111112";
    let a1 = store
        .post_comment(&comment(wallet_a, 1))
        .await
        .unwrap()
        .unwrap();
    let a2 = store
        .post_comment(&comment(wallet_a, 2))
        .await
        .unwrap()
        .unwrap();
    let b1 = store
        .post_comment(&comment(wallet_b, 3))
        .await
        .unwrap()
        .unwrap();
    let listed = |store: Store| async move {
        store
            .comments("MintMintMint", CommentOrder::Newest, None, 100)
            .await
            .unwrap()
            .comments
            .iter()
            .map(|c| c.comment.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(listed(store.clone()).await, vec![b1, a2, a1]);

    let out = run(
        &db,
        &[
            "hide-comment",
            &a2.to_string(),
            "--by",
            "alice",
            "--reason",
            "spam",
        ],
        true,
    )
    .await;
    assert!(
        out.contains(&format!("comment {a2} hidden by alice: spam")),
        "{out}"
    );
    assert_eq!(listed(store.clone()).await, vec![b1, a1]);
    // Without the record, or naming no comment: refused, nothing changes.
    run(
        &db,
        &[
            "hide-comment",
            &a1.to_string(),
            "--by",
            "alice",
            "--reason",
            " ",
        ],
        false,
    )
    .await;
    let out = run(
        &db,
        &["hide-comment", "999", "--by", "alice", "--reason", "x"],
        false,
    )
    .await;
    assert!(out.contains("no comment 999"), "{out}");
    assert_eq!(listed(store.clone()).await, vec![b1, a1]);

    let out = run(
        &db,
        &[
            "hide-wallet",
            wallet_b,
            "--by",
            "bob",
            "--reason",
            "scam links",
        ],
        true,
    )
    .await;
    assert!(out.contains("hidden by bob"), "{out}");
    assert_eq!(listed(store.clone()).await, vec![a1]);
    let out = run(
        &db,
        &["hide-wallet", wallet_b, "--by", "bob", "--reason", "again"],
        true,
    )
    .await;
    assert!(out.contains("hidden already"), "{out}");
    assert!(store.wallet_hidden(wallet_b).await.unwrap());

    // Every row is still stored, with its record.
    let all = store.all_comments("MintMintMint").await.unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all.iter().filter(|(_, hidden)| *hidden).count(), 1);
    let (by, reason): (String, String) =
        sqlx::query_as("SELECT hidden_by, hidden_reason FROM comments WHERE id = $1")
            .bind(a2)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!((by.as_str(), reason.as_str()), ("alice", "spam"));

    // Unhides: the reverse, each recorded beside the hide it reverses.
    let out = run(
        &db,
        &[
            "unhide-comment",
            &a2.to_string(),
            "--by",
            "carol",
            "--reason",
            "appeal granted",
        ],
        true,
    )
    .await;
    assert!(
        out.contains(&format!("comment {a2} unhidden by carol: appeal granted")),
        "{out}"
    );
    assert_eq!(listed(store.clone()).await, vec![a2, a1]);
    let out = run(
        &db,
        &[
            "unhide-comment",
            &a2.to_string(),
            "--by",
            "carol",
            "--reason",
            "again",
        ],
        true,
    )
    .await;
    assert!(out.contains("is not hidden: nothing to do"), "{out}");
    // Without the record, or naming no comment: refused, nothing changes.
    run(
        &db,
        &["unhide-wallet", wallet_b, "--by", "", "--reason", "appeal"],
        false,
    )
    .await;
    let out = run(
        &db,
        &["unhide-comment", "999", "--by", "carol", "--reason", "x"],
        false,
    )
    .await;
    assert!(out.contains("no comment 999"), "{out}");
    assert!(store.wallet_hidden(wallet_b).await.unwrap());
    // A comment of a hidden wallet, hidden and unhidden itself: still hidden with its wallet, and said so.
    run(
        &db,
        &[
            "hide-comment",
            &b1.to_string(),
            "--by",
            "bob",
            "--reason",
            "off topic",
        ],
        true,
    )
    .await;
    let out = run(
        &db,
        &[
            "unhide-comment",
            &b1.to_string(),
            "--by",
            "bob",
            "--reason",
            "on topic",
        ],
        true,
    )
    .await;
    assert!(out.contains("its wallet is still hidden"), "{out}");
    assert_eq!(listed(store.clone()).await, vec![a2, a1]);
    let out = run(
        &db,
        &[
            "unhide-wallet",
            wallet_b,
            "--by",
            "dave",
            "--reason",
            "appeal granted",
        ],
        true,
    )
    .await;
    assert!(
        out.contains(&format!(
            "wallet {wallet_b} unhidden by dave: appeal granted"
        )),
        "{out}"
    );
    assert_eq!(listed(store.clone()).await, vec![b1, a2, a1]);
    assert!(!store.wallet_hidden(wallet_b).await.unwrap());
    let out = run(
        &db,
        &[
            "unhide-wallet",
            wallet_b,
            "--by",
            "dave",
            "--reason",
            "again",
        ],
        true,
    )
    .await;
    assert!(out.contains("is not hidden: nothing to do"), "{out}");

    // The log holds every action that changed something, in order; nothing is lost by an unhide.
    let log = |target, subject: String| {
        let store = store.clone();
        async move {
            store
                .moderation_log(target, &subject)
                .await
                .unwrap()
                .into_iter()
                .map(|m| {
                    assert!(m.at > 1_700_000_000, "{m:?}");
                    format!("{} {} {}", m.action, m.by, m.reason)
                })
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        log(Target::Comment, a2.to_string()).await,
        ["hide alice spam", "unhide carol appeal granted"]
    );
    assert_eq!(
        log(Target::Comment, b1.to_string()).await,
        ["hide bob off topic", "unhide bob on topic"]
    );
    assert_eq!(
        log(Target::Wallet, wallet_b.to_string()).await,
        ["hide bob scam links", "unhide dave appeal granted"]
    );
    assert_eq!(
        log(Target::Comment, a1.to_string()).await,
        Vec::<String>::new()
    );
    let all = store.all_comments("MintMintMint").await.unwrap();
    assert_eq!(all.iter().filter(|(_, hidden)| *hidden).count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
