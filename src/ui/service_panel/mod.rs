//! The lock service's internals, as each system keeps its own books: one
//! file per system beside this one, which draws the frame they share.

mod chubby;
mod consul;
mod dynamodb;
mod etcd;
mod postgres;
mod redis;
mod redlock;
mod zookeeper;

use super::state::Action;
use crate::sim::{
    Backend, ClientId, ClientView, Config, HolderView, Millis, NodeCommand, NodeId, RedisDetail,
    RedisNodeView, RedlockDetail, ServiceDetail, Sim,
};
use crate::words::seconds_1;
use std::rc::Rc;
use yew::prelude::*;

/// What the page says of a lock system outside its panel: on the
/// controls' line, and on a client card and its buttons' tooltips. Each
/// system's file beside this one writes its own.
pub struct SystemWords {
    /// What the client's token is, for the line under the backend switch:
    /// "token = create_revision of the lock key".
    pub token_line: &'static str,
    /// Who speaks for the service on a client card: "etcd says".
    pub service_says: &'static str,
    /// What renewal does, finishing "While on, the client ...", and how
    /// often (`EVERY_THIRD` for most).
    pub renewal: (&'static str, &'static str),
    /// What a process exit does to the lock, for the crash button's tooltip.
    pub exit: &'static str,
    /// What a host's death does to the lock, for the power-off button's.
    pub power_off: &'static str,
    /// What a holder's card says of its token, where the lock grants none.
    pub holding_note: Option<&'static str>,
    /// What a client's card says of its library and the session it
    /// reports (ZooKeeper's client and connection state, Chubby's
    /// session), from the run's settings, the client's view and the time.
    pub library_note: Option<LibraryNote>,
}

/// A card's line for a client's library, from the run's settings, the
/// client's view and the time; `None` when the library has nothing to say.
pub type LibraryNote = fn(&Config, &ClientView, Millis) -> Option<String>;

/// How often most clients renew (`sim`'s `renew_every_ms`).
const EVERY_THIRD: &str = " every third of the TTL";
/// A system whose server ends nothing early when a client goes.
const EXIT_ENDS_NOTHING: &str =
    "a closed connection ends nothing here, and the lease runs out at its time";
const POWER_OFF_ENDS_NOTHING: &str = "The service keeps its lease until it runs out";

macro_rules! panels {
    ($($variant:ident($slug:literal) => $module:ident::$system:ident($msg:ident, $detail:ident)),* $(,)?) => {
        /// The words of `backend`.
        pub fn words(backend: Backend) -> &'static SystemWords {
            match backend { $(Backend::$variant => &$module::WORDS,)* }
        }

        /// The system's own books, drawn by its panel. Inlined into
        /// `service_panel`, as the match was before the list built it: a
        /// call of its own cost the page's wasm bytes.
        #[inline(always)]
        fn books_of(props: &ServicePanelProps) -> Html {
            match &props.detail { $(ServiceDetail::$variant(d) => $module::panel(props, d),)* }
        }

        /// The system's own settings and its failover, if it has them.
        #[inline(always)]
        fn controls_of(props: &ServicePanelProps) -> Html {
            match &props.detail { $(ServiceDetail::$variant(d) => $module::controls(props, d),)* }
        }
    };
}

// Each system's panel is the file of this folder named as its backend's
// file in `sim/backend/`, with its `WORDS` and its `panel`.
crate::sim::with_lock_systems!(panels);

pub use consul::card_line as consul_card_line;
pub use postgres::card_note as pg_card_note;

/// What a system's own books say of running client `c` on its card: of
/// its connection (PostgreSQL's backend session), shown first, and of its
/// session or application (Consul's session and leaderCh, DynamoDB's
/// expiry check), shown after its token. Only these systems' books are
/// read: the others' are not built for every card on every frame.
pub fn card_notes(sim: &Sim, c: ClientId, holding: bool) -> (Option<String>, Option<String>) {
    match sim.config().backend {
        Backend::Postgres => match sim.service_detail() {
            ServiceDetail::Postgres(d) => (postgres::card_note(&d, c, false), None),
            _ => (None, None),
        },
        Backend::Consul => match sim.service_detail() {
            ServiceDetail::Consul(d) => (None, consul::card_line(&d, c)),
            _ => (None, None),
        },
        Backend::DynamoDb if holding => (None, Some(dynamodb::card_note(sim.config()))),
        _ => (None, None),
    }
}

