//! The protected resource: a shared counter that may check fencing tokens.
//!
//! Each holder updates it by reading and writing back what it read plus
//! one (the read when its critical section starts, the write when it
//! sends), so a stale holder's write overwrites the increments made in
//! between: they are lost, and the counter reads less than the number of
//! increments accepted.

use super::history::RejectReason;
use super::types::{ClientId, Fencing, Token};
use serde::{Deserialize, Serialize};

/// The resource's name as the page shows it.
pub const RESOURCE_NAME: &str = "shared-counter";

/// How the resource checks a write when fencing is on: each lock system
/// offers its own way, and the page shows which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FenceRule {
    /// The write carries the lock's token; it passes iff the token is at
    /// least the highest the resource has accepted.
    Highest,
    /// The write is a transaction with a condition on the lock item: it
    /// passes iff the lock service still names the writer as the owner
    /// (DynamoDB's `TransactWriteItems` with a `ConditionCheck`).
    LockOwner,
    /// The data carries its own version: the write passes iff it names the
    /// version the writer last read, and bumps it (`UPDATE ... WHERE
    /// version = n`). The counter's value is that version.
    Version,
    /// Consul's sequencer, (Key, LockIndex, Session), which the docs say is
    /// "used to verify if the request belongs to the current lock holder":
    /// the write passes iff the lock key still holds the write's LockIndex
    /// under the write's Session. Really the resource reads the key (a
    /// consistent GET) and compares both, then writes, with a window
    /// between the two unless the data lives in Consul too and one Txn
    /// does both (`check-session`, `check-index`); the model checks at the
    /// instant the write arrives, closing that window. Remembering the last
    /// tuple it accepted would not do: after a delete two sessions share
    /// LockIndex 1, and only the key knows which one holds it now.
    Sequencer,
    /// The write is one transaction with a check that the lock still holds
    /// the writer's grant (its token and lease): etcd's Txn comparing the
    /// lock key's create_revision, ZooKeeper's multi() with a check op on
    /// the lock node, a Redis script that reads the lock key's value,
    /// Chubby's CheckSequencer, Consul's `check-session`. It holds only
    /// where the data lives in the lock's own store (or the store is asked
    /// within the write); the model checks at the instant the write
    /// arrives, as that one transaction would.
    LockHeld,
}

impl FenceRule {
    /// Every rule, in the order above.
    pub const ALL: [FenceRule; 5] = [
        FenceRule::Highest,
        FenceRule::LockOwner,
        FenceRule::Version,
        FenceRule::Sequencer,
        FenceRule::LockHeld,
    ];
}

/// What the resource decided about one write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// `lost`: the increments this write overwrote (the counter had moved
    /// past what the writer read).
    Accepted {
        value: u64,
        lost: u32,
    },
    Rejected(RejectReason),
}

/// A counter written by read-modify-write: an accepted write sets it to the
/// value the writer computed. With fencing on it accepts a write iff its
/// token is at least the highest token it has seen so far (in an accepted
/// write, or announced by a new holder): equal tokens pass so that one
/// holder can write many times.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    value: u64,
    highest: Option<Token>,
    accepted: u64,
    rejected: u64,
    /// The highest token a new holder announced (`Announce::On`); none
    /// when nobody announces, as in every run made before the option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    announced: Option<Token>,
}

impl std::hash::Hash for Resource {
    /// Field by field, leaving out an announced token nobody sent: runs
    /// without announcements keep the fingerprints they always had.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
        self.highest.hash(state);
        self.accepted.hash(state);
        self.rejected.hash(state);
        if let Some(announced) = self.announced {
            announced.hash(state);
        }
    }
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
            announced: None,
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

    /// The highest token a new holder announced as it took over.
    pub fn announced(&self) -> Option<Token> {
        self.announced
    }

    /// The highest token the resource has seen, in a write it accepted or
    /// in an announcement: what a fenced write must reach.
    pub fn seen(&self) -> Option<Token> {
        self.highest.max(self.announced)
    }

    /// A new holder announces its token: the resource will refuse any
    /// lower one from now on. Nothing is written. Returns the highest
    /// token it had seen before.
    pub fn announce(&mut self, token: Token) -> Option<Token> {
        let before = self.seen();
        self.announced = Some(self.announced.map_or(token, |a| a.max(token)));
        before
    }

    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// What the counter would read had no increment been lost: one for
    /// every write it accepted.
    pub fn expected(&self) -> u64 {
        self.accepted
    }

    /// Increments overwritten by writes computed from an older read.
    pub fn lost(&self) -> u64 {
        self.accepted.saturating_sub(self.value)
    }

    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// Applies a write of `value` (what the writer read plus one). `owner`
    /// is the client the lock service names as the owner when the write
    /// arrives and whether it is the writer; only `FenceRule::LockOwner`
    /// reads it.
    pub fn apply(
        &mut self,
        fencing: Fencing,
        rule: FenceRule,
        token: Option<Token>,
        owner: Owner,
        value: u32,
    ) -> Verdict {
        if fencing.is_on() {
            let refusal = match rule {
                FenceRule::Highest => self.check(token),
                FenceRule::LockOwner => owner.check(),
                FenceRule::Version => self.check_version(token),
                FenceRule::Sequencer => owner.check_sequencer(token),
                FenceRule::LockHeld => owner.check_held(token),
            };
            if let Some(reason) = refusal {
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
        let value = u64::from(value);
        let lost = self.value.saturating_sub(value.saturating_sub(1));
        self.value = value;
        self.accepted += 1;
        Verdict::Accepted {
            value: self.value,
            lost: u32::try_from(lost).unwrap_or(u32::MAX),
        }
    }

    fn check_version(&self, token: Option<Token>) -> Option<RejectReason> {
        match token {
            Some(Token(v)) if v == self.value => None,
            Some(version) => Some(RejectReason::VersionMoved {
                version,
                current: Token(self.value),
            }),
            None => Some(RejectReason::NoToken),
        }
    }

    fn check(&self, token: Option<Token>) -> Option<RejectReason> {
        let Some(token) = token else {
            return Some(RejectReason::NoToken);
        };
        match (self.highest, self.announced) {
            // Announced higher than any write showed: the announcement refuses it.
            (highest, Some(announced)) if token < announced && highest < Some(announced) => {
                Some(RejectReason::TokenBelowAnnounced { token, announced })
            }
            (Some(highest), _) if token < highest => {
                Some(RejectReason::TokenBelowHighest { token, highest })
            }
            _ => None,
        }
    }
}

/// Who the lock service names as the owner when a write arrives, as a
/// conditional write would see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub owner: Option<ClientId>,
    pub writer: ClientId,
    /// The service's current grant as (token, lease key), which for
    /// Consul's sequencer is the key's (LockIndex, Session); `None` when
    /// nobody holds the lock. Only `FenceRule::Sequencer` reads it.
    pub current: Option<(Option<Token>, u64)>,
    /// The lease key of the grant the write was made under (its Session).
    pub lease_key: u64,
}

