//! A run's configuration and its script of timed commands, both serde JSON.

use super::backend::{Backend, ConsulOptions};
use super::error::CommandError;
use super::types::{
    ClientId, ExtendMode, FenceMode, Fencing, Millis, NodeId, Persistence, ReleaseMode,
    RestartPolicy, Seed, ZkClient,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version written into every serialized scenario.
pub const SCENARIO_VERSION: u32 = 1;

pub const TTL_MS_MIN: u64 = 1_000;
/// Up to a minute: etcd's `concurrency` sessions default to 60 s, and the
/// hazard explorer's grids ask whether a TTL outlasts a runtime's pauses
/// of tens of seconds.
pub const TTL_MS_MAX: u64 = 60_000;
pub const TTL_MS_DEFAULT: u64 = 5_000;
pub const LATENCY_SCALE_MIN: u32 = 1;
pub const LATENCY_SCALE_MAX: u32 = 100;
/// At 10x a Redis round trip takes 5-20 ms and an etcd one 50-200 ms: slow
/// enough to watch, with the real ratio between them.
pub const LATENCY_SCALE_DEFAULT: u32 = 10;
/// Up to a second's round trip between the parties: past any two cloud
/// regions (the farthest pair is about 340 ms, docs/latency.md).
pub const NETWORK_RTT_MS_MAX: u32 = 1_000;
pub const PAUSE_MS_MAX: u64 = 600_000;
pub const CLOCK_JUMP_MS_MAX: i64 = 600_000;
pub const SLOW_MS_MAX: u64 = 60_000;
/// ZooKeeper's tickTime: 2 s by default; short ticks make sessions expire
/// in seconds, as test ensembles do.
pub const ZK_TICK_MS_MIN: u64 = 100;
pub const ZK_TICK_MS_MAX: u64 = 10_000;
pub const ZK_TICK_MS_DEFAULT: u64 = 2_000;
/// The lock-delay a Chubby client asks for, in Chubby's own time: "any
/// lock-delay up to some bound, currently one minute" (OSDI '06 section 2.4).
/// The paper names no default; the page's is the bound, the value its
/// story needs (see `ChubbyOptions`).
pub const CHUBBY_LOCK_DELAY_MS_MAX: u64 = 60_000;
pub const CHUBBY_LOCK_DELAY_MS_DEFAULT: u64 = CHUBBY_LOCK_DELAY_MS_MAX;
/// The DynamoDB lock client's heartbeats per lease: its default 20 s lease
/// with a 5 s heartbeat is 4; its constructor refuses a heartbeat longer
/// than half the lease, so at least 2.
pub const DYNAMO_HEARTBEATS_MIN: u32 = 2;
pub const DYNAMO_HEARTBEATS_MAX: u32 = 10;
pub const DYNAMO_HEARTBEATS_DEFAULT: u32 = 4;
/// additionalTimeToWaitForLock in percent of the lease: the default 1 s
/// (DEFAULT_BUFFER_MS) of a 20 s lease is 5%; at most ten leases.
pub const DYNAMO_EXTRA_WAIT_PCT_DEFAULT: u32 = 5;
pub const DYNAMO_EXTRA_WAIT_PCT_MAX: u32 = 1_000;
/// A script longer than this is refused; it keeps shared links and replays bounded.
pub const SCRIPT_LEN_MAX: usize = 1_000;
/// Scripted times beyond one day are refused.
pub const SCRIPT_TIME_MS_MAX: u64 = 86_400_000;

/// Options of the Redis flavours, ignored by the other backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RedisOptions {
    pub release: ReleaseMode,
    pub extend: ExtendMode,
    pub persistence: Persistence,
    pub restart: RestartPolicy,
    /// Single Redis: whether and how the client waits for its replica after
    /// taking the key. Written as `"wait"` and left out while off; links
    /// and files from before the choice say `"wait_replica": true`, which
    /// was the application's `WAIT 1` (what the model did), and still is.
    #[serde(
        default,
        rename = "wait",
        alias = "wait_replica",
        deserialize_with = "replica_wait_of",
        skip_serializing_if = "ReplicaWait::is_off"
    )]
    pub wait: ReplicaWait,
}

