//! The chain's clock: the time fees are charged by. The programs read the Clock sysvar's `unix_timestamp`,
//! which can differ from this server's wall clock by seconds (on a localnet, by whatever
//! `localnet_advanceClock` added). Quotes and the curve view therefore read the same sysvar over RPC and
//! advance the reading by the time since it was taken; a reading is reused for `--chain-clock-ttl-ms`, and
//! concurrent requests share one read.

use solana_commitment_config::CommitmentConfig;
use solana_rpc_client::nonblocking::rpc_client::RpcClient;
use solana_rpc_client_api::config::{RpcAccountInfoConfig, UiAccountEncoding, UiDataSliceConfig};
use std::time::{Duration, Instant};

/// The Clock sysvar's address.
pub const CLOCK_SYSVAR: solana_pubkey::Pubkey =
    solana_pubkey::pubkey!("SysvarC1ock11111111111111111111111111111111");

/// What one reading of the chain's clock says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainTime {
    /// The chain's unix seconds now: the reading advanced by the whole seconds since it was taken.
    pub now: i64,
    /// The chain's unix seconds as read: the least the chain's clock can show when a transaction lands
    /// (it never goes back).
    pub observed: i64,
}

#[derive(Debug, Clone, Copy)]
struct Reading {
    unix: i64,
    at: Instant,
}

/// The chain's clock, read over RPC.
#[derive(Debug)]
pub struct ChainClock {
    ttl: Duration,
    last: tokio::sync::Mutex<Option<Reading>>,
}

/// `unix_timestamp` of a Clock sysvar's data (slot, epoch start, epoch, leader schedule epoch, unix
/// timestamp: five little-endian 8-byte fields).
pub fn unix_timestamp(data: &[u8]) -> Option<i64> {
    sliced_unix_timestamp(data.get(UNIX_TIMESTAMP_AT..UNIX_TIMESTAMP_AT + 8)?)
}

/// Where `unix_timestamp` sits in the Clock sysvar's data.
const UNIX_TIMESTAMP_AT: usize = 32;

/// The read of the Clock sysvar: its `unix_timestamp` alone (8 bytes, base64). The client's default
/// encoding (base64 of zstd) made a zstd context on each side for every read, for 40 bytes.
fn timestamp_only() -> RpcAccountInfoConfig {
    RpcAccountInfoConfig {
        encoding: Some(UiAccountEncoding::Base64),
        data_slice: Some(UiDataSliceConfig {
            offset: UNIX_TIMESTAMP_AT,
            length: 8,
        }),
        commitment: Some(CommitmentConfig::processed()),
        min_context_slot: None,
    }
}

/// `unix_timestamp` from the 8 bytes [`timestamp_only`] reads.
fn sliced_unix_timestamp(data: &[u8]) -> Option<i64> {
    Some(i64::from_le_bytes(data.try_into().ok()?))
}

fn wall() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl ChainClock {
    pub fn new(ttl: Duration) -> ChainClock {
        ChainClock {
            ttl,
            last: tokio::sync::Mutex::new(None),
        }
    }

    /// The chain's time: from a reading at most the TTL old (taken after this call began, with a TTL of 0),
    /// else read now. When the RPC node does not answer, the last reading advanced, else the wall clock
    /// (logged: quotes may then price the fee of another step).
    pub async fn now(&self, rpc: &RpcClient) -> ChainTime {
        let asked = Instant::now();
        let mut last = self.last.lock().await;
        let fresh = last.filter(|r| r.at + self.ttl >= asked);
        let reading = match fresh {
            Some(r) => Some(r),
            None => match rpc
                .get_ui_account_with_config(&CLOCK_SYSVAR, timestamp_only())
                .await
            {
                Ok(resp) => {
                    let r = resp
                        .value
                        .and_then(|a| a.data.decode())
                        .and_then(|data| sliced_unix_timestamp(&data))
                        .map(|unix| Reading {
                            unix,
                            at: Instant::now(),
                        });
                    if r.is_some() {
                        *last = r;
                    }
                    r.or(*last)
                }
                Err(e) => {
                    tracing::warn!(
                        "chain clock: reading the Clock sysvar failed ({}); using the last reading",
                        crate::redact::redact(&e.to_string())
                    );
                    *last
                }
            },
        };
        match reading {
            Some(r) => ChainTime {
                now: r.unix + r.at.elapsed().as_secs() as i64,
                observed: r.unix,
            },
            None => {
                let now = wall();
                ChainTime { now, observed: now }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_sysvar_layout() {
        let mut data = vec![0u8; 40];
        data[..8].copy_from_slice(&7u64.to_le_bytes());
        data[32..].copy_from_slice(&1_800_000_123i64.to_le_bytes());
        assert_eq!(unix_timestamp(&data), Some(1_800_000_123));
        assert_eq!(unix_timestamp(&data[..39]), None);
        assert_eq!(sliced_unix_timestamp(&data[32..]), Some(1_800_000_123));
        assert_eq!(sliced_unix_timestamp(&data[31..]), None);
    }
}
