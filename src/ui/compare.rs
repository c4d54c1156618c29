//! "Compare the systems": the articles' comparison table, but every cell is
//! a run of the core. The eight systems are put through the same stories
//! with fencing off and on; a click on a cell opens that run above. The
//! runs and the table are the worker's (`crate::work`): about a hundred
//! runs stay off the page's frames, and their code out of its first load.

use super::state::Action;
use super::worker::{open_clicked, Work};
use crate::sim::Backend;
use crate::work::{Job, Reply};
use yew::prelude::*;

/// Runs per system: six stories, fencing off and on.
const RUNS_PER_SYSTEM: usize = 12;

#[derive(Debug, Clone, PartialEq, Properties)]
pub struct CompareProps {
    /// The system the page runs now: its row is marked.
    pub backend: Backend,
    pub dispatch: Callback<Action>,
}

/// What the section shows.
#[derive(Debug, Clone, PartialEq, Default)]
enum Shown {
    #[default]
    Asked,
    Running {
        progress: String,
        html: AttrValue,
    },
    Done(AttrValue),
    Failed(String),
}

/// The section: a button that runs the comparison (about a hundred short
/// runs, so only on request), then the table as the worker draws it.
#[component]
pub fn Compare(props: &CompareProps) -> Html {
    let shown = use_state(Shown::default);
    let work = use_mut_ref(|| None::<Work>);
    let run = {
        let (shown, work) = (shown.clone(), work.clone());
        Callback::from(move |_: MouseEvent| {
            let answered = shown.clone();
            let on_reply = Callback::from(move |reply: Result<Reply, String>| {
                answered.set(match reply {
                    Ok(Reply {
                        error: Some(why), ..
                    })
                    | Err(why) => Shown::Failed(why),
                    Ok(r) if r.done => Shown::Done(r.html.into()),
                    Ok(r) => Shown::Running {
                        progress: r.progress,
                        html: r.html.into(),
                    },
                })
            });
            shown.set(Shown::Running {
                progress: "Starting the worker…".into(),
                html: AttrValue::default(),
            });
            let mut work = work.borrow_mut();
            work.get_or_insert_with(|| Work::start(on_reply))
                .send(Job::Compare);
        })
    };
    let runs = Backend::ALL.len() * RUNS_PER_SYSTEM;
    let (status, html) = match &*shown {
        Shown::Asked => (
            html! {
                <button type="button" class="button button--primary" onclick={run}>
                    { format!("Run the comparison ({runs} runs)") }
                </button>
            },
            AttrValue::default(),
        ),
        Shown::Running { progress, html } => (
            html! { <p class="compare__progress" role="status">{ progress }</p> },
            html.clone(),
        ),
        Shown::Done(html) => (html! {}, html.clone()),
        Shown::Failed(why) => (
            html! { <p class="compare__progress" role="alert">{ why }</p> },
            AttrValue::default(),
        ),
    };
    html! {
        <section class="panel compare" aria-labelledby="compare-title" data-current={props.backend.slug()}>
            <h2 id="compare-title" class="panel__title">{ "Compare the systems" }</h2>
            <p class="compare__lead">
                { "The same stories on all eight lock systems, with fencing off and on. No cell is typed in: each is a run of this simulator, judged by what the resource accepted. Click a cell to open its run above." }
            </p>
            { status }
            <div class="compare__body" onclick={open_clicked(&props.dispatch)}>
                { Html::from_html_unchecked(html) }
            </div>
        </section>
    }
}
