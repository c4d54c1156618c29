//! The protected resource, "shared-counter": what it accepted, and the
//! banner that says when a stale write got through or was stopped; and its
//! one-line summary for the stage under the client cards.

use super::state::Action;
use crate::sim::Sim;
use crate::sim::RESOURCE_NAME;
use crate::sim::{
    Config, FenceMode, FenceRule, Fencing, RejectReason, StaleWrite, Standing, Token,
};
use crate::words::{seconds_1, token};

use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ResourcePanelProps {
    pub value: u64,
    /// What the counter would read had no increment been lost.
    pub expected: u64,
    pub highest: Option<Token>,
    pub accepted: u64,
    pub rejected: u64,
    pub fencing: Fencing,
    pub corruptions: u64,
    pub saves: u64,
    /// The latest stale write the resource accepted.
    pub last_corruption: Option<StaleWrite>,
    /// The latest stale write fencing rejected.
    pub last_save: Option<StaleWrite>,
    /// The latest write accepted from a client whose lease was gone while
    /// nobody else had been granted the lock: no corruption.
    pub last_without_lease: Option<StaleWrite>,
    pub writes_without_lease: u64,
    /// How the resource checks a write with fencing on, and whether it
    /// lives in the lock service's own server.
    pub rule: FenceRule,
    pub in_service: Option<&'static str>,
    /// The fencing mode the run uses (never `Documented`: resolved for the
    /// system), and the highest token a new holder announced.
    pub mode: FenceMode,
    pub announced: Option<Token>,
    /// The run's settings and the page's dispatch, for the fencing mode's
    /// choice (a fresh run); without a dispatch it is not offered.
    pub config: Config,
    pub dispatch: Option<Callback<Action>>,
}

impl ResourcePanelProps {
    pub fn from_sim(sim: &Sim) -> Self {
        let resource = sim.resource();
        let oracle = sim.oracle();
        let stale = oracle.stale_writes();
        ResourcePanelProps {
            value: resource.value(),
            expected: resource.expected(),
            highest: resource.highest(),
            accepted: resource.accepted(),
            rejected: resource.rejected(),
            fencing: sim.config().fencing,
            corruptions: oracle.corruptions(),
            saves: oracle.saves(),
            last_corruption: stale
                .iter()
                .rev()
                .find(|s| s.accepted && s.standing.is_stale())
                .copied(),
            last_save: stale
                .iter()
                .rev()
                .find(|s| !s.accepted && s.standing.is_stale())
                .copied(),
            last_without_lease: stale
                .iter()
                .rev()
                .find(|s| s.accepted && s.standing == Standing::WithoutLease)
                .copied(),
            writes_without_lease: oracle.writes_without_lease(),
            rule: sim.config().backend.fence_rule_in(sim.config()),
            in_service: {
                let backend = sim.config().backend;
                backend.resource_in_service().then(|| backend.name())
            },
            mode: sim.config().backend.fence_mode_in(sim.config()),
            announced: resource.announced(),
            config: sim.config().clone(),
            dispatch: None,
        }
    }

    /// The props with the page's dispatch: the fencing mode can be chosen.
    pub fn with_dispatch(self, dispatch: Callback<Action>) -> Self {
        ResourcePanelProps {
            dispatch: Some(dispatch),
            ..self
        }
    }
}

fn holder_words(stale: &StaleWrite) -> String {
    match stale.holder {
        Some(h) => format!("while the service said {h} held the lock"),
        None => "while the service said nobody held the lock".into(),
    }
}

/// "Two holders, one increment lost: the counter reads 1 after 2 increments".
fn lost_words(lost: u64, value: u64, expected: u64) -> String {
    let what = if lost == 1 {
        "one increment lost".to_string()
    } else {
        format!("{lost} increments lost")
    };
    format!("Two holders, {what}: the counter reads {value} after {expected} increments")
}

