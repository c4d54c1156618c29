//! The pure simulation core: a deterministic discrete-event engine with
//! the lock systems, four clients, a fenced resource and a safety oracle.
//! No UI, no wall clock, no OS randomness: the same seed and the same timed
//! commands give the same history on every machine.
//!
//! Its parts are private; everything a caller needs is named here, so each
//! type has one path.

mod backend;
mod client;
mod clock;
mod effects;
mod engine;
mod error;
mod fingerprint;
mod history;
pub mod latency;
mod net;
mod oracle;
mod playback;
mod resource;
pub mod rng;
mod scenario;
mod timeline;
mod types;

// What the lock systems export is named once, in `backend/mod.rs`, beside
// the list of systems: a new system's types need no line here.
pub use backend::*;

pub use client::{Belief, ChubbySession, ClientState, ClientView, LastWrite, WriteJudged, ZkConn};

pub use clock::{Clock, CLOCK_RATE_PCT_MAX};
pub use engine::{
    RunOutcome, Sim, EVENTS_PER_RUN_MAX, QUEUED_COMMANDS_MAX, QUEUE_LEN_MAX, TCP_RETRIES_MAX,
    TCP_RTO_MS_MAX, TCP_RTO_MS_MIN,
};
pub use error::CommandError;
pub use history::sentences::{Said, TokenWords};
pub use history::{
    AcquireFailure, DropReason, Event, EventKind, LossReason, PgSessionEnd, Record, RejectReason,
    ServiceEvent, Standing, HISTORY_LEN_MAX,
};
pub use net::{latency_range_us, Body, Endpoint, Message, ResourceMsg};
pub use oracle::{GrantSeen, Oracle, Overlap, StaleWrite, FINDINGS_MAX};
pub use playback::{Playback, Refusals};
pub use resource::{FenceRule, Owner, Resource, Verdict, RESOURCE_NAME};
pub use scenario::{
    Action, ChubbyOptions, Command, Config, DynamoOptions, NodeCommand, PartitionScope, PgOptions,
    RedisOptions, ReplicaWait, Scenario, ScenarioError, TimedAction, ZkOptions,
    CHUBBY_LOCK_DELAY_MS_DEFAULT, CHUBBY_LOCK_DELAY_MS_MAX, CLOCK_JUMP_MS_MAX,
    DYNAMO_EXTRA_WAIT_PCT_DEFAULT, DYNAMO_EXTRA_WAIT_PCT_MAX, DYNAMO_HEARTBEATS_DEFAULT,
    DYNAMO_HEARTBEATS_MAX, DYNAMO_HEARTBEATS_MIN, LATENCY_SCALE_DEFAULT, LATENCY_SCALE_MAX,
    LATENCY_SCALE_MIN, NETWORK_RTT_MS_MAX, PAUSE_MS_MAX, PG_KEEPALIVE_COUNT_MAX,
    PG_KEEPALIVE_S_MAX, SCENARIO_VERSION, SCRIPT_LEN_MAX, SCRIPT_TIME_MS_MAX, SLOW_MS_MAX,
    TTL_MS_DEFAULT, TTL_MS_MAX, TTL_MS_MIN, ZK_TICK_MS_DEFAULT, ZK_TICK_MS_MAX, ZK_TICK_MS_MIN,
};
pub use timeline::{
    skew_words, Arrow, Changed, Changes, ClientLane, Held, Mark, NodeLane, Picture, Span,
    WriteMark, WriteOutcome, Zone,
};
pub use types::{
    ClientId, ExtendMode, FenceMode, Fencing, Millis, NodeId, Persistence, ReleaseMode,
    RestartPolicy, Seed, Token, ZkClient,
};
