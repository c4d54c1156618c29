//! Guided tours: the key moments of each story, found in the run itself.
//!
//! A moment is not a fixed time: it is the first event of a kind after the
//! previous moment (A acquires, A freezes, B acquires, A's write lands). So
//! the same tour works on every backend, with any seed, and after a "try
//! this" change where the story ends differently; a moment whose event never
//! happens (no second holder once the fix is on) is simply left out.
//!
//! A tour is data: each stop names the event it waits for, where to look
//! and what to say (`Say`), and each caption is written once, as words or
//! a template that `fill` completes from the event.

use crate::sim::{
    rvn_text, ChubbySession, ClientId, Command, Event, Millis, Persistence, PgSessionEnd, Record,
    Scenario, ServiceEvent, Sim, Standing, Token, ZkConn,
};

use super::presets::Preset;
pub use super::questions::{Answer, Question, Setting};

/// What a moment asks the visitor to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Card(ClientId),
    Service,
    Resource,
    Status,
}

impl Look {
    /// The words a caption's pointer uses ("Look at client A").
    pub fn name(self) -> String {
        match self {
            Look::Card(c) => format!("client {c}"),
            Look::Service => "the lock service".into(),
            Look::Resource => "the resource".into(),
            Look::Status => "the status strip".into(),
        }
    }
}

/// One stop of a tour: the run pauses at `at` and says `caption`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moment {
    pub at: Millis,
    pub caption: String,
    pub look: Look,
    /// The prediction asked before the run plays to this moment, if it is
    /// one worth predicting (a late write landing, a lock changing hands).
    pub question: Option<Question>,
}

/// How to find a moment: the first event after the previous moment that
/// `find` accepts, described by `say`. A story's record
/// (`presets::Preset::tour`) names the list of these its tour stops at.
#[derive(Debug)]
pub struct Spec {
    find: fn(&Event) -> bool,
    say: Say,
    look: Look,
}

