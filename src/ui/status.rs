//! The status strip: who the service says holds the lock, with which token,
//! how many writes the resource rejected, the virtual clock, and the
//! verdict on the latest stale write, with its reason, where the eye is.

use super::Clock;
use crate::sim::Sim;
use crate::sim::{
    ClientId, FenceRule, Fencing, GrantSeen, RejectReason, StaleWrite, Standing, Token, TokenWords,
};
use crate::words::clock_at;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq, Properties)]
pub struct StatusProps {
    /// Where the clock stands; compared by when time's words were drawn.
    pub clock: Clock,
    pub running: bool,
    /// The service's holder.
    pub holder: Option<ClientId>,
    pub token: Option<Token>,
    /// How the run's lock system words its tokens.
    pub words: TokenWords,
    pub rejected: u64,
    /// Clients that believe they hold the lock, by their own view.
    pub believers: Vec<ClientId>,
    /// Stale writes the resource accepted.
    pub corruptions: u64,
    /// Stale writes fencing rejected.
    pub saves: u64,
    /// What became of the latest stale write, and why.
    pub verdict: Option<VerdictWords>,
    /// The counter as the resource holds it, and the increments written to it.
    pub counter: u64,
    pub increments: u64,
}

impl StatusProps {
    pub fn from_sim(sim: &Sim, running: bool) -> Self {
        let holder = sim.holder();
        StatusProps {
            clock: Clock::at(sim.now()),
            running,
            holder: holder.map(|h| h.client),
            token: holder.and_then(|h| h.token),
            words: TokenWords::of(sim.config().backend),
            rejected: sim.resource().rejected(),
            believers: sim.believers(),
            corruptions: sim.oracle().corruptions(),
            saves: sim.oracle().saves(),
            verdict: verdict_of(sim),
            counter: sim.resource().value(),
            increments: sim.resource().expected(),
        }
    }
}

/// The verdict on a stale write: a short first sentence that says what
/// happened, and the reason after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictWords {
    /// True for a corrupted counter, false for a write fencing stopped.
    pub corrupted: bool,
    pub head: String,
    pub why: String,
    /// True when the head is a whole sentence that needs no reason to be
    /// read: a phone shows it alone (its reason read to screen readers).
    pub alone: bool,
}

/// The verdict on the latest stale write that got through, or else on the
/// latest that fencing stopped: once corrupted, the counter stays so.
fn verdict_of(sim: &Sim) -> Option<VerdictWords> {
    let oracle = sim.oracle();
    let corrupted = oracle.corruptions() > 0;
    let write = oracle
        .stale_writes()
        .iter()
        .rev()
        .find(|s| s.standing == Standing::Stale && s.accepted == corrupted)?;
    let config = sim.config();
    let mut words = verdict_words(write, config.fencing, config.backend.fence_rule_in(config));
    if corrupted {
        let counter = sim.resource();
        let holder = sim.holder().map(|h| h.client);
        words = in_data_terms(words, write, counter.value(), counter.expected(), holder);
    }
    if oracle.corruptions() > 1 {
        words.why = format!(
            "{} ({} stale writes accepted in all.)",
            words.why,
            oracle.corruptions()
        );
    }
    Some(words)
}

