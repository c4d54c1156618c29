//! The safety properties of a run, checked record by record as the history
//! grows: each one holds so far, or names the first record that broke it,
//! so a page can move its playhead there.
//!
//! Every property is read off the history alone. "No stale write accepted"
//! is the core's oracle's corruption, as the record of the write carries it
//! (`Standing::Stale`); nothing here judges a write again.

use crate::sim::{ClientId, Event, Millis, Record, ServiceEvent, Sim, Standing, Token};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One safety property of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Property {
    /// The resource accepts no write that the oracle calls stale: one from
    /// a client after another was granted the lock since its own grant.
    #[serde(rename = "stale-write")]
    NoStaleWrite,
    /// At most one (running) client believes it holds the lock.
    #[serde(rename = "two-holders")]
    OneBeliever,
    /// Every token the resource accepts is at least the highest it accepted before.
    #[serde(rename = "token-order")]
    TokensNeverDecrease,
    /// No release deletes a lock key that another client set (Redis's plain DEL).
    #[serde(rename = "foreign-release")]
    NoForeignRelease,
    /// Every write that reaches the resource comes from the client the
    /// service names as the holder, under that grant: accepted or rejected,
    /// a write from anyone else was made without a lease.
    #[serde(rename = "write-without-lease")]
    NoWriteWithoutLease,
}

impl Property {
    pub const ALL: [Property; 5] = [
        Property::NoStaleWrite,
        Property::OneBeliever,
        Property::TokensNeverDecrease,
        Property::NoForeignRelease,
        Property::NoWriteWithoutLease,
    ];

    /// The short name JSON, links and the command line use: what breaks it.
    pub fn slug(self) -> &'static str {
        match self {
            Property::NoStaleWrite => "stale-write",
            Property::OneBeliever => "two-holders",
            Property::TokensNeverDecrease => "token-order",
            Property::NoForeignRelease => "foreign-release",
            Property::NoWriteWithoutLease => "write-without-lease",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|p| p.slug() == slug)
    }

    /// The property in words, as the page lists it.
    pub fn title(self) -> &'static str {
        match self {
            Property::NoStaleWrite => "no stale write accepted",
            Property::OneBeliever => "at most one client believes it holds the lock",
            Property::TokensNeverDecrease => "tokens accepted at the resource never decrease",
            Property::NoForeignRelease => "no release deletes another client's lock",
            Property::NoWriteWithoutLease => "no write without a lease",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// The first record that broke a property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub property: Property,
    /// The record's place in the history the checker was fed.
    pub index: u64,
    pub at: Millis,
    /// The client whose write or release broke it (the first of the
    /// believers for two holders).
    pub client: Option<ClientId>,
    /// What broke it, finishing "violated at t=... by ...".
    pub by: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "violated at t={} by {}", self.at, self.by)
    }
}

/// A property's state in a run so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyState<'a> {
    Holds,
    Violated(&'a Violation),
}

impl fmt::Display for PropertyState<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PropertyState::Holds => f.write_str("holds so far"),
            PropertyState::Violated(v) => write!(f, "{v}"),
        }
    }
}

/// Every property of one run, fed its history record by record: the page
/// feeds the new records of each frame, so the check costs what the run
/// added and nothing more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    /// Records fed so far.
    seen: u64,
    /// The highest token the resource accepted so far.
    highest: Option<Token>,
    /// Where each client was last named the holder, for the words of a
    /// stale write ("B was granted the lock after A").
    granted: [Option<u64>; ClientId::COUNT],
    found: [Option<Violation>; 5],
}

impl Properties {
    pub fn new() -> Properties {
        Properties::default()
    }

    /// Every property of `sim`'s history.
    pub fn of(sim: &Sim) -> Properties {
        let mut p = Properties::new();
        p.watch(sim.history());
        p
    }

    /// A check of a copy of `sim` made by `Sim::snapshot`, whose history
    /// starts empty, as if everything before had held: only the resource's
    /// highest token is needed to judge what comes next.
    pub fn resuming(sim: &Sim) -> Properties {
        Properties {
            highest: sim.resource().highest(),
            ..Properties::default()
        }
    }

    /// Feeds the records of `history` not fed yet. A history shorter than
    /// what was fed belongs to a run replayed to an earlier moment: the
    /// check starts over.
    pub fn watch(&mut self, history: &[Record]) {
        if (history.len() as u64) < self.seen {
            *self = Properties::new();
        }
        for record in &history[self.seen as usize..] {
            self.feed(record);
        }
    }

