//! Guided tours: the key moments of each story, found in the run itself.
//!
//! A moment is not a fixed time: it is the first event of a kind after the
//! previous moment (A acquires, A freezes, B acquires, A's write lands). So
//! the same tour works on every backend, with any seed, and after a "try
//! this" change where the story ends differently; a moment whose event never
//! happens (no second holder once the fix is on) is simply left out.

use crate::sim::{
    rvn_text, Backend, ChubbySession, ClientId, Command, Event, Fencing, Millis, Persistence,
    PgSessionEnd, Record, Scenario, ServiceEvent, Sim, Standing, ZkConn,
};

use super::presets::Preset;
pub use super::questions::{Answer, Question};

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
    say: fn(&Event) -> String,
    look: Look,
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
    let setting = (config.backend, config.fencing);
    find_moments(preset.tour_on(config.backend), sim.history(), setting)
}

fn find_moments(specs: &[Spec], history: &[Record], setting: (Backend, Fencing)) -> Vec<Moment> {
    let mut from = 0;
    let mut found = Vec::new();
    for spec in specs {
        let Some(offset) = history[from..].iter().position(|r| (spec.find)(&r.event)) else {
            continue;
        };
        let record = &history[from + offset];
        found.push(Moment {
            at: record.at,
            caption: (spec.say)(&record.event),
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

/// A write landing at the resource, in words: what happened and why.
fn landing_words(e: &Event) -> String {
    match e {
        Event::WriteAccepted {
            client,
            token,
            standing: Standing::Stale,
            ..
        } => format!(
            "The resource accepts {client}'s stale write ({}): two holders, one corrupted counter.",
            crate::words::token(*token)
        ),
        Event::WriteAccepted {
            client,
            token,
            standing: Standing::WithoutLease,
            ..
        } => format!(
            "The resource accepts {client}'s write ({}) although its lease is gone: nobody else has had the lock since, so nothing is corrupted, and fencing accepts it too, its token still being the highest.",
            crate::words::token(*token)
        ),
        Event::WriteAccepted { client, token, .. } => format!(
            "The resource accepts {client}'s write ({}): the highest accepted token is now its token.",
            crate::words::token(*token)
        ),
        Event::WriteRejected {
            client, reason, ..
        } => format!("Fencing: {client}'s write is rejected, {reason}. The counter is safe."),
        other => other.to_string(),
    }
}

fn acquired_words(e: &Event) -> String {
    match e {
        Event::Acquired { client, token, .. } => format!(
            "{client} holds the lock with {}. Its lease runs on the service's clock, not on {client}'s.",
            crate::words::token(*token)
        ),
        other => other.to_string(),
    }
}

fn took_over_words(e: &Event) -> String {
    match e {
        Event::Acquired { client, token, .. } => format!(
            "{client} now holds the lock with {}: the service saw the old lease end. Does the old holder know?",
            crate::words::token(*token)
        ),
        other => other.to_string(),
    }
}

fn two_holders_words(e: &Event) -> String {
    match e {
        Event::TwoHolders { clients } => {
            let names: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
            format!(
                "Two believed holders: {} each believe they hold the lock. Only the resource can tell them apart.",
                names.join(" and ")
            )
        }
        other => other.to_string(),
    }
}

const A_HOLDS: Spec = Spec {
    find: |e| acquired_by(e, A),
    say: acquired_words,
    look: Look::Card(A),
};
const B_TAKES_OVER: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: took_over_words,
    look: Look::Service,
};
const TWO_HOLDERS: Spec = Spec {
    find: |e| matches!(e, Event::TwoHolders { .. }),
    say: two_holders_words,
    look: Look::Status,
};
const B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: landing_words,
    look: Look::Resource,
};
const A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: landing_words,
    look: Look::Resource,
};

pub(super) const GC_PAUSE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |e| {
            match e {
            Event::Paused { until, .. } => format!(
                "A freezes in a GC pause until {until}, and its renewals stop. A's Write is clicked now, during the pause: it waits inside A, past A's check that it holds the lock, and leaves the instant A wakes, before any reply can reach it."
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(A),
    },
    B_TAKES_OVER,
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: |_| {
            "A wakes with its beliefs unchanged: it still thinks it holds the lock. The write clicked during its pause leaves the instant it woke, before any reply could tell A its lease is gone.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| landed_from(e, A),
        say: |e| {
            format!(
                "A's write, clicked during its pause, arrives. {}",
                landing_words(e)
            )
        },
        look: Look::Resource,
    },
];

pub(super) const DELAYED_WRITE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::WriteSent { client, .. } if *client == A),
        say: |_| {
            "A writes while it really holds the lock, but this packet will sit in the network for 7 s.".into()
        },
        look: Look::Card(A),
    },
    B_TAKES_OVER,
    B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: |e| format!("Sent in time, arrived late. {}", landing_words(e)),
        look: Look::Resource,
    },
];