/// What a moment says. Where the event found is not of the kind the words
/// are for, the moment says the event itself.
#[derive(Debug)]
enum Say {
    /// The same words whatever the event.
    Text(&'static str),
    /// A grant (`Event::Acquired`), its fields filled in (`fill`).
    Grant(&'static str),
    /// A write landing, worded by how it landed, between two fixed parts.
    Landing(&'static Landing, &'static str, &'static str),
    /// Words made from the event's own fields; `None` for another kind.
    Of(fn(&Event) -> Option<String>),
}

impl Say {
    fn caption(&self, e: &Event) -> String {
        let said = match self {
            Say::Text(words) => Some((*words).to_string()),
            Say::Grant(template) => granted(template, e),
            Say::Landing(words, before, after) => {
                let landing = words.of(e).unwrap_or_else(|| e.to_string());
                return format!("{before}{landing}{after}");
            }
            Say::Of(say) => say(e),
        };
        said.unwrap_or_else(|| e.to_string())
    }
}

/// A write landing at the resource, in words for each way it can land.
#[derive(Debug)]
struct Landing {
    /// Accepted from a client another has taken the lock from.
    stale: &'static str,
    /// Accepted from a client whose lease is gone, nobody else having had
    /// the lock since.
    without_lease: &'static str,
    /// Accepted from the holder.
    accepted: &'static str,
    rejected: &'static str,
}

impl Landing {
    fn of(&self, e: &Event) -> Option<String> {
        let (template, client, token, value, reason, lost) = match e {
            Event::WriteAccepted {
                client,
                token,
                value,
                standing,
                lost,
            } => {
                let template = match standing {
                    Standing::Stale => self.stale,
                    Standing::WithoutLease => self.without_lease,
                    _ => self.accepted,
                };
                (template, *client, *token, *value, None, *lost)
            }
            Event::WriteRejected {
                client,
                token,
                reason,
                ..
            } => (
                self.rejected,
                *client,
                *token,
                0,
                Some(reason.to_string()),
                0,
            ),
            _ => return None,
        };
        let fields = Fields {
            client,
            token,
            value,
            reason,
            lost,
        };
        Some(fill(template, &fields))
    }
}

/// What a template's braces name: `{client}`, `{token}` (in words: "token
/// 3", "no token"), `{version}` (the row version a PostgreSQL client read),
/// `{value}` (the counter after an accepted write), `{reason}` (why a
/// write was rejected) and `{damage}` (what an accepted write did to the
/// increments made since its writer read the counter).
struct Fields {
    client: ClientId,
    token: Option<Token>,
    value: u64,
    reason: Option<String>,
    lost: u32,
}

/// What a write from an old read did: "it wrote what it had read, plus
/// one, over the increment made since: that increment is lost, and the
/// counter reads 1".
fn damage_words(lost: u32, value: u64) -> String {
    match lost {
        0 => format!("two holders, and the counter reads {value}"),
        1 => format!("it wrote what it had read, plus one, over the increment made since: that increment is lost, and the counter reads {value}"),
        n => format!("it wrote what it had read, plus one, over the {n} increments made since: they are lost, and the counter reads {value}"),
    }
}

/// `template` with each field it names filled in.
fn fill(template: &str, fields: &Fields) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        out.push_str(before);
        let Some((name, after)) = after.split_once('}') else {
            rest = after;
            out.push('{');
            continue;
        };
        match name {
            "client" => out.push_str(&fields.client.to_string()),
            "token" => out.push_str(&crate::words::token(fields.token)),
            "version" => out.push_str(&fields.token.map_or(0, |t| t.0).to_string()),
            "value" => out.push_str(&fields.value.to_string()),
            "reason" => out.push_str(fields.reason.as_deref().unwrap_or_default()),
            "damage" => out.push_str(&damage_words(fields.lost, fields.value)),
            other => {
                out.push('{');
                out.push_str(other);
                out.push('}');
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A grant's words, `template` filled from it; `None` for another event.
fn granted(template: &str, e: &Event) -> Option<String> {
    let Event::Acquired { client, token, .. } = e else {
        return None;
    };
    let fields = Fields {
        client: *client,
        token: *token,
        value: 0,
        reason: None,
        lost: 0,
    };
    Some(fill(template, &fields))
}

const A: ClientId = ClientId::ALL[0];
const B: ClientId = ClientId::ALL[1];
const C: ClientId = ClientId::ALL[2];

/// The tour of `preset`'s story, its scenario run up to `until`: replays
/// it and finds each moment.
pub fn moments(preset: &Preset, scenario: &Scenario, until: Millis) -> Vec<Moment> {
    let Ok(sim) = Sim::play(scenario, until) else {
        return Vec::new();
    };
    let config = &scenario.config;
    let setting = Setting {
        backend: config.backend,
        fencing: config.fencing,
        rule: config.backend.fence_rule_in(config),
    };
    find_moments(preset.tour_on(config.backend), sim.history(), setting)
}

fn find_moments(specs: &[Spec], history: &[Record], setting: Setting) -> Vec<Moment> {
    let mut from = 0;
    let mut found = Vec::new();
    for spec in specs {
        let Some(offset) = history[from..].iter().position(|r| (spec.find)(&r.event)) else {
            continue;
        };
        let record = &history[from + offset];
        found.push(Moment {
            at: record.at,
            caption: spec.say.caption(&record.event),
            look: spec.look,
            question: super::questions::ask(&history[..from + offset], &record.event, setting),
        });
        from += offset + 1;
    }
    found
}

fn acquired_by(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::Acquired { client, .. } if *client == who)
}

fn landed_from(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::WriteAccepted { client, .. } | Event::WriteRejected { client, .. } if *client == who)
}

/// A write landing where the resource compares tokens.
const LANDING: Landing = Landing {
    stale: "The resource accepts {client}'s stale write ({token}): {damage}.",
    without_lease: "The resource accepts {client}'s write ({token}) although its lease is gone: nobody else has had the lock since, so nothing is corrupted, and fencing accepts it too, its token still being the highest.",
    accepted: "The resource accepts {client}'s write ({token}): the highest accepted token is now its token.",
    rejected: "Fencing: {client}'s write is rejected, {reason}. The counter is safe.",
};

const ACQUIRED: &str =
    "{client} holds the lock with {token}. Its lease runs on the service's clock, not on {client}'s.";

fn two_holders_words(e: &Event) -> Option<String> {
    let Event::TwoHolders { clients } = e else {
        return None;
    };
    let names: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
    Some(format!(
        "Two believed holders: {} each believe they hold the lock. Only the resource can tell them apart.",
        names.join(" and ")
    ))
}

const A_HOLDS: Spec = Spec {
    find: |e| acquired_by(e, A),
    say: Say::Grant(ACQUIRED),
    look: Look::Card(A),
};
const B_TAKES_OVER: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: Say::Grant("{client} now holds the lock with {token}: the service saw the old lease end. Does the old holder know?"),
    look: Look::Service,
};
const TWO_HOLDERS: Spec = Spec {
    find: |e| matches!(e, Event::TwoHolders { .. }),
    say: Say::Of(two_holders_words),
    look: Look::Status,
};
const B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: Say::Landing(&LANDING, "", ""),
    look: Look::Resource,
};
const A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: Say::Landing(&LANDING, "", ""),
    look: Look::Resource,
};

pub(super) const GC_PAUSE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: Say::Of(|e| Some(match e {
            Event::Paused { until, .. } => format!(
                "A freezes in a GC pause until {until}, and its renewals stop. A's Write is clicked now, during the pause: it waits inside A, past A's check that it holds the lock, and leaves the instant A wakes, before any reply can reach it."
            ),
            _ => return None,
        })),
        look: Look::Card(A),
    },
    B_TAKES_OVER,
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: Say::Text("A wakes with its beliefs unchanged: it still thinks it holds the lock. The write clicked during its pause leaves the instant it woke, before any reply could tell A its lease is gone."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(&LANDING, "A's write, clicked during its pause, arrives. ", ""),
        look: Look::Resource,
    },
];

/// A's pause, in a system's own words.
const fn a_pauses(say: Say) -> Spec {
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say,
        look: Look::Card(A),
    }
}

const A_WAKES_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: Say::Landing(
        &LANDING,
        "A's write, clicked during its pause, arrives. ",
        "",
    ),
    look: Look::Resource,
};

const fn a_wakes(say: Say) -> Spec {
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say,
        look: Look::Card(A),
    }
}