    /// Records fed so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    pub fn state(&self, property: Property) -> PropertyState<'_> {
        match &self.found[property.slot()] {
            Some(v) => PropertyState::Violated(v),
            None => PropertyState::Holds,
        }
    }

    pub fn violation(&self, property: Property) -> Option<&Violation> {
        self.found[property.slot()].as_ref()
    }

    /// Each property with its state, in the order of `Property::ALL`.
    pub fn states(&self) -> impl Iterator<Item = (Property, PropertyState<'_>)> {
        Property::ALL.into_iter().map(|p| (p, self.state(p)))
    }

    /// Judges the next record of the history.
    pub fn feed(&mut self, record: &Record) {
        let index = self.seen;
        self.seen += 1;
        match &record.event {
            Event::HolderChanged {
                holder: Some(c), ..
            } => self.granted[c.index()] = Some(index),
            Event::WriteAccepted {
                client,
                token,
                standing,
                ..
            } => {
                self.write_landed(record, *client, *token, *standing, true);
                if let Some(t) = *token {
                    self.token_accepted(record, *client, t);
                }
            }
            Event::WriteRejected {
                client,
                token,
                standing,
                ..
            } => self.write_landed(record, *client, *token, *standing, false),
            Event::TwoHolders { clients } => {
                self.found_at(
                    Property::OneBeliever,
                    record,
                    clients.first().copied(),
                    || {
                        let names: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
                        let all = if names.len() == 2 { "both" } else { "all" };
                        format!("{} {all} believing they hold the lock", names.join(" and "))
                    },
                );
            }
            Event::Service(ServiceEvent::RedisKeyDeleted { node, owner, by }) if owner != by => {
                self.found_at(Property::NoForeignRelease, record, Some(*by), || {
                    format!("{by}'s plain DEL, which deleted {owner}'s lock key on Redis {node}")
                });
            }
            _ => {}
        }
    }

    fn write_landed(
        &mut self,
        record: &Record,
        client: ClientId,
        token: Option<Token>,
        standing: Standing,
        accepted: bool,
    ) {
        if standing == Standing::Stale && accepted {
            let since = self.granted_after(client);
            self.found_at(Property::NoStaleWrite, record, Some(client), || {
                let since = match since {
                    Some(other) => format!("{other} was granted the lock after {client}"),
                    None => format!("another client was granted the lock after {client}"),
                };
                format!(
                    "{client}'s write ({}), accepted though {since}",
                    crate::words::token(token)
                )
            });
        }
        if standing != Standing::Holder {
            self.found_at(Property::NoWriteWithoutLease, record, Some(client), || {
                let lease = match standing {
                    Standing::Stale => {
                        "its lease was gone and another client had been granted the lock since"
                    }
                    _ => "its lease was gone",
                };
                let verdict = if accepted {
                    "accepted"
                } else {
                    "rejected by fencing"
                };
                format!(
                    "{client}'s write ({}), which reached the resource after {lease} ({verdict})",
                    crate::words::token(token)
                )
            });
        }
    }

    fn token_accepted(&mut self, record: &Record, client: ClientId, token: Token) {
        match self.highest {
            Some(highest) if token < highest => {
                self.found_at(Property::TokensNeverDecrease, record, Some(client), || {
                    format!("{client}'s write with token {token}, accepted after one with token {highest}")
                });
            }
            _ => self.highest = Some(token),
        }
    }

    /// The client other than `client` most recently named the holder,
    /// if that was after `client`'s own grant.
    fn granted_after(&self, client: ClientId) -> Option<ClientId> {
        let own = self.granted[client.index()];
        ClientId::ALL
            .into_iter()
            .filter(|&c| c != client)
            .filter_map(|c| self.granted[c.index()].map(|at| (at, c)))
            .filter(|&(at, _)| own.is_none_or(|own| at > own))
            .max()
            .map(|(_, c)| c)
    }

    /// Keeps the first violation of each property; its words are written
    /// only then, so a run that breaks a property often costs no more.
    fn found_at(
        &mut self,
        property: Property,
        record: &Record,
        client: Option<ClientId>,
        by: impl FnOnce() -> String,
    ) {
        let index = self.seen - 1;
        let slot = &mut self.found[property.slot()];
        if slot.is_none() {
            *slot = Some(Violation {
                property,
                index,
                at: record.at,
                client,
                by: by(),
            });
        }
    }
}
