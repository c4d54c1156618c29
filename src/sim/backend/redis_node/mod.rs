//! One Redis server as both Redis lock systems use it: a lock key set with
//! `SET NX PX` and expired by the server's own wall clock, an `INCR` fence
//! counter, value-checked scripts. Redlock runs five of them side by side;
//! single Redis runs a master and its replica.

pub(super) mod real_client;

use super::redlock::{RedisKeyView, RedisMsg, RedisNodeView};
use crate::sim::clock::Clock;
use crate::sim::effects::Effects;
use crate::sim::error::CommandError;
use crate::sim::history::{Event, ServiceEvent};
use crate::sim::scenario::{NodeCommand, CLOCK_JUMP_MS_MAX, SLOW_MS_MAX};
use crate::sim::types::{ClientId, ExtendMode, Millis, NodeId, ReleaseMode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RedisKey {
    pub owner: ClientId,
    pub value: u64,
    /// Expiry time by the node's own wall clock.
    pub expires_at_clock: i64,
    /// When, in true time, the node's clock reaches it: kept in step with
    /// the clock (worked out again when it jumps), because the holder is
    /// asked for after every event and must be cheap.
    pub expiry: Millis,
    pub set_at: Millis,
}

#[derive(Debug, Clone, Default, Hash)]
pub(crate) struct Node {
    pub down: bool,
    pub clock: Clock,
    pub slow_ms: u64,
    pub key: Option<RedisKey>,
    pub fence: u64,
    pub crashed_at: Option<Millis>,
    pub restart_at: Option<Millis>,
}

/// What a node did with one command.
pub(crate) struct Handled {
    /// The answer to send back, if the command has one.
    pub reply: Option<RedisMsg>,
    /// The key's expiry moved: its timer must be set again.
    pub rearm: bool,
}

impl Node {
    /// The key as a `GET` would see it: expired keys are gone.
    pub fn live_key(&self, now: Millis) -> Option<RedisKey> {
        self.key.filter(|k| !self.down && k.expiry > now)
    }

    /// When, in virtual time, the node's clock reaches the key's expiry
    /// (`now` if it already has).
    pub fn expiry_virtual(&self, key: &RedisKey, now: Millis) -> Millis {
        key.expiry.max(now)
    }

    /// The key's expiry worked out again from the node's clock.
    pub fn resync_expiry(&mut self, now: Millis) {
        let clock = self.clock;
        if let Some(key) = self.key.as_mut() {
            key.expiry = clock.when_reads(key.expires_at_clock, now);
        }
    }

    /// The node as the lock-service panel draws it.
    pub fn view(&self, n: NodeId, now: Millis) -> RedisNodeView {
        let clock = self.clock.read(now);
        RedisNodeView {
            node: n,
            up: !self.down,
            clock_offset_ms: self.clock.offset_ms(now),
            clock_ms: clock,
            slow_ms: self.slow_ms,
            key: self.live_key(now).map(|k| RedisKeyView {
                owner: k.owner,
                value: k.value,
                ttl_left_ms: (k.expires_at_clock - clock).max(0) as u64,
            }),
            fence: self.fence,
            restart_at: self.restart_at,
        }
    }

    /// Whether a visitor's command to this node would be accepted; what a
    /// failover means is the lock system's to say.
    pub fn check(&self, n: NodeId, cmd: NodeCommand) -> Result<(), CommandError> {
        match cmd {
            NodeCommand::Crash if self.down => Err(CommandError::NodeDown { node: n }),
            NodeCommand::Restart if !self.down => Err(CommandError::NodeUp { node: n }),
            NodeCommand::ClockJump { jump_ms }
                if jump_ms == 0 || jump_ms.unsigned_abs() > CLOCK_JUMP_MS_MAX.unsigned_abs() =>
            {
                Err(CommandError::ClockJumpOutOfRange { jump_ms })
            }
            NodeCommand::Slow { extra_ms } if extra_ms > SLOW_MS_MAX => {
                Err(CommandError::DelayOutOfRange { extra_ms })
            }
            _ => Ok(()),
        }
    }

    /// The node's wall clock jumps; its key's expiry follows the clock.
    pub fn jump_clock(&mut self, n: NodeId, now: Millis, jump_ms: i64, out: &mut Effects) {
        self.clock.jump(now, jump_ms);
        self.resync_expiry(now);
        out.record(Event::ClockJumped { node: n, jump_ms });
    }

    /// The node answers `extra_ms` later (0: at normal speed again).
    pub fn set_slow(&mut self, n: NodeId, extra_ms: u64, out: &mut Effects) {
        self.slow_ms = extra_ms;
        out.record(Event::NodeSlow { node: n, extra_ms });
    }

    pub fn expire(&mut self, n: NodeId, out: &mut Effects) {
        if let Some(key) = self.key.take() {
            out.record(Event::Service(ServiceEvent::RedisKeyExpired {
                node: n,
                client: key.owner,
            }));
        }
    }

    fn set_key(
        &mut self,
        now: Millis,
        n: NodeId,
        c: ClientId,
        value: u64,
        px_ms: u64,
        out: &mut Effects,
    ) {
        let expires_at_clock = self.clock.read(now) + px_ms as i64;
        self.key = Some(RedisKey {
            owner: c,
            value,
            expires_at_clock,
            expiry: self.clock.when_reads(expires_at_clock, now),
            set_at: now,
        });
        out.record(Event::Service(ServiceEvent::RedisKeySet {
            node: n,
            client: c,
        }));
    }

    /// Runs one client command on this node, as Redis would.
    pub fn handle(
        &mut self,
        now: Millis,
        n: NodeId,
        c: ClientId,
        body: RedisMsg,
        out: &mut Effects,
    ) -> Handled {
        let live = self.live_key(now);
        if self.key.is_some() && live.is_none() && !self.down {
            self.expire(n, out); // Lazy expiry, as a GET would do.
        }
        let mut rearm = false;
        let reply = match body {
            RedisMsg::Set { round, .. }
            | RedisMsg::SetFence { round, .. }
            | RedisMsg::Extend { round, .. }
            | RedisMsg::Incr { round }
                if self.down =>
            {
                Some(RedisMsg::Refused { round })
            }
            RedisMsg::Set {
                value,
                px_ms,
                round,
            } => {
                let ok = live.is_none();
                if ok {
                    self.set_key(now, n, c, value, px_ms, out);
                    rearm = true;
                }
                Some(RedisMsg::SetReply { ok, round })
            }
            RedisMsg::SetFence {
                value,
                px_ms,
                round,
            } => {
                // One script: the key, and the fence counter only if the
                // key was taken.
                let fence = live.is_none().then(|| {
                    self.set_key(now, n, c, value, px_ms, out);
                    rearm = true;
                    self.fence += 1;
                    self.fence
                });
                Some(RedisMsg::SetFenceReply { fence, round })
            }
            RedisMsg::Incr { round } => {
                self.fence += 1;
                Some(RedisMsg::IncrReply {
                    fence: self.fence,
                    round,
                })
            }
            RedisMsg::Extend {
                value,
                px_ms,
                mode,
                round,
            } => {
                let mine = live.is_some_and(|k| k.value == value);
                // A blind SET takes the key whoever holds it: a renewal that
                // arrives after expiry silently re-acquires.
                let ok = mine || mode == ExtendMode::BlindSet;
                if mine {
                    let expires_at_clock = self.clock.read(now) + px_ms as i64;
                    if let Some(key) = self.key.as_mut() {
                        key.expires_at_clock = expires_at_clock;
                    }
                    self.resync_expiry(now);
                    rearm = true;
                } else if ok {
                    self.set_key(now, n, c, value, px_ms, out);
                    rearm = true;
                }
                Some(RedisMsg::ExtendReply { ok, round })
            }
            RedisMsg::Unlock { value, mode } => {
                let plain = mode == ReleaseMode::PlainDel;
                if let Some(key) = live.filter(|k| plain || k.value == value) {
                    self.key = None;
                    out.record(Event::Service(ServiceEvent::RedisKeyDeleted {
                        node: n,
                        owner: key.owner,
                        by: c,
                    }));
                }
                None
            }
            _ => None,
        };
        Handled { reply, rearm }
    }
}