/// etcd: the token is the lock key's create_revision, and every write to
/// the store bumps the revision, so tokens jump.
pub(super) const ETCD_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant("{client} holds the lock with {token}, a revision: every etcd write bumps it, so tokens skip numbers but only grow. Its lease runs on etcd's clock."),
        look: Look::Card(A),
    },
    a_pauses(Say::Text("A freezes in a GC pause, and its keepalives stop: etcd will revoke A's lease when its TTL runs out, and delete the lock key with it. A's Write is clicked now, during the pause: it waits inside A, past A's check that it holds the lock, and leaves the instant A wakes.")),
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("A's lease ran out, and etcd deleted A's key (a write, so a revision too). B's key, written when B asked, is now the oldest: B holds the lock with {token}. Does A know?"),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    a_wakes(Say::Text("A wakes with its beliefs unchanged: its keepalive has not yet come back with \"lease not found\". The write clicked during its pause leaves the instant it woke.")),
    A_WAKES_LANDS,
];

/// ZooKeeper: a session, not a lease; an ephemeral sequential znode; the
/// library's SUSPENDED and LOST.
pub(super) const ZK_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant("{client}'s znode is the lowest in the lock's queue, so {client} holds the lock with {token}, the znode's sequence number. There is no lease on the lock: the znode is ephemeral and lives as long as {client}'s session, which lives while the server hears {client}'s heartbeats."),
        look: Look::Card(A),
    },
    a_pauses(Say::Text("A freezes in a GC pause, and its session's heartbeats stop. After the session timeout the server will expire the session and delete A's znode. A's Write is clicked now, during the pause: it waits inside A and leaves the instant A wakes.")),
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("ZooKeeper expired A's session and deleted its znode: B's watch on it fired, B's znode is now the lowest, and B holds the lock with {token}. Nobody could tell A: it is frozen."),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    a_wakes(Say::Text("A wakes still CONNECTED, as far as its library knows. It will say SUSPENDED once it sees the server has not answered, and LOST once the server tells it the session expired; before either, the write clicked during its pause leaves the instant it woke.")),
    A_WAKES_LANDS,
];

/// Redlock: a majority vote of five independent Redis nodes, and no token
/// of its own (the page's token is an INCR on node 1).
pub(super) const REDLOCK_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant("{client} set its random value on a majority of the five Redis nodes, in less time than the TTL: Redlock says it holds the lock. Redlock has no token: the page's {token} is an INCR on a counter kept on node 1, which no node checks and a restart of node 1 can reset."),
        look: Look::Card(A),
    },
    a_pauses(Say::Text("A freezes in a GC pause, and its extensions stop. Each node will expire A's key by its own clock when the TTL runs out; none of them asks another. A's Write is clicked now, during the pause: it waits inside A and leaves the instant A wakes.")),
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("A's keys expired on every node, and B won a new vote: at least three nodes set B's value, so B holds the lock with {token}. The vote proves B has a majority now; it says nothing to A."),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    a_wakes(Say::Text("A wakes with its beliefs unchanged. Its own clock will tell it the validity ran out, a millisecond from now, but the write clicked during its pause leaves the instant it woke.")),
    A_WAKES_LANDS,
];

/// Consul: a session whose TTL is only a lower bound (the server waits
/// twice it), then a lock-delay on the key; LockIndex and ModifyIndex.
pub(super) const CONSUL_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant("{client}'s session holds the lock key, with {token}: the key's ModifyIndex, Consul's Raft index, which grows with every write to the store (the key's LockIndex counts only its own acquires, and starts again at 1 after a delete). The session lives while {client} renews it."),
        look: Look::Card(A),
    },
    a_pauses(Say::Text("A freezes in a 20 s GC pause, and its session renewals stop. Consul's TTL is only a lower bound: the server waits twice the TTL before it invalidates A's session, and then keeps the key under a lock-delay. A's Write is clicked now, during the pause: it waits inside A and leaves the instant A wakes.")),
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("A's session was invalidated, the lock-delay refused B's acquires until it ended, and now B's session holds the key with {token}. Consul told A nothing: it is frozen."),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    a_wakes(Say::Text("A wakes with its beliefs unchanged: its monitor's blocking read has not yet come back with the key's new Session. The write clicked during its pause leaves the instant it woke.")),
    A_WAKES_LANDS,
];

/// Chubby: a session lease, jeopardy and a grace period, a lock-delay, and
/// a sequencer whose generation number a server can check.
pub(super) const CHUBBY_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant("{client} holds the lock, and its sequencer carries {token}, the lock's generation number: a server can check it with CheckSequencer. {client}'s session lease is kept alive by KeepAlives the master holds until the lease nearly ends."),
        look: Look::Card(A),
    },
    a_pauses(Say::Text("A freezes in a long GC pause, and its KeepAlives stop. When its session lease ends the master frees the lock, but keeps it unclaimable for the lock-delay: a short pause would end inside it, harmless even unfenced; this one outlasts it. A's Write is clicked now, during the pause: it waits inside A and leaves the instant A wakes.")),
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("The lock-delay is over: B holds the lock, its sequencer carrying {token}, the next generation. A is still frozen, and will learn only when its own lease runs out in jeopardy."),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    a_wakes(Say::Text("A wakes with its beliefs unchanged. Its library will put the session in jeopardy (calls blocked, a grace period) a millisecond from now, but the write clicked during its pause leaves the instant it woke.")),
    A_WAKES_LANDS,
];

