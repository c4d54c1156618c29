//! Messages in flight, drawn as dots moving from the sender's column to the
//! receiver's, so a late or doomed message can be seen on its way.

use crate::sim::engine::Sim;
use crate::sim::net::{Endpoint, Message};
use crate::sim::types::{Backend, ClientId, Millis, NodeId};
use yew::prelude::*;

/// Messages drawn at most; the rest are counted.
pub const MESSAGES_SHOWN_MAX: usize = 14;

/// One message, ready to draw: columns are indexes into `columns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flight {
    pub id: u64,
    pub from: usize,
    pub to: usize,
    /// How far along it is, in thousandths.
    pub progress_permille: u32,
    pub label: String,
    pub describe: String,
    pub doomed: bool,
    /// Took longer than an ordinary hop: a delayed packet or a slow node.
    pub slow: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Properties)]
pub struct MessagesProps {
    pub columns: Vec<String>,
    pub flights: Vec<Flight>,
    /// Messages in flight that were not drawn.
    pub hidden: usize,
}

/// The columns, left to right: the service (or its nodes), clients, resource.
fn endpoints(backend: Backend) -> Vec<Endpoint> {
    let mut cols: Vec<Endpoint> = match backend {
        Backend::Redlock => NodeId::all().map(Endpoint::Node).collect(),
        _ => vec![Endpoint::Service],
    };
    cols.extend(ClientId::ALL.iter().map(|&c| Endpoint::Client(c)));
    cols.push(Endpoint::Resource);
    cols
}

fn column_name(e: Endpoint, backend: Backend) -> String {
    match e {
        Endpoint::Client(c) => c.to_string(),
        Endpoint::Service => match backend {
            Backend::ZooKeeper => "ZooKeeper".into(),
            _ => "etcd".into(),
        },
        Endpoint::Node(n) => format!("R{}", n.number()),
        Endpoint::Resource => "counter".into(),
    }
}

fn flight(cols: &[Endpoint], now: Millis, m: &Message) -> Flight {
    let index = |e: Endpoint| cols.iter().position(|&c| c == e).unwrap_or(0);
    let span = m.deliver_ms.saturating_sub(m.sent_ms).max(1);
    let done = now.ms().saturating_sub(m.sent_ms).min(span);
    let label = m.body.label();
    let fate = if m.doomed { ", will be dropped" } else { "" };
    Flight {
        id: m.id,
        from: index(m.from),
        to: index(m.to),
        progress_permille: (done * 1000 / span) as u32,
        describe: format!(
            "{} to {}: {label}, arrives at t={}{fate}",
            m.from,
            m.to,
            Millis(m.deliver_ms)
        ),
        label,
        doomed: m.doomed,
        slow: span > 1_000,
    }
}

impl MessagesProps {
    pub fn from_sim(sim: &Sim) -> Self {
        let backend = sim.config().backend;
        let cols = endpoints(backend);
        let now = sim.now();
        let all: Vec<&Message> = sim.in_flight().collect();
        let hidden = all.len().saturating_sub(MESSAGES_SHOWN_MAX);
        // The newest are the ones a visitor just caused: draw those.
        let flights = all[hidden..]
            .iter()
            .map(|m| flight(&cols, now, m))
            .collect();
        MessagesProps {
            columns: cols.into_iter().map(|e| column_name(e, backend)).collect(),
            flights,
            hidden,
        }
    }
}

/// Where a column's centre sits, in percent of the strip's width.
fn column_x(index: usize, count: usize) -> f64 {
    (index as f64 + 0.5) * 100.0 / count.max(1) as f64
}

fn flight_row(f: &Flight, count: usize) -> Html {
    let from = column_x(f.from, count);
    let to = column_x(f.to, count);
    let at = from + (to - from) * f64::from(f.progress_permille) / 1000.0;
    let (left, width) = (from.min(to), (to - from).abs());
    let class = classes!(
        "flight",
        f.doomed.then_some("flight--doomed"),
        f.slow.then_some("flight--slow"),
        (to < from).then_some("flight--leftward")
    );
    let mark = if f.doomed { "✕" } else { "●" };
    // The label sits on the side with more room, so it never leaves the strip.
    let label_style = if at > 60.0 {
        format!("right: {:.2}%", 100.0 - at)
    } else {
        format!("left: {at:.2}%")
    };
    html! {
        <li class={class} key={f.id}>
            <span class="flight__track" style={format!("left: {left:.2}%; width: {width:.2}%")}></span>
            <span class="flight__dot" style={format!("left: {at:.2}%")} aria-hidden="true">{ mark }</span>
            <span class="flight__label" style={label_style} aria-hidden="true">{ &f.label }</span>
            <span class="visually-hidden">{ &f.describe }</span>
        </li>
    }
}

#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    let count = props.columns.len();
    html! {
        <section class="panel messages" aria-label="Messages in flight">
            <h2 class="panel__title">{ "Messages in flight" }</h2>
            <div class="messages__strip">
                <ol class="messages__columns" aria-hidden="true">
                    { for props.columns.iter().enumerate().map(|(i, name)| html! {
                        <li class="messages__column" style={format!("left: {:.2}%", column_x(i, count))}>
                            { name }
                        </li>
                    }) }
                </ol>
                if props.flights.is_empty() {
                    <p class="messages__empty">{ "Nothing on the wire." }</p>
                } else {
                    <ul class="messages__flights">
                        { for props.flights.iter().map(|f| flight_row(f, count)) }
                    </ul>
                }
            </div>
            <p class="panel__note">
                { "● a message on its way · " }
                <span class="messages__key--doomed">{ "✕ dashed: sent across a partition, it will be dropped" }</span>
                if props.hidden > 0 {
                    { format!(" · {} older messages not drawn", props.hidden) }
                }
            </p>
        </section>
    }
}
