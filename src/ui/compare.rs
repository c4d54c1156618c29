//! "Compare the systems": the articles' comparison table, but every cell is
//! a run of the core. The eight systems are put through the same stories
//! with fencing off and on; a click on a cell opens that run above.

use super::state::Action;
use crate::lesson::compare::{matrix, Cell, Outcome, Row, COLUMNS};
use crate::sim::{Backend, Fencing};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CompareProps {
    /// The system the page runs now: its row is marked.
    pub backend: Backend,
    pub dispatch: Callback<Action>,
}

/// The section: a button that runs the comparison (about a hundred short
/// runs, so only on request), then the table.
#[component]
pub fn Compare(props: &CompareProps) -> Html {
    let rows = use_state(|| None::<Rc<Vec<Row>>>);
    let run = {
        let rows = rows.clone();
        Callback::from(move |_: MouseEvent| rows.set(Some(Rc::new(matrix()))))
    };
    html! {
        <section class="panel compare" aria-labelledby="compare-title">
            <h2 id="compare-title" class="panel__title">{ "Compare the systems" }</h2>
            <p class="compare__lead">
                { "The same stories on all eight lock systems, with fencing off and on. No cell is typed in: each is a run of this simulator, judged by what the resource accepted. Click a cell to open its run above." }
            </p>
            { match &*rows {
                None => html! {
                    <button type="button" class="button button--primary" onclick={run}>
                        { format!("Run the comparison ({} runs)", Backend::ALL.len() * COLUMNS.len() * 2) }
                    </button>
                },
                Some(rows) => table(props, rows),
            } }
        </section>
    }
}

fn table(props: &CompareProps, rows: &[Row]) -> Html {
    let fastest = rows.iter().map(|r| r.acquire_ms).min().unwrap_or(1).max(1);
    html! {
        <>
            <div class="table-wrap compare__wrap">
                <table class="compare__table">
                    <caption class="visually-hidden">{ "Each lock system under each story: what happened with fencing off, then on" }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "System" }</th>
                            <th scope="col">{ "Token" }</th>
                            <th scope="col" title="The system promises tokens that only grow; the property tests assert it, failovers included">{ "Monotonic" }</th>
                            <th scope="col" title="A's acquisition in the GC pause run, click to grant, at the default latency">{ "Acquire" }</th>
                            { for COLUMNS.iter().map(|c| html! {
                                <th scope="col" title={c.question}>{ c.title }<span class="compare__sub">{ "fencing off, on" }</span></th>
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|row| row_html(props, row, fastest)) }
                    </tbody>
                </table>
            </div>
            <p class="panel__note">
                { "Corrupted: a stale write was accepted after the lock went to another client. Rejected: fencing refused it. Stopped in time: the old holder learned it had lost the lock before writing. Lock kept: nobody else was granted it. A crashed holder's cell says how long B waited. The runs use seed 1 and the page's defaults (TTL 5 s); each system's own numbers are scaled to that TTL." }
            </p>
        </>
    }
}

fn row_html(props: &CompareProps, row: &Row, fastest: u64) -> Html {
    let backend = row.backend;
    let ratio = (row.acquire_ms + fastest / 2) / fastest;
    html! {
        <tr class={classes!((backend == props.backend).then_some("compare__row--current"))}>
            <th scope="row">{ backend.name() }</th>
            <td class="compare__token">{ backend.token_short() }</td>
            <td>{ if backend.monotonic_tokens() { "yes" } else { "no" } }</td>
            <td>{ format!("{} ms ({ratio}x)", row.acquire_ms) }</td>
            { for COLUMNS.iter().zip(&row.cells).map(|(column, [off, on])| html! {
                <td class="compare__pair">
                    { cell_button(props, backend, column.id, column.title, Fencing::Off, off) }
                    { cell_button(props, backend, column.id, column.title, Fencing::On, on) }
                </td>
            }) }
        </tr>
    }
}

fn outcome_class(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Corrupted => "compare__cell--corrupted",
        Outcome::Rejected => "compare__cell--rejected",
        Outcome::Safe | Outcome::NeverLost | Outcome::NotAffected => "compare__cell--safe",
        Outcome::Waited { .. } | Outcome::StillWaiting { .. } => "compare__cell--wait",
        Outcome::NotApplicable(_) => "compare__cell--na",
    }
}

fn cell_button(
    props: &CompareProps,
    backend: Backend,
    column: &'static str,
    title: &'static str,
    fencing: Fencing,
    cell: &Cell,
) -> Html {
    let side = if fencing.is_on() { "on" } else { "off" };
    let word = cell.outcome.word();
    let label = format!(
        "{}, {title}, fencing {side}: {word}. Open this run",
        backend.name()
    );
    if let Outcome::NotApplicable(why) = &cell.outcome {
        return html! {
            <span class={classes!("compare__cell", outcome_class(&cell.outcome))} title={why.clone()}>
                <span class="compare__side">{ side }</span>{ word }
            </span>
        };
    }
    let onclick = props.dispatch.reform(move |_: MouseEvent| {
        super::dom::show_simulation();
        Action::OpenComparison {
            column,
            backend,
            fencing,
        }
    });
    html! {
        <button type="button" class={classes!("compare__cell", outcome_class(&cell.outcome))}
            title={cell.why.clone()} aria-label={label} {onclick}>
            <span class="compare__side" aria-hidden="true">{ side }</span>{ word }
        </button>
    }
}
