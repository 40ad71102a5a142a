//! The two migration trees (`migrations/postgres`, `migrations/sqlite`) describe one schema: after both are
//! applied, the tables, their columns (with the type's family and whether it may be null), their primary
//! keys and their indexes are the same, and so are the views and their columns. PostgreSQL's partitioned
//! tables are compared as their parents (the partitions are storage, made and dropped as data comes and
//! goes). Run through scripts/test, which starts PostgreSQL.

use index::Store;
use sqlx::Row as _;
use std::collections::BTreeMap;

/// A column's type family: the two databases spell a type differently (`BIGINT`/`INTEGER`,
/// `BYTEA`/`BLOB`) but store the same kind of value.
fn family(declared: &str) -> &'static str {
    let t = declared.to_ascii_lowercase();
    if t.contains("int") {
        "integer"
    } else if t.contains("bytea") || t.contains("blob") {
        "bytes"
    } else if t.contains("char") || t.contains("text") {
        "text"
    } else if t.contains("json") {
        "json"
    } else if t.contains("numeric") || t.contains("decimal") {
        "numeric"
    } else if t.contains("bool") {
        "boolean"
    } else if t.contains("real") || t.contains("double") || t.contains("float") {
        "real"
    } else {
        "other"
    }
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Table {
    /// Column -> (type family, nullable), in name order.
    columns: BTreeMap<String, (&'static str, bool)>,
    primary_key: Vec<String>,
    /// Index name -> (unique, columns in order), the primary key's own index excluded.
    indexes: BTreeMap<String, (bool, Vec<String>)>,
}

type Schema = BTreeMap<String, Table>;

/// The migrator's own bookkeeping is not part of the schema.
fn ours(table: &str) -> bool {
    !table.starts_with("_sqlx") && !table.starts_with("sqlite_")
}

async fn postgres_schema(store: &Store) -> Schema {
    let mut schema = Schema::new();
    let columns = sqlx::query(
        "SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.is_nullable::text, \
         (t.table_type = 'VIEW')::int FROM information_schema.columns c JOIN information_schema.tables t \
         ON t.table_schema = c.table_schema AND t.table_name = c.table_name WHERE c.table_schema = 'public' \
         AND NOT EXISTS (SELECT 1 FROM pg_class p JOIN pg_namespace pn ON pn.oid = p.relnamespace \
           WHERE pn.nspname = 'public' AND p.relname = c.table_name AND p.relispartition)",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    for r in columns {
        let table: String = r.get(0);
        if !ours(&table) {
            continue;
        }
        let data_type: String = r.get(2);
        let nullable: String = r.get(3);
        let view: i32 = r.get(4);
        // A view's columns take their types from its query: only their names are compared.
        let column = if view == 1 {
            ("view", true)
        } else {
            (family(&data_type), nullable == "YES")
        };
        schema
            .entry(table)
            .or_default()
            .columns
            .insert(r.get(1), column);
    }
    let indexes = sqlx::query(
        "SELECT t.relname::text, i.relname::text, ix.indisunique::int, ix.indisprimary::int, \
         array_to_string(array(SELECT COALESCE(a.attname::text, '<expr>') FROM unnest(ix.indkey) WITH ORDINALITY k(n, o) \
           LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n ORDER BY k.o), ','), \
         EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid AND c.contype = 'u')::int \
         FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_class i ON i.oid = ix.indexrelid \
         JOIN pg_namespace ns ON ns.oid = t.relnamespace WHERE ns.nspname = 'public' AND NOT t.relispartition",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    for r in indexes {
        let table: String = r.get(0);
        if !ours(&table) {
            continue;
        }
        let name: String = r.get(1);
        let unique: i32 = r.get(2);
        let primary: i32 = r.get(3);
        let cols: Vec<String> = r
            .get::<String, _>(4)
            .split(',')
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect();
        let t = schema.entry(table).or_default();
        if primary == 1 {
            t.primary_key = cols;
        } else if r.get::<i32, _>(5) == 0 {
            t.indexes.insert(name, (unique == 1, cols));
        } else {
            // A `UNIQUE` constraint's index: SQLite names these `sqlite_autoindex_<table>_<n>`.
            t.indexes
                .insert(format!("unique({})", cols.join(",")), (true, cols));
        }
    }
    schema
}

async fn sqlite_schema(store: &Store) -> Schema {
    let mut schema = Schema::new();
    let tables =
        sqlx::query("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
            .fetch_all(store.pool())
            .await
            .unwrap();
    for r in tables {
        let (table, kind): (String, String) = (r.get(0), r.get(1));
        if !ours(&table) {
            continue;
        }
        let view = kind == "view";
        let mut t = Table::default();
        let info = sqlx::query("SELECT name, type, \"notnull\", pk FROM pragma_table_info($1)")
            .bind(table.clone())
            .fetch_all(store.pool())
            .await
            .unwrap();
        let mut pk: Vec<(i64, String)> = Vec::new();
        for r in info {
            let name: String = r.get(0);
            let declared: String = r.get(1);
            let not_null: i64 = r.get(2);
            let pk_pos: i64 = r.get(3);
            // A primary key column is never null in PostgreSQL; SQLite only says so when declared.
            let column = if view {
                ("view", true)
            } else {
                (family(&declared), not_null == 0 && pk_pos == 0)
            };
            t.columns.insert(name.clone(), column);
            if pk_pos > 0 {
                pk.push((pk_pos, name));
            }
        }
        pk.sort();
        t.primary_key = pk.into_iter().map(|(_, n)| n).collect();
        let list = sqlx::query("SELECT name, \"unique\", origin FROM pragma_index_list($1)")
            .bind(table.clone())
            .fetch_all(store.pool())
            .await
            .unwrap();
        for r in list {
            let name: String = r.get(0);
            let unique: i64 = r.get(1);
            let origin: String = r.get(2);
            let cols: Vec<String> = sqlx::query_scalar::<_, Option<String>>(
                "SELECT name FROM pragma_index_info($1) ORDER BY seqno",
            )
            .bind(name.clone())
            .fetch_all(store.pool())
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.unwrap_or_else(|| "<expr>".into()))
            .collect();
            match origin.as_str() {
                "pk" => {}
                "u" => {
                    t.indexes
                        .insert(format!("unique({})", cols.join(",")), (true, cols));
                }
                _ => {
                    t.indexes.insert(name, (unique == 1, cols));
                }
            }
        }
        schema.insert(table, t);
    }
    schema
}

#[tokio::test]
async fn the_postgres_and_sqlite_migrations_describe_one_schema() {
    let mut stores = crate::stores("index_schema")
        .await
        .into_iter()
        .map(|(_, s)| s);
    let (pg, lite) = (stores.next().unwrap(), stores.next().unwrap());
    let pg_schema = postgres_schema(&pg).await;
    assert!(pg_schema.len() > 20, "{:?}", pg_schema.keys());
    let drift = differences(&pg_schema, &sqlite_schema(&lite).await);
    assert!(
        drift.is_empty(),
        "the migrations drifted:\n{}",
        drift.join("\n")
    );
    // The comparison sees a change: one column more on one side is drift.
    sqlx::query("ALTER TABLE swap_records ADD COLUMN drift_probe TEXT")
        .execute(lite.pool())
        .await
        .unwrap();
    let drift = differences(&pg_schema, &sqlite_schema(&lite).await);
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert!(drift[0].starts_with("swap_records:"), "{drift:?}");
}

/// Each table or view that differs, with both sides.
fn differences(pg: &Schema, lite: &Schema) -> Vec<String> {
    let tables: std::collections::BTreeSet<&String> = pg.keys().chain(lite.keys()).collect();
    let mut drift = Vec::new();
    for table in tables {
        match (pg.get(table), lite.get(table)) {
            (Some(p), Some(l)) if p == l => {}
            (p, l) => drift.push(format!("{table}:\n  postgres {p:?}\n  sqlite   {l:?}")),
        }
    }
    drift
}
