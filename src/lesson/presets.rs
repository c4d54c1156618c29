//! The stories the page tells, as deterministic scripts: each preset is a
//! configuration and a list of timed commands, for each backend it suits.

use super::tour::{self, Spec};
use crate::sim::{
    Backend, Command, Config, ConsulOptions, ConsulToken, DynamoOptions, ExtendMode, Fencing,
    KeyCleanup, NodeCommand, PartitionScope, Persistence, PgOptions, ReleaseMode, ReplicaWait,
    RestartPolicy, Scenario, Seed, ZkClient, ZkOptions,
};
use crate::wire::json::Json;

/// A story's long words, what happens and what fixes it: the text itself,
/// except in the page's WebAssembly, which leaves them out of its first
/// load and fetches them with the story (`stories.json`, written from these
/// by tests/core/stories_file.rs; `ui::stories` reads it). The "try this"
/// sentence, on show as soon as a story is loaded, stays in the page.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! words {
    ($text:literal) => {
        $text
    };
}
#[cfg(target_arch = "wasm32")]
macro_rules! words {
    ($text:literal) => {
        ""
    };
}

/// One story, the whole of it: what to watch, what goes wrong, what fixes
/// it, its script, its tour, the setting it suggests flipping, and where a
/// system tells it its own way. Code names a story by its constant
/// (`presets::GC_PAUSE`), so a wrong name does not compile; `id` is the
/// name links, files and `stories.json` use, read back by `preset`.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub id: &'static str,
    pub title: &'static str,
    pub backends: &'static [Backend],
    /// What to watch, what goes wrong.
    pub story: &'static str,
    /// What fixes it.
    pub fix: &'static str,
    /// One setting to flip, and what changes when you do.
    pub try_this: TryThis,
    /// How long the story takes to play out.
    pub run_ms: u64,
    /// The timed commands, on the configuration it is given.
    pub script: fn(Config) -> Scenario,
    /// The key moments its guided tour stops at.
    pub tour: &'static [Spec],
    /// Where a system tells the story its own way.
    pub on: &'static [On],
}

/// Stories are the same story when their ids are: the id is what a link
/// or a file names, and each is written once, in `PRESETS`.
impl PartialEq for Preset {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Preset {}

/// What one system changes in a story: how long it plays, its words, its
/// tour. What is left `None` is the story's own.
#[derive(Debug, Clone, Copy)]
pub struct On {
    pub backend: Backend,
    pub run_ms: Option<u64>,
    pub told: Option<Told>,
    pub tour: Option<&'static [Spec]>,
}

impl On {
    const fn new(backend: Backend) -> On {
        On {
            backend,
            run_ms: None,
            told: None,
            tour: None,
        }
    }
    const fn run_ms(self, run_ms: u64) -> On {
        On {
            run_ms: Some(run_ms),
            ..self
        }
    }
    const fn told(self, told: Told) -> On {
        On {
            told: Some(told),
            ..self
        }
    }
    const fn tour(self, tour: &'static [Spec]) -> On {
        On {
            tour: Some(tour),
            ..self
        }
    }
}

/// A one-line suggestion after a story: flip one setting, watch the difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TryThis {
    pub tweak: Tweak,
    pub text: &'static str,
}

/// One setting a story suggests changing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tweak {
    Fencing(Fencing),
    Release(ReleaseMode),
    Extend(ExtendMode),
    Persistence(Persistence),
    Restart(RestartPolicy),
    TtlMs(u64),
    ZkClient(ZkClient),
    Wait(ReplicaWait),
    ConsulToken(ConsulToken),
    PgKeepalives(PgOptions),
}

impl Tweak {
    /// `config` with this setting changed.
    pub fn apply(self, config: &Config) -> Config {
        let mut c = config.clone();
        match self {
            Tweak::Fencing(f) => c.fencing = f,
            Tweak::Release(r) => c.redis.release = r,
            Tweak::Extend(e) => c.redis.extend = e,
            Tweak::Persistence(p) => c.redis.persistence = p,
            Tweak::Restart(r) => c.redis.restart = r,
            Tweak::TtlMs(ttl_ms) => c.ttl_ms = ttl_ms,
            Tweak::ZkClient(client) => c.zk.client = client,
            Tweak::Wait(wait) => c.redis.wait = wait,
            Tweak::ConsulToken(token) => c.consul.token = token,
            Tweak::PgKeepalives(pg) => c.pg = pg,
        }
        c
    }

    /// Whether `config` already has this setting.
    pub fn is_applied(self, config: &Config) -> bool {
        self.apply(config) == *config
    }

    /// `config` with this one setting put back as it is in `original`.
    pub fn revert(self, config: &Config, original: &Config) -> Config {
        let mut c = config.clone();
        match self {
            Tweak::Fencing(_) => c.fencing = original.fencing,
            Tweak::Release(_) => c.redis.release = original.redis.release,
            Tweak::Extend(_) => c.redis.extend = original.redis.extend,
            Tweak::Persistence(_) => c.redis.persistence = original.redis.persistence,
            Tweak::Restart(_) => c.redis.restart = original.redis.restart,
            Tweak::TtlMs(_) => c.ttl_ms = original.ttl_ms,
            Tweak::ZkClient(_) => c.zk.client = original.zk.client,
            Tweak::Wait(_) => c.redis.wait = original.redis.wait,
            Tweak::ConsulToken(_) => c.consul.token = original.consul.token,
            Tweak::PgKeepalives(_) => c.pg = original.pg,
        }
        c
    }

