//! Counted admission: how many of one kind of long-lived request (live feed connections, relays awaiting
//! their confirmation) each client address and the whole process hold at once. A [`Permit`] counts one and
//! gives it back when dropped, however its request ends.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The client holds its share already.
    PerClient,
    /// The process holds as many as it takes (whoever holds them).
    Full,
}

/// What is held: per client address, and the total (kept, not summed at every admission: a flood of
/// distinct addresses would make each admission walk them all).
#[derive(Default)]
struct Counts {
    per_client: HashMap<Option<IpAddr>, usize>,
    total: usize,
}

/// One kind of request's counts and caps.
pub struct Admissions {
    counts: Arc<Mutex<Counts>>,
    max_per_client: usize,
    max_total: usize,
}

impl Admissions {
    pub fn new(max_per_client: usize, max_total: usize) -> Admissions {
        Admissions {
            counts: Arc::default(),
            max_per_client,
            max_total,
        }
    }

    /// Counts one more for `client` (`None`: the address is unknown, counted as one client); refused when the
    /// client holds its share already, else when the process holds as many as it takes.
    pub fn admit(&self, client: Option<IpAddr>) -> Result<Permit, Refusal> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        // The client's own share first: past it the refusal is the client's to act on, whatever the total.
        if counts.per_client.get(&client).copied().unwrap_or(0) >= self.max_per_client {
            return Err(Refusal::PerClient);
        }
        if counts.total >= self.max_total {
            return Err(Refusal::Full);
        }
        *counts.per_client.entry(client).or_default() += 1;
        counts.total += 1;
        Ok(Permit {
            counts: self.counts.clone(),
            client,
        })
    }

    /// What is held now: (clients holding any, total).
    pub fn held(&self) -> (usize, usize) {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        (counts.per_client.len(), counts.total)
    }
}

/// One admitted request, given back when dropped.
pub struct Permit {
    counts: Arc<Mutex<Counts>>,
    client: Option<IpAddr>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.per_client.get_mut(&self.client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.per_client.remove(&self.client);
            }
            counts.total = counts.total.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        s.parse().ok()
    }

    #[test]
    fn each_client_holds_its_share_and_the_process_its_total_until_permits_drop() {
        let a = Admissions::new(2, 3);
        let (a1, a2) = (
            a.admit(ip("10.0.0.1")).unwrap(),
            a.admit(ip("10.0.0.1")).unwrap(),
        );
        assert_eq!(a.admit(ip("10.0.0.1")).err(), Some(Refusal::PerClient));
        let b1 = a.admit(ip("10.0.0.2")).unwrap();
        assert_eq!(a.admit(ip("10.0.0.3")).err(), Some(Refusal::Full));
        assert_eq!(a.held(), (2, 3));
        drop(a1);
        let a3 = a.admit(ip("10.0.0.1")).unwrap();
        drop((a2, a3, b1));
        // Nothing is kept for a client that holds nothing.
        assert_eq!(a.held(), (0, 0));
        let _unknown = a.admit(None).unwrap();
        assert_eq!(a.held(), (1, 1));
    }
}
