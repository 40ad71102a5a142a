//! One change, written inside the batch's transaction.

use super::feed::FeedRow;
use super::rows::*;
use super::sql;
use super::Backend;
use crate::market::status_name;
use crate::model::*;
use anchor_lang::prelude::Pubkey;
use sdk::events::AmmEvent;
use sea_query::{Expr, OnConflict, Query};
use sqlx::AnyConnection;
use std::collections::{BTreeMap, BTreeSet};

type Result<T> = std::result::Result<T, sqlx::Error>;

/// Runs a built statement in the connection's dialect.
async fn exec<S: sea_query_sqlx::SqlxBinder>(conn: &mut AnyConnection, stmt: &S) -> Result<()> {
    sql::query(Backend::of(conn), stmt).execute(conn).await?;
    Ok(())
}

pub async fn cursor(conn: &mut AnyConnection, stream: &str, slot: u64) -> Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    sqlx::query(
        "INSERT INTO indexer_cursor (stream, slot, updated_at) VALUES ($1, $2, $3) \
         ON CONFLICT (stream) DO UPDATE SET slot = excluded.slot, updated_at = excluded.updated_at",
    )
    .bind(stream.to_string())
    .bind(i64::try_from(slot).unwrap_or(i64::MAX))
    .bind(i64::try_from(now).unwrap_or(i64::MAX))
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes a batch at `now` (unix seconds: where the rolling 24h window stands). Account writes (the newest
/// per address) and events go out as multi-row statements per table; launches and closures are written in
/// order between them. The feed's rows follow the events in chain order. Returns the highest feed `seq`
/// written.
pub async fn changes(
    conn: &mut AnyConnection,
    changes: &[Change],
    now: i64,
) -> Result<Option<i64>> {
    let mut pending = Pending::default();
    let mut fed = None;
    for c in changes {
        match c {
            Change::Account(w) => pending.account(w),
            Change::TokenAccount(w) => pending.tokens.push(w),
            // A feed row only, in its place among the batch's events.
            Change::Event(e) if e.feed_only() => pending.feed.push(e),
            Change::Event(e) => match event_row(e) {
                Some((table, row)) => {
                    pending.events.entry(table).or_default().push(row);
                    if matches!(e, Event::Trade(_) | Event::Amm(..)) {
                        pending.market.push(e);
                    }
                    pending.feed.push(e);
                }
                None => {
                    fed = fed.max(pending.flush(conn, now).await?);
                    fed = fed.max(event(conn, e, now).await?);
                }
            },
            other => {
                fed = fed.max(pending.flush(conn, now).await?);
                change(conn, other).await?;
            }
        }
    }
    Ok(fed.max(pending.flush(conn, now).await?))
}

/// Rows waiting to be written together.
#[derive(Default)]
struct Pending<'a> {
    accounts: BTreeMap<Pubkey, &'a AccountWrite>,
    events: BTreeMap<&'static str, Vec<Row>>,
    /// Trade events, for the market series once their batch's accounts and events are in.
    market: Vec<&'a Event>,
    /// Token accounts of launched mints (and closings).
    tokens: Vec<&'a TokenAccountWrite>,
    /// Launches whose pool, and AMM pools whose state, the batch wrote (their stats are refreshed).
    pool_mints: BTreeSet<String>,
    amm_pools: BTreeSet<String>,
    /// Events in batch order, for the feed.
    feed: Vec<&'a Event>,
}

impl<'a> Pending<'a> {
    /// Keeps the newest write of each account (the upsert would keep only it anyway, and one statement
    /// must not touch a row twice).
    fn account(&mut self, w: &'a AccountWrite) {
        match self.accounts.get(&w.address) {
            Some(old) if old.version > w.version => {}
            _ => {
                self.accounts.insert(w.address, w);
            }
        }
        match &w.state {
            AccountState::Pool(p) => {
                self.pool_mints.insert(p.base_mint.to_string());
            }
            AccountState::AmmPool(_) => {
                self.amm_pools.insert(w.address.to_string());
            }
            _ => {}
        }
    }

