//! Prints the preset table: for each preset x quote, the start price, the migration price, and what buying the
//! whole curve does (tokens sold, quote raised, tokens left for the pool, rounding dust).
//!
//! `cargo run -p launchpad-curve --bin presets`

use curve::constants::{TOKEN_DECIMALS, TOTAL_SUPPLY_BASE_UNITS};
use curve::display::{amount_to_decimal, sqrt_price_to_decimal};
use curve::{preset_config, CurveError, Preset, QuoteAsset, Rounding};

fn main() -> Result<(), CurveError> {
    println!(
        "{:<10} {:<5} {:>4} {:>22} {:>22} {:>20} {:>16} {:>20} {:>6} {:>6}",
        "preset",
        "quote",
        "segs",
        "start price",
        "migration price",
        "tokens sold",
        "quote raised",
        "tokens left for pool",
        "dust",
        "excess"
    );
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let cfg = preset_config(preset, quote)?;
            let market = cfg.market();
            let qd = quote.decimals();
            // Buy the whole curve in 1,000 equal steps, as a crowd of buyers would.
            let mut state = market.initial_state()?;
            let step = quote.threshold() / 1_000 + 1;
            let (mut sold, mut raised) = (0u64, 0u64);
            while !market.is_complete(&state) {
                let r = market.buy_exact_in(&state, step, 0)?;
                sold += r.amount_out;
                raised += r.amount_in - r.fee;
                state = r.next;
            }
            let excess = market.curve.total_quote(Rounding::Up)? - cfg.threshold as u128;
            println!(
                "{:<10} {:<5} {:>4} {:>22} {:>22} {:>20} {:>16} {:>20} {:>6} {:>6}",
                preset.name(),
                quote.name(),
                cfg.segment_count,
                sqrt_price_to_decimal(cfg.sqrt_start_price, TOKEN_DECIMALS, qd, 12)?,
                sqrt_price_to_decimal(market.curve.sqrt_end_price(), TOKEN_DECIMALS, qd, 12)?,
                amount_to_decimal(sold, TOKEN_DECIMALS),
                amount_to_decimal(raised, qd),
                amount_to_decimal(state.base_reserve, TOKEN_DECIMALS),
                market.sale_dust()?,
                excess,
            );
            assert_eq!(sold + state.base_reserve, TOTAL_SUPPLY_BASE_UNITS);
        }
    }
    println!();
    println!(
        "{:<10} {:<5} {:>18} {:>16} {:>8} {:>9} {:>9} {:>22}",
        "preset",
        "quote",
        "AMM tokens",
        "AMM quote",
        "surplus",
        "creator",
        "partner",
        "locked liquidity each"
    );
    for preset in Preset::ALL {
        for quote in QuoteAsset::ALL {
            let cfg = preset_config(preset, quote)?;
            let plan = curve::amm::plan_migration(
                cfg.migration_supply,
                cfg.threshold,
                cfg.curve().sqrt_end_price(),
                cfg.creator_surplus_share_bps,
            )?;
            println!(
                "{:<10} {:<5} {:>18} {:>16} {:>8} {:>9} {:>9} {:>22}",
                preset.name(),
                quote.name(),
                amount_to_decimal(plan.base_per_position * 2, TOKEN_DECIMALS),
                amount_to_decimal(plan.quote_per_position * 2, quote.decimals()),
                plan.surplus,
                plan.creator_surplus,
                plan.partner_surplus,
                plan.liquidity_per_position,
            );
        }
    }
    println!();
    println!("Prices are whole quote per whole token. dust: token base units of the 80% sale supply the exact");
    println!("curve leaves unsold (they go to the buyer that completes the curve); excess: quote base units the");
    println!("exact curve would take above the threshold (the completing buy pays exactly the threshold).");
    println!("At migration the AMM opens at the final curve price; surplus (quote base units the AMM does not take)");
    println!("splits 50/50, the creator's half rounded down; each party's position holds the liquidity shown, locked.");
    Ok(())
}