/// What a single-Redis client does after its `SET NX` took the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ReplicaWait {
    /// Nothing: the lock is granted with the key on the master alone
    /// (redis-py's `Lock`, Redisson with `checkLockSyncedSlaves` false).
    #[default]
    #[serde(rename = "off")]
    Off,
    /// Redisson's rule (`CommandAsyncService.syncedEval`): read
    /// `connected_slaves` (INFO), `WAIT` for that many with
    /// `slavesSyncTimeout` 1 s, and fail only if none acknowledged while
    /// some were connected. A master with no replica grants unreplicated.
    /// Redisson does this by default (`Config.checkLockSyncedSlaves` true,
    /// `slavesSyncTimeout` 1000 ms).
    #[serde(rename = "redisson")]
    Redisson,
    /// The application's own `WAIT 1 <timeout>`: fail the acquisition
    /// unless one replica acknowledged, whatever INFO says.
    #[serde(rename = "app-wait-1")]
    AppWait1,
}

impl ReplicaWait {
    pub const ALL: [ReplicaWait; 3] = [
        ReplicaWait::Off,
        ReplicaWait::Redisson,
        ReplicaWait::AppWait1,
    ];

    pub fn is_off(&self) -> bool {
        *self == ReplicaWait::Off
    }

    /// Its name in links and files.
    pub fn slug(self) -> &'static str {
        match self {
            ReplicaWait::Off => "off",
            ReplicaWait::Redisson => "redisson",
            ReplicaWait::AppWait1 => "app-wait-1",
        }
    }
}

/// Reads the wait as written now (`"redisson"`) or as a link from before
/// the choice wrote it (`true`: the application's `WAIT 1`; `false`: off).
fn replica_wait_of<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ReplicaWait, D::Error> {
    struct Either;
    impl serde::de::Visitor<'_> for Either {
        type Value = ReplicaWait;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(
                "\"off\", \"redisson\" or \"app-wait-1\" (or an older link's true or false)",
            )
        }
        fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<ReplicaWait, E> {
            Ok(if on {
                ReplicaWait::AppWait1
            } else {
                ReplicaWait::Off
            })
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ReplicaWait, E> {
            ReplicaWait::ALL
                .into_iter()
                .find(|w| w.slug() == s)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(s), &self))
        }
    }
    d.deserialize_any(Either)
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            release: ReleaseMode::CheckValue,
            extend: ExtendMode::CheckValue,
            persistence: Persistence::None,
            restart: RestartPolicy::Immediate,
            wait: ReplicaWait::Off,
        }
    }
}

/// ZooKeeper's settings, ignored by the other backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ZkOptions {
    /// The server's tickTime: session timeouts are clamped to 2-20 ticks.
    pub tick_ms: u64,
    pub client: ZkClient,
}

impl Default for ZkOptions {
    fn default() -> Self {
        ZkOptions {
            tick_ms: ZK_TICK_MS_DEFAULT,
            client: ZkClient::Curator,
        }
    }
}

/// Chubby's settings, ignored by the other backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChubbyOptions {
    /// The lock-delay in Chubby's own time (0 to one minute, against its
    /// 12 s lease); the run scales it by TTL / 12 s like every other
    /// duration. The default is the one-minute bound: the paper gives none,
    /// and the chubby-lock-delay story needs the longest, so that a pause
    /// of a few leases is still covered and a longer one is not.
    pub lock_delay_ms: u64,
}