    /// Writes what is pending; returns the highest feed `seq` written.
    async fn flush(&mut self, conn: &mut AnyConnection, now: i64) -> Result<Option<i64>> {
        let mut accounts: BTreeMap<&'static str, Vec<Row>> = BTreeMap::new();
        for w in std::mem::take(&mut self.accounts).into_values() {
            let (table, row) = account_row(w);
            accounts.entry(table).or_default().push(row);
        }
        for (table, rows) in accounts {
            let n = sql::rows_per_statement(rows[0].len());
            for chunk in sql::chunks(rows, n) {
                exec(conn, &upsert_accounts(table, chunk)).await?;
            }
        }
        for (table, rows) in std::mem::take(&mut self.events) {
            let n = sql::rows_per_statement(rows[0].len());
            for chunk in sql::chunks(rows, n) {
                exec(conn, &insert_events(table, chunk)).await?;
            }
        }
        super::holders::write(conn, &std::mem::take(&mut self.tokens)).await?;
        let recorded = super::market::record(conn, &std::mem::take(&mut self.market)).await?;
        let mut mints = std::mem::take(&mut self.pool_mints);
        mints.extend(recorded.highs.keys().cloned());
        let amm_pools = std::mem::take(&mut self.amm_pools);
        mints.extend(super::listing::mints_of_amm_pools(conn, &amm_pools).await?);
        super::listing::refresh(conn, &mints, &recorded.highs, false, now).await?;
        super::listing::sweep(conn, now).await?;
        let feed = feed_rows(&std::mem::take(&mut self.feed), &recorded.inserted);
        super::feed::insert(conn, feed).await
    }
}

/// The feed's rows of `events`, in their order: a trade (and, on the curve, the curve's new state) only
/// when its market trade was newly inserted, so a replayed trade is not announced again.
fn feed_rows(events: &[&Event], inserted: &[crate::market::MarketTrade]) -> Vec<FeedRow> {
    let trades: std::collections::HashMap<(&str, u32, u32), &crate::market::MarketTrade> = inserted
        .iter()
        .map(|t| ((t.signature.as_str(), t.ix_index, t.inner_index), t))
        .collect();
    let trade = |k: &EventKey| {
        trades
            .get(&(k.signature.as_str(), k.ix_index, k.inner_index))
            .copied()
    };
    let mut rows = Vec::new();
    for e in events {
        match e {
            Event::Trade(t) => {
                if let Some(mt) = trade(&t.key) {
                    rows.push(FeedRow::trade(&t.key, mt, Some(t.event.progress_bps)));
                    rows.push(FeedRow::curve(&t.key, mt, &t.event));
                }
            }
            Event::Amm(k, a, _) if matches!(a.as_ref(), AmmEvent::Swap(_)) => {
                if let Some(mt) = trade(k) {
                    rows.push(FeedRow::trade(k, mt, None));
                }
            }
            Event::CurveComplete(k, c) => rows.push(FeedRow::complete(k, c)),
            Event::Migrate(k, m) => rows.push(FeedRow::migrate(k, m)),
            Event::Claim(k, c) => rows.push(FeedRow::claim(k, c)),
            Event::CreatorProposed(k, c) => rows.push(FeedRow::creator_proposed(k, c)),
            Event::CreatorTransferred(k, c) => rows.push(FeedRow::creator_transferred(k, c)),
            Event::FeeSharesSet(k, f) => rows.push(FeedRow::fee_shares(k, f)),
            Event::Launch(_) | Event::Amm(..) => {}
        }
    }
    rows
}

