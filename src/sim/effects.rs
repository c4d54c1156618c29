//! How a lock system talks to the engine: it reads a `View` of the run,
//! takes one `Input`, and answers with `Effects` (messages to send, timers to
//! set, beliefs to change, records to keep). The engine applies them in one
//! place, in order, and asserts the invariants there.

use super::backend::Timer;
use super::client::{Belief, Client};
use super::history::{AcquireFailure, Event, LossReason};
use super::net::{Body, Endpoint};
use super::scenario::NodeCommand;
use super::types::{ClientId, Millis, NodeId, Token};

/// What a lock system may read while it handles an input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    pub now: Millis,
    pub(crate) clients: &'a [Client; 4],
    /// The version the resource's data is at (its counter's value), for a
    /// system whose lock lives beside the data.
    pub resource_version: Token,
}

impl View<'_> {
    pub fn belief(&self, c: ClientId) -> Belief {
        self.clients[c.index()].belief
    }

    /// Whether the client renews its lease by itself.
    pub fn renewal(&self, c: ClientId) -> bool {
        self.clients[c.index()].renewal
    }

    /// The client's own clock reading: what it believes the time is.
    pub fn local_now(&self, c: ClientId) -> i64 {
        self.clients[c.index()].clock.read(self.now)
    }

    /// When, in true time, the client's clock will read `local`.
    pub fn when_reads(&self, c: ClientId, local: i64) -> Millis {
        self.clients[c.index()].clock.when_reads(local, self.now)
    }

    /// When, in true time, `local_ms` will have passed on the client's clock.
    pub fn after_local(&self, c: ClientId, local_ms: u64) -> Millis {
        self.now
            .plus(self.clients[c.index()].clock.virtual_ms(local_ms))
    }
}

/// One thing that happens to a lock system but a message (which reaches
/// it by `LockSystem::on_message`). `T` is its own timer type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input<T> {
    /// The client asks for the lock (its belief is already Acquiring).
    Acquire(ClientId),
    /// The client gives up the lock or its place in the queue.
    Release(ClientId),
    /// A timer of the client's fired while it runs.
    ClientTimer(ClientId, T),
    ServiceTimer(T),
    /// The client's host died or was cut off: it forgot everything and its
    /// kernel sends nothing; the service keeps what it had.
    Crashed(ClientId),
    /// The client's process exited on a host that stays up: it forgot
    /// everything, and its kernel closed its sockets (FIN on each open
    /// connection); what the service makes of that is its own.
    Exited(ClientId),
    /// The client can reach the service again.
    Healed(ClientId),
    RenewalOn(ClientId),
    /// A visitor's command to one node of the service.
    Node(NodeId, NodeCommand),
}

impl<T> Input<T> {
    /// The input with the timer narrowed to one lock system's type; `None`
    /// for a timer of another system.
    #[inline]
    pub fn narrow<U>(self, timer: impl FnOnce(T) -> Option<U>) -> Option<Input<U>> {
        Some(match self {
            Input::Acquire(c) => Input::Acquire(c),
            Input::Release(c) => Input::Release(c),
            Input::ClientTimer(c, t) => Input::ClientTimer(c, timer(t)?),
            Input::ServiceTimer(t) => Input::ServiceTimer(timer(t)?),
            Input::Crashed(c) => Input::Crashed(c),
            Input::Exited(c) => Input::Exited(c),
            Input::Healed(c) => Input::Healed(c),
            Input::RenewalOn(c) => Input::RenewalOn(c),
            Input::Node(n, cmd) => Input::Node(n, cmd),
        })
    }
}

/// One answer of a lock system, applied by the engine in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// A message that arrives after a drawn latency plus `extra_ms`.
    Send {
        from: Endpoint,
        to: Endpoint,
        body: Body,
        extra_ms: u64,
    },
    /// A timer of the client's, `after_ms` by its own clock.
    ClientTimer {
        client: ClientId,
        after_ms: u64,
        timer: Timer,
    },
    ServiceTimer {
        at: Millis,
        timer: Timer,
    },
    /// A pending timer of the client's that would find nothing to do when
    /// due (its session forgotten or its timer set again) is taken out.
    CancelClientTimer {
        client: ClientId,
        timer: Timer,
    },
    /// The same for a timer of the service's.
    CancelServiceTimer {
        timer: Timer,
    },
    Record(Event),
    /// The client now believes it holds the lock.
    Grant {
        client: ClientId,
        token: Option<Token>,
        lease_key: u64,
        until: Option<Millis>,
    },
    /// The client is queued behind the holder.
    Wait {
        client: ClientId,
        token: Option<Token>,
    },
    /// The client stops believing it holds or waits for the lock.
    Lose {
        client: ClientId,
        reason: LossReason,
    },
    /// The acquisition the client was making has failed.
    Fail {
        client: ClientId,
        failure: AcquireFailure,
    },
    /// The client's believed lease end moved (a renewal came back).
    Extend {
        client: ClientId,
        until: Option<Millis>,
    },
}

