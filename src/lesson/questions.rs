//! Predict, then see: the question a tour asks before a key moment plays.
//!
//! A question is found in the run, as the moment is: its right answer is
//! what the run does at that moment (a write accepted or rejected, the old
//! holder still believing or not), so it is fair on every system, seed and
//! setting. Each answer carries its own explanation: for the right one,
//! why it holds and where it shows; for a wrong one, the misconception it
//! rests on. The words are a few templates filled from the run.

use crate::sim::{
    Backend, ClientId, Event, FenceRule, Fencing, Record, ServiceEvent, Standing, Token, TokenWords,
};

/// The run's settings a question's words depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub backend: Backend,
    pub fencing: Fencing,
    /// How the resource checks a write with fencing on
    /// (`Backend::fence_rule_in`): the run's fencing mode decides it, not
    /// the system alone.
    pub rule: FenceRule,
}

/// A prediction: the question, its answers, and which one the run bears out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub ask: String,
    pub answers: Vec<Answer>,
    pub right: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    /// For the right answer, why it holds and what shows it; for a wrong
    /// one, the misconception behind it.
    pub why: String,
}

impl Question {
    /// The answer the run bears out.
    pub fn right_answer(&self) -> &Answer {
        &self.answers[self.right]
    }
}

fn answer(text: String, why: String) -> Answer {
    Answer { text, why }
}

/// The question before the moment `event` (found after `before`), if any:
/// before A's write lands, and before the lock changes hands. With fencing
/// on (the story replayed with its fix) only the write's question is
/// asked: the handover goes as it did, and the question is what fencing
/// does with the late write.
pub fn ask(before: &[Record], event: &Event, setting: Setting) -> Option<Question> {
    let fenced = setting.fencing.is_on();
    match event {
        Event::WriteAccepted { client, .. } | Event::WriteRejected { client, .. }
            if *client == ClientId::ALL[0] =>
        {
            Some(landing(event, setting))
        }
        Event::Acquired { client, .. } if !fenced => {
            let old = last_holder_other_than(before, *client)?;
            Some(takeover(before, *client, old))
        }
        Event::Service(ServiceEvent::DynamoItemPut {
            client,
            replaced: Some(old),
            ..
        }) if old != client && !fenced => Some(takeover(before, *client, *old)),
        _ => None,
    }
}

/// What the write carries for the resource to judge it by: a token, or
/// the row version its writer read where the lock grants no token.
fn carries(token: Option<Token>, backend: Backend) -> String {
    match (TokenWords::of(backend), token) {
        (TokenWords::RowVersion, Some(v)) => format!("it read version {}", v.0),
        (_, t) => crate::words::token(t),
    }
}

/// Before a write of A's lands: accept, reject, or never arrive.
/// What fences a write under `rule`, as a question names it; a check in
/// the lock's own store in the system's words (`held_check`).
fn fenced_by(rule: FenceRule, backend: Backend) -> String {
    match rule {
        FenceRule::Highest => "the token check".into(),
        FenceRule::LockOwner => "the owner check on the lock item".into(),
        FenceRule::Version => "the version column".into(),
        FenceRule::Sequencer => "the sequencer check".into(),
        FenceRule::LockHeld => match backend.held_check() {
            Some(check) => format!("the lock check ({check})"),
            None => "the lock check".into(),
        },
    }
}

