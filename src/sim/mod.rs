//! The pure simulation core: a deterministic discrete-event engine with
//! three lock services, four clients, a fenced resource and a safety oracle.
//! No UI, no wall clock, no OS randomness: the same seed and the same timed
//! commands give the same history on every machine.

pub mod backend;
pub mod client;
pub mod engine;
pub mod error;
pub mod history;
pub mod json;
pub mod link;
pub mod net;
pub mod oracle;
pub mod presets;
pub mod resource;
pub mod scenario;
pub mod timeline;
pub mod tour;
pub mod types;

pub use backend::{HolderView, ServiceDetail};
pub use client::{Belief, ClientState, ClientView, LastWrite, ZkConn};
pub use engine::{RunOutcome, Sim, EVENTS_PER_RUN_MAX, QUEUED_COMMANDS_MAX, QUEUE_LEN_MAX};
pub use error::CommandError;
pub use history::{Event, EventKind, Record};
pub use net::{Body, Endpoint, Message};
pub use oracle::Oracle;
pub use resource::{Resource, RESOURCE_NAME};
pub use scenario::{Action, Command, Config, NodeCommand, PartitionScope, Scenario, ScenarioError};
pub use types::{
    Backend, ClientId, ExtendMode, Fencing, Millis, NodeId, Persistence, ReleaseMode,
    RestartPolicy, Seed, Token,
};