pub(super) const RELEASE_OTHER: &[Spec] = &[
    A_HOLDS,
    B_TAKES_OVER,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisKeyDeleted { owner, by, .. }) if owner != by),
        say: |e| {
            match e {
            Event::Service(ServiceEvent::RedisKeyDeleted { owner, by, .. }) => format!(
                "{by} wakes and releases with a plain DEL: node by node, {owner}'s keys are deleted. {owner} still believes it holds the lock."
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, C),
        say: |e| {
            match e {
            Event::Acquired { token, .. } => format!(
                "With B's keys gone, C wins a quorum with {} while B still believes it holds the lock.",
                crate::words::token(*token)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(C),
    },
    TWO_HOLDERS,
];

pub(super) const REDLOCK_RESTART: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::NodeRestarted { node, .. } | Event::NodeRestartDelayed { node, .. } if node.number() == 3),
        say: |e| {
            match e {
            Event::NodeRestarted { node, persistence: Persistence::None } => format!(
                "Redis {node} restarts empty: no persistence, so A's key on it is gone. A now holds only two of five nodes, and does not know."
            ),
            Event::NodeRestartDelayed { node, until } => format!(
                "Redis {node} stays down until t={until}: by then every key it held has expired anyway."
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| {
            acquired_by(e, B) || matches!(e, Event::AcquireFailed { client, .. } if *client == B)
        },
        say: |e| match e {
            Event::Acquired { .. } => {
                "B wins nodes 3, 4 and 5: a quorum. Two holders, and no client ever paused.".into()
            }
            _ => "B cannot reach a quorum: A's keys still stand on three nodes.".into(),
        },
        look: Look::Service,
    },
    A_WRITE_LANDS,
];

pub(super) const CLOCK_JUMP: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::ClockJumped { .. }),
        say: |e| {
            match e {
            Event::ClockJumped { node, jump_ms } => format!(
                "The wall clock of Redis {node} jumps {} s forward, and it expires A's key early. Redlock trusts every node's clock.",
                jump_ms / 1_000
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| {
            "B wins nodes 3, 4 and 5: a quorum while A still holds nodes 1 and 2 and believes it holds the lock.".into()
        },
        look: Look::Service,
    },
    B_WRITE_LANDS,
    A_WRITE_LANDS,
];

pub(super) const NO_FENCE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisFenceReset { .. })),
        say: |_| {
            "Node 1 restarts without persistence: its INCR counter starts again from 0. The next token will repeat an old one.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| match e {
            Event::Acquired { token, .. } => format!(
                "B holds the lock with {}: unique values, but not monotonic ones.",
                crate::words::token(*token)
            ),
            other => other.to_string(),
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    A_WRITE_LANDS,
];

pub(super) const ZK_PARTITION: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Waiting { client, .. } if *client == C),
        say: |_| {
            "B and C queue behind A, each watching the znode just before its own: a FIFO queue."
                .into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::ZkState { client, state: ZkConn::Suspended } if *client == A),
        say: |_| {
            "A hears nothing from ZooKeeper: SUSPENDED. The recipe still says it holds the lock, and it keeps writing.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| {
            "A's session expired at the server, its znode went, and B, next in the queue, takes over on its own.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::ZkState { client, state: ZkConn::Lost } if *client == A),
        say: |_| {
            "A is told its session is LOST: with Curator once a session timeout has passed while SUSPENDED, still cut off; with the native client or kazoo only when the partition heals. Either way B took over first: SUSPENDED was the moment to stop.".into()
        },
        look: Look::Card(A),
    },
];

