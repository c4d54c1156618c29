//! The stage's summary of the lock service: who it says holds the lock,
//! how long its lease has left at the service, and with which token. One
//! line, the same for all eight systems, read off what the service itself
//! says (`Sim::holder`), not what any client believes.

use super::Clock;
use crate::sim::{Backend, ClientId, Millis, Sim, Token, TokenWords};
use crate::words::seconds_1;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq, Properties)]
pub struct ServiceLineProps {
    pub backend: Backend,
    /// The service's holder, with its token.
    pub holder: Option<ClientId>,
    pub token: Option<Token>,
    /// The holder's lease end at the service; `None` where the system has
    /// no lease end (PostgreSQL: held while the session lives).
    pub until: Option<Millis>,
    /// Where the clock stands; compared by when time's words were drawn.
    pub clock: Clock,
}

impl ServiceLineProps {
    pub fn from_sim(sim: &Sim) -> Self {
        let holder = sim.holder();
        ServiceLineProps {
            backend: sim.config().backend,
            holder: holder.map(|h| h.client),
            token: holder.and_then(|h| h.token),
            until: holder.and_then(|h| h.until),
            clock: Clock::at(sim.now()),
        }
    }

    /// What is left of the holder's lease at the service, where it has an end.
    pub fn left_ms(&self) -> Option<u64> {
        self.until.map(|u| self.clock.now.until(u))
    }
}

/// The lease's part of the line: "lease 4.2 s left", or how it lasts.
fn lease_words(props: &ServiceLineProps) -> String {
    let word = props.backend.lease_word();
    match props.left_ms() {
        Some(0) => format!("{word} over, not yet reclaimed"),
        Some(ms) => format!("{word} {} left", seconds_1(ms)),
        None => format!("held while its {word} lives"),
    }
}

/// The token's part, worded as the card, the strip and the log word it:
/// DynamoDB's RVN and PostgreSQL's advisory lock give none (their
/// resources check the owner or the row's version instead).
fn token_words(props: &ServiceLineProps) -> String {
    TokenWords::of(props.backend).grant(props.token)
}

/// The line as a component of its own: a frame drawn because the run
/// recorded something that left the holder as it was skips it
/// (`super::Clock`).
#[component]
pub fn ServiceLine(props: &ServiceLineProps) -> Html {
    service_line(props)
}

/// The lock service's line on the stage.
pub fn service_line(props: &ServiceLineProps) -> Html {
    let name = props.backend.name();
    let body = match props.holder {
        Some(c) => html! {
            <>
                { "holder " }<strong class="service-line__holder">{ c.to_string() }</strong>
                // The countdown changes every frame the clock runs: `tick`
                // lays it out on its own, not the stage around it.
                { " · " }{ super::tick(lease_words(props)) }{ format!(" · {}", token_words(props)) }
            </>
        },
        None => html! { { "nobody holds the lock" } },
    };
    html! {
        <p class="service-line" role="group" aria-label="Lock service at a glance">
            <span class="service-line__name">{ format!("{name}: ") }</span>
            { body }
        </p>
    }
}
