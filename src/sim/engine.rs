//! The discrete-event engine: a queue ordered by (time, sequence), the
//! clients, the network, the resource, and a backend that answers them.

use super::backend::{new_service, HolderView, Service, ServiceDetail};
use super::client::{Belief, Client, ClientView, LastWrite, Stashed};
use super::error::CommandError;
use super::history::{Event, Record, HISTORY_LEN_MAX};
use super::net::{latency_range_us, Body, Endpoint, Message};
use super::oracle::{Oracle, StaleWrite};
use super::resource::{Resource, Verdict};
use super::scenario::{
    Action, Command, Config, NodeCommand, PartitionScope, Scenario, ScenarioError, TimedAction,
    PAUSE_MS_MAX, SCRIPT_LEN_MAX, SLOW_MS_MAX,
};
use super::types::{ClientId, Millis, NodeId, Token};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

/// Events one `run_until` call runs at most; past it the call stops early
/// (the clock stays at the last event run) and says so.
pub const EVENTS_PER_RUN_MAX: u64 = 1_000_000;
/// Pending events at most; past it new commands are refused.
pub const QUEUE_LEN_MAX: usize = 100_000;
/// Commands a paused client keeps at most.
pub const QUEUED_COMMANDS_MAX: usize = 16;

/// Random streams: each part of the run draws from its own ChaCha stream of
/// the master seed, so adding draws to one never shifts another.
const STREAM_NETWORK: u64 = 1;
const STREAM_SERVICE: u64 = 2;

/// Timers that belong to a client: they fire only while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientTimer {
    /// Time to send the next keepalive, heartbeat or extension.
    Renew { gen: u64 },
    /// The lease end by the client's own clock.
    LeaseDeadline { gen: u64 },
    /// Redlock: the per-node timeout of one step of a round.
    RedlockNodeTimeout { round: u64, step: u8 },
    /// Redlock: retry after a random delay.
    RedlockRetry { round: u64 },
    /// ZooKeeper: no reply for two thirds of the session timeout.
    ZkReadTimeout { gen: u64 },
}

