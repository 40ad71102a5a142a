//! The trader's balance of a launch's token just before a trade's transaction, from the transaction's own
//! pre-token balances: stored with the trade (`market_trades.wallet_before`) so that PnL accounts a transfer
//! between two trades where it happened (`index::pnl`).

use index::model::Event;
use std::collections::{HashMap, HashSet};
use yellowstone_grpc_proto::prelude::SubscribeUpdateTransaction;

/// The pre-transaction token balances of one transaction, summed by (owner, mint).
#[derive(Debug, Default)]
pub struct Before {
    balances: HashMap<(String, String), u64>,
    /// The (wallet, mint) pairs whose balance a trade of this transaction already carries: a second trade
    /// of the same wallet in the same transaction comes after the first, not before the transaction.
    stamped: HashSet<(String, String)>,
}

impl Before {
    /// The balances of `t`; `None` when the update carries no token balances at all (a trade always moves
    /// a token account, so that is an update without them, not a wallet without tokens).
    pub fn of(t: &SubscribeUpdateTransaction) -> Option<Before> {
        let meta = t.transaction.as_ref()?.meta.as_ref()?;
        if meta.post_token_balances.is_empty() {
            return None;
        }
        let mut balances = HashMap::new();
        for b in &meta.pre_token_balances {
            let amount = b
                .ui_token_amount
                .as_ref()
                .and_then(|a| a.amount.parse::<u64>().ok())
                .unwrap_or(0);
            let sum: &mut u64 = balances
                .entry((b.owner.clone(), b.mint.clone()))
                .or_default();
            *sum = sum.saturating_add(amount);
        }
        Some(Before {
            balances,
            stamped: HashSet::new(),
        })
    }

    /// Puts the trader's balance before the transaction on `event`'s market trade (its first of the wallet
    /// and mint in this transaction; an account the transaction did not hold before counts zero).
    pub fn stamp(&mut self, event: &mut Event) {
        let Some(trade) = event.market_trade_mut() else {
            return;
        };
        let key = (trade.wallet.clone(), trade.mint.clone());
        if self.stamped.insert(key.clone()) {
            trade.wallet_before = Some(self.balances.get(&key).copied().unwrap_or(0));
        }
    }
}
