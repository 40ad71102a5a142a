//! The index store's integration tests on PostgreSQL and SQLite.
//!
//! One test binary for the crate's integration tests: each file below was its own binary, and every binary
//! compiled the shared helpers and linked the whole stack again (about a minute and 180 MB each).

mod candles;
mod options;
mod partitions;
mod retention;
mod schema;
mod storage;

/// A directory holding the migrations of `tree` (`postgres`, `sqlite`) numbered below `before` (e.g. "0023"),
/// copied from the repository: a database migrated with it has the schema an older release left.
pub fn migrations_before(tree: &str, before: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "migrations-before-{before}-{tree}-{}",
        std::process::id()
    ));
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../migrations/{tree}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(source).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.as_str() < before {
            std::fs::copy(&path, dir.join(&name)).unwrap();
        }
    }
    dir
}

/// A new PostgreSQL database and a new SQLite file, named for the test (`tag`): their URLs and stores.
pub async fn stores(tag: &str) -> Vec<(String, index::Store)> {
    let admin = std::env::var("DATABASE_URL").expect(
        "DATABASE_URL is not set: run the tests through scripts/test, which starts PostgreSQL",
    );
    let name = format!("{tag}_{}", std::process::id());
    let pg = index::store::create_postgres_database(&admin, &name)
        .await
        .unwrap();
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = format!("sqlite://{}/index.db", dir.display());
    let _ = std::fs::remove_file(dir.join("index.db"));
    let mut out = Vec::new();
    for url in [pg, sqlite] {
        out.push((url.clone(), index::Store::open(&url).await.unwrap()));
    }
    out
}
