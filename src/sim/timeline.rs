//! The run as a space-time picture: what each lane shows over time, built
//! from the history alone. The page draws it; tests check it without a
//! browser. New records are fed in as they arrive, so a long run is not
//! walked again on every frame.

use super::history::sentences::TokenWords;
use super::history::{Event, Record, RejectReason, ServiceEvent, Standing};
use super::net::Endpoint;
use super::types::{ClientId, NodeId, Token};
use litemap::LiteMap;
use std::rc::Rc;

/// A stretch of time. `to_ms` is `None` while it is still going on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub from_ms: u64,
    pub to_ms: Option<u64>,
    /// The sentence of the record that opened it.
    pub text: Rc<str>,
}

impl Span {
    fn open(from_ms: u64, text: Rc<str>) -> Span {
        Span {
            from_ms,
            to_ms: None,
            text,
        }
    }

    /// Where it ends when drawn at time `now_ms`.
    pub fn end_ms(&self, now_ms: u64) -> u64 {
        self.to_ms.unwrap_or(now_ms).max(self.from_ms)
    }
}

/// A lease held, as the service grants it or as a client believes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub client: ClientId,
    pub token: Option<Token>,
    pub span: Span,
}

/// A point in time worth a mark, with its sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub at_ms: u64,
    /// A few words drawn beside the mark ("token 2", "rev 7"); may be empty.
    pub label: Rc<str>,
    pub text: Rc<str>,
}

/// What the resource did with a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    Accepted,
    /// Accepted from a client whose lease was gone, with nobody granted the
    /// lock since: not a corruption.
    WithoutLease,
    /// Accepted from a client after another was granted the lock: the corruption.
    Stale,
    Rejected(RejectReason),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteMark {
    pub at_ms: u64,
    pub client: ClientId,
    pub token: Option<Token>,
    pub outcome: WriteOutcome,
    pub text: Rc<str>,
}

/// One message from its sending to its arrival (or its loss).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    /// The message's id in the run (`Event::MessageSent`), for the text its
    /// real client sends.
    pub id: u64,
    pub from: Endpoint,
    pub to: Endpoint,
    pub sent_ms: u64,
    pub arrive_ms: u64,
    pub dropped: bool,
    /// Cut off by a partition and sent again by TCP: it arrives late.
    pub held: bool,
    pub text: Rc<str>,
}

/// Where a client believes it holds but the service says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    pub client: ClientId,
    pub from_ms: u64,
    pub to_ms: u64,
    /// Who the service says holds meanwhile; `None`: nobody (the lease is gone).
    pub other: Option<ClientId>,
}

/// What one client's lane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientLane {
    pub believed: Vec<Held>,
    pub pauses: Vec<Span>,
    pub partitions: Vec<Span>,
    pub crashes: Vec<Span>,
    /// Renewals, keepalives and heartbeats that were answered.
    pub renewals: Vec<u64>,
    /// Losses, releases and refusals: the end of a belief, with its reason.
    pub marks: Vec<Mark>,
}

/// What one Redis node's lane shows (Redlock only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeLane {
    pub keys: Vec<Held>,
    pub down: Vec<Span>,
    pub slow: Vec<Span>,
    pub marks: Vec<Mark>,
    /// The node's wall clock minus true time, from each jump on.
    pub skew: Vec<(u64, i64)>,
}

impl NodeLane {
    /// The node's clock skew now.
    pub fn skew_ms(&self) -> i64 {
        self.skew.last().map_or(0, |&(_, s)| s)
    }
}

/// What has changed each lane's data so far. A drawing of a lane made
/// from the same changes is still right, so the page keeps it instead of
/// drawing the lane again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changes {
    pub clients: [Changed; 4],
    pub holders: Changed,
    /// The service's marks and lock-delays.
    pub service: Changed,
    pub nodes: [Changed; 5],
    pub writes: Changed,
}

/// How many records have changed one part of the picture (a record that
/// might have changed it counts), and the latest time that part holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changed {
    pub count: u32,
    pub reach_ms: u64,
}

impl Changed {
    fn at(&mut self, at_ms: u64) {
        self.count += 1;
        self.reach_ms = self.reach_ms.max(at_ms);
    }
}

/// The whole picture of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picture {
    pub clients: [ClientLane; 4],
    /// Who the service says holds the lock, one span per holder.
    pub holders: Vec<Held>,
    /// Service-side events: revisions, znodes, sessions, lease expiry.
    pub service: Vec<Mark>,
    /// Chubby's lock-delays: a lock lost by failure, out of reach.
    pub lock_delays: Vec<Span>,
    pub nodes: [NodeLane; 5],
    pub writes: Vec<WriteMark>,
    pub arrows: Vec<Arrow>,
    /// The time of the last record fed.
    pub last_ms: u64,
    /// What has changed so far, lane by lane.
    pub changes: Changes,
    /// Records fed so far.
    fed: usize,
    /// Arrows by message id, to mark the ones lost on the way.
    arrow_of: LiteMap<u64, usize>,
    /// How the run's lock system words its tokens.
    pub words: TokenWords,
}

