//! Commands the simulation refuses, each with a sentence a visitor can read.

use super::backend::LOCK_DELAY_S_MAX;
use super::clock::CLOCK_RATE_PCT_MAX;
use super::history::LossReason;
use super::scenario::{
    CHUBBY_LOCK_DELAY_MS_MAX, CLOCK_JUMP_MS_MAX, DYNAMO_EXTRA_WAIT_PCT_MAX, DYNAMO_HEARTBEATS_MAX,
    DYNAMO_HEARTBEATS_MIN, LATENCY_SCALE_MAX, LATENCY_SCALE_MIN, NETWORK_RTT_MS_MAX, PAUSE_MS_MAX,
    SCRIPT_LEN_MAX, SLOW_MS_MAX, TTL_MS_MAX, TTL_MS_MIN, ZK_TICK_MS_MAX, ZK_TICK_MS_MIN,
};
use super::types::{ClientId, Millis, NodeId};
use std::fmt;

/// A command that was refused. Refusing changes nothing in the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    ClientCrashed {
        client: ClientId,
    },
    NotCrashed {
        client: ClientId,
    },
    AlreadyHolding {
        client: ClientId,
    },
    AlreadyAcquiring {
        client: ClientId,
    },
    /// Write with no lock believed held, nor one lost since it last asked.
    NotHolding {
        client: ClientId,
    },
    /// Write while still asking or waiting for the lock.
    NotYetGranted {
        client: ClientId,
    },
    /// Write after the client library learned its lease is gone: it knows,
    /// so it sends nothing (only a write already past that check goes out).
    LeaseGone {
        client: ClientId,
        reason: LossReason,
    },
    NothingToRelease {
        client: ClientId,
    },
    AlreadyPaused {
        client: ClientId,
    },
    AlreadyPartitioned {
        client: ClientId,
    },
    NotPartitioned {
        client: ClientId,
    },
    PauseOutOfRange {
        pause_ms: u64,
    },
    DelayOutOfRange {
        extra_ms: u64,
    },
    TooManyQueued {
        client: ClientId,
    },
    RenewalAlready {
        client: ClientId,
        on: bool,
    },
    /// The system runs as one replicated service here: no node to command.
    NoNodes {
        system: &'static str,
    },
    /// A command this lock system does not have, with its reason.
    Unsupported {
        why: &'static str,
    },
    NodeDown {
        node: NodeId,
    },
    NodeUp {
        node: NodeId,
    },
    ClockJumpOutOfRange {
        jump_ms: i64,
    },
    TtlOutOfRange {
        ttl_ms: u64,
    },
    LatencyScaleOutOfRange {
        scale: u32,
    },
    NetworkRttOutOfRange {
        rtt_ms: u32,
    },
    TickOutOfRange {
        tick_ms: u64,
    },
    LockDelayOutOfRange {
        lock_delay_ms: u64,
    },
    /// A failover while a new master is still being elected.
    MasterElecting,
    ConsulLockDelayOutOfRange {
        lock_delay_s: u64,
    },
    ConsulMonitorRetriesOutOfRange {
        retries: u32,
    },
    /// One of PostgreSQL's tcp_keepalives_* settings out of range.
    KeepaliveOutOfRange {
        setting: &'static str,
        value: u64,
        max: u64,
    },
    ClockRateOutOfRange {
        rate_pct: i32,
    },
    ClockRateAlready {
        client: ClientId,
        rate_pct: i32,
    },
    LosingAlready {
        client: ClientId,
        on: bool,
    },
    /// DynamoDB: heartbeats per lease out of range.
    HeartbeatsOutOfRange {
        per_lease: u32,
    },
    /// DynamoDB: additionalTimeToWaitForLock out of range.
    ExtraWaitOutOfRange {
        pct: u32,
    },
    TooManyEvents,
    /// The run holds `SCRIPT_LEN_MAX` commands, all a link may carry.
    ScriptFull,
    /// The clock is past `SCRIPT_TIME_MS_MAX`, the last time a link's
    /// command may carry.
    DayOver,
    TimeInPast {
        at_ms: u64,
        now_ms: u64,
    },
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CommandError::*;
        match self {
            ClientCrashed { client } => {
                write!(f, "{client} has crashed: restart it first")
            }
            NotCrashed { client } => write!(f, "{client} is running: only a crashed client restarts"),
            AlreadyHolding { client } => {
                write!(f, "{client} already believes it holds the lock")
            }
            AlreadyAcquiring { client } => {
                write!(f, "{client} is already asking for the lock")
            }
            NotHolding { client } => write!(
                f,
                "{client} does not hold the lock, so it has no token to write with: acquire first"
            ),
            NotYetGranted { client } => write!(
                f,
                "{client} has asked for the lock but not been granted it: nothing to write with yet"
            ),
            LeaseGone { client, reason } => write!(
                f,
                "{client}'s client library now knows it lost the lock ({reason}): it sends no more writes"
            ),
            NothingToRelease { client } => {
                write!(f, "{client} neither holds nor waits for the lock")
            }
            AlreadyPaused { client } => write!(f, "{client} is already paused"),
            AlreadyPartitioned { client } => write!(f, "{client} is already partitioned"),
            NotPartitioned { client } => write!(f, "{client} is not partitioned"),
            PauseOutOfRange { pause_ms } => write!(
                f,
                "a pause of {} is out of range: choose more than 0 and at most {}",
                Millis(*pause_ms),
                Millis(PAUSE_MS_MAX)
            ),
            DelayOutOfRange { extra_ms } => write!(
                f,
                "a network delay of {} is out of range: at most {}",
                Millis(*extra_ms),
                Millis(SLOW_MS_MAX)
            ),
            TooManyQueued { client } => write!(
                f,
                "{client} is paused with too many commands waiting; let it wake first"
            ),
            RenewalAlready { client, on } => write!(
                f,
                "renewal for {client} is already {}",
                if *on { "on" } else { "off" }
            ),
            NoNodes { system } => write!(
                f,
                "{system} runs here as one replicated service that times leases with a monotonic clock: it has no node to crash, restart, slow or jump"
            ),
            Unsupported { why } => f.write_str(why),
            NodeDown { node } => write!(f, "Redis {node} is down: restart it first"),
            NodeUp { node } => write!(f, "Redis {node} is running: only a crashed node restarts"),
            ClockJumpOutOfRange { jump_ms } => write!(
                f,
                "a clock jump of {jump_ms} ms is out of range: at most {} either way, and not 0",
                Millis(CLOCK_JUMP_MS_MAX.unsigned_abs())
            ),
            TtlOutOfRange { ttl_ms } => write!(
                f,
                "a TTL of {} is out of range: choose {} to {}",
                Millis(*ttl_ms),
                Millis(TTL_MS_MIN),
                Millis(TTL_MS_MAX)
            ),
            LatencyScaleOutOfRange { scale } => write!(
                f,
                "a latency scale of {scale}x is out of range: choose {LATENCY_SCALE_MIN}x to {LATENCY_SCALE_MAX}x"
            ),
            NetworkRttOutOfRange { rtt_ms } => write!(
                f,
                "a network round trip of {rtt_ms} ms is out of range: choose 0 to {NETWORK_RTT_MS_MAX} ms"
            ),
            TickOutOfRange { tick_ms } => write!(
                f,
                "a ZooKeeper tickTime of {} is out of range: choose {} to {}",
                Millis(*tick_ms),
                Millis(ZK_TICK_MS_MIN),
                Millis(ZK_TICK_MS_MAX)
            ),
            LockDelayOutOfRange { lock_delay_ms } => write!(
                f,
                "a lock-delay of {} is out of range: Chubby allows 0 to {}",
                Millis(*lock_delay_ms),
                Millis(CHUBBY_LOCK_DELAY_MS_MAX)
            ),
            MasterElecting => f.write_str(
                "Chubby is already electing a new master: wait until it has taken over",
            ),
            ConsulLockDelayOutOfRange { lock_delay_s } => write!(
                f,
                "a Consul lock-delay of {lock_delay_s} s is out of range: choose 0 to {LOCK_DELAY_S_MAX} s"
            ),
            ConsulMonitorRetriesOutOfRange { retries } => write!(
                f,
                "{retries} Consul monitor retries is out of range: choose 0 to {} (consul lock runs 3)",
                crate::sim::MONITOR_RETRIES_MAX
            ),
            KeepaliveOutOfRange {
                setting,
                value,
                max,
            } => write!(
                f,
                "PostgreSQL's {setting} of {value} is out of range: choose 1 to {max}"
            ),
            ClockRateOutOfRange { rate_pct } => write!(
                f,
                "a clock {rate_pct}% off is out of range: choose -{CLOCK_RATE_PCT_MAX}% to +{CLOCK_RATE_PCT_MAX}%"
            ),
            ClockRateAlready { client, rate_pct: 0 } => {
                write!(f, "{client}'s clock already runs true")
            }
            ClockRateAlready { client, rate_pct } => {
                write!(f, "{client}'s clock already runs {rate_pct}% off")
            }
            LosingAlready { client, on: true } => {
                write!(f, "{client} is already losing its messages")
            }
            LosingAlready { client, on: false } => {
                write!(f, "{client}'s messages are not being lost")
            }
            HeartbeatsOutOfRange { per_lease } => write!(
                f,
                "{per_lease} DynamoDB heartbeats per lease is out of range: choose {DYNAMO_HEARTBEATS_MIN} to {DYNAMO_HEARTBEATS_MAX} (the client refuses a heartbeat longer than half the lease)"
            ),
            ExtraWaitOutOfRange { pct } => write!(
                f,
                "an extra wait of {pct}% of the lease is out of range: choose 0% to {DYNAMO_EXTRA_WAIT_PCT_MAX}%"
            ),
            TooManyEvents => f.write_str(
                "the simulation has too many events pending; let the clock run before adding more",
            ),
            ScriptFull => write!(
                f,
                "this run holds {SCRIPT_LEN_MAX} commands, all one run (and its link) can keep: the clock still runs, but no more commands; Reset to start a fresh run"
            ),
            DayOver => f.write_str(
                "this run has passed one day of simulated time, as far as one run (and its link) can keep commands: the clock still runs, but no more commands; Reset to start a fresh run",
            ),
            TimeInPast { at_ms, now_ms } => write!(
                f,
                "a command at {} is in the past: the clock is at {}",
                Millis(*at_ms),
                Millis(*now_ms)
            ),
        }
    }
}

impl std::error::Error for CommandError {}