/// Timers that belong to the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServiceTimer {
    RedisKeyExpiry { node: NodeId },
    RedisRestart { node: NodeId },
    EtcdLeaseExpiry { lease: u64 },
    ZkSessionExpiry { session: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    Deliver(u64),
    Client {
        client: ClientId,
        epoch: u32,
        timer: ClientTimer,
    },
    Service(ServiceTimer),
    Wake {
        client: ClientId,
        epoch: u32,
    },
    /// The moment after waking: what reached the client while it was frozen.
    Resume {
        client: ClientId,
        epoch: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scheduled {
    at: u64,
    seq: u64,
    ev: Ev,
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and the earliest must come first.
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The state every backend may read and change while it handles an event.
#[derive(Debug, Clone)]
pub(crate) struct Core {
    pub config: Config,
    pub now: Millis,
    queue: BinaryHeap<Scheduled>,
    seq: u64,
    pub in_flight: BTreeMap<u64, Message>,
    next_message: u64,
    pub clients: [Client; 4],
    pub resource: Resource,
    pub oracle: Oracle,
    history: Vec<Record>,
    history_dropped: u64,
    net_rng: ChaCha8Rng,
    pub rng: ChaCha8Rng,
    events_run: u64,
}

impl Core {
    fn new(config: Config) -> Core {
        let mut net_rng = ChaCha8Rng::seed_from_u64(config.seed.0);
        net_rng.set_stream(STREAM_NETWORK);
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed.0);
        rng.set_stream(STREAM_SERVICE);
        let clients = ClientId::ALL.map(|id| Client::new(id, config.renewal[id.index()]));
        Core {
            config,
            now: Millis::ZERO,
            queue: BinaryHeap::new(),
            seq: 0,
            in_flight: BTreeMap::new(),
            next_message: 1,
            clients,
            resource: Resource::new(),
            oracle: Oracle::default(),
            history: Vec::new(),
            history_dropped: 0,
            net_rng,
            rng,
            events_run: 0,
        }
    }

    pub fn client(&self, c: ClientId) -> &Client {
        &self.clients[c.index()]
    }

    pub fn client_mut(&mut self, c: ClientId) -> &mut Client {
        &mut self.clients[c.index()]
    }

    pub fn record(&mut self, event: Event) {
        if self.history.len() < HISTORY_LEN_MAX {
            self.history.push(Record {
                at: self.now,
                event,
            });
        } else {
            self.history_dropped += 1;
        }
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Scheduled {
            at,
            seq: self.seq,
            ev,
        });
    }

    /// Starts a client timer; it belongs to the client's current incarnation.
    pub fn client_timer(&mut self, c: ClientId, after_ms: u64, timer: ClientTimer) {
        let epoch = self.client(c).epoch;
        let at = self.now.ms().saturating_add(after_ms);
        self.schedule(
            at,
            Ev::Client {
                client: c,
                epoch,
                timer,
            },
        );
    }

    pub fn service_timer(&mut self, at: Millis, timer: ServiceTimer) {
        let at = at.max(self.now);
        self.schedule(at.ms(), Ev::Service(timer));
    }

    /// A uniform draw in `lo..=hi` from the service's own stream.
    pub fn draw(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.random_range(lo..=hi)
    }

    pub fn send(&mut self, from: Endpoint, to: Endpoint, body: Body) {
        self.send_delayed(from, to, body, 0);
    }

    /// Sends a message that arrives after a drawn latency plus `extra_ms`.
    pub fn send_delayed(&mut self, from: Endpoint, to: Endpoint, body: Body, extra_ms: u64) {
        let (lo, hi) = latency_range_us(self.config.backend, from, to);
        let us = self.net_rng.random_range(lo..=hi) * u64::from(self.config.latency_scale);
        let latency_ms = (us / 1000).max(1) + extra_ms;
        let id = self.next_message;
        self.next_message += 1;
        let epoch = to.client().map_or(0, |c| self.client(c).epoch);
        let deliver_ms = self.now.ms() + latency_ms;
        let doomed = self.is_cut(from, to);
        self.record(Event::MessageSent {
            id,
            from,
            to,
            body: body.clone(),
            deliver_ms,
        });
        self.in_flight.insert(
            id,
            Message {
                id,
                from,
                to,
                sent_ms: self.now.ms(),
                deliver_ms,
                body,
                doomed,
                epoch,
            },
        );
        self.schedule(deliver_ms, Ev::Deliver(id));
    }

    /// True when a partition lies between the two ends right now.
    pub fn is_cut(&self, from: Endpoint, to: Endpoint) -> bool {
        let (client, other) = match (from, to) {
            (Endpoint::Client(c), other) | (other, Endpoint::Client(c)) => (c, other),
            _ => return false,
        };
        match (self.client(client).partition, other) {
            (None, _) => false,
            (Some(_), Endpoint::Service | Endpoint::Node(_)) => true,
            (Some(scope), Endpoint::Resource) => scope == PartitionScope::ServiceAndResource,
            (Some(_), Endpoint::Client(_)) => false,
        }
    }

    /// Changes a client's belief and lets the oracle count believed holders.
    pub fn set_belief(&mut self, c: ClientId, belief: Belief) {
        self.client_mut(c).belief = belief;
        // A fixed array: this runs on every belief change.
        let mut holders = [ClientId::ALL[0]; 4];
        let mut count = 0;
        for cl in self
            .clients
            .iter()
            .filter(|cl| !cl.crashed && cl.belief.is_holding())
        {
            holders[count] = cl.id;
            count += 1;
        }
        let holders = &holders[..count];
        match self.oracle.believers(self.now, holders) {
            Some(true) => self.record(Event::TwoHolders {
                clients: holders.to_vec(),
            }),
            Some(false) => self.record(Event::OneHolderAgain),
            None => {}
        }
    }

    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }
}