pub(super) const DELAYED_WRITE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::WriteSent { client, .. } if *client == A),
        say: Say::Text("A writes while it really holds the lock, but this packet will sit in the network for 7 s."),
        look: Look::Card(A),
    },
    B_TAKES_OVER,
    B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(&LANDING, "Sent in time, arrived late. ", ""),
        look: Look::Resource,
    },
];

pub(super) const RELEASE_OTHER: &[Spec] = &[
    A_HOLDS,
    B_TAKES_OVER,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisKeyDeleted { owner, by, .. }) if owner != by),
        say: Say::Of(|e| Some(match e {
            Event::Service(ServiceEvent::RedisKeyDeleted { owner, by, .. }) => format!(
                "{by} wakes and releases with a plain DEL: node by node, {owner}'s keys are deleted. {owner} still believes it holds the lock."
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, C),
        say: Say::Grant("With B's keys gone, C wins a quorum with {token} while B still believes it holds the lock."),
        look: Look::Card(C),
    },
    TWO_HOLDERS,
];

pub(super) const REDLOCK_RESTART: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::NodeRestarted { node, .. } | Event::NodeRestartDelayed { node, .. } if node.number() == 3),
        say: Say::Of(|e| {
            Some(match e {
            Event::NodeRestarted { node, persistence: Persistence::None } => format!(
                "Redis {node} restarts empty: no persistence, so A's key on it is gone. A now holds only two of five nodes, and does not know."
            ),
            Event::NodeRestartDelayed { node, until } => format!(
                "Redis {node} stays down until t={until}: by then every key it held has expired anyway."
            ),
            _ => return None,
        })
        }),
        look: Look::Service,
    },
    Spec {
        find: |e| {
            acquired_by(e, B) || matches!(e, Event::AcquireFailed { client, .. } if *client == B)
        },
        say: Say::Of(|e| {
            let words = match e {
                Event::Acquired { .. } => {
                    "B wins nodes 3, 4 and 5: a quorum. Two holders, and no client ever paused."
                }
                _ => "B cannot reach a quorum: A's keys still stand on three nodes.",
            };
            Some(words.into())
        }),
        look: Look::Service,
    },
    A_WRITE_LANDS,
];

pub(super) const CLOCK_JUMP: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::ClockJumped { .. }),
        say: Say::Of(|e| Some(match e {
            Event::ClockJumped { node, jump_ms } => format!(
                "The wall clock of Redis {node} jumps {} s forward, and it expires A's key early. Redlock trusts every node's clock.",
                jump_ms / 1_000
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Text("B wins nodes 3, 4 and 5: a quorum while A still holds nodes 1 and 2 and believes it holds the lock."),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    A_WRITE_LANDS,
];

pub(super) const NO_FENCE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisFenceReset { .. })),
        say: Say::Text("Node 1 restarts without persistence: its INCR counter starts again from 0. The next token will repeat an old one."),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("B holds the lock with {token}: unique values, but not monotonic ones."),
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    A_WRITE_LANDS,
];

pub(super) const ZK_PARTITION: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Waiting { client, .. } if *client == C),
        say: Say::Text("B and C queue behind A, each watching the znode just before its own: a FIFO queue."),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::ZkState { client, state: ZkConn::Suspended } if *client == A),
        say: Say::Text("A hears nothing from ZooKeeper: SUSPENDED. The recipe still says it holds the lock, and it keeps writing."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Text("A's session expired at the server, its znode went, and B, next in the queue, takes over on its own."),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::ZkState { client, state: ZkConn::Lost } if *client == A),
        say: Say::Text("A is told its session is LOST: with Curator once a session timeout has passed while SUSPENDED (5/3 of the timeout after it last heard ZooKeeper), still cut off; with kazoo or the native client before 3.9.3 only when the partition heals. Either way B took over first: SUSPENDED was the moment to stop."),
        look: Look::Card(A),
    },
];

pub(super) const ETCD_KEEPALIVE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Partitioned { client, .. } if *client == A),
        say: Say::Text("A is cut off from etcd: its keepalives stop reaching the lease."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::EtcdKeyDeleted { client, .. }) if *client == A),
        say: Say::Of(|e| {
            Some(match e {
            Event::Service(ServiceEvent::EtcdKeyDeleted { revision, .. }) => format!(
                "A's lease expires and etcd deletes its key: the revision moves to {revision}. Deletes are writes too."
            ),
            _ => return None,
        })
        }),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("B's key was next by create_revision, so B holds the lock with {token}."),
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
];

pub(super) const CRASHED_HOLDER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: Say::Text("A's host powers off holding the lock: no FIN, only silence. Nobody can tell a dead host from a slow one, so the lease must run out."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Text("Only now, once the service has let A's lease go (on Chubby after a lock-delay too), does B get the lock. A long TTL makes this wait long."),
        look: Look::Card(B),
    },
];

const A_EXITS: Spec = Spec {
    find: |e| matches!(e, Event::Exited { client } if *client == A),
    say: Say::Text("A's process exits holding the lock (an OOM kill, a panic). Its host stays up, and its kernel closes A's connections at once. A's card says what the service made of that."),
    look: Look::Card(A),
};

pub(super) const PROCESS_EXIT: &[Spec] = &[
    A_HOLDS,
    A_EXITS,
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Text("Only once A's lease or session runs out (on Chubby after a lock-delay too) does B get the lock: a closed connection ended nothing, and the wait is the same as for a dead host."),
        look: Look::Card(B),
    },
];