fn corruption_banner(props: &ResourcePanelProps) -> Html {
    let Some(stale) = props.last_corruption else {
        return html! {};
    };
    let more = if props.corruptions > 1 {
        format!(" ({} stale writes accepted so far.)", props.corruptions)
    } else {
        String::new()
    };
    html! {
        <div class="banner banner--corrupt" role="alert">
            <p class="banner__title">
                <span class="banner__mark" aria-hidden="true">{ "✕" }</span>
                { if props.expected > props.value {
                    lost_words(props.expected - props.value, props.value, props.expected)
                } else {
                    "Two holders, one corrupted counter".to_string()
                } }
            </p>
            <p class="banner__text">
                { format!(
                    "At t={} {} wrote with {} {}, and the counter took it: it wrote what it had read before, plus one, over any increment made since. {}{more}",
                    seconds_1(stale.at.ms()),
                    stale.client,
                    token(stale.token),
                    holder_words(&stale),
                    match (props.fencing.is_on(), props.rule) {
                        (true, FenceRule::Version) => "Fencing is on, but the row was still at the version it had read, so its UPDATE matched.",
                        (true, FenceRule::LockOwner) => "Fencing is on, but the lock item names this writer again: a condition on the owner cannot tell one of its grants from another.",
                        (true, FenceRule::Sequencer) => "Fencing is on, but the lock key still held this writer's LockIndex under its Session when the write arrived.",
                        (true, FenceRule::LockHeld) => "Fencing is on, but the lock still held this writer's grant.",
                        (true, FenceRule::Highest) if props.mode == FenceMode::Takeover => "Fencing is on, but no newer token had reached the counter, in a write or announced, so it could not tell.",
                        (true, FenceRule::Highest) => "Fencing is on, but the counter had seen no newer token, so it could not tell.",
                        (false, _) => "Fencing is off: nothing compared the token.",
                    },
                ) }
            </p>
        </div>
    }
}

fn save_banner(props: &ResourcePanelProps) -> Html {
    let Some(stale) = props.last_save else {
        return html! {};
    };
    let title = match stale.token {
        Some(t) => format!("Stale token {t} rejected: fencing saved the counter"),
        None => "Stale write without a token rejected: fencing saved the counter".into(),
    };
    let highest = props.highest.map_or("none".to_string(), |t| t.to_string());
    let why = match props.rule {
        // DynamoDB: no token, a condition on the lock item instead.
        FenceRule::LockOwner => "The write was a transaction with a ConditionCheck that the lock item names its writer, and the item names another owner, so it refused the write. No token could have done this: the RVN is a random UUID, and cannot be ordered.".to_string(),
        FenceRule::Version => format!(
            "Its UPDATE named the version it had read, and the row had moved on to version {}, so it matched no row.",
            props.value
        ),
        FenceRule::Sequencer => match stale.reason {
            Some(reason @ RejectReason::NotCurrentSequencer { .. }) => format!("The counter checked the write's sequencer against the lock key: {reason}. A LockIndex alone could not have told them apart after the key was deleted."),
            _ => "The counter checked the write's sequencer against the lock key, and it is not the current holder's, so it refused the write.".to_string(),
        },
        FenceRule::LockHeld => format!(
            "The write was one transaction with {}: {}.",
            // Each system that checks the lock so names its check.
            props.config.backend.held_check().unwrap_or_default(),
            stale.reason.map_or(String::new(), |r| r.to_string())
        ),
        FenceRule::Highest => match stale.reason {
            Some(RejectReason::TokenBelowAnnounced { announced, .. }) => format!("No write had shown the counter a newer token, but the new holder announced token {announced} as it took over, so it refused the write."),
            _ => format!("The highest token the counter had accepted is {highest}, so it refused the write."),
        },
    };
    html! {
        <div class="banner banner--save" role="status">
            <p class="banner__title">
                <span class="banner__mark" aria-hidden="true">{ "✓" }</span>
                { title }
            </p>
            <p class="banner__text">
                { format!(
                    "At t={} {} wrote with {} {}. {why}",
                    seconds_1(stale.at.ms()),
                    stale.client,
                    token(stale.token),
                    holder_words(&stale),
                ) }
            </p>
        </div>
    }
}