    /// The button's words.
    pub fn label(self) -> String {
        match self {
            Tweak::Fencing(f) if f.is_on() => "Turn fencing on".into(),
            Tweak::Fencing(_) => "Turn fencing off".into(),
            Tweak::Release(ReleaseMode::CheckValue) => "Check the value on release".into(),
            Tweak::Release(ReleaseMode::PlainDel) => "Release with a plain DEL".into(),
            Tweak::Extend(ExtendMode::CheckValue) => "Check the value on renewal".into(),
            Tweak::Extend(ExtendMode::BlindSet) => "Renew with a blind SET".into(),
            Tweak::Persistence(Persistence::Fsync) => "Turn on fsync".into(),
            Tweak::Persistence(Persistence::None) => "Turn persistence off".into(),
            Tweak::Restart(RestartPolicy::Delayed) => "Turn on delayed restart".into(),
            Tweak::Restart(RestartPolicy::Immediate) => "Restart nodes at once".into(),
            Tweak::TtlMs(ttl_ms) => format!("Set the TTL to {} s", ttl_ms / 1_000),
            Tweak::ZkClient(ZkClient::Native) => "Run the native ZooKeeper client".into(),
            Tweak::ZkClient(ZkClient::Curator) => "Run Curator".into(),
            Tweak::Wait(ReplicaWait::AppWait1) => "Make the app WAIT 1 for the replica".into(),
            Tweak::Wait(ReplicaWait::Redisson) => "WAIT as Redisson does".into(),
            Tweak::Wait(ReplicaWait::Off) => "Do not WAIT for the replica".into(),
            Tweak::ConsulToken(ConsulToken::ModifyIndex) => "Fence with ModifyIndex".into(),
            Tweak::ConsulToken(ConsulToken::LockIndex) => "Fence with LockIndex alone".into(),
            Tweak::ConsulToken(ConsulToken::Sequencer) => {
                "Fence with the sequencer (LockIndex and Session)".into()
            }
            Tweak::PgKeepalives(pg) if pg == PgOptions::LINUX => {
                "Use Linux's default keepalives".into()
            }
            Tweak::PgKeepalives(_) => "Use the tuned keepalives".into(),
        }
    }
}

const ALL: &[Backend] = &Backend::ALL;
const REDLOCK: &[Backend] = &[Backend::Redlock];
/// The stories of Redis's own scripts, which single Redis and Redlock share.
const REDIS_FLAVOURS: &[Backend] = &[Backend::Redis, Backend::Redlock];
const POSTGRES: &[Backend] = &[Backend::Postgres];

/// Every story, in the order the stories menu lists them.
pub const PRESETS: &[Preset] = &[
    GC_PAUSE,
    DELAYED_WRITE,
    RELEASE_OTHER,
    REDLOCK_RESTART,
    REDLOCK_CLOCK_JUMP,
    REDLOCK_NO_FENCE,
    ZK_PARTITION,
    ETCD_KEEPALIVE,
    CRASHED_HOLDER,
    PROCESS_EXIT,
    SLOW_ACQUIRE,
    RENEW_AFTER_EXPIRY,
    REDIS_FAILOVER,
    CHUBBY_LOCK_DELAY,
    DYNAMODB_TAKEOVER,
    CONSUL_LOCK_DELAY,
    POSTGRES_NO_LEASE,
    POSTGRES_PARTITION,
];

/// The configuration of the scenario to run first; the seed is kept.
/// It is the core's default configuration, so the two cannot drift apart.
pub fn first_scenario_config(seed: Seed) -> Config {
    Config {
        seed,
        ..Config::default()
    }
}

pub const GC_PAUSE: Preset = Preset {
    id: "gc-pause",
    title: "A GC pause outlives the lease",
    backends: ALL,
    story: words!("A holds the lock and freezes in a GC pause that outlives its lease (8 s; on Chubby 36.5 s, to outlast its lease's last extension and its lock-delay; 20 s on Consul, whose server waits twice the TTL and then a lock-delay). Its lease runs out, B takes the lock, reads the counter (0) and writes 1. A, which read 0 before its pause, wakes still believing it holds the lock and writes 1 too: B's increment is lost, and the counter reads 1 after 2 increments."),
    fix: words!("Fencing: B's write raised the highest accepted token, so A's older token is rejected and B's increment stays. (DynamoDB has no token to order: there the write is conditioned on the lock item naming its writer.)"),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: the resource checks A's late write (its old token, or on DynamoDB the lock item's owner) and rejects it.",
    },
    // Consul's story takes longest: TTL x 2, a lock-delay, then B's poll.
    run_ms: 22_000,
    script: gc_pause,
    tour: tour::GC_PAUSE,
    on: &GC_PAUSE_ON,
};

/// PostgreSQL's lock is no lease, so a pause cannot lose it (its own
/// words and tour); DynamoDB has no token and no expiry in the service (its
/// own tour); Chubby keeps a lost lock out of reach for its lock-delay, so
/// its story of a lost lease takes longer.
const GC_PAUSE_ON: [On; 7] = [
    On::new(Backend::Postgres)
        .told(Told {
            story: words!("A holds PostgreSQL's advisory lock 42 and freezes for 8 s. The lock is no lease: it lasts as long as A's session, and A's kernel keeps the connection alive through the pause. B's pg_advisory_lock blocks in the server; A wakes still the holder and writes; B gets the lock when A releases it, and writes."),
            fix: words!("Nothing to fix: a lock with no lease is never lost to a pause, so there is never a second holder. The price is liveness: a dead holder keeps the lock until TCP keepalives give up (see \"The holder's host dies\"), though a process that exits frees it at once (\"The holder's process exits\")."),
            try_text: "Turn fencing on (the version column): nothing changes, since A never stopped holding the lock and every write named the version it read.",
        })
        .tour(tour::PG_GC_PAUSE),
    On::new(Backend::DynamoDb).tour(tour::DYNAMO_GC_PAUSE),
    On::new(Backend::Chubby)
        .run_ms(40_000)
        .tour(tour::CHUBBY_GC_PAUSE),
    On::new(Backend::Etcd).tour(tour::ETCD_GC_PAUSE),
    On::new(Backend::ZooKeeper).tour(tour::ZK_GC_PAUSE),
    On::new(Backend::Redlock).tour(tour::REDLOCK_GC_PAUSE),
    On::new(Backend::Consul).tour(tour::CONSUL_GC_PAUSE),
];