async fn change(conn: &mut AnyConnection, change: &Change) -> Result<()> {
    use sea_query::ExprTrait;
    match change {
        Change::Account(_) | Change::Event(_) | Change::TokenAccount(_) => Ok(()),
        Change::Closed { address, version } => {
            let (slot, write_version) = (Val::int(version.slot), Val::int(version.write_version));
            for kind in AccountKind::ALL {
                let older = Expr::col("slot")
                    .lt(Expr::val(slot.clone()))
                    .or(Expr::col("slot")
                        .eq(Expr::val(slot.clone()))
                        .and(Expr::col("write_version").lte(Expr::val(write_version.clone()))));
                let stmt = Query::delete()
                    .from_table(kind.table())
                    .and_where(Expr::col("address").eq(address.to_string()))
                    .and_where(older)
                    .to_owned();
                exec(conn, &stmt).await?;
            }
            Ok(())
        }
        Change::TokenHolders {
            mint,
            version,
            present,
        } => super::holders::reconcile(conn, mint, *version, present).await,
        Change::Oracle(p) => {
            exec(conn, &upsert_accounts("oracle_prices", vec![oracle_row(p)])).await
        }
    }
}

/// The row of an oracle price account's write.
fn oracle_row(p: &OraclePrice) -> Row {
    let mut row: Row = vec![
        ("address", Val::key(&p.address)),
        ("price", Val::int(p.price)),
        ("conf", Val::num(p.conf)),
        ("exponent", Val::int(p.exponent)),
        ("publish_time", Val::int(p.publish_time)),
    ];
    row.extend(version_cols(p.version));
    row
}

fn opt_key(k: &Pubkey) -> Val {
    Val::OptText((*k != Pubkey::default()).then(|| k.to_string()))
}

/// The table and row of an account write.
pub fn account_row(w: &AccountWrite) -> (&'static str, Row) {
    let mut row: Row = vec![("address", Val::key(&w.address))];
    match &w.state {
        AccountState::Config(c) => {
            let fees = c.fee_schedule();
            row.extend([
                (
                    "preset",
                    Val::Text(
                        curve::Preset::from_u8(c.preset)
                            .map_or("unknown", |p| p.name())
                            .into(),
                    ),
                ),
                (
                    "quote",
                    Val::Text(
                        curve::QuoteAsset::from_u8(c.quote)
                            .map_or("unknown", |q| q.name())
                            .into(),
                    ),
                ),
                ("quote_mint", Val::key(&c.quote_mint)),
                ("quote_decimals", Val::int(c.quote_decimals)),
                ("partner", Val::key(&c.partner)),
                ("threshold", Val::num(c.threshold)),
                ("sale_supply", Val::num(c.sale_supply)),
                ("migration_supply", Val::num(c.migration_supply)),
                ("creator_fee_share_bps", Val::int(c.creator_fee_share_bps)),
                ("cliff_fee_bps", Val::int(fees.cliff_fee_bps)),
                ("final_fee_bps", Val::int(fees.final_fee_bps())),
            ]);
        }
        AccountState::Pool(p) => {
            row.extend([
                ("mint", Val::key(&p.base_mint)),
                ("config", Val::key(&p.config)),
                ("creator", Val::key(&p.creator)),
                ("quote_mint", Val::key(&p.quote_mint)),
                ("status", Val::Text(status_name(p.status).into())),
                ("sqrt_price", Val::num(p.sqrt_price)),
                ("base_reserve", Val::num(p.base_reserve)),
                ("quote_reserve", Val::num(p.quote_reserve)),
                ("progress_bps", w.progress_bps.map_or(Val::Null, Val::int)),
                ("creator_fee_unclaimed", Val::num(p.creator_fee_unclaimed)),
                ("partner_fee_unclaimed", Val::num(p.partner_fee_unclaimed)),
                ("creator_fee_claimed", Val::num(p.creator_fee_claimed)),
                ("partner_fee_claimed", Val::num(p.partner_fee_claimed)),
                (
                    "creator_surplus_unclaimed",
                    Val::num(p.creator_surplus_unclaimed),
                ),
                (
                    "partner_surplus_unclaimed",
                    Val::num(p.partner_surplus_unclaimed),
                ),
                ("launch_timestamp", Val::int(p.launch_timestamp)),
                ("complete_timestamp", Val::int(p.complete_timestamp)),
                ("migrate_timestamp", Val::int(p.migrate_timestamp)),
                ("amm_pool", opt_key(&p.amm_pool)),
                ("migrated_base", Val::num(p.migrated_base)),
                ("migrated_quote", Val::num(p.migrated_quote)),
            ]);
        }
        AccountState::AmmPool(p) => {
            row.extend([
                ("mint_a", Val::key(&p.mint_a)),
                ("mint_b", Val::key(&p.mint_b)),
                ("vault_a", Val::key(&p.vault_a)),
                ("vault_b", Val::key(&p.vault_b)),
                ("creator", Val::key(&p.creator)),
                ("fee_bps", Val::int(p.fee_bps)),
                ("reserve_a", Val::num(p.reserve_a)),
                ("reserve_b", Val::num(p.reserve_b)),
                ("liquidity", Val::num(p.liquidity)),
                ("locked_liquidity", Val::num(p.locked_liquidity)),
                ("fee_growth_a", Val::num(p.fee_growth_a)),
                ("fee_growth_b", Val::num(p.fee_growth_b)),
                ("created_at", Val::int(p.created_at)),
            ]);
        }
        AccountState::Position(p) => {
            row.extend([
                ("pool", Val::key(&p.pool)),
                ("owner", Val::key(&p.owner)),
                ("position_id", Val::num(p.id)),
                ("liquidity", Val::num(p.liquidity)),
                ("locked_liquidity", Val::num(p.locked_liquidity)),
                ("fees_owed_a", Val::num(p.fees_owed_a)),
                ("fees_owed_b", Val::num(p.fees_owed_b)),
                ("fees_claimed_a", Val::num(p.fees_claimed_a)),
                ("fees_claimed_b", Val::num(p.fees_claimed_b)),
            ]);
        }
        AccountState::FeeShares(s) => {
            let used = &s.slots[..(s.count as usize).min(s.slots.len())];
            let recipients: String = used.iter().map(|r| format!(" {}", r.wallet)).collect();
            row.extend([
                ("pool", Val::key(&s.pool)),
                ("locked", Val::int(s.locked)),
                ("recipients", Val::Text(format!("{recipients} "))),
            ]);
        }
    }
    row.extend(version_cols(w.version));
    row.push(("data", Val::Bytes(w.data.clone())));
    (w.state.kind().table(), row)
}