pub(super) const ETCD_KEEPALIVE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Partitioned { client, .. } if *client == A),
        say: |_| "A is cut off from etcd: its keepalives stop reaching the lease.".into(),
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::EtcdKeyDeleted { client, .. }) if *client == A),
        say: |e| {
            match e {
            Event::Service(ServiceEvent::EtcdKeyDeleted { revision, .. }) => format!(
                "A's lease expires and etcd deletes its key: the revision moves to {revision}. Deletes are writes too."
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| match e {
            Event::Acquired { token, .. } => format!(
                "B's key was next by create_revision, so B holds the lock with {}.",
                crate::words::token(*token)
            ),
            other => other.to_string(),
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
];

pub(super) const CRASHED_HOLDER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: |_| {
            "A's host powers off holding the lock: no FIN, only silence. Nobody can tell a dead host from a slow one, so the lease must run out.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| {
            "Only now, once the service has let A's lease go (on Chubby after a lock-delay too), does B get the lock. A long TTL makes this wait long.".into()
        },
        look: Look::Card(B),
    },
];

const A_EXITS: Spec = Spec {
    find: |e| matches!(e, Event::Exited { client } if *client == A),
    say: |_| {
        "A's process exits holding the lock (an OOM kill, a panic). Its host stays up, and its kernel closes A's connections at once. A's card says what the service made of that.".into()
    },
    look: Look::Card(A),
};

pub(super) const PROCESS_EXIT: &[Spec] = &[
    A_HOLDS,
    A_EXITS,
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| {
            "Only once A's lease or session runs out (on Chubby after a lock-delay too) does B get the lock: a closed connection ended nothing, and the wait is the same as for a dead host.".into()
        },
        look: Look::Card(B),
    },
];

const CONSUL_LOCK_DELAY_ENDS: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: |_| "The lock-delay over, B's next poll finds the key free, and B holds the lock.".into(),
    look: Look::Card(B),
};

pub(super) const CONSUL_PROCESS_EXIT: &[Spec] = &[
    A_HOLDS,
    A_EXITS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulSessionExpired { client, .. }) if *client == A),
        say: |_| {
            "A's agent is alive and serf sees a healthy node, so only the TTL ends A's session: the server waited twice it without a renewal, and now the key is held for the lock-delay.".into()
        },
        look: Look::Service,
    },
    CONSUL_LOCK_DELAY_ENDS,
];

pub(super) const CONSUL_CRASHED_HOLDER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: |_| {
            "A's host powers off holding the lock, and its Consul agent dies with it: serf's probes of the node go unanswered.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulNodeFailed { client, .. }) if *client == A),
        say: |_| {
            "Serf's suspicion time is over: it marks A's node failed, serfHealth goes critical, and the server invalidates A's session now, long before twice the TTL. The key is held for the lock-delay.".into()
        },
        look: Look::Service,
    },
    CONSUL_LOCK_DELAY_ENDS,
];

pub(super) const SLOW_ACQUIRE: &[Spec] = &[
    Spec {
        find: |e| matches!(e, Event::Clicked { client, command: Command::Acquire } if *client == A),
        say: |_| {
            "A asks all five nodes for the lock, and freezes before it can count their answers."
                .into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::AcquireRetry { client, .. } | Event::AcquireFailed { client, .. } | Event::Acquired { client, .. } if *client == A),
        say: |e| {
            match e {
            Event::AcquireRetry { failure, .. } | Event::AcquireFailed { failure, .. } => format!(
                "Not acquired: {failure}. By the time A counted the answers, the lease was already over."
            ),
            other => acquired_words(other),
        }
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, A),
        say: acquired_words,
        look: Look::Card(A),
    },
];