pub const DELAYED_WRITE: Preset = Preset {
    id: "delayed-write",
    title: "Sent in time, arrived late",
    backends: ALL,
    story: words!("A reads the counter and writes while it holds the lock, but the packet sits in the network for 7 s. A releases, B acquires, reads the counter (still 0) and writes 1; then A's old write lands and sets it to 1 again: B's increment is lost."),
    fix: words!("Fencing: the late write carries A's older token and is rejected, and B's increment stays."),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: the write that arrives late is rejected, however long it travelled.",
    },
    run_ms: 10_000,
    script: delayed_write,
    tour: tour::DELAYED_WRITE,
    on: &DELAYED_WRITE_ON,
};

const DELAYED_WRITE_ON: [On; 1] = [On::new(Backend::Postgres).tour(tour::PG_DELAYED_WRITE)];

pub const RELEASE_OTHER: Preset = Preset {
    id: "release-other",
    title: "A plain DEL releases someone else's lock",
    backends: REDIS_FLAVOURS,
    story: words!("A's lease ran out during a pause and B holds the lock. A wakes and releases with a plain DEL, deleting B's key; C acquires while B still believes it holds."),
    fix: words!("Release with the value-checked script: a node deletes the key only if it still holds your value."),
    try_this: TryThis {
        tweak: Tweak::Release(ReleaseMode::CheckValue),
        text: "Release with the value check: A's release deletes nothing that is not its own, and C waits.",
    },
    run_ms: 10_000,
    script: |c| release_other(c, ReleaseMode::PlainDel),
    tour: tour::RELEASE_OTHER,
    on: &[],
};

pub const REDLOCK_RESTART: Preset = Preset {
    id: "redlock-restart",
    title: "A Redis node restarts empty",
    backends: REDLOCK,
    story: words!("A holds nodes 1-3. Node 3 crashes and restarts without persistence, forgetting A's key; B then wins nodes 3-5. Two holders, no pause at all."),
    fix: words!("Delayed restart: keep a crashed node down longer than the TTL (or fsync every write)."),
    try_this: TryThis {
        tweak: Tweak::Restart(RestartPolicy::Delayed),
        text: "Turn on delayed restart: node 3 stays down until A's key would have expired, and B cannot win a quorum.",
    },
    run_ms: 6_000,
    script: |c| redlock_restart(c, RestartPolicy::Immediate),
    tour: tour::REDLOCK_RESTART,
    on: &[],
};

pub const REDLOCK_CLOCK_JUMP: Preset = Preset {
    id: "redlock-clock-jump",
    title: "One node's wall clock jumps",
    backends: REDLOCK,
    story: words!("A holds nodes 1-3. Node 3's wall clock jumps 10 s forward and it expires A's key early; B wins nodes 3-5."),
    fix: words!("Nothing in Redlock: it trusts every node's clock. Only a fencing token checked at the resource catches the second holder."),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: B's write raises the highest accepted token and A's late write is rejected.",
    },
    run_ms: 6_000,
    script: redlock_clock_jump,
    tour: tour::CLOCK_JUMP,
    on: &[],
};

pub const REDLOCK_NO_FENCE: Preset = Preset {
    id: "redlock-no-fence",
    title: "Unique is not monotonic",
    backends: REDLOCK,
    story: words!("Fencing is on, using an INCR counter on node 1. Node 1 restarts without persistence and its counter starts again from 0: B gets the same token A had, and A's stale write is accepted."),
    fix: words!("A token from a service that keeps it through failures: etcd's revision or ZooKeeper's sequence number."),
    try_this: TryThis {
        tweak: Tweak::Persistence(Persistence::Fsync),
        text: "Turn on fsync persistence: node 1 keeps its counter through the restart, B's token is larger, and A's write is rejected.",
    },
    run_ms: 12_000,
    script: redlock_no_fence,
    tour: tour::NO_FENCE,
    on: &[],
};

pub const ZK_PARTITION: Preset = Preset {
    id: "zk-partition",
    title: "SUSPENDED is not LOST",
    backends: &[Backend::ZooKeeper],
    story: words!("A holds, B and C queue behind it; every client runs the native ZooKeeper client (as kazoo does). A is cut off from ZooKeeper: it goes SUSPENDED but the recipe still says it holds the lock, and it keeps writing. Its session expires at the server and B takes over, and A learns it is LOST only when the partition heals."),
    fix: words!("Treat SUSPENDED as lost, and fence writes with the znode's sequence number."),
    try_this: TryThis {
        tweak: Tweak::ZkClient(ZkClient::Curator),
        text: "Run Curator (3.0 or later) instead: once a session timeout has passed while SUSPENDED it declares A LOST itself, still cut off, and A's write at 10 s never goes out.",
    },
    run_ms: 14_000,
    script: zk_partition,
    tour: tour::ZK_PARTITION,
    on: &[],
};

pub const ETCD_KEEPALIVE: Preset = Preset {
    id: "etcd-keepalive",
    title: "Keepalives stop, the lease expires",
    backends: &[Backend::Etcd],
    story: words!("A's keepalives are cut off by a partition. Its lease expires, the key is deleted (a write: the revision moves), and B, queued behind it, holds the lock."),
    fix: words!("A partitioned etcd client knows its own deadline; a paused one does not. Pass the revision to the resource."),
    try_this: TryThis {
        tweak: Tweak::TtlMs(10_000),
        text: "Set the TTL to 10 s: the key outlives the partition longer, and B waits that much longer too.",
    },
    run_ms: 9_000,
    script: etcd_keepalive,
    tour: tour::ETCD_KEEPALIVE,
    on: &[],
};

pub const CRASHED_HOLDER: Preset = Preset {
    id: "crashed-holder",
    title: "The holder's host dies",
    backends: ALL,
    story: words!("A's host powers off (or is cut off) while A holds the lock: no FIN, no goodbye, only silence. Nobody can take the lock until the lease or session runs out: the liveness cost of a long TTL. (Consul is the exception among leases: serf's probes find the dead node within seconds, and its session ends then, followed by the lock-delay.)"),
    fix: words!("A shorter TTL shortens the wait, but makes pauses more dangerous."),
    try_this: TryThis {
        tweak: Tweak::TtlMs(2_000),
        text: "Set the TTL to 2 s: B gets the lock much sooner, and any pause longer than 2 s now outlives a lease.",
    },
    // Consul waits TTL x 2 and a lock-delay before B's poll succeeds.
    run_ms: 19_000,
    script: crashed_holder,
    tour: tour::CRASHED_HOLDER,
    on: &CRASHED_HOLDER_ON,
};