/// Writes an event that is not batched (a launch); returns the highest feed `seq` written.
async fn event(conn: &mut AnyConnection, e: &Event, now: i64) -> Result<Option<i64>> {
    match (e, event_row(e)) {
        (_, Some((table, row))) => {
            exec(conn, &insert_events(table, vec![row])).await?;
            Ok(None)
        }
        (Event::Launch(l), None) => launch(conn, l, now).await,
        _ => Ok(None),
    }
}

/// The table and row of an event (launches, which merge with backfilled rows, are written apart).
/// The table an event's row goes to, and the event's slot (`None` for a launch, which its own path
/// writes, and for the events only the feed keeps). Cheap: what a batch writes where is known before any row is built.
pub fn event_target(e: &Event) -> Option<(&'static str, u64)> {
    Some(match e {
        Event::Launch(_)
        | Event::CreatorProposed(..)
        | Event::CreatorTransferred(..)
        | Event::FeeSharesSet(..) => return None,
        Event::Trade(t) => ("trades", t.key.slot),
        Event::CurveComplete(k, _) => ("curve_completions", k.slot),
        Event::Claim(k, _) => ("claims", k.slot),
        Event::Migrate(k, _) => ("migrations", k.slot),
        Event::Amm(k, e, _) => match **e {
            AmmEvent::Swap(_) => ("amm_swaps", k.slot),
            _ => ("amm_liquidity", k.slot),
        },
    })
}

