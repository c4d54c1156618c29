//! The safety oracle: it knows the truth no participant can see.

use super::backend::copy_list;
use super::history::{RejectReason, Standing};
use super::types::{ClientId, Millis, Token};
use serde::{Deserialize, Serialize};

/// Oracle findings kept at most; past it, counts still grow.
pub const FINDINGS_MAX: usize = 10_000;
/// Grants remembered at most; a run has at most 1,000 commands, so far fewer.
const GRANTS_MAX: usize = 100_000;

/// A write applied at the resource by a client that was not the service's
/// holder at that moment (and, as `Oracle::last_write`, any write).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleWrite {
    pub at: Millis,
    pub client: ClientId,
    pub token: Option<Token>,
    pub holder: Option<ClientId>,
    /// Accepted and stale: a corruption. Rejected and stale: a save by fencing.
    pub accepted: bool,
    pub standing: Standing,
    /// The latest grant to another client since the writer's own: whose
    /// newer grant makes the write stale, and its token.
    #[serde(default)]
    pub newer: Option<GrantSeen>,
    /// The highest token the resource had seen when the write came (in
    /// accepted writes or announcements): what fencing compared it with.
    #[serde(default)]
    pub seen: Option<Token>,
    /// Why the resource refused it, when it did.
    #[serde(default)]
    pub reason: Option<RejectReason>,
    /// Accepted, the increments it overwrote: made by others after the
    /// writer read the counter.
    #[serde(default)]
    pub lost: u32,
}

impl StaleWrite {
    /// Whether fencing compared tokens and this write's was below none it
    /// had seen, though another client had been granted a newer one: the
    /// resource had not yet seen that token.
    pub fn newer_token_unseen(&self) -> bool {
        let Some(GrantSeen {
            token: Some(newer), ..
        }) = self.newer
        else {
            return false;
        };
        self.token.is_some_and(|t| t < newer) && self.seen < Some(newer)
    }
}

/// A grant the service made: to whom, with which token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantSeen {
    pub client: ClientId,
    pub token: Option<Token>,
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
    without_lease: u64,
    /// Every grant the service made, in order: who, under which lease key.
    grants: Vec<(ClientId, u64)>,
    /// Each grant's token, beside `grants`: it only explains a finding
    /// (which token the writer was behind), so it is not hashed.
    #[serde(default)]
    grant_tokens: Vec<Option<Token>>,
    stale_writes: Vec<StaleWrite>,
    overlaps: Vec<Overlap>,
    /// The latest write the resource decided on, the holder's included.
    #[serde(default)]
    last_write: Option<StaleWrite>,
}

impl Oracle {
    pub fn corruptions(&self) -> u64 {
        self.corruptions
    }

    pub fn saves(&self) -> u64 {
        self.saves
    }

    /// Becomes a copy of `source`, keeping its own lists' buffers. Every
    /// field is named, so a field added later is not missed.
    pub(crate) fn copy_from(&mut self, source: &Oracle) {
        let Oracle {
            corruptions,
            saves,
            without_lease,
            grants,
            grant_tokens,
            stale_writes,
            overlaps,
            last_write,
        } = self;
        (*corruptions, *saves, *without_lease) =
            (source.corruptions, source.saves, source.without_lease);
        *last_write = source.last_write;
        copy_list(grants, &source.grants);
        copy_list(grant_tokens, &source.grant_tokens);
        copy_list(stale_writes, &source.stale_writes);
        copy_list(overlaps, &source.overlaps);
    }

    /// Back to nothing found, keeping the lists' capacity: a copy of an
    /// empty oracle, whose lists allocate nothing.
    pub(crate) fn clear(&mut self) {
        self.copy_from(&Oracle::default());
    }