impl Default for ChubbyOptions {
    fn default() -> Self {
        ChubbyOptions {
            lock_delay_ms: CHUBBY_LOCK_DELAY_MS_DEFAULT,
        }
    }
}
/// The DynamoDB lock client's settings, ignored by the other backends. Both
/// are ratios to the lease (the TTL setting), as the library's defaults are
/// to its 20 s lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DynamoOptions {
    /// heartbeatPeriod = lease / this.
    pub heartbeats_per_lease: u32,
    /// additionalTimeToWaitForLock, in percent of the lease: a waiter gives
    /// up after a lease plus this.
    pub extra_wait_pct: u32,
    /// Whether the application asks the library if its lock is still its
    /// own: polls `LockItem.isExpired()` before each write (or sets a
    /// SessionMonitor), and so stops at its own deadline. The library
    /// itself tells the application nothing: a failed or late heartbeat is
    /// only logged (`AmazonDynamoDBLockClient.sendHeartbeat`), so without
    /// the check the application believes it holds until it releases. The
    /// page's default is the check, as every run before the option had it;
    /// written only when off, so that older links read as they ran.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub app_checks_expiry: bool,
    /// Whether the application acquires with the library's session monitor
    /// (`AcquireLockOptions.withSessionMonitor(safeTimeWithoutHeartbeat,
    /// callback)`), its other way to learn of a loss: the library runs the
    /// callback once no heartbeat has succeeded for the safe time, which
    /// must lie between the heartbeat period and the lease; the page uses
    /// half the lease, and the callback stops the application. It stops
    /// before `isExpired()` would say so. Written only when on.
    #[serde(default, skip_serializing_if = "is_false")]
    pub session_monitor: bool,
}

fn is_false(on: &bool) -> bool {
    !*on
}

fn yes() -> bool {
    true
}

fn is_true(on: &bool) -> bool {
    *on
}

impl Default for DynamoOptions {
    fn default() -> Self {
        DynamoOptions {
            heartbeats_per_lease: DYNAMO_HEARTBEATS_DEFAULT,
            extra_wait_pct: DYNAMO_EXTRA_WAIT_PCT_DEFAULT,
            app_checks_expiry: true,
            session_monitor: false,
        }
    }
}
/// Linux's TCP keepalive limits, as PostgreSQL's tcp_keepalives_* settings
/// take them (seconds; TCP_KEEPIDLE and TCP_KEEPINTVL stop at 32767,
/// TCP_KEEPCNT at 127).
pub const PG_KEEPALIVE_S_MAX: u64 = 32_767;
pub const PG_KEEPALIVE_COUNT_MAX: u64 = 127;

/// PostgreSQL's server-side TCP keepalive settings (tcp_keepalives_idle,
/// tcp_keepalives_interval, tcp_keepalives_count), ignored by the other
/// backends: they alone decide when the server notices that a client host
/// is gone and ends its session, freeing its advisory lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PgOptions {
    /// Seconds without a packet from the client before the first probe.
    pub keepalives_idle_s: u64,
    /// Seconds between unanswered probes.
    pub keepalives_interval_s: u64,
    /// Unanswered probes before the connection is declared dead.
    pub keepalives_count: u64,
}

impl PgOptions {
    /// What 0 ("use the OS default") means on Linux: net.ipv4.tcp_keepalive_time
    /// 7200 s, tcp_keepalive_intvl 75 s, tcp_keepalive_probes 9 (tcp(7)):
    /// a dead host holds its lock for 7200 + 9 x 75 s, about 2 h 11 min.
    pub const LINUX: PgOptions = PgOptions {
        keepalives_idle_s: 7_200,
        keepalives_interval_s: 75,
        keepalives_count: 9,
    };
    /// The tuned values of the PostgreSQL story (10 s, 5 s, 3 probes: about 25 s).
    pub const TUNED: PgOptions = PgOptions {
        keepalives_idle_s: 10,
        keepalives_interval_s: 5,
        keepalives_count: 3,
    };

    /// How long after the client's last packet a dead host's session ends:
    /// idle, then `count` probes `interval` apart.
    pub fn dead_after_ms(self) -> u64 {
        let interval_s = self
            .keepalives_interval_s
            .saturating_mul(self.keepalives_count);
        self.keepalives_idle_s
            .saturating_add(interval_s)
            .saturating_mul(1_000)
    }
}

impl Default for PgOptions {
    /// PostgreSQL's own default: tcp_keepalives_* = 0, the OS's values,
    /// which on Linux keep a dead host's lock for about 2 h 11 min. A story
    /// that needs a shorter wait sets `PgOptions::TUNED` and says so.
    fn default() -> Self {
        PgOptions::LINUX
    }
}