/// A late write that harmed nothing: said plainly, so it is not mistaken
/// for the corruption (or for fencing failing).
fn without_lease_note(props: &ResourcePanelProps) -> Html {
    let Some(w) = props.last_without_lease else {
        return html! {};
    };
    html! {
        <p class="panel__note resource__no-lease" role="status">
            <span aria-hidden="true">{ "○ " }</span>
            { format!(
                "Write without a lease: at t={} {} wrote with {} after its lease ran out, but nobody else had been granted the lock since, so nothing was corrupted{}. ({} so far.)",
                seconds_1(w.at.ms()),
                w.client,
                token(w.token),
                if props.fencing.is_on() { ", and fencing rightly let it through: its token is still the highest" } else { "" },
                props.writes_without_lease
            ) }
        </p>
    }
}

#[component]
pub fn ResourcePanel(props: &ResourcePanelProps) -> Html {
    let highest = props.highest.map_or("—".to_string(), |t| t.to_string());
    let rule = match (props.fencing.is_on(), props.rule) {
        (true, FenceRule::Version) => "Fencing on, with the version column: a write is UPDATE ... SET version = version + 1 WHERE version = n, n being the version its writer read, and it matches no row once the version has moved on.",
        (true, FenceRule::LockOwner) => "Fencing on: each write is a transaction with a ConditionCheck on the lock item, accepted only while the item names the writer as its owner.",
        (true, FenceRule::Sequencer) => "Fencing on, with Consul's sequencer: each write carries its LockIndex and Session, and is accepted only while the lock key holds that LockIndex under that Session.",
        (true, FenceRule::LockHeld) => "Fencing on: each write is one transaction with a check that the lock still holds its writer's grant.",
        (true, FenceRule::Highest) if props.mode == FenceMode::Takeover => "Fencing on: it accepts a write only if its token is at least the highest it has accepted or heard announced.",
        (true, FenceRule::Highest) => "Fencing on: it accepts a write only if its token is at least the highest it has accepted.",
        (false, FenceRule::Version) => "Fencing off: a plain UPDATE, accepted whatever version its writer read.",
        (false, _) => "Fencing off: it accepts every write, whatever the token.",
    };
    let knows = match props.rule {
        FenceRule::Version => "The version lives with the data, so the check needs no earlier write to learn from: a write that names a version the row has left behind matches nothing.",
        FenceRule::LockOwner => "There is no token to compare: the lock client's RVN is a random UUID, new every heartbeat, unique but not ordered. The check asks the lock item itself, at the moment the write arrives.",
        FenceRule::Sequencer => "The docs define the sequencer as (Key, LockIndex, Session), used to verify that a request belongs to the current lock holder: the check reads the lock key at the moment the write arrives. The Session tells two holders apart even when a deleted key has started LockIndex at 1 again.",
        FenceRule::LockHeld => "The check asks the lock itself, as the write is made: once A's grant is gone (its lease run out, or on PostgreSQL its session ended), A's write is refused even if B never wrote.",
        FenceRule::Highest if props.mode == FenceMode::Takeover => "The resource knows the tokens it has seen in writes and the ones new holders announced as they took over: it can refuse A's old token as soon as B's announcement arrives, even if B never writes. The announcement is a message like any other: delayed or lost, it protects nothing.",
        FenceRule::Highest => "The resource only knows the tokens it has seen in writes. It can refuse A's old token only because B's write already showed it a newer one; without that write it would have nothing to compare against.",
    };
    html! {
        <section class="panel resource" aria-label="Resource">
            <h2 class="panel__title">
                { "Resource " }<code class="resource__name">{ RESOURCE_NAME }</code>
            </h2>
            // The choice above the banners and facts, which grow as writes land.
            { fence_choice(props) }
            { corruption_banner(props) }
            { save_banner(props) }
            { without_lease_note(props) }
            <dl class="resource__facts">
                <div><dt>{ if props.rule == FenceRule::Version { "value = version" } else { "value" } }</dt><dd>{ props.value }</dd></div>
                <div><dt>{ "increments (one per accepted write)" }</dt><dd>{ props.expected }</dd></div>
                if props.expected > props.value {
                    <div class="resource__lost"><dt>{ "increments lost" }</dt><dd>{ props.expected - props.value }</dd></div>
                }
                <div><dt>{ "highest accepted token" }</dt><dd>{ highest }</dd></div>
                if props.mode == FenceMode::Takeover && props.rule == FenceRule::Highest {
                    <div><dt>{ "highest announced token" }</dt><dd>{ props.announced.map_or("—".to_string(), |t| t.to_string()) }</dd></div>
                }
                <div><dt>{ "accepted" }</dt><dd>{ props.accepted }</dd></div>
                <div><dt>{ "rejected" }</dt><dd>{ props.rejected }</dd></div>
            </dl>
            if let Some(server) = props.in_service {
                <p class="panel__note resource__in-service">
                    { format!("Here the lock and the data live in one {server} server: the counter is a row, its value is the row's version column, and a client cut off from the lock is cut off from the data too.") }
                </p>
            }
            <p class="panel__note">{ rule }</p>
            <p class="panel__note">{ knows }</p>
        </section>
    }
}