/// A whole simulation: the engine plus the lock service of one backend.
#[derive(Debug, Clone)]
pub struct Sim {
    core: Core,
    service: Service,
    script: Vec<TimedAction>,
    last_holder: Option<(ClientId, Option<Token>)>,
}

/// How a `run_until` call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Everything due ran and the clock is at the target.
    Reached,
    /// The per-call event limit stopped it; the clock is at the last event run.
    Truncated { events: u64 },
}

impl Sim {
    /// A fresh run. An out-of-range configuration is refused.
    pub fn new(config: Config) -> Result<Sim, CommandError> {
        config.validate()?;
        let service = new_service(&config);
        Ok(Sim {
            core: Core::new(config),
            service,
            script: Vec::new(),
            last_holder: None,
        })
    }

    /// Replays a scenario up to its last scripted action.
    pub fn from_scenario(scenario: &Scenario) -> Result<Sim, ScenarioError> {
        Sim::replay(scenario, Millis(scenario.last_at_ms()))
    }

    /// Replays a scenario up to time `t`: the actions due by then, and the
    /// clock moved to `t`. The same scenario and `t` give the same state.
    pub fn replay(scenario: &Scenario, t: Millis) -> Result<Sim, ScenarioError> {
        scenario.validate()?;
        let mut sim = Sim::new(scenario.config.clone()).map_err(ScenarioError::Config)?;
        for (index, timed) in scenario.actions.iter().enumerate() {
            if timed.at_ms > t.ms() {
                break;
            }
            sim.run_until(Millis(timed.at_ms));
            sim.act(timed.action)
                .map_err(|error| ScenarioError::Refused {
                    index,
                    at_ms: timed.at_ms,
                    error,
                })?;
        }
        sim.run_until(t);
        Ok(sim)
    }

    /// Plays a story's script up to `t` the way the page plays it: a step
    /// the run refuses (B writes, but a changed setting means B never got
    /// the lock) is skipped, as the same click would be, and the rest go on.
    pub fn play(scenario: &Scenario, t: Millis) -> Result<Sim, ScenarioError> {
        scenario.validate()?;
        let mut sim = Sim::new(scenario.config.clone()).map_err(ScenarioError::Config)?;
        for timed in scenario.actions.iter().take_while(|a| a.at_ms <= t.ms()) {
            sim.run_until(Millis(timed.at_ms));
            // A refused step leaves the run as it was; the page says so.
            let _refused = sim.act(timed.action);
        }
        sim.run_until(t);
        Ok(sim)
    }

    pub fn config(&self) -> &Config {
        &self.core.config
    }

    pub fn now(&self) -> Millis {
        self.core.now
    }

    pub fn history(&self) -> &[Record] {
        &self.core.history
    }

    /// Records that did not fit under `HISTORY_LEN_MAX`.
    pub fn history_dropped(&self) -> u64 {
        self.core.history_dropped
    }

    pub fn resource(&self) -> &Resource {
        &self.core.resource
    }

    pub fn oracle(&self) -> &Oracle {
        &self.core.oracle
    }

    pub fn events_run(&self) -> u64 {
        self.core.events_run
    }

    /// The commands run so far, each with its time, in order.
    pub fn script(&self) -> &[TimedAction] {
        &self.script
    }

