//! Guided tours: the key moments of each story, found in the run itself.
//!
//! A moment is not a fixed time: it is the first event of a kind after the
//! previous moment (A acquires, A freezes, B acquires, A's write lands). So
//! the same tour works on every backend, with any seed, and after a "try
//! this" change where the story ends differently; a moment whose event never
//! happens (no second holder once the fix is on) is simply left out.

use crate::sim::{
    Backend, ClientId, Command, Event, Millis, Persistence, PgSessionEnd, Record, Scenario,
    ServiceEvent, Sim, Standing, Token, ZkConn,
};

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
}

/// How to find a moment: the first event after the previous moment that
/// `find` accepts, described by `say`.
struct Spec {
    find: fn(&Event) -> bool,
    say: fn(&Event) -> String,
    look: Look,
}

const A: ClientId = ClientId::ALL[0];
const B: ClientId = ClientId::ALL[1];
const C: ClientId = ClientId::ALL[2];

/// The tour of a scenario run up to `until`: replays it and finds each moment.
pub fn moments(preset_id: &str, scenario: &Scenario, until: Millis) -> Vec<Moment> {
    let Ok(sim) = Sim::play(scenario, until) else {
        return Vec::new();
    };
    find_moments(specs(preset_id, scenario.config.backend), sim.history())
}

fn find_moments(specs: &[Spec], history: &[Record]) -> Vec<Moment> {
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
        });
        from += offset + 1;
    }
    found
}

fn token_words(token: Option<Token>) -> String {
    match token {
        Some(t) => format!("token {t}"),
        None => "no token".into(),
    }
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
            token_words(*token)
        ),
        Event::WriteAccepted {
            client,
            token,
            standing: Standing::WithoutLease,
            ..
        } => format!(
            "The resource accepts {client}'s write ({}) although its lease is gone: nobody else has had the lock since, so nothing is corrupted, and fencing accepts it too, its token still being the highest.",
            token_words(*token)
        ),
        Event::WriteAccepted { client, token, .. } => format!(
            "The resource accepts {client}'s write ({}): the highest accepted token is now its token.",
            token_words(*token)
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
            token_words(*token)
        ),
        other => other.to_string(),
    }
}

fn took_over_words(e: &Event) -> String {
    match e {
        Event::Acquired { client, token, .. } => format!(
            "{client} now holds the lock with {}: the service saw the old lease end. Does the old holder know?",
            token_words(*token)
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

fn specs(preset_id: &str, backend: Backend) -> &'static [Spec] {
    match preset_id {
        // PostgreSQL's lock is no lease: the stories every backend tells
        // turn out otherwise there, and say so.
        "gc-pause" if backend == Backend::Postgres => PG_GC_PAUSE,
        "delayed-write" if backend == Backend::Postgres => PG_DELAYED_WRITE,
        "crashed-holder" if backend == Backend::Postgres => PG_CRASHED_HOLDER,
        "postgres-no-lease" => PG_NO_LEASE,
        "postgres-partition" => PG_PARTITION,
        "gc-pause" => GC_PAUSE,
        "delayed-write" => DELAYED_WRITE,
        "release-other" => RELEASE_OTHER,
        "redlock-restart" => REDLOCK_RESTART,
        "redlock-clock-jump" => CLOCK_JUMP,
        "redlock-no-fence" => NO_FENCE,
        "zk-partition" => ZK_PARTITION,
        "etcd-keepalive" => ETCD_KEEPALIVE,
        "crashed-holder" => CRASHED_HOLDER,
        "slow-acquire" => SLOW_ACQUIRE,
        "renew-after-expiry" => RENEW_AFTER_EXPIRY,
        _ => &[],
    }
}

const GC_PAUSE: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Paused { client, .. } if *client == A),
        say: |_| {
            "A freezes in an 8 s GC pause. Its keepalives stop; the Write clicked now waits inside the pause, after A's check that it holds the lock.".into()
        },
        look: Look::Card(A),
    },
    B_TAKES_OVER,
    B_WRITE_LANDS,
    Spec {
        find: |e| matches!(e, Event::Woke { client } if *client == A),
        say: |_| {
            "A wakes with its beliefs unchanged: it still thinks it holds the lock, and its queued write leaves at once.".into()
        },
        look: Look::Card(A),
    },
    A_WRITE_LANDS,
];

const DELAYED_WRITE: &[Spec] = &[
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

const RELEASE_OTHER: &[Spec] = &[
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
                token_words(*token)
            ),
            other => other.to_string(),
        }
        },
        look: Look::Card(C),
    },
    TWO_HOLDERS,
];

const REDLOCK_RESTART: &[Spec] = &[
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

const CLOCK_JUMP: &[Spec] = &[
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

const NO_FENCE: &[Spec] = &[
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
                token_words(*token)
            ),
            other => other.to_string(),
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
    A_WRITE_LANDS,
];

const ZK_PARTITION: &[Spec] = &[
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

const ETCD_KEEPALIVE: &[Spec] = &[
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
                token_words(*token)
            ),
            other => other.to_string(),
        },
        look: Look::Card(B),
    },
    B_WRITE_LANDS,
];

const CRASHED_HOLDER: &[Spec] = &[
    A_HOLDS,
    Spec {
        find: |e| matches!(e, Event::Crashed { client } if *client == A),
        say: |_| {
            "A crashes holding the lock. Nobody can tell a crash from a slow client, so the lease must run out.".into()
        },
        look: Look::Card(A),
    },
    Spec {
        find: |e| acquired_by(e, B),
        say: |_| {
            "Only now, a full lease after A's last renewal, does B get the lock. A long TTL makes this wait long.".into()
        },
        look: Look::Card(B),
    },
];

const SLOW_ACQUIRE: &[Spec] = &[
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

const RENEW_AFTER_EXPIRY: &[Spec] = &[
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

const PG_GC_PAUSE: &[Spec] = &[
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

const PG_DELAYED_WRITE: &[Spec] = &[
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

const PG_CRASHED_HOLDER: &[Spec] = &[
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

const PG_NO_LEASE: &[Spec] = &[
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

const PG_PARTITION: &[Spec] = &[
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