/// The choice of fencing mode, listing only the modes this system offers
/// and naming the one its clients document; a change starts a fresh run.
fn fence_choice(props: &ResourcePanelProps) -> Html {
    let Some(dispatch) = props.dispatch.as_ref() else {
        return html! {};
    };
    let backend = props.config.backend;
    let modes = backend.fence_modes();
    if modes.len() < 2 {
        return html! {};
    }
    let documented = backend.documented_fence(&props.config);
    let config = props.config.clone();
    let onchange = dispatch.reform(move |e: Event| {
        let word = super::browser::value_of(&e);
        let mode = modes.iter().copied().find(|m| m.word() == word);
        Action::Reconfigure(Config {
            // The documented mode is left unnamed, so links stay as they were.
            fence: mode.filter(|&m| m != documented).unwrap_or_default(),
            ..config.clone()
        })
    });
    html! {
        <div class="resource__mode">
            <label class="field" for="fence-mode">
                <span class="field__label">{ "Fencing mode" }</span>
                <select id="fence-mode" class="field__select" {onchange}
                    aria-describedby="fence-mode-note">
                    { for modes.iter().map(|&m| html! {
                        <option value={m.word()} selected={m == props.mode}>
                            { m.label() }{ match (m == documented, m) {
                                // An ORM's pattern, not the system's own: the page's default.
                                (true, FenceMode::Version) => " (the stories' default)",
                                (true, _) => " (documented)",
                                _ => "",
                            } }
                        </option>
                    }) }
                </select>
            </label>
            <p class="panel__note" id="fence-mode-note">
                { if documented == FenceMode::Version {
                    format!("{}'s stories fence with {}, an application's pattern rather than {}'s own; holding the lock and the data in one server, it can check the lock in the write's own transaction instead. Starts a fresh run.", backend.name(), documented.label(), backend.name())
                } else {
                    format!("{} documents {}. Starts a fresh run.", backend.name(), documented.label())
                } }
            </p>
        </div>
    }
}

/// The resource in one or two lines, for the stage under the client cards:
/// its value, the highest token it has accepted (or what it checks instead),
/// and what it made of the latest write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceLineProps {
    pub value: u64,
    /// One per accepted write: what the counter would read had none been lost.
    pub expected: u64,
    pub highest: Option<Token>,
    pub announced: Option<Token>,
    pub rule: FenceRule,
    pub fencing: Fencing,
    /// The latest write the resource decided on, whoever sent it.
    pub last: Option<StaleWrite>,
}

impl ResourceLineProps {
    pub fn from_sim(sim: &Sim) -> Self {
        let resource = sim.resource();
        ResourceLineProps {
            value: resource.value(),
            expected: resource.expected(),
            highest: resource.highest(),
            announced: resource.announced(),
            rule: sim.config().backend.fence_rule_in(sim.config()),
            fencing: sim.config().fencing,
            last: sim.oracle().last_write().copied(),
        }
    }
}