pub fn event_row(e: &Event) -> Option<(&'static str, Row)> {
    let (table, _) = event_target(e)?;
    let row = match e {
        Event::Launch(_)
        | Event::CreatorProposed(..)
        | Event::CreatorTransferred(..)
        | Event::FeeSharesSet(..) => return None,
        Event::Trade(t) => {
            let e = &t.event;
            let mut row = key_cols(&t.key);
            row.extend([
                ("pool", Val::key(&e.pool)),
                ("mint", Val::key(&e.mint)),
                ("trader", Val::key(&e.trader)),
                ("side", Val::Text(t.side.name().into())),
                ("amount_offered", Val::num(e.amount_offered)),
                ("amount_in", Val::num(e.amount_in)),
                ("amount_out", Val::num(e.amount_out)),
                ("min_amount_out", Val::num(e.min_amount_out)),
                ("fee", Val::num(e.fee)),
                ("creator_fee", Val::num(e.creator_fee)),
                ("partner_fee", Val::num(e.partner_fee)),
                ("referrer", opt_key(&e.referrer)),
                ("referral_fee", Val::num(e.referral_fee)),
                ("refund", Val::num(e.refund)),
                ("fee_bps", Val::int(e.fee_bps)),
                (
                    "price",
                    Val::OptText(t.market.as_ref().map(|m| m.price.to_string())),
                ),
                ("sqrt_price", Val::num(e.sqrt_price)),
                ("base_reserve", Val::num(e.base_reserve)),
                ("quote_reserve", Val::num(e.quote_reserve)),
                ("progress_bps", Val::int(e.progress_bps)),
                ("complete", Val::int(e.complete)),
                ("time", Val::int(e.timestamp)),
            ]);
            row
        }
        Event::CurveComplete(k, e) => {
            let mut row = key_cols(k);
            row.extend([
                ("pool", Val::key(&e.pool)),
                ("mint", Val::key(&e.mint)),
                ("trader", Val::key(&e.trader)),
                ("sqrt_price", Val::num(e.sqrt_price)),
                ("time", Val::int(e.timestamp)),
            ]);
            row
        }
        Event::Claim(k, e) => {
            let mut row = key_cols(k);
            row.extend([
                ("pool", Val::key(&e.pool)),
                ("mint", Val::key(&e.mint)),
                ("claimer", Val::key(&e.claimer)),
                ("kind", Val::Text(claim_kind_name(e.kind).into())),
                ("amount", Val::num(e.amount)),
                ("base_amount", Val::num(e.base_amount)),
                ("time", Val::int(e.timestamp)),
            ]);
            row
        }
        Event::Migrate(k, e) => {
            let mut row = key_cols(k);
            row.extend([
                ("pool", Val::key(&e.pool)),
                ("mint", Val::key(&e.mint)),
                ("amm_pool", Val::key(&e.amm_pool)),
                ("creator_position", Val::key(&e.creator_position)),
                ("partner_position", Val::key(&e.partner_position)),
                ("base_amount", Val::num(e.base_amount)),
                ("quote_amount", Val::num(e.quote_amount)),
                ("liquidity_per_position", Val::num(e.liquidity_per_position)),
                ("surplus", Val::num(e.surplus)),
                ("creator_surplus", Val::num(e.creator_surplus)),
                ("partner_surplus", Val::num(e.partner_surplus)),
                ("burnt_base", Val::num(e.burnt_base)),
                ("sqrt_price", Val::num(e.sqrt_price)),
                ("migrator", Val::key(&e.migrator)),
                ("time", Val::int(e.timestamp)),
            ]);
            row
        }
        Event::Amm(k, e, _) => amm_event(k, e),
    };
    Some((table, row))
}

