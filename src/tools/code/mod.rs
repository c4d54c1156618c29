//! Where each client is in its own code, for the Code view: the operation
//! a real client would be executing, read off the client's state in the
//! core at the playhead (`Sim::client_view` and the messages it has on the
//! wire). The listings themselves are drawn by the worker
//! (`draw.rs`), each line tagged with the operation it belongs
//! to; the page marks, per client, the lines of the operation named here.

pub mod draw;
pub mod message;

use crate::sim::{Belief, Body, ClientId, ClientView, LastWrite, Sim};
use crate::sim::{Command, Endpoint};

/// One operation of a client's code, as its listing groups its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Inside `acquire()`: asking, or blocked behind another holder.
    Acquire,
    /// Holding, at the check before the write: the lock is believed held.
    Check,
    /// Inside the write carrying its fence: a pause that strikes here has
    /// already passed the check.
    Write,
    /// A renewal (extend, keepalive, heartbeat) on the wire.
    Renew,
    /// A release on the wire.
    Release,
    /// Not in any lock call: before the first acquire or after a release.
    Idle,
}

impl Op {
    pub const ALL: [Op; 6] = [
        Op::Acquire,
        Op::Check,
        Op::Write,
        Op::Renew,
        Op::Release,
        Op::Idle,
    ];

    /// Its word in the listing's markup (`data-op`) and the page's
    /// attributes that mark it.
    pub fn slug(self) -> &'static str {
        match self {
            Op::Acquire => "acquire",
            Op::Check => "check",
            Op::Write => "write",
            Op::Renew => "renew",
            Op::Release => "release",
            Op::Idle => "idle",
        }
    }
}

/// The operation a client is in, from its card's view and the bodies of
/// the messages it has sent that are still on the wire; `None` for a
/// crashed client, whose code runs no more.
///
/// A paused holder is inside its write: the pause struck after the check
/// that said "held" and before the write left, which is the lesson. A
/// write clicked during the pause waits in `queued` and leaves on waking.
pub fn op_of<'a>(view: &ClientView, sending: impl IntoIterator<Item = &'a Body>) -> Option<Op> {
    if view.crashed {
        return None;
    }
    let (mut renew, mut release) = (false, false);
    for body in sending {
        if let Body::Lock(m) = body {
            renew |= m.renews();
            release |= m.releases();
        }
    }
    let writing = view.last_write == Some(LastWrite::InFlight)
        || view
            .queued
            .iter()
            .any(|c| matches!(c, Command::Write | Command::WriteDelayed { .. }));
    Some(match view.belief {
        Belief::Acquiring | Belief::Waiting { .. } => Op::Acquire,
        Belief::Holding { .. } if writing || view.paused_until.is_some() => Op::Write,
        Belief::Holding { .. } if renew => Op::Renew,
        Belief::Holding { .. } => Op::Check,
        // A write sent by a client that has since learnt its lease is gone
        // is still in its write call until the reply comes.
        Belief::Idle if writing => Op::Write,
        Belief::Idle if release => Op::Release,
        Belief::Idle => Op::Idle,
    })
}

/// Each client's operation at the sim's present, A to D.
pub fn ops(sim: &Sim) -> [Option<Op>; 4] {
    ClientId::ALL.map(|c| {
        let sending = sim
            .in_flight()
            .filter(|m| m.from == Endpoint::Client(c))
            .map(|m| &m.body);
        op_of(&sim.client_view(c), sending)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{ClientState, EtcdMsg, Millis, Msg, PgMsg, ResourceMsg, Token};

    fn view(belief: Belief) -> ClientView {
        ClientView {
            id: ClientId::ALL[0],
            state: ClientState::Idle,
            belief,
            paused_until: None,
            partition: None,
            crashed: false,
            exited: false,
            renewal: true,
            zk_conn: None,
            chubby: None,
            queued: Vec::new(),
            last_write: None,
            judged: None,
            lost: None,
            service_until: None,
            stale: false,
            clock_offset_ms: 0,
            clock_rate_pct: 0,
            losing: false,
            read: 0,
        }
    }

    const HOLDING: Belief = Belief::Holding {
        token: Some(Token(1)),
        lease_key: 1,
        since: Millis(0),
        until: None,
    };

    #[test]
    fn each_state_is_at_its_operation() {
        assert_eq!(op_of(&view(Belief::Idle), []), Some(Op::Idle));
        assert_eq!(op_of(&view(Belief::Acquiring), []), Some(Op::Acquire));
        let waiting = Belief::Waiting { token: None };
        assert_eq!(op_of(&view(waiting), []), Some(Op::Acquire));
        assert_eq!(op_of(&view(HOLDING), []), Some(Op::Check));
        let paused = ClientView {
            paused_until: Some(Millis(8_000)),
            ..view(HOLDING)
        };
        assert_eq!(op_of(&paused, []), Some(Op::Write), "paused inside write()");
        let queued = ClientView {
            queued: vec![Command::Write],
            ..view(HOLDING)
        };
        assert_eq!(op_of(&queued, []), Some(Op::Write));
        let crashed = ClientView {
            crashed: true,
            ..view(HOLDING)
        };
        assert_eq!(op_of(&crashed, []), None);
    }

    #[test]
    fn messages_on_the_wire_name_renewals_and_releases() {
        let keepalive = Body::Lock(Msg::Etcd(EtcdMsg::KeepAlive { lease: 1 }));
        let unlock = Body::Lock(Msg::Postgres(PgMsg::Unlock { pid: 7 }));
        let write = Body::Resource(ResourceMsg::Write {
            token: None,
            lease_key: 1,
            value: 1,
        });
        assert_eq!(op_of(&view(HOLDING), [&keepalive]), Some(Op::Renew));
        assert_eq!(op_of(&view(Belief::Idle), [&unlock]), Some(Op::Release));
        // A ping from an idle session renews no lock.
        assert_eq!(op_of(&view(Belief::Idle), [&keepalive]), Some(Op::Idle));
        // A write in flight outranks a renewal beside it.
        let writing = ClientView {
            last_write: Some(LastWrite::InFlight),
            ..view(HOLDING)
        };
        assert_eq!(op_of(&writing, [&keepalive, &write]), Some(Op::Write));
    }
}