/// Everything that decides a run besides the commands.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Config {
    pub backend: Backend,
    pub fencing: Fencing,
    pub ttl_ms: u64,
    pub seed: Seed,
    pub latency_scale: u32,
    /// A network round trip added to every message's drawn delay (half of
    /// it each way), for parties further apart than one zone: see
    /// `sim::latency`. Left out of links and files while 0, so older ones
    /// mean what they meant.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub network_rtt_ms: u32,
    /// Automatic renewal (keepalive, heartbeat, extension) per client, A to D.
    pub renewal: [bool; 4],
    #[serde(default)]
    pub redis: RedisOptions,
    #[serde(default)]
    pub zk: ZkOptions,
    #[serde(default)]
    pub chubby: ChubbyOptions,
    #[serde(default)]
    pub dynamo: DynamoOptions,
    #[serde(default)]
    pub consul: ConsulOptions,
    pub pg: PgOptions,
    /// How the resource fences a write with fencing on; left out of links
    /// and files while it is the system's documented mode.
    #[serde(default, skip_serializing_if = "FenceMode::is_documented")]
    pub fence: FenceMode,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for Config {
    fn default() -> Self {
        Config {
            backend: Backend::Etcd,
            fencing: Fencing::Off,
            ttl_ms: TTL_MS_DEFAULT,
            seed: Seed(1),
            latency_scale: LATENCY_SCALE_DEFAULT,
            network_rtt_ms: 0,
            renewal: [true; 4],
            redis: RedisOptions::default(),
            zk: ZkOptions::default(),
            chubby: ChubbyOptions::default(),
            dynamo: DynamoOptions::default(),
            consul: ConsulOptions::default(),
            pg: PgOptions::default(),
            fence: FenceMode::Documented,
        }
    }
}

impl Config {
    /// Checks the ranges a person can get wrong; the message says which.
    pub fn validate(&self) -> Result<(), CommandError> {
        if !(TTL_MS_MIN..=TTL_MS_MAX).contains(&self.ttl_ms) {
            return Err(CommandError::TtlOutOfRange {
                ttl_ms: self.ttl_ms,
            });
        }
        if !(LATENCY_SCALE_MIN..=LATENCY_SCALE_MAX).contains(&self.latency_scale) {
            return Err(CommandError::LatencyScaleOutOfRange {
                scale: self.latency_scale,
            });
        }
        if self.network_rtt_ms > NETWORK_RTT_MS_MAX {
            return Err(CommandError::NetworkRttOutOfRange {
                rtt_ms: self.network_rtt_ms,
            });
        }
        if !(ZK_TICK_MS_MIN..=ZK_TICK_MS_MAX).contains(&self.zk.tick_ms) {
            return Err(CommandError::TickOutOfRange {
                tick_ms: self.zk.tick_ms,
            });
        }
        if self.chubby.lock_delay_ms > CHUBBY_LOCK_DELAY_MS_MAX {
            return Err(CommandError::LockDelayOutOfRange {
                lock_delay_ms: self.chubby.lock_delay_ms,
            });
        }
        let per_lease = self.dynamo.heartbeats_per_lease;
        if !(DYNAMO_HEARTBEATS_MIN..=DYNAMO_HEARTBEATS_MAX).contains(&per_lease) {
            return Err(CommandError::HeartbeatsOutOfRange { per_lease });
        }
        if self.dynamo.extra_wait_pct > DYNAMO_EXTRA_WAIT_PCT_MAX {
            return Err(CommandError::ExtraWaitOutOfRange {
                pct: self.dynamo.extra_wait_pct,
            });
        }
        self.consul.validate()?;
        let pg = self.pg;
        for (setting, value, max) in [
            (
                "tcp_keepalives_idle",
                pg.keepalives_idle_s,
                PG_KEEPALIVE_S_MAX,
            ),
            (
                "tcp_keepalives_interval",
                pg.keepalives_interval_s,
                PG_KEEPALIVE_S_MAX,
            ),
            (
                "tcp_keepalives_count",
                pg.keepalives_count,
                PG_KEEPALIVE_COUNT_MAX,
            ),
        ] {
            if !(1..=max).contains(&value) {
                return Err(CommandError::KeepaliveOutOfRange {
                    setting,
                    value,
                    max,
                });
            }
        }
        Ok(())
    }
}

/// Where a partition cuts a client off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionScope {
    /// From the lock service only: the resource is still reachable.
    Service,
    /// From the lock service and from the resource.
    ServiceAndResource,
}

