//! SQL written once for both databases.
//!
//! A statement with any dynamic part (a number of rows, an `IN` list, an optional filter, a table or column
//! list chosen by the code) is a [sea-query](sea_query) statement, rendered for the connection's database
//! when it runs ([`query`]): PostgreSQL gets `$1, $2, …`, SQLite plain `?` parameters, which sqlx-sqlite
//! binds without looking up a name (numbered `?n` ones made binding an insert of thousands of values
//! quadratic). The text holds only the code's identifiers and constants ([`lit`]); every value is bound.
//!
//! A fixed statement is a plain `&'static str` valid in both databases: `$n` parameters, numbered in order
//! of first appearance (SQLite numbers `$n` parameters that way, whatever the digits say).
//!
//! sea-query's `ExprTrait` (`eq`, `is_in`, …) is imported where a statement is built, not for a whole
//! module: it is implemented for every value type, so its `max` and `min` make `Ord`'s ambiguous on the
//! integers around.

use super::Backend;
use sea_query::{Expr, InsertStatement, PostgresQueryBuilder, Query, SqliteQueryBuilder, Value};
use sea_query_sqlx::{SqlxBinder, SqlxValues};
use sqlx::{Any, AnyConnection};

/// A statement rendered for one database, its values bound.
pub type Bound = sqlx::query::Query<'static, Any, SqlxValues>;

impl Backend {
    /// The database behind a connection.
    pub fn of(conn: &AnyConnection) -> Backend {
        if conn.backend_name().eq_ignore_ascii_case("sqlite") {
            Backend::Sqlite
        } else {
            Backend::Postgres
        }
    }

    /// `stmt` in this database's dialect, with its values.
    pub fn render<S: SqlxBinder>(self, stmt: &S) -> (String, SqlxValues) {
        match self {
            Backend::Postgres => stmt.build_sqlx(PostgresQueryBuilder),
            Backend::Sqlite => stmt.build_sqlx(SqliteQueryBuilder),
        }
    }
}

/// `stmt` rendered for `backend`, ready to run.
pub fn query<S: SqlxBinder>(backend: Backend, stmt: &S) -> Bound {
    let (sql, values) = backend.render(stmt);
    // The one place a built string becomes SQL: sea-query wrote it from the code's identifiers, with every
    // value a bound parameter.
    sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
}

/// Most rows per multi-row statement: `cols` values a row stay under SQLite's (32,766) and PostgreSQL's
/// (65,535) bound-parameter limits.
pub fn rows_per_statement(cols: usize) -> usize {
    (30_000 / cols.max(1)).clamp(1, 500)
}

/// `items` in owned chunks of at most `n`.
pub fn chunks<T>(items: Vec<T>, n: usize) -> impl Iterator<Item = Vec<T>> {
    let mut items = items.into_iter().peekable();
    std::iter::from_fn(move || {
        items.peek()?;
        Some(items.by_ref().take(n.max(1)).collect())
    })
}

/// A constant written into the statement's text, not bound (as a fixed statement writes it): what the
/// query planner may use, like a partial index's condition.
pub fn lit(v: impl Into<Value>) -> Expr {
    Expr::Constant(v.into())
}

/// An insert of `rows` into `table`: the columns are the first row's, and every row has them in that order
/// (rows of a table are made by one function).
pub fn insert<V: Into<Value>>(
    table: &'static str,
    rows: Vec<Vec<(&'static str, V)>>,
) -> InsertStatement {
    let mut stmt = Query::insert();
    stmt.into_table(table);
    if let Some(first) = rows.first() {
        stmt.columns(first.iter().map(|(c, _)| *c));
    }
    for row in rows {
        stmt.values_panic(row.into_iter().map(|(_, v)| Expr::Value(v.into())));
    }
    stmt
}

/// `(alias, column)` for each of `columns`: columns of a table named `alias` in the statement.
pub fn of(alias: &'static str, columns: &[&'static str]) -> Vec<(&'static str, &'static str)> {
    columns.iter().map(|c| (alias, *c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_query::{ExprTrait, OnConflict};

    #[test]
    fn one_statement_renders_for_both_databases() {
        let rows = vec![
            vec![("a", Value::from(1i64)), ("b", Value::from("x"))],
            vec![("a", Value::from(2i64)), ("b", Value::from("y"))],
        ];
        let mut stmt = insert("t", rows);
        stmt.on_conflict(
            OnConflict::column("a")
                .update_column("b")
                .action_and_where(Expr::col(("excluded", "a")).gt(Expr::col(("t", "a"))))
                .to_owned(),
        );
        let (pg, values) = Backend::Postgres.render(&stmt);
        assert_eq!(
            pg,
            r#"INSERT INTO "t" ("a", "b") VALUES ($1, $2), ($3, $4) ON CONFLICT ("a") DO UPDATE SET "b" = "excluded"."b" WHERE "excluded"."a" > "t"."a""#
        );
        assert_eq!(values.0 .0.len(), 4);
        // SQLite: the same statement with plain `?` parameters (which sqlx-sqlite binds without a name).
        let (sqlite, _) = Backend::Sqlite.render(&stmt);
        assert_eq!(
            sqlite,
            r#"INSERT INTO "t" ("a", "b") VALUES (?, ?), (?, ?) ON CONFLICT ("a") DO UPDATE SET "b" = "excluded"."b" WHERE "excluded"."a" > "t"."a""#
        );
    }

    #[test]
    fn owned_chunks() {
        let c: Vec<Vec<u32>> = chunks((0..5).collect(), 2).collect();
        assert_eq!(c, vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(chunks(Vec::<u32>::new(), 2).count(), 0);
    }
}