// Written and read once for every answer of a lock system.
const _: () = assert!(size_of::<Effect>() <= 64);

/// The answers of one input, in the order they were given. Cloning gives
/// an empty list: it only ever holds answers between two calls.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    list: Vec<Effect>,
    /// Records are left out: the run keeps no history, and the engine
    /// would only drop them (`Sim::keep_history`).
    no_records: bool,
}

impl Effects {
    pub fn take(&mut self) -> std::vec::Drain<'_, Effect> {
        self.list.drain(..)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Empties the list, keeping its capacity.
    pub fn clear(&mut self) {
        self.list.clear();
    }

    pub fn send(&mut self, from: Endpoint, to: Endpoint, body: impl Into<Body>) {
        self.send_delayed(from, to, body, 0);
    }

    pub fn send_delayed(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        body: impl Into<Body>,
        extra_ms: u64,
    ) {
        self.list.push(Effect::Send {
            from,
            to,
            body: body.into(),
            extra_ms,
        });
    }

    /// A client's request to the service.
    pub fn ask(&mut self, c: ClientId, body: impl Into<Body>) {
        self.send(Endpoint::Client(c), Endpoint::Service, body);
    }

    /// The service's answer to a client.
    pub fn answer(&mut self, c: ClientId, body: impl Into<Body>) {
        self.send(Endpoint::Service, Endpoint::Client(c), body);
    }

    pub fn client_timer(&mut self, client: ClientId, after_ms: u64, timer: impl Into<Timer>) {
        self.list.push(Effect::ClientTimer {
            client,
            after_ms,
            timer: timer.into(),
        });
    }

    pub fn service_timer(&mut self, at: Millis, timer: impl Into<Timer>) {
        self.list.push(Effect::ServiceTimer {
            at,
            timer: timer.into(),
        });
    }

    /// Takes out client `client`'s pending `timer`, if it is pending: only
    /// a timer that would find nothing to do when due (a generation since
    /// moved on), so that a run is the same with or without it, one event
    /// shorter.
    pub fn cancel_client_timer(&mut self, client: ClientId, timer: impl Into<Timer>) {
        self.list.push(Effect::CancelClientTimer {
            client,
            timer: timer.into(),
        });
    }

    /// The same for a timer of the service's.
    pub fn cancel_service_timer(&mut self, timer: impl Into<Timer>) {
        self.list.push(Effect::CancelServiceTimer {
            timer: timer.into(),
        });
    }

    /// Inlined, so that where records are left out the event is not even
    /// built.
    #[inline]
    pub fn record(&mut self, event: Event) {
        if !self.no_records {
            self.list.push(Effect::Record(event));
        }
    }

    /// Whether `record` keeps what it is handed: a run that keeps no
    /// history turns it off.
    pub fn keep_records(&mut self, on: bool) {
        self.no_records = !on;
    }

    pub fn grant(
        &mut self,
        client: ClientId,
        token: Option<Token>,
        lease_key: u64,
        until: Option<Millis>,
    ) {
        self.list.push(Effect::Grant {
            client,
            token,
            lease_key,
            until,
        });
    }

    pub fn wait(&mut self, client: ClientId, token: Option<Token>) {
        self.list.push(Effect::Wait { client, token });
    }

    pub fn lose(&mut self, client: ClientId, reason: LossReason) {
        self.list.push(Effect::Lose { client, reason });
    }

    pub fn fail(&mut self, client: ClientId, failure: AcquireFailure) {
        self.list.push(Effect::Fail { client, failure });
    }

    pub fn extend(&mut self, client: ClientId, until: Option<Millis>) {
        self.list.push(Effect::Extend { client, until });
    }
}

impl Clone for Effects {
    fn clone(&self) -> Self {
        Effects::default()
    }
}