/// PostgreSQL's lock is no lease, so the TTL does not set the wait for a
/// dead holder: the server's tuned TCP keepalives give up after 25 s.
/// Consul's serf finds the dead node and ends the session early.
const CRASHED_HOLDER_ON: [On; 3] = [
    On::new(Backend::Postgres)
        .told(Told {
            story: words!("A's host dies holding the advisory lock: no FIN, only silence. To PostgreSQL that looks like an idle client: it keeps A's session, and the lock, until its TCP keepalive probes give up. This story runs with tuned keepalives (10 s, 5 s, 3 probes: about 25 s); at PostgreSQL's default, Linux's, it is 2 h 11 min. B's pg_advisory_lock blocks all that time. (Had only A's process exited, its kernel's FIN would have freed the lock at once: see \"The holder's process exits\".)"),
            fix: words!("Shorter keepalives on the server (tcp_keepalives_idle, _interval, _count) free the lock sooner, at the risk of ending a session that was only slow."),
            try_text: "Set the TTL to 2 s: nothing changes, since PostgreSQL has no lease; the keepalive settings in the lock service panel set the wait.",
        })
        .tour(tour::PG_CRASHED_HOLDER)
        .run_ms(30_000),
    On::new(Backend::Consul)
        .told(Told {
            story: words!("A's host powers off while A holds the lock. Its agent dies with it: serf's probes go unanswered, and after its suspicion time serf marks the node failed: in a pool of three servers and four agents the suspicion starts at 24 s and falls to 4 s once two other members' probes confirm it, so 4-7 s after the power-off in real Consul, 1.3-2.3 s at this TTL. The serfHealth check goes critical and the server invalidates A's session then, without waiting out the TTL; the lock-delay follows, and B, polling, gets the lock once it ends."),
            fix: words!("Nothing to fix in the wait: it is serf's detection plus the lock-delay. A shorter lock-delay shortens it, and protects less against a holder that was only slow."),
            try_text: "Set the TTL to 2 s: serf's detection and the lock-delay, scaled with it, shrink too, and B holds sooner.",
        })
        .tour(tour::CONSUL_CRASHED_HOLDER),
    On::new(Backend::Chubby).run_ms(40_000),
];

pub const PROCESS_EXIT: Preset = Preset {
    id: "process-exit",
    title: "The holder's process exits",
    backends: ALL,
    story: words!("B asks for the lock and waits; then A's process exits while it holds the lock (an OOM kill, a panic, SIGKILL). A's host stays up, and its kernel closes A's connections at once. Whether that frees the lock is each server's own rule: Redis, ZooKeeper, etcd, Chubby and DynamoDB end nothing on a closed connection, so B waits for the lease or session to run out, exactly as if A's host had died."),
    fix: words!("Release the lock on the way out where you can (a shutdown hook); past that, the TTL is the wait. Compare \"The holder's host dies\": on these systems the two waits are the same."),
    try_this: TryThis {
        tweak: Tweak::TtlMs(2_000),
        text: "Set the TTL to 2 s: B gets the lock much sooner, and any pause longer than 2 s now outlives a lease.",
    },
    // Consul waits TTL x 2 and a lock-delay before B's poll succeeds.
    run_ms: 19_000,
    script: process_exit,
    tour: tour::PROCESS_EXIT,
    on: &PROCESS_EXIT_ON,
};

/// On PostgreSQL the FIN frees the lock within a millisecond of the exit;
/// Consul's agent stays up, so only the TTL ends the session.
const PROCESS_EXIT_ON: [On; 3] = [
    On::new(Backend::Postgres)
        .told(Told {
            story: words!("A holds advisory lock 42 and B's pg_advisory_lock blocks behind it. Then A's process exits (an OOM kill, a panic); its host stays up, and its kernel closes the connection: a FIN travels to the server. A PostgreSQL backend that reads EOF exits, and its session-level locks go with it: B's call returns within a millisecond. No keepalive is involved; those are for a host that dies (\"The holder's host dies\")."),
            fix: words!("Nothing to fix: of the eight systems, PostgreSQL frees a dead process's lock fastest. A partition between A and the server would hold the FIN up, and then only keepalives decide."),
            try_text: "Set the TTL to 2 s: nothing changes, since PostgreSQL has no lease; the FIN alone frees the lock.",
        })
        .tour(tour::PG_PROCESS_EXIT)
        .run_ms(4_000),
    On::new(Backend::Consul)
        .told(Told {
            story: words!("B polls for the lock; then A's process exits while it holds it. A's host and its Consul agent stay up, so serf sees a healthy node and nothing invalidates A's session: with no renewals, the server ends it only at twice its TTL (10 s here), then holds the key for the lock-delay. B gets the lock after both. (Had A's host died, serf would have ended the session within seconds: see \"The holder's host dies\".)"),
            fix: words!("Destroy the session on the way out where you can; past that, the TTL x 2 and the lock-delay are the wait."),
            try_text: "Set the TTL to 2 s: the session ends after 4 s instead of 10 s, and B holds sooner.",
        })
        .tour(tour::CONSUL_PROCESS_EXIT),
    On::new(Backend::Chubby).run_ms(40_000),
];

pub const SLOW_ACQUIRE: Preset = Preset {
    id: "slow-acquire",
    title: "Acquiring takes longer than the TTL",
    backends: REDLOCK,
    story: words!("A asks the five nodes for the lock and freezes for 6 s before it can count their answers. Every node said OK, but the time spent used up the lease: validity = TTL - elapsed - drift <= 0 means not acquired, so A unlocks every node and tries again."),
    fix: words!("Redlock already does the right thing here: it measures the time the acquisition took and refuses a lock with no time left. (A slow or silent node costs only its per-node timeout, a few tens of milliseconds.)"),
    try_this: TryThis {
        tweak: Tweak::TtlMs(15_000),
        text: "Set the TTL to 15 s: the same pause, but the lease outlasts it and A holds the lock at the first attempt.",
    },
    run_ms: 9_000,
    script: slow_acquire,
    tour: tour::SLOW_ACQUIRE,
    on: &[],
};