const CONSUL_LOCK_DELAY_ENDS: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: Say::Text("The lock-delay over, B's next poll finds the key free, and B holds the lock."),
    look: Look::Card(B),
};

pub(super) const CONSUL_PROCESS_EXIT: &[Spec] = &[
    A_HOLDS,
    A_EXITS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulSessionExpired { client, .. }) if *client == A),
        say: Say::Text("A's agent is alive and serf sees a healthy node, so only the TTL ends A's session: the server waited twice it without a renewal, and now the key is held for the lock-delay."),
        look: Look::Service,
    },
    CONSUL_LOCK_DELAY_ENDS,
];

pub(super) const CONSUL_CRASHED_HOLDER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: Say::Text("A's host powers off holding the lock, and its Consul agent dies with it: serf's probes of the node go unanswered."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulNodeFailed { client, .. }) if *client == A),
        say: Say::Text("Serf's suspicion time is over: it marks A's node failed, serfHealth goes critical, and the server invalidates A's session now, long before twice the TTL. The key is held for the lock-delay."),
        look: Look::Service,
    },
    CONSUL_LOCK_DELAY_ENDS,
];

pub(super) const SLOW_ACQUIRE: &[Spec] = &[
    Spec {
        find: |e| matches!(e, Event::Clicked { client, command: Command::Acquire } if *client == A),
        say: Say::Text(
            "A asks all five nodes for the lock, and freezes before it can count their answers.",
        ),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::AcquireRetry { client, .. } | Event::AcquireFailed { client, .. } | Event::Acquired { client, .. } if *client == A),
        say: Say::Of(|e| {
            match e {
            Event::AcquireRetry { failure, .. } | Event::AcquireFailed { failure, .. } => Some(format!(
                "Not acquired: {failure}. By the time A counted the answers, the lease was already over."
            )),
            other => granted(ACQUIRED, other),
        }
        }),
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, A),
        say: Say::Grant(ACQUIRED),
        look: Look::Card(A),
    },
];

pub(super) const RENEW_AFTER_EXPIRY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Text("A's lease ran out during its pause and B holds the lock."),
        look: Look::Card(B),
    },
    Spec {
        find: |e| matches!(e, Event::HolderChanged { holder: Some(client), .. } if *client == A),
        say: Say::Text("A wakes and the renewal it sent lands as a blind SET: the nodes take it, and A silently owns the lock again, under B's feet."),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: Say::Text("A wakes and sees its lease is over. With a checked renewal the nodes keep B's value; with a blind one they would not."),
        look: Look::Card(A),
    },
];

pub(super) const CHUBBY_LOCK_DELAY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: Say::Text("A freezes. Its next KeepAlive already waits at the master, which will answer it once more, shortly before the lease ends: nobody reads the answer."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ChubbyLockFreed { .. })),
        say: Say::Of(|e| Some(match e {
            Event::Service(ServiceEvent::ChubbyLockFreed { delay_until, .. }) => format!(
                "A's session ends at the master. Lost by failure, the lock is free but nobody may claim it until {delay_until}: the lock-delay, hatched on the service lane (one minute in Chubby's time, the most a client may ask for; the paper names no default). Had A woken before then, its late write would have met a lock nobody held: harmless even unfenced."
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Clicked { client, command: Command::Acquire } if *client == B),
        say: Say::Text("B asks for the lock: its Acquire blocks at the master until the lock-delay ends."),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Of(|e| Some(match e {
            Event::Acquired { token, .. } => format!(
                "The lock-delay is over and B gets the lock: the generation number rises to {}. A sleeps on, still believing.",
                token.map_or("the next".to_string(), |t| t.to_string())
            ),
            _ => return None,
        })),
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::ChubbyState { client, state: ChubbySession::Jeopardy { .. } } if *client == A),
        say: Say::Text("A wakes and its queued write leaves at once. Only then does its library notice its local lease ran out long ago: jeopardy, cache flushed, calls blocked, and a grace period on A's card. Too late for the write already on its way."),
        look: Look::Card(A),
    },
    A_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::ChubbyState { client, state: ChubbySession::Expired } if *client == A),
        say: Say::Text("A's KeepAlive reaches the master, which no longer knows its session: expired. A lets go of the lock, after its stale write."),
        look: Look::Card(A),
    },
];

pub(super) const REDIS_FAILOVER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::NodeCrashed { .. }),
        say: Say::Text("The master dies 10 ms after A's SET and INCR, before its replica copied them: asynchronous replication. (The replica here trails by 20 ms, one that is behind; on a healthy LAN the copy lands within a millisecond, so a real master must die in that moment, or while its replica lags.)"),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisPromoted { .. })),
        say: Say::Of(|e| Some(format!("{e}. The lock key is gone and the fence counter is one behind."))),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("B takes the \"same\" lock with {token}: the number A already has. A still believes it holds."),
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(
            &LANDING,
            "",
            " With fencing on it is accepted too: token >= highest passes a token that repeats.",
        ),
        look: Look::Resource,
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: Say::Text("A's extension finds B's value in the key: only now does A learn it lost the lock."),
        look: Look::Card(A),
    },
];

