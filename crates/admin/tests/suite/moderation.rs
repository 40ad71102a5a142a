//! `launchpad-admin hide-comment` and `hide-wallet` run as an operator runs them, against an index with
//! comments in it: the hidden ones are no longer listed, every row is still there with who hid it and why,
//! and a command without its record (`--by`, `--reason`) or naming no comment changes nothing.

use index::read::CommentOrder;
use index::store::comments::NewComment;
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
    let _ = std::fs::remove_dir_all(&dir);
}