pub const RENEW_AFTER_EXPIRY: Preset = Preset {
    id: "renew-after-expiry",
    title: "A blind renewal re-acquires",
    backends: REDIS_FLAVOURS,
    story: words!("A freezes; its lease expires and B acquires. A wakes and its renewal, a blind SET, takes the key back from B, silently."),
    fix: words!("Renew with the checked script: extend only if the node still holds your value."),
    try_this: TryThis {
        tweak: Tweak::Extend(ExtendMode::CheckValue),
        text: "Renew with the value check: A's late renewal finds B's value and fails, and B keeps the lock.",
    },
    run_ms: 10_000,
    script: |c| renew_after_expiry(c, ExtendMode::BlindSet),
    tour: tour::RENEW_AFTER_EXPIRY,
    on: &[],
};

pub const REDIS_FAILOVER: Preset = Preset {
    id: "redis-failover",
    title: "A failover hands out the same token twice",
    backends: &[Backend::Redis],
    story: words!("A takes the lock (TTL 30 s) and fence token 1 from the master, which dies 10 ms later, before its replica copied either. (The replica here trails the master by 20 ms, a replica that is behind: on a healthy LAN the copy leaves with A's reply and lands within a millisecond, so a real master loses the key only if it dies in that moment or while its replica lags.) Sentinel promotes the replica 5.5 s later: the key is gone and its counter is one behind. B takes the \"same\" lock and the same token 1. Both write with token 1, and fencing with token >= highest accepts both: a token that repeats is no token. A learns only when its next extension finds B's value."),
    fix: words!("Wait for the replica before using the lock: the application's own WAIT 1, failing the acquisition without an ack (Redisson's rule is weaker: see the lock service panel). Or a lock service whose token survives failover (ZooKeeper, etcd, Chubby, Consul's ModifyIndex)."),
    try_this: TryThis {
        tweak: Tweak::Wait(ReplicaWait::AppWait1),
        text: "Make the application WAIT 1 after taking the key: the master dies before its replica acknowledged A's key, so A's acquisition fails instead of holding a lock the failover loses. B's fails too, since the promoted master has no replica left: safe, and unavailable until a replica returns. Redisson's rule (in the lock service panel) differs on a failover: it WAITs only for the replicas INFO reports. A's WAIT dies with the master here, so A fails as well: no answer is a timeout, not NoSyncedSlavesException, so Redisson neither gives the key back nor tries again (it does both, four more tries 1-2 s apart, only when a connected replica answers that it did not sync); but B, on the promoted master with no replica connected, WAITs for none and is granted the lock unreplicated: availability over safety, and a key a second failover could lose.",
    },
    run_ms: 12_000,
    script: redis_failover,
    tour: tour::REDIS_FAILOVER,
    on: &[],
};

pub const CHUBBY_LOCK_DELAY: Preset = Preset {
    id: "chubby-lock-delay",
    title: "Lock-delay covers a short pause, not a long one",
    backends: &[Backend::Chubby],
    story: words!("Chubby, lock-delay 1 minute (25 s at this TTL): the paper's bound, which a client may ask for, not a default. A holds the lock with generation 1 and freezes for 41.7 s (100 s in Chubby's time). The KeepAlive waiting at the master is answered once more, unread; then A's session ends, and the lock, lost by failure, stays out of reach for the lock-delay, drawn on the service lane. Had A woken inside it, its late write would have met a lock nobody held: harmless even unfenced. B, blocked since 16.7 s, gets the lock with generation 2 only when the lock-delay ends, and writes. A wakes, writes with generation 1 before its library notices, and only then goes into jeopardy (grace period) and hears its session expired."),
    fix: words!("The sequencer: the resource keeps the highest generation number it has seen and refuses a lower one. Lock-delay only covers pauses shorter than the session's end plus the delay, and at most one minute. What it covers depends on the setting: at the whole minute a holder cut off from the master stops believing (its grace period over) before B is granted; at 20 s (8.3 s here) or none, B is granted while that holder is in jeopardy and still believes it holds."),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: B's write showed the resource generation 2, so A's late write with generation 1 is rejected, however long A slept.",
    },
    run_ms: 50_000,
    script: |c| chubby_lock_delay(c, 41_700),
    tour: tour::CHUBBY_LOCK_DELAY,
    on: &[],
};

pub const DYNAMODB_TAKEOVER: Preset = Preset {
    id: "dynamodb-takeover",
    title: "A whole lease of the same RVN",
    backends: &[Backend::DynamoDb],
    story: words!("A holds the lock item and heartbeats: each heartbeat writes a new random RVN. B keeps no place in any queue: it polls the item and starts counting again whenever the RVN changes, ready to wait three leases. A freezes for 10 s, the RVN stops changing, and once B has seen the same one for a whole lease by its own clock its conditional put takes the item. A wakes and writes. (The library only logs a failed or late heartbeat: A stops believing after this write only because its application polls isExpired(), the page's default; an application that never asks, a choice in the lock service panel, goes on writing as the holder.)"),
    fix: words!("Fence with a conditional check on the lock item: a DynamoDB transaction whose ConditionCheck requires the item to name the writer. The RVN itself cannot fence: a new random UUID each heartbeat is unique, not ordered."),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: A's write becomes a transaction with a ConditionCheck on the lock item, which names B now, so it is rejected.",
    },
    run_ms: 15_000,
    script: dynamodb_takeover,
    tour: tour::DYNAMO_TAKEOVER,
    on: &[],
};