fn item_put_by(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::Service(ServiceEvent::DynamoItemPut { client, .. }) if *client == who)
}

/// A lock item put, in words: the item, its RVN, and that it is no token.
fn item_put_words(e: &Event) -> Option<String> {
    Some(match e {
        Event::Service(ServiceEvent::DynamoItemPut {
            client,
            rvn,
            expected: None,
            ..
        }) => format!(
            "{client}'s put created the lock item: owner {client}, RVN {}. {client} gets no token, only this RVN, a random UUID; it judges its lease by its own clock, from when it sent the put.",
            rvn_text(*rvn)
        ),
        Event::Service(ServiceEvent::DynamoItemPut {
            client,
            rvn,
            expected: Some(old),
            replaced,
        }) => format!(
            "{client} saw RVN {} unchanged for a whole lease by its own clock, so its put, on condition the RVN is still {}, replaced {}'s item: owner {client}, RVN {}. DynamoDB expired nothing: {client} decided, and {} has not heard.",
            rvn_text(*old),
            rvn_text(*old),
            replaced.map_or("the old".to_string(), |r| r.to_string()),
            rvn_text(*rvn),
            replaced.map_or("the old holder".to_string(), |r| r.to_string()),
        ),
        _ => return None,
    })
}

/// A write landing at the resource under DynamoDB: no token to compare.
const DYNAMO_LANDING: Landing = Landing {
    stale: "The resource accepts {client}'s stale write: {damage}. Its RVN could not have stopped it: RVNs are random, unique but not ordered, so no resource can tell an old one from a new one.",
    without_lease: "The resource accepts {client}'s write although its lease is over by its own clock: nobody has taken the item over, so nothing is corrupted.",
    accepted: "The resource accepts {client}'s write: {client} is the owner the lock item names. The write carries no token.",
    rejected: "Fencing by a conditional check on the lock item: {client}'s write is rejected, {reason}. No token could do this here: the RVN is a random UUID and cannot be ordered.",
};

const DYNAMO_A_PUTS: Spec = Spec {
    find: |e| item_put_by(e, A),
    say: Say::Of(item_put_words),
    look: Look::Service,
};
const DYNAMO_B_PUTS: Spec = Spec {
    find: |e| item_put_by(e, B),
    say: Say::Of(item_put_words),
    look: Look::Service,
};
const DYNAMO_B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: Say::Landing(&DYNAMO_LANDING, "", ""),
    look: Look::Resource,
};
const DYNAMO_A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: Say::Landing(&DYNAMO_LANDING, "", ""),
    look: Look::Resource,
};
const DYNAMO_A_DROPS: Spec = Spec {
    find: |e| {
        matches!(e, Event::Lost { client, .. } if *client == A)
            || matches!(e, Event::Service(ServiceEvent::DynamoExpiredUnasked { client }) if *client == A)
    },
    say: Say::Of(|e| {
        let words = match e {
            Event::Lost { .. } => "A looks only now, a millisecond after the write left: by A's own clock the lease ran out long ago. The library only logs it and stops heartbeating; A stops believing because its application polls isExpired() (see the lock service panel). The write is already on its way.",
            _ => "By A's own clock the lease ran out long ago. The library only logs it and stops heartbeating; A's application never asks isExpired() (see the lock service panel), so A believes on and will go on writing as the holder.",
        };
        Some(words.into())
    }),
    look: Look::Card(A),
};

pub(super) const DYNAMO_GC_PAUSE: &[Spec] = &[
    DYNAMO_A_PUTS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: Say::Text("A freezes in an 8 s GC pause, and its heartbeat thread with it: the item's RVN stops changing. A's Write is clicked now, during the pause: it waits inside A, past A's check that it holds the lock, and leaves the instant A wakes."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::AcquireStarted { client } if *client == B),
        say: Say::Text("B asks for the lock. There is no queue: B reads the item, remembers its RVN and the time by its own clock, and reads again every twentieth of a lease. Only a whole lease of the same RVN lets it take over."),
        look: Look::Service,
    },
    DYNAMO_B_PUTS,
    DYNAMO_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: Say::Text("A wakes with its beliefs unchanged: by its own clock its lease ran out at 5 s, but it has not looked yet. The write clicked during its pause leaves the instant it woke."),
        look: Look::Card(A),
    },
    DYNAMO_A_DROPS,
    DYNAMO_A_WRITE_LANDS,
];