/// What a visitor (or a script) asks one client to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Command {
    Acquire,
    Write,
    /// A write whose packet spends `extra_ms` longer than usual in the network.
    WriteDelayed {
        extra_ms: u64,
    },
    Release,
    GcPause {
        pause_ms: u64,
    },
    Partition {
        scope: PartitionScope,
    },
    Heal,
    /// The client's host dies or is cut off: silence, no FIN; its kernel
    /// answers nothing. Serialized "crash", as every link and run file
    /// written before process exits were told apart meant it.
    #[serde(rename = "crash")]
    PowerOff,
    /// The client's process exits (an OOM kill, a panic, SIGKILL) on a host
    /// that stays up: its kernel closes its sockets, sending FIN.
    Exit,
    Restart,
    Renewal {
        on: bool,
    },
    /// The client's clock jumps by `jump_ms` (negative: backwards).
    ClockJump {
        jump_ms: i64,
    },
    /// The client's clock runs `rate_pct` percent fast (negative: slow).
    ClockRate {
        rate_pct: i32,
    },
    /// Every message to or from the client is lost (on) or travels again (off).
    LoseMessages {
        on: bool,
    },
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Acquire => f.write_str("acquire"),
            Command::Write => f.write_str("write"),
            Command::WriteDelayed { extra_ms } => {
                write!(f, "write (delayed {} in the network)", Millis(*extra_ms))
            }
            Command::Release => f.write_str("release"),
            Command::GcPause { pause_ms } => write!(f, "GC pause of {}", Millis(*pause_ms)),
            Command::Partition {
                scope: PartitionScope::Service,
            } => f.write_str("partition from the lock service"),
            Command::Partition {
                scope: PartitionScope::ServiceAndResource,
            } => f.write_str("partition from the lock service and the resource"),
            Command::Heal => f.write_str("heal the partition"),
            Command::PowerOff => f.write_str("power off (host dies)"),
            Command::Exit => f.write_str("crash (process exits)"),
            Command::Restart => f.write_str("restart"),
            Command::Renewal { on: true } => f.write_str("turn renewal on"),
            Command::Renewal { on: false } => f.write_str("turn renewal off"),
            Command::ClockJump { jump_ms } if *jump_ms >= 0 => {
                write!(f, "clock jumps forward {}", Millis(jump_ms.unsigned_abs()))
            }
            Command::ClockJump { jump_ms } => {
                write!(f, "clock jumps back {}", Millis(jump_ms.unsigned_abs()))
            }
            Command::ClockRate { rate_pct: 0 } => f.write_str("clock runs true again"),
            Command::ClockRate { rate_pct } if *rate_pct > 0 => {
                write!(f, "clock runs {rate_pct}% fast")
            }
            Command::ClockRate { rate_pct } => write!(f, "clock runs {}% slow", -rate_pct),
            Command::LoseMessages { on: true } => f.write_str("start losing messages"),
            Command::LoseMessages { on: false } => f.write_str("stop losing messages"),
        }
    }
}

/// What a visitor asks one node of the lock service to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum NodeCommand {
    Crash,
    Restart,
    /// The node's wall clock jumps by `jump_ms` (negative: backwards).
    ClockJump {
        jump_ms: i64,
    },
    /// The node answers `extra_ms` later than usual (0 makes it normal again).
    Slow {
        extra_ms: u64,
    },
    /// The service's leader or primary dies and another takes over, as
    /// each system does it (a Redis replica promoted by Sentinel, a new
    /// Raft leader, a PostgreSQL standby).
    Failover,
}

impl fmt::Display for NodeCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeCommand::Crash => f.write_str("crash"),
            NodeCommand::Restart => f.write_str("restart"),
            NodeCommand::ClockJump { jump_ms } if *jump_ms >= 0 => {
                write!(f, "clock jumps forward {}", Millis(jump_ms.unsigned_abs()))
            }
            NodeCommand::ClockJump { jump_ms } => {
                write!(f, "clock jumps back {}", Millis(jump_ms.unsigned_abs()))
            }
            NodeCommand::Slow { extra_ms: 0 } => f.write_str("answers at normal speed"),
            NodeCommand::Slow { extra_ms } => write!(f, "answers {} late", Millis(*extra_ms)),
            NodeCommand::Failover => f.write_str("fails over"),
        }
    }
}