/// The verdict on an accepted stale write, said as what it did to the data:
/// with an increment lost, the head counts it ("B's increment was lost: the
/// counter reads 1 after 2 increments") and the write's story follows; with
/// none lost yet, the head stays and the reason says what comes next.
fn in_data_terms(
    words: VerdictWords,
    write: &StaleWrite,
    value: u64,
    expected: u64,
    holder: Option<ClientId>,
) -> VerdictWords {
    let lost = expected.saturating_sub(value);
    let story = words
        .head
        .strip_prefix("Counter corrupted: ")
        .unwrap_or(&words.head)
        .to_string();
    let newer = write.newer.map(|g| g.client);
    if lost == 0 {
        // The new holder read the counter before this write, at its grant:
        // its own write, when it comes, puts back what it read plus one.
        let next = match newer.filter(|&n| Some(n) == holder) {
            Some(n) => format!(
                " Nothing is lost yet: {n} read the counter before this write, so {n}'s next write will overwrite {}'s increment.",
                write.client
            ),
            None => String::new(),
        };
        return VerdictWords {
            why: format!("{}{next}", words.why),
            ..words
        };
    }
    let increments = if expected == 1 {
        "increment"
    } else {
        "increments"
    };
    let head = match (lost, newer) {
        // The stale write overwrote the new holder's increment, or the new
        // holder's write (from a read made before it) overwrote the stale one.
        (1, Some(n)) if write.lost > 0 => {
            format!("{n}'s increment was lost: the counter reads {value} after {expected} {increments}.")
        }
        (1, _) => format!(
            "{}'s increment was lost: the counter reads {value} after {expected} {increments}.",
            write.client
        ),
        (n, _) => format!("{n} increments were lost: the counter reads {value} after {expected}."),
    };
    VerdictWords {
        corrupted: true,
        head,
        why: format!("{story} {}", words.why),
        alone: true,
    }
}

/// "A's write with token 1", or "A's write" where the system's writes
/// carry no token the page can name (DynamoDB's none, PostgreSQL's version).
fn write_words(write: &StaleWrite, rule: FenceRule) -> String {
    match (rule, write.token) {
        (FenceRule::Highest | FenceRule::LockHeld, Some(t)) => {
            format!("{}'s write with token {t}", write.client)
        }
        (FenceRule::Sequencer, Some(t)) => format!("{}'s write with LockIndex {t}", write.client),
        _ => format!("{}'s write", write.client),
    }
}

/// "after B was granted token 2", or "the lock" without a token to name.
fn granted_words(newer: Option<GrantSeen>, rule: FenceRule) -> String {
    match newer {
        Some(GrantSeen {
            client,
            token: Some(t),
        }) if matches!(rule, FenceRule::Highest | FenceRule::LockHeld) => {
            format!("after {client} was granted token {t}")
        }
        Some(GrantSeen { client, .. }) => format!("after {client} was granted the lock"),
        None => "after another client was granted the lock".into(),
    }
}

/// What the page says about a stale write, true to how each system's
/// resource checks it: by the highest token seen (six systems), by the
/// lock item's owner (DynamoDB, whose RVN is a random UUID), or by the
/// row's version (PostgreSQL, whose advisory lock has no token).
pub fn verdict_words(write: &StaleWrite, fencing: Fencing, rule: FenceRule) -> VerdictWords {
    if write.accepted {
        corrupted_words(write, fencing, rule)
    } else {
        VerdictWords {
            corrupted: false,
            head: stopped_head(write),
            why: stopped_why(write, rule),
            alone: true,
        }
    }
}

fn corrupted_words(write: &StaleWrite, fencing: Fencing, rule: FenceRule) -> VerdictWords {
    let what = write_words(write, rule);
    let after = granted_words(write.newer, rule);
    let newer = write
        .newer
        .map_or("the new holder".into(), |g| g.client.to_string());
    let (head, why) = match (fencing.is_on(), rule) {
        (false, FenceRule::Highest | FenceRule::LockHeld) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            "Fencing is off: nothing compared the tokens.".to_string(),
        ),
        (false, FenceRule::LockOwner) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            "Fencing is off: nothing asked the lock item who owns it (there is no token to compare: the RVN is a random UUID).".into(),
        ),
        (false, FenceRule::Version) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            "Fencing is off: a plain UPDATE, whatever version it had read (the advisory lock has no token).".into(),
        ),
        (true, FenceRule::Highest) if write.newer_token_unseen() => (
            format!("Counter corrupted: {what} was accepted:"),
            format!("the resource had not yet seen {newer}'s newer token. Fencing can only refuse a token older than one it has seen."),
        ),
        (true, FenceRule::Highest) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            format!("{newer}'s token is no newer than {}'s, so fencing could not tell the two apart.", write.client),
        ),
        (true, FenceRule::LockOwner) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            format!("The lock item names {} again: a condition on the owner cannot tell one of its grants from another.", write.client),
        ),
        (true, FenceRule::Version) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            format!("{}'s UPDATE named version {}, and the row was still at it, so it matched.",
                write.client, write.token.map_or(0, |t| t.0)),
        ),
        (false, FenceRule::Sequencer) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            "Fencing is off: nothing checked the write's sequencer against the lock key.".into(),
        ),
        (true, FenceRule::LockHeld) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            format!("The lock still held {}'s grant.", write.client),
        ),
        (true, FenceRule::Sequencer) => (
            format!("Counter corrupted: {what} was accepted {after}."),
            format!("The lock key still held {}'s LockIndex under its Session when the write arrived.", write.client),
        ),
    };
    // "was accepted:" leads into its reason, which a phone must show too.
    let alone = !(fencing.is_on() && rule == FenceRule::Highest && write.newer_token_unseen());
    VerdictWords {
        corrupted: true,
        head,
        why,
        alone,
    }
}