pub const CONSUL_LOCK_DELAY: Preset = Preset {
    id: "consul-lock-delay",
    title: "The session TTL is a lower bound",
    backends: &[Backend::Consul],
    story: words!("Fencing is on, with LockIndex alone as the token, checked like any token (at least the highest seen: not the docs' sequencer, which is LockIndex with the Session), and the session's Behavior is delete. A holds with LockIndex 1, renews, and freezes for 30 s. The server waits twice the 5 s TTL before it invalidates A's session: it deletes the key and holds it under a 5 s lock-delay. B, polling and not queued, is refused until the lock-delay ends, then creates the key again: LockIndex 1 once more. A wakes and writes with LockIndex 1, and 1 >= 1 passes the fence."),
    fix: words!("Fence with what the docs call a sequencer: the key, its LockIndex and the Session, checked against the key, so a write passes only while it belongs to the current holder; A's LockIndex 1 comes with A's Session, not B's. Or fence with ModifyIndex, the Raft index of the key's last write, which only grows, across deletes and leader changes. (Keeping the key, Behavior=release, also keeps LockIndex growing.)"),
    try_this: TryThis {
        tweak: Tweak::ConsulToken(ConsulToken::Sequencer),
        text: "Fence with the sequencer: the key holds LockIndex 1 under B's Session, not A's, so A's late write is rejected. ModifyIndex, among the Consul settings, rejects it too: B's index is larger than A's.",
    },
    run_ms: 37_000,
    script: |c| consul_lock_delay(c, ConsulToken::LockIndex),
    tour: tour::CONSUL_LOCK_DELAY,
    on: &[],
};

pub const POSTGRES_NO_LEASE: Preset = Preset {
    id: "postgres-no-lease",
    title: "No lease, so no pause can lose it",
    backends: POSTGRES,
    story: words!("A holds PostgreSQL's advisory lock 42 and freezes for 8 s. The lock is no lease: it lasts as long as A's session, and A's kernel answers the server's keepalive probes through the pause. B's pg_advisory_lock blocks; A wakes still the holder, and its write is accepted. Then A's host dies holding the lock, and B waits on until TCP keepalives give up: about 25 s with the tuned keepalives this story runs (10 s, 5 s, 3 probes)."),
    fix: words!("Nothing to fix in the pause: a lock with no lease is never lost to one, fencing on or off. The price is liveness: a dead holder blocks everyone until the server's tcp_keepalives_* settings notice."),
    try_this: TryThis {
        tweak: Tweak::PgKeepalives(PgOptions::LINUX),
        text: "Use Linux's default keepalives: B waits 2 h 11 min for a dead host's lock instead of about 25 s.",
    },
    run_ms: 30_000,
    script: postgres_no_lease,
    tour: tour::PG_NO_LEASE,
    on: &[],
};

pub const POSTGRES_PARTITION: Preset = Preset {
    id: "postgres-partition",
    title: "Keepalives free the lock; the version column fences",
    backends: POSTGRES,
    story: words!("A holds advisory lock 42 and writes. Then A is cut off from PostgreSQL, from the lock and the data at once: they live in one server. The server frees the lock only when its keepalive probes give up: with the tuned keepalives this story runs (10 s, 5 s, 3 probes), 25 s after A was last heard (at Linux's defaults, 2 h 11 min). B, blocked until then, gets it and writes. The partition heals and A, still believing, writes through a new connection."),
    fix: words!("The version column: A's UPDATE names the version it read (WHERE version = n), and the data moved on, so it matches no row."),
    try_this: TryThis {
        tweak: Tweak::Fencing(Fencing::On),
        text: "Turn fencing on: A's UPDATE ... WHERE version = 1 matches no row, the version being 2, and it is rejected.",
    },
    run_ms: 45_000,
    script: postgres_partition,
    tour: tour::PG_PARTITION,
    on: &[],
};

/// A story's words as one backend tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Told {
    pub story: &'static str,
    pub fix: &'static str,
    /// The "try this" sentence (the setting it flips is the preset's).
    pub try_text: &'static str,
}

/// The preset's own words, unless `backend` tells the story otherwise.
pub fn told(p: &Preset, backend: Backend) -> Told {
    p.on_system(backend).and_then(|on| on.told).unwrap_or(Told {
        story: p.story,
        fix: p.fix,
        try_text: p.try_this.text,
    })
}

/// Where `stories.json` keeps a story's long words for `backend`: under
/// `id/backend` when that backend tells the story its own way, else
/// under the id.
fn words_keys(p: &Preset, backend: Backend) -> [String; 2] {
    [format!("{}/{}", p.id, backend.slug()), p.id.to_string()]
}

/// The story's long words (what happens, what fixes it) for `backend`,
/// read from `stories.json` as the page fetches it.
pub fn words_in(file: &Json, p: &Preset, backend: Backend) -> Option<(String, String)> {
    let entry = words_keys(p, backend)
        .iter()
        .find_map(|key| file.get(key))?;
    let text = |key: &str| entry.get(key).and_then(Json::as_str).map(str::to_string);
    Some((text("story")?, text("fix")?))
}

/// `stories.json`: every story's long words, under its id, and again
/// under `id/backend` where a backend tells it otherwise (`told`).
#[cfg(not(target_arch = "wasm32"))]
pub fn words_file() -> String {
    let mut file = serde_json::Map::new();
    for p in PRESETS {
        let own = serde_json::json!({ "story": p.story, "fix": p.fix });
        for &backend in Backend::ALL.iter() {
            let t = told(p, backend);
            if (t.story, t.fix) != (p.story, p.fix) {
                let [key, _] = words_keys(p, backend);
                file.insert(key, serde_json::json!({ "story": t.story, "fix": t.fix }));
            }
        }
        file.insert(p.id.to_string(), own);
    }
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// The story a link, a file or an address names by `id`, if there is one:
/// the one place a story is looked up by its name.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

impl Preset {
    /// What `backend` changes in this story, if anything.
    fn on_system(&self, backend: Backend) -> Option<&'static On> {
        self.on.iter().find(|on| on.backend == backend)
    }

    /// How long the story plays out on `backend`.
    pub fn run_ms_on(&self, backend: Backend) -> u64 {
        self.on_system(backend)
            .and_then(|on| on.run_ms)
            .unwrap_or(self.run_ms)
    }

    /// The key moments the story's tour stops at on `backend`.
    pub fn tour_on(&self, backend: Backend) -> &'static [Spec] {
        self.on_system(backend)
            .and_then(|on| on.tour)
            .unwrap_or(self.tour)
    }

    /// The story's script for one backend; `None` if it does not suit it.
    pub fn scenario(&self, backend: Backend, fencing: Fencing) -> Option<Scenario> {
        if !self.backends.contains(&backend) {
            return None;
        }
        Some((self.script)(Config {
            backend,
            fencing,
            ..Config::default()
        }))
    }
}