impl Picture {
    pub fn from_history(history: &[Record]) -> Picture {
        Picture::worded(history, TokenWords::Granted)
    }

    /// The picture of a run whose lock system words its tokens as `words`.
    pub fn worded(history: &[Record], words: TokenWords) -> Picture {
        let mut picture = Picture {
            words,
            ..Picture::default()
        };
        picture.feed(history);
        picture
    }

    /// How many records of the history the picture has taken in.
    pub fn fed(&self) -> usize {
        self.fed
    }

    /// Takes in the records of `history` not seen yet. The history must
    /// extend the one fed before; start a new picture otherwise.
    pub fn feed(&mut self, history: &[Record]) {
        for record in history.iter().skip(self.fed) {
            self.take(record);
        }
        self.fed = self.fed.max(history.len());
    }

    fn take(&mut self, record: &Record) {
        let at = record.at.ms();
        self.last_ms = self.last_ms.max(at);
        let words = self.words;
        let text = || -> Rc<str> { record.said(words).into() };
        use Event::*;
        match &record.event {
            Acquired { client, token, .. } => self.lane(*client).believed.push(Held {
                client: *client,
                token: *token,
                span: Span::open(at, text()),
            }),
            Released { client } | Lost { client, .. } => {
                self.end_belief(*client, at);
                self.lane(*client).marks.push(mark(at, "", text()));
            }
            Renewed { client, .. } => self.lane(*client).renewals.push(at),
            Paused { client, .. } => self.lane(*client).pauses.push(Span::open(at, text())),
            Woke { client } => close_last(&mut self.lane(*client).pauses, at),
            Partitioned { client, .. } => {
                self.lane(*client).partitions.push(Span::open(at, text()))
            }
            Healed { client } => close_last(&mut self.lane(*client).partitions, at),
            Crashed { client } | Exited { client } => {
                self.end_belief(*client, at);
                self.lane(*client).crashes.push(Span::open(at, text()));
            }
            Restarted { client } => close_last(&mut self.lane(*client).crashes, at),
            AcquireFailed { client, .. } | AcquireRetry { client, .. } => {
                self.lane(*client).marks.push(mark(at, "", text()))
            }
            HolderChanged { holder, token } => self.holder_changed(at, *holder, *token, text()),
            WriteAccepted {
                client,
                token,
                standing,
                ..
            } => self.write(at, *client, *token, outcome_of(*standing), text()),
            WriteRejected {
                client,
                token,
                reason,
                ..
            } => self.write(at, *client, *token, WriteOutcome::Rejected(*reason), text()),
            Service(event) => self.service_event(at, event, text()),
            NodeCrashed { node, .. } => self.node(*node).down.push(Span::open(at, text())),
            NodeRestarted { node, .. } => close_last(&mut self.node(*node).down, at),
            NodeRestartDelayed { node, .. } => self.node(*node).marks.push(mark(at, "", text())),
            ClockJumped { node, jump_ms } => self.clock_jumped(at, *node, *jump_ms, text()),
            NodeSlow { node, extra_ms } => self.node_slow(at, *node, *extra_ms, text()),
            MessageSent {
                id,
                from,
                to,
                deliver_at,
                body,
            } => {
                // A session's answered heartbeat is its renewal.
                if let (true, Endpoint::Client(c)) = (body.confirms_session(), to) {
                    self.lane(*c).renewals.push(deliver_at.ms());
                    self.reaches(*c, deliver_at.ms());
                }
                self.message_sent(at, *id, *from, *to, deliver_at.ms(), text())
            }
            MessageRetransmitted { id, deliver_at, .. } => self.message_held(*id, deliver_at.ms()),
            MessageDropped { id, .. } => self.message_dropped(at, *id),
            _ => {}
        }
    }

    // The history is in time order: the record being taken is at `last_ms`.
    fn lane(&mut self, c: ClientId) -> &mut ClientLane {
        self.changes.clients[c.index()].at(self.last_ms);
        &mut self.clients[c.index()]
    }

    fn node(&mut self, n: NodeId) -> &mut NodeLane {
        self.changes.nodes[n.index()].at(self.last_ms);
        &mut self.nodes[n.index()]
    }

    /// A renewal drawn on client `c`'s lane where a heartbeat's answer
    /// arrives: later than the record that sent it.
    fn reaches(&mut self, c: ClientId, at: u64) {
        self.changes.clients[c.index()].at(at);
    }

    fn end_belief(&mut self, c: ClientId, at: u64) {
        if let Some(held) = self.lane(c).believed.last_mut() {
            held.span.to_ms.get_or_insert(at);
        }
    }