impl Owner {
    fn check_sequencer(self, token: Option<Token>) -> Option<RejectReason> {
        let Some(lock_index) = token else {
            return Some(RejectReason::NoToken);
        };
        if self.current == Some((token, self.lease_key)) {
            return None;
        }
        // Consul's LockIndex and session ids fit in 32 bits.
        let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Some(RejectReason::NotCurrentSequencer {
            lock_index: small(lock_index.0),
            session: small(self.lease_key),
            current: self
                .current
                .and_then(|(t, session)| t.map(|t| (small(t.0), small(session)))),
        })
    }

    fn check_held(self, token: Option<Token>) -> Option<RejectReason> {
        if token.is_none() {
            // A lock that grants no token: the grant itself (its session)
            // must still hold the lock.
            if self.current == Some((None, self.lease_key)) {
                return None;
            }
            return Some(RejectReason::NotSessionHolder {
                writer: self.writer,
                holder: self.owner,
            });
        }
        if self.current == Some((token, self.lease_key)) {
            return None;
        }
        Some(RejectReason::NotLockHolder {
            token,
            current: self.current.and_then(|(t, _)| t),
        })
    }

    fn check(self) -> Option<RejectReason> {
        if self.owner == Some(self.writer) {
            return None;
        }
        Some(RejectReason::NotOwner {
            writer: self.writer,
            owner: self.owner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::types::ClientId;
    use std::hash::{Hash, Hasher};

    fn owner() -> Owner {
        let a = ClientId::from_letter('A').unwrap();
        Owner {
            owner: Some(a),
            writer: a,
            current: None,
            lease_key: 0,
        }
    }

    fn hash_of(r: &Resource) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        r.hash(&mut h);
        h.finish()
    }

    #[test]
    fn an_announced_token_refuses_lower_ones_and_writes_nothing() {
        let mut r = Resource::new();
        let plain = hash_of(&r);
        assert_eq!(r.announce(Token(3)), None);
        assert_eq!(
            (r.value(), r.highest(), r.seen()),
            (0, None, Some(Token(3)))
        );
        assert_ne!(hash_of(&r), plain, "an announcement is state");
        let verdict = r.apply(Fencing::On, FenceRule::Highest, Some(Token(2)), owner(), 1);
        assert_eq!(
            verdict,
            Verdict::Rejected(RejectReason::TokenBelowAnnounced {
                token: Token(2),
                announced: Token(3),
            })
        );
        // The announcer's own token passes, and then a write has shown it.
        let verdict = r.apply(Fencing::On, FenceRule::Highest, Some(Token(3)), owner(), 1);
        assert_eq!(verdict, Verdict::Accepted { value: 1, lost: 0 });
        let verdict = r.apply(Fencing::On, FenceRule::Highest, Some(Token(2)), owner(), 1);
        assert_eq!(
            verdict,
            Verdict::Rejected(RejectReason::TokenBelowHighest {
                token: Token(2),
                highest: Token(3),
            })
        );
        assert_eq!(
            r.announce(Token(1)),
            Some(Token(3)),
            "a lower one lowers nothing"
        );
        assert_eq!(r.seen(), Some(Token(3)));
    }

    #[test]
    fn a_write_from_an_older_read_overwrites_the_increment_made_meanwhile() {
        let mut r = Resource::new();
        let b = r.apply(Fencing::Off, FenceRule::Highest, Some(Token(2)), owner(), 1);
        assert_eq!(b, Verdict::Accepted { value: 1, lost: 0 });
        // A read 0 before B's write, and writes 0 + 1.
        let a = r.apply(Fencing::Off, FenceRule::Highest, Some(Token(1)), owner(), 1);
        assert_eq!(a, Verdict::Accepted { value: 1, lost: 1 });
        assert_eq!((r.value(), r.expected(), r.lost()), (1, 2, 1));
        // Fenced, the same write is refused and nothing is lost.
        let mut r = Resource::new();
        r.apply(Fencing::On, FenceRule::Highest, Some(Token(2)), owner(), 1);
        let a = r.apply(Fencing::On, FenceRule::Highest, Some(Token(1)), owner(), 1);
        assert!(matches!(a, Verdict::Rejected(_)));
        assert_eq!((r.value(), r.expected(), r.lost()), (1, 1, 0));
    }
}