pub(super) const DYNAMO_TAKEOVER: &[Spec] = &[
    DYNAMO_A_PUTS,
    Spec {
        find: |e| matches!(e, Event::AcquireStarted { client } if *client == B),
        say: Say::Text("B asks for the lock, ready to wait a lease plus three more. It reads the item, remembers the RVN with the time by its own clock, and reads again every twentieth of a lease."),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::DynamoRvnChanged { client, .. }) if *client == A),
        say: Say::Of(|e| Some(match e {
            Event::Service(ServiceEvent::DynamoRvnChanged { from, to, .. }) => format!(
                "A's heartbeat replaces RVN {} with {}: a new random UUID, not a larger number. B starts counting again. Unique is not ordered: no resource could tell the older RVN from the newer.",
                rvn_text(*from),
                rvn_text(*to)
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: Say::Text("A checks isExpired() (false) and freezes for 10 s before its write. Its heartbeat thread freezes with it: the RVN stops changing, and B's count runs on."),
        look: Look::Card(A),
    },
    DYNAMO_B_PUTS,
    DYNAMO_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: Say::Text("A wakes believing it holds the lock, and its write leaves before its library looks at the clock."),
        look: Look::Card(A),
    },
    DYNAMO_A_DROPS,
    DYNAMO_A_WRITE_LANDS,
];

pub(super) const CONSUL_LOCK_DELAY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: Say::Text("A freezes for 30 s, just after a renewal: the server restarted its session timer at twice the TTL. Its Write waits inside the pause."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulSessionExpired { client, .. }) if *client == A),
        say: Say::Of(|e| Some(match e {
            Event::Service(ServiceEvent::ConsulSessionExpired {
                ttl_ms,
                silent_ms,
                lock_delay_until,
                ..
            }) => format!(
                "Consul invalidates A's session {} after its last renewal, with a TTL of {}: the TTL is only a lower bound. Behavior=delete removes the key{}.",
                Millis(*silent_ms),
                Millis(*ttl_ms),
                lock_delay_until.map_or(String::new(), |u| format!(
                    ", and a lock-delay keeps it from everyone until {u}"
                ))
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulLockDelayRefused { client, .. }) if *client == B),
        say: Say::Text("B is not in a queue: it was polling with a blocking GET. Its acquire is refused during the lock-delay, so it sleeps and polls again."),
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulKeyAcquired { client, .. }) if *client == B),
        say: Say::Of(|e| Some(match e {
            Event::Service(ServiceEvent::ConsulKeyAcquired {
                lock_index: 1,
                modify_index,
                ..
            }) => format!(
                "B creates the key again: LockIndex 1, the same number A holds, since a new key counts from 1. Its ModifyIndex, {modify_index}, is a Raft index and only grows."
            ),
            Event::Service(ServiceEvent::ConsulKeyAcquired {
                lock_index,
                modify_index,
                ..
            }) => format!(
                "B takes the key: LockIndex {lock_index}, ModifyIndex {modify_index}."
            ),
            _ => return None,
        })),
        look: Look::Service,
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: Say::Text("A wakes 30 s later still believing it holds the lock, and its write leaves before any news can reach it."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: Say::Text("A moment later A reads the answer its monitor's GET got while it was frozen: the key's Session is not A's, so leaderCh closes. Too late: the write has left."),
        look: Look::Card(A),
    },
    A_WRITE_LANDS,
];

/// What a PostgreSQL client's write accepted says, from its holder or not.
const PG_ACCEPTED: &str =
    "{client}'s write (it read version {version}) is accepted: the counter row is at version {value} now.";

/// A write landing where the resource checks the row's version.
const PG_LANDING: Landing = Landing {
    stale: "{client}'s write (it read version {version}) is accepted: {damage}. The lock was freed under {client}, and nothing told it.",
    without_lease: PG_ACCEPTED,
    accepted: PG_ACCEPTED,
    rejected: "The version column fences: {client}'s write is rejected, {reason}. The data moved on while {client} was away.",
};

fn pg_blocked_by(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::Service(ServiceEvent::PgLockBlocked { client, .. }) if *client == who)
}

const PG_A_HOLDS: Spec = Spec {
    find: |e| acquired_by(e, A),
    say: Say::Grant("{client} holds PostgreSQL's advisory lock 42 and read the counter row at version {version}. No lease, no end: it holds as long as its session lives."),
    look: Look::Card(A),
};
const PG_B_BLOCKS: Spec = Spec {
    find: |e| pg_blocked_by(e, B),
    say: Say::Text("B's pg_advisory_lock(42) blocks in the server: pg_locks shows its row with granted = false, behind A's."),
    look: Look::Service,
};
const PG_A_PAUSES: Spec = Spec {
    find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
    say: Say::Text("A freezes in an 8 s GC pause. No lease is running down: A's kernel still answers PostgreSQL's keepalive probes, so the server keeps A's session and its lock."),
    look: Look::Card(A),
};
const PG_A_WAKES: Spec = Spec {
    find: |e| matches!(e, Event::Woke { client } if *client == A),
    say: Say::Text("A wakes believing it holds the lock, and this time the belief is true. Its queued write leaves at once."),
    look: Look::Card(A),
};
const PG_A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: Say::Landing(&PG_LANDING, "", ""),
    look: Look::Resource,
};
const PG_B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: Say::Landing(&PG_LANDING, "", ""),
    look: Look::Resource,
};
const PG_SESSION_ENDS: Spec = Spec {
    find: |e| matches!(e, Event::Service(ServiceEvent::PgSessionEnded { client, freed_lock: true, .. }) if *client == A),
    say: Say::Of(|e| {
        let words = match e {
            Event::Service(ServiceEvent::PgSessionEnded {
                why: PgSessionEnd::ConnectionReset,
                ..
            }) => "A's rebooted host answers a probe with a reset: PostgreSQL ends A's session, and lock 42 goes with it.",
            _ => "The keepalives give up: PostgreSQL ends A's session, and lock 42 goes with it. Nobody tells A.",
        };
        Some(words.into())
    }),
    look: Look::Service,
};
const PG_B_GETS_IT: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: Say::Grant("B's blocked call returns: B holds lock 42 and read version {version}."),
    look: Look::Card(B),
};