fn delayed_write(config: Config) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::WriteDelayed { extra_ms: 7_000 })
        .client(1_500, 'A', Command::Release)
        .client(2_500, 'B', Command::Acquire)
        .client(4_000, 'B', Command::Write)
}

fn redlock_clock_jump(config: Config) -> Scenario {
    three_nodes_for_a(config)
        .node(1_000, 3, NodeCommand::ClockJump { jump_ms: 10_000 })
        .client(1_500, 'B', Command::Acquire)
        .client(2_500, 'B', Command::Write)
        .client(3_000, 'A', Command::Write)
}

fn redlock_no_fence(config: Config) -> Scenario {
    Scenario::new(Config {
        fencing: Fencing::On,
        ..config
    })
    .client(0, 'A', Command::Acquire)
    .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
    .client(1_000, 'A', Command::Write)
    .node(2_000, 1, NodeCommand::Crash)
    .node(2_100, 1, NodeCommand::Restart)
    .client(5_000, 'B', Command::Acquire)
    .client(7_000, 'B', Command::Write)
}

/// The story is the native client's (and kazoo's); Curator, the page's
/// default elsewhere, is its "try this".
fn zk_partition(config: Config) -> Scenario {
    Scenario::new(Config {
        zk: ZkOptions {
            client: ZkClient::Native,
            ..config.zk
        },
        ..config
    })
    .client(0, 'A', Command::Acquire)
    .client(500, 'B', Command::Acquire)
    .client(700, 'C', Command::Acquire)
    .client(
        1_000,
        'A',
        Command::Partition {
            scope: PartitionScope::Service,
        },
    )
    .client(4_000, 'A', Command::Write)
    .client(7_000, 'A', Command::Write)
    .client(8_500, 'B', Command::Write)
    .client(10_000, 'A', Command::Write)
    .client(12_000, 'A', Command::Heal)
    .client(13_000, 'B', Command::Release)
}

fn etcd_keepalive(config: Config) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(
            1_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(2_000, 'B', Command::Acquire)
        .client(7_000, 'B', Command::Write)
}

fn crashed_holder(config: Config) -> Scenario {
    // Redlock gives up after ten attempts, so B asks closer to expiry.
    let b_asks_at = if config.backend == Backend::Redlock {
        4_000
    } else {
        1_500
    };
    Scenario::new(tuned_on_postgres(config))
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::PowerOff)
        .client(b_asks_at, 'B', Command::Acquire)
}

/// The pause strikes after the requests left and before any answer came
/// back: a slow node cannot do this any more, since each node costs at
/// most its timeout.
fn slow_acquire(config: Config) -> Scenario {
    Scenario::new(config)
        .client(100, 'A', Command::Acquire)
        .client(101, 'A', Command::GcPause { pause_ms: 6_000 })
}

/// process-exit: B asks first, so that where the exit frees the lock at
/// once (PostgreSQL) a waiter is there to get it; A's process exits at 1 s.
/// Redlock's B would give up after its ten attempts, so it asks later.
pub fn process_exit(config: Config) -> Scenario {
    let scenario = Scenario::new(config.clone()).client(0, 'A', Command::Acquire);
    if config.backend == Backend::Redlock {
        return scenario
            .client(1_000, 'A', Command::Exit)
            .client(4_000, 'B', Command::Acquire);
    }
    scenario
        .client(500, 'B', Command::Acquire)
        .client(1_000, 'A', Command::Exit)
}

/// PostgreSQL with the tuned keepalives (10 s, 5 s, 3 probes) a story of a
/// dead host needs to end in seconds; its words say so. Other systems as given.
fn tuned_on_postgres(mut config: Config) -> Config {
    if config.backend == Backend::Postgres {
        config.pg = PgOptions::TUNED;
    }
    config
}

/// The scenario to run first.
pub fn gc_pause(config: Config) -> Scenario {
    if config.backend == Backend::Postgres {
        return gc_pause_postgres(config);
    }
    // Chubby's master answers the KeepAlive A left waiting once more while
    // A sleeps (its session ends near 9.7 s), and then keeps the lock out
    // of reach for the lock-delay (25 s): only a pause past both loses it.
    // A DynamoDB waiter takes the lock item over only after seeing its RVN
    // unchanged for a whole lease: B starts watching at 1 s, so that it
    // holds, and writes, by 7 s as everywhere else.
    let (pause_ms, b_asks_at, b_writes_at) = match config.backend {
        Backend::Chubby => (36_500, 5_000, 36_000),
        Backend::DynamoDb => (8_000, 1_000, 7_000),
        // Consul frees the key TTL x 2 after A's last renewal (10 s), then
        // a lock-delay (5 s), and B's poll sees it within a retry (1.7 s).
        Backend::Consul => (20_000, 5_000, 19_000),
        _ => (8_000, 5_000, 7_000),
    };
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms })
        .client(1_000, 'A', Command::Write)
        .client(b_asks_at, 'B', Command::Acquire)
        .client(b_writes_at, 'B', Command::Write)
}

/// chubby-lock-delay: systems.md's script scaled by TTL / 12 s (5/12 at
/// the default TTL). A pauses at 13 s Chubby time for `pause_ms` (100 s
/// in the story, 41.7 s here); B asks at 40 s (16.7 s) and writes at 95 s
/// (39.6 s, here 40 s, just after its grant at the lock-delay's end).
pub fn chubby_lock_delay(config: Config, pause_ms: u64) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(5_400, 'A', Command::GcPause { pause_ms })
        .client(6_000, 'A', Command::Write)
        .client(16_700, 'B', Command::Acquire)
        .client(40_000, 'B', Command::Write)
}