    fn holder_changed(
        &mut self,
        at: u64,
        holder: Option<ClientId>,
        token: Option<Token>,
        text: Rc<str>,
    ) {
        self.changes.holders.at(at);
        // Redlock names the holder first and its fence token a moment later.
        if let Some(last) = self.holders.last_mut() {
            if last.span.to_ms.is_none() && Some(last.client) == holder && last.token.is_none() {
                last.token = token;
                return;
            }
        }
        if let Some(last) = self.holders.last_mut() {
            last.span.to_ms.get_or_insert(at);
        }
        if let Some(client) = holder {
            self.holders.push(Held {
                client,
                token,
                span: Span::open(at, text),
            });
        }
    }

    fn write(
        &mut self,
        at: u64,
        client: ClientId,
        token: Option<Token>,
        outcome: WriteOutcome,
        text: Rc<str>,
    ) {
        self.changes.writes.at(at);
        self.writes.push(WriteMark {
            at_ms: at,
            client,
            token,
            outcome,
            text,
        });
    }

    fn service_event(&mut self, at: u64, event: &ServiceEvent, text: Rc<str>) {
        self.changes.service.at(at);
        use ServiceEvent::*;
        match event {
            RedisKeySet { node, client } => self.node(*node).keys.push(Held {
                client: *client,
                token: None,
                span: Span::open(at, text),
            }),
            RedisKeyExpired { node, client }
            | RedisKeyDeleted {
                node,
                owner: client,
                ..
            } => {
                let lane = self.node(*node);
                if let Some(key) = lane.keys.iter_mut().rev().find(|k| k.client == *client) {
                    key.span.to_ms.get_or_insert(at);
                }
                lane.marks.push(mark(at, "", text));
            }
            RedisFenceReset { node } => self.node(*node).marks.push(mark(at, "INCR reset", text)),
            EtcdKeyPut { create_rev, .. } => self.service.push(revision(at, *create_rev, text)),
            EtcdKeyDeleted { revision: rev, .. } => self.service.push(revision(at, *rev, text)),
            ZkZnodeCreated { seq, .. } => self.service.push(mark(at, &format!("lock-{seq}"), text)),
            ZkSessionExpired { .. } => self.service.push(mark(at, "session expired", text)),
            EtcdLeaseExpired { .. } => self.service.push(mark(at, "lease expired", text)),
            ChubbyLockAcquired { generation, .. } => {
                self.service
                    .push(mark(at, &format!("gen {generation}"), text))
            }
            ChubbySessionExpired { .. } => self.service.push(mark(at, "session expired", text)),
            ChubbyLockFreed { delay_until, .. } if delay_until.ms() > at => {
                self.lock_delays.push(Span::open(at, text.clone()));
                self.service.push(mark(at, "", text));
            }
            ChubbyLockDelayOver => close_last(&mut self.lock_delays, at),
            ChubbyMasterFailed { .. } => self.service.push(mark(at, "master died", text)),
            ChubbyMasterElected { epoch } => {
                self.service
                    .push(mark(at, &format!("master {epoch}"), text))
            }
            // A random RVN on every put and heartbeat: drawn, not counted.
            DynamoItemPut { rvn, .. } | DynamoRvnChanged { to: rvn, .. } => self
                .service
                .push(mark(at, &super::backend::rvn_text(*rvn), text)),
            ConsulKeyAcquired { lock_index, .. } => {
                self.service
                    .push(mark(at, &format!("LockIndex {lock_index}"), text))
            }
            ConsulSessionExpired { .. } | ConsulNodeFailed { .. } => {
                self.service.push(mark(at, "session invalidated", text))
            }
            ConsulLockDelayRefused { .. } => self.service.push(mark(at, "lock-delay", text)),
            ConsulKeyDeleted { .. } => self.service.push(mark(at, "key deleted", text)),
            ConsulLeaderLost { .. } => self.service.push(mark(at, "no leader", text)),
            PgSessionEnded { .. } => self.service.push(mark(at, "session ended", text)),
            PgFailover { timeline, .. } => {
                self.service
                    .push(mark(at, &format!("timeline {timeline}"), text))
            }
            _ => self.service.push(mark(at, "", text)),
        }
    }

    fn clock_jumped(&mut self, at: u64, node: NodeId, jump_ms: i64, text: Rc<str>) {
        let lane = self.node(node);
        let skew = lane.skew_ms() + jump_ms;
        lane.skew.push((at, skew));
        lane.marks.push(mark(at, &skew_words(skew), text));
    }

    fn node_slow(&mut self, at: u64, node: NodeId, extra_ms: u64, text: Rc<str>) {
        let lane = self.node(node);
        close_last(&mut lane.slow, at);
        if extra_ms > 0 {
            lane.slow.push(Span::open(at, text));
        }
    }