/// What the resource compares, in a few words: the highest token for six
/// systems, the lock item's owner for DynamoDB, the row's version for
/// PostgreSQL.
fn checks_words(props: &ResourceLineProps) -> String {
    let value = counter_words(props.value, props.expected);
    let facts = match props.rule {
        FenceRule::Highest => {
            let highest = props.highest.map_or("none".into(), |t| t.to_string());
            match props.announced.filter(|&a| Some(a) > props.highest) {
                Some(a) => {
                    format!("{value} · highest accepted token {highest}, announced {a}")
                }
                None => format!("{value} · highest accepted token {highest}"),
            }
        }
        FenceRule::LockOwner => format!("{value} · no token"),
        FenceRule::Version => format!("{value} (= row version)"),
        FenceRule::Sequencer => format!("{value} · sequencer: LockIndex and Session"),
        FenceRule::LockHeld => format!("{value} · written in one transaction with the lock"),
    };
    let check = match (props.fencing.is_on(), props.rule) {
        (false, _) => "fencing off: nothing is checked",
        (true, FenceRule::Highest) => "fencing refuses lower tokens",
        (true, FenceRule::LockOwner) => "fencing asks the lock item's owner",
        (true, FenceRule::Version) => "fencing: UPDATE … WHERE version = n",
        (true, FenceRule::Sequencer) => {
            "fencing asks the lock key for the writer's LockIndex and Session"
        }
        (true, FenceRule::LockHeld) => "fencing checks the lock still holds the writer's grant",
    };
    format!("{facts} · {check}")
}

/// The counter against what it should read: "counter 2 of 2 increments",
/// or "counter 1 of 2 increments: 1 lost".
fn counter_words(value: u64, expected: u64) -> String {
    let increments = if expected == 1 {
        "increment"
    } else {
        "increments"
    };
    match expected.saturating_sub(value) {
        0 => format!("counter {value} after {expected} {increments}"),
        lost => format!("counter {value} after {expected} {increments}: {lost} lost"),
    }
}

/// The latest write's verdict: the mark and the word say it, not colour alone.
fn last_write_words(props: &ResourceLineProps) -> (&'static str, &'static str, String) {
    let Some(w) = props.last else {
        return ("", "none", "no write yet".into());
    };
    let what = match (props.rule, w.token) {
        (FenceRule::Highest | FenceRule::LockHeld, Some(t)) => {
            format!("{} with token {t}", w.client)
        }
        (FenceRule::Version, Some(v)) => format!("{} naming version {}", w.client, v.0),
        (FenceRule::Sequencer, Some(t)) => {
            format!("{} with LockIndex {t} and its Session", w.client)
        }
        _ => w.client.to_string(),
    };
    match (w.accepted, w.standing) {
        (true, Standing::Stale) => (
            "✕ ",
            "corrupt",
            if w.lost > 0 {
                let n = w.lost;
                let inc = if n == 1 { "increment" } else { "increments" };
                format!("{what}: accepted though stale, overwrote {n} {inc}")
            } else {
                format!("{what}: corrupted (accepted, stale)")
            },
        ),
        (true, Standing::WithoutLease) => (
            "○ ",
            "accepted",
            format!("{what}: accepted without a lease, nothing harmed"),
        ),
        (true, Standing::Holder) => ("", "accepted", format!("{what}: accepted")),
        (false, Standing::Stale) => ("✓ ", "save", format!("{what}: rejected (stale)")),
        (false, _) => ("", "rejected", format!("{what}: rejected")),
    }
}

/// The resource's line on the stage.
pub fn resource_line(props: &ResourceLineProps) -> Html {
    let (mark, kind, verdict) = last_write_words(props);
    html! {
        <div class="resource-line" role="group" aria-label="Resource at a glance">
            <p class="resource-line__facts">
                <code class="resource__name">{ RESOURCE_NAME }</code>
                { format!(" {}", checks_words(props)) }
            </p>
            <p class={classes!("resource-line__last", format!("resource-line__last--{kind}"))}
                data-testid="resource-last-write">
                { "last write: " }
                <span aria-hidden="true">{ mark }</span>
                { verdict }
            </p>
        </div>
    }
}