/// How far "Clock +10 s" moves a node's wall clock.
pub const CLOCK_JUMP_MS: i64 = 10_000;
/// How much later a slowed node answers.
pub const SLOW_NODE_MS: u64 = 2_000;

/// Why each node button is disabled, `None` when enabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChecks {
    pub node: NodeId,
    pub crash: Option<String>,
    pub restart: Option<String>,
    pub clock_jump: Option<String>,
    pub slow: Option<String>,
    pub failover: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ServicePanelProps {
    pub now: Millis,
    pub detail: ServiceDetail,
    pub holder: Option<HolderView>,
    /// The run's settings, each system's own options among them.
    pub config: Config,
    /// One per Redis node under Redlock, empty otherwise.
    pub node_checks: Vec<NodeChecks>,
    pub dispatch: Callback<Action>,
}

impl ServicePanelProps {
    pub fn from_sim(sim: &Sim, dispatch: Callback<Action>) -> Self {
        let detail = sim.service_detail();
        let nodes: Vec<&RedisNodeView> = match &detail {
            ServiceDetail::Redlock(RedlockDetail { nodes }) => nodes.iter().collect(),
            ServiceDetail::Redis(RedisDetail { servers, .. }) => {
                servers.iter().map(|s| &s.node).collect()
            }
            _ => Vec::new(),
        };
        let node_checks = nodes
            .into_iter()
            .map(|n| {
                let why = |cmd| sim.check_node(n.node, cmd).err().map(|e| e.to_string());
                NodeChecks {
                    node: n.node,
                    crash: why(NodeCommand::Crash),
                    restart: why(NodeCommand::Restart),
                    clock_jump: why(NodeCommand::ClockJump {
                        jump_ms: CLOCK_JUMP_MS,
                    }),
                    slow: why(NodeCommand::Slow {
                        extra_ms: if n.slow_ms > 0 { 0 } else { SLOW_NODE_MS },
                    }),
                    failover: why(NodeCommand::Failover),
                }
            })
            .collect();
        ServicePanelProps {
            now: sim.now(),
            detail,
            holder: sim.holder(),
            config: sim.config().clone(),
            node_checks,
            dispatch,
        }
    }
}

/// The panel in the folded books, as a component drawn again only when
/// time's words are (`drawn`, `AppState::words_drawn`) while the books are
/// folded, and at every render while they are open. Compared by those
/// alone: comparing the books themselves cost the page about 4 KB of code.
#[derive(Debug, Clone, Properties)]
pub struct ServiceBooksProps {
    pub service: Rc<ServicePanelProps>,
    pub drawn: u64,
    pub open: bool,
}

impl PartialEq for ServiceBooksProps {
    fn eq(&self, other: &Self) -> bool {
        !self.open && !other.open && self.drawn == other.drawn
    }
}

#[component]
pub fn ServiceBooks(props: &ServiceBooksProps) -> Html {
    service_panel(&props.service)
}

/// The panel's markup.
pub fn service_panel(props: &ServicePanelProps) -> Html {
    let body = books_of(props);
    // The controls first: the books under them gain rows as clients come
    // and go, and push nothing the visitor may be about to press.
    html! {
        <section class="panel service" aria-label="Lock service">
            <h2 class="panel__title">{ "Lock service" }</h2>
            <div class="service__controls">{ controls_of(props) }</div>
            { holder_line(props) }
            { body }
            { sources_line(props.config.backend) }
        </section>
    }
}

/// Where the panel's numbers come from, and the project's own docs: pages
/// the build writes beside the page (scripts/build/docs.mjs), opened in a tab of
/// their own so the run stays where it is. Written as markup (every part
/// of it is the page's own text): three links cost the page less so.
fn sources_line(backend: crate::sim::Backend) -> Html {
    let link = |href: &str, words: &str| {
        format!(r#"<a href="docs/{href}" target="_blank" rel="noopener">{words}</a>"#)
    };
    Html::from_html_unchecked(AttrValue::from(format!(
        r#"<p class="service__sources">{} · {} · {}</p>"#,
        link(
            &format!("sources.html#{}", backend.slug()),
            &format!("Where {backend}&#39;s numbers come from")
        ),
        link(
            "systems.html#how-the-model-simplifies",
            "How the model simplifies"
        ),
        link(
            "fidelity.html",
            "The real-server check&#39;s latest results"
        ),
    )))
}

fn holder_line(props: &ServicePanelProps) -> Html {
    let text = match props.holder {
        Some(h) => {
            let token = crate::words::token(h.token);
            let until = h.until.map_or(String::new(), |u| {
                format!(", {} left", seconds_1(props.now.until(u)))
            });
            format!(
                "The service says {} holds the lock ({token}{until}).",
                h.client
            )
        }
        None => "The service says nobody holds the lock.".into(),
    };
    html! { <p class="service__holder">{ text }</p> }
}

/// A cell of a system's books.
pub(super) enum Cell {
    Text(String),
    /// An identifier: a key, a session, a lease, a value.
    Code(String),
    /// Text with a tooltip saying what it means.
    Hinted(String, &'static str),
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell::Text(text)
    }
}

impl From<&'static str> for Cell {
    fn from(text: &'static str) -> Cell {
        Cell::Text(text.into())
    }
}