/// The first sentence when fencing refused the write, with its reason: the
/// one line a phone has room for.
fn stopped_head(write: &StaleWrite) -> String {
    let c = write.client;
    match write.reason {
        Some(RejectReason::TokenBelowHighest { token, highest }) => format!(
            "Fencing stopped {c}'s write with token {token}: the resource had already accepted token {highest}."
        ),
        Some(RejectReason::TokenBelowAnnounced { token, announced }) => format!(
            "Fencing stopped {c}'s write with token {token}: the resource had already seen token {announced}."
        ),
        Some(RejectReason::NotOwner {
            owner: Some(owner), ..
        }) => format!("Fencing stopped {c}'s write: the lock item names {owner} as its owner."),
        Some(RejectReason::NotOwner { owner: None, .. }) => {
            format!("Fencing stopped {c}'s write: the lock item names no owner.")
        }
        Some(RejectReason::VersionMoved { version, current }) => format!(
            "Fencing stopped {c}'s write: its UPDATE named version {}, and the row had moved on to version {}.",
            version.0, current.0
        ),
        Some(RejectReason::NotCurrentSequencer {
            lock_index,
            current,
            ..
        }) => match current {
            Some((index, _)) if index == lock_index => format!(
                "Fencing stopped {c}'s write with LockIndex {lock_index}: the lock key holds LockIndex {index} too, but under another Session."
            ),
            Some((index, _)) => format!(
                "Fencing stopped {c}'s write with LockIndex {lock_index}: the lock key holds LockIndex {index} under another Session."
            ),
            None => format!(
                "Fencing stopped {c}'s write with LockIndex {lock_index}: the lock key has no holder."
            ),
        },
        Some(RejectReason::NotLockHolder { current, .. }) => {
            let holds = current.map_or("nobody holds it".into(), |t| format!("it holds token {t}"));
            let what = write.token.map_or(String::new(), |t| format!(" with token {t}"));
            format!("Fencing stopped {c}'s write{what}: the lock no longer holds its grant; {holds}.")
        }
        Some(RejectReason::NotSessionHolder {
            holder: Some(holder),
            ..
        }) => format!(
            "Fencing stopped {c}'s write: it ran on {c}'s session, which no longer holds the advisory lock; {holder}'s does."
        ),
        Some(RejectReason::NotSessionHolder { holder: None, .. }) => format!(
            "Fencing stopped {c}'s write: it ran on {c}'s session, which no longer holds the advisory lock."
        ),
        Some(RejectReason::NoToken) => {
            format!("Fencing stopped {c}'s write: it carried no token.")
        }
        None => format!("Fencing stopped {c}'s write."),
    }
}

