//! The Chubby paper's calls (there is no public client), and a client's
//! code in them as the Code view lists it: the worker's text, none of it
//! in the page's first load.

use super::{Chubby, ChubbyMsg};
use crate::sim::backend::real_client::{Listing, RealClient};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

const CHUBBY_FILE: &str = "/ls/cell/shared-counter";

impl RealClient for Chubby {
    type Names = ();

    fn message_text(
        config: &Config,
        _names: &mut (),
        _c: Option<ClientId>,
        m: &ChubbyMsg,
        _asked: Option<&ChubbyMsg>,
    ) -> String {
        let delay_s = config.chubby.lock_delay_ms / 1_000;
        match *m {
            ChubbyMsg::CreateSession => format!(
                "Open(\"{CHUBBY_FILE}\", write mode, lock-delay {delay_s} s)\n(the first Open creates the client's session; Chubby paper §2.8)"
            ),
            ChubbyMsg::SessionCreated { session, lease_ms } => {
                format!(
                    "handle on {CHUBBY_FILE}; session {session:x}, lease {} s",
                    lease_ms / 1_000
                )
            }
            ChubbyMsg::KeepAlive { session, seq } => format!(
                "KeepAlive(session {session:x}) #{seq}: the master holds it until the lease nearly ends (§2.8)"
            ),
            ChubbyMsg::KeepAliveReply {
                session,
                lease_after_ms,
                ..
            } => format!(
                "KeepAlive reply: session {session:x}'s lease now ends {} s after the master got the call (new lease timeout)",
                f64::from(lease_after_ms) / 1_000.0
            ),
            ChubbyMsg::SessionExpired { session } => {
                format!("session {session:x} expired: the master knows it no more (jeopardy, then grace, has run out)")
            }
            ChubbyMsg::Acquire { .. } => {
                format!("Acquire(handle on {CHUBBY_FILE}): exclusive; blocks until the lock is free and past its lock-delay")
            }
            ChubbyMsg::Acquired { generation, .. } => format!(
                "Acquire returns: lock held\nGetSequencer(handle) = {{name: \"{CHUBBY_FILE}\", mode: exclusive, lock generation: {generation}}}"
            ),
            ChubbyMsg::Release { session } => {
                format!("Release(handle on {CHUBBY_FILE}) (session {session:x})")
            }
        }
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        (fence == Some(FenceRule::LockHeld)).then_some(HELD)
    }
}

const CHUBBY_PAPER: &str =
    "https://research.google/pubs/the-chubby-lock-service-for-loosely-coupled-distributed-systems/";

const CLIENT: Listing = Listing {
    client: "Chubby's client API (OSDI '06, no public client)",
    lang: "cpp",
    text: "\
|h = @Open@(\"/ls/cell/widget-42\", WRITE);  // a handle in my session (section 2.6)
renew|// The library's KeepAlive RPCs extend the session lease (section 2.8).
|
idle|void job(int64 value) {
acquire|  @Acquire@(h);  // blocks while another holds it, and through its lock-delay
|  Sequencer seq = @GetSequencer@(h);  // name, mode, generation (section 2.4)
check|  if (!jeopardy) {  // the check: the library has not reported jeopardy
write|    resource.write(value, seq);  // the server asks @CheckSequencer@(seq)
|  }
release|  @Release@(h);
|}
|// The paper gives no code: the calls are its names, the syntax is ours.",
    api: &[
        ("Open", CHUBBY_PAPER),
        ("Acquire", CHUBBY_PAPER),
        ("GetSequencer", CHUBBY_PAPER),
        ("CheckSequencer", CHUBBY_PAPER),
        ("Release", CHUBBY_PAPER),
    ],
};

/// The resource's check: the server asks the lock service about each
/// write's sequencer.
const HELD: Listing = Listing {
    client: "the resource: CheckSequencer (OSDI '06, no public client)",
    lang: "cpp",
    text: "\
|// The server asks the lock service about each write (section 2.4).
|if (!@CheckSequencer@(w.sequencer)) return kRejected;  // not the current holder
|counter.Apply(w.value);  // the model checks and writes at one instant",
    api: &[("CheckSequencer", CHUBBY_PAPER)],
};