pub(super) const PG_GC_PAUSE: &[Spec] = &[
    PG_A_HOLDS,
    PG_A_PAUSES,
    PG_B_BLOCKS,
    PG_A_WAKES,
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(
            &PG_LANDING,
            "",
            " A held the lock all along: fencing, on or off, has nothing to catch.",
        ),
        look: Look::Resource,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("A releases, and PostgreSQL hands lock 42 to B, first in line; B reads version {version}. B's only loss was time."),
        look: Look::Card(B),
    },
    PG_B_WRITE_LANDS,
];

pub(super) const PG_DELAYED_WRITE: &[Spec] = &[
    PG_A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::WriteSent { client, .. } if *client == A),
        say: Say::Text("A writes while it really holds the lock, naming the version it read, but this packet will sit in the network for 7 s."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: Say::Grant("A released, and B holds lock 42, reading the same version {version}: A's write has not landed yet."),
        look: Look::Service,
    },
    PG_B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(&PG_LANDING, "Sent in time, arrived late. ", ""),
        look: Look::Resource,
    },
];

pub(super) const PG_CRASHED_HOLDER: &[Spec] = &[
    PG_A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: Say::Text("A's host dies holding the lock. To PostgreSQL a dead host looks like an idle client: only TCP keepalives can tell them apart."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| pg_blocked_by(e, B),
        say: Say::Text("B's pg_advisory_lock(42) blocks behind A's dead session. With the tuned keepalives the server gives up on A 25 s after it last heard from it; with Linux's defaults, after 2 h 11 min. The TTL setting plays no part."),
        look: Look::Service,
    },
    PG_SESSION_ENDS,
    PG_B_GETS_IT,
];

pub(super) const PG_PROCESS_EXIT: &[Spec] = &[
    PG_A_HOLDS,
    PG_B_BLOCKS,
    Spec {
        find: |e| matches!(e, Event::Exited { client } if *client == A),
        say: Say::Text("A's process exits holding the lock (an OOM kill, a panic). Its host stays up, and its kernel closes the connection: a FIN is on its way to the server."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgSessionEnded { client, why: PgSessionEnd::ClientExited, .. }) if *client == A),
        say: Say::Text("The backend reads EOF and exits: PostgreSQL ends A's session at once, and lock 42 goes with it. No keepalive was needed; those are for a host that dies."),
        look: Look::Service,
    },
    PG_B_GETS_IT,
];

pub(super) const PG_NO_LEASE: &[Spec] = &[
    PG_A_HOLDS,
    PG_A_PAUSES,
    PG_B_BLOCKS,
    PG_A_WAKES,
    Spec {
        find: |e| landed_from(e, A),
        say: Say::Landing(
            &PG_LANDING,
            "",
            " Nothing was lost to the pause: no lease ran out, nobody else was granted the lock.",
        ),
        look: Look::Resource,
    },
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: Say::Text("Now the price. A's host dies holding the lock: PostgreSQL hears nothing more, which looks just like an idle client."),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgProbeUnanswered { client, .. }) if *client == A),
        say: Say::Text("A's connection has been silent for tcp_keepalives_idle: the server's first keepalive probe goes unanswered."),
        look: Look::Service,
    },
    PG_SESSION_ENDS,
    PG_B_GETS_IT,
    PG_B_WRITE_LANDS,
];

pub(super) const PG_PARTITION: &[Spec] = &[
    PG_A_HOLDS,
    PG_A_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Partitioned { client, .. } if *client == A),
        say: Say::Text("A is cut off from PostgreSQL, and so from the lock and the data at once: they live in one server."),
        look: Look::Card(A),
    },
    PG_B_BLOCKS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgProbeUnanswered { client, .. }) if *client == A),
        say: Say::Text("A's lock connection has been idle 10 s: PostgreSQL's first keepalive probe goes unanswered. Two more, 5 s apart, and it gives up."),
        look: Look::Service,
    },
    PG_SESSION_ENDS,
    PG_B_GETS_IT,
    PG_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Healed { client } if *client == A),
        say: Say::Text("The partition heals. A still believes it holds the lock: it learns its session is gone only when it next uses that connection, and it writes through another."),
        look: Look::Card(A),
    },
    PG_A_WRITE_LANDS,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The landings no story reaches on its own settings: a template is
    /// filled from the write's fields, and an event of another kind is
    /// said as it is.
    #[test]
    fn a_caption_fills_its_fields_from_the_event() {
        let write = Event::WriteAccepted {
            client: A,
            token: Some(Token(3)),
            value: 7,
            standing: Standing::WithoutLease,
            lost: 0,
        };
        assert_eq!(
            Say::Landing(&LANDING, "", "").caption(&write),
            "The resource accepts A's write (token 3) although its lease is gone: nobody else has had the lock since, so nothing is corrupted, and fencing accepts it too, its token still being the highest."
        );
        assert_eq!(
            Say::Landing(&PG_LANDING, "Late. ", " Done.").caption(&write),
            "Late. A's write (it read version 3) is accepted: the counter row is at version 7 now. Done."
        );
        let woke = Event::Woke { client: A };
        assert_eq!(Say::Grant(ACQUIRED).caption(&woke), woke.to_string());
        assert_eq!(
            Say::Landing(&LANDING, "Late. ", "").caption(&woke),
            format!("Late. {woke}")
        );
    }
}