fn landing(event: &Event, setting: Setting) -> Question {
    let Setting {
        backend,
        fencing,
        rule,
    } = setting;
    let (client, token, rejected, standing) = match event {
        Event::WriteRejected {
            client,
            token,
            reason,
            standing,
        } => (*client, *token, Some(reason), *standing),
        Event::WriteAccepted {
            client,
            token,
            standing,
            ..
        } => (*client, *token, None, *standing),
        _ => unreachable!("landing questions are asked of writes only"),
    };
    // What fences writes with this run's settings.
    let fence = fenced_by(rule, backend);
    let (accept, reject) = match (&rejected, standing, fencing) {
        (Some(reason), ..) => (
            format!("Believing it holds the lock is not holding it: {fence} compares the write with what the resource has seen, and {reason}."),
            format!("Rejected: {fence} tells it is old, {reason}. The resource panel counts it rejected; the counter is safe."),
        ),
        (None, Standing::Stale, Fencing::Off) => (
            format!("Accepted: with fencing off the resource checks nothing, and {client} believes it holds the lock. {client} read the counter before the new holder wrote, and writes back what it read plus one: the new holder's increment is lost (see the counter against its increments on the resource panel)."),
            "The resource does not know who holds the lock: only fencing could turn this write away, and fencing is off.".into(),
        ),
        (None, Standing::Stale, Fencing::On) => (
            format!("Accepted: {fence} passes it, though {client} no longer holds the lock. See the resource panel."),
            format!("Fencing turns away only what it can tell is old, and this write passes {fence} though {client} is no longer the holder."),
        ),
        (None, _, _) => (
            format!("Accepted: nobody else has held the lock since {client} got it, so nothing stands against the write. See the resource panel."),
            format!("A pause or a lease running out does not make a write wrong: only a newer holder does, and nobody else has had the lock since {client}."),
        ),
    };
    let right = usize::from(rejected.is_some());
    Question {
        ask: if fencing.is_on() {
            format!(
                "What will the resource do with {client}'s write ({}), now that fencing is on and it checks with {fence}?",
                carries(token, backend)
            )
        } else {
            format!(
                "What will the resource do with {client}'s write ({})?",
                carries(token, backend)
            )
        },
        answers: vec![
            answer("It accepts the write".into(), accept),
            answer("It rejects the write".into(), reject),
            answer(
                "The write never arrives".into(),
                format!("A pause or a slow network delays a write, it does not cancel it: nothing calls it back once {client} has sent it."),
            ),
        ],
        right,
    }
}

/// The last client other than `taker` that the lock was granted to.
fn last_holder_other_than(before: &[Record], taker: ClientId) -> Option<ClientId> {
    before.iter().rev().find_map(|r| match r.event {
        Event::Acquired { client, .. } if client != taker => Some(client),
        _ => None,
    })
}

/// What `old` last did about its belief before the moment: an `Acquired`
/// means it still believes it holds the lock.
fn belief_end(before: &[Record], old: ClientId) -> Option<&Event> {
    before.iter().rev().map(|r| &r.event).find(|e| {
        matches!(e,
            Event::Acquired { client, .. }
            | Event::Released { client }
            | Event::Lost { client, .. }
            | Event::Crashed { client }
            | Event::Exited { client } if *client == old)
    })
}

/// Before the lock changes hands: does the old holder still believe?
fn takeover(before: &[Record], taker: ClientId, old: ClientId) -> Question {
    let (right, believes, knows) = match belief_end(before, old) {
        Some(Event::Acquired { .. }) => (
            0,
            format!("{old} still believes it holds the lock: nobody told it. Its card says so while the lock service panel names {taker}."),
            format!("Nothing tells {old}: the service hands the lock on by its own clock and its own data, not {old}'s, and {old} learns only when it next hears from the service."),
        ),
        Some(Event::Released { .. }) => (
            1,
            format!("The service took nothing from {old}: {old} released the lock itself, and {taker} was next."),
            format!("{old} released the lock itself before the service gave it to {taker}. Its card shows it idle."),
        ),
        Some(Event::Lost { .. }) => (
            1,
            format!("{old} heard in time: its library saw the lease end and told it before {taker} was granted the lock."),
            format!("{old} already knows its lease is over: its card says why."),
        ),
        _ => (
            1,
            format!("A process that is gone believes nothing: {old} crashed, and its belief went with it."),
            format!("{old} believes nothing: its process is gone. Its card shows it down."),
        ),
    };
    Question {
        ask: format!("When {taker} gets the lock, what will {old} believe?"),
        answers: vec![
            answer(format!("{old} still believes it holds it"), believes),
            answer(format!("{old} no longer believes it holds it"), knows),
        ],
        right,
    }
}