/// systems.md's DynamoDB story at a quarter of its times (a 5 s lease for
/// 20 s): B waits three leases (additionalTimeToWaitForLock 60 s), A
/// pauses for two leases. B writes at 9 s rather than a quarter of 33 s,
/// for the waiter's poll (a twentieth of the lease) to land in time.
pub fn dynamodb_takeover(config: Config) -> Scenario {
    Scenario::new(Config {
        dynamo: DynamoOptions {
            extra_wait_pct: 300,
            ..config.dynamo
        },
        ..config
    })
    .client(0, 'A', Command::Acquire)
    .client(750, 'B', Command::Acquire)
    .client(3_000, 'A', Command::GcPause { pause_ms: 10_000 })
    .client(3_000, 'A', Command::Write)
    .client(9_000, 'B', Command::Write)
}

/// release-other with a chosen release mode (the fix is `CheckValue`).
pub fn release_other(mut config: Config, release: ReleaseMode) -> Scenario {
    config.redis.release = release;
    // B does not renew, so its belief lasts its whole lease.
    config.renewal[1] = false;
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Release)
        .client(5_000, 'B', Command::Acquire)
        .client(8_600, 'C', Command::Acquire)
}

/// Nodes 4 and 5 are down while A acquires, so A holds exactly nodes 1-3;
/// they come back empty right after. A does not renew, so its belief lasts
/// the whole lease.
fn three_nodes_for_a(mut config: Config) -> Scenario {
    config.renewal[0] = false;
    Scenario::new(config)
        .node(0, 4, NodeCommand::Crash)
        .node(0, 5, NodeCommand::Crash)
        .client(0, 'A', Command::Acquire)
        .node(100, 4, NodeCommand::Restart)
        .node(100, 5, NodeCommand::Restart)
}

/// redlock-restart with a chosen restart policy (the fix is `Delayed`).
pub fn redlock_restart(mut config: Config, restart: RestartPolicy) -> Scenario {
    config.redis.restart = restart;
    config.redis.persistence = Persistence::None;
    three_nodes_for_a(config)
        .node(1_000, 3, NodeCommand::Crash)
        .node(1_100, 3, NodeCommand::Restart)
        .client(1_500, 'B', Command::Acquire)
        .client(3_000, 'A', Command::Write)
}

/// renew-after-expiry with a chosen extension mode (the fix is `CheckValue`).
pub fn renew_after_expiry(mut config: Config, extend: ExtendMode) -> Scenario {
    config.redis.extend = extend;
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(5_500, 'B', Command::Acquire)
}

/// systems.md's failover story on single Redis: the master dies 10 ms after
/// A's key and fence, before its replica copied them.
pub fn redis_failover(config: Config) -> Scenario {
    Scenario::new(Config {
        ttl_ms: 30_000,
        ..config
    })
    .client(0, 'A', Command::Acquire)
    .node(10, 1, NodeCommand::Crash)
    .client(2_000, 'A', Command::Write)
    .client(6_000, 'B', Command::Acquire)
    .client(7_000, 'B', Command::Write)
    .client(8_000, 'A', Command::Write)
}

/// Consul's story (systems.md, scaled from a 15 s TTL to 5 s): A renews at
/// 5 s and freezes for 30 s; its session goes at 15 s, the lock-delay ends
/// at 20 s, B writes at 23 s and A at 35.3 s. Fencing is on, the session
/// deletes its key, and the token is `token` (the story's is LockIndex).
pub fn consul_lock_delay(mut config: Config, token: ConsulToken) -> Scenario {
    config.fencing = Fencing::On;
    config.consul = ConsulOptions {
        token,
        cleanup: KeyCleanup::Delete,
        ..ConsulOptions::default()
    };
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(333, 'B', Command::Acquire)
        .client(5_333, 'A', Command::GcPause { pause_ms: 30_000 })
        .client(5_333, 'A', Command::Write)
        .client(23_000, 'B', Command::Write)
}

/// The scenario to run first on PostgreSQL: no pause loses a lock with no
/// lease, so B blocks instead of taking over, and its write waits for A's
/// release (a write clicked while B waits would be refused).
fn gc_pause_postgres(config: Config) -> Scenario {
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Write)
        .client(5_000, 'B', Command::Acquire)
        .client(9_000, 'A', Command::Release)
        .client(10_000, 'B', Command::Write)
}

/// The scenario to run first on PostgreSQL, then its price: A's host dies
/// holding the lock, and B waits until the tuned keepalives give up (about
/// 25 s after A was last heard, at t=0; Linux's defaults, the "try this",
/// take 2 h 11 min).
pub fn postgres_no_lease(mut config: Config) -> Scenario {
    config.pg = PgOptions::TUNED;
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(500, 'A', Command::GcPause { pause_ms: 8_000 })
        .client(1_000, 'A', Command::Write)
        .client(5_000, 'B', Command::Acquire)
        .client(9_000, 'A', Command::PowerOff)
        .client(27_000, 'B', Command::Write)
}

/// systems.md's PostgreSQL story with its tuned keepalives (10 s, 5 s, 3):
/// A's lock connection, idle since t=0, fails its probes at 10, 15 and 20 s
/// and the server ends its session at 25 s. B, blocked since 3 s, gets the
/// lock and writes; A writes after the heal with the version it read.
pub fn postgres_partition(mut config: Config) -> Scenario {
    config.pg = PgOptions::TUNED;
    Scenario::new(config)
        .client(0, 'A', Command::Acquire)
        .client(1_000, 'A', Command::Write)
        .client(
            2_000,
            'A',
            Command::Partition {
                scope: PartitionScope::Service,
            },
        )
        .client(3_000, 'B', Command::Acquire)
        .client(26_000, 'B', Command::Write)
        .client(40_000, 'A', Command::Heal)
        .client(41_000, 'A', Command::Write)
}