    /// The run so far as a replayable scenario.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            version: super::scenario::SCENARIO_VERSION,
            config: self.core.config.clone(),
            actions: self.script.clone(),
        }
    }

    /// Messages on the wire, oldest first.
    pub fn in_flight(&self) -> impl Iterator<Item = &Message> {
        self.core.in_flight.values()
    }

    /// The time of the next event, if any.
    pub fn next_event_at(&self) -> Option<Millis> {
        self.core.queue.peek().map(|s| Millis(s.at))
    }

    /// Who the service says holds the lock now.
    pub fn holder(&self) -> Option<HolderView> {
        self.service.get().holder(&self.core)
    }

    pub fn service_detail(&self) -> ServiceDetail {
        self.service.get().detail(&self.core)
    }

    /// Whether the backend promises tokens that only grow.
    pub fn monotonic_tokens(&self) -> bool {
        self.service.get().monotonic_tokens()
    }

    pub fn client_view(&self, c: ClientId) -> ClientView {
        let client = self.core.client(c);
        let holder = self.holder();
        let service_until = self.service.get().lease_end(&self.core, c);
        let stale = match client.belief {
            Belief::Holding { lease_key, .. } => {
                holder.is_none_or(|h| h.client != c || h.lease_key != lease_key)
            }
            _ => false,
        };
        ClientView {
            id: c,
            state: client.state(),
            belief: client.belief,
            paused_until: client.paused_until,
            partition: client.partition,
            crashed: client.crashed,
            renewal: client.renewal,
            zk_conn: client.zk_conn,
            queued: client.queued.clone(),
            last_write: client.last_write,
            service_until,
            stale: stale && !client.crashed,
        }
    }

    pub fn clients(&self) -> Vec<ClientView> {
        ClientId::ALL.iter().map(|&c| self.client_view(c)).collect()
    }

    /// Runs the next event. Returns false when nothing is left to run.
    pub fn step(&mut self) -> bool {
        let Some(next) = self.core.queue.pop() else {
            return false;
        };
        debug_assert!(next.at >= self.core.now.ms(), "time never goes backwards");
        self.core.now = Millis(next.at);
        self.core.events_run += 1;
        self.dispatch(next.ev);
        self.note_holder();
        true
    }

    /// Runs every event due up to `t` and moves the clock to `t`.
    pub fn run_until(&mut self, t: Millis) -> RunOutcome {
        let mut events = 0;
        while let Some(next) = self.core.queue.peek() {
            if next.at > t.ms() {
                break;
            }
            if events >= EVENTS_PER_RUN_MAX {
                return RunOutcome::Truncated { events };
            }
            self.step();
            events += 1;
        }
        self.core.now = self.core.now.max(t);
        RunOutcome::Reached
    }

    /// Runs an action now, as a click would, and records it in the script.
    pub fn act(&mut self, action: Action) -> Result<(), CommandError> {
        match action {
            Action::Client { client, command } => self.command(client, command),
            Action::Node { node, command } => self.node_command(node, command),
        }
    }

    /// Whether `command` would be accepted now, without running it.
    pub fn check(&self, c: ClientId, command: Command) -> Result<(), CommandError> {
        let client = self.core.client(c);
        if self.core.pending_events() >= QUEUE_LEN_MAX || self.script.len() >= SCRIPT_LEN_MAX {
            return Err(CommandError::TooManyEvents);
        }
        if client.crashed && command != Command::Restart {
            return Err(CommandError::ClientCrashed { client: c });
        }
        if client.is_paused() && client.queued.len() >= QUEUED_COMMANDS_MAX {
            let immediate = matches!(
                command,
                Command::Partition { .. }
                    | Command::Heal
                    | Command::Crash
                    | Command::Renewal { .. }
            );
            if !immediate {
                return Err(CommandError::TooManyQueued { client: c });
            }
        }
        check_command(client, command)
    }

    /// Runs a client command now. A refused command changes nothing.
    pub fn command(&mut self, c: ClientId, command: Command) -> Result<(), CommandError> {
        self.check(c, command)?;
        self.script.push(TimedAction {
            at_ms: self.core.now.ms(),
            action: Action::Client { client: c, command },
        });
        self.core.record(Event::Clicked { client: c, command });
        let deferred = matches!(
            command,
            Command::Acquire | Command::Write | Command::WriteDelayed { .. } | Command::Release
        );
        if deferred && self.core.client(c).is_paused() {
            self.core.client_mut(c).queued.push(command);
            self.core.record(Event::Queued { client: c, command });
        } else {
            self.execute(c, command);
        }
        self.note_holder();
        Ok(())
    }

    pub fn check_node(&self, node: NodeId, command: NodeCommand) -> Result<(), CommandError> {
        if self.core.pending_events() >= QUEUE_LEN_MAX || self.script.len() >= SCRIPT_LEN_MAX {
            return Err(CommandError::TooManyEvents);
        }
        self.service.get().check_node_command(node, command)
    }

    /// Runs a Redis node command (Redlock only).
    pub fn node_command(&mut self, node: NodeId, command: NodeCommand) -> Result<(), CommandError> {
        self.check_node(node, command)?;
        self.script.push(TimedAction {
            at_ms: self.core.now.ms(),
            action: Action::Node { node, command },
        });
        self.core.record(Event::NodeClicked { node, command });
        self.service
            .get_mut()
            .node_command(&mut self.core, node, command);
        self.note_holder();
        Ok(())
    }

    fn execute(&mut self, c: ClientId, command: Command) {
        let core = &mut self.core;
        match command {
            Command::Acquire => {
                core.set_belief(c, Belief::Acquiring);
                core.record(Event::AcquireStarted { client: c });
                self.service.get_mut().acquire(core, c);
            }
            Command::Write => send_write(core, c, 0),
            Command::WriteDelayed { extra_ms } => send_write(core, c, extra_ms),
            Command::Release => {
                self.service.get_mut().release(core, c);
                core.set_belief(c, Belief::Idle);
                core.record(Event::Released { client: c });
            }
            Command::GcPause { pause_ms } => {
                let until = core.now.plus(pause_ms);
                core.client_mut(c).paused_until = Some(until);
                let epoch = core.client(c).epoch;
                core.schedule(until.ms(), Ev::Wake { client: c, epoch });
                core.record(Event::Paused { client: c, until });
            }
            Command::Partition { scope } => {
                core.client_mut(c).partition = Some(scope);
                core.record(Event::Partitioned { client: c, scope });
            }
            Command::Heal => {
                core.client_mut(c).partition = None;
                core.record(Event::Healed { client: c });
                if !core.client(c).is_paused() {
                    self.service.get_mut().on_heal(core, c);
                }
            }
            Command::Crash => self.crash(c),
            Command::Restart => {
                let renewal = core.client(c).renewal;
                let epoch = core.client(c).epoch;
                let client = core.client_mut(c);
                *client = Client::new(c, renewal);
                client.epoch = epoch;
                core.record(Event::Restarted { client: c });
            }
            Command::Renewal { on } => {
                core.client_mut(c).renewal = on;
                core.record(Event::Renewal { client: c, on });
                if on {
                    self.service.get_mut().on_renewal_on(core, c);
                }
            }
        }
    }

    fn crash(&mut self, c: ClientId) {
        let core = &mut self.core;
        core.set_belief(c, Belief::Idle);
        let renewal = core.client(c).renewal;
        let epoch = core.client(c).epoch + 1;
        let client = core.client_mut(c);
        *client = Client::new(c, renewal);
        client.epoch = epoch;
        client.crashed = true;
        core.set_belief(c, Belief::Idle);
        self.service.get_mut().on_crash(core, c);
        core.record(Event::Crashed { client: c });
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Deliver(id) => self.deliver(id),
            Ev::Client {
                client,
                epoch,
                timer,
            } => {
                let cl = self.core.client(client);
                if cl.crashed || cl.epoch != epoch {
                    return;
                }
                if cl.is_paused() {
                    self.core
                        .client_mut(client)
                        .stash
                        .push(Stashed::Timer(timer));
                    return;
                }
                self.service
                    .get_mut()
                    .on_client_timer(&mut self.core, client, timer);
            }
            Ev::Service(timer) => self
                .service
                .get_mut()
                .on_service_timer(&mut self.core, timer),
            Ev::Wake { client, epoch } => self.wake(client, epoch),
            Ev::Resume { client, epoch } => self.resume(client, epoch),
        }
    }

    fn deliver(&mut self, id: u64) {
        let Some(msg) = self.core.in_flight.remove(&id) else {
            return;
        };
        let cut = msg.doomed || self.core.is_cut(msg.from, msg.to);
        if cut || !self.service.get().endpoint_up(msg.to) {
            self.core.record(Event::MessageDropped {
                id,
                from: msg.from,
                to: msg.to,
            });
            return;
        }
        if let Endpoint::Client(c) = msg.to {
            let cl = self.core.client(c);
            if cl.crashed || cl.epoch != msg.epoch {
                return;
            }
            if cl.is_paused() {
                self.core.client_mut(c).stash.push(Stashed::Message(msg));
                return;
            }
            if let Body::WriteReply { accepted } = msg.body {
                self.core.client_mut(c).last_write = Some(if accepted {
                    LastWrite::Accepted
                } else {
                    LastWrite::Rejected
                });
                return;
            }
        }
        if msg.to == Endpoint::Resource {
            self.apply_write(msg);
            return;
        }
        self.service.get_mut().on_message(&mut self.core, msg);
    }

    fn apply_write(&mut self, msg: Message) {
        let Body::Write { token, lease_key } = msg.body else {
            return;
        };
        let Endpoint::Client(c) = msg.from else {
            return;
        };
        let holder = self.holder();
        let stale = holder.is_none_or(|h| h.client != c || h.lease_key != lease_key);
        let fencing = self.core.config.fencing;
        let verdict = self.core.resource.apply(fencing, token);
        let accepted = matches!(verdict, Verdict::Accepted { .. });
        if stale {
            self.core.oracle.record_stale(StaleWrite {
                at: self.core.now,
                client: c,
                token,
                holder: holder.map(|h| h.client),
                accepted,
            });
        }
        let event = match verdict {
            Verdict::Accepted { value } => Event::WriteAccepted {
                client: c,
                token,
                value,
                stale,
            },
            Verdict::Rejected(reason) => Event::WriteRejected {
                client: c,
                token,
                reason,
                stale,
            },
        };
        self.core.record(event);
        self.core
            .send(Endpoint::Resource, msg.from, Body::WriteReply { accepted });
    }

    fn wake(&mut self, c: ClientId, epoch: u32) {
        let client = self.core.client(c);
        if client.crashed || client.epoch != epoch || client.paused_until != Some(self.core.now) {
            return;
        }
        self.core.client_mut(c).paused_until = None;
        self.core.record(Event::Woke { client: c });
        // What was clicked during the pause runs first: the pause struck
        // between the check "I hold the lock" and the action.
        let queued = std::mem::take(&mut self.core.client_mut(c).queued);
        for command in queued {
            if check_command(self.core.client(c), command).is_ok() {
                self.execute(c, command);
            }
        }
        // Replies and timers that came due during the pause run a moment later.
        self.core
            .schedule(self.core.now.ms() + 1, Ev::Resume { client: c, epoch });
    }

    fn resume(&mut self, c: ClientId, epoch: u32) {
        let client = self.core.client(c);
        if client.crashed || client.epoch != epoch || client.is_paused() {
            return;
        }
        let stash = std::mem::take(&mut self.core.client_mut(c).stash);
        for item in stash {
            if self.core.client(c).is_paused() {
                // A queued command paused it again: keep the rest for later.
                self.core.client_mut(c).stash.push(item);
                continue;
            }
            match item {
                Stashed::Timer(timer) => {
                    self.service
                        .get_mut()
                        .on_client_timer(&mut self.core, c, timer)
                }
                Stashed::Message(msg) => {
                    if let Body::WriteReply { accepted } = msg.body {
                        self.core.client_mut(c).last_write = Some(if accepted {
                            LastWrite::Accepted
                        } else {
                            LastWrite::Rejected
                        });
                    } else {
                        self.service.get_mut().on_message(&mut self.core, msg);
                    }
                }
            }
        }
        if self.core.client(c).partition.is_none() {
            self.service.get_mut().on_heal(&mut self.core, c);
        }
    }

    /// Records a change of the service's holder, and checks that backends
    /// promising monotonic tokens never hand out a smaller one.
    fn note_holder(&mut self) {
        let now = self.holder().map(|h| (h.client, h.token));
        if now == self.last_holder {
            return;
        }
        if self.monotonic_tokens() {
            if let (Some((_, Some(before))), Some((_, Some(after)))) = (self.last_holder, now) {
                assert!(
                    after >= before,
                    "token went backwards: {before} then {after} (seed {})",
                    self.core.config.seed
                );
            }
        }
        self.last_holder = now;
        self.core.record(Event::HolderChanged {
            holder: now.map(|h| h.0),
            token: now.and_then(|h| h.1),
        });
    }
}

