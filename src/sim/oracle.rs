//! The safety oracle: it knows the truth no participant can see.

use super::types::{ClientId, Millis, Token};
use serde::{Deserialize, Serialize};

/// Oracle findings kept at most; past it, counts still grow.
pub const FINDINGS_MAX: usize = 10_000;

/// A write applied at the resource by a client that was not the service's
/// holder at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleWrite {
    pub at: Millis,
    pub client: ClientId,
    pub token: Option<Token>,
    pub holder: Option<ClientId>,
    /// Accepted: a corruption. Rejected: a save by fencing.
    pub accepted: bool,
}

/// A stretch of time in which two or more clients believed they held the lock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    pub from: Millis,
    /// `None` while it lasts.
    pub to: Option<Millis>,
    pub clients: Vec<ClientId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Oracle {
    corruptions: u64,
    saves: u64,
    stale_writes: Vec<StaleWrite>,
    overlaps: Vec<Overlap>,
}

impl Oracle {
    pub fn corruptions(&self) -> u64 {
        self.corruptions
    }

    pub fn saves(&self) -> u64 {
        self.saves
    }

    pub fn stale_writes(&self) -> &[StaleWrite] {
        &self.stale_writes
    }

    pub fn overlaps(&self) -> &[Overlap] {
        &self.overlaps
    }

    pub fn last_stale_write(&self) -> Option<&StaleWrite> {
        self.stale_writes.last()
    }

    /// True while two or more clients believe they hold the lock.
    pub fn in_overlap(&self) -> bool {
        self.overlaps.last().is_some_and(|o| o.to.is_none())
    }

    pub(crate) fn record_stale(&mut self, stale: StaleWrite) {
        if stale.accepted {
            self.corruptions += 1;
        } else {
            self.saves += 1;
        }
        if self.stale_writes.len() < FINDINGS_MAX {
            self.stale_writes.push(stale);
        }
    }

    /// Called whenever a belief changes, with the clients believing they hold.
    /// Returns `Some(true)` when an overlap starts and `Some(false)` when it ends.
    pub(crate) fn believers(&mut self, now: Millis, holders: &[ClientId]) -> Option<bool> {
        let open = self.in_overlap();
        if holders.len() >= 2 {
            if let Some(last) = self.overlaps.last_mut().filter(|_| open) {
                if last.clients != holders {
                    // Who overlaps changed: close this stretch and open another.
                    last.to = Some(now);
                    self.push_overlap(now, holders);
                }
                return None;
            }
            self.push_overlap(now, holders);
            return Some(true);
        }
        if open {
            if let Some(last) = self.overlaps.last_mut() {
                last.to = Some(now);
            }
            return Some(false);
        }
        None
    }

    fn push_overlap(&mut self, now: Millis, holders: &[ClientId]) {
        if self.overlaps.len() < FINDINGS_MAX {
            self.overlaps.push(Overlap {
                from: now,
                to: None,
                clients: holders.to_vec(),
            });
        }
    }
}

impl std::hash::Hash for Oracle {
    /// What decides the oracle's next findings: its counts and whether an
    /// overlap is open, not the list of everything it found.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.corruptions.hash(state);
        self.saves.hash(state);
        self.stale_writes.len().hash(state);
        self.overlaps.len().hash(state);
        self.overlaps.last().map(|o| (o.to, &o.clients)).hash(state);
    }
}
