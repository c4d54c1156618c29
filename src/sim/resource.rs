//! The protected resource: a shared counter that may check fencing tokens.

use super::history::RejectReason;
use super::types::{Fencing, Token};
use serde::{Deserialize, Serialize};

/// The resource's name as the page shows it.
pub const RESOURCE_NAME: &str = "shared-counter";

/// What the resource decided about one write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Accepted { value: u64 },
    Rejected(RejectReason),
}

/// A counter that counts writes. With fencing on it accepts a write iff its
/// token is at least the highest token it has accepted so far: equal tokens
/// pass so that one holder can write many times.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resource {
    value: u64,
    highest: Option<Token>,
    accepted: u64,
    rejected: u64,
}

impl Default for Resource {
    fn default() -> Self {
        Resource::new()
    }
}

impl Resource {
    pub fn new() -> Resource {
        Resource {
            value: 0,
            highest: None,
            accepted: 0,
            rejected: 0,
        }
    }

    pub fn value(&self) -> u64 {
        self.value
    }

    /// The highest token seen in an accepted write. The resource knows only
    /// the tokens that writes brought it.
    pub fn highest(&self) -> Option<Token> {
        self.highest
    }

    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    pub fn apply(&mut self, fencing: Fencing, token: Option<Token>) -> Verdict {
        if fencing.is_on() {
            if let Some(reason) = self.check(token) {
                self.rejected += 1;
                return Verdict::Rejected(reason);
            }
        }
        if let Some(t) = token {
            let before = self.highest;
            self.highest = Some(self.highest.map_or(t, |h| h.max(t)));
            // With fencing on the highest accepted token never goes backwards.
            debug_assert!(!fencing.is_on() || before <= self.highest);
        }
        self.value += 1;
        self.accepted += 1;
        Verdict::Accepted { value: self.value }
    }

    fn check(&self, token: Option<Token>) -> Option<RejectReason> {
        let Some(token) = token else {
            return Some(RejectReason::NoToken);
        };
        match self.highest {
            Some(highest) if token < highest => {
                Some(RejectReason::TokenBelowHighest { token, highest })
            }
            _ => None,
        }
    }
}