impl From<u64> for Cell {
    fn from(n: u64) -> Cell {
        Cell::Text(n.to_string())
    }
}

/// A row of a system's books: its cells, and whether it is the holder's.
pub(super) struct Line {
    pub holder: bool,
    pub cells: Vec<Cell>,
}

/// A table of a system's books, built from data rather than written as
/// markup: the eight panels share this one copy of the code that makes
/// table elements, where markup would compile to a copy per table (the
/// page budgets its bytes).
pub(super) fn books(class: &'static str, heads: &[&str], lines: Vec<Line>) -> Html {
    let cell = |c: Cell| match c {
        Cell::Text(t) => html! { <td>{ t }</td> },
        Cell::Code(t) => html! { <td><code>{ t }</code></td> },
        Cell::Hinted(t, hint) => html! { <td title={hint}>{ t }</td> },
    };
    html! {
        <div class="table-wrap">
            <table class={class}>
                <thead>
                    <tr>{ for heads.iter().map(|h| html! { <th scope="col">{ h.to_string() }</th> }) }</tr>
                </thead>
                <tbody>
                    { for lines.into_iter().map(|l| html! {
                        <tr class={classes!(l.holder.then_some("keys__row--holder"))}>
                            { for l.cells.into_iter().map(cell) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// One radio button of a system's setting: choosing it starts a fresh
/// run with `config`. Shared by every panel, like `books`.
pub(super) fn choice(
    props: &ServicePanelProps,
    name: &'static str,
    id: &'static str,
    words: &'static str,
    checked: bool,
    config: Config,
) -> Html {
    let onchange = props
        .dispatch
        .reform(move |_: Event| Action::Reconfigure(config.clone()));
    html! {
        <label class="toggle" for={id}>
            <input {id} type="radio" {name} class="toggle__input" {checked} {onchange} />
            <span class="toggle__text">{ words }</span>
        </label>
    }
}

/// A system's setting chosen from a list of (value, words); the current
/// value is offered too when a link set one off the list. Choosing starts
/// a fresh run with `to_config(value)`.
pub(super) fn picker(
    props: &ServicePanelProps,
    id: &'static str,
    label: &'static str,
    mut choices: Vec<(u64, String)>,
    current: (u64, String),
    to_config: Rc<dyn Fn(u64) -> Config>,
) -> Html {
    let now = current.0;
    if !choices.iter().any(|&(v, _)| v == now) {
        choices.push(current);
    }
    let onchange = props.dispatch.reform(move |e: Event| {
        let value = super::browser::value_of(&e).parse().unwrap_or(now);
        Action::Reconfigure(to_config(value))
    });
    html! {
        <label class="field" for={id}>
            <span>{ label }</span>
            <select {id} {onchange}>
                { for choices.into_iter().map(|(v, words)| html! {
                    <option value={v.to_string()} selected={v == now}>{ words }</option>
                }) }
            </select>
        </label>
    }
}

/// A button that fails the service's leader over (node 1 names the whole
/// service); `why` says why it is disabled.
pub(super) fn failover_button(
    props: &ServicePanelProps,
    label: &'static str,
    hint: &'static str,
    why: Option<String>,
) -> Html {
    let node = NodeId::new(1).expect("node 1 exists");
    let onclick = props
        .dispatch
        .reform(move |_: MouseEvent| Action::Node(node, NodeCommand::Failover));
    let disabled = why.is_some();
    html! {
        <p class="service__actions">
            <button type="button" class="button button--small"
                {disabled} title={why.unwrap_or_else(|| hint.into())} {onclick}>
                { label }
            </button>
        </p>
    }
}