/// A command and whom it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Action {
    Client { client: ClientId, command: Command },
    Node { node: NodeId, command: NodeCommand },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Client { client, command } => write!(f, "{client}: {command}"),
            Action::Node {
                command: NodeCommand::Failover,
                ..
            } => f.write_str("the lock service's leader or primary fails over"),
            Action::Node { node, command } => write!(f, "Redis {node}: {command}"),
        }
    }
}

/// An action at a virtual time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedAction {
    #[serde(rename = "at_ms")]
    pub at: Millis,
    #[serde(flatten)]
    pub action: Action,
}

/// A whole run: configuration plus the script. Running it is deterministic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub version: u32,
    pub config: Config,
    pub actions: Vec<TimedAction>,
}

impl Scenario {
    pub fn new(config: Config) -> Scenario {
        Scenario {
            version: SCENARIO_VERSION,
            config,
            actions: Vec::new(),
        }
    }

    /// Adds an action; scripts keep their actions in time order.
    pub fn at(mut self, at_ms: u64, action: Action) -> Scenario {
        self.actions.push(TimedAction {
            at: Millis(at_ms),
            action,
        });
        self
    }

    pub fn client(self, at_ms: u64, client: char, command: Command) -> Scenario {
        let client = ClientId::from_letter(client).expect("scripts name clients A to D");
        self.at(at_ms, Action::Client { client, command })
    }

    pub fn node(self, at_ms: u64, node: u8, command: NodeCommand) -> Scenario {
        let node = NodeId::new(node).expect("scripts name nodes 1 to 5");
        self.at(at_ms, Action::Node { node, command })
    }

    /// The last scripted time, zero for an empty script.
    pub fn last_at(&self) -> Millis {
        self.actions.last().map_or(Millis::ZERO, |a| a.at)
    }

    /// Checks what can be checked without running: version, ranges, order.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != SCENARIO_VERSION {
            return Err(ScenarioError::Version {
                found: self.version,
            });
        }
        self.config.validate().map_err(ScenarioError::Config)?;
        if self.actions.len() > SCRIPT_LEN_MAX {
            return Err(ScenarioError::TooLong {
                len: self.actions.len(),
            });
        }
        let mut last = Millis::ZERO;
        for (index, timed) in self.actions.iter().enumerate() {
            if timed.at.ms() > SCRIPT_TIME_MS_MAX {
                return Err(ScenarioError::TimeTooLate { index });
            }
            if timed.at < last {
                return Err(ScenarioError::OutOfOrder { index });
            }
            last = timed.at;
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a scenario always serializes")
    }

    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario: Scenario =
            serde_json::from_str(text).map_err(|e| ScenarioError::Json(e.to_string()))?;
        scenario.validate()?;
        Ok(scenario)
    }
}

/// Why a scenario cannot be loaded or replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScenarioError {
    Json(String),
    Version {
        found: u32,
    },
    Config(CommandError),
    TooLong {
        len: usize,
    },
    TimeTooLate {
        index: usize,
    },
    OutOfOrder {
        index: usize,
    },
    /// A scripted action was refused when replayed.
    Refused {
        index: usize,
        at: Millis,
        error: CommandError,
    },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Json(e) => {
                write!(f, "the scenario is not valid JSON for this page: {e}")
            }
            ScenarioError::Version { found } => write!(
                f,
                "the scenario has version {found}, this page reads version {SCENARIO_VERSION}"
            ),
            ScenarioError::Config(e) => write!(f, "the scenario's settings are out of range: {e}"),
            ScenarioError::TooLong { len } => write!(
                f,
                "the scenario has {len} commands, more than the limit of {SCRIPT_LEN_MAX}"
            ),
            ScenarioError::TimeTooLate { index } => write!(
                f,
                "command {} is scheduled after the one-day limit",
                index + 1
            ),
            ScenarioError::OutOfOrder { index } => write!(
                f,
                "command {} is scheduled before the command ahead of it",
                index + 1
            ),
            ScenarioError::Refused { index, at, error } => {
                write!(f, "command {} at {at} cannot run: {error}", index + 1)
            }
        }
    }
}

impl std::error::Error for ScenarioError {}