    fn message_sent(
        &mut self,
        at: u64,
        id: u64,
        from: Endpoint,
        to: Endpoint,
        deliver_ms: u64,
        text: Rc<str>,
    ) {
        self.arrow_of.insert(id, self.arrows.len());
        self.arrows.push(Arrow {
            id,
            from,
            to,
            sent_ms: at,
            arrive_ms: deliver_ms,
            dropped: false,
            held: false,
            text,
        });
    }

    /// TCP holds the message for another try: its arrow ends later, and a
    /// heartbeat answer renews only when it finally arrives.
    fn message_held(&mut self, id: u64, deliver_ms: u64) {
        let Some(&i) = self.arrow_of.get(&id) else {
            return;
        };
        let arrow = &mut self.arrows[i];
        let (due, to) = (arrow.arrive_ms, arrow.to);
        arrow.held = true;
        arrow.arrive_ms = deliver_ms;
        if let Endpoint::Client(c) = to {
            let renewals = &mut self.lane(c).renewals;
            if let Some(k) = renewals.iter().rposition(|&t| t == due) {
                renewals[k] = deliver_ms;
                self.reaches(c, deliver_ms);
            }
        }
    }

    fn message_dropped(&mut self, at: u64, id: u64) {
        let Some(&i) = self.arrow_of.get(&id) else {
            return;
        };
        let arrow = &mut self.arrows[i];
        arrow.dropped = true;
        let (due, to) = (arrow.arrive_ms, arrow.to);
        arrow.arrive_ms = at;
        // A heartbeat answer lost on the way renewed nothing.
        if let Endpoint::Client(c) = to {
            let renewals = &mut self.lane(c).renewals;
            if let Some(k) = renewals.iter().rposition(|&t| t == due) {
                renewals.remove(k);
            }
        }
    }

    /// Where client `c` believes it holds while the service says someone
    /// else holds (or nobody does), up to `now_ms`.
    pub fn zones(&self, c: ClientId, now_ms: u64) -> Vec<Zone> {
        self.zones_between(c, now_ms, 0, u64::MAX)
    }

    /// The zones of `zones` that touch the window `from_ms..=to_ms`. Spans
    /// are in time order and do not overlap, so each belief looks only at
    /// the holders from its start on.
    pub fn zones_between(&self, c: ClientId, now_ms: u64, from_ms: u64, to_ms: u64) -> Vec<Zone> {
        let mut zones = Vec::new();
        let beliefs = &self.clients[c.index()].believed;
        let first = beliefs.partition_point(|b| b.span.end_ms(now_ms) < from_ms);
        for belief in beliefs[first..]
            .iter()
            .take_while(|b| b.span.from_ms <= to_ms)
        {
            let (b0, b1) = (belief.span.from_ms, belief.span.end_ms(now_ms));
            let mut at = b0;
            let start = self
                .holders
                .partition_point(|h| h.span.end_ms(now_ms) <= b0);
            for held in self.holders[start..]
                .iter()
                .take_while(|h| h.span.from_ms < b1)
            {
                let (h0, h1) = (held.span.from_ms.max(b0), held.span.end_ms(now_ms).min(b1));
                if h0 >= h1 {
                    continue;
                }
                if h0 > at {
                    zones.push(zone(c, at, h0, None));
                }
                if held.client != c {
                    zones.push(zone(c, h0, h1, Some(held.client)));
                }
                at = at.max(h1);
            }
            if at < b1 {
                zones.push(zone(c, at, b1, None));
            }
        }
        zones
    }
}

fn zone(client: ClientId, from_ms: u64, to_ms: u64, other: Option<ClientId>) -> Zone {
    Zone {
        client,
        from_ms,
        to_ms,
        other,
    }
}

fn close_last(spans: &mut [Span], at: u64) {
    if let Some(span) = spans.last_mut() {
        span.to_ms.get_or_insert(at);
    }
}

fn mark(at_ms: u64, label: &str, text: Rc<str>) -> Mark {
    Mark {
        at_ms,
        label: label.into(),
        text,
    }
}

fn revision(at_ms: u64, rev: u64, text: Rc<str>) -> Mark {
    mark(at_ms, &format!("rev {rev}"), text)
}

fn outcome_of(standing: Standing) -> WriteOutcome {
    match standing {
        Standing::Stale => WriteOutcome::Stale,
        Standing::WithoutLease => WriteOutcome::WithoutLease,
        Standing::Holder => WriteOutcome::Accepted,
    }
}

/// A clock skew as drawn: "+2.0 s", "-500 ms", "0".
pub fn skew_words(skew_ms: i64) -> String {
    let skew = crate::words::skew(skew_ms);
    format!("skew {}", skew.as_deref().unwrap_or("0"))
}
