//! The status strip: who the service says holds the lock, with which token,
//! how many writes the resource rejected, and the virtual clock.

use super::state::clock_words;
use crate::sim::Sim;
use crate::sim::{ClientId, Millis, Token, TokenWords};
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusProps {
    pub now: Millis,
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
}

impl StatusProps {
    pub fn from_sim(sim: &Sim, running: bool) -> Self {
        let holder = sim.holder();
        let believers = sim
            .clients()
            .iter()
            .filter(|c| !c.crashed && c.belief.is_holding())
            .map(|c| c.id)
            .collect();
        StatusProps {
            now: sim.now(),
            running,
            holder: holder.map(|h| h.client),
            token: holder.and_then(|h| h.token),
            words: TokenWords::of(sim.config().backend),
            rejected: sim.resource().rejected(),
            believers,
            corruptions: sim.oracle().corruptions(),
            saves: sim.oracle().saves(),
        }
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

/// The strip, drawn by the page's own render: it changes every frame the
/// clock runs, so a component of its own would skip no work, and each
/// component costs the page about a kilobyte.
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
                        { super::tick(clock_words(props.now)) }
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
            if props.corruptions > 0 {
                <p class="status__pill status__pill--corrupt">
                    <span aria-hidden="true">{ "✕ " }</span>
                    { format!("Counter corrupted: {} stale {} accepted", props.corruptions,
                        if props.corruptions == 1 { "write" } else { "writes" }) }
                </p>
            } else if props.saves > 0 {
                <p class="status__pill status__pill--save">
                    <span aria-hidden="true">{ "✓ " }</span>
                    { format!("Fencing stopped {} stale {}", props.saves,
                        if props.saves == 1 { "write" } else { "writes" }) }
                </p>
            }
        </section>
    }
}