    /// How many grants the service made (a grant repeated while it lasts
    /// counts once), up to the limit of remembered grants.
    pub fn grants(&self) -> u64 {
        self.grants.len() as u64
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

    /// The latest write the resource accepted or rejected, whoever sent it
    /// (`standing` says whether it was the holder's).
    pub fn last_write(&self) -> Option<&StaleWrite> {
        self.last_write.as_ref()
    }

    /// True while two or more clients believe they hold the lock.
    pub fn in_overlap(&self) -> bool {
        self.overlaps.last().is_some_and(|o| o.to.is_none())
    }

    /// Accepted writes from a client whose lease was gone while nobody else
    /// had been granted the lock since: nothing corrupted.
    pub fn writes_without_lease(&self) -> u64 {
        self.without_lease
    }

    /// The service made a grant (or still holds one: repeats are ignored).
    /// A grant's token may come after the grant itself (Redlock's client
    /// asks node 1 for its fencing counter once it has won the quorum): a
    /// repeat that brings the token fills it in. Whether anything changed.
    pub(crate) fn note_grant(
        &mut self,
        client: ClientId,
        lease_key: u64,
        token: Option<Token>,
    ) -> bool {
        if self.grants.last() == Some(&(client, lease_key)) {
            match self.grant_tokens.last_mut().filter(|t| t.is_none()) {
                Some(last) if token.is_some() => {
                    *last = token;
                    true
                }
                _ => false,
            }
        } else if self.grants.len() < GRANTS_MAX {
            self.grants.push((client, lease_key));
            self.grant_tokens.push(token);
            true
        } else {
            false
        }
    }

    /// Where the writer's own grant ends in the list of grants (0 if it is
    /// not there).
    fn after_own(&self, client: ClientId, lease_key: u64) -> usize {
        self.grants
            .iter()
            .rposition(|&g| g == (client, lease_key))
            .map_or(0, |i| i + 1)
    }

    /// The latest grant to another client since `client`'s grant under
    /// `lease_key`, with its token.
    pub(crate) fn newer_grant(&self, client: ClientId, lease_key: u64) -> Option<GrantSeen> {
        let own = self.after_own(client, lease_key);
        (own..self.grants.len())
            .rev()
            .find(|&i| self.grants[i].0 != client)
            .map(|i| GrantSeen {
                client: self.grants[i].0,
                token: self.grant_tokens.get(i).copied().flatten(),
            })
    }

    /// Where a write from `client` under `lease_key` stands: the holder's,
    /// one without a lease, or stale (another client was granted the lock
    /// after this client's grant: the real harness's definition).
    pub(crate) fn standing(
        &self,
        client: ClientId,
        lease_key: u64,
        holder: Option<super::backend::HolderView>,
    ) -> Standing {
        if holder.is_some_and(|h| h.client == client && h.lease_key == lease_key) {
            return Standing::Holder;
        }
        let own = self.after_own(client, lease_key);
        if self.grants[own..].iter().any(|&(c, _)| c != client) {
            Standing::Stale
        } else {
            Standing::WithoutLease
        }
    }

    /// Any write the resource decided on: the latest is kept, and one from
    /// a client that is not the holder is a finding.
    pub(crate) fn record_write(&mut self, write: StaleWrite) {
        self.last_write = Some(write);
        if write.standing != Standing::Holder {
            self.record_stale(write);
        }
    }

    fn record_stale(&mut self, stale: StaleWrite) {
        match (stale.standing, stale.accepted) {
            (Standing::Stale, true) => self.corruptions += 1,
            (Standing::Stale, false) => self.saves += 1,
            (_, true) => self.without_lease += 1,
            (_, false) => {}
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
        self.without_lease.hash(state);
        self.grants.len().hash(state);
        self.grants.last().hash(state);
        self.stale_writes.len().hash(state);
        self.overlaps.len().hash(state);
        self.overlaps.last().map(|o| (o.to, &o.clients)).hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(letter: char) -> ClientId {
        ClientId::from_letter(letter).unwrap()
    }

    #[test]
    fn the_newer_grant_is_the_latest_to_another_client_since_the_writers() {
        let mut oracle = Oracle::default();
        oracle.note_grant(c('A'), 10, Some(Token(1)));
        oracle.note_grant(c('B'), 20, Some(Token(2)));
        oracle.note_grant(c('C'), 30, Some(Token(3)));
        oracle.note_grant(c('A'), 40, Some(Token(4)));
        let newer = oracle.newer_grant(c('A'), 10);
        assert_eq!(
            newer,
            Some(GrantSeen {
                client: c('C'),
                token: Some(Token(3))
            }),
            "C's grant is the latest by another client; A's own later grant is not"
        );
        assert_eq!(
            oracle.newer_grant(c('A'), 40),
            None,
            "nobody since A's last"
        );
        assert_eq!(oracle.grants(), 4);
    }

    #[test]
    fn a_token_that_comes_after_its_grant_is_filled_in_once() {
        let mut oracle = Oracle::default();
        oracle.note_grant(c('A'), 10, Some(Token(1)));
        // Redlock: the quorum is won first, the fencing counter comes later.
        oracle.note_grant(c('B'), 20, None);
        oracle.note_grant(c('B'), 20, Some(Token(2)));
        oracle.note_grant(c('B'), 20, Some(Token(9)));
        assert_eq!(oracle.grants(), 2, "a repeat is not a grant");
        assert_eq!(
            oracle.newer_grant(c('A'), 10).and_then(|g| g.token),
            Some(Token(2)),
            "filled in by the first repeat that has it, and kept"
        );
    }

    #[test]
    fn every_write_is_the_last_write_and_only_others_are_findings() {
        let mut oracle = Oracle::default();
        let write = StaleWrite {
            at: Millis(5),
            client: c('B'),
            token: Some(Token(2)),
            holder: Some(c('B')),
            accepted: true,
            standing: Standing::Holder,
            newer: None,
            seen: None,
            reason: None,
            lost: 0,
        };
        oracle.record_write(write);
        assert_eq!(oracle.last_write(), Some(&write));
        assert!(oracle.stale_writes().is_empty());
        let stale = StaleWrite {
            client: c('A'),
            standing: Standing::Stale,
            ..write
        };
        oracle.record_write(stale);
        assert_eq!(oracle.last_write(), Some(&stale));
        assert_eq!((oracle.stale_writes().len(), oracle.corruptions()), (1, 1));
        oracle.clear();
        assert_eq!(oracle.last_write(), None);
    }
}