pub(super) const RENEW_AFTER_EXPIRY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| "A's lease ran out during its pause and B holds the lock.".into(),
        look: Look::Card(B),
    },
    Spec {
        find: |e| matches!(e, Event::HolderChanged { holder: Some(client), .. } if *client == A),
        say: |_| {
            "A wakes and the renewal it sent lands as a blind SET: the nodes take it, and A silently owns the lock again, under B's feet.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: |_| {
            "A wakes and sees its lease is over. With a checked renewal the nodes keep B's value; with a blind one they would not.".into()
        },
        look: Look::Card(A),
    },
];

pub(super) const CHUBBY_LOCK_DELAY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |_| {
            "A freezes. Its next KeepAlive already waits at the master, which will answer it once more, shortly before the lease ends: nobody reads the answer.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ChubbyLockFreed { .. })),
        say: |e| {
            match e {
            Event::Service(ServiceEvent::ChubbyLockFreed { delay_until, .. }) => format!(
                "A's session ends at the master. Lost by failure, the lock is free but nobody may claim it until {delay_until}: the lock-delay, hatched on the service lane (one minute in Chubby's time, the most a client may ask for; the paper names no default). Had A woken before then, its late write would have met a lock nobody held: harmless even unfenced."
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Clicked { client, command: Command::Acquire } if *client == B),
        say: |_| {
            "B asks for the lock: its Acquire blocks at the master until the lock-delay ends."
                .into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| {
            match e {
            Event::Acquired { token, .. } => format!(
                "The lock-delay is over and B gets the lock: the generation number rises to {}. A sleeps on, still believing.",
                token.map_or("the next".to_string(), |t| t.to_string())
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::ChubbyState { client, state: ChubbySession::Jeopardy { .. } } if *client == A),
        say: |_| {
            "A wakes and its queued write leaves at once. Only then does its library notice its local lease ran out long ago: jeopardy, cache flushed, calls blocked, and a grace period on A's card. Too late for the write already on its way.".into()
        },
        look: Look::Card(A),
    },
    A_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::ChubbyState { client, state: ChubbySession::Expired } if *client == A),
        say: |_| {
            "A's KeepAlive reaches the master, which no longer knows its session: expired. A lets go of the lock, after its stale write.".into()
        },
        look: Look::Card(A),
    },
];

pub(super) const REDIS_FAILOVER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::NodeCrashed { .. }),
        say: |_| {
            "The master dies 10 ms after A's SET and INCR, before its replica copied them: asynchronous replication. (The replica here trails by 20 ms, one that is behind; on a healthy LAN the copy lands within a millisecond, so a real master must die in that moment, or while its replica lags.)".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::RedisPromoted { .. })),
        say: |e| format!("{e}. The lock key is gone and the fence counter is one behind."),
        look: Look::Service,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| {
            match e {
            Event::Acquired { token, .. } => format!(
                "B takes the \"same\" lock with {}: the number A already has. A still believes it holds.",
                crate::words::token(*token)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: |e| {
            format!(
            "{} With fencing on it is accepted too: token >= highest passes a token that repeats.",
            landing_words(e)
        )
        },
        look: Look::Resource,
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: |_| {
            "A's extension finds B's value in the key: only now does A learn it lost the lock."
                .into()
        },
        look: Look::Card(A),
    },
];

fn item_put_by(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::Service(ServiceEvent::DynamoItemPut { client, .. }) if *client == who)
}

/// A lock item put, in words: the item, its RVN, and that it is no token.
fn item_put_words(e: &Event) -> String {
    match e {
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
        other => other.to_string(),
    }
}

/// A write landing at the resource under DynamoDB: no token to compare.
fn dynamo_landing_words(e: &Event) -> String {
    match e {
        Event::WriteAccepted {
            client,
            standing: Standing::Stale,
            ..
        } => format!(
            "The resource accepts {client}'s stale write: two holders, one corrupted counter. Its RVN could not have stopped it: RVNs are random, unique but not ordered, so no resource can tell an old one from a new one."
        ),
        Event::WriteAccepted {
            client,
            standing: Standing::WithoutLease,
            ..
        } => format!(
            "The resource accepts {client}'s write although its lease is over by its own clock: nobody has taken the item over, so nothing is corrupted."
        ),
        Event::WriteAccepted { client, .. } => format!(
            "The resource accepts {client}'s write: {client} is the owner the lock item names. The write carries no token."
        ),
        Event::WriteRejected { client, reason, .. } => format!(
            "Fencing by a conditional check on the lock item: {client}'s write is rejected, {reason}. No token could do this here: the RVN is a random UUID and cannot be ordered."
        ),
        other => other.to_string(),
    }
}