fn send_write(core: &mut Core, c: ClientId, extra_ms: u64) {
    let Belief::Holding {
        token, lease_key, ..
    } = core.client(c).belief
    else {
        return;
    };
    core.client_mut(c).last_write = Some(LastWrite::InFlight);
    core.record(Event::WriteSent { client: c, token });
    core.send_delayed(
        Endpoint::Client(c),
        Endpoint::Resource,
        Body::Write { token, lease_key },
        extra_ms,
    );
}

/// The rules of what a client may be asked, by its own belief.
fn check_command(client: &Client, command: Command) -> Result<(), CommandError> {
    let c = client.id;
    let queued_acquire = client.queued.contains(&Command::Acquire);
    match command {
        Command::Acquire => match client.belief {
            Belief::Holding { .. } => Err(CommandError::AlreadyHolding { client: c }),
            Belief::Acquiring | Belief::Waiting { .. } => {
                Err(CommandError::AlreadyAcquiring { client: c })
            }
            Belief::Idle if queued_acquire => Err(CommandError::AlreadyAcquiring { client: c }),
            Belief::Idle => Ok(()),
        },
        Command::Write | Command::WriteDelayed { .. } => {
            if let Command::WriteDelayed { extra_ms } = command {
                if extra_ms > SLOW_MS_MAX {
                    return Err(CommandError::DelayOutOfRange { extra_ms });
                }
            }
            if client.belief.is_holding() {
                Ok(())
            } else {
                Err(CommandError::NotHolding { client: c })
            }
        }
        Command::Release => match client.belief {
            Belief::Idle => Err(CommandError::NothingToRelease { client: c }),
            _ => Ok(()),
        },
        Command::GcPause { pause_ms } => {
            if pause_ms == 0 || pause_ms > PAUSE_MS_MAX {
                Err(CommandError::PauseOutOfRange { pause_ms })
            } else if client.is_paused() {
                Err(CommandError::AlreadyPaused { client: c })
            } else {
                Ok(())
            }
        }
        Command::Partition { .. } if client.partition.is_some() => {
            Err(CommandError::AlreadyPartitioned { client: c })
        }
        Command::Partition { .. } => Ok(()),
        Command::Heal if client.partition.is_none() => {
            Err(CommandError::NotPartitioned { client: c })
        }
        Command::Heal => Ok(()),
        Command::Crash => Ok(()),
        Command::Restart if !client.crashed => Err(CommandError::NotCrashed { client: c }),
        Command::Restart => Ok(()),
        Command::Renewal { on } if client.renewal == on => {
            Err(CommandError::RenewalAlready { client: c, on })
        }
        Command::Renewal { .. } => Ok(()),
    }
}