fn stopped_why(write: &StaleWrite, rule: FenceRule) -> String {
    if let Some(RejectReason::TokenBelowAnnounced { announced, .. }) = write.reason {
        return match write.newer {
            Some(g) if g.token == Some(announced) => format!(
                "{} announced it as it took over, before writing anything.",
                g.client
            ),
            _ => "Its new holder announced it as it took over, before writing anything.".into(),
        };
    }
    let newer = write.newer.map(|g| g.client);
    match (rule, newer) {
        (FenceRule::Highest, Some(b)) => {
            format!("{b} was granted the lock after {}: the counter is whole.", write.client)
        }
        (FenceRule::LockOwner, _) => "Each write is a transaction with a ConditionCheck on the lock item; no token could do this, as the RVN is a random UUID.".into(),
        (FenceRule::Version, _) => "The version lives with the data: the advisory lock has no token.".into(),
        (FenceRule::Sequencer, _) => "Consul's sequencer is the key, its LockIndex and the Session: the check asks the lock key whether the write belongs to its current holder.".into(),
        (FenceRule::LockHeld, _) => "The check on the lock and the write are one transaction: no write from the new holder is needed.".into(),
        (FenceRule::Highest, None) => "The counter is whole.".into(),
    }
}

fn names(clients: &[ClientId]) -> String {
    let letters: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
    match letters.len() {
        0 => "nobody".into(),
        1 => letters[0].clone(),
        n => format!("{} and {}", letters[..n - 1].join(", "), letters[n - 1]),
    }
}

/// The verdict's line before there is one: the counter in the same data
/// words, so the strip keeps its height when a verdict comes.
fn whole_words(counter: u64, increments: u64) -> String {
    let plural = if increments == 1 { "" } else { "s" };
    let reads = format!("the counter reads {counter} after {increments} increment{plural}");
    if counter >= increments {
        format!("Nothing lost yet: {reads}.")
    } else {
        format!("The{}.", &reads[3..])
    }
}

/// The strip as a component of its own: a frame drawn because the run
/// recorded something that changed nothing here (a message sent, a write
/// to the resource) skips it, clock and all (`super::Clock`).
#[component]
pub fn Status(props: &StatusProps) -> Html {
    status(props)
}

/// The strip's markup.
pub fn status(props: &StatusProps) -> Html {
    let holder = props.holder.map_or("nobody".to_string(), |c| c.to_string());
    // Worded as the cards, log and timeline word the same grant.
    let token = match props.holder {
        Some(_) => props.words.value(props.token),
        None => "—".to_string(),
    };
    let two = props.believers.len() >= 2;
    html! {
        <section class={classes!("status", (two || props.corruptions > 0).then_some("status--alarm"))}
            aria-label="Status">
            <dl class="status__facts">
                <div class="status__fact">
                    <dt>{ "holder" }</dt>
                    <dd class="status__value">{ holder }</dd>
                </div>
                <div class="status__fact">
                    <dt>{ "token" }</dt>
                    <dd class="status__value">{ token }</dd>
                </div>
                <div class={classes!("status__fact", (props.rejected > 0).then_some("status__fact--save"))}>
                    <dt>{ "rejected" }</dt>
                    <dd class="status__value" data-testid="rejected-count">{ props.rejected }</dd>
                </div>
                <div class="status__fact status__fact--clock">
                    <dt>{ "clock" }</dt>
                    <dd class="status__value status__clock">
                        { super::tick(clock_at(props.clock.now.ms())) }
                        <span class="status__run">{ if props.running { " running" } else { " stopped" } }</span>
                    </dd>
                </div>
            </dl>
            <p class="status__believers">
                if two {
                    <strong class="status__two">
                        <span aria-hidden="true">{ "⚠ " }</span>
                        { format!("{} {} believe they hold the lock", names(&props.believers),
                            if props.believers.len() == 2 { "both" } else { "all" }) }
                    </strong>
                } else {
                    { format!("believed holder: {}", names(&props.believers)) }
                }
            </p>
            if let Some(v) = &props.verdict {
                <p class={classes!("status__pill", "status__verdict",
                    if v.corrupted { "status__pill--corrupt" } else { "status__pill--save" },
                    v.alone.then_some("status__verdict--alone"))}>
                    <span aria-hidden="true">{ if v.corrupted { "✕ " } else { "✓ " } }</span>
                    <strong class="status__head">{ &v.head }</strong>
                    { " " }
                    <span class="status__why">{ &v.why }</span>
                </p>
            } else {
                <p class="status__verdict status__verdict--whole">
                    { whole_words(props.counter, props.increments) }
                </p>
            }
        </section>
    }
}