const DYNAMO_B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: dynamo_landing_words,
    look: Look::Resource,
};
const DYNAMO_A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: dynamo_landing_words,
    look: Look::Resource,
};
const DYNAMO_A_DROPS: Spec = Spec {
    find: |e| {
        matches!(e, Event::Lost { client, .. } if *client == A)
            || matches!(e, Event::Service(ServiceEvent::DynamoExpiredUnasked { client }) if *client == A)
    },
    say: |e| {
        match e {
            Event::Lost { .. } => "A looks only now, a millisecond after the write left: by A's own clock the lease ran out long ago. The library only logs it and stops heartbeating; A stops believing because its application polls isExpired() (see the lock service panel). The write is already on its way.".into(),
            _ => "By A's own clock the lease ran out long ago. The library only logs it and stops heartbeating; A's application never asks isExpired() (see the lock service panel), so A believes on and will go on writing as the holder.".into(),
        }
    },
    look: Look::Card(A),
};

pub(super) const DYNAMO_GC_PAUSE: &[Spec] = &[
    Spec {
        find: |e| item_put_by(e, A),
        say: item_put_words,
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |_| {
            "A freezes in an 8 s GC pause, and its heartbeat thread with it: the item's RVN stops changing. A's Write is clicked now, during the pause: it waits inside A, past A's check that it holds the lock, and leaves the instant A wakes.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::AcquireStarted { client } if *client == B),
        say: |_| {
            "B asks for the lock. There is no queue: B reads the item, remembers its RVN and the time by its own clock, and reads again every twentieth of a lease. Only a whole lease of the same RVN lets it take over.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| item_put_by(e, B),
        say: item_put_words,
        look: Look::Service,
    },
    DYNAMO_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: |_| {
            "A wakes with its beliefs unchanged: by its own clock its lease ran out at 5 s, but it has not looked yet. The write clicked during its pause leaves the instant it woke.".into()
        },
        look: Look::Card(A),
    },
    DYNAMO_A_DROPS,
    DYNAMO_A_WRITE_LANDS,
];

pub(super) const DYNAMO_TAKEOVER: &[Spec] = &[
    Spec {
        find: |e| item_put_by(e, A),
        say: item_put_words,
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::AcquireStarted { client } if *client == B),
        say: |_| {
            "B asks for the lock, ready to wait a lease plus three more. It reads the item, remembers the RVN with the time by its own clock, and reads again every twentieth of a lease.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::DynamoRvnChanged { client, .. }) if *client == A),
        say: |e| {
            match e {
            Event::Service(ServiceEvent::DynamoRvnChanged { from, to, .. }) => format!(
                "A's heartbeat replaces RVN {} with {}: a new random UUID, not a larger number. B starts counting again. Unique is not ordered: no resource could tell the older RVN from the newer.",
                rvn_text(*from),
                rvn_text(*to)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |_| {
            "A checks isExpired() (false) and freezes for 10 s before its write. Its heartbeat thread freezes with it: the RVN stops changing, and B's count runs on.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| item_put_by(e, B),
        say: item_put_words,
        look: Look::Service,
    },
    DYNAMO_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: |_| {
            "A wakes believing it holds the lock, and its write leaves before its library looks at the clock.".into()
        },
        look: Look::Card(A),
    },
    DYNAMO_A_DROPS,
    DYNAMO_A_WRITE_LANDS,
];

pub(super) const CONSUL_LOCK_DELAY: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |_| {
            "A freezes for 30 s, just after a renewal: the server restarted its session timer at twice the TTL. Its Write waits inside the pause.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulSessionExpired { client, .. }) if *client == A),
        say: |e| {
            match e {
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
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulLockDelayRefused { client, .. }) if *client == B),
        say: |_| {
            "B is not in a queue: it was polling with a blocking GET. Its acquire is refused during the lock-delay, so it sleeps and polls again.".into()
        },
        look: Look::Service,
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::ConsulKeyAcquired { client, .. }) if *client == B),
        say: |e| {
            match e {
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
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: |_| {
            "A wakes 30 s later still believing it holds the lock, and its write leaves before any news can reach it.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Lost { client, .. } if *client == A),
        say: |_| {
            "A moment later A reads the answer its monitor's GET got while it was frozen: the key's Session is not A's, so leaderCh closes. Too late: the write has left.".into()
        },
        look: Look::Card(A),
    },
    A_WRITE_LANDS,
];

fn pg_granted_words(e: &Event) -> String {
    match e {
        Event::Acquired { client, token, .. } => format!(
            "{client} holds PostgreSQL's advisory lock 42 and read the counter row at version {}. No lease, no end: it holds as long as its session lives.",
            token.map_or(0, |t| t.0)
        ),
        other => other.to_string(),
    }
}

fn pg_landing_words(e: &Event) -> String {
    match e {
        Event::WriteAccepted {
            client,
            token,
            value,
            standing: Standing::Stale,
        } => format!(
            "{client}'s write (it read version {}) is accepted, and the counter is {value}: two holders, one corrupted counter. The lock was freed under {client}, and nothing told it.",
            token.map_or(0, |t| t.0)
        ),
        Event::WriteAccepted {
            client,
            token,
            value,
            ..
        } => format!(
            "{client}'s write (it read version {}) is accepted: the counter row is at version {value} now.",
            token.map_or(0, |t| t.0)
        ),
        Event::WriteRejected {
            client, reason, ..
        } => format!(
            "The version column fences: {client}'s write is rejected, {reason}. The data moved on while {client} was away."
        ),
        other => other.to_string(),
    }
}

fn pg_blocked_by(e: &Event, who: ClientId) -> bool {
    matches!(e, Event::Service(ServiceEvent::PgLockBlocked { client, .. }) if *client == who)
}

const PG_A_HOLDS: Spec = Spec {
    find: |e| acquired_by(e, A),
    say: pg_granted_words,
    look: Look::Card(A),
};
const PG_B_BLOCKS: Spec = Spec {
    find: |e| pg_blocked_by(e, B),
    say: |_| {
        "B's pg_advisory_lock(42) blocks in the server: pg_locks shows its row with granted = false, behind A's.".into()
    },
    look: Look::Service,
};
const PG_A_PAUSES: Spec = Spec {
    find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
    say: |_| {
        "A freezes in an 8 s GC pause. No lease is running down: A's kernel still answers PostgreSQL's keepalive probes, so the server keeps A's session and its lock.".into()
    },
    look: Look::Card(A),
};
const PG_A_WAKES: Spec = Spec {
    find: |e| matches!(e, Event::Woke { client } if *client == A),
    say: |_| {
        "A wakes believing it holds the lock, and this time the belief is true. Its queued write leaves at once.".into()
    },
    look: Look::Card(A),
};
const PG_A_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, A),
    say: pg_landing_words,
    look: Look::Resource,
};
const PG_B_WRITE_LANDS: Spec = Spec {
    find: |e| landed_from(e, B),
    say: pg_landing_words,
    look: Look::Resource,
};
const PG_SESSION_ENDS: Spec = Spec {
    find: |e| matches!(e, Event::Service(ServiceEvent::PgSessionEnded { client, freed_lock: true, .. }) if *client == A),
    say: |e| {
        match e {
        Event::Service(ServiceEvent::PgSessionEnded {
            why: PgSessionEnd::ConnectionReset,
            ..
        }) => "A's rebooted host answers a probe with a reset: PostgreSQL ends A's session, and lock 42 goes with it.".into(),
        _ => "The keepalives give up: PostgreSQL ends A's session, and lock 42 goes with it. Nobody tells A.".into(),
    }
    },
    look: Look::Service,
};
const PG_B_GETS_IT: Spec = Spec {
    find: |e| acquired_by(e, B),
    say: |e| match e {
        Event::Acquired { token, .. } => format!(
            "B's blocked call returns: B holds lock 42 and read version {}.",
            token.map_or(0, |t| t.0)
        ),
        other => other.to_string(),
    },
    look: Look::Card(B),
};

pub(super) const PG_GC_PAUSE: &[Spec] = &[
    PG_A_HOLDS,
    PG_A_PAUSES,
    PG_B_BLOCKS,
    PG_A_WAKES,
    Spec {
        find: |e| landed_from(e, A),
        say: |e| {
            format!(
                "{} A held the lock all along: fencing, on or off, has nothing to catch.",
                pg_landing_words(e)
            )
        },
        look: Look::Resource,
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| {
            match e {
            Event::Acquired { token, .. } => format!(
                "A releases, and PostgreSQL hands lock 42 to B, first in line; B reads version {}. B's only loss was time.",
                token.map_or(0, |t| t.0)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(B),
    },
    PG_B_WRITE_LANDS,
];

pub(super) const PG_DELAYED_WRITE: &[Spec] = &[
    PG_A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::WriteSent { client, .. } if *client == A),
        say: |_| {
            "A writes while it really holds the lock, naming the version it read, but this packet will sit in the network for 7 s.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |e| {
            match e {
            Event::Acquired { token, .. } => format!(
                "A released, and B holds lock 42, reading the same version {}: A's write has not landed yet.",
                token.map_or(0, |t| t.0)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Service,
    },
    PG_B_WRITE_LANDS,
    Spec {
        find: |e| landed_from(e, A),
        say: |e| format!("Sent in time, arrived late. {}", pg_landing_words(e)),
        look: Look::Resource,
    },
];

pub(super) const PG_CRASHED_HOLDER: &[Spec] = &[
    PG_A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: |_| {
            "A's host dies holding the lock. To PostgreSQL a dead host looks like an idle client: only TCP keepalives can tell them apart.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| pg_blocked_by(e, B),
        say: |_| {
            "B's pg_advisory_lock(42) blocks behind A's dead session. With the tuned keepalives the server gives up on A 25 s after it last heard from it; with Linux's defaults, after 2 h 11 min. The TTL setting plays no part.".into()
        },
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
        say: |_| {
            "A's process exits holding the lock (an OOM kill, a panic). Its host stays up, and its kernel closes the connection: a FIN is on its way to the server.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgSessionEnded { client, why: PgSessionEnd::ClientExited, .. }) if *client == A),
        say: |_| {
            "The backend reads EOF and exits: PostgreSQL ends A's session at once, and lock 42 goes with it. No keepalive was needed; those are for a host that dies.".into()
        },
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
        say: |e| {
            format!(
                "{} Nothing was lost to the pause: no lease ran out, nobody else was granted the lock.",
                pg_landing_words(e)
            )
        },
        look: Look::Resource,
    },
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: |_| {
            "Now the price. A's host dies holding the lock: PostgreSQL hears nothing more, which looks just like an idle client.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgProbeUnanswered { client, .. }) if *client == A),
        say: |_| {
            "A's connection has been silent for tcp_keepalives_idle: the server's first keepalive probe goes unanswered.".into()
        },
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
        say: |_| {
            "A is cut off from PostgreSQL, and so from the lock and the data at once: they live in one server.".into()
        },
        look: Look::Card(A),
    },
    PG_B_BLOCKS,
    Spec {
        find: |e| matches!(e, Event::Service(ServiceEvent::PgProbeUnanswered { client, .. }) if *client == A),
        say: |_| {
            "A's lock connection has been idle 10 s: PostgreSQL's first keepalive probe goes unanswered. Two more, 5 s apart, and it gives up.".into()
        },
        look: Look::Service,
    },
    PG_SESSION_ENDS,
    PG_B_GETS_IT,
    PG_B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Healed { client } if *client == A),
        say: |_| {
            "The partition heals. A still believes it holds the lock: it learns its session is gone only when it next uses that connection, and it writes through another.".into()
        },
        look: Look::Card(A),
    },
    PG_A_WRITE_LANDS,
];