fn amm_event(k: &EventKey, e: &AmmEvent) -> Row {
    let mut row = key_cols(k);
    let liquidity = |pool: &Pubkey,
                     position: &Pubkey,
                     owner: &Pubkey,
                     kind: &str,
                     liquidity: u128,
                     a: u64,
                     b: u64,
                     time: i64| {
        vec![
            ("pool", Val::key(pool)),
            ("position", Val::key(position)),
            ("owner", Val::key(owner)),
            ("kind", Val::Text(kind.into())),
            ("liquidity", Val::num(liquidity)),
            ("amount_a", Val::num(a)),
            ("amount_b", Val::num(b)),
            ("time", Val::int(time)),
        ]
    };
    let cols = match e {
        AmmEvent::Swap(s) => {
            row.extend([
                ("pool", Val::key(&s.pool)),
                ("trader", Val::key(&s.trader)),
                ("a_to_b", Val::int(s.a_to_b)),
                ("amount_in", Val::num(s.amount_in)),
                ("amount_out", Val::num(s.amount_out)),
                ("fee", Val::num(s.fee)),
                ("reserve_a", Val::num(s.reserve_a)),
                ("reserve_b", Val::num(s.reserve_b)),
                ("time", Val::int(s.timestamp)),
            ]);
            return row;
        }
        // Pool creation shows in the pool account; the event adds nothing the index keeps.
        AmmEvent::CreatePool(p) => liquidity(
            &p.pool,
            &Pubkey::default(),
            &p.creator,
            "create-pool",
            0,
            0,
            0,
            p.timestamp,
        ),
        AmmEvent::CreatePosition(p) => liquidity(
            &p.pool,
            &p.position,
            &p.owner,
            "create-position",
            0,
            0,
            0,
            0,
        ),
        AmmEvent::AddLiquidity(a) => liquidity(
            &a.pool,
            &a.position,
            &a.owner,
            "add",
            a.liquidity,
            a.amount_a,
            a.amount_b,
            a.timestamp,
        ),
        AmmEvent::RemoveLiquidity(r) => liquidity(
            &r.pool,
            &r.position,
            &r.owner,
            "remove",
            r.liquidity,
            r.amount_a,
            r.amount_b,
            r.timestamp,
        ),
        AmmEvent::LockPosition(l) => liquidity(
            &l.pool,
            &l.position,
            &l.owner,
            "lock",
            l.liquidity,
            0,
            0,
            l.timestamp,
        ),
        AmmEvent::ClaimPositionFee(c) => liquidity(
            &c.pool,
            &c.position,
            &c.owner,
            "claim-fee",
            0,
            c.amount_a,
            c.amount_b,
            c.timestamp,
        ),
    };
    row.extend(cols);
    row
}

async fn launch(conn: &mut AnyConnection, l: &Launch, now: i64) -> Result<Option<i64>> {
    use sea_query::ExprTrait;
    let row: Row = vec![
        ("mint", Val::key(&l.mint)),
        ("pool", Val::key(&l.pool)),
        ("config", Val::key(&l.config)),
        ("creator", Val::key(&l.creator)),
        ("quote_mint", Val::key(&l.quote_mint)),
        ("name", Val::Text(l.name.clone())),
        ("symbol", Val::Text(l.symbol.clone())),
        ("uri", Val::Text(l.uri.clone())),
        ("preset", Val::Text(l.preset.clone())),
        ("quote", Val::Text(l.quote.clone())),
        ("salt", Val::num(l.salt)),
        ("created_slot", Val::int(l.created_slot)),
        ("created_at", Val::int(l.created_at)),
        ("signature", Val::OptText(l.signature.clone())),
    ];
    // A launch seen in its transaction replaces one backfilled from account state (which knows neither
    // the creating signature nor the slot); otherwise the first write stays.
    let stmt = sql::insert("launches", vec![row])
        .on_conflict(
            OnConflict::column("mint")
                .update_columns(["created_slot", "created_at", "signature"])
                .action_and_where(
                    Expr::col(("launches", "signature"))
                        .is_null()
                        .and(Expr::col(("excluded", "signature")).is_not_null()),
                )
                .to_owned(),
        )
        .returning_col("mint")
        .to_owned();
    let written = sql::query(Backend::of(conn), &stmt)
        .fetch_optional(&mut *conn)
        .await?
        .is_some();
    super::listing::created(conn, &l.mint.to_string(), now).await?;
    // Its off-chain metadata, queued for the API's worker (a launch queued already keeps its row).
    super::offchain::enqueue(conn, &l.mint.to_string(), &l.uri, now).await?;
    // Announced once the index knows its creating transaction (the feed's key keeps it to one event).
    match (written, FeedRow::launch(l)) {
        (true, Some(row)) => super::feed::insert(conn, vec![row]).await,
        _ => Ok(None),
    }
}
