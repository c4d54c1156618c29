//! The waiting-line recipe ZooKeeper and etcd share (and Chubby or Consul
//! waiters would too): every contender gets an entry ordered by a number the
//! service assigns, the first entry holds, each waiter watches only the
//! entry just before its own, and an expired session or lease deletes its
//! entries, which fires the watch of the one behind.

use super::{Grant, HolderView};
use crate::sim::types::{ClientId, Millis, Token};
use litemap::LiteMap;
use std::hash::{Hash, Hasher};

/// One contender's entry: a znode or a lock key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Entry {
    pub owner: ClientId,
    /// The session or lease the entry dies with.
    pub session: u64,
    pub since: Millis,
    /// What else the service stamps on it: a czxid or a mod_revision.
    pub stamp: u64,
}

/// The clients that watch one entry, in the order they began to: four at
/// most, each once, kept in line rather than in a list of its own, so
/// that a watch set or fired allocates nothing. Hashed as the list of
/// them (`[ClientId]`'s hash).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Watchers {
    clients: [Option<ClientId>; ClientId::COUNT],
}

impl Watchers {
    /// In the order they began to watch.
    pub fn iter(self) -> impl Iterator<Item = ClientId> {
        self.clients.into_iter().map_while(|c| c)
    }

    /// Adds `c` at the end, unless it watches already.
    fn add(&mut self, c: ClientId) {
        for slot in &mut self.clients {
            match slot {
                Some(w) if *w == c => return,
                Some(_) => {}
                None => {
                    *slot = Some(c);
                    return;
                }
            }
        }
    }
}

impl Hash for Watchers {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let mut list = [ClientId::ALL[0]; ClientId::COUNT];
        let mut len = 0;
        for c in self.iter() {
            list[len] = c;
            len += 1;
        }
        list[..len].hash(state);
    }
}

/// The entries under one lock, lowest order (the holder) first, and who
/// watches which entry for its deletion. An entry's order is the number
/// the service assigned it (a znode sequence, a create_revision), kept in
/// 32 bits as the messages that carry it do (`super::count_up`).
#[derive(Debug, Default, Hash)]
pub(crate) struct Contenders {
    entries: LiteMap<u32, Entry>,
    watchers: LiteMap<u32, Watchers>,
}

impl Clone for Contenders {
    fn clone(&self) -> Contenders {
        Contenders {
            entries: self.entries.clone(),
            watchers: self.watchers.clone(),
        }
    }

    /// Into its own maps' room (`super::copy_map`).
    fn clone_from(&mut self, source: &Contenders) {
        super::copy_map(&mut self.entries, &source.entries);
        super::copy_map(&mut self.watchers, &source.watchers);
    }
}

/// What a waiter learns when it looks again after a watch fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recheck {
    /// Its entry is first: it holds the lock.
    Holds,
    /// Another entry is still ahead of it; it watches that one now.
    Waits,
    /// Its own entry is gone (its session or lease expired meanwhile).
    Gone,
}

impl Recheck {
    pub fn of(exists: bool, predecessor: Option<u32>) -> Recheck {
        match (exists, predecessor) {
            (false, _) => Recheck::Gone,
            (true, None) => Recheck::Holds,
            (true, Some(_)) => Recheck::Waits,
        }
    }
}

impl Contenders {
    /// Adds an entry and returns the one just before it, now watched.
    pub fn join(&mut self, order: u32, entry: Entry) -> Option<u32> {
        self.entries.insert(order, entry);
        let predecessor = self.predecessor(order);
        if let Some(p) = predecessor {
            self.watch(p, entry.owner);
        }
        predecessor
    }

    /// Whether `order` still exists, and the entry before it (watched by `c`).
    pub fn look(&mut self, order: u32, c: ClientId) -> (bool, Option<u32>) {
        let exists = self.entries.contains_key(&order);
        let predecessor = if exists {
            self.predecessor(order)
        } else {
            None
        };
        if let Some(p) = predecessor {
            self.watch(p, c);
        }
        (exists, predecessor)
    }

    /// Deletes an entry; returns it and the clients whose watch fires.
    pub fn remove(&mut self, order: u32) -> Option<(Entry, Watchers)> {
        let entry = self.entries.remove(&order)?;
        Some((entry, self.watchers.remove(&order).unwrap_or_default()))
    }

    /// The entries that die with `session`, in order.
    pub fn of_session(&self, session: u64) -> Vec<u32> {
        self.entries
            .iter()
            .filter(|(_, e)| e.session == session)
            .map(|(&order, _)| order)
            .collect()
    }

    pub fn get(&self, order: u32) -> Option<&Entry> {
        self.entries.get(&order)
    }

    /// The holder's entry.
    pub fn first(&self) -> Option<(u32, &Entry)> {
        self.entries.first().map(|(&o, e)| (o, e))
    }

    /// The first entry `c` owns.
    pub fn of_client(&self, c: ClientId) -> Option<&Entry> {
        self.entries.values().find(|e| e.owner == c)
    }

    /// The first entry's grant: its order is the token and the lease key.
    pub fn grant(&self) -> Option<Grant> {
        let (order, e) = self.first()?;
        Some(Grant {
            client: e.owner,
            token: Some(Token(u64::from(order))),
            lease_key: u64::from(order),
        })
    }

    /// The first entry as the service's holder: its order is the token,
    /// and its lease ends when its session or lease does (`session_end`).
    pub fn holder(&self, session_end: impl Fn(u64) -> Option<Millis>) -> Option<HolderView> {
        let (order, e) = self.first()?;
        Some(HolderView {
            client: e.owner,
            token: Some(Token(u64::from(order))),
            lease_key: u64::from(order),
            since: e.since,
            until: session_end(e.session),
        })
    }

    /// When the session or lease of `c`'s entry ends, if it has one.
    pub fn lease_end(
        &self,
        c: ClientId,
        session_end: impl Fn(u64) -> Option<Millis>,
    ) -> Option<Millis> {
        session_end(self.of_client(c)?.session)
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, &Entry)> {
        self.entries.iter().map(|(&o, e)| (o, e))
    }

    fn predecessor(&self, order: u32) -> Option<u32> {
        // Where `order` is or would be; the entry before that position.
        let (Ok(i) | Err(i)) = self.entries.find_index(&order);
        let (&o, _) = self.entries.get_indexed(i.checked_sub(1)?)?;
        Some(o)
    }

    fn watch(&mut self, watched: u32, c: ClientId) {
        self.watchers.entry(watched).or_default().add(c);
    }
}
